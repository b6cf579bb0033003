/**
 * A kernel on a Jupyter server (Jupyter Server, a JupyterHub user server, Enterprise Gateway) as a
 * provisioner: the server's REST API, and its WebSocket (a KernelChannel) as the transport. The
 * network between us and the kernel is this provisioner's concern:
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
import { KernelClosedError, KernelUnavailableError } from '../kernel/supervision/kernel-errors.js';
import { reasonOf, silentLogger, type EngineLogger } from '../kernel/logger.js';
import type { ConnectionState, ConnectionStatus, Incarnation, KernelDeath, KernelPlace, KernelProvisioner, ProvisionerEvents } from '../kernel/supervision/provisioner.js';
import { awaitReady, ReadinessError } from '../kernel/messaging/readiness.js';
import type { KernelInfo } from '../kernel/messaging/transport.js';
import { delay, settledWithin, type Delay } from '../timers.js';
import type { JupyterMessage } from '../wire/index.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import { Gate } from './gate.js';
import { DEFAULT_START_TIMEOUT_MS, JupyterApi, RemoteServerError, type JupyterApiOptions } from './jupyter-api.js';
import { KernelChannel, type ChannelOptions } from './kernel-channel.js';
import { checkKernelSpec } from './kernelspecs.js';
import { kernelStartupCode } from './startup-code.js';
import type { RemoteServer } from './server-registry.js';

export interface RemoteProvisionerOptions extends JupyterApiOptions, ChannelOptions {
  /** How long a call waits for a dropped connection to come back before it fails (default 10 s). */
  reconnectWaitMs?: number;
  backoff?: BackoffOptions;
  /** Looks the server up again before each reconnection, so a token changed meanwhile is used. */
  refreshServer?: () => RemoteServer | undefined;
  /** KERNEL_* variables for Enterprise Gateway's launch (see JupyterApi.startKernel). */
  kernelEnv?: Record<string, string>;
  logger?: EngineLogger;
}

type Phase = 'starting' | 'ready' | 'restarting' | 'dead' | 'closed';

/** What we start, or the kernel we attach to. */
export type RemoteTarget = { kind: 'start'; kernelName?: string; path?: string } | { kind: 'attach'; kernelId: string };

/** The server's REST API as a provisioner, with the reconnection, backoff and server-side deaths of a network between. */
export class RemoteProvisioner extends EventEmitter<ProvisionerEvents> implements KernelProvisioner {
  readonly helperTransport = 'inline-source' as const;
  readonly endedFromElsewhere = true;
  readonly pid = undefined;
  private api: JupyterApi;
  private kernelIdValue = '';
  private kernelNameValue = '';
  private path: string | undefined;
  private channel: KernelChannel | null = null;
  private info: KernelInfo | undefined;
  private started = 0;
  private readonly gate = new Gate();
  private phase: Phase = 'starting';
  private connectionValue: ConnectionStatus = { state: 'connected', since: Date.now(), attempts: 0 };
  private ownRestart = false;
  private reconnecting: Promise<void> | null = null;
  private backoffTimer: Delay | null = null;
  /** The session of a kernel process restarted from the server's side, until a new one answers. */
  private goneSession: string | null = null;
  /** Set between a lost or restarted kernel process and being connected to the new one. */
  private freshPending = false;
  /** The kernel's process was shut down from the server's side; a reconnection that still finds the kernel finds a new process. */
  private processEndedThere = false;
  private readonly logger: EngineLogger;

  constructor(
    private server: RemoteServer,
    private readonly target: RemoteTarget,
    private readonly options: RemoteProvisionerOptions = {},
  ) {
    super();
    this.api = new JupyterApi(server, options);
    this.logger = options.logger ?? silentLogger;
    if (target.kind === 'start') this.path = target.path;
  }

  get owned(): boolean {
    return this.target.kind === 'start';
  }

  get place(): KernelPlace {
    return { kind: 'remote', serverName: this.server.name, serverUrl: this.server.url, kernelId: this.kernelIdValue, kernelName: this.kernelNameValue, connection: this.connection };
  }

  get kernelId(): string {
    return this.kernelIdValue;
  }

  get kernelName(): string {
    return this.kernelNameValue;
  }

