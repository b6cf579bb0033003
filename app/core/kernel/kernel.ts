/**
 * A kernel on this machine: the KernelSupervisor over a LocalProvisioner (an ipykernel process
 * group, or a kernel attached by its connection file) and the ZeroMQ KernelClient. Built as every
 * kind is, with `KernelSupervisor.start`.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalProvisioner, LocalProvisionerOptions } from './local-provisioner.js';
import type { KernelSupervisor, SupervisorOptions } from './supervision/supervisor.js';

export { KernelClosedError, KernelDiedError, KernelGaveUpError, KernelNotOursError, KernelUnavailableError, ConnectionLostError } from './supervision/kernel-errors.js';
export { LocalProvisioner } from './local-provisioner.js';
export { DEFAULT_INTERRUPT_GRACE_MS, KernelSupervisor, type ExecuteOptions, type KernelEvents, type KernelState, type RestartedInfo } from './supervision/supervisor.js';

export interface KernelOptions extends LocalProvisionerOptions, SupervisorOptions {}

/** A kernel on this machine, as `KernelSupervisor.start(new LocalProvisioner(options), options)` builds it. */
export type Kernel = KernelSupervisor<LocalProvisioner>;

/** The options for a kernel someone else started (attached by connection file): signalled by message, never restarted by us. */
export function attachedKernelOptions(options: Partial<KernelOptions> = {}): KernelOptions {
  return { interpreter: '', interruptMode: 'message', autoRestart: false, ...options };
}

export function defaultSpillPath(): string {
  return join(tmpdir(), `python-session-output-${randomUUID()}.txt`);
}
