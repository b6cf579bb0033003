/**
 * A kernel on a Jupyter server (Jupyter Server, a JupyterHub user server, Enterprise Gateway),
 * behind the same SessionKernel interface as a local one: runs go one at a time in the order
 * asked and collect their output with the same Execution; interrupt, restart and shutdown go
 * through the server's REST API; the log, figures, timeouts and progress come from the Session.
 *
 * What differs is the network between us and the kernel, and that is what this class is about:
 * - A dropped connection fails the run in flight at once, with what happened and what it means
 *   (the code may still be running there; the variables are kept), instead of leaving it to hang.
 *   Then the connection is re-established in the background with backoff, for as long as the
 *   session exists; a call made meanwhile waits a little, then fails saying why.
 * - When the server no longer has the kernel (the server was restarted), a kernel we started is
 *   replaced by a fresh one of the same kernelspec, reported like a local crash with the names
 *   lost; an attached kernel is reported gone.
 * - When the kernel process dies on the server, the server restarts it; its "restarting" status
 *   is reported the same way.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { namesExpressions, readUserNames } from '../kernel/user-names.js';
import { Execution, type OutputLimits } from '../kernel/execution.js';
import { KernelClosedError, KernelDiedError, type ExecuteOptions, type KernelState } from '../kernel/kernel.js';
import type { KernelInfo } from '../kernel/kernel-client.js';
import type { ExecutionResult } from '../kernel/outputs.js';
import type { SessionKernel } from '../kernel/session-kernel.js';
import { pythonHelpersDir } from '../package-root.js';
import type { JupyterMessage } from '../wire/index.js';
import { backoffDelay, cancellableDelay, type BackoffOptions } from './backoff.js';
import { DEFAULT_START_TIMEOUT_MS, JupyterApi, RemoteServerError, type JupyterApiOptions } from './jupyter-api.js';
import { KernelChannel, type ChannelOptions } from './kernel-channel.js';
import type { RemoteServer } from './server-registry.js';

export interface RemoteKernelOptions extends JupyterApiOptions, ChannelOptions {
  /** How long an interrupted run may take to stop before a kernel we started is restarted. */
  interruptGraceMs?: number;
  outputLimits?: OutputLimits;
  /** How long a call waits for a dropped connection to come back before it fails (default 10 s). */
  reconnectWaitMs?: number;
  backoff?: BackoffOptions;
  /** Looks the server up again before each reconnection, so a token changed meanwhile is used. */
  refreshServer?: () => RemoteServer | undefined;
  /** KERNEL_* variables for Enterprise Gateway's launch (see JupyterApi.startKernel). */
  kernelEnv?: Record<string, string>;
}

export type ConnectionState = 'connected' | 'reconnecting' | 'gone' | 'closed';

export interface ConnectionStatus {
  state: ConnectionState;
  /** Epoch ms of the last change. */
  since: number;
  /** Why it dropped, for 'reconnecting' and 'gone'. */
  reason?: string;
  attempts: number;
  lastError?: string;
  nextAttemptAt?: number;
}

/** The connection dropped while a call ran: nothing is known about how the run ended. */
export class RemoteConnectionLostError extends KernelDiedError {
  constructor(message: string) {
    super(message, null, [], false);
  }
}


let startupSource: string | undefined;

/**
 * resources/python/kernel_startup.py, which a local kernel runs at launch: print order kept
 * between stdout and stderr, and the last figure kept for save_figure. A kernel we start on a
 * server runs it as its first (silent) request; its local-only parts (the lifeline, the memory
 * cap) find no settings there and do nothing.
 */
function kernelStartupCode(): string {
  startupSource ??= readFileSync(join(pythonHelpersDir(), 'kernel_startup.py'), 'utf8');
  return `exec(compile(${JSON.stringify(startupSource)}, '<python-session-startup>', 'exec'), {'__name__': 'python_session_startup'})`;
}

