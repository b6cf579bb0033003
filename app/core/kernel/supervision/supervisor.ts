/**
 * The kernel supervisor: the one place that holds the policy for every kind of kernel. Runs go
 * one at a time in the order asked; each is an ExecutionFuture (reply and idle) over the
 * transport, its iopub routed by parent. It enforces timeouts and cancellation, interrupts with
 * escalation (after the run's execute_input; a second interrupt half a grace period later if
 * the first shows no effect; a restart of a kernel we own one grace period after that),
 * accounts for a death (what happened, the names lost with it), replaces a dead kernel within a
 * restart policy, restarts and shuts down.
 *
 * Where the kernel runs and how its life is managed is the provisioner's (a local process group,
 * a Jupyter server, the built-in worker); how messages travel is the transport's.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { settledWithin } from '../../timers.js';
import { ExecutionFuture, type OutputLimits } from '../execution/execution.js';
import { ForeignCellAssembler, type ForeignCell } from '../execution/foreign-cells.js';
import { ConnectionLostError, KernelClosedError, KernelDiedError, KernelGaveUpError, KernelNotOursError, lostLine, notOursMessage, outputLostMessage } from './kernel-errors.js';
import { reasonOf, silentLogger, type EngineLogger } from '../logger.js';
import type { ExecutionResult, Output } from '../execution/outputs.js';
import type { HelperTransport, Incarnation, KernelDeath, KernelPlace, KernelProvisioner } from './provisioner.js';
import { RestartPolicy, type RestartPolicyOptions } from './restart-policy.js';
import type { InputRequest, KernelInfo, KernelTransport } from '../messaging/transport.js';
import { unansweredReply } from '../messaging/input-replies.js';
import type { JupyterMessage } from '../../wire/index.js';
import { namesExpressions, readUserNames, type NameFingerprints } from '../execution/user-names.js';

export type KernelState = 'starting' | 'idle' | 'busy' | 'restarting' | 'dead' | 'closed';

/** How long an interrupted run may take to stop, once its interrupt went out, before a kernel we own is restarted. */
export const DEFAULT_INTERRUPT_GRACE_MS = 3000;
/** The longest a KeyboardInterrupt nobody asked for waits for an end from the kernel's side when the kernel does not show it goes on. */
const ENDED_THERE_WAIT_MS = 5000;

export interface SupervisorOptions {
  /** How long an interrupted run may take to stop before the kernel is restarted. */
  interruptGraceMs?: number;
  /** The longest a KeyboardInterrupt nobody here asked for waits for an end from the kernel's side (default 5 s; see endedThereRightAfter). */
  endedThereWaitMs?: number;
  /** Replace a kernel that died (default true; only kernels we own are replaced). */
  autoRestart?: boolean;
  /** When to stop replacing a kernel that keeps dying soon after it starts. */
  restartPolicy?: RestartPolicyOptions;
  /** Default output limits for executions. */
  outputLimits?: OutputLimits;
  logger?: EngineLogger;
}

export interface ExecuteOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  onOutput?: (output: Output) => void;
  /** Called once the kernel starts on this request (after any queue wait). */
  onStart?: () => void;
  limits?: OutputLimits;
  /** false for tool helpers: no execution count, no history, no `_` update. */
  storeHistory?: boolean;
  silent?: boolean;
  /**
   * Questions this run's code asks (input(), getpass, the debugger): the request is sent with
   * allow_stdin, and each question is handed here to be replied to once. Without it the code's
   * input() fails at once, as in a kernel with no stdin.
   */
  onInput?: (request: InputRequest) => void;
}

export interface RestartedInfo {
  cause: string;
  lostNames: string[];
}

/** Every event a kernel emits, with its payload. */
export type KernelEvents = {
  state: [state: KernelState];
  died: [error: KernelDiedError];
  restarted: [info: RestartedInfo];
  /** A cell another Jupyter client ran on this kernel ended (seen on iopub). */
  'foreign-cell': [cell: ForeignCell];
};

/**
 * A supervised kernel over any provisioner (local, remote, the built-in worker, a test's fake):
 * built only by `KernelSupervisor.start`, so every kind is made the same way.
 */