  get serverUrl(): string {
    return this.server.url;
  }

  /** "<server>:<kernel id>", what attaching to this kernel again takes. */
  get connectionFile(): string {
    return `${this.server.name}:${this.kernelIdValue}`;
  }

  get connection(): ConnectionStatus {
    return { ...this.connectionValue };
  }

  /** The kernel's own output goes to the server's log, which we cannot see. */
  get logLines(): string[] {
    return [];
  }

  private get closed(): boolean {
    return this.phase === 'closed';
  }

  private incarnation(channel: KernelChannel): Incarnation {
    return { transport: channel, kernelInfo: this.info ?? {}, startedAt: this.started };
  }

  private setConnection(update: Partial<ConnectionStatus> & { state: ConnectionState }): void {
    const changed = update.state !== this.connectionValue.state;
    this.connectionValue = changed ? { since: Date.now(), attempts: 0, ...update } : { ...this.connectionValue, ...update };
    if (changed) this.logger.write('info', `kernel ${this.kernelIdValue} on ${this.server.label}: connection ${update.state}${update.reason ? ` (${update.reason})` : ''}`);
  }

  async start(): Promise<Incarnation> {
    return this.target.kind === 'start' ? this.startThere(this.target) : this.attachThere(this.target.kernelId);
  }

  /** Starts a kernel on the server (its default kernelspec unless one is named) and waits until it answers. */
  private async startThere(target: { kernelName?: string; path?: string }): Promise<Incarnation> {
    await checkKernelSpec(this.api, target.kernelName);
    const model = await this.api.startKernel(target.kernelName, target.path, this.options.kernelEnv);
    this.kernelIdValue = model.id;
    this.kernelNameValue = model.name;
    try {
      await this.connectChannel();
      await this.prepareProcess();
    } catch (error) {
      await this.api.shutdown(model.id).catch(() => undefined); // do not leave a kernel nobody will use
      throw error;
    }
    this.started = Date.now();
    return this.becomeUsable();
  }

  private async attachThere(kernelId: string): Promise<Incarnation> {
    const model = await this.api.kernel(kernelId);
    if (!model) {
      const running = await this.api.kernels().catch(() => []);
      throw new RemoteServerError(
        `No kernel with id "${kernelId}" on ${this.server.label}. ${
          running.length ? `Running there: ${running.map((k) => `${k.id} (${k.name}, ${k.execution_state ?? '?'})`).join('; ')}.` : 'No kernels are running there.'
        }`,
        'not-found',
        404,
      );
    }
    this.kernelIdValue = model.id;
    this.kernelNameValue = model.name;
    await this.connectChannel();
    const language = this.info?.language_info?.name;
    if (language && language.toLowerCase() !== 'python') {
      this.channel?.close('not a Python kernel');
      throw new RemoteServerError(`Kernel ${kernelId} on ${this.server.label} runs ${language}, not Python; Python Session works with Python kernels only.`, 'unsupported');
    }
    this.started = Date.now();
    return this.becomeUsable();
  }

  /** The channel once the kernel can take a request; waits a bounded time, then says why not. */
  async available(): Promise<Incarnation> {
    if (this.closed) throw new KernelClosedError('The kernel was shut down.');
    const waitMs = this.phase === 'restarting' ? (this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) : (this.options.reconnectWaitMs ?? 10_000);
    await this.gate.wait(waitMs, () => this.unavailableError());
    if (!this.channel) throw this.unavailableError();
    return this.incarnation(this.channel);
  }

  private unavailableError(): Error {
    const c = this.connectionValue;
    if (c.state === 'reconnecting') {
      const next = c.nextAttemptAt ? Math.max(0, Math.round((c.nextAttemptAt - Date.now()) / 1000)) : 0;
      return new KernelUnavailableError(
        `Nothing was run: the connection to the Jupyter server ${this.server.label} has been down since ${clock(c.since)} (${c.reason ?? 'dropped'}). ` +
          `Python Session keeps reconnecting (${c.attempts} attempt${c.attempts === 1 ? '' : 's'} so far${c.lastError ? `; last: ${c.lastError}` : ''}${next ? `; next in ${next} s` : ''}). ` +
          'Try again shortly, or check that the server is up.',
      );
    }
    if (this.phase === 'restarting') return new KernelUnavailableError(`Nothing was run: the kernel on ${this.server.label} is still restarting. Try again shortly.`);
    return new KernelUnavailableError(`Nothing was run: the kernel on ${this.server.label} is not available (${this.phase}).`);
  }

