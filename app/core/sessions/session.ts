/**
 * A named session: one kernel (ours or attached), its log and its figures.
 * Runs go through the kernel's queue, so they execute one at a time in order;
 * each is logged before its reply is returned.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { KernelDiedError, type KernelState } from '../kernel/kernel.js';
import type { SessionKernel } from '../kernel/session-kernel.js';
import type { ExecutionResult, Output } from '../kernel/outputs.js';
import type { PythonErrorInfo } from '../kernel/error-text.js';
import { FigureStore, IMAGE_TYPES, type SavedFigure } from './figure-store.js';
import { SessionLog, type LogEntry, type LogOutput } from './session-log.js';

export interface SessionInterpreter {
  path: string;
  /** Why this interpreter was chosen, in words. */
  reason: string;
}

export interface RunRequest {
  code: string;
  client: string;
  timeoutS?: number;
  signal?: AbortSignal;
  onOutput?: (output: Output) => void;
  outputLimit: number;
}

export type RunOutcome =
  | { kind: 'done'; result: ExecutionResult; figures: SavedFigure[]; entry: LogEntry }
  | { kind: 'died'; error: KernelDiedError; entry: LogEntry };

export interface SessionSummary {
  name: string;
  state: KernelState;
  owned: boolean;
  pid?: number;
  interpreter?: SessionInterpreter;
  connectionFile?: string;
  startedAt?: number;
  executionCount: number;
  restarts: number;
  runningSince?: number;
  runningCode?: string;
  cwd?: string;
}

export class Session extends EventEmitter {
  readonly log: SessionLog;
  readonly figures: FigureStore;
  lastError: (PythonErrorInfo & { time: string; code: string }) | null = null;
  private running: { since: number; code: string; client: string } | null = null;
  private spillCounter = 0;

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly kernel: SessionKernel,
    readonly interpreter: SessionInterpreter | undefined,
    readonly cwd: string | undefined,
  ) {
    super();
    this.log = new SessionLog(dir);
    this.figures = new FigureStore(join(dir, 'figures'));
    kernel.on('state', (state: KernelState) => this.emit('changed', { state }));
    kernel.on('died', (error: KernelDiedError) => this.emit('died', error));
    kernel.on('restarted', (info) => this.emit('restarted', info));
  }

  get state(): KernelState {
    return this.kernel.state;
  }

  summary(): SessionSummary {
    return {
      name: this.name,
      state: this.kernel.state,
      owned: this.kernel.owned,
      pid: this.kernel.pid,
      interpreter: this.interpreter,
      connectionFile: this.kernel.owned ? undefined : this.kernel.connectionFile,
      startedAt: this.kernel.startedAt,
      executionCount: this.kernel.executionCount,
      restarts: this.kernel.restartCount,
      runningSince: this.running?.since,
      runningCode: this.running?.code,
      cwd: this.cwd,
    };
  }

  spillPath(): string {
    return join(this.dir, 'outputs', `${new Date().toISOString().replace(/[:.]/g, '-')}-${++this.spillCounter}.txt`);
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const started = Date.now();
    const time = new Date(started).toISOString();
    try {
      const result = await this.kernel.execute(request.code, {
        timeoutMs: request.timeoutS ? request.timeoutS * 1000 : undefined,
        signal: request.signal,
        onOutput: request.onOutput,
        onStart: () => {
          this.running = { since: Date.now(), code: request.code, client: request.client };
          this.emit('run-started', { code: request.code, client: request.client, time });
        },
        limits: { maxChars: request.outputLimit, spillPath: () => this.spillPath() },
      });
      const figures: SavedFigure[] = [];
      const logOutputs = this.toLogOutputs(result, figures);
      if (result.error) this.lastError = { ...result.error, time, code: request.code };
      const entry = this.log.append({
        time,
        client: request.client,
        code: request.code,
        status: result.timedOut ? 'timeout' : result.status,
        executionCount: result.executionCount,
        durationMs: result.durationMs,
        outputs: logOutputs,
        error: result.error && { ename: result.error.ename, evalue: result.error.evalue, message: result.error.message, traceback: result.error.traceback },
        spillPath: result.spillPath,
      });
      this.emit('logged', entry);
      return { kind: 'done', result, figures, entry };
    } catch (error) {
      if (!(error instanceof KernelDiedError)) throw error;
      this.lastError = { ename: 'KernelDied', evalue: error.message, traceback: [], message: error.message, time, code: request.code };
      const entry = this.log.append({
        time,
        client: request.client,
        code: request.code,
        status: 'died',
        executionCount: null,
        durationMs: Date.now() - started,
        outputs: [],
        error: { ename: 'KernelDied', evalue: error.message, message: error.message, traceback: [] },
      });
      this.emit('logged', entry);
      return { kind: 'died', error, entry };
    } finally {
      this.running = null;
    }
  }

  private toLogOutputs(result: ExecutionResult, figures: SavedFigure[]): LogOutput[] {
    const outputs: LogOutput[] = [];
    for (const output of result.outputs) {
      switch (output.type) {
        case 'stream':
          outputs.push({ type: 'stream', name: output.name, text: output.text });
          break;
        case 'execute_result':
        case 'display_data': {
          const saved = this.figures.save(output.data, result.executionCount ?? 0);
          figures.push(...saved);
          const textual = Object.fromEntries(Object.entries(output.data).filter(([mime]) => !(mime in IMAGE_TYPES) && mime.startsWith('text/')));
          outputs.push({
            type: output.type === 'execute_result' ? 'result' : 'display',
            text: typeof output.data['text/plain'] === 'string' ? (output.data['text/plain'] as string) : undefined,
            figures: saved.length ? saved.map((f) => f.path) : undefined,
            data: textual,
          });
          break;
        }
        case 'error':
          outputs.push({ type: 'error', name: output.ename, text: output.evalue });
          break;
        case 'omitted':
          outputs.push({ type: 'omitted', text: `${output.chars} characters of ${output.what} left out`, name: output.spillPath });
          break;
      }
    }
    return outputs;
  }
}
