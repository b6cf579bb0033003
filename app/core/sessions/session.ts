/**
 * A named session: one kernel (ours or attached), its log, its figures and its runs. It is the
 * only door to that kernel: the tools, the panel and the record act through its methods (submit,
 * interrupt, restart, reset, helper) and read its facts(), so an action is written once and looks
 * the same everywhere. Runs go through the kernel's queue, one at a time in order; each is logged
 * before its outcome is settled, and every namespace clear is logged whoever caused it.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { KernelDiedError, type KernelState, type RestartedInfo } from '../kernel/kernel.js';
import type { SessionKernel } from '../kernel/supervision/session-kernel.js';
import type { KernelPlace } from '../kernel/supervision/provisioner.js';
import type { KernelInfo } from '../kernel/messaging/transport.js';
import { outputText, type ExecutionResult } from '../kernel/execution/outputs.js';
import type { PythonErrorInfo } from '../kernel/execution/error-text.js';
import { callHelper, type ToolSuccess } from './helper-bridge.js';
import { FigureStore, IMAGE_TYPES, type SavedFigure } from './figure-store.js';
import { SessionLog, SessionLogError, type LogEntry, type LogOutput } from './session-log.js';
import { RunRegistry, type RunHandle } from './run-handle.js';
import { clearRecord, recordToolCode, toolCodeFromPayload, type NamespaceClear } from './tool-record.js';
import type { EngineChoice } from './engine-choice.js';
import { foreignCellEntry } from './foreign-cells.js';
import type { NameFingerprints } from '../kernel/execution/user-names.js';
import type { InputRequest } from '../kernel/messaging/transport.js';
import { Question, type QuestionReply, type QuestionView } from './question.js';
import { PANEL_CLIENT } from './parties.js';

export interface SessionInterpreter {
  path: string;
  /** Why this interpreter was chosen, in words. */
  reason: string;
  /** The engine that runs its code (local sessions): ipykernel, or the built-in worker. */
  engine?: EngineChoice;
}

export interface SessionStarter {
  connection: string;
  client: string;
}

export interface RunRequest {
  code: string;
  /** Who sent it (an MCP client's name, or "panel"): the log says so. */
  client: string;
  timeoutS?: number;
  /** Characters of stream text kept in memory (the rest goes to a spill file). */
  outputLimit: number;
}

export type RunOutcome = (
  | { kind: 'done'; result: ExecutionResult; figures: SavedFigure[]; entry: LogEntry }
  | { kind: 'died'; error: KernelDiedError; entry: LogEntry }
) & {
  /** The kernel died after this client's previous run (between its calls), so this one ran in a fresh kernel. */
  diedBefore?: { error: KernelDiedError; times: number };
  /** Things the caller should know that are not the run's own output (the log could not be written). */
  warnings: string[];
};

/** How often an open question that only an open panel keeps open is looked at again. */
const PRESENCE_RECHECK_MS = 15_000;

/** The EOFError a question gets when no one can answer it. */
const NO_ONE_TO_ANSWER =
  'the client that ran this code cannot show the person a form, and no panel was open to answer in. Pass the value in the code instead, or open the panel (python-session-mcp status shows its address) and run it again.';

/** The status a run is logged and reported with: a run stopped by its time limit is 'timeout', whatever the kernel replied. */
export function runStatus(result: ExecutionResult): LogEntry['status'] {
  return result.timedOut ? 'timeout' : result.status;
}

/** The run that holds the kernel, as facts. */
export interface RunningFacts {
  run: string;
  code: string;
  client: string;
  since: number;
  /** Calls inside their wait for it right now (0: it goes on with nobody waiting). */
  callersWaiting: number;
}

