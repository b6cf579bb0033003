/** Real MCP clients driving the built command over stdio, each test with its own state folder. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_PYTHON, isAlive } from '../../app/core/testing/test-python.js';
import { waitFor, WaitTimeoutError } from '../../app/core/testing/wait-for.js';
import { FACTS_KEY } from '../../app/core/tools/tool-context.js';

export const CLI = fileURLToPath(new URL('../../app/cli/main.js', import.meta.url));

/** How long daemonPid waits for the daemon a shim is starting. */
const DAEMON_UP_MS = 15_000;

export interface Harness {
  home: string;
  env: Record<string, string>;
  /** A client over stdio; with `forms`, it declares form elicitation and `forms` answers each form as the person. */
  connect(name?: string, options?: { forms?: (params: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult> }): Promise<Client>;
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  daemonPid(): Promise<number | null>;
  close(): Promise<void>;
}

export type CallResult = {
  content: ({ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string })[];
  structuredContent?: Record<string, any>;
  _meta?: Record<string, any>;
  isError?: boolean;
  /** The machine-readable facts a tool gave: its structuredContent where the JSON is the answer, else its `_meta` facts. */
  facts?: Record<string, any>;
};

export function text(result: CallResult): string {
  return result.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}, options: Parameters<Client['callTool']>[2] = {}): Promise<CallResult> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000, ...options })) as CallResult;
  return { ...result, facts: result.structuredContent ?? result._meta?.[FACTS_KEY] };
}

export async function createHarness(extraEnv: Record<string, string> = {}, options: { home?: string } = {}): Promise<Harness> {
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'ps-e2e-')));
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
    PYTHON_MCP_HOME: home,
    PYTHON_MCP_INTERPRETER: TEST_PYTHON,
    ...extraEnv,
  };
  const clients: Client[] = [];
  const cli = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [CLI, ...args], { env, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  return {
    home,
    env,
    cli,
    async connect(name = 'e2e-client', options = {}) {
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'pipe' });
      const forms = options.forms;
      const client = new Client({ name, version: '1.0.0' }, forms ? { capabilities: { elicitation: { form: {} } } } : undefined);
      if (forms) client.setRequestHandler(ElicitRequestSchema, (request) => forms(request.params));
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async daemonPid() {
      // A shim answers initialize from the package's answers before the daemon it starts is up, so
      // a test that asks right after connecting waits for it (at most DAEMON_UP_MS; null if none).
      const live = async () => {
        try {
          const pid = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')).pid;
          return typeof pid === 'number' && isAlive(pid) ? pid : null;
        } catch {
          return null;
        }
      };
      try {
        return await waitFor('a daemon in the state folder', live, { timeoutMs: DAEMON_UP_MS });
      } catch (error) {
        if (error instanceof WaitTimeoutError) return null;
        throw error;
      }
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await cli('stop');
    },
  };
}