  /** The server signals the kernel as its kernelspec says. */
  async interrupt(): Promise<void> {
    if (!this.closed) await this.api.interrupt(this.kernelIdValue);
  }

  async restart(current: Incarnation | null): Promise<Incarnation> {
    const channel = (current?.transport as KernelChannel | undefined) ?? this.channel;
    if (!channel) throw this.unavailableError();
    this.ownRestart = true;
    this.gate.shut();
    this.phase = 'restarting';
    let restartedThere = false;
    try {
      await this.api.restart(this.kernelIdValue);
      restartedThere = true;
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
      return this.becomeUsable();
    } catch (error) {
      // The restart request failed (or the connection went during it, which the drop handling
      // takes over): reopen to callers if the old kernel is still reachable.
      if (this.channel === channel && channel.isOpen) this.becomeUsable();
      else if (!this.channel && !this.closed) {
        if (restartedThere) this.freshPending = true;
        this.startReconnecting('reconnecting to the restarted kernel');
      }
      throw error;
    } finally {
      this.ownRestart = false;
    }
  }

  outputLost(incarnation: Incarnation): void {
    const channel = incarnation.transport as KernelChannel;
    if (channel === this.channel) {
      this.channel = null;
      this.gate.shut();
      channel.close('output stopped arriving');
      this.startReconnecting("the server stopped relaying the kernel's output");
    }
  }

  /** Ends a kernel we started (just disconnects from an attached one). Idempotent, bounded. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    const channel = this.channel;
    this.phase = 'closed';
    this.setConnection({ state: 'closed' });
    this.backoffTimer?.cancel();
    this.gate.fail(new KernelClosedError('The kernel was shut down.'));
    this.channel = null;
    channel?.close('shut down');
    if (this.owned) {
      // Best effort and bounded: a server that is down cannot stop its kernel, and the
      // session must still end here. Its kernel then ends with the server (or its culler).
      const stopping = this.api.shutdown(this.kernelIdValue).catch((error: Error) => this.logger.write('warn', `shutting down kernel ${this.kernelIdValue} on ${this.server.label} failed: ${error.message}`));
      await settledWithin(stopping, 5000);
    }
  }

  // ---- the connection ----

  /** Opens a WebSocket to the current kernel id and waits until the kernel answers on it. */
  private async connectChannel(): Promise<void> {
    const channel = await KernelChannel.open(this.api, this.kernelIdValue, randomUUID(), { ...this.options, logger: this.logger });
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
    this.goneSession = null;
    channel.on('iopub', (message: JupyterMessage, routed: boolean) => this.onIopub(channel, message, routed));
    channel.on('dropped', (reason: string) => this.onDropped(channel, reason));
  }

  /** The shared readiness handshake, with a network's intervals and its failures in the server's words. */
  private async handshake(channel: KernelChannel): Promise<KernelInfo> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    try {
      const gone = this.goneSession;
      const accept = (message: JupyterMessage) => gone === null || message.header.session !== gone;
      return await awaitReady(channel, { timeoutMs, firstIntervalMs: 500, maxIntervalMs: 2000, replyWithoutOutputMs: 5000, accept });
    } catch (error) {
      if (!(error instanceof ReadinessError)) throw error;
      if (error.kind === 'no-output') throw new RemoteServerError(`The Jupyter server ${this.server.label} relays kernel ${this.kernelIdValue}'s replies but not its output.`, 'server');
      if (error.kind === 'timeout') throw new RemoteServerError(`Kernel ${this.kernelIdValue} on ${this.server.label} did not answer within ${Math.round(timeoutMs / 1000)} s of connecting.`, 'timeout');
      throw error;
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
    await settledWithin(reply, 10_000);
    channel.abandon(msgId);
  }