/** Waiters for "usable again", released together; a permanent failure rejects them all. */
class Gate {
  private opened = false;
  private failure: Error | null = null;
  private readonly waiters = new Set<{ resolve: () => void; reject: (e: Error) => void }>();

  open(): void {
    this.opened = true;
    this.failure = null;
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
  }

  shut(): void {
    this.opened = false;
  }

  fail(error: Error): void {
    this.opened = false;
    this.failure = error;
    for (const w of this.waiters) w.reject(error);
    this.waiters.clear();
  }

  get isOpen(): boolean {
    return this.opened;
  }

  wait(ms: number, onTimeout: () => Error): Promise<void> {
    if (this.opened) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(onTimeout());
      }, ms);
      const waiter = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e: Error) => (clearTimeout(timer), reject(e)),
      };
      this.waiters.add(waiter);
    });
  }
}

export class RemoteKernel extends EventEmitter implements SessionKernel {
  readonly helperTransport = 'inline-source' as const;
  readonly pid = undefined;
  private api: JupyterApi;
  private kernelIdValue: string;
  private channel: KernelChannel | null = null;
  private readonly gate = new Gate();
  private stateValue: KernelState = 'starting';
  private connectionValue: ConnectionStatus = { state: 'connected', since: Date.now(), attempts: 0 };
  private queue: Promise<unknown> = Promise.resolve();
  private running: Execution | null = null;
  private names: string[] = [];
  private restarts = 0;
  private lastExecutionCount = 0;
  private info: KernelInfo | undefined;
  private started: number | undefined;
  private ownRestart = false;
  private reconnecting: Promise<void> | null = null;
  private backoffTimer: { cancel: () => void } | null = null;
  /** Set between reporting a lost or restarted kernel process and being connected to the new one, so it is reported once. */
  private pendingRestart: { cause: string; lostNames: string[] } | null = null;

  private constructor(
    private server: RemoteServer,
    kernelId: string,
    private kernelNameValue: string,
    readonly owned: boolean,
    private readonly path: string | undefined,
    private readonly options: RemoteKernelOptions,
  ) {
    super();
    this.api = new JupyterApi(server, options);
    this.kernelIdValue = kernelId;
  }

  /** Starts a kernel on the server (its default kernelspec unless one is named) and waits until it answers. */
  static async start(server: RemoteServer, target: { kernelName?: string; path?: string } = {}, options: RemoteKernelOptions = {}): Promise<RemoteKernel> {
    const api = new JupyterApi(server, options);
    await checkKernelSpec(api, target.kernelName);
    const model = await api.startKernel(target.kernelName, target.path, options.kernelEnv);
    const kernel = new RemoteKernel(server, model.id, model.name, true, target.path, options);
    try {
      await kernel.connectChannel();
      await kernel.prepareProcess();
    } catch (error) {
      await api.shutdown(model.id).catch(() => undefined); // do not leave a kernel nobody will use
      throw error;
    }
    kernel.started = Date.now();
    kernel.becomeUsable();
    return kernel;
  }

  /** Attaches to a kernel already running on the server; shutting down only detaches. */
  static async attach(server: RemoteServer, kernelId: string, options: RemoteKernelOptions = {}): Promise<RemoteKernel> {
    const api = new JupyterApi(server, options);
    const model = await api.kernel(kernelId);
    if (!model) {
      const running = await api.kernels().catch(() => []);
      throw new RemoteServerError(
        `No kernel with id "${kernelId}" on ${server.label}. ${
          running.length ? `Running there: ${running.map((k) => `${k.id} (${k.name}, ${k.execution_state ?? '?'})`).join('; ')}.` : 'No kernels are running there.'
        }`,
        'not-found',
        404,
      );
    }
    const kernel = new RemoteKernel(server, model.id, model.name, false, undefined, options);
    await kernel.connectChannel();
    const language = kernel.info?.language_info?.name;
    if (language && language.toLowerCase() !== 'python') {
      kernel.channel?.close('not a Python kernel');
      throw new RemoteServerError(`Kernel ${kernelId} on ${server.label} runs ${language}, not Python; Python Session works with Python kernels only.`, 'unsupported');
    }
    kernel.started = Date.now();
    kernel.becomeUsable();
    return kernel;
  }

