/**
 * A kernel on this machine: an ipykernel process in its own process group (launch.ts), reached
 * over ZeroMQ (KernelClient), watched two ways — its exit (at once) and its heartbeat (a
 * SIGSTOPped or wedged kernel, within seconds). Or a kernel someone else started, attached by
 * its connection file: no process to signal, and not ours to restart or kill.
 */
import { EventEmitter } from 'node:events';
import { settledWithin } from '../timers.js';
import { readConnectionFile, removeConnectionFile, type ConnectionInfo } from './messaging/connection-info.js';
import { Heartbeat, HeartbeatSocket, type HeartbeatOptions } from './process/heartbeat.js';
import { KernelClient } from './messaging/kernel-client.js';
import { KernelUnavailableError } from './supervision/kernel-errors.js';
import { describeExit, type ExitInfo, type KernelProcess } from './process/kernel-process.js';
import { launchKernel, type LaunchKernelOptions, type LaunchedKernel } from './process/launch.js';
import { reasonOf, silentLogger, type EngineLogger } from './logger.js';
import type { Incarnation, KernelPlace, KernelProvisioner, ProvisionerEvents } from './supervision/provisioner.js';

export interface LocalProvisionerOptions extends LaunchKernelOptions {
  /** How interrupts are delivered: SIGINT to the process group, or interrupt_request. */
  interruptMode?: 'signal' | 'message';
  heartbeat?: HeartbeatOptions;
  /** How processes are obtained; a warm pool hands out ready kernels here. */
  launcher?: (options: LaunchKernelOptions) => Promise<LaunchedKernel>;
  logger?: EngineLogger;
}

/** One process (or attachment) and what watches it. */
interface Live {
  incarnation: Incarnation;
  process: KernelProcess | null;
  client: KernelClient;
  heartbeat: Heartbeat;
  connectionFile?: string;
  connection: ConnectionInfo;
  /** We are stopping it: its exit is no death. */
  stopping: boolean;
  /** Why it was killed, when it stopped answering its heartbeat. */
  hungReason?: string;
}

const PLACE: KernelPlace = { kind: 'local' };

export class LocalProvisioner extends EventEmitter<ProvisionerEvents> implements KernelProvisioner {
  readonly helperTransport = 'local-path' as const;
  readonly place = PLACE;
  readonly endedFromElsewhere = false;
  private live: Live | null = null;
  private readonly logger: EngineLogger;

  /** `attachTo`: a connection file of a kernel started elsewhere, which we only talk to. */
  constructor(
    private readonly options: LocalProvisionerOptions,
    private readonly attachTo?: string,
  ) {
    super();
    this.logger = options.logger ?? silentLogger;
  }

  get owned(): boolean {
    return this.attachTo === undefined;
  }

  get pid(): number | undefined {
    return this.live?.process?.pid;
  }

  get connectionFile(): string | undefined {
    return this.live?.connectionFile;
  }

  get connection(): ConnectionInfo | undefined {
    return this.live?.connection;
  }

  get logLines(): string[] {
    return this.live?.process?.log.lastLines(50) ?? [];
  }

  async start(): Promise<Incarnation> {
    const live = this.attachTo === undefined ? await this.launch() : await this.attach(this.attachTo);
    this.live = live;
    live.process?.once('exit', (exit: ExitInfo) => this.onExit(live, exit));
    live.heartbeat.on('unresponsive', (silentMs: number) => this.onUnresponsive(live, silentMs));
    live.heartbeat.start();
    return live.incarnation;
  }

  private async launch(): Promise<Live> {
    const launched = await (this.options.launcher ?? launchKernel)(this.options);
    return {
      incarnation: { transport: launched.client, kernelInfo: launched.kernelInfo, startedAt: Date.now() },
      process: launched.process,
      client: launched.client,
      heartbeat: new Heartbeat(new HeartbeatSocket(launched.connection), this.options.heartbeat),
      connectionFile: launched.connectionFile,
      connection: launched.connection,
      stopping: false,
    };
  }

