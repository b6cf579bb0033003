/**
 * One run of code in a session, living in the daemon rather than in the call that asked for it:
 * a call waits for it up to its wait_s and comes back with the run still going; later calls (from
 * any client) pick it up by id. The handle keeps what the run printed since the last look, bounded,
 * and the outcome once it ends. Nothing here knows about MCP.
 */
import { EventEmitter } from 'node:events';
import type { Output } from '../kernel/outputs.js';
import { TIMED_OUT, upTo } from '../timers.js';
import type { RunOutcome } from './session.js';

export type RunState = 'queued' | 'running' | 'done';

/** Output since the last look, held for a later look. Past the cap, the middle is dropped. */
export interface NewOutput {
  outputs: Output[];
  /** Characters of stream text left out of this look (all of it is in the final result's file). */
  omittedChars: number;
  /** Figures left out of this look (each is in the final result and the figures folder). */
  omittedFigures: number;
}

/** Figures one look holds at most; a loop that draws hundreds keeps only the latest. */
const FIGURES_PER_LOOK = 20;

export class RunHandle extends EventEmitter {
  readonly submittedAt = Date.now();
  startedAt?: number;
  finishedAt?: number;
  outcome?: RunOutcome;
  /** Why the run could not go ahead (cancelled while queued, an unexpected failure). */
  failure?: Error;
  /** Calls inside their wait for this run right now. */
  waiting = 0;
  /** Its time limit, after which the kernel interrupts it whoever waits. */
  timeoutS?: number;
  readonly done: Promise<RunOutcome>;
  private readonly controller = new AbortController();
  private pending: Output[] = [];
  private pendingChars = 0;
  private omittedChars = 0;
  private omittedFigures = 0;

  constructor(
    readonly id: string,
    readonly session: string,
    readonly code: string,
    readonly client: string,
    /** The run that was going when this one was submitted, if any: this one waits behind it. */
    readonly queuedBehind: RunHandle | undefined,
    private readonly textCap: number,
    start: (handle: RunHandle) => Promise<RunOutcome>,
  ) {
    super();
    this.done = start(this).then(
      (outcome) => {
        this.outcome = outcome;
        this.finish();
        return outcome;
      },
      (error: Error) => {
        this.failure = error;
        this.finish();
        throw error;
      },
    );
    this.done.catch(() => undefined); // a run nobody waits for must not be an unhandled rejection
  }

  get state(): RunState {
    return this.finishedAt !== undefined ? 'done' : this.startedAt !== undefined ? 'running' : 'queued';
  }

  /** Aborting it interrupts the run (or takes it out of the queue). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds the run has been going (0 while queued), or went, if it ended. */
  runningMs(now = Date.now()): number {
    if (this.startedAt === undefined) return 0;
    return (this.finishedAt ?? now) - this.startedAt;
  }

  markStarted(): void {
    this.startedAt = Date.now();
    this.emit('started');
  }

  /** Called for each output as it arrives. */
  push(output: Output): void {
    if (output.type === 'stream') {
      this.pending.push(output);
      this.pendingChars += output.text.length;
      this.trim();
    } else if (output.type !== 'omitted') {
      this.pending.push(output);
      const figures = this.pending.filter((o) => o.type === 'display_data' || o.type === 'execute_result');
      if (figures.length > FIGURES_PER_LOOK) {
        this.pending.splice(this.pending.indexOf(figures[0]), 1);
        this.omittedFigures++;
      }
    }
    this.emit('output', output);
  }

  /** What arrived since the previous look, and moves the look on. */
  takeNew(): NewOutput {
    const taken = { outputs: this.pending, omittedChars: this.omittedChars, omittedFigures: this.omittedFigures };
    this.pending = [];
    this.pendingChars = 0;
    this.omittedChars = 0;
    this.omittedFigures = 0;
    return taken;
  }

  /**
   * Ties the run to a caller's cancellation while that caller waits: a client that gives up
   * inside its wait stops the run, as a cancelled call always did. Returns the untie.
   */
  tieTo(signal: AbortSignal | undefined): () => void {
    this.waiting++;
    this.emit('waiting', this.waiting);
    const abort = () => this.controller.abort();
    if (signal?.aborted) abort();
    else signal?.addEventListener('abort', abort, { once: true });
    let tied = true;
    return () => {
      if (!tied) return;
      tied = false;
      this.waiting--;
      this.emit('waiting', this.waiting);
      signal?.removeEventListener('abort', abort);
    };
  }

  /** Waits for the end up to `ms`; undefined if the run is still going then. */
  async waitUpTo(ms: number): Promise<RunOutcome | undefined> {
    if (this.state === 'done') return this.done;
    const outcome = await upTo(this.done, ms);
    return outcome === TIMED_OUT ? undefined : outcome;
  }

  private finish(): void {
    this.finishedAt = Date.now();
    this.pending = [];
    this.emit('finished');
  }

  /** Keeps the newest stream text within the cap, dropping the oldest text first. */
  private trim(): void {
    while (this.pendingChars > this.textCap) {
      const index = this.pending.findIndex((o) => o.type === 'stream');
      if (index < 0) return;
      const first = this.pending[index] as Extract<Output, { type: 'stream' }>;
      const excess = this.pendingChars - this.textCap;
      if (first.text.length <= excess) {
        this.pending.splice(index, 1);
        this.pendingChars -= first.text.length;
        this.omittedChars += first.text.length;
      } else {
        this.pending[index] = { ...first, text: first.text.slice(excess) };
        this.pendingChars -= excess;
        this.omittedChars += excess;
      }
    }
  }
}

/** The runs a session remembers: every unfinished one and the latest finished ones. */
export class RunRegistry {
  private readonly runs: RunHandle[] = [];
  private counter = 0;

  constructor(private readonly keepFinished = 20) {}

  nextId(session: string): string {
    return `${session}-${++this.counter}`;
  }

  add(handle: RunHandle): void {
    this.runs.push(handle);
    handle.once('finished', () => this.prune());
  }

  get(id: string): RunHandle | undefined {
    return this.runs.find((r) => r.id === id);
  }

  latest(): RunHandle | undefined {
    return this.runs[this.runs.length - 1];
  }

  /** The run going now, if any. */
  current(): RunHandle | undefined {
    return this.runs.find((r) => r.state === 'running');
  }

  /** The last run not yet finished (a new run waits behind it). */
  lastUnfinished(): RunHandle | undefined {
    return [...this.runs].reverse().find((r) => r.state !== 'done');
  }

  list(): RunHandle[] {
    return [...this.runs];
  }

  private prune(): void {
    const finished = this.runs.filter((r) => r.state === 'done');
    for (const old of finished.slice(0, Math.max(0, finished.length - this.keepFinished))) this.runs.splice(this.runs.indexOf(old), 1);
  }
}
