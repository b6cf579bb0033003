/**
 * Free loopback ports for a kernel's five sockets. All five are bound at once
 * (so the OS cannot hand one out twice) and a process-wide reservation keeps
 * concurrent launches in this process from racing for the same port between
 * our release and the kernel's bind.
 */
import { createServer, type Server } from 'node:net';

const reserved = new Map<number, NodeJS.Timeout>();
const RESERVATION_MS = 60_000;

function listen(host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

export async function allocatePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = await listen(host);
      servers.push(server);
      const { port } = server.address() as { port: number };
      if (reserved.has(port)) continue; // still promised to another launch; keep it bound and take another
      ports.push(port);
    }
  } finally {
    await Promise.all(servers.map(close));
  }
  for (const port of ports) reserve(port);
  return ports;
}

function reserve(port: number): void {
  const timer = setTimeout(() => reserved.delete(port), RESERVATION_MS);
  timer.unref();
  reserved.set(port, timer);
}

/** Called once the kernel owns its ports (bound and answering). */
export function releasePorts(ports: readonly number[]): void {
  for (const port of ports) {
    clearTimeout(reserved.get(port));
    reserved.delete(port);
  }
}
