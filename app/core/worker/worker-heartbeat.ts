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
import { Heartbeat, type HeartbeatOptions, type PingTarget } from '../kernel/process/heartbeat.js';

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

/**
 * The worker's heartbeat: pings over its own channel, and silence condemns it only while the
 * operating system says the process is stopped.
 */
export function workerHeartbeat(
  target: PingTarget,
  pid: number,
  options: HeartbeatOptions = {},
  stateOf: (pid: number) => ProcessState = processState,
): Heartbeat {
  return new Heartbeat(target, options, () => stateOf(pid) === 'stopped');
}
