/**
 * A supervised kernel: one process (when we own it) plus its client, run one
 * execution at a time in the order asked. It notices death at once (process
 * exit) and hangs within seconds (heartbeat), fails the pending call with a
 * clear account of what was lost, and puts a fresh kernel in its place.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesExpressions, readUserNames } from './user-names.js';
import { readConnectionFile, removeConnectionFile, type ConnectionInfo } from './connection-info.js';
import { Execution, type OutputLimits } from './execution.js';
import { Heartbeat, type HeartbeatOptions } from './heartbeat.js';
import { KernelClient, type KernelInfo } from './kernel-client.js';
import { describeExit, type ExitInfo, type KernelProcess } from './kernel-process.js';
import { launchKernel, type LaunchKernelOptions, type LaunchedKernel } from './launch.js';
import type { ExecutionResult, Output } from './outputs.js';
import type { SessionKernel } from './session-kernel.js';

export type KernelState = 'starting' | 'idle' | 'busy' | 'restarting' | 'dead' | 'closed';

export interface KernelOptions extends LaunchKernelOptions {
  /** How interrupts are delivered: SIGINT to the process group, or interrupt_request. */
  interruptMode?: 'signal' | 'message';
  /** How long an interrupted run may take to stop before the kernel is restarted. */
  interruptGraceMs?: number;
  heartbeat?: HeartbeatOptions;
  /** Replace a kernel that died (default true for kernels we started). */
  autoRestart?: boolean;
  /** Default output limits for executions. */
  outputLimits?: OutputLimits;
  /** How processes are obtained; a warm pool hands out ready kernels here. */
  launcher?: (options: LaunchKernelOptions) => Promise<LaunchedKernel>;
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
}

/** The kernel died (or hung) during or before a call. Nothing the caller asked for ran to completion. */
export class KernelDiedError extends Error {
  constructor(
    message: string,
    readonly exit: ExitInfo | null,
    readonly lostNames: string[],
    readonly restarted: boolean,
  ) {
    super(message);
  }
}

export class KernelClosedError extends Error {}

interface Incarnation {
  process: KernelProcess | null;
  client: KernelClient;
  heartbeat: Heartbeat;
  connectionFile?: string;
  connection: ConnectionInfo;
  kernelInfo: KernelInfo;
  startedAt: number;
}


export class Kernel extends EventEmitter implements SessionKernel {
  readonly id = randomUUID();
  readonly location = 'local';
  readonly helperTransport = 'local-path' as const;
  private current: Incarnation | null = null;
  private ready: Promise<Incarnation>;
  private queue: Promise<unknown> = Promise.resolve();
  private running: Execution | null = null;
  private stateValue: KernelState = 'starting';
  private expectingExit = false;
  private names: string[] = [];
  private restarts = 0;
  private lastExecutionCount = 0;

  private constructor(
    readonly options: KernelOptions,
    readonly owned: boolean,
    first: Promise<Incarnation>,
  ) {
    super();
    this.ready = first;
    first.then(
      (incarnation) => this.adopt(incarnation),
      () => this.setState('dead'),
    );
  }

  /** Starts a kernel in the given interpreter and waits until it answers. */
  static async start(options: KernelOptions): Promise<Kernel> {
    const kernel = new Kernel(options, true, Kernel.launch(options));
    await kernel.ready;
    return kernel;
  }

  /** Attaches to a kernel someone else started; closing leaves it running. */
  static async connect(connectionFile: string, options: Partial<KernelOptions> = {}): Promise<Kernel> {
    const attach = async (): Promise<Incarnation> => {
      const connection = await readConnectionFile(connectionFile);
      const client = new KernelClient(connection);
      try {
        const kernelInfo = await client.waitForReady(options.startTimeoutMs ?? 10_000);
        return { process: null, client, connection, kernelInfo, connectionFile, heartbeat: new Heartbeat(connection, options.heartbeat), startedAt: Date.now() };
      } catch (error) {
        client.close();
        throw new Error(`No kernel answered at ${connectionFile}: ${(error as Error).message}. Is it still running?`);
      }
    };
    const kernel = new Kernel({ interpreter: '', interruptMode: 'message', autoRestart: false, ...options }, false, attach());
    await kernel.ready;
    return kernel;
  }

  private static async launch(options: KernelOptions): Promise<Incarnation> {
    const launched = await (options.launcher ?? launchKernel)(options);
    return { ...launched, heartbeat: new Heartbeat(launched.connection, options.heartbeat), startedAt: Date.now() };
  }

  private adopt(incarnation: Incarnation): void {
    this.current = incarnation;
    this.expectingExit = false;
    incarnation.process?.once('exit', (exit: ExitInfo) => this.onExit(incarnation, exit));
    incarnation.heartbeat.on('unresponsive', (silentMs: number) => this.onUnresponsive(incarnation, silentMs));
    incarnation.heartbeat.start();
    this.setState(this.running ? 'busy' : 'idle');
  }

  get state(): KernelState {
    return this.stateValue;
  }

