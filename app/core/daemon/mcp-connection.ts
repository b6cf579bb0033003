/**
 * One client's MCP session on a daemon socket: its own McpServer, over the SDK's stdio
 * transport pointed at the socket (newline-delimited JSON-RPC both ways, as on stdio). Either
 * side closing ends both, and nothing the peer sends can throw out of here.
 */
import type { Socket } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export interface McpConnection {
  readonly id: string;
  readonly client: string;
  readonly since: Date;
  /** Resolves once the socket has closed and the server with it. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

export interface McpConnectionOptions {
  id: string;
  client: string;
  socket: Socket;
  server: McpServer;
  onError: (error: unknown) => void;
}

/** Connects `server` to `socket`, which must be paused with any unread bytes still on it. */
export async function serveMcpConnection(options: McpConnectionOptions): Promise<McpConnection> {
  const { socket, server } = options;
  const transport = new StdioServerTransport(socket, socket);
  await server.connect(transport);
  // Chain after connect(), which installs the protocol's own handlers; keep any the factory set.
  const protocol = server.server;
  const previousOnClose = protocol.onclose;
  protocol.onclose = () => {
    previousOnClose?.();
    socket.destroy(); // the transport gave up (say, an oversized message): hang up too
  };
  const previousOnError = protocol.onerror;
  protocol.onerror = (error) => {
    previousOnError?.(error);
    options.onError(error);
  };

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= server
      .close()
      .catch(options.onError)
      .finally(() => socket.destroy()));
  const closed = new Promise<void>((resolve) => {
    // The peer may have hung up while the server was being connected.
    if (socket.destroyed) void close().then(resolve);
    else socket.once('close', () => void close().then(resolve));
  });
  socket.resume();
  return { id: options.id, client: options.client, since: new Date(), closed, close };
}
