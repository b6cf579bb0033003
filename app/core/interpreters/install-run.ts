/**
 * Runs an install command's argv as it is (no shell), telling each chunk of its output as it
 * comes and keeping a bounded copy for whoever asks later.
 *
 *   const job = runInstall(plan.argv, { onOutput: (stream, text) => … });
 *   const outcome = await job.done;   // { ok, exitCode, signal, output, truncated }
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

/** Kept for the outcome: the last this many characters (installers' tails say what went wrong). */
export const KEPT_OUTPUT_CHARS = 256 * 1024;
/** Told live at most; past it the stream says it stopped and the kept tail still grows. */
export const LIVE_OUTPUT_CHARS = 1024 * 1024;
/** A hung installer (a prompt nobody sees, a dead network) is stopped after this long. */
export const INSTALL_TIMEOUT_MS = 20 * 60_000;

export interface InstallOutcome {
  ok: boolean;
  exitCode: number | null;
  signal: string | null;
  /** Could not be started at all (ENOENT and the like). */
  spawnError?: string;
  timedOut: boolean;
  /** The kept output, stdout and stderr in the order they came. */
  output: string;
  /** True when the start of the output was dropped to keep it within KEPT_OUTPUT_CHARS. */
  truncated: boolean;
}

export interface InstallJob {
  pid: number | undefined;
  done: Promise<InstallOutcome>;
  stop(): void;
}

export interface RunInstallOptions {
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Keeps the last `limit` characters of what it is given. */
export class OutputTail {
  private parts: string[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit: number) {}

  add(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    while (this.size > this.limit && this.parts.length > 0) {
      const over = this.size - this.limit;
      const first = this.parts[0];
      this.truncated = true;
      if (first.length <= over) {
        this.parts.shift();
        this.size -= first.length;
      } else {
        this.parts[0] = first.slice(over);
        this.size -= over;
      }
    }
  }

  text(): string {
    return this.parts.join('');
  }
}

export function runInstall(argv: readonly string[], options: RunInstallOptions = {}): InstallJob {
  const [exe, ...args] = argv;
  const tail = new OutputTail(KEPT_OUTPUT_CHARS);
  let told = 0;
  const child = spawn(exe, args, {
    shell: false,
    // Nobody can answer a prompt: stdin is closed, and pip is told not to ask.
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
    detached: process.platform !== 'win32', // its own process group, so stop() reaches pip's children
    cwd: path.dirname(exe),
    env: { ...(options.env ?? process.env), PYTHONIOENCODING: 'utf-8', PIP_NO_INPUT: '1' },
  });
  const take = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail.add(text);
    if (!options.onOutput || told >= LIVE_OUTPUT_CHARS) return;
    const part = text.slice(0, LIVE_OUTPUT_CHARS - told);
    told += part.length;
    options.onOutput(stream, part);
    if (told >= LIVE_OUTPUT_CHARS) options.onOutput('stderr', `\n[live output stops here, past ${LIVE_OUTPUT_CHARS} characters; the outcome shows the last part]\n`);
  };
  child.stdout.on('data', take('stdout'));
  child.stderr.on('data', take('stderr'));
  let timedOut = false;
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      if (process.platform !== 'win32' && child.pid) process.kill(-child.pid, 'SIGTERM');
      else child.kill();
    } catch {
      child.kill();
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs ?? INSTALL_TIMEOUT_MS);
  timer.unref();
  const done = new Promise<InstallOutcome>((resolve) => {
    let spawnError: string | undefined;
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error.code ?? error.message;
      tail.add(`Could not start ${exe}: ${error.message}\n`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) tail.add(`\nStopped after ${Math.round((options.timeoutMs ?? INSTALL_TIMEOUT_MS) / 1000)} s without finishing.\n`);
      resolve({ ok: code === 0 && !spawnError && !timedOut, exitCode: code, signal, spawnError, timedOut, output: tail.text(), truncated: tail.truncated });
    });
  });
  return { pid: child.pid, done, stop };
}
