/**
 * A kernel on this machine: the KernelSupervisor over a LocalProvisioner (an ipykernel process
 * group, or a kernel attached by its connection file) and the ZeroMQ KernelClient.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionInfo } from './messaging/connection-info.js';
import { LocalProvisioner, type LocalProvisionerOptions } from './local-provisioner.js';
import type { SessionKernel } from './supervision/session-kernel.js';
import { KernelSupervisor, type SupervisorOptions } from './supervision/supervisor.js';

export { KernelClosedError, KernelDiedError, KernelGaveUpError, KernelNotOursError, KernelUnavailableError, ConnectionLostError } from './supervision/kernel-errors.js';
export { DEFAULT_INTERRUPT_GRACE_MS, KernelSupervisor, type ExecuteOptions, type KernelEvents, type KernelState, type RestartedInfo } from './supervision/supervisor.js';

export interface KernelOptions extends LocalProvisionerOptions, SupervisorOptions {}

export class Kernel extends KernelSupervisor implements SessionKernel {
  private constructor(
    private readonly local: LocalProvisioner,
    readonly options: KernelOptions,
  ) {
    super(local, options);
  }

  /** Starts a kernel in the given interpreter and waits until it answers. */
  static async start(options: KernelOptions): Promise<Kernel> {
    const provisioner = new LocalProvisioner(options);
    const kernel = new Kernel(provisioner, options);
    await kernel.begin(provisioner.start());
    return kernel;
  }

  /** Attaches to a kernel someone else started; closing leaves it running. */
  static async connect(connectionFile: string, options: Partial<KernelOptions> = {}): Promise<Kernel> {
    const full: KernelOptions = { interpreter: '', interruptMode: 'message', autoRestart: false, ...options };
    const provisioner = new LocalProvisioner(full, connectionFile);
    const kernel = new Kernel(provisioner, full);
    await kernel.begin(provisioner.start());
    return kernel;
  }

  get connection(): ConnectionInfo | undefined {
    return this.local.connection;
  }
}

export function defaultSpillPath(): string {
  return join(tmpdir(), `python-session-output-${randomUUID()}.txt`);
}
