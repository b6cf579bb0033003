/**
 * What the MCP server answers to `initialize` and `tools/list`, asked of a server built exactly
 * as each connection's is, over an in-memory transport (no client folder, no warming: nothing
 * runs). The daemon writes it for shims to answer with at once (app/cli/quick-answers.ts).
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../package-root.js';
import type { DaemonServices } from '../services.js';
import type { ToolContext } from '../tools/tool-context.js';
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
}

export async function describeMcpServer(services: DaemonServices): Promise<ServerDescription> {
  const unused = () => Promise.reject(new Error('no tool runs while the server is described'));
  const context: ToolContext = {
    sessions: services.sessions,
    settings: services.settings,
    stateDir: services.stateDir,
    startedAt: services.startedAt,
    clientName: () => 'python-session-answers',
    clientFolder: unused,
    startDefaults: unused,
  };
  const server = newMcpServer();
  registerTools(server, context);
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
    return { version: packageVersion(), protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS], initialize, tools };
  } finally {
    await server.close();
  }
}
