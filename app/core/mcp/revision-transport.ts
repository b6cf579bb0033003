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
 *   and `onStatelessClient` is told once, at the first such request (in place of `initialized`);
 * - `subscriptions/listen` is answered here: acknowledged at once (tools/list_changed is the one
 *   change this server announces) and held open; the server's `notifications/tools/list_changed`
 *   then goes to each such subscription, tagged with its id, and to a stateless client that
 *   opened none, not at all (it never asked for it).
 *
 * - a tool's input-required result (person-forms.ts) gets its wire shape here, and a retry's
 *   `requestState` and `inputResponses` (members of the request's params that the SDK does not
 *   hand a tool) are kept for the tool by request id until its result goes.
 *
 * `server/discover` itself is a request handler on the server (server.ts), so the in-memory
 * description (describe-server.ts) asks it as a client would.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import {
  completeResult,
  declaredClientName,
  declaredVersion,
  LISTEN_METHOD,
  listensForTools,
  STATELESS_REVISION,
  subscriptionAcknowledged,
  toolsChangedOn,
  unsupportedVersionError,
} from './revisions.js';
import { INPUT_REQUIRED_KEY, retryOf } from './person-forms.js';
import type { FormRetry } from '../tools/tool-context.js';

type Id = string | number;
const key = (id: unknown) => JSON.stringify(id);

export interface RevisionHooks {
  /** The versions a request may declare in `_meta` (revisions.ts STATELESS_VERSIONS). */
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
  /** Retries of input-required calls in flight, by id key: what their params carried. */
  private readonly retries = new Map<string, FormRetry>();
  /** Open `subscriptions/listen` streams that asked for tools/list_changed, by id key. */
  private readonly toolSubscriptions = new Map<string, Id>();

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
    if (m.method === 'notifications/cancelled') {
      this.stateless.delete(key(m.params?.requestId));
      this.retries.delete(key(m.params?.requestId));
      this.toolSubscriptions.delete(key(m.params?.requestId)); // the client closed that stream
    }
    if (typeof m.method === 'string' && m.id !== undefined) {
      const version = declaredVersion(m.params);
      if (version !== undefined) {
        if (!this.hooks.supported.includes(version)) {
          void this.inner.send(unsupportedVersionError(m.id, version, this.hooks.supported) as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
          return;
        }
        if (version === STATELESS_REVISION) {
          if (m.method === LISTEN_METHOD) return this.listen(m.id, m.params);
          this.stateless.add(key(m.id));
          const retry = retryOf(m.params);
          if (retry) this.retries.set(key(m.id), retry);
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

  /** What the retry with this request id carries, while it is in flight. */
  retry(id: Id): FormRetry | undefined {
    return this.retries.get(key(id));
  }

  private listen(id: Id, params: unknown): void {
    const tools = listensForTools(params);
    if (tools) this.toolSubscriptions.set(key(id), id);
    void this.inner.send(subscriptionAcknowledged(id, tools) as JSONRPCMessage).catch((e: Error) => this.onerror?.(e));
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: Id; method?: string; result?: Record<string, unknown>; error?: unknown };
    if (m.method === 'notifications/tools/list_changed' && this.statelessSeen) {
      return Promise.all([...this.toolSubscriptions.values()].map((id) => this.inner.send(toolsChangedOn(id) as JSONRPCMessage, options))).then(() => undefined);
    }
    if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) this.retries.delete(key(m.id));
    if (m.id !== undefined && (m.result !== undefined || m.error !== undefined) && this.stateless.delete(key(m.id)) && m.result) {
      const asks = (m.result._meta as Record<string, unknown> | undefined)?.[INPUT_REQUIRED_KEY] as Record<string, unknown> | undefined;
      const result = asks ? { resultType: 'input_required', inputRequests: asks.inputRequests, requestState: asks.requestState } : completeResult(m.result);
      message = { ...message, result } as JSONRPCMessage;
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
