/**
 * The built-in worker as a KernelProvisioner: a process group of ours on this machine (always
 * ours: nobody else can attach to a worker), reached over WorkerTransport. Its death is noticed
 * by its exit, by its connection closing (which means it is exiting: the connection is its
 * lifeline), and by the heartbeat while the system says it is stopped. Interrupts are SIGINT to
 * the group on POSIX, interrupt_request on Windows (the worker raises SIGINT in its own main
 * thread there; its SIGBREAK handler also takes a console CTRL_BREAK_EVENT).
 */
import { EventEmitter } from 'node:events';
import type { Heartbeat, HeartbeatOptions } from '../kernel/process/heartbeat.js';
import { KernelUnavailableError } from '../kernel/supervision/kernel-errors.js';
import { describeExit, type ExitInfo, type KernelProcess } from '../kernel/process/kernel-process.js';
import { reasonOf, silentLogger, type EngineLogger } from '../kernel/logger.js';
import type { Incarnation, KernelPlace, KernelProvisioner, ProvisionerEvents } from '../kernel/supervision/provisioner.js';
import { settledWithin } from '../timers.js';
import { launchWorker, type LaunchedWorker, type WorkerLaunchOptions } from './launch-worker.js';
import { workerHeartbeat } from './worker-heartbeat.js';
import type { WorkerTransport } from './worker-transport.js';

export interface WorkerProvisionerOptions extends WorkerLaunchOptions {
  interruptMode?: 'signal' | 'message';
  heartbeat?: HeartbeatOptions;
  /** How workers are obtained; a warm pool hands out ready ones here. */
  launcher?: (options: WorkerLaunchOptions) => Promise<LaunchedWorker>;
}

/** How long a worker whose connection closed may take to exit before it is killed. */
const EXIT_AFTER_DROP_MS = 2000;

interface Live {
  incarnation: Incarnation;
  process: KernelProcess;
  transport: WorkerTransport;
  heartbeat: Heartbeat;
  /** We are stopping it: its exit is no death. */
  stopping: boolean;
  /** Why it was killed, when we killed it. */
  killedBecause?: string;
}

// On this machine like a local ipykernel (paths, pids and folders mean the same); the engine is told apart in status.
const PLACE: KernelPlace = { kind: 'worker' };

export class WorkerProvisioner extends EventEmitter<ProvisionerEvents> implements KernelProvisioner {
  readonly owned = true;
  readonly helperTransport = 'local-path' as const;
  readonly place = PLACE;
  readonly endedFromElsewhere = false;
  /** Nothing else can attach to a worker: it has no connection file. */
  readonly connectionFile = undefined;
  private live: Live | null = null;
  private readonly logger: EngineLogger;

  constructor(private readonly options: WorkerProvisionerOptions) {
    super();
    this.logger = options.logger ?? silentLogger;
  }

  get pid(): number | undefined {
    return this.live?.process.pid;
  }

  get logLines(): string[] {
    return this.live?.process.log.lastLines(50) ?? [];
  }

  /** The live transport (for its counters); undefined between workers. */
  get transport(): WorkerTransport | undefined {
    return this.live?.transport;
  }

  async start(): Promise<Incarnation> {
    const launched = await (this.options.launcher ?? launchWorker)({ logger: this.logger, ...this.options });
    const live: Live = {
      incarnation: { transport: launched.transport, kernelInfo: launched.kernelInfo, startedAt: Date.now() },
      process: launched.process,
      transport: launched.transport,
      heartbeat: workerHeartbeat(launched.transport, launched.process.pid ?? -1, this.options.heartbeat),
      stopping: false,
    };
    this.live = live;
    live.process.once('exit', (exit: ExitInfo) => this.onExit(live, exit));
    live.transport.once('dropped', () => void this.onDropped(live));
    live.heartbeat.on('unresponsive', (silentMs) => this.kill(live, `was stopped and silent for ${(silentMs / 1000).toFixed(1)} s (hung or stopped)`));
    live.heartbeat.start();
    return live.incarnation;
  }

  available(): Promise<Incarnation> {
    return this.live ? Promise.resolve(this.live.incarnation) : Promise.reject(new KernelUnavailableError('Nothing was run: the worker is not running.'));
  }

  async interrupt(): Promise<void> {
    const live = this.live;
    if (!live) return;
    const mode = this.options.interruptMode ?? (process.platform === 'win32' ? 'message' : 'signal');
    if (mode === 'signal') {
      live.process.signal('SIGINT');
    } else {
      await settledWithin(live.transport.request('control', 'interrupt_request', {}).reply, 1000);
    }
  }

  async restart(): Promise<Incarnation> {
    const live = this.live;
    this.live = null;
    if (live) await this.stop(live, 0);
    return this.start();
  }

  outputLost(): void {} // one TCP connection: output is never lost apart from replies

  async shutdown(_current: Incarnation | null, polite: boolean): Promise<void> {
    const live = this.live;
    this.live = null;
    if (live) await this.stop(live, polite ? 1000 : 0).catch((error) => this.logger.write('warn', `stopping a worker failed: ${reasonOf(error)}`));
  }

  /** Its connection closed: the worker is on its way out; its exit says how it ended. */
  private async onDropped(live: Live): Promise<void> {
    if (live !== this.live || live.stopping) return;
    if (!(await live.process.exitedWithin(EXIT_AFTER_DROP_MS))) this.kill(live, 'closed its connection but did not exit');
  }

  private kill(live: Live, why: string): void {
    if (live !== this.live || live.stopping) return;
    live.killedBecause = why;
    live.process.signal('SIGKILL'); // also wakes a SIGSTOPped group; the exit handler takes over
  }

  private onExit(live: Live, exit: ExitInfo): void {
    if (live !== this.live || live.stopping) return;
    this.live = null;
    live.heartbeat.stop();
    live.transport.close('the worker went away');
    // What user code started in the dead worker's process group would otherwise run on as orphans.
    void live.process.terminate(0).catch(() => undefined);
    const what = live.killedBecause ? `the worker ${live.killedBecause} and was killed` : describeExit(exit);
    this.emit('died', { what, exit, lastLines: exit.lastLines, recovery: 'supervisor' });
  }

  /** shutdown_request on control, then SIGTERM, then SIGKILL of the group. */
  private async stop(live: Live, politeMs: number): Promise<void> {
    live.stopping = true;
    live.heartbeat.stop();
    if (live.process.alive && politeMs > 0) {
      await settledWithin(live.transport.request('control', 'shutdown_request', { restart: false }).reply, politeMs);
      await live.process.exitedWithin(politeMs);
    }
    live.transport.close('the worker was stopped');
    await live.process.terminate(1000);
  }
}
