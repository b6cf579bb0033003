/**
 * One daemon per state folder. The daemon holds a lock file, created exclusively (`wx`) and
 * holding its pid. A start that finds the file taken asks: is that pid alive, and does
 * something answer on the socket? A live owner that answers (or is listening but busy) wins;
 * an owner that is alive but not yet listening is given a start-up grace period; anything else
 * is a stale lock left by a crash, which is removed — under a second, short-lived lock, so two
 * starters that both find the same stale lock cannot both remove it and then each take a new
 * one in turn.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { requestControl } from './control-client.js';
import { clearStateFile } from '../state-file.js';

export interface InstanceLock {
  readonly path: string;
  readonly pid: number;
  /** Removes the lock file if it is still ours. */
  release(): void;
}

export type LockOutcome =
  | { acquired: true; lock: InstanceLock }
  /** `ownerPid` is the daemon that holds the folder; `answering` says whether it answered a ping. */
  | { acquired: false; ownerPid: number; answering: boolean };

export interface LockOptions {
  lockPath: string;
  socketPath: string;
  /** How long an owner that is alive but not yet listening counts as starting up. */
  startupGraceMs?: number;
  pingTimeoutMs?: number;
  /** Injectable for tests. */
  isAlive?: (pid: number) => boolean;
  log?: (message: string) => void;
}

interface Holder {
  pid: number | null;
  content: string;
  ageMs: number;
  ino: number;
  mtimeMs: number;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid recorded in a lock file, or null when there is none (or it is unreadable). */
export function readLockPid(lockPath: string): number | null {
  try {
    return parsePid(readFileSync(lockPath, 'utf8'));
  } catch {
    return null;
  }
}

function parsePid(content: string): number | null {
  const pid = Number.parseInt(content.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function readHolder(lockPath: string): Holder | null {
  try {
    const stats = statSync(lockPath);
    const content = readFileSync(lockPath, 'utf8');
    return { pid: parsePid(content), content, ageMs: Date.now() - stats.mtimeMs, ino: stats.ino, mtimeMs: stats.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Removes `holder`'s lock file, unless it changed hands since it was read; false if another process is breaking it. */
function breakStaleLock(lockPath: string, holder: Holder): boolean {
  const breaker = `${lockPath}.break`;
  try {
    closeSync(openSync(breaker, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Breaking takes microseconds; an old breaker file was left by a crash mid-break.
    try {
      if (Date.now() - statSync(breaker).mtimeMs > 5000) unlinkSync(breaker);
    } catch {
      /* gone already */
    }
    return false;
  }
  try {
    const now = readHolder(lockPath);
    if (now && now.ino === holder.ino && now.mtimeMs === holder.mtimeMs && now.content === holder.content) unlinkSync(lockPath);
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      /* nothing to clean */
    }
  }
  return true;
}

// Kept ref'd, unlike timers.sleep: while a start waits for the lock nothing else may keep the process alive.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireInstanceLock(options: LockOptions): Promise<LockOutcome> {
  const grace = options.startupGraceMs ?? 10_000;
  const pingTimeoutMs = options.pingTimeoutMs ?? 2000;
  const isAlive = options.isAlive ?? processAlive;
  const log = options.log ?? (() => {});
  // Bounded: an owner that stays "starting" or "stopping" forever must not hold us forever.
  const deadline = Date.now() + grace + 10_000;

  // A lock that is no file of its own (a folder, a symlink, unreadable) is no daemon's lock.
  clearStateFile(options.lockPath, 'the lock is taken afresh');
  for (;;) {
    if (tryCreate(options.lockPath)) {
      const lockPath = options.lockPath;
      return {
        acquired: true,
        lock: {
          path: lockPath,
          pid: process.pid,
          release() {
            if (readLockPid(lockPath) !== process.pid) return;
            try {
              unlinkSync(lockPath);
            } catch {
              /* already gone */
            }
          },
        },
      };
    }
    const holder = readHolder(options.lockPath);
    if (!holder) continue; // released between our attempt and our look: try again at once

    if (holder.pid === process.pid) return { acquired: false, ownerPid: process.pid, answering: true };
    const pastDeadline = Date.now() > deadline;

    if (holder.pid !== null && isAlive(holder.pid)) {
      const ping = await requestControl(options.socketPath, 'ping', { timeoutMs: pingTimeoutMs });
      if (ping.kind === 'answer') return { acquired: false, ownerPid: ping.answer.pid, answering: true };
      // Accepting connections but not answering in time: a busy daemon, not a stale lock.
      if (ping.kind === 'silent') return { acquired: false, ownerPid: holder.pid, answering: false };
      if (ping.kind === 'refused' && !ping.retry) return { acquired: false, ownerPid: holder.pid, answering: true };
      // Stopping (it will release the lock), or alive but not listening yet (starting up).
      if (pastDeadline) return { acquired: false, ownerPid: holder.pid, answering: false };
      if (ping.kind === 'refused' || holder.ageMs < grace) {
        await sleep(100);
        continue;
      }
      log(`the lock names pid ${holder.pid}, which is alive but has not listened on ${options.socketPath} for ${Math.round(holder.ageMs / 1000)} s; taking the lock over`);
    } else if (holder.pid === null && holder.ageMs < grace) {
      await sleep(50); // created an instant ago; its pid is being written
      continue;
    } else {
      log(`removing a stale lock left by ${holder.pid === null ? 'an unknown process' : `pid ${holder.pid}, which is not running`}`);
    }
    if (!breakStaleLock(options.lockPath, holder)) await sleep(20);
  }
}
