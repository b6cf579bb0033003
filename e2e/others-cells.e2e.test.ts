/**
 * One session, three parties: the model (through MCP), the person's own Jupyter client attached by
 * the kernel's connection file, and the person in the panel. A real `jupyter_client` reads what the
 * model built and runs a cell of its own; that cell is in the session log as "another client" with
 * its output and in the exported notebook in order, and the model's next reply opens with the one
 * line that tells it, once. A cell submitted as the panel's is told as the person's.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { createMcpServer } from '../app/core/mcp/server.js';
import { createServices, type DaemonServices } from '../app/core/services.js';
import { startPanelServer, type PanelServer } from '../app/core/daemon/panel/server.js';
import { SseParser } from '../app/core/daemon/panel/sse-reader.js';
import { ANOTHER_CLIENT } from '../app/core/sessions/parties.js';
import type { LogEntry } from '../app/core/sessions/session-log.js';
import { runInAttachedClient } from '../app/core/testing/attached-client.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';

const MODEL_FRAME = "import pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Lima'], 'sales': [12, 30]})";
const PERSON_CELL = "print(df)\ndf2 = df.assign(double=df.sales * 2)";

/** The connection file a kernel process was started with (Linux /proc). */
function connectionFileOf(pid: number): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const at = args.indexOf('-f');
  assert.ok(at >= 0, `kernel ${pid} was started without -f: ${args.join(' ')}`);
  return args[at + 1];
}