  private becomeUsable(): Incarnation {
    this.setConnection({ state: 'connected' });
    this.gate.open();
    this.phase = 'ready';
    return this.incarnation(this.channel!);
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
    if (message.header.msg_type === 'shutdown_reply' && !routed && message.content.restart === true && !this.ownRestart) {
      this.onRestartedThere(channel, message);
      return;
    }
    if (message.header.msg_type === 'shutdown_reply' && !routed && message.content.restart === false && !this.ownRestart) {
      this.emit(
        'run-ended-there',
        `The kernel on ${this.server.label} was shut down from the server's side while this ran (the server is stopping, or someone shut this kernel down there).`,
        this.owned ? 'Python Session will start a fresh kernel there as soon as the server answers.' : 'It was not started by Python Session, so it is not ours to replace.',
      );
      this.onShutDownThere(channel, message);
    }
  }

  /**
   * The kernel's process is ending on the server (shut down by a stopping server, or by someone
   * there): this connection has nothing more to reach, though the server closes it only later. A
   * call made in between would be sent into a closing socket ("WebSocket is not open"), so the
   * connection counts as down from now and calls wait for the reconnection, which replaces a lost
   * kernel we started, or finds the process the server started again.
   */
  private onShutDownThere(channel: KernelChannel, shutdownReply: JupyterMessage): void {
    if (this.phase === 'restarting' || this.closed) return;
    this.goneSession = shutdownReply.header.session || null;
    this.processEndedThere = true;
    this.gate.shut();
    this.channel = null;
    channel.close("the kernel was shut down from the server's side");
    this.startReconnecting("the kernel was shut down from the server's side");
  }

  /**
   * Someone restarted the kernel through the server (JupyterLab's Restart, the REST API): the
   * server's shutdown request, broadcast with restart true, comes before the process goes. A run
   * in flight is told what was lost instead of waiting on a relay.
   */
  private onRestartedThere(channel: KernelChannel, shutdownReply: JupyterMessage): void {
    if (this.phase === 'restarting' || this.closed) return;
    // The reply comes from the process that is going: its answers to the reconnection do not count.
    this.goneSession = shutdownReply.header.session || null;
    this.gate.shut();
    this.channel = null;
    this.reconnectToNewProcess(channel, {
      what: "it was restarted from the server's side",
      headline: `The kernel on ${this.server.label} was restarted from the server's side (in JupyterLab, or through the server's API): every variable is gone.`,
      cause: "the kernel was restarted from the server's side",
    }, ["the kernel was restarted from the server's side", "reconnecting to the kernel restarted from the server's side"]);
  }

  private onKernelDiedThere(channel: KernelChannel, status: string): void {
    if (this.phase === 'restarting' || this.closed) return; // already being handled
    this.gate.shut();
    this.channel = null;
    if (status === 'dead') {
      // The server gave up restarting it: the same as a kernel the server lost, which the
      // reconnection finds out and reports (replacing a kernel we started).
      channel.close('the kernel is dead');
      this.startReconnecting('the kernel died on the server and was not restarted');
      return;
    }
    this.reconnectToNewProcess(channel, {
      what: 'its process exited and the server restarted it',
      headline: `The Python kernel on ${this.server.label} died (its process exited) and the server restarted it.`,
      cause: 'the kernel died on the server and the server restarted it',
    }, ['the server restarted the kernel', 'reconnecting to the kernel the server restarted']);
  }

  /**
   * The server has a new process for this kernel: the death is told, and a fresh connection is
   * opened. The new process may listen on new ports, and a WebSocket opened before can stay wired
   * to the old ones (seen with Jupyter Server 1.23: replies come back, output never does); the
   * reconnection announces the new process once it is connected.
   */
  private reconnectToNewProcess(channel: KernelChannel, death: Pick<KernelDeath, 'what' | 'headline' | 'cause'>, [closing, reconnecting]: [string, string]): void {
    this.phase = 'restarting';
    this.freshPending = true;
    this.emit('died', { ...death, exit: null, lastLines: [], recovery: 'provisioner' });
    channel.close(closing);
    this.startReconnecting(reconnecting);
  }

