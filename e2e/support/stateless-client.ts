/** A client speaking the stateless MCP 2026-07-28 in raw JSON-RPC lines to one shim (the SDK 1.x client speaks only the handshake). */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { waitFor } from '../../app/core/testing/wait-for.js';
import { CLI } from './mcp-harness.js';

export const REVISION = '2026-07-28';
export type Message = { id?: string | number; method?: string; params?: any; result?: any; error?: any };

/** A client speaking raw lines to one shim; everything the shim says is kept. */
export class RawClient {
  readonly received: Message[] = [];
  private readonly shim: ChildProcessWithoutNullStreams;
  private pending = '';
  private next = 0;

  constructor(env: Record<string, string>, cwd: string) {
    this.shim = spawn(process.execPath, [CLI], { env, cwd });
    this.shim.stdout.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString();
      const lines = this.pending.split('\n');
      this.pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.received.push(JSON.parse(line) as Message);
    });
  }

  static meta(version = REVISION, extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = { roots: { listChanged: true } }): Record<string, unknown> {
    return {
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientInfo': { name: 'raw-2026-client', version: '1' },
      // Claude Code declares roots here too; in this revision the server may not ask for them.
      'io.modelcontextprotocol/clientCapabilities': capabilities,
      ...extra,
    };
  }

  send(message: object): void {
    this.shim.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  }

  /** Sends a request; resolves with its answer. */
  async request(method: string, params: Record<string, unknown> = {}, id: string | number = ++this.next): Promise<Message> {
    this.send({ id, method, params });
    return this.answer(id);
  }

  answer(id: string | number): Promise<Message> {
    return waitFor(`the answer to ${id}`, () => this.received.find((m) => m.id === id && m.method === undefined), { timeoutMs: 60_000 });
  }

  stateless(method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, capabilities?: Record<string, unknown>): Promise<Message> {
    return this.request(method, { ...params, _meta: RawClient.meta(REVISION, meta, capabilities) });
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.shim.once('exit', resolve));
    this.shim.stdin.end();
    await exited;
  }
}

