/**
 * The two MCP revisions served over stdio, chosen per connection by what the client sends:
 *
 * - the `initialize` handshake (2025-11-25, 2025-06-18, 2025-03-26 and older), and
 * - the stateless 2026-07-28: no handshake; `server/discover` says what the server is, and every
 *   request carries the client's version, name and capabilities in its `_meta`; results carry
 *   `resultType`.
 *
 * Change notifications reach a 2026-07-28 client only on a `subscriptions/listen` stream it opened,
 * tagged with that request's id.
 *
 * No imports: the shim (built-ins only) answers `server/discover` and reads `_meta` with these too.
 */

export const STATELESS_REVISION = '2026-07-28';

/** The `_meta` keys of a 2026-07-28 request. */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** The JSON-RPC error for a request whose `_meta` names a version the server does not speak. */
export const UNSUPPORTED_PROTOCOL_VERSION_CODE = -32022;

export const DISCOVER_METHOD = 'server/discover';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The protocol version a request's `_meta` declares (2026-07-28 and later), or undefined for a request of the handshake revisions. */
export function declaredVersion(params: unknown): string | undefined {
  if (!isRecord(params) || !isRecord(params._meta)) return undefined;
  const version = params._meta[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/** The client's name from a request's `_meta`, when it gives one. */
export function declaredClientName(params: unknown): string | undefined {
  if (!isRecord(params) || !isRecord(params._meta)) return undefined;
  const info = params._meta[META_CLIENT_INFO];
  const name = isRecord(info) ? info.name : undefined;
  return typeof name === 'string' && name.trim() ? name.trim() : undefined;
}

/**
 * The versions a request may declare in `_meta`, as `server/discover` lists them. The handshake
 * revisions are not among them: a client reaches those with `initialize`, which negotiates them.
 */
export const STATELESS_VERSIONS: readonly string[] = [STATELESS_REVISION];

/** Where a 2026-07-28 result names the server (DiscoverResult has no serverInfo member). */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** The error for a request declaring a version not in `supported`. */
export function unsupportedVersionError(id: string | number, requested: string, supported: readonly string[]): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: UNSUPPORTED_PROTOCOL_VERSION_CODE,
      message: `Unsupported protocol version ${requested}; this server speaks ${supported.join(', ')}.`,
      data: { requested, supported: [...supported] },
    },
  };
}

/** A result for a 2026-07-28 request: every one says whether it is complete. */
export function completeResult(result: Record<string, unknown>): Record<string, unknown> {
  return result.resultType === undefined ? { resultType: 'complete', ...result } : result;
}

export const LISTEN_METHOD = 'subscriptions/listen';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/**
 * Whether a `subscriptions/listen` request asks for `notifications/tools/list_changed`, the one
 * change this server can announce (no prompts or resources).
 */
export function listensForTools(params: unknown): boolean {
  return isRecord(params) && isRecord(params.notifications) && params.notifications.toolsListChanged === true;
}

/** The acknowledgement a subscription opens with: the subset of what it asked for that is honoured. */
export function subscriptionAcknowledged(id: string | number, tools: boolean): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: tools ? { toolsListChanged: true } : {}, _meta: { [META_SUBSCRIPTION_ID]: id } },
  };
}

/** `notifications/tools/list_changed` on the subscription opened by request `id`. */
export function toolsChangedOn(id: string | number): Record<string, unknown> {
  return { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [META_SUBSCRIPTION_ID]: id } } };
}
