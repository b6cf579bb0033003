/**
 * A kernel on a Jupyter server: the KernelSupervisor, whose runs, timeouts, interrupts, deaths and
 * restarts follow the same policy as a local kernel's, over a RemoteProvisioner (the server's REST
 * API and WebSocket, with the reconnection a network needs).
 */
import type { KernelSupervisor, SupervisorOptions } from '../kernel/supervision/supervisor.js';
import type { RemoteProvisioner, RemoteProvisionerOptions } from './remote-provisioner.js';

export { ConnectionLostError as RemoteConnectionLostError } from '../kernel/supervision/kernel-errors.js';
export type { ConnectionState, ConnectionStatus } from '../kernel/supervision/provisioner.js';
export { RemoteProvisioner, type RemoteTarget } from './remote-provisioner.js';

export interface RemoteKernelOptions extends RemoteProvisionerOptions, SupervisorOptions {}

/** A kernel on a Jupyter server, as `KernelSupervisor.start(new RemoteProvisioner(server, target, options), options)` builds it. */
export type RemoteKernel = KernelSupervisor<RemoteProvisioner>;
