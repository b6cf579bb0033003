/**
 * What a session needs of its kernel, wherever it runs: a local ipykernel
 * process (Kernel) or a kernel on a Jupyter Server (RemoteKernel). Events:
 * 'state' (KernelState), 'died' (KernelDiedError), 'restarted' ({cause, lostNames}).
 */
import type { EventEmitter } from 'node:events';
import type { ExecuteOptions, KernelState } from './kernel.js';
import type { KernelInfo } from './kernel-client.js';
import type { ExecutionResult } from './outputs.js';

export interface SessionKernel extends EventEmitter {
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
  readonly restartCount: number;
  readonly executionCount: number;
  /** Where it runs, for people: "local", or the remote server's name and URL. */
  readonly location: string;
  /** The registered name of the remote server it runs on (see ServerRegistry); undefined for a local kernel. */
  readonly serverName?: string;
  /** How the Python helpers reach it: imported from this machine's files, or sent as source. */
  readonly helperTransport: 'local-path' | 'inline-source';
  /** The kernel's own recent stdout/stderr lines, when we can see them. */
  readonly logLines: string[];
  execute(code: string, options?: ExecuteOptions): Promise<ExecutionResult>;
  interrupt(): Promise<{ restarted: boolean }>;
  restart(): Promise<{ lostNames: string[] }>;
  shutdown(): Promise<void>;
}