  private setState(state: KernelState): void {
    if (this.stateValue === state || this.stateValue === 'closed') return;
    this.stateValue = state;
    this.emit('state', state);
  }

  get pid(): number | undefined {
    return this.current?.process?.pid;
  }

  get connectionFile(): string | undefined {
    return this.current?.connectionFile;
  }

  get connection(): ConnectionInfo | undefined {
    return this.current?.connection;
  }

  get kernelInfo(): KernelInfo | undefined {
    return this.current?.kernelInfo;
  }

  get startedAt(): number | undefined {
    return this.current?.startedAt;
  }

  /** The user's variable names after the last execution. */
  get knownNames(): readonly string[] {
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
    return this.current?.client.badSignatures ?? 0;
  }

  get logLines(): string[] {
    return this.current?.process?.log.lastLines(50) ?? [];
  }

  /** Runs code after everything queued before it. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    const run = this.queue.then(() => this.executeNow(code, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async executeNow(code: string, options: ExecuteOptions): Promise<ExecutionResult> {
    if (this.stateValue === 'closed') throw new KernelClosedError('The kernel was shut down.');
    if (options.signal?.aborted) throw new Error('Cancelled before it started.');
    const incarnation = await this.ready;
    if ((this.stateValue as KernelState) === 'closed') throw new KernelClosedError('The kernel was shut down.');
    const storeHistory = options.storeHistory ?? true;
    const execution = new Execution('', { ...this.options.outputLimits, ...options.limits }, options.onOutput);
    this.running = execution;
    this.setState('busy');
    options.onStart?.();
    const { msgId, reply } = incarnation.client.request(
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
      (id) => incarnation.client.onParent(id, (message) => execution.handleIopub(message)),
    );
    (execution as { msgId: string }).msgId = msgId;
    reply.then(
      (message) => {
        this.readNames(message.content);
        execution.handleReply(message);
      },
      (error: Error) => execution.fail(error),
    );

    let timer: NodeJS.Timeout | undefined;
    if (options.timeoutMs && options.timeoutMs > 0) {
      timer = setTimeout(() => {
        execution.timedOut = true;
        void this.interruptExecution(execution);
      }, options.timeoutMs);
    }
    const onAbort = () => {
      execution.interrupted = true;
      void this.interruptExecution(execution);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await execution.done;
      if (result.executionCount !== null && storeHistory) this.lastExecutionCount = result.executionCount;
      return result;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      incarnation.client.abandon(msgId, new Error('finished'));
      if (this.running === execution) this.running = null;
      if (this.stateValue === 'busy') this.setState('idle');
    }
  }

  private readNames(content: Record<string, unknown>): void {
    this.names = readUserNames(content) ?? this.names;
  }

  /** Interrupts the running execution; restarts the kernel if it will not stop. */
  async interrupt(): Promise<{ restarted: boolean }> {
    const execution = this.running;
    if (execution) {
      execution.interrupted = true;
      return this.interruptExecution(execution);
    }
    await this.sendInterrupt();
    return { restarted: false };
  }

  private async sendInterrupt(): Promise<void> {
    const incarnation = this.current;
    if (!incarnation) return;
    const mode = this.options.interruptMode ?? (process.platform === 'win32' || !incarnation.process ? 'message' : 'signal');
    if (mode === 'signal' && incarnation.process) {
      incarnation.process.signal('SIGINT');
    } else {
      const { reply } = incarnation.client.request('control', 'interrupt_request', {});
      await Promise.race([reply.catch(() => undefined), delay(1000)]);
    }
  }

  private async interruptExecution(execution: Execution): Promise<{ restarted: boolean }> {
    const grace = this.options.interruptGraceMs ?? 3000;
    // ipykernel ignores SIGINT until it has entered the request's handler, which it announces
    // with execute_input: a signal sent before that is lost, and the run would be escalated to a
    // restart (every variable lost) for want of an interrupt that arrived a moment too early.
    await Promise.race([execution.begun, delay(grace)]);
    await this.sendInterrupt();
    const stopped = await Promise.race([execution.done.then(() => true, () => true), delay(grace).then(() => false)]);
    if (stopped || execution.isSettled) return { restarted: false };
    if (!this.owned) return { restarted: false };
    // It ignored the interrupt (a blocking C call, a SIGINT handler): restart to stop it.
    execution.restarted = true;
    await this.restartNow(`the run did not stop within ${grace / 1000} s of an interrupt`);
    return { restarted: true };
  }

  private onUnresponsive(incarnation: Incarnation, silentMs: number): void {
    if (incarnation !== this.current || this.expectingExit) return;
    const why = `stopped answering its heartbeat for ${(silentMs / 1000).toFixed(1)} s (hung or stopped)`;
    if (incarnation.process) {
      (incarnation as { hungReason?: string }).hungReason = why;
      incarnation.process.signal('SIGKILL'); // also wakes a SIGSTOPped group; the exit handler takes over
    } else {
      this.onDeath(incarnation, null, `the kernel ${why}`);
    }
  }

