/**
 * PythonRunner: the library face of the engine — one live kernel in a Python
 * of your choice, used from Node like a REPL. No daemon involved.
 *
 *   const py = await PythonRunner.start({ interpreter: '/usr/bin/python3' });
 *   console.log(await py.run('1 + 1'));          // "2"
 *   const total = await py.value('sum(range(10))');
 *   await py.close();
 */
import { resolve } from 'node:path';
import { Kernel, defaultSpillPath, type ExecuteOptions, type KernelOptions, KernelSupervisor, LocalProvisioner, attachedKernelOptions } from '../kernel/kernel.js';
import { outputText, type ExecutionResult, type Output } from '../kernel/execution/outputs.js';
import type { PythonErrorInfo } from '../kernel/execution/error-text.js';
import { callHelper } from '../sessions/helper-bridge.js';

export interface PythonRunnerOptions extends Partial<KernelOptions> {
  /** The Python to run; defaults to PYTHON_MCP_INTERPRETER, then `python3` (`python` on Windows). */
  interpreter?: string;
  /** Default seconds a run may take before it is interrupted (none by default). */
  timeoutS?: number;
}

export interface RunOptions extends Omit<ExecuteOptions, 'timeoutMs' | 'storeHistory'> {
  timeoutS?: number;
}

/** Python raised; `output` holds what the code printed before it failed. */
export class PythonError extends Error {
  readonly ename: string;
  readonly evalue: string;
  readonly traceback: string[];
  readonly line?: number;
  constructor(
    info: PythonErrorInfo,
    readonly output: string,
    readonly result: ExecutionResult,
  ) {
    super(info.message);
    this.ename = info.ename;
    this.evalue = info.evalue;
    this.traceback = info.traceback;
    this.line = info.line;
  }
}

export class PythonTimeoutError extends Error {
  constructor(
    readonly seconds: number,
    readonly output: string,
    readonly result: ExecutionResult,
  ) {
    super(`Timed out after ${seconds} s; the run was interrupted${result.restarted ? ' and the kernel restarted' : ''}.`);
  }
}

export interface ValueDetails<T = unknown> {
  value: T;
  type: string;
  notes: string[];
}

function defaultInterpreter(): string {
  return process.env.PYTHON_MCP_INTERPRETER || (process.platform === 'win32' ? 'python' : 'python3');
}

export class PythonRunner {
  private constructor(
    readonly kernel: Kernel,
    private readonly defaultTimeoutS?: number,
  ) {}

  static async start(options: PythonRunnerOptions = {}): Promise<PythonRunner> {
    const full: KernelOptions = {
      ...options,
      interpreter: options.interpreter ?? defaultInterpreter(),
      outputLimits: { spillPath: defaultSpillPath, ...options.outputLimits },
    };
    const kernel = await KernelSupervisor.start(new LocalProvisioner(full), full);
    return new PythonRunner(kernel, options.timeoutS);
  }

  /** Attaches to a running kernel (Jupyter, Spyder, `python -m ipykernel`) by its connection file. */
  static async connect(connectionFile: string, options: Partial<KernelOptions> = {}): Promise<PythonRunner> {
    const full = attachedKernelOptions(options);
    return new PythonRunner(await KernelSupervisor.start(new LocalProvisioner(full, connectionFile), full));
  }

  /** Every output with its MIME bundles; never throws for Python errors. */
  execute(code: string, options: RunOptions = {}): Promise<ExecutionResult> {
    const timeoutS = options.timeoutS ?? this.defaultTimeoutS;
    return this.kernel.execute(code, { ...options, timeoutMs: timeoutS ? timeoutS * 1000 : undefined });
  }

  /** Runs code as a REPL cell and returns what it printed and displayed, as text. */
  async run(code: string, options: RunOptions = {}): Promise<string> {
    const result = await this.execute(code, options);
    const text = outputText(result.outputs);
    if (result.timedOut) throw new PythonTimeoutError(options.timeoutS ?? this.defaultTimeoutS ?? 0, text, result);
    if (result.error) throw new PythonError(result.error, text, result);
    return text.replace(/\n$/, '');
  }

  /** The value of a Python expression as a JavaScript value (through JSON; NaN and infinities become null). */
  async value<T = unknown>(expression: string): Promise<T> {
    return (await this.valueDetails<T>(expression)).value;
  }

  async valueDetails<T = unknown>(expression: string): Promise<ValueDetails<T>> {
    const result = await callHelper<ValueDetails<T>>(this.kernel, 'value', { expression });
    return result.structured as ValueDetails<T>;
  }

  /** Saves the current matplotlib figure (PNG, SVG or PDF by extension), creating missing folders. */
  async saveFigure(path: string, options: { dpi?: number } = {}): Promise<{ path: string; bytes: number }> {
    const result = await callHelper<{ path: string; bytes: number }>(this.kernel, 'save_figure', { path: resolve(path), dpi: options.dpi ?? null });
    return result.structured as { path: string; bytes: number };
  }

  interrupt(): Promise<{ restarted: boolean }> {
    return this.kernel.interrupt();
  }

  restart(): Promise<{ lostNames: string[] }> {
    return this.kernel.restart();
  }

  /** Ends the kernel (a connected one is only disconnected) and leaves no process behind. */
  close(): Promise<void> {
    return this.kernel.shutdown();
  }
}

export type { ExecutionResult, Output };