/** Everything known about a session now, in one shape: the tools and the panel each format it their way. */
export interface SessionFacts {
  name: string;
  state: KernelState;
  /** Started by us (ours to restart and stop), or attached to a kernel started elsewhere. */
  owned: boolean;
  pid?: number;
  interpreter?: SessionInterpreter;
  /** Where the kernel runs, as data; the words come from `placeLabel`. */
  place: KernelPlace;
  /** How another client attaches to this kernel (a connection file, "<server>:<id>"). */
  attachAs?: string;
  /** The connection file of a kernel we attached to (absent for our own). */
  connectionFile?: string;
  kernelInfo?: KernelInfo;
  /** Epoch ms the current kernel process started (it changes on restart). */
  startedAt?: number;
  executionCount: number;
  restarts: number;
  /** How many user variables the namespace held after the last run. */
  variables: number;
  /** The code run holding the kernel, if any (a helper call holding it shows as busy, not here). */
  running?: RunningFacts;
  /** The question the running code asks now (input(), getpass), while it is open. */
  question?: QuestionView;
  /** Code runs waiting behind it. */
  queued: number;
  /** The folder the kernel works in (for a remote kernel, relative to the server's root). */
  cwd?: string;
  /** Why that folder, in words. */
  cwdReason?: string;
  startedBy?: SessionStarter;
}

/** The run that holds the kernel when a call gave up waiting for it, as data (each front end words it). */
export interface BusyFacts {
  run: string;
  kind: RunHandle['kind'];
  code: string;
  runningMs: number;
}

export interface HelperOptions {
  /** Who asks (logged with any code the helper records). */
  client: string;
  /** Seconds to wait for runs in front of it before answering busy; a helper that has started is waited for. */
  waitS: number;
  /** How long the call may run once started, before it is interrupted. */
  timeoutMs?: number;
}

/**
 * A helper call's answer. `printed`: anything else it printed or displayed, as text. `warning`:
 * the plain code it did could not be logged (the call's work happened all the same).
 */
export type HelperOutcome<S> = { kind: 'answered'; answer: ToolSuccess<S>; printed: string; warning: string | null } | { kind: 'busy'; busy: BusyFacts };

export interface InterruptOutcome {
  /** The code ignored the interrupt, so the kernel was restarted (and the clear logged). */
  restarted: boolean;
  wasBusy: boolean;
  /** The names the namespace held before: what a restart took. */
  lostNames: string[];
}

export interface RestartOutcome {
  lostNames: string[];
  /** The log could not record the restart. */
  warning: string | null;
}

export class Session extends EventEmitter {
  readonly log: SessionLog;
  readonly figures: FigureStore;
  lastError: (PythonErrorInfo & { time: string; code: string }) | null = null;
  /** Runs and helper calls: going, queued, and the latest finished. What holds the kernel is asked here. */
  readonly runs: RunRegistry;
  /** Who started it: a client connection (its id and name), or the panel. */
  startedBy?: SessionStarter;
  private spillCounter = 0;
  /** Kernel deaths so far, the latest, and how many of them each client has been told of. */
  private deaths = 0;
  private lastDeath: KernelDiedError | null = null;
  private readonly deathsTold = new Map<string, number>();
  /** The clear an action of ours is about to cause (a restart asked for, an interrupt that may escalate). */
  private clearing: NamespaceClear | null = null;
  /** The death the kernel is being replaced after, if any. */
  private deathPending: KernelDiedError | null = null;
  /** Deaths a died run's entry logged: that entry is the record's clear for it. */
  private readonly loggedDeaths = new WeakSet<KernelDiedError>();
  /** Where the clear's log warning goes, for the action that caused it. */
  private clearWarnings: string[] | null = null;
  /** A clear waiting for the run the restart ended to be logged first. */
  private clearLogged: Promise<void> = Promise.resolve();
  /** Whether a person is looking at a panel now (the daemon sets it): a question may wait for them there. */
  presence: () => boolean = () => false;

  constructor(
    readonly name: string,
    readonly dir: string,
    private readonly kernel: SessionKernel,
    readonly interpreter: SessionInterpreter | undefined,
    readonly cwd: string | undefined,
    readonly cwdReason?: string,
  ) {
    super();
    this.log = new SessionLog(dir);
    this.figures = new FigureStore(join(dir, 'figures'));
    this.runs = new RunRegistry(name);
    kernel.on('state', (state: KernelState) => {
      // A kernel that leaves busy has let go of its run: the watchers told of this state see
      // nothing running, though the run's entry and outcome follow a moment later.
      if (state !== 'busy') this.runs.current()?.markEnded();
      this.emit('changed', { state });
    });
    kernel.on('died', (error: KernelDiedError) => {
      this.deaths++;
      this.lastDeath = error;
      this.deathPending = error;
      this.emit('died', error);
    });
    kernel.on('restarted', (info) => this.onRestarted(info));
    // A log with an earlier kernel's entries goes on in this one: the record says the namespace starts empty here.
    const last = this.log.lastAtOpen;
    if (last && !clearsNamespace(last)) this.recordClear({ kind: 'new-kernel' }, []);
  }