  get location(): string {
    return this.server.label;
  }

  get serverName(): string {
    return this.server.name;
  }

  get serverUrl(): string {
    return this.server.url;
  }

  get kernelId(): string {
    return this.kernelIdValue;
  }

  get kernelName(): string {
    return this.kernelNameValue;
  }

  /** "<server>:<kernel id>", what connect_to_kernel takes to attach to this kernel again. */
  get connectionFile(): string {
    return `${this.server.name}:${this.kernelIdValue}`;
  }

  get connection(): ConnectionStatus {
    return { ...this.connectionValue };
  }

  get state(): KernelState {
    return this.stateValue;
  }

  get kernelInfo(): KernelInfo | undefined {
    return this.info;
  }

  get startedAt(): number | undefined {
    return this.started;
  }

  get knownNames(): readonly string[] {
    return this.names;
  }

  get restartCount(): number {
    return this.restarts;
  }

  get executionCount(): number {
    return this.lastExecutionCount;
  }

  /** The kernel's own output goes to the server's log, which we cannot see. */
  get logLines(): string[] {
    return [];
  }

  /** A getter, so checks after an await are not narrowed away by the compiler. */
  private get closed(): boolean {
    return this.stateValue === 'closed';
  }

  private setState(state: KernelState): void {
    if (this.stateValue === state || this.stateValue === 'closed') return;
    this.stateValue = state;
    this.emit('state', state);
  }

  private setConnection(update: Partial<ConnectionStatus> & { state: ConnectionState }): void {
    const changed = update.state !== this.connectionValue.state;
    this.connectionValue = changed ? { since: Date.now(), attempts: 0, ...update } : { ...this.connectionValue, ...update };
    if (changed) this.emit('connection', this.connection);
  }

