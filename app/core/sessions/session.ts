/**
 * A named session: one kernel (ours or attached), its log and its figures.
 * Runs go through the kernel's queue, so they execute one at a time in order;
 * each is logged before its reply is returned.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { KernelDiedError, type KernelState } from '../kernel/kernel.js';
import type { SessionKernel } from '../kernel/session-kernel.js';
import type { ExecutionResult, Output } from '../kernel/outputs.js';
import type { PythonErrorInfo } from '../kernel/error-text.js';
import { FigureStore, IMAGE_TYPES, type SavedFigure } from './figure-store.js';
import { SessionLog, SessionLogError, type LogEntry, type LogOutput } from './session-log.js';
import { RunHandle, RunRegistry } from './run-handle.js';
import type { EngineChoice } from './engine-choice.js';

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
  client: string;
  timeoutS?: number;
  signal?: AbortSignal;
  onOutput?: (output: Output) => void;
  /** Called once the kernel starts on this run (after any wait in the queue). */
  onStart?: () => void;
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

export interface SessionSummary {
  name: string;
  state: KernelState;
  owned: boolean;
  pid?: number;
  interpreter?: SessionInterpreter;
  /** The remote Jupyter server's registered name; absent for a kernel on this machine. */
  server?: string;
  connectionFile?: string;
  startedAt?: number;
  executionCount: number;
  restarts: number;
  runningSince?: number;
  runningCode?: string;
  /** The id of the run going now (when it was submitted as a run), and how many calls wait for it. */
  runningId?: string;
  callersWaiting?: number;
  /** Runs waiting behind the current one. */
  queued?: number;
  /** The folder the kernel works in (for a remote kernel, relative to the server's root). */
  cwd?: string;
  /** Why that folder, in words. */
  cwdReason?: string;
}