  private async attach(connectionFile: string): Promise<Live> {
    const connection = await readConnectionFile(connectionFile);
    const client = new KernelClient(connection, this.logger);
    try {
      const kernelInfo = await client.waitForReady(this.options.startTimeoutMs ?? 10_000);
      return {
        incarnation: { transport: client, kernelInfo, startedAt: Date.now() },
        process: null,
        client,
        connection,
        connectionFile,
        heartbeat: new Heartbeat(new HeartbeatSocket(connection), this.options.heartbeat),
        stopping: false,
      };
    } catch (error) {
      client.close();
      throw new Error(`No kernel answered at ${connectionFile}: ${(error as Error).message}. Is it still running?`);
    }
  }

  available(): Promise<Incarnation> {
    return this.live ? Promise.resolve(this.live.incarnation) : Promise.reject(new KernelUnavailableError('Nothing was run: the kernel is not running.'));
  }

  async interrupt(): Promise<void> {
    const live = this.live;
    if (!live) return;
    const mode = this.options.interruptMode ?? (process.platform === 'win32' || !live.process ? 'message' : 'signal');
    if (mode === 'signal' && live.process) {
      live.process.signal('SIGINT');
    } else {
      const { reply } = live.client.request('control', 'interrupt_request', {});
      await settledWithin(reply, 1000);
    }
  }

  async restart(): Promise<Incarnation> {
    const live = this.live;
    this.live = null;
    if (live) await this.stop(live, 0);
    return this.start();
  }

  outputLost(): void {} // ZeroMQ does not lose output: outputWatchdogMs is unset

  async shutdown(_current: Incarnation | null, polite: boolean): Promise<void> {
    const live = this.live;
    this.live = null;
    if (!live) return;
    if (this.owned) await this.stop(live, polite ? 1000 : 0).catch((error) => this.logger.write('warn', `stopping a kernel failed: ${reasonOf(error)}`));
    else this.teardown(live);
  }

  private onUnresponsive(live: Live, silentMs: number): void {
    if (live !== this.live || live.stopping) return;
    const why = `stopped answering its heartbeat for ${(silentMs / 1000).toFixed(1)} s (hung or stopped)`;
    if (live.process) {
      live.hungReason = why;
      live.process.signal('SIGKILL'); // also wakes a SIGSTOPped group; the exit handler takes over
    } else {
      this.onDeath(live, null, `the kernel ${why}`);
    }
  }

  private onExit(live: Live, exit: ExitInfo): void {
    if (live !== this.live || live.stopping) return;
    this.onDeath(live, exit, live.hungReason ? `the kernel ${live.hungReason} and was killed` : describeExit(exit));
  }

  private onDeath(live: Live, exit: ExitInfo | null, what: string): void {
    this.live = null;
    this.teardown(live);
    // What user code started in the dead kernel's process group would otherwise run on as orphans.
    void live.process?.terminate(0).catch(() => undefined);
    void removeConnectionFile(live.connectionFile ?? '').catch(() => undefined);
    this.emit('died', { what, exit, lastLines: exit?.lastLines ?? [], recovery: this.owned ? 'supervisor' : 'none' });
  }

  private teardown(live: Live): void {
    live.heartbeat.stop();
    live.client.close('the kernel went away');
  }

  /** shutdown_request on control, then SIGTERM, then SIGKILL of the group. */
  private async stop(live: Live, politeMs: number): Promise<void> {
    live.stopping = true;
    live.heartbeat.stop();
    if (live.process?.alive && politeMs > 0) {
      const { reply } = live.client.request('control', 'shutdown_request', { restart: false });
      await settledWithin(reply, politeMs);
      await live.process.exitedWithin(politeMs);
    }
    live.client.close('the kernel was stopped');
    await live.process?.terminate(1000);
    if (live.process) await removeConnectionFile(live.connectionFile ?? '');
  }
}
