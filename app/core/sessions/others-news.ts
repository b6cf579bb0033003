/**
 * What others did in a session since one client's previous call to it: the cells the person ran
 * in the panel, cells another Jupyter client ran on the kernel, and another MCP client's runs,
 * with the names they made, rebound or removed. Each client hears of it once: taking the news
 * moves that client's mark past it.
 *
 * Cells are known from the session's 'logged' entries (kept in memory, a bounded list per
 * session, so no call reads the log file); names from the fingerprints every reply carries. A
 * cell another Jupyter client ran carries none of ours, so after one the names are read again,
 * with one silent request, only when the news is taken.
 */
import { upTo, TIMED_OUT } from '../timers.js';
import { namesChange, type NameFingerprints, type NamesChange } from '../kernel/execution/user-names.js';
import type { LogEntry } from './session-log.js';
import type { Session } from './session.js';

/** A cell in the session log, as much as the news needs. */
export interface CellNote {
  id: number;
  client: string;
  executionCount: number | null;
}

export interface OthersNews {
  /** Others' cells since this client's previous call, in the order they were logged. */
  cells: CellNote[];
  /** The names made, rebound or removed since then; absent when they could not be read in time. */
  names?: NamesChange;
}

/** Cells remembered per session: more than any one gap between two calls of a client needs. */
const KEPT_CELLS = 500;

/** How long taking the news waits for the names to be read again (behind a running cell, it gives up). */
const REFRESH_WAIT_MS = 1500;

/** The cells logged in one session since it was first watched. */
export class CellFeed {
  private cells: CellNote[] = [];
  /** The highest log entry id seen, tools' entries included. */
  latestId = 0;

  add(entry: LogEntry): void {
    this.latestId = Math.max(this.latestId, entry.id);
    if (entry.kind === 'tool') return;
    this.cells.push({ id: entry.id, client: entry.client, executionCount: entry.executionCount });
    if (this.cells.length > KEPT_CELLS) this.cells.splice(0, this.cells.length - KEPT_CELLS);
  }

  since(id: number): CellNote[] {
    return this.cells.filter((cell) => cell.id > id);
  }
}

const feeds = new WeakMap<Session, CellFeed>();

/** The session's feed, watching its log entries from the first time it is asked for. */
export function cellFeed(session: Session): CellFeed {
  let feed = feeds.get(session);
  if (!feed) {
    const made = new CellFeed();
    session.on('logged', (entry: LogEntry) => made.add(entry));
    feeds.set(session, made);
    feed = made;
  }
  return feed;
}

interface Mark {
  /** The latest log entry this client has been told of (or saw happen). */
  seenId: number;
  /** The names as they were when its previous call ended. */
  names: NameFingerprints;
}

/** One client's marks, per session: what it has been told of. */
export class OthersNewsTracker {
  private readonly marks = new WeakMap<Session, Mark>();

  constructor(
    /** This client's name, as its runs are logged: cells under it are its own. */
    private readonly me: () => string,
    private readonly refreshWaitMs = REFRESH_WAIT_MS,
  ) {}

  /**
   * At the start of a call that touches `session`: what others ran since this client's previous
   * call to it, once; null when nothing, or when this is its first call there.
   */
  async take(session: Session): Promise<OthersNews | null> {
    const feed = cellFeed(session);
    const mark = this.marks.get(session);
    if (!mark) return null;
    const me = this.me();
    const cells = feed.since(mark.seenId).filter((cell) => cell.client !== me);
    mark.seenId = feed.latestId;
    if (!cells.length) return null;
    const names = await this.currentNames(session);
    return names ? { cells, names: namesChange(mark.names, names) } : { cells };
  }

  /** At the end of a call that touched `session`: the names as this client now knows them. */
  settle(session: Session): void {
    const mark = this.marks.get(session);
    if (mark) mark.names = session.nameFingerprints;
    else this.marks.set(session, { seenId: cellFeed(session).latestId, names: session.nameFingerprints });
  }

  private async currentNames(session: Session): Promise<NameFingerprints | undefined> {
    if (!session.namesStale) return session.nameFingerprints;
    const refresh = session.refreshNames();
    refresh.catch(() => undefined); // one that fails after we stopped waiting is nobody's to report
    try {
      const names = await upTo(refresh, this.refreshWaitMs);
      return names === TIMED_OUT ? undefined : names;
    } catch {
      return undefined; // the kernel went; the call itself will say so
    }
  }
}
