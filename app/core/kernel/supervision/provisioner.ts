/**
 * The second seam under the KernelSupervisor, in the spirit of jupyter_client's provisioners:
 * where a kernel runs and how its life is managed. Implemented by the local process group
 * (LocalProvisioner: spawn, signals, heartbeat, lifeline), by the Jupyter Server REST API
 * (RemoteProvisioner: start, interrupt, restart and delete over HTTP, with its reconnection,
 * backoff and server-side deaths), and by the built-in worker.
 *
 * The supervisor holds the policy (queue, runs, timeouts, interrupt escalation, what a death
 * costs, when to replace, restart, shutdown); a provisioner says what happened to its kernel and
 * does what it is asked. It never fails a run or counts names: it emits, and the supervisor acts.
 */
import type { EventEmitter } from 'node:events';
import type { ExitInfo } from '../process/kernel-process.js';
import type { KernelInfo, KernelTransport } from '../messaging/transport.js';

/** One kernel process as the supervisor sees it: a ready transport to it. */
export interface Incarnation {
  transport: KernelTransport;
  kernelInfo: KernelInfo;
  startedAt: number;
}

/** How the Python helpers reach a kernel: imported from this machine's files, or sent as source. */
export type HelperTransport = 'local-path' | 'inline-source';

export type ConnectionState = 'connected' | 'reconnecting' | 'gone' | 'closed';

/** The way to a kernel that can drop and come back (a server's WebSocket). */
export interface ConnectionStatus {
  state: ConnectionState;
  /** Epoch ms of the last change. */
  since: number;
  /** Why it dropped, for 'reconnecting' and 'gone'. */
  reason?: string;
  attempts: number;
  lastError?: string;
  nextAttemptAt?: number;
}

/**
 * Where a kernel runs, as data (the one name for it: the words are derived, by `placeLabel`):
 * this machine under ipykernel or the built-in worker, or a named server.
 */
export type KernelPlace =
  | { kind: 'local' }
  | { kind: 'worker' }
  | { kind: 'remote'; serverName: string; serverUrl: string; kernelId: string; kernelName: string; connection: ConnectionStatus };

/** A server for people: "lab (https://lab.example.org:8888/)". */
export function serverLabel(server: { name: string; url: string }): string {
  return `${server.name} (${server.url})`;
}

/** Where a kernel runs, in the words status has always used: "local" on this machine (ipykernel or the worker), else its server. */
export function placeLabel(place: KernelPlace): string {
  return place.kind === 'remote' ? serverLabel({ name: place.serverName, url: place.serverUrl }) : 'local';
}

/**
 * Who brings a kernel back after a death: the supervisor (it asks for a start, within its
 * restart policy), the provisioner itself (a server restarted its kernel; a reconnection
 * replaces a lost one), or nobody (a kernel we only attached to).
 */
export type Recovery = 'supervisor' | 'provisioner' | 'none';

export interface KernelDeath {
  /** What happened, in plain words without tool names: "the kernel exited with code 3". */
  what: string;
  /** The first line of the account, where "The Python kernel died: <what>." does not say it best. */
  headline?: string;
  /** What comes next, where the default for its recovery does not say it best. */
  nextStep?: string;
  exit: ExitInfo | null;
  /** The last lines of the kernel's own output, when they can be seen. */
  lastLines: string[];
  recovery: Recovery;
  /** A short cause for the 'restarted' event that follows a recovery by the provisioner. */
  cause?: string;
}

export type ProvisionerEvents = {
  /** The kernel process is gone (exited, killed after hanging, lost by its server; with recovery 'none', for good). */
  died: [death: KernelDeath];
  /** The way to the kernel went, the kernel itself may run on; the provisioner reconnects. `account`: what that means for a run. */
  disconnected: [account: string];
  /** The run in flight was ended from the kernel's side (its server shutting it down): what happened, and what comes next. */
  'run-ended-there': [headline: string, nextStep: string];
  /** A way to the kernel again: after 'disconnected', or a new process after a death it recovers from. */
  connected: [incarnation: Incarnation, freshProcess: boolean];
};

export interface KernelProvisioner extends EventEmitter<ProvisionerEvents> {
  /** Started by us (ours to restart and kill), or attached to someone else's. */
  readonly owned: boolean;
  readonly helperTransport: HelperTransport;
  readonly place: KernelPlace;
  /**
   * Its kernels can be shut down from elsewhere, and are interrupted first (a Jupyter server
   * stopping): a KeyboardInterrupt nobody here asked for then waits for the end that may follow,
   * until the kernel shows it goes on, so that is what the caller is told.
   */
  readonly endedFromElsewhere: boolean;
  readonly pid: number | undefined;
  /** How another client would attach to this kernel (a connection file, "<server>:<id>"). */
  readonly connectionFile: string | undefined;
  /** The kernel's own recent output lines, when we can see them. */
  readonly logLines: string[];

  /** Starts a fresh kernel (the first, or a replacement after a death) and waits until it answers. */
  start(): Promise<Incarnation>;
  /** Restarts the kernel in place: every variable is gone. */
  restart(current: Incarnation | null): Promise<Incarnation>;
  /**
   * The incarnation to send a request to, once the kernel can take one: waits a bounded time
   * while the provisioner is reconnecting, then rejects saying why nothing can be run.
   */
  available(): Promise<Incarnation>;
  /** Delivers an interrupt (a signal to the process group, interrupt_request, a REST call). */
  interrupt(current: Incarnation | null): Promise<void>;
  /**
   * The transport lost the output of a run (its reply came, none of its iopub): drop it and get
   * a new one, announced with 'connected'. The supervisor tells the run what happened, from `place`.
   */
  outputLost(incarnation: Incarnation): void;
  /**
   * Ends the kernel for good (an attached one is only disconnected). `polite`: ask it first.
   * Bounded in time; never throws.
   */
  shutdown(current: Incarnation | null, polite: boolean): Promise<void>;
}
