/**
 * The shim as MCP clients run it: a real SDK Client spawning it over stdio, a real daemon it
 * starts by itself, and that daemon killed mid-call.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { processAlive } from '../core/daemon/instance-lock.js';
import { ECHO_SHIM_MAIN, TestHome } from '../core/daemon/testing/daemon-processes.js';
import { waitFor } from '../core/testing/wait-for.js';
import { DAEMON_STOPPED_MESSAGE, SESSIONS_LOST_NOTICE } from './shim-relay.js';

let home: TestHome;
let used: TestHome | undefined;
const clients: Connected[] = [];

afterEach(async () => {
  const closing = clients.splice(0);
  await Promise.allSettled(closing.map((c) => c.client.close()));
  if (!home || home === used) return;
  used = home;
  for (const c of closing) home.adoptSpawnedBy(c.stderr());
  await home.cleanup();
  assert.deepEqual(home.liveDaemons(), [], 'no daemon left behind');
});

interface Connected {
  client: Client;
  shimPid: number;
  errors: Error[];
  stderr: () => string;
}

async function connectClient(name = 'shim-test'): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ECHO_SHIM_MAIN],
    env: home.env() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (d) => (stderr += d));
  const client = new Client({ name, version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error); // e.g. a line on stdout that is not JSON-RPC
  const connected = { client, shimPid: 0, errors, stderr: () => stderr };
  clients.push(connected);
  await client.connect(transport);
  connected.shimPid = transport.pid!;
  return connected;
}

type Text = { type: 'text'; text: string };
const texts = (result: Record<string, unknown>) => (result.content as Text[]).map((c) => c.text);
const echoPid = (result: Record<string, unknown>) => (result.structuredContent as { pid: number }).pid;

describe('the shim', () => {
  test('loads nothing heavy: only node built-ins and its own small modules', () => {
    const heavy = /@modelcontextprotocol|zod|zeromq|electron|conf\b/;
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const [, specifier] of source.matchAll(/^\s*import\s+(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
        if (specifier.startsWith('node:')) continue;
        assert.ok(specifier.startsWith('.'), `${file} imports the package ${specifier}`);
        assert.doesNotMatch(specifier, heavy);
        visit(resolve(dirname(file), specifier));
      }
    };
    visit(fileURLToPath(new URL('./shim.js', import.meta.url)));
    assert.ok(seen.size >= 4, `followed ${seen.size} modules`);
    // mcp/revisions.js imports nothing: the protocol's names, which the shim reads in _meta too.
    for (const file of seen) assert.doesNotMatch(file, /mcp-connection|daemon\.js$|\/mcp\/(?!revisions\.js$)/, `${file} is daemon-side`);
  });

  test('starts a daemon when none runs and relays a whole MCP session; the daemon outlives the client', async () => {
    home = new TestHome();
    const first = await connectClient('first-client');
    const tools = await first.client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['echo', 'slow']);
    const answer = await first.client.callTool({ name: 'echo', arguments: { text: 'héllo 日本' } });
    assert.deepEqual(texts(answer), ['echo: héllo 日本']);
    assert.equal((answer.structuredContent as { client: string }).client, 'first-client', 'the handshake carries the client name');
    const daemonPid = echoPid(answer);
    assert.equal(home.infoPid(), daemonPid);

    await first.client.close();
    await waitFor('the shim to exit when its stdin closes', () => !processAlive(first.shimPid), { timeoutMs: 5000 });
    assert.ok(processAlive(daemonPid), 'the daemon stays for the next client');

    const second = await connectClient();
    assert.equal(echoPid(await second.client.callTool({ name: 'echo', arguments: { text: 'again' } })), daemonPid);
    assert.deepEqual([...first.errors, ...second.errors], [], 'stdout carried JSON-RPC only');
    assert.match(first.stderr(), /started one \(pid \d+\)/);
  });

  test('a fresh shim answers initialize by itself and exits 0 when its stdin ends', async () => {
    // How fast it answers is measured in bench/mcp-path.ts (shim start to `initialize` answered).
    home = new TestHome();
    await connectClient(); // a daemon is running
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fresh', version: '1' } } }) + '\n';
    const shim = spawn(process.execPath, [ECHO_SHIM_MAIN], { env: home.env() });
    const exit = new Promise((resolve) => shim.once('exit', resolve));
    shim.stdin.write(initialize);
    const line = await new Promise<string>((resolve) => shim.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    assert.equal(JSON.parse(line).id, 1);
    shim.stdin.end();
    assert.equal(await exit, 0);
  });

  test('two shims started at once with no daemon share exactly one', async () => {
    home = new TestHome();
    const [a, b] = await Promise.all([connectClient('a'), connectClient('b')]);
    const [pa, pb] = await Promise.all([a.client, b.client].map(async (c) => echoPid(await c.callTool({ name: 'echo', arguments: { text: 'x' } }))));
    assert.equal(pa, pb);
    assert.deepEqual(home.pidsWith('started'), [pa]);
    await waitFor('any second daemon to give way', () => home.liveDaemons().length === 1, { timeoutMs: 5000 });
  });

  test('a daemon killed mid-call: the call fails at once, the next one runs on a new daemon and says what was lost', { skip: process.platform === 'win32', timeout: 60_000 }, async () => {
    home = new TestHome();
    const { client, errors } = await connectClient();
    const firstPid = echoPid(await client.callTool({ name: 'echo', arguments: { text: 'before' } }));

    const slow = client.callTool({ name: 'slow', arguments: { ms: 600_000 } }, undefined, { timeout: 600_000 });
    await waitFor('the slow call to be running in the daemon', () => home.pidsWith('slow-started').includes(firstPid));
    process.kill(firstPid, 'SIGKILL');
    // The shim fails the call as the daemon goes; left hanging, it would run for ten minutes (the test gives up after one).
    await assert.rejects(slow, (error: Error) => error.message.includes(DAEMON_STOPPED_MESSAGE));

    const after = await client.callTool({ name: 'echo', arguments: { text: 'after' } });
    assert.notEqual(echoPid(after), firstPid);
    assert.deepEqual(texts(after), [SESSIONS_LOST_NOTICE, 'echo: after']);
    const later = await client.callTool({ name: 'echo', arguments: { text: 'later' } });
    assert.deepEqual(texts(later), ['echo: later'], 'the note comes once');
    assert.deepEqual(errors, []);
  });
});
