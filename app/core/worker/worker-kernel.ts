/**
 * A session's kernel on the built-in worker: the same KernelSupervisor as ipykernel and remote
 * kernels (queue, timeouts, interrupt escalation, deaths and replacement within the restart
 * policy), over the WorkerProvisioner and its signed loopback transport.
 */
import type { SessionKernel } from '../kernel/supervision/session-kernel.js';
import { KernelSupervisor, type SupervisorOptions } from '../kernel/supervision/supervisor.js';
import { WorkerProvisioner, type WorkerProvisionerOptions } from './worker-provisioner.js';

export interface WorkerKernelOptions extends WorkerProvisionerOptions, SupervisorOptions {}

export class WorkerKernel extends KernelSupervisor implements SessionKernel {
  private constructor(provisioner: WorkerProvisioner, options: WorkerKernelOptions) {
    super(provisioner, options);
  }

  /** Starts a worker in the given interpreter and waits until it answers. */
  static async start(options: WorkerKernelOptions): Promise<WorkerKernel> {
    const provisioner = new WorkerProvisioner(options);
    const kernel = new WorkerKernel(provisioner, options);
    await kernel.begin(provisioner.start());
    return kernel;
  }
}
