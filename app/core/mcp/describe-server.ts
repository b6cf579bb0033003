/**
 * What the MCP server answers to `initialize`, `tools/list` and `server/discover`, asked of a
 * server built exactly as each connection's is, over an in-memory transport (no client folder,
 * no warming: nothing runs, and nothing of a state folder is read). `npm run build` writes it into
 * the package (app/cli/package-answers.ts) and every daemon into its state folder, for shims to
 * answer with at once (app/cli/quick-answers.ts).
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../package-root.js';
import type { ToolContext } from '../tools/tool-context.js';
import { DISCOVER_METHOD, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, STATELESS_REVISION } from './revisions.js';
import { newMcpServer, registerTools } from './server.js';

export interface ServerDescription {
  /** The package version that answers so. */
  version: string;
  /** The protocol versions the server accepts, newest first (how initialize negotiates). */
  protocolVersions: string[];
  /** The initialize result without its protocolVersion. */
  initialize: Record<string, unknown>;
  /** The tools/list result (one page). */
  tools: Record<string, unknown>;
  /** The server/discover result, as a 2026-07-28 client gets it (resultType included). */
  discover: Record<string, unknown>;
}

/**
 * The context the tools are registered with here. Registration only takes hold of its members
 * (a registrar may keep `context.sessions` for later); any use of one (a tool run, a state
 * folder, a setting) throws instead of putting this machine's state into answers that ship with
 * the package.
 */
function describingContext(): ToolContext {
  const fail = (what: string): never => {
    throw new Error(`${what} was used while the server was described: no tool runs then`);
  };
  const unusable = (name: string): unknown =>
    new Proxy(() => undefined, {
      get: (_target, property) => fail(`context.${name}.${String(property)}`),
      apply: () => fail(`context.${name}()`),
      construct: () => fail(`new context.${name}()`),
    });
  return new Proxy({} as ToolContext, { get: (_target, property) => unusable(String(property)) });
}

export async function describeMcpServer(): Promise<ServerDescription> {
  const server = newMcpServer();
  registerTools(server, describingContext());
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  ours.onmessage = (message: JSONRPCMessage) => {
    const reply = message as Record<string, unknown>;
    if (typeof reply.id === 'number') waiting.get(reply.id)?.(reply);
  };
  let next = 0;
  const ask = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const id = ++next;
    const reply = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    await ours.send({ jsonrpc: '2.0', id, method, params });
    const answer = await reply;
    if (!answer.result) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
    return answer.result as Record<string, unknown>;
  };
  await server.connect(theirs);
  try {
    const { protocolVersion: _negotiated, ...initialize } = await ask('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'python-session-answers', version: packageVersion() },
    });
    const tools = await ask('tools/list', {});
    const discover = await ask(DISCOVER_METHOD, {
      _meta: {
        [META_PROTOCOL_VERSION]: STATELESS_REVISION,
        [META_CLIENT_INFO]: { name: 'python-session-answers', version: packageVersion() },
        [META_CLIENT_CAPABILITIES]: {},
      },
    });
    return { version: packageVersion(), protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS], initialize, tools, discover };
  } finally {
    await server.close();
  }
}
