/**
 * What a running cell has printed so far, as the panel is sent it: per session, only the last
 * `maxChars` of stream text (with a count of what was cut before it), and at most one update per
 * `intervalMs`. A loop printing a gigabyte costs the daemon a few dozen KB per session and the
 * panel's clients a few updates a second; the whole output is kept elsewhere (the run's result,
 * its spill file and the session log).
 */

/** How often a session's running output is published, at most. */
export const LIVE_OUTPUT_INTERVAL_MS = 250;
/** Characters of a run's latest stream text the panel is sent. */
export const LIVE_OUTPUT_MAX_CHARS = 32 * 1024;

export type StreamName = 'stdout' | 'stderr';

export interface LiveChunk {
  name: StreamName;
  text: string;
}

export interface LiveOutputView {
  /** The latest stream text, in print order, consecutive text of one stream joined. */
  chunks: LiveChunk[];
  /** Characters printed so far in this run. */
  total: number;
  /** Characters printed before the first chunk and not sent. */
  cut: number;
  /** Rich outputs (figures, displayed values) so far: shown when the run ends. */
  rich: number;
}

/** The last `n` characters of `text`, never starting inside a surrogate pair. */
export function tailOf(text: string, n: number): string {
  if (n <= 0) return '';
  if (text.length <= n) return text;
  let start = text.length - n;
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++; // a low surrogate: its pair's other half was cut
  return text.slice(start);
}

/** One run's latest stream text. Memory stays under twice `maxChars`: it is trimmed lazily. */
export class LiveOutputBuffer {
  private chunks: LiveChunk[] = [];
  private kept = 0;
  private total = 0;
  private rich = 0;

  constructor(private readonly maxChars = LIVE_OUTPUT_MAX_CHARS) {}

  append(name: StreamName, text: string): void {
    if (!text) return;
    this.total += text.length;
    if (text.length >= this.maxChars) {
      // Alone it fills the window: nothing before it can be shown.
      const tail = tailOf(text, this.maxChars);
      this.chunks = [{ name, text: tail }];
      this.kept = tail.length;
      return;
    }
    const last = this.chunks.at(-1);
    if (last?.name === name) last.text += text;
    else this.chunks.push({ name, text });
    this.kept += text.length;
    // Trimming on every small print would copy the window each time; trimming at twice the
    // window copies it once per window's worth of printing.
    if (this.kept > 2 * this.maxChars) this.trim();
  }

  addRich(): void {
    this.rich++;
  }

  view(): LiveOutputView {
    this.trim();
    return { chunks: this.chunks.map((c) => ({ ...c })), total: this.total, cut: this.total - this.kept, rich: this.rich };
  }

  private trim(): void {
    let excess = this.kept - this.maxChars;
    while (excess > 0 && this.chunks.length) {
      const first = this.chunks[0];
      if (first.text.length <= excess) {
        this.chunks.shift();
        this.kept -= first.text.length;
        excess -= first.text.length;
      } else {
        const tail = tailOf(first.text, first.text.length - excess);
        this.kept -= first.text.length - tail.length;
        first.text = tail;
        excess = 0;
      }
    }
  }
}

export interface LiveOutputOptions {
  intervalMs?: number;
  maxChars?: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

interface SessionLive {
  buffer: LiveOutputBuffer;
  timer: unknown;
  lastPublished: number;
}

/**
 * The running output of every session, and when to publish it. `publish(session)` is called at
 * most once per interval per session, and only when something new was printed; the first print
 * after a quiet spell goes out on the next turn of the event loop.
 */
export class LiveOutputs {
  private readonly live = new Map<string, SessionLive>();
  private readonly intervalMs: number;
  private readonly maxChars: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(
    private readonly publish: (session: string) => void,
    options: LiveOutputOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? LIVE_OUTPUT_INTERVAL_MS;
    this.maxChars = options.maxChars ?? LIVE_OUTPUT_MAX_CHARS;
    this.now = options.now ?? Date.now;
    this.setTimer =
      options.setTimer ??
      ((fn, ms) => {
        const timer = setTimeout(fn, ms);
        timer.unref();
        return timer;
      });
    this.clearTimer = options.clearTimer ?? ((timer) => clearTimeout(timer as NodeJS.Timeout));
  }

  /** A run started: its output starts empty (whatever the last run left is dropped). */
  begin(session: string): void {
    this.end(session);
    this.live.set(session, { buffer: new LiveOutputBuffer(this.maxChars), timer: null, lastPublished: -Infinity });
  }

  /** Stream text the running cell printed. Ignored when no run was begun. */
  stream(session: string, name: StreamName, text: string): void {
    const live = this.live.get(session);
    if (!live || !text) return;
    live.buffer.append(name, text);
    this.schedule(session, live);
  }

  /** A figure or displayed value: counted now, shown with the finished run. */
  rich(session: string): void {
    const live = this.live.get(session);
    if (!live) return;
    live.buffer.addRich();
    this.schedule(session, live);
  }

  /** The session's running output now, or null when no run was begun. */
  view(session: string): LiveOutputView | null {
    return this.live.get(session)?.buffer.view() ?? null;
  }

  /** The session's current output went out with some other update: nothing is pending now. */
  published(session: string): void {
    const live = this.live.get(session);
    if (!live || live.timer === null) return;
    this.clearTimer(live.timer);
    live.timer = null;
    live.lastPublished = this.now();
  }

  /** The run ended (or the session went): forget its output and cancel what was pending. */
  end(session: string): void {
    const live = this.live.get(session);
    if (!live) return;
    if (live.timer !== null) this.clearTimer(live.timer);
    this.live.delete(session);
  }

  dispose(): void {
    for (const session of [...this.live.keys()]) this.end(session);
  }

  private schedule(session: string, live: SessionLive): void {
    if (live.timer !== null) return; // already due: this text goes with it
    const wait = Math.max(0, live.lastPublished + this.intervalMs - this.now());
    live.timer = this.setTimer(() => {
      if (this.live.get(session) !== live) return;
      live.timer = null;
      live.lastPublished = this.now();
      this.publish(session);
    }, wait);
  }
}