export class KernelSupervisor<P extends KernelProvisioner = KernelProvisioner> extends EventEmitter<KernelEvents> {
  readonly id = randomUUID();
  private current: Incarnation | null = null;
  /** A start, replacement or restart the supervisor is waiting for; calls wait on it. */
  private transition: Promise<Incarnation> | null = null;
  /** Why no call can run any more (shut down, or died for good). */
  private gone: Error | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private running: ExecutionFuture | null = null;
  private stateValue: KernelState = 'starting';
  /** The user's names with their fingerprints, as of the last reply that carried them (replaced, never changed in place). */
  private names: NameFingerprints = new Map();
  /** A cell of another client ended after `names` was read: they may be out of date. */
  private namesStaleValue = false;
  /** The transport whose iopub is watched for other clients' cells, and the session ids our own requests used. */
  private watched: { transport: KernelTransport; listener: (message: JupyterMessage, routed: boolean) => void } | null = null;
  private readonly ownSessions = new Set<string>();
  private readonly foreign: ForeignCellAssembler;
  /** Bounds for other clients' cells over the kernel's defaults, as a run's own; the session sets its output limit and spill folder. */
  foreignLimits: () => OutputLimits = () => ({});
  private restarts = 0;
  private lastExecutionCount = 0;
  private startedAtValue: number | undefined;
  private kernelInfoValue: KernelInfo | undefined;
  /** Set between a death the provisioner recovers from and its new process, so the restart is reported once. */
  private pendingRecovery: RestartedInfo | null = null;
  private readonly endedThereListeners = new Set<(error: KernelDiedError) => void>();
  private readonly policy: RestartPolicy;
  private readonly logger: EngineLogger;

  /** Starts the provisioner's first kernel under supervision; resolves once it answers. */
  static async start<P extends KernelProvisioner>(provisioner: P, options: SupervisorOptions = {}): Promise<KernelSupervisor<P>> {
    const kernel = new KernelSupervisor(provisioner, options);
    await kernel.begin(provisioner.start());
    return kernel;
  }

  private constructor(
    /** What runs the kernel; its kind's own facts (a server's kernel id, a connection) are read here. */
    readonly provisioner: P,
    private readonly supervision: SupervisorOptions,
  ) {
    super();
    this.policy = new RestartPolicy(supervision.restartPolicy);
    this.logger = supervision.logger ?? silentLogger;
    this.foreign = new ForeignCellAssembler(() => ({ ...this.supervision.outputLimits, ...this.foreignLimits() }), (cell) => this.onForeignCell(cell));
    provisioner.on('died', (death) => this.onDied(death));
    provisioner.on('disconnected', (account) => this.onDisconnected(account));
    provisioner.on('run-ended-there', (headline, nextStep) => this.onRunEndedThere(headline, nextStep));
    provisioner.on('connected', (incarnation, fresh) => this.onConnected(incarnation, fresh));
  }

  /** Starts the first kernel; `start` awaits it. */
  private async begin(first: Promise<Incarnation>): Promise<void> {
    this.transition = first;
    try {
      this.adopt(await first);
    } catch (error) {
      this.setState('dead');
      throw error;
    } finally {
      if (this.transition === first) this.transition = null;
    }
  }

  // ---- what a session sees ----

  get owned(): boolean {
    return this.provisioner.owned;
  }

  get state(): KernelState {
    return this.stateValue;
  }

  get place(): KernelPlace {
    return this.provisioner.place;
  }

  get helperTransport(): HelperTransport {
    return this.provisioner.helperTransport;
  }

  get pid(): number | undefined {
    return this.provisioner.pid;
  }

  get connectionFile(): string | undefined {
    return this.provisioner.connectionFile;
  }

  get kernelInfo(): KernelInfo | undefined {
    return this.kernelInfoValue;
  }

  get startedAt(): number | undefined {
    return this.startedAtValue;
  }

  /** The user's variable names after the last execution (what a crash would lose). */
  get knownNames(): readonly string[] {
    return [...this.names.keys()];
  }

  /** Each name with its fingerprint after the last execution; compare two with namesChange. */
  get nameFingerprints(): NameFingerprints {
    return this.names;
  }

  /** Another client's cell ended since the names were last read: refreshNames() reads them again. */
  get namesStale(): boolean {
    return this.namesStaleValue;
  }

