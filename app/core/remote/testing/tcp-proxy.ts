/**
 * A loopback TCP relay in front of a test server, so a test can cut every open connection
 * (a network drop) while the server and its kernels keep running, then let new ones through.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  url: string;
  /** Destroys every connection now open (both sides), without a WebSocket close frame. */
  cutAll(): number;
  /** While paused, new connections are refused at once (the network is "down"). */
  pause(paused: boolean): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let paused = false;
  const server: Server = createServer((client) => {
    if (paused) return client.destroy();
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const cutAll = () => {
    const n = pairs.size;
    for (const [a, b] of [...pairs]) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
    return n;
  };
  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    cutAll,
    pause(value) {
      paused = value;
    },
    async close() {
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
