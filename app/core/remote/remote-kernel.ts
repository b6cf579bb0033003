/**
 * A kernel on a Jupyter server: the KernelSupervisor, whose runs, timeouts, interrupts, deaths and
 * restarts follow the same policy as a local kernel's, over a RemoteProvisioner (the server's REST
 * API and WebSocket, with the reconnection a network needs).
 */
import { KernelSupervisor, type SupervisorOptions } from '../kernel/supervision/supervisor.js';
import type { SessionKernel } from '../kernel/supervision/session-kernel.js';
import type { ConnectionStatus } from '../kernel/supervision/provisioner.js';
import { RemoteProvisioner, type RemoteProvisionerOptions } from './remote-provisioner.js';
import type { RemoteServer } from './server-registry.js';

export { ConnectionLostError as RemoteConnectionLostError } from '../kernel/supervision/kernel-errors.js';
export type { ConnectionState, ConnectionStatus } from '../kernel/supervision/provisioner.js';

export interface RemoteKernelOptions extends RemoteProvisionerOptions, SupervisorOptions {}

export class RemoteKernel extends KernelSupervisor implements SessionKernel {
  private constructor(private readonly remote: RemoteProvisioner, options: RemoteKernelOptions) {
    super(remote, options);
  }

  /** Starts a kernel on the server (its default kernelspec unless one is named) and waits until it answers. */
  static async start(server: RemoteServer, target: { kernelName?: string; path?: string } = {}, options: RemoteKernelOptions = {}): Promise<RemoteKernel> {
    const provisioner = new RemoteProvisioner(server, { kind: 'start', ...target }, options);
    const kernel = new RemoteKernel(provisioner, options);
    await kernel.begin(provisioner.start());
    return kernel;
  }

  /** Attaches to a kernel already running on the server; shutting down only detaches. */
  static async attach(server: RemoteServer, kernelId: string, options: RemoteKernelOptions = {}): Promise<RemoteKernel> {
    const provisioner = new RemoteProvisioner(server, { kind: 'attach', kernelId }, options);
    const kernel = new RemoteKernel(provisioner, options);
    await kernel.begin(provisioner.start());
    return kernel;
  }

  get serverUrl(): string {
    return this.remote.serverUrl;
  }

  get kernelId(): string {
    return this.remote.kernelId;
  }

  get kernelName(): string {
    return this.remote.kernelName;
  }

  override get connectionFile(): string {
    return this.remote.connectionFile;
  }

  get connection(): ConnectionStatus {
    return this.remote.connection;
  }
}
