/**
 * The kernel manager's half: one ipykernel OS process — launch, signal, reap.
 * It knows nothing about messages. The process gets its own process group so
 * signals reach everything user code started, stdin is closed, and its stdout
 * and stderr go to the kernel's log, never to ours (ours may be an MCP stream).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { pythonHelpersDir } from '../../package-root.js';
import { KernelLog, type KernelLogOptions } from './kernel-log.js';

export interface LaunchOptions {
  interpreter: string;
  connectionFile: string;
  cwd?: string;
  /** Extra environment for the kernel, on top of ours. */
  env?: NodeJS.ProcessEnv;
  /** Extra arguments after `-f <file>` (e.g. traitlets options). */
  extraArgs?: string[];
  /** Cap on the kernel's memory (Linux: RLIMIT_DATA), so runaway allocation is a MemoryError. */
  memoryLimitBytes?: number;
  log?: KernelLogOptions;
}

export interface SpawnOptions extends Pick<LaunchOptions, 'cwd' | 'env' | 'memoryLimitBytes' | 'log'> {
  /** 'ignore': no stdin at all; 'pipe': the caller writes to child.stdin, then ends it. */
  stdin: 'ignore' | 'pipe';
  /** A socket on fd 3 whose end tells the process we are gone (see kernel_startup.py). */
  lifeline: boolean;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines of the kernel's stderr/stdout, for the error message. */
  lastLines: string[];
}

const isWindows = process.platform === 'win32';

/**
 * resources/python/kernel_startup.py runs at kernel start (as an IPKernelApp
 * exec_line): the lifeline on fd 3 and print-order flushing; see that file.
 */
function startupLine(): string {
  const file = join(pythonHelpersDir(), 'kernel_startup.py');
  // exec in a fresh dict: nothing lands in the user's namespace. __file__ is where it finds
  // python_session_common, the part it shares with the built-in worker.
  return `exec(compile(open(${JSON.stringify(file)}, encoding='utf-8').read(), ${JSON.stringify(file)}, 'exec'), {'__name__': 'python_session_startup', '__file__': ${JSON.stringify(file)}})`;
}

export function describeExit(info: Pick<ExitInfo, 'code' | 'signal'>): string {
  if (info.signal) {
    const hints: Partial<Record<NodeJS.Signals, string>> = {
      SIGSEGV: 'a segmentation fault, usually in a C extension',
      SIGKILL: 'killed; often the out-of-memory killer',
      SIGABRT: 'aborted',
      SIGBUS: 'a bus error in native code',
      SIGTERM: 'terminated',
    };
    const hint = hints[info.signal];
    return `the kernel was ended by ${info.signal}${hint ? ` (${hint})` : ''}`;
  }
  return `the kernel exited with code ${info.code}`;
}

export class KernelProcess extends EventEmitter {
  readonly child: ChildProcess;
  readonly log: KernelLog;
  private exitInfo: ExitInfo | null = null;
  private readonly exited: Promise<ExitInfo>;

  private constructor(child: ChildProcess, log: KernelLog) {
    super();
    this.child = child;
    this.log = log;
    this.exited = new Promise((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.exitInfo) return;
        this.exitInfo = { code, signal, lastLines: log.lastLines() };
        log.close();
        resolve(this.exitInfo);
        this.emit('exit', this.exitInfo);
      };
      child.once('exit', finish);
      // A process that never started (no such file) emits 'error' and no 'exit'.
      child.once('error', () => child.pid === undefined && finish(null, null));
    });
  }

  static launch(options: LaunchOptions): KernelProcess {
    const args = ['-m', 'ipykernel_launcher', '-f', options.connectionFile];
    // IPython's history stays in memory (In, Out, %history work): the code a model runs does not
    // belong in the user's own ~/.ipython history, kernels do not contend for its SQLite lock,
    // and each cell is spared a write (the session log keeps every run).
    args.push(`--IPKernelApp.exec_lines=${startupLine()}`, '--HistoryManager.enabled=False');
    args.push(...(options.extraArgs ?? []));
    return KernelProcess.spawn(options.interpreter, args, { ...options, stdin: 'ignore', lifeline: true });
  }

  /**
   * Any kernel-like process (ipykernel, the built-in worker): its own process group, stdout and
   * stderr into the capped log, stdin closed or a pipe (the worker reads its start line there).
   */
  static spawn(interpreter: string, args: string[], options: SpawnOptions): KernelProcess {
    const log = new KernelLog(options.log);
    const lifeline = options.lifeline && !isWindows;
    const child = spawn(interpreter, args, {
      cwd: options.cwd,
      env: {
        ...process.env,
        ...options.env,
        JPY_PARENT_PID: String(process.pid),
        ...(lifeline ? { PYTHON_SESSION_LIFELINE_FD: '3' } : {}),
        ...(options.memoryLimitBytes ? { PYTHON_SESSION_MEMORY_LIMIT: String(Math.floor(options.memoryLimitBytes)) } : {}),
        // debugpy warns on stderr about frozen modules at every start; the note is noise here.
        PYDEVD_DISABLE_FILE_VALIDATION: '1',
      },
      // stdout/stderr to the log; fd 3 the lifeline (POSIX only).
      stdio: lifeline ? [options.stdin, 'pipe', 'pipe', 'pipe'] : [options.stdin, 'pipe', 'pipe'],
      detached: !isWindows, // a new session and process group: signals can reach user code's children
      windowsHide: true,
    });
    const proc = new KernelProcess(child, log);
    child.stdout?.on('data', (chunk: Buffer) => log.write(chunk));
    child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
    child.once('error', (error) => {
      log.write(Buffer.from(`failed to start ${interpreter}: ${error.message}\n`));
      proc.emit('spawn-error', error);
    });
    return proc;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === null && this.child.pid !== undefined;
  }

  get exit(): ExitInfo | null {
    return this.exitInfo;
  }

  waitForExit(): Promise<ExitInfo> {
    return this.exited;
  }

  /** Signals the kernel's whole process group (POSIX), or the process (Windows). */
  signal(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (pid === undefined || !this.alive) return false;
    try {
      if (isWindows) this.child.kill(signal);
      else process.kill(-pid, signal);
      return true;
    } catch {
      try {
        return this.child.kill(signal);
      } catch {
        return false;
      }
    }
  }

  /** Resolves true if the process exited within `ms`. */
  async exitedWithin(ms: number): Promise<boolean> {
    if (!this.alive) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const result = await Promise.race([this.exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return result;
  }

  /** SIGTERM, then SIGKILL of the group after a bounded wait. */
  async terminate(graceMs = 2000): Promise<ExitInfo> {
    if (this.alive) {
      this.signal('SIGTERM');
      if (!(await this.exitedWithin(graceMs))) this.signal('SIGKILL');
    }
    const info = await this.exited;
    // Children of user code may outlive the leader; the group kill reaps them too.
    if (!isWindows && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        /* group already empty */
      }
    }
    return info;
  }
}
