/**
 * Serves the stateless 2026-07-28 revision beside the handshake ones over one SDK 1.x transport
 * (see revisions.ts). The SDK's server already answers a request without an `initialize` first;
 * what the revision adds is done here, per request, so one connection follows whatever its
 * client sends:
 *
 * - a request whose `_meta` declares a version this server does not speak is answered with
 *   UnsupportedProtocolVersion and never reaches a handler;
 * - a result to a request that declared 2026-07-28 carries `resultType: "complete"`;
 * - the client's name from `_meta` is kept (the handshake's `clientInfo` has no stateless twin),
 *   and `onStatelessClient` is told once, at the first such request (in place of `initialized`).
 *
 * `server/discover` itself is a request handler on the server (server.ts), so the in-memory
 * description (describe-server.ts) asks it as a client would.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { completeResult, declaredClientName, declaredVersion, STATELESS_REVISION, unsupportedVersionError } from './revisions.js';

type Id = string | number;
const key = (id: unknown) => JSON.stringify(id);

export interface RevisionHooks {
  /** Every version served (revisions.ts supportedVersions). */
  supported: readonly string[];
  /** Called once, at the first request of the stateless revision. */
  onStatelessClient?: () => void;
}

export class RevisionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The client's name from a stateless request's `_meta` (the latest one given). */
  statelessClientName: string | undefined;
  private statelessSeen = false;
  /** Stateless requests awaiting their result. */
  private readonly stateless = new Set<string>();

  constructor(
    private readonly inner: Transport,
    private readonly hooks: RevisionHooks,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onmessage = (message, extra) => this.fromClient(message, extra);
    return this.inner.start();
  }

  private fromClient(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const m = message as { id?: Id; method?: unknown; params?: { requestId?: unknown } };
    // A cancelled request gets no result: forget it.
    if (m.method === 'notifications/cancelled') this.stateless.delete(key(m.params?.requestId));
    if (typeof m.method === 'string' && m.id !== undefined) {
      const version = declaredVersion(m.params);
      if (version !== undefined) {
        if (!this.hooks.supported.includes(version)) {
          void this.inner.send(unsupportedVersionError(m.id, version, this.hooks.supported) as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
          return;
        }
        if (version === STATELESS_REVISION) {
          this.stateless.add(key(m.id));
          this.statelessClientName = declaredClientName(m.params) ?? this.statelessClientName;
          if (!this.statelessSeen) {
            this.statelessSeen = true;
            queueMicrotask(() => this.hooks.onStatelessClient?.());
          }
        }
      }
    }
    this.onmessage?.(message, extra);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: Id; result?: Record<string, unknown>; error?: unknown };
    if (m.id !== undefined && (m.result !== undefined || m.error !== undefined) && this.stateless.delete(key(m.id)) && m.result) {
      message = { ...message, result: completeResult(m.result) } as JSONRPCMessage;
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }
}