  /** Reads the names again with one silent request that runs nothing (after other clients' cells). */
  async refreshNames(): Promise<NameFingerprints> {
    await this.execute('', { storeHistory: false, silent: true });
    return this.names;
  }

  get restartCount(): number {
    return this.restarts;
  }

  get executionCount(): number {
    return this.lastExecutionCount;
  }

  /** Messages dropped for a bad signature, on the current connection. */
  get badSignatures(): number {
    return this.current?.transport.badSignatures ?? 0;
  }

  get logLines(): string[] {
    return this.provisioner.logLines;
  }

  private setState(state: KernelState): void {
    if (this.stateValue === state || this.stateValue === 'closed') return;
    this.stateValue = state;
    this.emit('state', state);
  }

  private adopt(incarnation: Incarnation): void {
    this.current = incarnation;
    this.watchForeign(incarnation.transport);
    this.kernelInfoValue = incarnation.kernelInfo;
    this.startedAtValue = incarnation.startedAt;
    this.setState(this.running ? 'busy' : 'idle');
  }

  // ---- runs ----

  /** Runs code after everything queued before it. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    const run = this.queue.then(() => this.executeNow(code, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The incarnation to send to, once the kernel can take a request. */
  private async usable(): Promise<Incarnation> {
    if (this.gone) throw this.gone;
    if (this.transition) await this.transition;
    if (this.gone) throw this.gone;
    return this.provisioner.available();
  }

