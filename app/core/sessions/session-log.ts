/**
 * The session log: one JSON line per execution in sessions/<name>/log.jsonl,
 * appended synchronously before the reply leaves, so a daemon crash loses
 * nothing that was answered. Images are referenced by their figure files.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';

export interface LogOutput {
  type: 'stream' | 'result' | 'display' | 'error' | 'omitted';
  name?: string;
  text?: string;
  /** Figure files written for this output (absolute paths). */
  figures?: string[];
  /** MIME bundle of text-like data (text/plain, text/html, …) for notebook export. */
  data?: Record<string, unknown>;
}

export interface LogEntry {
  id: number;
  time: string;
  client: string;
  code: string;
  status: 'ok' | 'error' | 'aborted' | 'died' | 'timeout';
  executionCount: number | null;
  durationMs: number;
  outputs: LogOutput[];
  error?: { ename: string; evalue: string; message: string; traceback: string[] };
  /** Whole output when it went past the limit. */
  spillPath?: string;
}

/** The entry could not be written (a full disk, an unusable folder); it carries the entry all the same. */
export class SessionLogError extends Error {
  constructor(
    readonly path: string,
    readonly entry: LogEntry,
    cause: unknown,
  ) {
    super(`could not write the session log ${path}: ${(cause as Error)?.message ?? cause}`, { cause });
  }
}

export class SessionLog {
  readonly path: string;
  private nextId: number;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'log.jsonl');
    this.nextId = this.read().reduce((max, entry) => Math.max(max, entry.id), 0) + 1;
  }

  append(entry: Omit<LogEntry, 'id'>): LogEntry {
    const full = { id: this.nextId++, ...entry };
    let size = 0;
    try {
      size = existsSync(this.path) ? statSync(this.path).size : 0;
      appendFileSync(this.path, `${JSON.stringify(full)}\n`, { mode: 0o600 });
    } catch (error) {
      // A disk that filled up part way leaves a torn line, which would swallow the next entry too.
      try {
        if (statSync(this.path).size > size) truncateSync(this.path, size);
      } catch {
        /* nothing written, or nothing we can undo */
      }
      throw new SessionLogError(this.path, full, error);
    }
    return full;
  }

  /** All entries; a torn last line (crash mid-write) is skipped. */
  read(): LogEntry[] {
    if (!existsSync(this.path)) return [];
    const entries: LogEntry[] = [];
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        entries.push(JSON.parse(line));
      } catch {
        /* torn line */
      }
    }
    return entries;
  }
}