  private onExit(incarnation: Incarnation, exit: ExitInfo): void {
    if (incarnation !== this.current || this.expectingExit) return;
    const hung = (incarnation as { hungReason?: string }).hungReason;
    this.onDeath(incarnation, exit, hung ? `the kernel ${hung} and was killed` : describeExit(exit));
  }

  private onDeath(incarnation: Incarnation, exit: ExitInfo | null, what: string): void {
    this.teardown(incarnation);
    // What user code started in the dead kernel's process group would otherwise run on as orphans.
    void incarnation.process?.terminate(0).catch(() => undefined);
    void removeConnectionFile(incarnation.connectionFile ?? '').catch(() => undefined);
    const lost = [...this.names];
    this.names = [];
    const willRestart = this.owned && (this.options.autoRestart ?? true);
    const lines = exit?.lastLines.slice(-8) ?? [];
    const message = [
      `The Python kernel died: ${what}.`,
      lines.length ? `Its last output:\n${lines.map((l) => `  ${l}`).join('\n')}` : '',
      lost.length ? `Lost with it: ${lost.join(', ')}.` : 'No variables were lost.',
      willRestart ? 'A fresh kernel has been started; run the code that defined anything you still need.' : 'This kernel is not ours to restart; connect again or start a new one.',
    ]
      .filter(Boolean)
      .join('\n');
    const error = new KernelDiedError(message, exit, lost, willRestart);
    this.running?.fail(error);
    this.setState('dead');
    this.emit('died', error);
    if (willRestart) this.replace(error);
    else this.ready = Promise.reject(error);
    this.ready.catch(() => undefined);
  }

  private replace(cause: KernelDiedError): void {
    this.restarts++;
    this.setState('restarting');
    this.current = null;
    this.ready = Kernel.launch(this.options);
    this.ready.then(
      (incarnation) => {
        this.adopt(incarnation);
        this.emit('restarted', { cause: cause.message, lostNames: cause.lostNames });
      },
      (error) => {
        this.setState('dead');
        this.emit('restart-failed', error);
      },
    );
  }

  private teardown(incarnation: Incarnation): void {
    incarnation.heartbeat.stop();
    incarnation.client.close('the kernel went away');
  }

  /** Stops the current process and starts a fresh one; every variable is gone. */
  async restart(): Promise<{ lostNames: string[] }> {
    if (!this.owned) throw new Error('This kernel was started elsewhere; restart it there, or start a new kernel here.');
    const lost = [...this.names];
    if (this.running) this.running.restarted = true;
    await this.restartNow('restart requested');
    await this.ready;
    return { lostNames: lost };
  }

  private async restartNow(reason: string): Promise<void> {
    const incarnation = this.current;
    const running = this.running;
    this.setState('restarting');
    this.current = null;
    if (running) running.lostNames = [...this.names];
    this.names = [];
    this.restarts++;
    let resolveReady!: (value: Incarnation) => void;
    let rejectReady!: (error: Error) => void;
    this.ready = new Promise((resolve, reject) => ((resolveReady = resolve), (rejectReady = reject)));
    this.ready.catch(() => undefined);
    // Answer the run before stopping the process: closing the connection would otherwise fail it
    // with "the kernel was stopped", losing what it printed and its place in the session log.
    running?.finishWithoutReply();
    if (incarnation) await this.stopIncarnation(incarnation, 0);
    try {
      const next = await Kernel.launch(this.options);
      this.adopt(next);
      resolveReady(next);
      this.emit('restarted', { cause: reason, lostNames: [] });
    } catch (error) {
      this.setState('dead');
      rejectReady(error as Error);
    }
  }

  /** shutdown_request on control, then SIGTERM, then SIGKILL of the group. */
  private async stopIncarnation(incarnation: Incarnation, politeMs = 1000): Promise<void> {
    this.expectingExit = true;
    incarnation.heartbeat.stop();
    if (incarnation.process?.alive && politeMs > 0) {
      const { reply } = incarnation.client.request('control', 'shutdown_request', { restart: false });
      await Promise.race([reply.catch(() => undefined), delay(politeMs)]);
      await incarnation.process.exitedWithin(politeMs);
    }
    incarnation.client.close('the kernel was stopped');
    await incarnation.process?.terminate(1000);
    if (incarnation.process) await removeConnectionFile(incarnation.connectionFile ?? '');
  }

  /** Ends the kernel if we own it (else just disconnects). Idempotent. */
  async shutdown(): Promise<void> {
    if (this.stateValue === 'closed') return;
    const running = this.running;
    const incarnation = this.current ?? (await this.ready.catch(() => null));
    this.setState('closed');
    this.stateValue = 'closed';
    this.ready = Promise.reject(new KernelClosedError('The kernel was shut down.'));
    this.ready.catch(() => undefined);
    if (incarnation) {
      if (this.owned) await this.stopIncarnation(incarnation, running ? 0 : 1000);
      else this.teardown(incarnation);
    }
    running?.fail(new KernelClosedError('The kernel was shut down while this ran.'));
    this.current = null;
    this.emit('closed');
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function defaultSpillPath(): string {
  return join(tmpdir(), `python-session-output-${randomUUID()}.txt`);
}
