/** Which MCP revision a client spoke, read from a run's wire log (wire-tee.ts). */
import type { WireLine } from './scripted-run.js';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

export interface SpokenRevision {
  /** The method of the client's first message. */
  first: string | undefined;
  /** The version the client's initialize asked for, when it sent one. */
  initialize: string | undefined;
  /** The versions the client's requests declared in `_meta`, with how many declared each ("none" for none). */
  declared: Record<string, number>;
  /** Answers from the server with JSON-RPC's Method not found. */
  methodNotFound: WireLine[];
  /** Methods the client sent, in order, once each. */
  methods: string[];
}

export function spokenRevision(wire: WireLine[]): SpokenRevision {
  const fromClient = wire.filter((l) => l.from === 'client' && typeof l.message.method === 'string');
  const declared: Record<string, number> = {};
  for (const line of fromClient) {
    if (line.message.id === undefined) continue; // notifications carry no version
    const version = String(line.message.params?._meta?.[VERSION_KEY] ?? 'none');
    declared[version] = (declared[version] ?? 0) + 1;
  }
  const initialize = fromClient.find((l) => l.message.method === 'initialize');
  return {
    first: fromClient[0]?.message.method,
    initialize: initialize?.message.params?.protocolVersion,
    declared,
    methodNotFound: wire.filter((l) => l.from === 'server' && l.message.error?.code === -32601),
    methods: [...new Set(fromClient.map((l) => l.message.method as string))],
  };
}