export class Session extends EventEmitter {
  readonly log: SessionLog;
  readonly figures: FigureStore;
  lastError: (PythonErrorInfo & { time: string; code: string }) | null = null;
  /** Runs submitted with submit(): going, queued, and the latest finished. */
  readonly runs = new RunRegistry();
  /** Who started it: a client connection (its id and name), or the panel. */
  startedBy?: SessionStarter;
  private running: { since: number; code: string; client: string } | null = null;
  private spillCounter = 0;
  /** Kernel deaths so far, the latest, and how many of them each client has been told of. */
  private deaths = 0;
  private lastDeath: KernelDiedError | null = null;
  private readonly deathsTold = new Map<string, number>();

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly kernel: SessionKernel,
    readonly interpreter: SessionInterpreter | undefined,
    readonly cwd: string | undefined,
    readonly cwdReason?: string,
  ) {
    super();
    this.log = new SessionLog(dir);
    this.figures = new FigureStore(join(dir, 'figures'));
    kernel.on('state', (state: KernelState) => this.emit('changed', { state }));
    kernel.on('died', (error: KernelDiedError) => {
      this.deaths++;
      this.lastDeath = error;
      this.emit('died', error);
    });
    kernel.on('restarted', (info) => this.emit('restarted', info));
  }

  get state(): KernelState {
    return this.kernel.state;
  }

  summary(): SessionSummary {
    return {
      name: this.name,
      state: this.kernel.state,
      owned: this.kernel.owned,
      pid: this.kernel.pid,
      interpreter: this.interpreter,
      server: this.kernel.serverName,
      connectionFile: this.kernel.owned ? undefined : this.kernel.connectionFile,
      startedAt: this.kernel.startedAt,
      executionCount: this.kernel.executionCount,
      restarts: this.kernel.restartCount,
      runningSince: this.running?.since,
      runningCode: this.running?.code,
      runningId: this.runs.current()?.id,
      callersWaiting: this.runs.current()?.waiting,
      queued: this.runs.list().filter((r) => r.state === 'queued').length,
      cwd: this.cwd,
      cwdReason: this.cwdReason,
    };
  }

  spillPath(): string {
    return join(this.dir, 'outputs', `${new Date().toISOString().replace(/[:.]/g, '-')}-${++this.spillCounter}.txt`);
  }

  /**
   * Appends to the log; a log that cannot be written (a full disk) costs the record, never the
   * reply: the run happened, so its result still goes back, with a warning.
   */
  private record(entry: Omit<LogEntry, 'id'>, warnings: string[]): LogEntry {
    try {
      return this.log.append(entry);
    } catch (error) {
      if (!(error instanceof SessionLogError)) throw error;
      warnings.push(`Warning: this run is not in the session log — ${error.message}. It will be missing from the log and from export_notebook.`);
      return error.entry;
    }
  }

  /**
   * Starts a run that lives on its own: the caller waits on the handle as long as it likes, and
   * the run goes on when it stops waiting (until it ends, its timeout, or an interrupt).
   */
  submit(request: Omit<RunRequest, 'signal'>): RunHandle {
    const handle = new RunHandle(this.runs.nextId(this.name), this.name, request.code, request.client, this.runs.lastUnfinished(), request.outputLimit, (self) =>
      this.run({
        ...request,
        signal: self.signal,
        onStart: () => {
          self.markStarted();
          request.onStart?.();
        },
        onOutput: (output) => {
          self.push(output);
          request.onOutput?.(output);
        },
      }),
    );
    handle.timeoutS = request.timeoutS;
    this.runs.add(handle);
    this.emit('changed', { state: this.kernel.state });
    handle.once('finished', () => this.emit('changed', { state: this.kernel.state }));
    // The panel says when a run goes on with nobody waiting for it.
    handle.on('waiting', () => this.emit('changed', { state: this.kernel.state }));
    return handle;
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const started = Date.now();
    const time = new Date(started).toISOString();
    const warnings: string[] = [];
    let diedBefore: RunOutcome['diedBefore'];
    const run = { since: 0, code: request.code, client: request.client };
    try {
      const result = await this.kernel.execute(request.code, {
        timeoutMs: request.timeoutS ? request.timeoutS * 1000 : undefined,
        signal: request.signal,
        onOutput: (output) => {
          request.onOutput?.(output);
          // Watchers (the panel) see output while the run goes on; only this run's, never a
          // finished one's late output in the next run's place.
          if (this.running === run) this.emit('run-output', output);
        },
        onStart: () => {
          // A kernel that died while nothing of this client's ran (between its calls, or in
          // another client's run) took this client's variables without telling it: say so now.
          const told = this.deathsTold.get(request.client);
          if (told !== undefined && told < this.deaths && this.lastDeath) diedBefore = { error: this.lastDeath, times: this.deaths - told };
          this.deathsTold.set(request.client, this.deaths);
          run.since = Date.now();
          this.running = run;
          request.onStart?.();
          this.emit('run-started', { code: request.code, client: request.client, time });
        },
        limits: { maxChars: request.outputLimit, spillPath: () => this.spillPath() },
      });
      const figures: SavedFigure[] = [];
      const logOutputs = this.toLogOutputs(result, figures);
      if (result.error) this.lastError = { ...result.error, time, code: request.code };
      const entry = this.record({
        time,
        client: request.client,
        code: request.code,
        status: result.timedOut ? 'timeout' : result.status,
        executionCount: result.executionCount,
        durationMs: result.durationMs,
        outputs: logOutputs,
        error: result.error && { ename: result.error.ename, evalue: result.error.evalue, message: result.error.message, traceback: result.error.traceback },
        spillPath: result.spillPath,
      }, warnings);
      this.emit('logged', entry);
      return { kind: 'done', result, figures, entry, diedBefore, warnings };
    } catch (error) {
      if (!(error instanceof KernelDiedError)) throw error;
      this.lastError = { ename: 'KernelDied', evalue: error.message, traceback: [], message: error.message, time, code: request.code };
      const entry = this.record({
        time,
        client: request.client,
        code: request.code,
        status: 'died',
        executionCount: null,
        durationMs: Date.now() - started,
        outputs: [],
        error: { ename: 'KernelDied', evalue: error.message, message: error.message, traceback: [] },
      }, warnings);
      this.emit('logged', entry);
      return { kind: 'died', error, entry, diedBefore, warnings };
    } finally {
      if (this.running === run) this.running = null;
      // Told of every death up to now, including one this run itself reports.
      if (this.deathsTold.has(request.client)) this.deathsTold.set(request.client, this.deaths);
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
