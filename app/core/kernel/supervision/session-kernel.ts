/**
 * What a session needs of its kernel, wherever it runs: every kind is a KernelSupervisor over a
 * provisioner and a transport (Kernel on this machine, RemoteKernel on a Jupyter server, the
 * built-in worker). Its events are typed (KernelEvents): 'state', 'died', 'restarted', 'foreign-cell'.
 */
import type { EventEmitter } from 'node:events';
import type { HelperTransport, KernelPlace } from './provisioner.js';
import type { ExecuteOptions, KernelEvents, KernelState } from './supervisor.js';
import type { KernelInfo } from '../messaging/transport.js';
import type { ExecutionResult } from '../execution/outputs.js';
import type { OutputLimits } from '../execution/output-collector.js';
import type { NameFingerprints } from '../execution/user-names.js';

export interface SessionKernel extends EventEmitter<KernelEvents> {
  /** Started by us (ours to restart and kill), or attached to someone else's. */
  readonly owned: boolean;
  readonly state: KernelState;
  /** Local process id; undefined for remote kernels. */
  readonly pid: number | undefined;
  readonly connectionFile: string | undefined;
  readonly kernelInfo: KernelInfo | undefined;
  readonly startedAt: number | undefined;
  /** The user's variable names after the last execution (what a crash would lose). */
  readonly knownNames: readonly string[];
  /** The same names with a fingerprint each (the ids of value and type): compare two readings with namesChange. */
  readonly nameFingerprints: NameFingerprints;
  /** Another client's cell ended since the names were last read. */
  readonly namesStale: boolean;
  /** Reads the names again with one silent request that runs nothing. */
  refreshNames(): Promise<NameFingerprints>;
  /** Bounds for the cells other Jupyter clients run on it ('foreign-cell' events). */
  foreignLimits: () => OutputLimits;
  readonly restartCount: number;
  readonly executionCount: number;
  /** Where it runs, as data: this machine, a server (its name, URL, kernel id and connection), the worker. */
  readonly place: KernelPlace;
  /** How the Python helpers reach it: imported from this machine's files, or sent as source. */
  readonly helperTransport: HelperTransport;
  /** The kernel's own recent stdout/stderr lines, when we can see them. */
  readonly logLines: string[];
  execute(code: string, options?: ExecuteOptions): Promise<ExecutionResult>;
  interrupt(): Promise<{ restarted: boolean }>;
  restart(): Promise<{ lostNames: string[] }>;
  shutdown(): Promise<void>;
}
