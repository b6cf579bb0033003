/**
 * A server's kernel over one scripted transport, for the supervisor's logic tests: a new
 * Incarnation object for the same transport at every call, as RemoteProvisioner hands out.
 */
import { EventEmitter } from 'node:events';
import type { Incarnation, KernelPlace, KernelProvisioner, ProvisionerEvents } from '../kernel/supervision/provisioner.js';
import type { KernelTransport } from '../kernel/messaging/transport.js';

export class OneTransportProvisioner<T extends KernelTransport> extends EventEmitter<ProvisionerEvents> implements KernelProvisioner {
  readonly owned = true;
  readonly helperTransport = 'inline-source' as const;
  readonly place: KernelPlace;
  readonly pid = undefined;
  readonly connectionFile = undefined;
  readonly logLines: string[] = [];
  /** The incarnations whose output the supervisor reported lost. */
  readonly lost: Incarnation[] = [];

  constructor(
    readonly transport: T,
    serverName: string,
    readonly endedFromElsewhere: boolean,
  ) {
    super();
    this.place = { kind: 'remote', serverName, serverUrl: 'http://127.0.0.1:1', kernelId: 'k1', kernelName: 'python3', connection: { state: 'connected', since: 0, attempts: 0 } };
  }

  private incarnation(): Incarnation {
    return { transport: this.transport, kernelInfo: {}, startedAt: 0 };
  }

  async start(): Promise<Incarnation> {
    return this.incarnation();
  }

  async restart(): Promise<Incarnation> {
    return this.incarnation();
  }

  async available(): Promise<Incarnation> {
    return this.incarnation();
  }

  async interrupt(): Promise<void> {}

  outputLost(incarnation: Incarnation): void {
    this.lost.push(incarnation);
  }

  async shutdown(): Promise<void> {}
}
