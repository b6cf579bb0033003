/**
 * A session's kernel on the built-in worker: the same KernelSupervisor as ipykernel and remote
 * kernels (queue, timeouts, interrupt escalation, deaths and replacement within the restart
 * policy), over the WorkerProvisioner and its signed loopback transport.
 */
import type { KernelSupervisor, SupervisorOptions } from '../kernel/supervision/supervisor.js';
import type { WorkerProvisioner, WorkerProvisionerOptions } from './worker-provisioner.js';

export { WorkerProvisioner } from './worker-provisioner.js';

export interface WorkerKernelOptions extends WorkerProvisionerOptions, SupervisorOptions {}

/** A kernel on the built-in worker, as `KernelSupervisor.start(new WorkerProvisioner(options), options)` builds it. */
export type WorkerKernel = KernelSupervisor<WorkerProvisioner>;
