/**
 * MCP 2026-07-28 (stateless: no initialize; `server/discover`; version, name and capabilities in
 * each request's `_meta`) over the built command's stdio, as Claude Code 2.1.332 speaks it, next
 * to the `initialize` handshake on the same build. Raw JSON-RPC lines: the MCP SDK 1.x client
 * speaks only the handshake.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { cellGate } from '../app/core/testing/cell-gate.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { CLI } from './support/mcp-harness.js';
import { RawClient, REVISION } from './support/stateless-client.js';

const PACKAGED = fileURLToPath(new URL('../mcp-answers.json', import.meta.url));

const textOf = (result: any) => (result.content as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text).join('');

describe('MCP 2026-07-28 (stateless) beside the initialize handshake', () => {
  let root: string;
  let env: Record<string, string>;
  let project: string;
  let client: RawClient;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'ps-revisions-'));
    project = join(root, 'project');
    mkdirSync(project);
    env = {
      ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
      PYTHON_MCP_HOME: join(root, 'state'),
      PYTHON_MCP_INTERPRETER: TEST_PYTHON,
    };
    client = new RawClient(env, project);
  });

  after(async () => {
    await client?.close();
    await new Promise((resolve) => spawn(process.execPath, [CLI, 'stop'], { env, stdio: 'ignore' }).once('exit', resolve));
    rmSync(root, { recursive: true, force: true });
  });

  test('server/discover is answered (from the package’s answers while the daemon starts), then tools/list, with resultType and no initialize', async () => {
    const discover = await client.stateless('server/discover');
    const packaged = JSON.parse(readFileSync(PACKAGED, 'utf8'));
    assert.deepEqual(discover.result, packaged.discover);
    assert.equal(discover.result.resultType, 'complete');
    assert.deepEqual(discover.result.supportedVersions, [REVISION], 'the handshake versions are reached through initialize');
    assert.ok(discover.result.capabilities.tools);
    assert.equal(discover.result._meta['io.modelcontextprotocol/serverInfo'].name, 'python-session');
    assert.equal(discover.result.serverInfo, undefined, 'DiscoverResult names the server in _meta');
    assert.equal(typeof discover.result.ttlMs, 'number');
    assert.equal(discover.result.cacheScope, 'public');
    const tools = await client.stateless('tools/list');
    assert.equal(tools.result.resultType, 'complete');
    assert.ok(tools.result.tools.some((t: { name: string }) => t.name === 'run_python'));
  });

  test('the daemon answers server/discover itself just as the package does', async () => {
    await client.stateless('tools/call', { name: 'run_python', arguments: { code: '1+1' } }); // the daemon is linked now
    const discover = await client.stateless('server/discover');
    assert.deepEqual(discover.result, JSON.parse(readFileSync(PACKAGED, 'utf8')).discover);
  });

  test('a tool call runs and its result says it is complete; the session works in the client’s folder, roots never asked', async () => {
    const answer = await client.stateless('tools/call', { name: 'run_python', arguments: { code: 'import os\nprint(os.getcwd())' } });
    assert.equal(answer.result.resultType, 'complete');
    assert.equal(answer.result.isError, undefined, JSON.stringify(answer.result));
    assert.equal(textOf(answer.result).trim(), realpathSync(project));
    assert.deepEqual(client.received.filter((m) => m.method === 'roots/list'), [], 'no server-to-client request in this revision');
  });

  test('subscriptions/listen is acknowledged with the subset honoured, tagged with its id, and stays open', async () => {
    client.send({ id: 'listen-1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, promptsListChanged: true }, _meta: RawClient.meta() } });
    const ack = await waitFor('the acknowledgement', () => client.received.find((m) => m.method === 'notifications/subscriptions/acknowledged'), { timeoutMs: 30_000 });
    assert.deepEqual(ack.params, { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-1' } }, 'no prompts here: not acknowledged');
    await client.stateless('tools/list'); // answered after the acknowledgement: the stream is open, not answered
    assert.equal(client.received.find((m) => m.id === 'listen-1' && m.method === undefined), undefined);
  });

  test('a request declaring a version the server does not speak is refused with UnsupportedProtocolVersion', async () => {
    const refused = await client.request('tools/list', { _meta: RawClient.meta('2099-01-01') });
    assert.equal(refused.error.code, -32022);
    assert.equal(refused.error.data.requested, '2099-01-01');
    assert.ok(refused.error.data.supported.includes(REVISION));
  });

  test('progress notifications reach a stateless call (progressToken in _meta)', async () => {
    const gate = cellGate();
    const id = 'progress-call';
    client.send({ id, method: 'tools/call', params: { name: 'run_python', arguments: { code: `print('step one', flush=True)\n${gate.waitCode}\n'done'` }, _meta: RawClient.meta(REVISION, { progressToken: 'p-1' }) } });
    const progress = await waitFor('a progress notification', () => client.received.find((m) => m.method === 'notifications/progress' && m.params?.progressToken === 'p-1'), { timeoutMs: 60_000 });
    assert.match(progress.params.message ?? '', /step one/);
    gate.open();
    const answer = await client.answer(id);
    assert.equal(answer.result.resultType, 'complete');
    assert.match(textOf(answer.result), /done/);
  });

  test('notifications/cancelled stops a stateless call and interrupts the kernel', async () => {
    const started = join(root, 'cancel-started');
    const finished = join(root, 'cancel-finished');
    const id = 'cancelled-call';
    const code = `import time\nopen(${JSON.stringify(started)}, 'w').close()\nfor _ in range(600): time.sleep(0.1)\nopen(${JSON.stringify(finished)}, 'w').close()`;
    client.send({ id, method: 'tools/call', params: { name: 'run_python', arguments: { code }, _meta: RawClient.meta() } });
    await waitFor('the cell to be running', () => existsSync(started), { timeoutMs: 60_000 });
    client.send({ method: 'notifications/cancelled', params: { requestId: id, reason: 'the user pressed Esc' } });
    await waitFor('the kernel to go back to idle', async () => {
      const status = await client.stateless('tools/call', { name: 'kernel_status', arguments: {} });
      return /idle/.test(textOf(status.result)) || status.result.structuredContent?.state === 'idle';
    }, { timeoutMs: 30_000 });
    assert.equal(existsSync(finished), false, 'the loop was interrupted, not run to its end');
  });

  test('a handshake client on the same daemon still gets initialize, with no resultType added to its results', async () => {
    const old = new RawClient(env, project);
    try {
      const init = await old.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-2025-client', version: '1' } });
      assert.equal(init.result.protocolVersion, '2025-11-25');
      old.send({ method: 'notifications/initialized' });
      const tools = await old.request('tools/list');
      assert.equal(tools.result.resultType, undefined);
      assert.ok(tools.result.tools.length > 10);
      const call = await old.request('tools/call', { name: 'run_python', arguments: { code: '6*7' } });
      assert.equal(textOf(call.result).trim(), '42');
    } finally {
      await old.close();
    }
  });
});
