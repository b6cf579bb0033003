/**
 * The session log and figures as the panel shows them: pages of entries (searched), the
 * gallery, and the shapes sent to the page.
 *
 * The log file only ever grows (one JSON line per run), so it is read incrementally: a page
 * request after a run parses the new lines, not the whole history again. Sessions that have
 * ended keep their folder, so their log and figures stay readable here too.
 */
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parseLog, type LogEntry, type LogOutput } from '../../sessions/session-log.js';

export const FIGURE_EXTENSIONS: ReadonlySet<string> = new Set(['.png', '.jpg', '.jpeg', '.gif', '.svg']);

export interface OutputView {
  type: LogOutput['type'];
  /** Stream name (stdout/stderr) or exception class. */
  name?: string;
  text?: string;
  figures?: string[];
  /** For `omitted`: where the whole output went, as a link the panel may open. */
  file?: string;
}

export interface EntryView {
  id: number;
  time: string;
  client: string;
  code: string;
  status: LogEntry['status'];
  executionCount: number | null;
  durationMs: number;
  outputs: OutputView[];
  error?: { ename: string; evalue: string; traceback: string[] };
  /** The whole output, when it went past the limit. */
  spill?: string;
  /** Set on tool entries: the tool whose work the code does (the code is its plain equivalent). */
  tool?: string;
  /** A tool entry that emptied the namespace (a restart, a reset, a new kernel): the export clears it there. */
  clears?: boolean;
}

export interface LogPage {
  entries: EntryView[];
  /** Entries matching the search (all entries without one). */
  total: number;
  /** Whether older matching entries remain before this page. */
  hasMore: boolean;
}

export interface FigureView {
  /** File name, unique within the session. */
  name: string;
  url: string;
  time: string;
  /** The run that drew it, when the log says. */
  entryId: number | null;
  executionCount: number | null;
  code: string | null;
  client: string | null;
}

/** A link to a file in the sessions folder, served by the panel (see panel-files.ts). */
export function fileUrl(path: string): string {
  return `/api/file?path=${encodeURIComponent(path)}`;
}

export function entryView(entry: LogEntry): EntryView {
  return {
    id: entry.id,
    time: entry.time,
    client: entry.client,
    code: entry.code,
    status: entry.status,
    executionCount: entry.executionCount,
    durationMs: entry.durationMs,
    // The MIME bundles (HTML tables and the like) stay on the server: the panel shows text only,
    // so nothing a kernel printed can ever run as markup in the panel's origin.
    outputs: entry.outputs.map((o) => ({
      type: o.type,
      ...(o.name !== undefined && o.type !== 'omitted' ? { name: o.name } : {}),
      ...(o.text !== undefined ? { text: o.text } : {}),
      ...(o.figures?.length ? { figures: o.figures.map(fileUrl) } : {}),
      ...(o.type === 'omitted' && o.name ? { file: fileUrl(o.name) } : {}),
    })),
    ...(entry.error ? { error: { ename: entry.error.ename, evalue: entry.error.evalue, traceback: entry.error.traceback } } : {}),
    ...(entry.spillPath ? { spill: fileUrl(entry.spillPath) } : {}),
    ...(entry.kind === 'tool' ? { tool: entry.tool?.name ?? 'tool' } : {}),
    ...(entry.kind === 'tool' && entry.tool?.clearsNamespace ? { clears: true } : {}),
  };
}

interface Cached {
  size: number;
  /** Bytes after the last newline, waiting for the rest of their line. */
  partial: string;
  entries: LogEntry[];
  haystacks: WeakMap<LogEntry, string>;
}

export class LogReader {
  private readonly cache = new Map<string, Cached>();

