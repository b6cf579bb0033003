/**
 * The session log: one JSON line per execution in sessions/<name>/log.jsonl,
 * appended synchronously before the reply leaves, so a daemon crash loses
 * nothing that was answered. Images are referenced by their figure files.
 *
 * Two kinds of entry: a run (code a client sent, as it ran) and a tool entry (the plain
 * pandas/statsmodels/matplotlib code that does what a tool such as load_data or ols did, so
 * the record re-runs without this project's helpers).
 */
import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '../private-file.js';
import { inspectStateFile, reportStateFile, setAside } from '../state-file.js';

export interface LogOutput {
  type: 'stream' | 'result' | 'display' | 'error' | 'omitted';
  name?: string;
  text?: string;
  /** Figure files written for this output (absolute paths). */
  figures?: string[];
  /** MIME bundle of text-like data (text/plain, text/html, …) for notebook export. */
  data?: Record<string, unknown>;
}

/** The interpreter a session ran in and the main packages it had imported. */
export interface SessionEnvironment {
  python: { version: string; implementation?: string; executable?: string };
  packages: Record<string, string>;
}

/** What a tool entry says besides its code. */
export interface ToolRecord {
  /** The MCP tool whose work the entry's code does. */
  name: string;
  /** The import lines the code needs; an export puts them once near the top. */
  imports: string[];
  /** 'figure': the code saves the figure the latest drawing cell drew, so it belongs at the end of that cell. */
  attach?: 'figure';
  /** The code removes every user name, imports included. */
  clearsNamespace?: boolean;
  environment?: SessionEnvironment;
}

export interface LogEntry {
  id: number;
  /** Absent in runs (and in logs written before tool entries existed). */
  kind?: 'run' | 'tool';
  tool?: ToolRecord;
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
  /** The log, open for appending while the session lives (an open and a close per run cost more than the write). */
  private fd: number | null = null;
  /** Bytes in the log: where a torn write is cut back to. */
  private size = 0;
  private closed = false;
  /** The last entry the log held when it was opened: an earlier kernel's, when the session folder was used before. */
  readonly lastAtOpen: LogEntry | undefined;

  /** `readOnly`: only to read it (an export); the daemon's session opens it to append and repair. */
  constructor(
    readonly dir: string,
    options: { readOnly?: boolean } = {},
  ) {
    if (!options.readOnly) mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'log.jsonl');
    const entries = options.readOnly ? this.read() : this.recover();
    this.nextId = entries.reduce((max, entry) => Math.max(max, entry.id), 0) + 1;
    this.lastAtOpen = entries.at(-1);
  }

  /**
   * The entries, with a damaged log set aside first (../state-file.ts): a folder, a symlink or an
   * unreadable file is moved away and the log starts afresh; lines that are not entries (other
   * than a torn last line, skipped as always) move the file away too, and the readable entries
   * are written back so the record goes on.
   */
  private recover(): LogEntry[] {
    const found = inspectStateFile(this.path);
    if (found.state === 'missing') return [];
    if (found.state === 'damaged') {
      setAside(this.path, found.damage, 'the session starts a fresh log');
      return [];
    }
    const { entries, bad } = parseLog(found.bytes.toString('utf8'));
    if (bad === 0) return entries;
    const notice = setAside(this.path, `has ${bad} line${bad === 1 ? '' : 's'} that ${bad === 1 ? 'is' : 'are'} not a log entry`, `the session goes on in a new log holding the ${entries.length} readable entries`);
    if (!notice.movedTo) return entries; // left in place: appending still works, and reading skips those lines
    try {
      writePrivateFile(this.path, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    } catch (error) {
      reportStateFile(this.path, `could not be written again (${(error as Error).message})`, `its entries are in ${notice.movedTo}; new runs start a fresh log`);
    }
    return entries;
  }

  append(entry: Omit<LogEntry, 'id'>): LogEntry {
    const full = { id: this.nextId++, ...entry };
    const line = Buffer.from(`${JSON.stringify(full)}\n`);
    try {
      const fd = this.open();
      try {
        for (let written = 0; written < line.length; ) written += writeSync(fd, line, written);
        this.size += line.length;
      } catch (error) {
        // A disk that filled up part way leaves a torn line, which would swallow the next entry too.
        try {
          ftruncateSync(fd, this.size);
        } catch {
          /* nothing written, or nothing we can undo */
        }
        throw error;
      }
      if (this.closed) this.release();
    } catch (error) {
      this.release(); // the next run opens it afresh: the folder or the disk may have recovered
      throw new SessionLogError(this.path, full, error);
    }
    return full;
  }

  /** Lets go of the file; a run that still ends afterwards is appended all the same. */
  close(): void {
    this.closed = true;
    this.release();
  }

  private open(): number {
    // A log deleted while open would take every later run with it: open it again by its path.
    if (this.fd !== null && fstatSync(this.fd).nlink > 0) return this.fd;
    this.release();
    const fd = openSync(this.path, 'a+', 0o600);
    try {
      this.size = fstatSync(fd).size;
      // A daemon killed mid-write left a torn last line: end it, or it would swallow the next entry.
      const last = Buffer.alloc(1);
      if (this.size > 0 && readSync(fd, last, 0, 1, this.size - 1) === 1 && last[0] !== 0x0a) {
        this.size += writeSync(fd, '\n');
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    return fd;
  }

  private release(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already gone */
    }
    this.fd = null;
  }

  /** All entries; a torn last line (crash mid-write), and any line that is not an entry, is skipped. */
  read(): LogEntry[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return []; // none yet, or unusable: the session set it aside when it started
    }
    return parseLog(text).entries;
  }
}

/**
 * The entries in a log's text, and how many lines are not entries. A torn line does not count:
 * one without a newline after it (a crash mid-write), or one that starts as every line this log
 * writes does (`{"id":`) — a torn line the next session's append put a newline after.
 */
export function parseLog(text: string): { entries: LogEntry[]; bad: number } {
  const entries: LogEntry[] = [];
  let bad = 0;
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const entry = value as Partial<LogEntry> | undefined;
    // Only the id is required: kinds of entry added later must not make a log look damaged.
    if (entry && typeof entry === 'object' && !Array.isArray(entry) && typeof entry.id === 'number') entries.push(entry as LogEntry);
    else if (index < lines.length - 1 && !line.startsWith('{"id":')) bad++;
  });
  return { entries, bad };
}
