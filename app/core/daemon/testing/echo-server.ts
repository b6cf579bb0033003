/**
 * A tiny real MCP server and services for the daemon's tests: `echo` answers at once with the
 * daemon's pid (so a test can tell daemons apart), `slow` waits until its time is up or it is
 * cancelled. The services record their lifecycle, and each `slow` call they start, in
 * `<state>/test-events.log`.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { DaemonServicesLike } from '../daemon.js';

export interface TestServices extends DaemonServicesLike {
  stateDir: string;
  calls: number;
}

export const TEST_EVENTS_FILE = 'test-events.log';

export function recordTestEvent(stateDir: string, event: string): void {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  appendFileSync(join(stateDir, TEST_EVENTS_FILE), `${event} ${process.pid}\n`);
}

export async function createTestServices(stateDir: string, startDelayMs = 0): Promise<TestServices> {
  if (startDelayMs) await new Promise((resolve) => setTimeout(resolve, startDelayMs));
  recordTestEvent(stateDir, 'services-created');
  const services: TestServices = {
    stateDir,
    calls: 0,
    async shutdown() {
      recordTestEvent(stateDir, 'services-shutdown');
    },
    async describe() {
      return { sessions: [{ name: 'default', state: 'idle', calls: services.calls }], interpreter: '/usr/bin/python3' };
    },
  };
  return services;
}

export function createEchoMcpServer(services: TestServices, connection: { id: string; client: string }): McpServer {
  const server = new McpServer({ name: 'python-session-test', version: '0.0.0' });
  server.registerTool('echo', { description: 'Echoes the text', inputSchema: { text: z.string() } }, async ({ text }) => {
    services.calls += 1;
    return {
      content: [{ type: 'text', text: `echo: ${text}` }],
      structuredContent: { text, pid: process.pid, connection: connection.id, client: connection.client },
    };
  });
  server.registerTool('slow', { description: 'Waits', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    services.calls += 1;
    recordTestEvent(services.stateDir, 'slow-started'); // a test can wait for the call to be running here
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()));
    });
    return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
  });
  return server;
}