  get state(): KernelState {
    return this.kernel.state;
  }

  facts(): SessionFacts {
    const kernel = this.kernel;
    const place = kernel.place;
    const running = this.runs.current('code');
    return {
      name: this.name,
      state: kernel.state,
      owned: kernel.owned,
      pid: kernel.pid,
      interpreter: this.interpreter,
      place,
      attachAs: kernel.connectionFile,
      connectionFile: kernel.owned ? undefined : kernel.connectionFile,
      kernelInfo: kernel.kernelInfo,
      startedAt: kernel.startedAt,
      executionCount: kernel.executionCount,
      restarts: kernel.restartCount,
      variables: kernel.knownNames.length,
      running: running && { run: running.id, code: running.code, client: running.client, since: running.startedAt!, callersWaiting: running.waiting },
      question: running?.question?.view(),
      queued: this.runs.list('code').filter((r) => r.state === 'queued').length,
      cwd: this.cwd,
      cwdReason: this.cwdReason,
      startedBy: this.startedBy,
    };
  }

  spillPath(): string {
    return join(this.dir, 'outputs', `${new Date().toISOString().replace(/[:.]/g, '-')}-${++this.spillCounter}.txt`);
  }

  // ---- runs ----

  /**
   * Starts a run that lives on its own: the caller waits on the handle as long as it likes, and
   * the run goes on when it stops waiting (until it ends, its timeout, or an interrupt).
   */
  submit(request: RunRequest): RunHandle<RunOutcome> {
    const handle = this.runs.create<RunOutcome>({ kind: 'code', code: request.code, client: request.client, textCap: request.outputLimit, timeoutS: request.timeoutS });
    const changed = () => this.emit('changed', { state: this.kernel.state });
    changed();
    handle.once('finished', changed);
    // The panel says when a run goes on with nobody waiting for it.
    handle.on('waiting', changed);
    void this.execute(handle, request.outputLimit);
    return handle;
  }

  /** Submits a run and waits for its outcome (scripts and tests that have nothing else to do meanwhile). */
  run(request: RunRequest): Promise<RunOutcome> {
    return this.submit(request).done;
  }

  /** Executes a submitted run on the kernel, logs it, and settles its handle: the one way a run goes. */
  private async execute(handle: RunHandle<RunOutcome>, outputLimit: number): Promise<void> {
    const started = Date.now();
    const time = new Date(started).toISOString();
    const warnings: string[] = [];
    let diedBefore: RunOutcome['diedBefore'];
    const { code, client } = handle;
    try {
      const result = await this.kernel.execute(code, {
        timeoutMs: handle.timeoutS ? handle.timeoutS * 1000 : undefined,
        signal: handle.signal,
        onOutput: (output) => {
          handle.push(output);
          // Watchers (the panel) see output while the run goes on; only this run's, never a
          // finished one's late output in the next run's place.
          if (handle.state === 'running') this.emit('run-output', output);
        },
        onStart: () => {
          // A kernel that died while nothing of this client's ran (between its calls, or in
          // another client's run) took this client's variables without telling it: say so now.
          const told = this.deathsTold.get(client);
          if (told !== undefined && told < this.deaths && this.lastDeath) diedBefore = { error: this.lastDeath, times: this.deaths - told };
          this.deathsTold.set(client, this.deaths);
          handle.markStarted();
          this.emit('run-started', { code, client, time });
        },
        limits: { maxChars: outputLimit, spillPath: () => this.spillPath() },
        onInput: (request) => this.ask(handle, request),
      });
      // It no longer holds the kernel: the entry's watchers see the session as it is after it.
      handle.markEnded();
      const figures: SavedFigure[] = [];
      const logOutputs = this.toLogOutputs(result, figures);
      if (result.error) this.lastError = { ...result.error, time, code };
      const entry = this.record(
        {
          time,
          client,
          code,
          status: runStatus(result),
          executionCount: result.executionCount,
          durationMs: result.durationMs,
          outputs: logOutputs,
          error: result.error && { ename: result.error.ename, evalue: result.error.evalue, message: result.error.message, traceback: result.error.traceback },
          spillPath: result.spillPath,
        },
        warnings,
      );
      handle.settle({ kind: 'done', result, figures, entry, diedBefore, warnings });
    } catch (error) {
      handle.markEnded();
      if (!(error instanceof KernelDiedError)) {
        handle.fail(error as Error);
        return;
      }
      this.lastError = { ename: 'KernelDied', evalue: error.message, traceback: [], message: error.message, time, code };
      const entry = this.record(
        {
          time,
          client,
          code,
          status: 'died',
          executionCount: null,
          durationMs: Date.now() - started,
          outputs: [],
          error: { ename: 'KernelDied', evalue: error.message, message: error.message, traceback: [] },
        },
        warnings,
      );
      // A died run is itself the record's clear for the death that took it.
      this.loggedDeaths.add(error);
      handle.settle({ kind: 'died', error, entry, diedBefore, warnings });
    } finally {
      handle.question?.endedWithRun();
      // Told of every death up to now, including one this run itself reports.
      if (this.deathsTold.has(client)) this.deathsTold.set(client, this.deaths);
    }
  }

