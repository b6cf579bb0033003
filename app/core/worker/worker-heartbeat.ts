/**
 * The worker's heartbeat. Its reader thread answers a ping at once, but that thread needs
 * Python's GIL, and a C call that holds it (`sum(range(10**10))`, a big-integer power) keeps
 * it silent while the worker is merely busy; ipykernel's heartbeat runs in C and has no such
 * pause. So silence alone does not condemn the worker: only silence while the operating system
 * says the process is stopped (SIGSTOP, a debugger's stop) makes it "unresponsive", as a
 * stopped ipykernel is.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import type { HeartbeatOptions } from '../kernel/heartbeat.js';

export type ProcessState = 'running' | 'stopped' | 'gone' | 'unknown';

/** What the operating system says of a process: Linux's /proc, or ps elsewhere on POSIX. */
export function processState(pid: number): ProcessState {
  if (process.platform === 'win32') return 'unknown';
  let state: string | undefined;
  try {
    // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    state = stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch {
    const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    if (ps.error) return 'unknown';
    state = ps.stdout.trim()[0];
    if (!state) return 'gone';
  }
  if (state === 'T' || state === 't') return 'stopped';
  if (state === 'Z' || state === 'X') return 'gone';
  return 'running';
}

export interface PingTarget {
  ping(timeoutMs: number): Promise<boolean>;
}

export class WorkerHeartbeat extends EventEmitter<{ unresponsive: [silentMs: number] }> {
  private timer: NodeJS.Timeout | null = null;
  private lastAnswer = Date.now();
  private stopped = false;
  private paused = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly target: PingTarget,
    private readonly pid: number,
    options: HeartbeatOptions = {},
    private readonly stateOf: (pid: number) => ProcessState = processState,
  ) {
    super();
    this.intervalMs = options.intervalMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 4000;
  }

  start(): void {
    this.lastAnswer = Date.now();
    this.schedule();
  }

  /** Suspends judgement (e.g. while we deliberately stop the worker). */
  pause(paused: boolean): void {
    this.paused = paused;
    if (!paused) this.lastAnswer = Date.now();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    if (await this.target.ping(this.intervalMs)) this.lastAnswer = Date.now();
    if (this.stopped) return;
    const silentFor = Date.now() - this.lastAnswer;
    if (!this.paused && silentFor >= this.timeoutMs && this.stateOf(this.pid) === 'stopped') {
      this.emit('unresponsive', silentFor);
      return; // the owner decides what happens next; no further beats
    }
    this.schedule();
  }
}