  private onDropped(channel: KernelChannel, reason: string): void {
    if (channel !== this.channel || this.closed) return;
    this.channel = null;
    this.gate.shut();
    this.emit(
      'disconnected',
      `The connection to the Jupyter server ${this.server.label} dropped while this ran (${reason}). ` +
        'The code may still be running there, and the kernel keeps its variables; Python Session is reconnecting. ' +
        "Check the kernel's status, then run again only what did not finish.",
    );
    this.startReconnecting(reason);
  }

  private startReconnecting(reason: string): void {
    this.setConnection({ state: 'reconnecting', reason });
    if (this.reconnecting) return;
    this.reconnecting = this.reconnectLoop()
      .catch((error: Error) => this.logger.write('error', `reconnecting to kernel ${this.kernelIdValue} failed: ${reasonOf(error)}`)) // never an unhandled rejection in the daemon
      .finally(() => (this.reconnecting = null));
  }

  private async reconnectLoop(): Promise<void> {
    for (let attempt = 1; !this.closed; attempt++) {
      const waitMs = backoffDelay(attempt, this.options.backoff);
      this.setConnection({ state: 'reconnecting', nextAttemptAt: Date.now() + waitMs });
      const wait = delay(waitMs);
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
          // Connected (the going process's answers are not accepted): a new process answered.
          if (this.processEndedThere) this.tellStartedAgainThere();
        }
        await this.afterReconnect();
        return;
      } catch (error) {
        if (this.closed) return;
        this.setConnection({ state: 'reconnecting', attempts: attempt, lastError: (error as Error).message, nextAttemptAt: undefined });
      }
    }
  }

  /** The kernel shut down from the server's side answers again: the server started a new process for it (its restarter). */
  private tellStartedAgainThere(): void {
    this.processEndedThere = false;
    if (this.freshPending) return;
    this.freshPending = true;
    this.emit('died', {
      what: "it was shut down from the server's side and the server started it again",
      headline: `The kernel on ${this.server.label} was shut down from the server's side and the server started it again: every variable is gone.`,
      cause: "the kernel was shut down from the server's side and started again there",
      exit: null,
      lastLines: [],
      recovery: 'provisioner',
    });
  }

  private async afterReconnect(): Promise<void> {
    this.processEndedThere = false;
    const fresh = this.freshPending;
    this.freshPending = false;
    if (fresh) {
      await this.prepareProcess();
      this.started = Date.now();
    }
    const incarnation = this.becomeUsable();
    this.emit('connected', incarnation, fresh);
  }

  /** A kernel we started is gone from the server: say so once, then start its like there. */
  private async replaceLostKernel(): Promise<void> {
    if (!this.freshPending) {
      this.phase = 'restarting';
      this.freshPending = true;
      this.emit('died', {
        what: `the server no longer has kernel ${this.kernelIdValue}`,
        headline: `The kernel on ${this.server.label} is gone: the server no longer has kernel ${this.kernelIdValue} (the server was restarted, or the kernel died there).`,
        nextStep: `Python Session is starting a fresh kernel on ${this.server.name}; run the code that defined anything you still need.`,
        exit: null,
        lastLines: [],
        recovery: 'provisioner',
        cause: `the server lost kernel ${this.kernelIdValue}; a fresh one was started`,
      });
    }
    await this.api.shutdown(this.kernelIdValue); // a dead kernel the server still lists; a gone one is no error
    const model = await this.api.startKernel(this.kernelNameValue, this.path, this.options.kernelEnv);
    this.kernelIdValue = model.id;
    this.kernelNameValue = model.name;
    await this.connectChannel();
  }

  private attachedKernelGone(): void {
    this.setConnection({ state: 'gone', reason: 'the server no longer has this kernel' });
    this.phase = 'dead';
    this.gate.fail(new KernelUnavailableError(`Nothing was run: kernel ${this.kernelIdValue} is gone from ${this.server.label}.`));
    this.emit('died', {
      what: `the server no longer has kernel ${this.kernelIdValue}`,
      headline: `The kernel on ${this.server.label} is gone: the server no longer has kernel ${this.kernelIdValue} (the server was restarted, or the kernel died or was shut down there).`,
      nextStep: `It was not started by Python Session, so it is not ours to replace: attach to another kernel on ${this.server.name}, or start one there.`,
      exit: null,
      lastLines: [],
      recovery: 'none',
    });
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

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}