  // ---- questions the code asks ----

  /**
   * The running code asks the person something. The question stays open while someone can answer
   * it: a client's form is on screen for it, the person sent the code from the panel, or a panel
   * is open (the run's time limit still applies). When none can, the code gets EOFError at once,
   * so no kernel waits for an answer nobody will give. It is looked at again whenever that may
   * have changed: a form closed, a call stopped waiting for the run, and every 15 s (a panel
   * closed says nothing).
   */
  private ask(handle: RunHandle<RunOutcome>, request: InputRequest): void {
    const question = new Question(handle.id, handle.client, request);
    const review = () => {
      if (!question.isOpen || question.held || handle.client === PANEL_CLIENT || this.presence()) return;
      question.giveUp(NO_ONE_TO_ANSWER);
    };
    handle.on('waiting', review);
    question.on('released', review);
    // A panel closed (or left alone past its look's window) says nothing: look again now and then.
    const lookAgain = setInterval(review, PRESENCE_RECHECK_MS).unref();
    question.once('closed', () => {
      clearInterval(lookAgain);
      handle.off('waiting', review);
      this.emit('changed', { state: this.kernel.state });
    });
    handle.ask(question);
    this.emit('changed', { state: this.kernel.state });
    // After the callers waiting now have been told (they may hold it for their client's form).
    queueMicrotask(review);
  }

  /** The open question of the running code, if any. */
  openQuestion(): Question | undefined {
    return this.runs.current('code')?.question;
  }

  /** Answers (or declines) the open question `id`; 'gone' when it is no longer open. */
  answerQuestion(id: string, reply: QuestionReply, by: string): 'answered' | 'declined' | 'gone' {
    const question = this.openQuestion();
    return question && question.id === id ? question.reply(reply, by) : 'gone';
  }

  // ---- helper calls ----

  /**
   * Calls a Python helper (list_names, get_value, reset…) once the kernel is free, waiting at most
   * waitS for runs in front of it: a helper queued behind a five-minute fit answers busy, naming
   * the run that holds the kernel, instead of hanging. A helper that has started is waited for.
   * The call is a run in the registry while it goes. Plain code it returns (what load_data, ols or
   * reset did) is logged as a tool entry. Helper failures throw ToolCallError.
   */
  async helper<S = Record<string, unknown>>(tool: string, args: Record<string, unknown>, options: HelperOptions): Promise<HelperOutcome<S>> {
    const front = this.runs.lastUnfinished();
    const handle = this.runs.create<ToolSuccess<S>>({ kind: 'helper', code: helperLabel(tool, args), client: options.client, textCap: 0 });
    const startedAt = Date.now();
    const call = callHelper<S>(this.kernel, tool, args, { timeoutMs: options.timeoutMs, signal: handle.signal, onStart: () => handle.markStarted() });
    call.then(
      (answer) => handle.settle(answer),
      (error: Error) => handle.fail(error),
    );
    if (front && !(await startsWithin(handle, options.waitS * 1000))) {
      handle.cancel(); // out of the queue; the kernel never sees it
      this.runs.forget(handle);
      const holder = this.runs.current() ?? front;
      return { kind: 'busy', busy: { run: holder.id, kind: holder.kind, code: holder.code, runningMs: holder.runningMs() } };
    }
    const answer = await call;
    const printed = outputText(answer.outputs).trim();
    // A tool that changed the namespace or files is logged as the plain code that does the same.
    const code = toolCodeFromPayload(answer.payload);
    const report = printed ? `${answer.text}\n\n${printed}` : answer.text;
    const warning = code && recordToolCode((entry) => this.append(entry), tool, code, { client: options.client, startedAt, report });
    return { kind: 'answered', answer, printed, warning: warning || null };
  }