  private async executeNow(code: string, options: ExecuteOptions): Promise<ExecutionResult> {
    if (this.stateValue === 'closed') throw new KernelClosedError('The kernel was shut down.');
    if (options.signal?.aborted) throw new Error('Cancelled before it started.');
    const incarnation = await this.usable();
    const { transport } = incarnation;
    const askable = options.onInput !== undefined;
    const storeHistory = options.storeHistory ?? true;
    const future = new ExecutionFuture({ ...this.supervision.outputLimits, ...options.limits }, options.onOutput);
    this.running = future;
    this.setState('busy');
    options.onStart?.();
    const { msgId, reply } = transport.request(
      'shell',
      'execute_request',
      {
        code,
        silent: options.silent ?? false,
        store_history: storeHistory,
        user_expressions: namesExpressions(storeHistory),
        allow_stdin: askable,
        stop_on_error: false,
      },
      (id) => transport.onParent(id, (message) => future.handleIopub(message)),
    );
    const onInput = (request: InputRequest) => {
      if (request.parent === msgId && !future.isSettled) options.onInput!(request);
      else request.reply(unansweredReply('the request that asked has ended'));
    };
    if (askable) transport.on('input', onInput);
    let watchdog: NodeJS.Timeout | undefined;
    reply.then(
      (message) => {
        const names = readUserNames(message.content);
        if (names) {
          this.names = names;
          this.namesStaleValue = false;
        }
        future.handleReply(message);
        // A reply with none of its output after this long: the relay stopped passing the
        // kernel's output, and waiting on would be forever.
        const watchMs = transport.outputWatchdogMs;
        if (watchMs !== undefined && !future.hasOutput) watchdog = setTimeout(() => this.onOutputLost(incarnation, future), watchMs);
      },
      (error: Error) => future.fail(error),
    );
    const interrupt = () =>
      void this.interruptRun(future).catch((error) => this.logger.write('warn', `interrupting a run failed: ${reasonOf(error)}`));
    let timer: NodeJS.Timeout | undefined;
    if (options.timeoutMs && options.timeoutMs > 0) {
      timer = setTimeout(() => {
        future.markTimedOut();
        interrupt();
      }, options.timeoutMs);
    }
    const onAbort = () => {
      future.markInterrupted();
      interrupt();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // An end from the kernel's side can arrive with the run's last messages, in the same read,
    // after the run is settled and before the KeyboardInterrupt check below looks for it.
    let endedDuringRun = null as KernelDiedError | null;
    const noteEnd = (error: KernelDiedError) => (endedDuringRun ??= error);
    this.endedThereListeners.add(noteEnd);
    try {
      const result = await future.done;
      if (result.error?.ename === 'KeyboardInterrupt' && !result.interrupted && !result.timedOut && this.provisioner.endedFromElsewhere) {
        const ended = endedDuringRun ?? (await this.endedThereRightAfter(transport));
        if (ended) throw ended;
      }
      if (result.executionCount !== null && storeHistory) this.lastExecutionCount = result.executionCount;
      return result;
    } finally {
      this.endedThereListeners.delete(noteEnd);
      clearTimeout(timer);
      clearTimeout(watchdog);
      options.signal?.removeEventListener('abort', onAbort);
      transport.off('input', onInput);
      transport.abandon(msgId, new Error('finished'));
      if (this.running === future) this.running = null;
      if (this.stateValue === 'busy') this.setState('idle');
    }
  }

  private onOutputLost(incarnation: Incarnation, future: ExecutionFuture): void {
    if (future.hasOutput || future.isSettled) return;
    // Compared by transport: a provisioner may hand out a new Incarnation object per call for
    // the same connection, and a run whose output is lost must fail whichever it was.
    if (this.current?.transport === incarnation.transport) this.current = null;
    this.provisioner.outputLost(incarnation);
    future.fail(new ConnectionLostError(outputLostMessage(this.provisioner.place)));
  }

  /**
   * A KeyboardInterrupt nobody here asked for may be the first step of an end from the kernel's
   * side (a Jupyter server interrupts its kernels before it shuts or restarts them): when that
   * follows, it is what the caller is told. The wait ends on an event: that end, or the kernel
   * showing it goes on; a timer bounds it only for a kernel that shows neither.
   */
  private endedThereRightAfter(transport: KernelTransport): Promise<KernelDiedError | null> {
    const probes = new Set<string>();
    return new Promise((resolve) => {
      const done = (error: KernelDiedError | null) => {
        if (!this.endedThereListeners.delete(done)) return;
        clearTimeout(fallback);
        for (const msgId of probes) transport.abandon(msgId, new Error('no longer needed'));
        resolve(error);
      };
      this.endedThereListeners.add(done);
      // Referenced, unlike timers.ts's: the caller awaits this run, and the bound is short.
      const fallback = setTimeout(() => done(null), this.supervision.endedThereWaitMs ?? ENDED_THERE_WAIT_MS);
      void this.goesOn(transport, probes).then((on) => on && done(null));
    });
  }

  /**
   * Two kernel_info round trips on control. A server ending the kernel sent its shutdown_request
   * on control right after the interrupt, so before the interrupted run's reply reached us; a
   * kernel reads control messages one at a time and stops reading once it handles a shutdown. The
   * first probe may be read before a shutdown waiting beside it (ZeroMQ takes turns between
   * senders); the second, sent after the first's answer, cannot be. A fixed pause (0.5 s) was
   * too short on a loaded machine: the interrupted run was told KeyboardInterrupt instead of the
   * server's shutdown that followed.
   */
  private async goesOn(transport: KernelTransport, probes: Set<string>): Promise<boolean> {
    for (let round = 0; round < 2; round++) {
      if (!transport.isOpen) return false;
      let msgId: string | undefined;
      try {
        const sent = transport.request('control', 'kernel_info_request', {});
        msgId = sent.msgId;
        probes.add(msgId);
        await sent.reply;
      } catch {
        return false; // the connection went: what it means is told by its own event
      } finally {
        if (msgId !== undefined) {
          probes.delete(msgId);
          transport.abandon(msgId);
        }
      }
    }
    return true;
  }

  private tellEndedThere(error: KernelDiedError): void {
    for (const waiter of [...this.endedThereListeners]) waiter(error);
  }

  // ---- interrupt, restart, shutdown ----

  /** Interrupts the running execution; restarts the kernel (if ours) when it will not stop. */
  async interrupt(): Promise<{ restarted: boolean }> {
    const future = this.running;
    if (future) {
      future.markInterrupted();
      return this.interruptRun(future);
    }
    if (this.stateValue !== 'closed') await this.provisioner.interrupt(this.current);
    return { restarted: false };
  }

  private async interruptRun(future: ExecutionFuture): Promise<{ restarted: boolean }> {
    const grace = this.supervision.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
    // ipykernel ignores SIGINT until it has entered the request's handler, which it announces
    // with execute_input: an interrupt sent before that is lost, and the run would be escalated
    // to a restart (every variable lost) for want of an interrupt that arrived a moment too early.
    await settledWithin(future.begun, grace);
    const send = async (): Promise<Error | null> => {
      try {
        await this.provisioner.interrupt(this.current);
        return null;
      } catch (error) {
        return error as Error;
      }
    };
    let unreachable = await send();
    // A SIGINT that arrives after Python's last signal check but before a blocking call (a
    // sleep, a read) enters the kernel is noticed only when that call returns: CPython's race,
    // about one interrupt in 200 sent the moment a run starts. One more is sent, as a person
    // presses Ctrl-C twice, but only while the kernel shows no sign of the first: a second one
    // that lands while the first KeyboardInterrupt is being reported would spoil its traceback.
    if (await settledWithin(future.done, grace / 2)) return { restarted: false };
    if (!future.isSettled && !future.hasError) unreachable = await send();
    const stopped = await settledWithin(future.done, grace);
    if (stopped || future.isSettled) return { restarted: false };
    if (unreachable) {
      // The interrupt never reached the kernel, and a restart would not either: hand back what
      // was printed so far rather than keep the caller waiting on a run nobody can stop from here.
      future.finishWithoutReply();
      throw unreachable;
    }
    if (!this.owned) return { restarted: false };
    // It ignored the interrupt (a blocking C call, a SIGINT handler): restart to stop it.
    await this.restartNow(`the run did not stop within ${grace / 1000} s of an interrupt`);
    return { restarted: true };
  }

  /** Stops the current kernel and starts a fresh one; every variable is gone. */
  async restart(): Promise<{ lostNames: string[] }> {
    if (!this.owned) throw new KernelNotOursError(notOursMessage(this.provisioner.place));
    const lost = [...this.names.keys()];
    this.policy.reset();
    await this.restartNow('restart requested');
    return { lostNames: lost };
  }

  private async restartNow(reason: string): Promise<void> {
    const incarnation = this.current ?? (await this.usable());
    const running = this.running;
    running?.markRestarted([...this.names.keys()]);
    this.names = new Map();
    this.restarts++;
    this.current = null;
    this.setState('restarting');
    // Answer the run before stopping the kernel: closing the connection would otherwise fail it
    // with "the kernel was stopped", losing what it printed and its place in the session log.
    running?.finishWithoutReply();
    const next = this.provisioner.restart(incarnation);
    this.transition = next;
    next.catch(() => undefined);
    try {
      this.adopt(await next);
      this.lastExecutionCount = 0;
      this.emit('restarted', { cause: reason, lostNames: [] });
    } catch (error) {
      // The restart failed: a kernel still reachable takes calls again; otherwise the provisioner
      // says why (or reconnects and announces it).
      if (incarnation.transport.isOpen) this.adopt(incarnation);
      else this.setState('dead');
      throw error;
    } finally {
      if (this.transition === next) this.transition = null;
    }
  }

  /** Ends the kernel if we own it (else just disconnects). Idempotent. */
  async shutdown(): Promise<void> {
    if (this.stateValue === 'closed') return;
    const running = this.running;
    const incarnation = this.current ?? (await this.transition?.catch(() => null)) ?? null;
    this.setState('closed');
    this.stateValue = 'closed';
    this.gone = new KernelClosedError('The kernel was shut down.');
    running?.fail(new KernelClosedError('The kernel was shut down while this ran.'));
    this.current = null;
    this.unwatchForeign();
    await this.provisioner.shutdown(incarnation, !running);
  }

  // ---- other clients' cells ----

  /**
   * Watches the current connection's iopub for cells other clients run: messages no request of
   * ours claimed, under a parent from a session that is not one of ours (a late message of one of
   * our own requests is neither).
   */
  private watchForeign(transport: KernelTransport): void {
    if (this.watched?.transport === transport) return;
    this.unwatchForeign();
    this.ownSessions.add(transport.session);
    const listener = (message: JupyterMessage, routed: boolean) => {
      if (routed) return;
      const session = message.parent_header.session;
      if (!session || this.ownSessions.has(session)) return;
      this.foreign.take(message);
    };
    transport.on('iopub', listener);
    this.watched = { transport, listener };
  }

  private unwatchForeign(): void {
    if (!this.watched) return;
    this.watched.transport.off('iopub', this.watched.listener);
    this.watched = null;
    this.foreign.flush();
  }

  private onForeignCell(cell: ForeignCell): void {
    if (cell.executionCount !== null && cell.executionCount > this.lastExecutionCount) this.lastExecutionCount = cell.executionCount;
    this.namesStaleValue = true;
    this.emit('foreign-cell', cell);
  }

  // ---- what the provisioner reports ----

  private onDied(death: KernelDeath): void {
    if (this.stateValue === 'closed') return;
    this.current = null;
    const lost = [...this.names.keys()];
    this.names = new Map();
    const recovery = death.recovery;
    const replace = recovery === 'supervisor' && this.owned && (this.supervision.autoRestart ?? true);
    const givesUp = replace && !this.policy.shouldReplace(this.startedAtValue ?? null);
    const lines = death.lastLines.slice(-8);
    const next = givesUp
      ? `It died ${this.policy.count} times within ${Math.round(this.policy.stableMs / 1000)} s of starting, so it is not being replaced; what it printed last says why. Start it again by hand once that is fixed.`
      : (death.nextStep ??
        (replace
          ? 'A fresh kernel has been started; run the code that defined anything you still need.'
          : recovery === 'provisioner'
            ? 'Run the code that defined anything you still need.'
            : 'This kernel is not ours to restart; connect again or start a new one.'));
    const message = [
      death.headline ?? `The Python kernel died: ${death.what}.`,
      lines.length ? `Its last output:\n${lines.map((l) => `  ${l}`).join('\n')}` : '',
      lostLine(lost),
      next,
    ]
      .filter(Boolean)
      .join('\n');
    const error = givesUp
      ? new KernelGaveUpError(message, death.exit, lost, lines)
      : new KernelDiedError(message, death.exit, lost, (replace && !givesUp) || recovery === 'provisioner', recovery === 'provisioner' ? 'coming-back' : undefined);
    this.running?.fail(error);
    this.tellEndedThere(error);
    this.logger.write('warn', `kernel ${this.id} died: ${death.what}`);
    if (replace && !givesUp) {
      this.emit('died', error);
      this.replace(error);
    } else if (recovery === 'provisioner') {
      this.restarts++;
      this.pendingRecovery = { cause: death.cause ?? death.what, lostNames: lost };
      this.setState('restarting');
      this.emit('died', error);
    } else {
      this.gone = error;
      this.setState('dead');
      this.emit('died', error);
    }
  }

  private replace(cause: KernelDiedError): void {
    this.restarts++;
    this.setState('restarting');
    const next = this.provisioner.start();
    this.transition = next;
    next.then(
      (incarnation) => {
        if (this.transition === next) this.transition = null;
        if (this.stateValue === 'closed') return;
        this.adopt(incarnation);
        this.lastExecutionCount = 0;
        this.emit('restarted', { cause: cause.message, lostNames: cause.lostNames });
      },
      (error: Error) => {
        if (this.transition === next) this.transition = null;
        this.logger.write('error', `replacing kernel ${this.id} failed: ${reasonOf(error)}`);
        // The next call is told why the kernel could not be started again.
        if (this.stateValue !== 'closed') this.gone = error;
        this.setState('dead');
      },
    );
  }

  private onDisconnected(account: string): void {
    if (this.stateValue === 'closed') return;
    this.current = null;
    const error = new ConnectionLostError(account);
    this.running?.fail(error);
    this.tellEndedThere(error);
    this.logger.write('warn', `kernel ${this.id} disconnected`);
  }

  private onRunEndedThere(headline: string, nextStep: string): void {
    const lost = [...this.names.keys()];
    const error = new KernelDiedError([headline, lostLine(lost), nextStep].join('\n'), null, lost, false);
    const running = this.running;
    if (running && !running.isSettled) running.fail(error);
    this.tellEndedThere(error);
  }

  private onConnected(incarnation: Incarnation, fresh: boolean): void {
    if (this.stateValue === 'closed') return;
    this.adopt(incarnation);
    const recovered = this.pendingRecovery;
    this.pendingRecovery = null;
    if (fresh) this.lastExecutionCount = 0;
    if (recovered) this.emit('restarted', recovered);
  }
}
