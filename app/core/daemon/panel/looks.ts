/**
 * When a panel last looked, and at what: the one record the panel server keeps of it.
 *
 * Two things depend on it. The Variables view keeps a session's snapshot refreshed after each run
 * only while a panel has looked at it lately (`saw('variables:<name>')`). And the sessions ask
 * whether a person is at a panel now (`present()`), to decide whether code's question waits for
 * an answer there or fails at once: a page of the panel that follows the live events, or that
 * made a request in the last WATCH_MS. Only the page counts (it authenticates by its cookie);
 * the tray and scripts, which send the token as a Bearer header, are not a person looking.
 */
import type { IncomingMessage } from 'node:http';

/** How long a look counts: the variables it looked at stay refreshed, the person counts as present. */
export const WATCH_MS = 90_000;

/** The subject of any request a panel page makes. */
const PAGE = 'page';

export class PanelLooks {
  private readonly last = new Map<string, number>();
  private following = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Something was looked at: a narrower subject ("variables:<session>"), or, with none, the panel page itself. */
  saw(subject: string = PAGE): void {
    this.last.set(subject, this.now());
  }

  /** Whether `subject` was looked at within WATCH_MS. */
  recently(subject: string = PAGE): boolean {
    const at = this.last.get(subject);
    return at !== undefined && this.now() - at < WATCH_MS;
  }

  forget(subject: string): void {
    this.last.delete(subject);
  }

  /** A panel page follows the live events on this request: present until it closes. */
  follow(req: IncomingMessage): void {
    this.following++;
    req.once('close', () => this.following--);
  }

  /** A person is at a panel: a page follows the events, or asked something lately. */
  present(): boolean {
    return this.following > 0 || this.recently();
  }
}