  // ---- interrupt, restart, reset, shutdown ----

  /** Interrupts the running code; if it ignores the interrupt, the kernel (if ours) is restarted and that clear is logged. */
  async interrupt(by: string): Promise<InterruptOutcome> {
    const wasBusy = this.kernel.state === 'busy';
    const lostNames = [...this.kernel.knownNames];
    const { restarted } = await this.clearingAs({ kind: 'interrupt-escalated', client: by, cause: 'the code ignored an interrupt' }, () => this.kernel.interrupt());
    return { restarted, wasBusy, lostNames };
  }

  /** Restarts the kernel (ours only): every variable is gone, and the log says so. `tool`: the record's name for it. */
  async restart(by: string, tool = 'restart'): Promise<RestartOutcome> {
    const warnings: string[] = [];
    const { lostNames } = await this.clearingAs({ kind: 'restart', tool, client: by }, () => this.kernel.restart(), warnings);
    return { lostNames, warning: warnings[0] ?? null };
  }

  /**
   * Clears every user name, imports included, keeping the kernel: the `reset` helper, logged as its
   * plain code (`%reset -f`). To start a fresh kernel instead, restart(by, 'reset_namespace').
   */
  reset(by: string, options: { waitS: number; timeoutMs?: number }): Promise<HelperOutcome<Record<string, unknown>>> {
    return this.helper('reset', {}, { client: by, waitS: options.waitS, timeoutMs: options.timeoutMs });
  }

  /** Ends the kernel if it is ours (else only detaches). The log stays on disk. */
  async shutdown(): Promise<void> {
    await this.kernel.shutdown();
    this.log.close();
  }

  // ---- what the other parties did ----

  /** From now on, logs the cells other Jupyter clients run on this kernel, bounded by `outputLimit`. */
  recordOtherClients(outputLimit: () => number): void {
    this.kernel.foreignLimits = () => ({ maxChars: outputLimit(), spillPath: () => this.spillPath() });
    this.kernel.on('foreign-cell', (cell) => this.record(foreignCellEntry(cell, this.toLogOutputs(cell.result, [])), []));
  }

  /** The user's names with a fingerprint each, as of the latest run of ours. */
  get nameFingerprints(): NameFingerprints {
    return this.kernel.nameFingerprints;
  }

  /** True when another client's cell may have changed the names since they were last read. */
  get namesStale(): boolean {
    return this.kernel.namesStale;
  }

  /** Reads the names again (after another client's cell). */
  refreshNames(): Promise<NameFingerprints> {
    return this.kernel.refreshNames();
  }

  // ---- the record ----

  /** Runs `act` with `clear` as the cause of any restart it brings, so the log entry names it. */
  private async clearingAs<T>(clear: NamespaceClear, act: () => Promise<T>, warnings: string[] = []): Promise<T> {
    const previous = this.clearing;
    this.clearing = clear;
    this.clearWarnings = warnings;
    try {
      const result = await act();
      await this.clearLogged;
      return result;
    } finally {
      this.clearing = previous;
      this.clearWarnings = null;
    }
  }

