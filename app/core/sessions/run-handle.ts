/**
 * One run in a session, living in the daemon rather than in the call that asked for it: a call
 * waits for it up to its wait_s and comes back with the run still going; later calls (from any
 * client) pick it up by id. The handle keeps what the run printed since the last look, bounded,
 * and the outcome once it ends. It is told what happens (started, output, ended) by the session
 * that runs it and calls nothing back. Nothing here knows about MCP.
 *
 * A helper call (list_names, get_value…) is a run too (kind 'helper'): it holds the kernel while
 * it goes, so "what is running" has one answer, the registry's.
 */
import { EventEmitter } from 'node:events';
import type { Output } from '../kernel/execution/outputs.js';
import type { Question } from './question.js';

export type RunState = 'queued' | 'running' | 'done';

/** Code a client sent, or a Python helper call made for a tool or the panel. */
export type RunKind = 'code' | 'helper';

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

export interface RunHandleInit {
  id: string;
  session: string;
  kind: RunKind;
  /** The code as the client sent it (for a helper call, a one-line description of the call). */
  code: string;
  client: string;
  /** The run that was going when this one was submitted, if any: this one waits behind it. */
  queuedBehind?: RunHandle<unknown>;
  /** Characters of stream text one look keeps. */
  textCap: number;
  /** Its time limit, after which the kernel interrupts it whoever waits. */
  timeoutS?: number;
}

/** Method syntax on purpose: a RunHandle of any outcome is a RunHandle<unknown> to the registry. */
interface Settler<O> {
  resolve(outcome: O): void;
  reject(error: Error): void;
}

export class RunHandle<O = unknown> extends EventEmitter {
  readonly submittedAt = Date.now();
  readonly id: string;
  readonly session: string;
  readonly kind: RunKind;
  readonly code: string;
  readonly client: string;
  readonly queuedBehind: RunHandle<unknown> | undefined;
  readonly timeoutS: number | undefined;
  startedAt?: number;
  finishedAt?: number;
  outcome?: O;
  /** Why the run could not go ahead (cancelled while queued, an unexpected failure). */
  failure?: Error;
  /** Calls inside their wait for this run right now. */
  waiting = 0;
  /** The question its code asks now (input(), getpass), while it is open. */
  question: Question | undefined;
  readonly done: Promise<O>;
  private readonly settler: Settler<O>;
  private readonly controller = new AbortController();
  private readonly textCap: number;
  private pending: Output[] = [];
  private pendingChars = 0;
  private omittedChars = 0;
  private omittedFigures = 0;

  constructor(init: RunHandleInit) {
    super();
    this.id = init.id;
    this.session = init.session;
    this.kind = init.kind;
    this.code = init.code;
    this.client = init.client;
    this.queuedBehind = init.queuedBehind;
    this.textCap = init.textCap;
    this.timeoutS = init.timeoutS;
    let settler!: Settler<O>;
    this.done = new Promise<O>((resolve, reject) => (settler = { resolve, reject }));
    this.settler = settler;
    this.done.catch(() => undefined); // a run nobody waits for must not be an unhandled rejection
  }

  get state(): RunState {
    return this.finishedAt !== undefined ? 'done' : this.startedAt !== undefined ? 'running' : 'queued';
  }

  /** Aborting it interrupts the run (or takes it out of the queue). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the run: interrupts it if it started, takes it out of the queue if not. */
  cancel(): void {
    this.controller.abort();
  }

  /** Milliseconds the run has been going (0 while queued), or went, if it ended. */
  runningMs(now = Date.now()): number {
    if (this.startedAt === undefined) return 0;
    return (this.finishedAt ?? now) - this.startedAt;
  }

  /** The kernel started on it (after any wait in the queue). */
  markStarted(): void {
    this.startedAt = Date.now();
    this.emit('started');
  }

  /** Its code asks a question: callers waiting for it are told ('question'), and again when it closes. */
  ask(question: Question): void {
    this.question = question;
    question.once('closed', () => {
      if (this.question === question) this.question = undefined;
      this.emit('question', undefined);
    });
    this.emit('question', question);
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

  /**
   * The kernel is done with it: from now on it no longer holds the kernel (the session's facts
   * show nothing running), though its outcome may take a moment more to be settled (the log entry
   * is written in between).
   */
  markEnded(): void {
    if (this.finishedAt === undefined) this.finishedAt = Date.now();
  }

  /** Its outcome: waiters get it, and 'finished' is told. */
  settle(outcome: O): void {
    if (this.outcome !== undefined || this.failure) return;
    this.markEnded();
    this.outcome = outcome;
    this.pending = [];
    this.settler.resolve(outcome);
    this.emit('finished');
  }

  /** It could not go ahead (cancelled while queued, an unexpected failure). */
  fail(error: Error): void {
    if (this.outcome !== undefined || this.failure) return;
    this.markEnded();
    this.failure = error;
    this.pending = [];
    this.settler.reject(error);
    this.emit('finished');
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

/**
 * The runs a session remembers: every unfinished one and the latest finished ones. The one place
 * that says what holds the kernel now (current) and what a new run waits behind (lastUnfinished).
 */
export class RunRegistry {
  private readonly runs: RunHandle<unknown>[] = [];
  private counter = 0;

  constructor(
    private readonly session: string,
    private readonly keepFinished = 20,
  ) {}

  /**
   * A new run, queued behind the last unfinished one, with the next id of this session
   * ("default-3"); it is remembered until enough later runs have finished.
   */
  create<O>(init: Omit<RunHandleInit, 'id' | 'session' | 'queuedBehind'>): RunHandle<O> {
    const handle = new RunHandle<O>({ ...init, id: `${this.session}-${++this.counter}`, session: this.session, queuedBehind: this.lastUnfinished() });
    this.runs.push(handle);
    handle.once('finished', () => this.prune());
    return handle;
  }

  /** Forgets a run that never started (a helper call that gave up waiting for the kernel). */
  forget(handle: RunHandle<unknown>): void {
    const at = this.runs.indexOf(handle);
    if (at >= 0 && handle.startedAt === undefined) this.runs.splice(at, 1);
  }

  get(id: string): RunHandle<unknown> | undefined {
    return this.runs.find((r) => r.id === id);
  }

  /** The latest run of this kind. */
  latest(kind: RunKind = 'code'): RunHandle<unknown> | undefined {
    return this.runs.findLast((r) => r.kind === kind);
  }

  /** The run holding the kernel now, if any (of one kind, when asked). */
  current(kind?: RunKind): RunHandle<unknown> | undefined {
    return this.runs.find((r) => r.state === 'running' && (!kind || r.kind === kind));
  }

  /** The last run not yet finished (a new run waits behind it). */
  lastUnfinished(): RunHandle<unknown> | undefined {
    return this.runs.findLast((r) => r.state !== 'done');
  }

  /** A run the kernel started that has no outcome yet (its entry is being written). */
  startedUnsettled(): RunHandle<unknown> | undefined {
    return this.runs.find((r) => r.startedAt !== undefined && r.outcome === undefined && r.failure === undefined);
  }

  /** Runs waiting for the kernel. */
  queued(): number {
    return this.runs.filter((r) => r.state === 'queued').length;
  }

  list(kind?: RunKind): RunHandle<unknown>[] {
    return this.runs.filter((r) => !kind || r.kind === kind);
  }

  private prune(): void {
    const finished = this.runs.filter((r) => r.state === 'done');
    for (const old of finished.slice(0, Math.max(0, finished.length - this.keepFinished))) this.runs.splice(this.runs.indexOf(old), 1);
  }
}
