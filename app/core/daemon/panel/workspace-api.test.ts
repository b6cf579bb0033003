/** The panel's workspace routes (variables, data viewer, the person's cells, attach) against a real kernel. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type DaemonServices } from '../../services.js';
import { jupyterServerAvailable, startJupyterServer, type TestJupyterServer } from '../../remote/testing/jupyter-server.js';
import { cellGate } from '../../testing/cell-gate.js';
import { TEST_PYTHON, markChildProcesses } from '../../testing/test-python.js';
import { waitFor } from '../../testing/wait-for.js';
import { startPanelServer, type PanelServer } from './server.js';
import { panelRequest } from '../testing/panel-request.js';

const startedHere = markChildProcesses('panel-workspace-test');
after(() => startedHere.allEnded());

describe('panel workspace API', () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;

  const call = (method: 'GET' | 'POST', path: string, body?: unknown, token: string | null = panel.token) => panelRequest(panel, method, path, body, token === null ? 'nobody' : 'script', token ?? undefined);

  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-panel-workspace-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0' } });
    panel = await startPanelServer({ services, registration: { home: join(stateDir, 'home'), env: {} } });
    await services.sessions.start('w', {});
  });
  after(async () => {
    await panel.close();
    await services.shutdown();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const ROUTES: ['GET' | 'POST', string, unknown][] = [
    ['GET', '/api/sessions/w/variables', undefined],
    ['POST', '/api/sessions/w/data', { expression: 'x' }],
    ['POST', '/api/sessions/w/data/summary', { expression: 'x' }],
    ['POST', '/api/sessions/w/run', { code: "open('/tmp/never', 'w')" }],
    ['GET', '/api/sessions/w/attach', undefined],
  ];

  test('every workspace route refuses a request without the token, and one with a wrong token', async () => {
    const before = services.sessions.get('w').facts().executionCount;
    for (const [method, path, body] of ROUTES) {
      assert.equal((await call(method, path, body, null)).status, 401, `${method} ${path} without a token`);
      assert.equal((await call(method, path, body, 'x'.repeat(43))).status, 401, `${method} ${path} with a wrong token`);
    }
    // With the token but from another site's page: refused as every action is.
    for (const [method, path, body] of ROUTES.filter(([m]) => m === 'POST')) {
      const res = await fetch(new URL(path.slice(1), panel.baseUrl), {
        method,
        headers: { Authorization: `Bearer ${panel.token}`, 'Content-Type': 'application/json', Origin: 'http://evil.example' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 403, `${method} ${path} from a foreign origin`);
    }
    assert.equal(services.sessions.get('w').facts().executionCount, before, 'nothing ran');
  });

  test('bad arguments are refused with 400 and say what is wrong; an unknown session is 404', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/api/sessions/w/data', {}, /expression must be a non-empty string/],
      ['/api/sessions/w/data', { expression: 'x', limit: 501 }, /limit must be a whole number from 1 to 500/],
      ['/api/sessions/w/data', { expression: 'x', offset: -1 }, /offset must be a whole number/],
      ['/api/sessions/w/data', { expression: 'x', sort: 'a' }, /sort must be a list of \{column, ascending\}/],
      ['/api/sessions/w/data', { expression: 'x', sort: [{ column: 'a', ascending: 'yes' }] }, /sort must be a list/],
      ['/api/sessions/w/data', { expression: 'x', filter: 'a' }, /filter must be null or \{text, column\}/],
      ['/api/sessions/w/data', { expression: 'x', columns: { start: 0, count: 600 } }, /count must be a whole number from 1 to 200/],
      ['/api/sessions/w/data', { expression: 'x', sort: [{ column: 3 }] }, /column a column name/],
      ['/api/sessions/w/data/summary', { expression: 'x', columns: 'a' }, /columns must be null or a list/],
      ['/api/sessions/w/run', {}, /code must be the Python to run/],
      ['/api/sessions/w/run', { code: '   ' }, /code must be the Python to run/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await call('POST', path, body);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(answer.data)}`);
      assert.match(answer.data.error, message);
    }
    // What only the kernel can judge comes back from the helpers as a 400 too, in their words.
    const unknown = await call('POST', '/api/sessions/w/data', { expression: 'no_such_name_here' });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.data));
    assert.match(unknown.data.error, /no_such_name_here/);
    assert.equal((await call('GET', '/api/sessions/nope/variables')).status, 404);
    assert.equal((await call('POST', '/api/sessions/nope/run', { code: '1' })).status, 404);
    assert.equal((await call('GET', '/api/sessions/nope/attach')).status, 404);
  });

  test("a person's cell runs in the session as client 'panel' and is logged", async () => {
    const session = services.sessions.get('w');
    const logged = new Promise<{ client: string; code: string }>((resolve) => session.once('logged', resolve));
    const answer = await call('POST', '/api/sessions/w/run', { code: "mine = 41 + 1\nprint('from the panel', mine)" });
    assert.equal(answer.status, 200, JSON.stringify(answer.data));
    assert.match(answer.data.run, /^w-\d+$/);
    const entry = await logged;
    assert.equal(entry.client, 'panel');
    assert.match(entry.code, /mine = 41 \+ 1/);
  });

  test('the variables snapshot lists the names, and while a cell runs it is served from the last snapshot without waiting', async () => {
    const session = services.sessions.get('w');
    await session.run({ code: "import pandas as pd\nframe = pd.DataFrame({'a': [1, 2, 3]})", client: 'test', outputLimit: 10_000 });
    const first = await call('GET', '/api/sessions/w/variables');
    assert.equal(first.status, 200, JSON.stringify(first.data));
    const frame = first.data.names.find((n: { name: string }) => n.name === 'frame');
    assert.ok(frame, JSON.stringify(first.data.names.map((n: { name: string }) => n.name)));
    assert.equal(frame.viewable, true);
    assert.deepEqual(frame.shape, [3, 1]);
    assert.equal(first.data.stale, false);
    assert.equal(first.data.asOf, session.facts().executionCount);
    // A page that holds this snapshot gets only its news, not the names again.
    const same = await call('GET', `/api/sessions/w/variables?have=${first.data.takenAt}`);
    assert.equal(same.data.unchanged, true);
    assert.deepEqual(same.data.names, []);
    assert.equal(same.data.asOf, first.data.asOf);

    const gate = cellGate();
    const handle = session.submit({ code: `late = 1\n${gate.waitCode}`, client: 'test', outputLimit: 10_000 });
    try {
      await waitFor('the cell to start', () => session.state === 'busy');
      const during = await call('GET', '/api/sessions/w/variables');
      assert.equal(during.status, 200);
      assert.equal(during.data.asOf, first.data.asOf, 'the last snapshot, as of the run before');
      assert.ok(during.data.names.some((n: { name: string }) => n.name === 'frame'));
      assert.ok(!during.data.names.some((n: { name: string }) => n.name === 'late'), 'not read from the running kernel');
      assert.equal(gate.isOpen(), false, 'answered while the cell still waits');
    } finally {
      gate.open();
    }
    await handle.done;
    // A panel looked lately, so the daemon refreshes once the session is idle again.
    await waitFor('the snapshot refreshed after the run', async () => {
      const after = await call('GET', '/api/sessions/w/variables');
      return after.data.names.some((n: { name: string }) => n.name === 'late') ? after : null;
    });
  });

  test('a data request on a busy session waits a little, then says which run holds the kernel', async () => {
    const session = services.sessions.get('w');
    const gate = cellGate();
    const handle = session.submit({ code: gate.waitCode, client: 'test', outputLimit: 10_000 });
    try {
      await waitFor('the cell to start', () => session.state === 'busy');
      const answer = await call('POST', '/api/sessions/w/data', { expression: 'frame' });
      assert.equal(answer.status, 409, JSON.stringify(answer.data));
      assert.match(answer.data.error, new RegExp(`\\(run ${handle.id}, for `));
      assert.equal(gate.isOpen(), false);
    } finally {
      gate.open();
    }
    await handle.done;
  });

  test('attach gives a local kernel its connection file and the commands that use it', async () => {
    const answer = await call('GET', '/api/sessions/w/attach');
    assert.equal(answer.status, 200, JSON.stringify(answer.data));
    assert.equal(answer.data.kind, 'ipykernel');
    assert.ok(existsSync(answer.data.connectionFile), answer.data.connectionFile);
    assert.equal(answer.data.connectionFile, services.sessions.get('w').facts().attachAs);
    assert.match(answer.data.commands.console, /^jupyter console --existing /);
    assert.match(answer.data.commands.python, /BlockingKernelClient\(connection_file=/);
    assert.match(answer.data.commands.python, /load_connection_file\(\)/);
    assert.match(answer.data.commands.python, /start_channels\(\)/);
    assert.match(answer.data.commands.spyder, /Connect to an existing kernel/);
  });
});

describe('panel workspace API on a kernel on a real Jupyter Server', { skip: jupyterServerAvailable() || process.env.CI ? false : 'needs python3-jupyter-server' }, () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let jupyter: TestJupyterServer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- shapes vary by route
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; data: any; text: string }> => {
    const res = await fetch(new URL(path.slice(1), panel.baseUrl), {
      method,
      headers: { Authorization: `Bearer ${panel.token}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
    const text = await res.text();
    return { status: res.status, data: JSON.parse(text), text };
  };

  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-panel-workspace-remote-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0' } });
    panel = await startPanelServer({ services, registration: { home: join(stateDir, 'home'), env: {} } });
    jupyter = await startJupyterServer();
    services.sessions.servers.add({ name: 'lab', url: jupyter.url, token: jupyter.token });
  });
  after(async () => {
    try {
      await panel?.close();
      await services?.shutdown();
    } finally {
      await jupyter?.close();
      if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('variables and a data page come from the remote kernel; attach points at the server, never its token', async () => {
    const session = await services.sessions.start('far', { server: 'lab', kernelName: 'python3' });
    await session.run({ code: "import pandas as pd\nremote_frame = pd.DataFrame({'k': [3, 1, 2]})", client: 'test', outputLimit: 10_000 });
    const variables = await call('GET', '/api/sessions/far/variables');
    assert.equal(variables.status, 200, variables.text);
    assert.ok(variables.data.names.some((n: { name: string; viewable: boolean }) => n.name === 'remote_frame' && n.viewable), variables.text);
    const page = await call('POST', '/api/sessions/far/data', { expression: 'remote_frame', sort: [{ column: 'k', ascending: true }] });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.data.rows, [['1'], ['2'], ['3']]);
    const attach = await call('GET', '/api/sessions/far/attach');
    assert.equal(attach.status, 200, attach.text);
    assert.equal(attach.data.kind, 'remote');
    assert.equal(attach.data.server, 'lab');
    assert.match(attach.data.reason, /Jupyter server "lab"/);
    for (const text of [variables.text, page.text, attach.text]) assert.ok(!text.includes(jupyter.token), 'no token in an answer');
    await services.sessions.close('far');
  });
});