function logEntries(home: string, session = 'default'): LogEntry[] {
  try {
    return readFileSync(join(home, 'sessions', session, 'log.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogEntry);
  } catch {
    return [];
  }
}

const countOf = (printed: string) => Number(printed.match(/\[execution_count (\d+)\]/)?.[1]);

describe('another Jupyter client on a session the daemon started, through the built command', () => {
  let harness: Harness;
  before(async () => {
    harness = await createHarness();
  });
  after(async () => {
    await harness?.close();
  });

  test('it reads the model’s variables, its cell is logged with its output, and the model is told once', { timeout: 180_000 }, async () => {
    const client = await harness.connect();
    await call(client, 'run_python', { code: MODEL_FRAME });
    const status = await call(client, 'kernel_status', {});
    const file = connectionFileOf(status.facts!.pid);

    const printed = await runInAttachedClient(file, PERSON_CELL);
    assert.match(printed, /Oslo\s+12/, 'the attached client reads the frame the model built');
    const count = countOf(printed);

    const entry = await waitFor('the other client’s cell in the session log', () => logEntries(harness.home).find((e) => e.client === ANOTHER_CLIENT));
    assert.equal(entry.code, PERSON_CELL);
    assert.equal(entry.executionCount, count);
    assert.equal(entry.status, 'ok');
    assert.match(entry.outputs.map((o) => o.text ?? '').join(''), /Lima\s+30/);

    const next = await call(client, 'run_python', { code: 'len(df2)' });
    assert.equal(text(next).split('\n')[0], `Since your last call, another Jupyter client ran 1 cell (In [${count}]); new or changed: df2.`);
    assert.match(text(next), /2/);
    const again = await call(client, 'run_python', { code: '1 + 1' });
    assert.ok(!text(again).includes('Since your last call'), `told twice: ${text(again)}`);
  });
});

describe('the person’s cells and another client’s, over the services', () => {
  let stateDir: string;
  let services: DaemonServices;
  let client: Client;
  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-others-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_WARM_ON_CONNECT: '0' } });
    const server = createMcpServer(services, { id: 'others-e2e' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    client = new Client({ name: 'others-e2e-client', version: '1.0.0' });
    await client.connect(clientTransport);
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await services?.shutdown();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('a panel cell is told as the person’s, in text and in a JSON reply’s notes; the notebook keeps every party’s cells in order', { timeout: 180_000 }, async () => {
    await call(client, 'run_python', { code: 'a = 1' });
    const session = services.sessions.get('default');

    const panel = session.submit({ code: 'p = a + 1', client: 'panel', outputLimit: 20_000 });
    const ran = await panel.done;
    assert.equal(ran.kind, 'done');
    const told = await call(client, 'run_python', { code: 'p' });
    assert.equal(text(told).split('\n')[0], `Since your last call, the person ran 1 cell (In [${ran.entry.executionCount}]); new or changed: p.`);

    await session.submit({ code: 'p = 10', client: 'panel', outputLimit: 20_000 }).done;
    const value = await call(client, 'get_value', { expression: 'p' });
    assert.equal(value.structuredContent?.value, 10);
    assert.match(value.structuredContent?.notes?.[0] ?? '', /^Since your last call, the person ran 1 cell \(In \[\d+\]\); new or changed: p\.$/);

    const logged = new Promise<LogEntry>((resolve) => session.on('logged', (entry: LogEntry) => entry.client === ANOTHER_CLIENT && resolve(entry)));
    const printed = await runInAttachedClient(session.facts().attachAs!, 'q = p * 3\nprint(q)\nq');
    assert.match(printed, /^30\n30\n/);
    const entry = await logged;
    assert.deepEqual(entry.outputs.map((o) => [o.type, o.text]), [['stream', '30\n'], ['result', '30']]);
    const status = await call(client, 'kernel_status', {});
    assert.match(text(status), /^Since your last call, another Jupyter client ran 1 cell \(In \[\d+\]\); new or changed: q\.\n/);
    assert.equal(status.facts?.execution_count, entry.executionCount, 'the session’s count includes the other client’s cell');

    const path = join(stateDir, 'record.ipynb');
    await call(client, 'export_notebook', { path });
    const notebook = JSON.parse(readFileSync(path, 'utf8')) as { cells: { cell_type: string; source: string[]; metadata: { python_session?: { client?: string } } }[] };
    const code = notebook.cells.filter((c) => c.cell_type === 'code').map((c) => [c.source.join(''), c.metadata.python_session?.client]);
    assert.deepEqual(code, [
      ['a = 1', 'others-e2e-client'],
      ['p = a + 1', 'panel'],
      ['p', 'others-e2e-client'],
      ['p = 10', 'panel'],
      ['q = p * 3\nprint(q)\nq', ANOTHER_CLIENT],
    ]);
  });
});

describe('a kernel the person started, attached by connect_to_kernel', () => {
  let stateDir: string;
  let services: DaemonServices;
  let client: Client;
  let hand: ReturnType<typeof spawn> | undefined;
  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-others-attached-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0', PYTHON_MCP_WARM_ON_CONNECT: '0' } });
    const server = createMcpServer(services, { id: 'others-attached' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    client = new Client({ name: 'attached-e2e-client', version: '1.0.0' });
    await client.connect(clientTransport);
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await services?.shutdown();
    if (hand?.pid) process.kill(-hand.pid, 'SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('the person’s console cell on it is logged and told; the model’s own runs are not', { timeout: 120_000 }, async () => {
    const file = join(stateDir, 'kernel-person.json');
    hand = spawn(TEST_PYTHON, ['-m', 'ipykernel_launcher', '-f', file], { stdio: 'ignore', detached: true });
    await waitFor('the person’s kernel to write its connection file', () => existsSync(file), { timeoutMs: 20_000 });
    const attached = await call(client, 'connect_to_kernel', { session: 'mine', connection_file: file });
    assert.ok(!attached.isError, text(attached));
    await call(client, 'run_python', { session: 'mine', code: 'base = 5' });
    const session = services.sessions.get('mine');
    const logged = new Promise<LogEntry>((resolve) => session.on('logged', (entry: LogEntry) => entry.client === ANOTHER_CLIENT && resolve(entry)));
    await runInAttachedClient(file, 'scaled = base * 4\nprint(scaled)');
    const entry = await logged;
    assert.equal(entry.code, 'scaled = base * 4\nprint(scaled)');
    assert.deepEqual(entry.outputs.map((o) => o.text), ['20\n']);
    const told = await call(client, 'run_python', { session: 'mine', code: 'scaled' });
    assert.equal(text(told), `Since your last call, another Jupyter client ran 1 cell (In [${entry.executionCount}]); new or changed: scaled.\n20\n`);
    const others = session.log.read().filter((e) => e.client === ANOTHER_CLIENT);
    assert.equal(others.length, 1, 'only the other client’s cell is logged as theirs');
  });
});

describe('the panel shows another client’s cell', () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-others-panel-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0' } });
    panel = await startPanelServer({ services, registration: { home: join(stateDir, 'home'), env: {} } });
  });
  after(async () => {
    await panel?.close();
    await services?.shutdown();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('its entry reaches the page’s event stream as a logged entry of "another client", with its output', { timeout: 120_000 }, async () => {
    const session = await services.sessions.start('shared', {});
    const abort = new AbortController();
    const res = await fetch(new URL('api/events', panel.baseUrl), { headers: { Authorization: `Bearer ${panel.token}` }, signal: abort.signal });
    const events: { event: string; data: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const parser = new SseParser();
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          for (const e of parser.push(decoder.decode(chunk, { stream: true }))) events.push({ event: e.event, data: JSON.parse(e.data) });
        }
      } catch {
        /* aborted */
      }
    })();
    await waitFor('the snapshot', () => events.length > 0);
    await runInAttachedClient(session.facts().attachAs!, "print('from the IDE')");
    const logged = await waitFor('the logged entry on the event stream', () => events.find((e) => e.event === 'logged'));
    abort.abort();
    await reading;
    assert.equal(logged.data.session, 'shared');
    assert.equal(logged.data.entry.client, ANOTHER_CLIENT);
    assert.equal(logged.data.entry.code, "print('from the IDE')");
    assert.deepEqual(logged.data.entry.outputs, [{ type: 'stream', name: 'stdout', text: 'from the IDE\n' }]);
  });
});
