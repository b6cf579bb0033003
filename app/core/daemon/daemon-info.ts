/**
 * `<state>/daemon.json`: who the running daemon is (pid, start time, socket, version, and what
 * the embedder adds, such as the panel URL). The tray app and `status` read it to find the
 * daemon without asking; it is rewritten atomically, so a reader never sees half a file.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { writePrivateFile } from '../private-file.js';

export interface DaemonInfo {
  pid: number;
  /** ISO time. */
  started: string;
  socket: string;
  stateDir: string;
  log: string;
  version: string;
  [extra: string]: unknown;
}

export function writeDaemonInfo(path: string, info: DaemonInfo): void {
  writePrivateFile(path, JSON.stringify(info, null, 2) + '\n');
}

export function readDaemonInfo(path: string): DaemonInfo | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<DaemonInfo>;
    return typeof value.pid === 'number' ? (value as DaemonInfo) : null;
  } catch {
    return null;
  }
}

/** Removes the file if it still describes `pid` (a successor may have written its own). */
export function removeDaemonInfo(path: string, pid: number): void {
  if (readDaemonInfo(path)?.pid !== pid) return;
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}