  /** Every restart the kernel reports empties the namespace: logged once, with who or what caused it. */
  private onRestarted(info: RestartedInfo): void {
    const death = this.deathPending;
    this.deathPending = null;
    const asked = this.clearing;
    const warnings = this.clearWarnings ?? [];
    const log = () => {
      const clear: NamespaceClear | null = asked ?? (death ? (this.loggedDeaths.has(death) ? null : { kind: 'replaced', cause: death.message }) : { kind: 'interrupt-escalated', client: 'python-session', cause: info.cause });
      if (clear) this.recordClear(clear, warnings);
    };
    // The run the restart (or death) ended is logged first, so the record has the clear after it.
    const ending = this.runs.startedUnsettled();
    if (ending) this.clearLogged = ending.done.then(log, log);
    else log();
    this.emit('restarted', info);
  }

  private recordClear(clear: NamespaceClear, warnings: string[]): void {
    const { name, client, code } = clearRecord(clear);
    const warning = recordToolCode((entry) => this.append(entry), name, code, { client, startedAt: Date.now(), report: '' });
    if (warning) warnings.push(warning);
  }

  /** Appends to the log and tells the watchers (the panel); throws SessionLogError. */
  private append(entry: Omit<LogEntry, 'id'>): LogEntry {
    const full = this.log.append(entry);
    this.emit('logged', full);
    return full;
  }

  /**
   * Appends to the log; a log that cannot be written (a full disk) costs the record, never the
   * reply: the run happened, so its result still goes back, with a warning.
   */
  private record(entry: Omit<LogEntry, 'id'>, warnings: string[]): LogEntry {
    try {
      return this.append(entry);
    } catch (error) {
      if (!(error instanceof SessionLogError)) throw error;
      warnings.push(`Warning: this run is not in the session log — ${error.message}. It will be missing from the log and from export_notebook.`);
      this.emit('logged', error.entry);
      return error.entry;
    }
  }

  /** A result's outputs as the log keeps them, its figures saved (for our runs and for other clients' cells). */
  toLogOutputs(result: ExecutionResult, figures: SavedFigure[]): LogOutput[] {
    const outputs: LogOutput[] = [];
    for (const output of result.outputs) {
      switch (output.type) {
        case 'stream':
          outputs.push({ type: 'stream', name: output.name, text: output.text });
          break;
        case 'execute_result':
        case 'display_data': {
          const all = this.figures.save(output.data, result.executionCount ?? 0);
          figures.push(...all);
          const saved = all.filter((f) => f.path);
          const textual = Object.fromEntries(Object.entries(output.data).filter(([mime]) => !(mime in IMAGE_TYPES) && mime.startsWith('text/')));
          outputs.push({
            type: output.type === 'execute_result' ? 'result' : 'display',
            text: typeof output.data['text/plain'] === 'string' ? (output.data['text/plain'] as string) : undefined,
            figures: saved.length ? saved.map((f) => f.path) : undefined,
            data: textual,
          });
          break;
        }
        case 'error':
          outputs.push({ type: 'error', name: output.ename, text: output.evalue });
          break;
        case 'omitted':
          outputs.push({ type: 'omitted', text: `${output.chars} characters of ${output.what} left out`, name: output.spillPath });
          break;
      }
    }
    return outputs;
  }
}

/** Whether a log entry left the namespace empty (a clear, or a run the kernel died in). */
function clearsNamespace(entry: LogEntry): boolean {
  return entry.tool?.clearsNamespace === true || entry.status === 'died';
}

/** A helper call in one line, for "what holds the kernel": `list_names()`, `get_value(expression='x')`. */
function helperLabel(tool: string, args: Record<string, unknown>): string {
  const shown = Object.entries(args).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  const label = `${tool}(${shown.join(', ')})`;
  return label.length > 200 ? `${label.slice(0, 199)}…` : label;
}

/** True once the run has started, false if `ms` passes first (or it ended without starting). */
function startsWithin(handle: RunHandle<unknown>, ms: number): Promise<boolean> {
  if (handle.startedAt !== undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (started: boolean) => {
      clearTimeout(timer);
      handle.off('started', onStarted);
      handle.off('finished', onFinished);
      resolve(started);
    };
    const onStarted = () => done(true);
    // Ended without starting: it failed in the queue; its failure is what the caller gets.
    const onFinished = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    handle.once('started', onStarted);
    handle.once('finished', onFinished);
  });
}