  /** Every entry of the log at `path`, oldest first; parses only what was appended since last time. */
  entries(path: string): LogEntry[] {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      this.cache.delete(path);
      return [];
    }
    try {
      const size = fstatSync(fd).size;
      let cached = this.cache.get(path);
      if (!cached || size < cached.size) {
        cached = { size: 0, partial: '', entries: [], haystacks: new WeakMap() };
        this.cache.set(path, cached);
      }
      if (size > cached.size) {
        const buffer = Buffer.alloc(size - cached.size);
        let read = 0;
        while (read < buffer.length) {
          const n = readSync(fd, buffer, read, buffer.length - read, cached.size + read);
          if (n === 0) break;
          read += n;
        }
        const text = cached.partial + buffer.subarray(0, read).toString('utf8');
        const lines = text.split('\n');
        cached.partial = lines.pop() ?? '';
        // A torn line from a crash mid-write, or one that is no entry, is skipped, as SessionLog.read does.
        cached.entries.push(...parseLog(lines.join('\n')).entries);
        cached.size += read;
      }
      return cached.entries;
    } catch {
      // A folder or an unreadable file where the log should be: shown empty; the session sets it aside when it starts.
      this.cache.delete(path);
      return [];
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The newest `limit` entries before `before` (an entry id) that match `query`, oldest first —
   * the order the log reads in, with the newest at the bottom.
   */
  page(path: string, options: { before?: number; limit?: number; query?: string } = {}): LogPage {
    const all = this.entries(path);
    const limit = Math.min(Math.max(1, options.limit ?? 50), 500);
    const query = options.query?.trim().toLowerCase() ?? '';
    const cached = this.cache.get(path);
    const matching = query && cached ? all.filter((e) => this.haystack(cached, e).includes(query)) : all;
    const before = options.before;
    let end = matching.length;
    if (before !== undefined) {
      // Ids grow with position, so the cut is a binary search.
      let lo = 0;
      let hi = matching.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (matching[mid].id < before) lo = mid + 1;
        else hi = mid;
      }
      end = lo;
    }
    const start = Math.max(0, end - limit);
    return { entries: matching.slice(start, end).map(entryView), total: matching.length, hasMore: start > 0 };
  }

  entry(path: string, id: number): LogEntry | undefined {
    return this.entries(path).find((e) => e.id === id);
  }

  private haystack(cached: Cached, entry: LogEntry): string {
    let text = cached.haystacks.get(entry);
    if (text === undefined) {
      const parts = [entry.code, entry.client];
      for (const o of entry.outputs) if (o.text) parts.push(o.text);
      if (entry.error) parts.push(entry.error.ename, entry.error.evalue);
      text = parts.join('\n').toLowerCase();
      cached.haystacks.set(entry, text);
    }
    return text;
  }
}

/**
 * The session's images, newest first, each with the run that drew it. Files in the figures
 * folder that no log entry names (saved by a helper, or by a run whose entry was lost) are
 * listed too, without code.
 */
export function listFigures(entries: readonly LogEntry[], figuresDir: string): FigureView[] {
  const figures: FigureView[] = [];
  const seen = new Set<string>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    for (let j = entry.outputs.length - 1; j >= 0; j--) {
      const paths = entry.outputs[j].figures ?? [];
      for (let k = paths.length - 1; k >= 0; k--) {
        const path = paths[k];
        if (seen.has(path) || !existsSync(path)) continue;
        seen.add(path);
        figures.push({
          name: basename(path),
          url: fileUrl(path),
          time: entry.time,
          entryId: entry.id,
          executionCount: entry.executionCount,
          code: entry.code,
          client: entry.client,
        });
      }
    }
  }
  let files: string[] = [];
  try {
    files = readdirSync(figuresDir);
  } catch {
    /* no figures yet */
  }
  const loose: FigureView[] = [];
  for (const name of files) {
    const path = join(figuresDir, name);
    if (seen.has(path) || !FIGURE_EXTENSIONS.has(extname(name).toLowerCase())) continue;
    let time: string;
    try {
      time = statSync(path).mtime.toISOString();
    } catch {
      continue;
    }
    loose.push({ name, url: fileUrl(path), time, entryId: null, executionCount: null, code: null, client: null });
  }
  if (loose.length === 0) return figures;
  return [...figures, ...loose].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0));
}