  // ---- runs ----

  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    const run = this.queue.then(() => this.executeNow(code, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async executeNow(code: string, options: ExecuteOptions): Promise<ExecutionResult> {
    if (options.signal?.aborted) throw new Error('Cancelled before it started.');
    const channel = await this.usable();
    const storeHistory = options.storeHistory ?? true;
    const execution = new Execution('', { ...this.options.outputLimits, ...options.limits }, options.onOutput);
    this.running = execution;
    this.setState('busy');
    options.onStart?.();
    let sawIopub = false;
    let silentIopub: NodeJS.Timeout | undefined;
    const { msgId, reply } = channel.request(
      'shell',
      'execute_request',
      {
        code,
        silent: options.silent ?? false,
        store_history: storeHistory,
        user_expressions: namesExpressions(storeHistory),
        allow_stdin: false,
        stop_on_error: false,
      },
      (id) =>
        channel.onParent(id, (message) => {
          sawIopub = true;
          execution.handleIopub(message);
        }),
    );
    (execution as { msgId: string }).msgId = msgId;
    reply.then(
      (message) => {
        this.readNames(message);
        execution.handleReply(message);
        // Every request is bracketed by busy and idle on iopub. A reply with none of its output
        // after this long means the server stopped relaying the kernel's output: waiting on
        // would be forever.
        if (!sawIopub) silentIopub = setTimeout(() => !sawIopub && this.onOutputLost(channel, execution), 5000);
      },
      (error: Error) => execution.fail(error),
    );

    let timer: NodeJS.Timeout | undefined;
    if (options.timeoutMs && options.timeoutMs > 0) {
      timer = setTimeout(() => {
        execution.timedOut = true;
        void this.interruptExecution(execution).catch(() => undefined);
      }, options.timeoutMs);
    }
    const onAbort = () => {
      execution.interrupted = true;
      void this.interruptExecution(execution).catch(() => undefined);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await execution.done;
      if (result.error?.ename === 'KeyboardInterrupt' && !result.interrupted && !result.timedOut) {
        const lost = await this.lostRightAfter();
        if (lost) throw lost;
      }
      if (result.executionCount !== null && storeHistory) this.lastExecutionCount = result.executionCount;
      return result;
    } finally {
      clearTimeout(timer);
      clearTimeout(silentIopub);
      options.signal?.removeEventListener('abort', onAbort);
      channel.abandon(msgId);
      if (this.running === execution) this.running = null;
      if (this.stateValue === 'busy') this.setState('idle');
    }
  }

  /**
   * A KeyboardInterrupt nobody here asked for may be the first step of a shutdown: Jupyter
   * interrupts a kernel before shutting it down (the server stopping, or someone shutting the
   * kernel down there). If the shutdown or the drop follows within moments, that is what the
   * caller is told, not "KeyboardInterrupt".
   */
  private lostRightAfter(): Promise<KernelDiedError | null> {
    return new Promise((resolve) => {
      const done = (error: KernelDiedError | null) => {
        clearTimeout(timer);
        this.off('lost-during-run', done);
        resolve(error);
      };
      const timer = setTimeout(() => done(null), 500);
      this.on('lost-during-run', done);
    });
  }

  private readNames(message: JupyterMessage): void {
    this.names = readUserNames(message.content) ?? this.names;
  }

  /** The channel once the kernel can take a request; waits a bounded time, then says why not. */
  private async usable(): Promise<KernelChannel> {
    if (this.stateValue === 'closed') throw new KernelClosedError('The kernel was shut down.');
    const waitMs = this.stateValue === 'restarting' ? (this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) : (this.options.reconnectWaitMs ?? 10_000);
    await this.gate.wait(waitMs, () => this.unavailableError());
    if (!this.channel) throw this.unavailableError();
    return this.channel;
  }

  private unavailableError(): Error {
    const c = this.connectionValue;
    if (c.state === 'reconnecting') {
      const next = c.nextAttemptAt ? Math.max(0, Math.round((c.nextAttemptAt - Date.now()) / 1000)) : 0;
      return new Error(
        `Nothing was run: the connection to the Jupyter server ${this.server.label} has been down since ${clock(c.since)} (${c.reason ?? 'dropped'}). ` +
          `Python Session keeps reconnecting (${c.attempts} attempt${c.attempts === 1 ? '' : 's'} so far${c.lastError ? `; last: ${c.lastError}` : ''}${next ? `; next in ${next} s` : ''}). ` +
          'Try again shortly, or check that the server is up.',
      );
    }
    if (this.stateValue === 'restarting') return new Error(`Nothing was run: the kernel on ${this.server.label} is still restarting. Try again shortly.`);
    return new Error(`Nothing was run: the kernel on ${this.server.label} is not available (${this.stateValue}).`);
  }

  // ---- interrupt, restart, shutdown ----

  /** Interrupts the running call (the server signals the kernel as its kernelspec says). */
  async interrupt(): Promise<{ restarted: boolean }> {
    const execution = this.running;
    if (execution) {
      execution.interrupted = true;
      return this.interruptExecution(execution);
    }
    if (this.stateValue !== 'closed') await this.api.interrupt(this.kernelIdValue);
    return { restarted: false };
  }

  private async interruptExecution(execution: Execution): Promise<{ restarted: boolean }> {
    let unreachable: Error | null = null;
    try {
      await this.api.interrupt(this.kernelIdValue);
    } catch (error) {
      unreachable = error as Error;
    }
    const grace = this.options.interruptGraceMs ?? 5000;
    const wait = cancellableDelay(grace);
    const stopped = await Promise.race([execution.done.then(() => true, () => true), wait.done.then(() => false)]);
    wait.cancel();
    if (stopped || execution.isSettled) return { restarted: false };
    if (unreachable) {
      // The interrupt never reached the server, and a restart would not either: hand back what
      // was printed so far rather than keep the caller waiting on a run nobody can stop from here.
      execution.finishWithoutReply();
      throw unreachable;
    }
    if (!this.owned) return { restarted: false };
    // It ignored the interrupt (a blocking C call, a SIGINT handler): restart to stop it.
    execution.restarted = true;
    await this.restartNow(`the run did not stop within ${grace / 1000} s of an interrupt`);
    return { restarted: true };
  }

  async restart(): Promise<{ lostNames: string[] }> {
    if (!this.owned) throw new Error(`This kernel was started elsewhere (kernel ${this.kernelIdValue} on ${this.server.label}); restart it there, or start a new kernel here.`);
    const lost = [...this.names];
    if (this.running) this.running.restarted = true;
    await this.restartNow('restart requested');
    return { lostNames: lost };
  }

  private async restartNow(reason: string): Promise<void> {
    const channel = this.channel && this.gate.isOpen ? this.channel : await this.usable();
    const running = this.running;
    this.ownRestart = true;
    this.gate.shut();
    this.setState('restarting');
    let restartedThere = false;
    try {
      await this.api.restart(this.kernelIdValue);
      restartedThere = true;
      this.names = [];
      this.restarts++;
      running?.finishWithoutReply();
      try {
        this.info = await this.handshake(channel);
      } catch (error) {
        if (!(error instanceof RemoteServerError && error.kind === 'server')) throw error;
        // The old WebSocket lost the new process's output: a fresh one is wired to it.
        this.channel = null;
        channel.close('the restarted kernel did not reach this connection');
        await this.connectChannel();
      }
      await this.prepareProcess();
      this.started = Date.now();
      this.lastExecutionCount = 0;
      this.becomeUsable();
      this.emit('restarted', { cause: reason, lostNames: [] });
    } catch (error) {
      // The restart request failed (or the connection went during it, which the drop handling
      // takes over): reopen to callers if the old kernel is still reachable.
      if (this.channel === channel && channel.isOpen) this.becomeUsable();
      else if (!this.channel && !this.closed) {
        if (restartedThere) this.pendingRestart = { cause: reason, lostNames: [] };
        this.startReconnecting({ state: 'reconnecting', reason: 'reconnecting to the restarted kernel' });
      }
      throw error;
    } finally {
      this.ownRestart = false;
    }
  }

  /** Ends a kernel we started (just disconnects from an attached one). Idempotent. */
  async shutdown(): Promise<void> {
    if (this.stateValue === 'closed') return;
    const running = this.running;
    const channel = this.channel;
    this.setState('closed');
    this.stateValue = 'closed';
    this.setConnection({ state: 'closed' });
    this.backoffTimer?.cancel();
    this.gate.fail(new KernelClosedError('The kernel was shut down.'));
    running?.fail(new KernelClosedError('The kernel was shut down while this ran.'));
    this.channel = null;
    channel?.close('shut down');
    if (this.owned) {
      // Best effort and bounded: a server that is down cannot stop its kernel, and the
      // session must still end here. Its kernel then ends with the server (or its culler).
      const wait = cancellableDelay(5000);
      await Promise.race([this.api.shutdown(this.kernelIdValue).catch((error: Error) => this.emit('shutdown-failed', error)), wait.done]);
      wait.cancel();
    }
    this.emit('closed');
  }

  // ---- the connection ----

  /** Opens a WebSocket to the current kernel id and waits until the kernel answers on it. */
  private async connectChannel(): Promise<void> {
    const channel = await KernelChannel.open(this.api, this.kernelIdValue, randomUUID(), this.options);
    try {
      this.info = await this.handshake(channel);
    } catch (error) {
      channel.close('handshake failed');
      throw error;
    }
    if (this.closed) {
      channel.close('shut down');
      throw new KernelClosedError('The kernel was shut down.');
    }
    this.channel = channel;
    channel.on('iopub', (message: JupyterMessage, routed: boolean) => this.onIopub(channel, message, routed));
    channel.on('dropped', (reason: string) => this.onDropped(channel, reason));
  }

  /**
   * kernel_info_request until one is answered and its status has come back on iopub: the kernel
   * may still be starting (the server returns from a start or restart before the new process
   * listens, and a request sent too early is lost), and a reply alone does not prove that output
   * will reach us (Jupyter Server 1.23 can keep relaying replies but no output from a kernel it
   * restarted on new ports). Runs would wait for output that never comes; this fails instead.
   */
  private async handshake(channel: KernelChannel): Promise<KernelInfo> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const ids: string[] = [];
    let info: KernelInfo | null = null;
    let sawIopub = false;
    let repliedAt = 0;
    let interval = 500;
    try {
      while (!(info && sawIopub)) {
        const { msgId, reply } = channel.request('shell', 'kernel_info_request', {}, (id) => {
          ids.push(id);
          channel.onParent(id, () => (sawIopub = true));
        });
        const wait = cancellableDelay(interval);
        const got = await Promise.race([reply, wait.done.then(() => null)]);
        wait.cancel();
        if (got && !info) {
          info = got.content as KernelInfo;
          repliedAt = Date.now();
        }
        if (!got) channel.abandon(msgId);
        if (info && !sawIopub && Date.now() - repliedAt > 5000) {
          throw new RemoteServerError(`The Jupyter server ${this.server.label} relays kernel ${this.kernelIdValue}'s replies but not its output.`, 'server');
        }
        if (Date.now() > deadline) {
          throw new RemoteServerError(`Kernel ${this.kernelIdValue} on ${this.server.label} did not answer within ${Math.round(timeoutMs / 1000)} s of connecting.`, 'timeout');
        }
        if (info && !sawIopub) await cancellableDelay(100).done;
        interval = Math.min(interval * 2, 2000);
      }
      return info;
    } finally {
      for (const id of ids) channel.abandon(id);
    }
  }

  /** Runs the startup code in a new process of a kernel we started (best effort: the kernel works without it). */
  private async prepareProcess(): Promise<void> {
    const channel = this.channel;
    if (!this.owned || !channel) return;
    const { msgId, reply } = channel.request('shell', 'execute_request', {
      code: kernelStartupCode(),
      silent: true,
      store_history: false,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: false,
    });
    const wait = cancellableDelay(10_000);
    await Promise.race([reply.catch(() => undefined), wait.done]);
    wait.cancel();
    channel.abandon(msgId);
  }

  private becomeUsable(): void {
    this.setConnection({ state: 'connected' });
    this.gate.open();
    this.setState(this.running ? 'busy' : 'idle');
  }

  private onIopub(channel: KernelChannel, message: JupyterMessage, routed: boolean): void {
    if (channel !== this.channel) return;
    if (message.header.msg_type === 'status' && !routed) {
      const status = String(message.content.execution_state ?? '');
      // The server's restarter announces a kernel process that died; our own restart is expected.
      if ((status === 'restarting' || status === 'autorestarting' || status === 'dead') && !this.ownRestart) this.onKernelDiedThere(channel, status);
    }
    // The server broadcasts the reply to a shutdown it sent: it is stopping (it first interrupts
    // the kernel, which would otherwise read as a KeyboardInterrupt nobody asked for), or someone
    // shut this kernel down there.
    if (message.header.msg_type === 'shutdown_reply' && !routed && message.content.restart === false && !this.ownRestart) this.onShutdownThere();
  }

  private onKernelDiedThere(channel: KernelChannel, status: string): void {
    if (this.stateValue === 'restarting' || this.stateValue === 'closed') return; // already being handled
    this.gate.shut();
    if (status === 'dead') {
      // The server gave up restarting it: the same as a kernel the server lost, which the
      // reconnection finds out and reports (replacing a kernel we started).
      this.channel = null;
      channel.close('the kernel is dead');
      this.startReconnecting({ state: 'reconnecting', reason: 'the kernel died on the server and was not restarted' });
      return;
    }
    const lost = [...this.names];
    this.names = [];
    this.restarts++;
    const error = new KernelDiedError(
      [
        `The Python kernel on ${this.server.label} died (its process exited) and the server restarted it.`,
        lost.length ? `Lost with it: ${lost.join(', ')}.` : 'No variables were lost.',
        'Run the code that defined anything you still need.',
      ].join('\n'),
      null,
      lost,
      true,
    );
    this.running?.fail(error);
    this.setState('restarting');
    this.emit('died', error);
    // The restarted process may listen on new ports, and a WebSocket opened before the restart
    // can stay wired to the old ones (seen with Jupyter Server 1.23: replies come back, output
    // never does). A fresh connection is wired to the new process; the reconnection does that,
    // and reports the restart once it is connected.
    this.pendingRestart = { cause: 'the kernel died on the server and the server restarted it', lostNames: lost };
    this.channel = null;
    channel.close('the server restarted the kernel');
    this.startReconnecting({ state: 'reconnecting', reason: 'reconnecting to the kernel the server restarted' });
  }

  private onShutdownThere(): void {
    const error = new KernelDiedError(
      [
        `The kernel on ${this.server.label} was shut down from the server's side while this ran (the server is stopping, or someone shut this kernel down there).`,
        this.names.length ? `Lost with it: ${this.names.join(', ')}.` : 'No variables were lost.',
        this.owned ? 'Python Session will start a fresh kernel there as soon as the server answers.' : 'It was not started by Python Session, so it is not ours to replace.',
      ].join('\n'),
      null,
      [...this.names],
      false,
    );
    const running = this.running;
    if (running && !running.isSettled) running.fail(error);
    this.emit('lost-during-run', error);
  }

  private onOutputLost(channel: KernelChannel, execution: Execution): void {
    if (channel !== this.channel || execution.isSettled) return;
    this.channel = null;
    this.gate.shut();
    execution.fail(
      new RemoteConnectionLostError(
        `The Jupyter server ${this.server.label} stopped relaying the kernel's output: the code ran (its reply came) but what it printed or displayed did not arrive. ` +
          'Python Session is reconnecting; run it again if you need to see its output.',
      ),
    );
    channel.close('output stopped arriving');
    this.startReconnecting({ state: 'reconnecting', reason: "the server stopped relaying the kernel's output" });
  }

  private onDropped(channel: KernelChannel, reason: string): void {
    if (channel !== this.channel || this.stateValue === 'closed') return;
    this.channel = null;
    this.gate.shut();
    const error = new RemoteConnectionLostError(
      `The connection to the Jupyter server ${this.server.label} dropped while this ran (${reason}). ` +
        'The code may still be running there, and the kernel keeps its variables; Python Session is reconnecting. ' +
        'Check with kernel_status, then run again only what did not finish.',
    );
    this.running?.fail(error);
    this.emit('lost-during-run', error);
    this.startReconnecting({ state: 'reconnecting', reason });
  }

  private startReconnecting(status: { state: 'reconnecting'; reason: string }): void {
    this.setConnection(status);
    if (this.reconnecting) return;
    this.reconnecting = this.reconnectLoop()
      .catch((error: Error) => void this.emit('reconnect-error', error)) // never an unhandled rejection in the daemon
      .finally(() => (this.reconnecting = null));
  }

  private async reconnectLoop(): Promise<void> {
    for (let attempt = 1; this.stateValue !== 'closed'; attempt++) {
      const waitMs = backoffDelay(attempt, this.options.backoff);
      this.setConnection({ state: 'reconnecting', nextAttemptAt: Date.now() + waitMs });
      const wait = cancellableDelay(waitMs);
      this.backoffTimer = wait;
      await wait.done;
      this.backoffTimer = null;
      if (this.closed) return;
      this.refreshServer();
      try {
        const model = await this.api.kernel(this.kernelIdValue);
        if (!model || model.execution_state === 'dead') {
          if (!this.owned) return this.attachedKernelGone();
          await this.replaceLostKernel();
        } else {
          await this.connectChannel();
        }
        await this.afterReconnect();
        return;
      } catch (error) {
        if (this.closed) return;
        this.setConnection({ state: 'reconnecting', attempts: attempt, lastError: (error as Error).message, nextAttemptAt: undefined });
      }
    }
  }

  private async afterReconnect(): Promise<void> {
    const replaced = this.pendingRestart;
    this.pendingRestart = null;
    if (replaced) {
      await this.prepareProcess();
      this.started = Date.now();
      this.lastExecutionCount = 0;
    }
    this.becomeUsable();
    this.emit('reconnected', this.connection);
    if (replaced) this.emit('restarted', replaced);
  }

  /** A kernel we started is gone from the server: say so once, then start its like there. */
  private async replaceLostKernel(): Promise<void> {
    if (!this.pendingRestart) {
      const lost = [...this.names];
      this.names = [];
      this.restarts++;
      this.setState('restarting');
      const error = this.lostError(lost, `is gone: the server no longer has kernel ${this.kernelIdValue} (the server was restarted, or the kernel died there)`);
      this.pendingRestart = { cause: `the server lost kernel ${this.kernelIdValue}; a fresh one was started`, lostNames: lost };
      this.running?.fail(error);
      this.emit('died', error);
    }
    await this.api.shutdown(this.kernelIdValue); // a dead kernel the server still lists; a gone one is no error
    const model = await this.api.startKernel(this.kernelNameValue, this.path, this.options.kernelEnv);
    this.kernelIdValue = model.id;
    this.kernelNameValue = model.name;
    await this.connectChannel();
  }

  private attachedKernelGone(): void {
    const lost = [...this.names];
    this.names = [];
    const error = this.lostError(lost, `is gone: the server no longer has kernel ${this.kernelIdValue} (the server was restarted, or the kernel died or was shut down there)`);
    this.setConnection({ state: 'gone', reason: 'the server no longer has this kernel' });
    this.running?.fail(error);
    this.setState('dead');
    this.gate.fail(error);
    this.emit('died', error);
  }

  private lostError(lost: string[], what: string): KernelDiedError {
    const next = this.owned
      ? `Python Session is starting a fresh kernel on ${this.server.name}; run the code that defined anything you still need.`
      : `It was not started by Python Session, so it is not ours to replace: attach to another with connect_to_kernel(connection_file="${this.server.name}:<kernel id>"), or start one with start_kernel(server="${this.server.name}").`;
    return new KernelDiedError(
      [`The kernel on ${this.server.label} ${what}.`, lost.length ? `Lost with it: ${lost.join(', ')}.` : 'No variables were lost.', next].join('\n'),
      null,
      lost,
      this.owned,
    );
  }

  private refreshServer(): void {
    let fresh: RemoteServer | undefined;
    try {
      fresh = this.options.refreshServer?.();
    } catch {
      return; // an unreadable server list: keep what we have
    }
    if (fresh && fresh.url === this.server.url) {
      this.server = fresh;
      this.api = new JupyterApi(fresh, this.options);
    }
  }
}

/**
 * A kernelspec the server does not have, or one for another language (the server's default may
 * be R or Julia), fails before anything starts, listing the ones it has.
 */
async function checkKernelSpec(api: JupyterApi, name: string | undefined): Promise<void> {
  const { defaultName, specs } = await api.kernelSpecs();
  const wanted = name ?? defaultName;
  const spec = specs.find((s) => s.name === wanted);
  const listing = specs.length ? `It has: ${specs.map((s) => `${s.name} (${s.displayName}, ${s.language})`).join(', ')}.` : 'It lists none.';
  if (!spec) {
    if (!name) return; // no default named: the server picks, and the kernel_info check below still applies
    throw new RemoteServerError(`The Jupyter server ${api.server.label} has no kernelspec "${name}". ${listing}`, 'not-found', 404);
  }
  if (spec.language.toLowerCase() !== 'python') {
    throw new RemoteServerError(
      `Kernelspec "${spec.name}" on ${api.server.label} runs ${spec.language}, not Python; Python Session works with Python kernels only. Choose one with kernel_name. ${listing}`,
      'unsupported',
      400,
    );
  }
}

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}
