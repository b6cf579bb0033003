/** The panel's JSON API and event stream against a real kernel. */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type DaemonServices } from '../../services.js';
import { jupyterServerAvailable, startJupyterServer, type TestJupyterServer } from '../../remote/testing/jupyter-server.js';
import { TEST_PYTHON, markChildProcesses } from '../../testing/test-python.js';
import { waitFor } from '../../testing/wait-for.js';
import { SseParser } from './sse-reader.js';
import { startPanelServer, type PanelServer } from './server.js';

// The services run in this process: every kernel they start carries this mark.
const startedHere = markChildProcesses('panel-api-test');
after(() => startedHere.allEnded());

/** A state folder, the services over it and a panel in front: what each suite here starts from. */
async function panelStage(prefix: string, env: Record<string, string> = { PYTHON_MCP_POOL_SIZE: '0' }): Promise<{ stateDir: string; services: DaemonServices; panel: PanelServer }> {
  const stateDir = mkdtempSync(join(tmpdir(), prefix));
  const services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, ...env } });
  // Gemini CLI's system settings (where folder trust may be set) in the stage too, not the machine's.
  const registration = { home: join(stateDir, 'home'), env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(stateDir, 'gemini-system-settings.json') } };
  const panel = await startPanelServer({ services, registration });
  return { stateDir, services, panel };
}

async function closePanelStage(stage: { stateDir: string; services: DaemonServices; panel: PanelServer }): Promise<void> {
  await stage.panel.close();
  await stage.services.shutdown();
  rmSync(stage.stateDir, { recursive: true, force: true });
}

describe('panel API', () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(new URL(path.slice(1), panel.baseUrl), {
      method,
      headers: { Authorization: `Bearer ${panel.token}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
    const text = await res.text();
    let data: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test shapes vary by route
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
    return { status: res.status, data, headers: res.headers };
  };

  before(async () => {
    ({ stateDir, services, panel } = await panelStage('ps-panel-api-', {}));
  });
  after(() => closePanelStage({ stateDir, services, panel }));
  /** The session `name`, started unless an earlier test left it running. */
  const session = async (name: string) => services.sessions.find(name) ?? (await services.sessions.start(name, {}));

  test('starts a session, and refuses a second one of the same name or a bad name', async () => {
    const started = await call('POST', '/api/sessions', { name: 'a' });
    assert.equal(started.status, 200, JSON.stringify(started.data));
    assert.equal(started.data.session.name, 'a');
    assert.equal(started.data.session.state, 'idle');
    assert.equal(started.data.session.interpreter, TEST_PYTHON);
    assert.equal(started.data.session.server, null, 'a local kernel runs on no server');
    assert.ok(started.data.session.pid > 0);
    const again = await call('POST', '/api/sessions', { name: 'a' });
    assert.equal(again.status, 400);
    assert.match(again.data.error, /already has a kernel/);
    assert.equal((await call('POST', '/api/sessions', { name: 'no spaces' })).status, 400);
    assert.equal((await call('POST', '/api/sessions/nope/interrupt')).status, 404);
  });

  test('the event stream starts with a snapshot, then tells a run as it goes: busy, logged, idle', async () => {
    await session('a');
    const abort = new AbortController();
    const res = await fetch(new URL('api/events', panel.baseUrl), { headers: { Authorization: `Bearer ${panel.token}` }, signal: abort.signal });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
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
    assert.equal(events[0].event, 'snapshot');
    assert.ok(events[0].data.sessions.some((s: { name: string }) => s.name === 'a'), JSON.stringify(events[0].data.sessions));

    await services.sessions.get('a').run({ code: 'print("done")', client: 'api-test', outputLimit: 10_000 });
    const idleAfterLog = () => {
      const logged = events.findIndex((e) => e.event === 'logged');
      return logged >= 0 && events.slice(logged).some((e) => e.event === 'session' && e.data.session.state === 'idle' && !e.data.session.running);
    };
    await waitFor('the run to be logged, and the session told idle after it', idleAfterLog);
    abort.abort();
    await reading;
    const story = events
      .slice(1)
      .filter((e) => e.event !== 'stats')
      .map((e) => (e.event === 'session' ? `session:${e.data.session.state}${e.data.session.running ? ':running' : ''}` : e.event));
    const firstBusy = story.indexOf('session:busy:running');
    const logged = story.indexOf('logged');
    assert.ok(story.includes('run-started'), story.join(' '));
    assert.ok(firstBusy >= 0 && firstBusy < logged, story.join(' '));
    assert.equal(story.at(-1), 'session:idle', `ends idle, with no run shown in progress: ${story.join(' ')}`);
    const entry = events.find((e) => e.event === 'logged')!.data;
    assert.equal(entry.session, 'a');
    assert.equal(entry.entry.client, 'api-test');
    assert.deepEqual(entry.entry.outputs, [{ type: 'stream', name: 'stdout', text: 'done\n' }]);
  });

  test('reset waits for a run to be interrupted; interrupt-all stops every busy session', async () => {
    const a = await session('a');
    const running = a.run({ code: 'while True: pass', client: 'api-test', outputLimit: 10_000 });
    await waitFor('the session to be busy', () => a.state === 'busy');
    const reset = await call('POST', '/api/sessions/a/reset');
    assert.equal(reset.status, 409);
    assert.match(reset.data.error, /interrupt it first/);
    const all = await call('POST', '/api/sessions/interrupt-all');
    assert.deepEqual(all.data.interrupted, [{ name: 'a', restarted: false }]);
    const outcome = await running;
    assert.equal(outcome.kind === 'done' && outcome.result.error?.ename, 'KeyboardInterrupt');
    await a.run({ code: 'kept = 1', client: 'api-test', outputLimit: 10_000 });
    const cleared = await call('POST', '/api/sessions/a/reset');
    assert.equal(cleared.status, 200, JSON.stringify(cleared.data));
    const after = await a.run({ code: 'kept', client: 'api-test', outputLimit: 10_000 });
    assert.equal(after.kind === 'done' && after.result.error?.ename, 'NameError');
  });

  test('a killed session leaves its log, figures and notebook readable', async () => {
    const doomed = await session('doomed');
    for (const code of ['x = 1', 'y = 2', 'x + y']) await doomed.run({ code, client: 'api-test', outputLimit: 10_000 });
    const killed = await call('POST', '/api/sessions/doomed/kill');
    assert.equal(killed.status, 200);
    const list = await call('GET', '/api/sessions');
    assert.ok(!list.data.sessions.some((s: { name: string }) => s.name === 'doomed'), JSON.stringify(list.data.sessions));
    assert.ok(list.data.past.includes('doomed'), JSON.stringify(list.data.past));
    const log = await call('GET', '/api/sessions/doomed/log?limit=2');
    assert.equal(log.status, 200);
    assert.equal(log.data.entries.length, 2);
    assert.ok(log.data.hasMore);
    assert.equal((await call('GET', '/api/sessions/doomed/figures')).data.figures.length, 0);
    const notebook = await call('GET', '/api/sessions/doomed/notebook');
    assert.equal(notebook.data.nbformat, 4);
    assert.equal((await call('GET', '/api/sessions/doomed/log?before=x')).status, 400);
    assert.equal((await call('GET', '/api/sessions/..%2F..%2Fetc/log')).status, 404);
  });

  test('interpreters: the chosen one and why; a choice is checked before it is saved', async () => {
    const list = await call('GET', '/api/interpreters');
    assert.equal(list.data.chosen.path, TEST_PYTHON);
    assert.equal(list.data.envOverride, TEST_PYTHON);
    assert.ok(list.data.interpreters.some((i: { chosen: boolean }) => i.chosen));
    const bad = await call('POST', '/api/interpreters/choose', { path: join(stateDir, 'no-such-python') });
    assert.equal(bad.status, 400);
    assert.equal(services.settings.get('interpreter'), undefined, 'nothing saved');
    const chosen = await call('POST', '/api/interpreters/choose', { path: TEST_PYTHON });
    assert.equal(chosen.status, 200, JSON.stringify(chosen.data));
    assert.equal(services.settings.get('interpreter'), TEST_PYTHON);
    assert.equal(chosen.data.saved, TEST_PYTHON);
    await call('POST', '/api/interpreters/choose', { path: null });
    assert.equal(services.settings.get('interpreter'), undefined);
    assert.equal((await call('POST', '/api/interpreters/choose', { path: 3 })).status, 400);
  });

  test('clients: status, register and unregister in the given home', async () => {
    const before = await call('GET', '/api/clients');
    assert.deepEqual(before.data.clients.map((c: { id: string }) => c.id), ['claude-desktop', 'claude-code', 'codex', 'cursor', 'gemini-cli', 'vscode', 'windsurf']);
    assert.ok(before.data.clients.every((c: { paths: string[] }) => c.paths.every((p) => p.startsWith(join(stateDir, 'home')))));
    const added = await call('POST', '/api/clients/cursor/register');
    assert.equal(added.status, 200, JSON.stringify(added.data));
    assert.equal(added.data.client.registered, true);
    assert.equal(added.data.client.state, 'current');
    const removed = await call('POST', '/api/clients/cursor/unregister');
    assert.equal(removed.data.client.registered, false);
    assert.equal((await call('POST', '/api/clients/notepad/register')).status, 404);
    // Codex keeps its servers in TOML: the same buttons write and remove its table.
    const codex = await call('POST', '/api/clients/codex/register');
    assert.equal(codex.status, 200, JSON.stringify(codex.data));
    assert.equal(codex.data.client.state, 'current');
    assert.match(codex.data.client.restartHint, /new Codex session/);
    assert.deepEqual(codex.data.client.paths, [join(stateDir, 'home', '.codex', 'config.toml')]);
    assert.match(readFileSync(join(stateDir, 'home', '.codex', 'config.toml'), 'utf8'), /^\[mcp_servers\.python-session\]\ncommand = /);
    assert.equal((await call('POST', '/api/clients/codex/unregister')).data.client.registered, false);
    // A registered Gemini CLI carries its folder trust as notes; the toast's message stays short.
    assert.deepEqual(before.data.clients.find((c: { id: string }) => c.id === 'gemini-cli').notes, [], 'nothing to say before it is registered');
    const gemini = await call('POST', '/api/clients/gemini-cli/register');
    assert.equal(gemini.status, 200, JSON.stringify(gemini.data));
    assert.match(gemini.data.message, /^Added Python Session to Gemini CLI in [^\n]*\nStart a new Gemini CLI session[^\n]*$/);
    assert.equal(gemini.data.client.notes[0], 'Gemini CLI starts MCP servers only in folders you trust; in any other it lists Python Session as "Disabled".');
    assert.equal(gemini.data.client.notes[1], 'No folder is trusted yet.');
    assert.match(gemini.data.client.notes[2], /run \/permissions trust in Gemini CLI there/);
    assert.deepEqual((await call('POST', '/api/clients/gemini-cli/unregister')).data.client.notes, []);
  });
});

/** A raw request to the panel, so Origin and Content-Type can be anything; each answer's text is kept in `answers`. */
function rawSender(panel: () => PanelServer, answers: string[]) {
  return (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; data: any; text: string }>((resolve, reject) => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const { port, token } = panel();
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method,
          headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            answers.push(text);
            resolve({ status: res.statusCode ?? 0, data: JSON.parse(text), text });
          });
        },
      );
      req.on('error', reject);
      req.end(method === 'POST' ? JSON.stringify(body ?? {}) : undefined);
    });
}

/**
 * A stand-in for a Jupyter Server's two read endpoints: it answers only the right token, and
 * echoes whatever Authorization it got in its refusal, as a careless server might.
 */
async function fakeJupyter(token: string, extraSpecs: Record<string, unknown> = {}): Promise<{ url: string; close: () => Promise<void>; requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const sent = req.headers.authorization ?? '';
    if (sent !== `token ${token}`) {
      res.writeHead(403, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ message: `Forbidden: ${sent}` }));
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (req.url === '/api/kernelspecs') res.end(JSON.stringify({ default: 'python3', kernelspecs: { python3: { name: 'python3', spec: { display_name: 'Python 3', language: 'python' } }, ...extraSpecs } }));
    else if (req.url === '/api/kernels') res.end('[]');
    else res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
    requests,
  };
}

/** A port nothing listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('panel API: remote Jupyter servers', () => {
  const TOKEN = 'sekrit-3c1e9a7f52b04d6e8a1f';
  const WRONG = 'wrong-77aa01bb22cc33dd44ee';
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let jupyter: Awaited<ReturnType<typeof fakeJupyter>>;
  /** Every answer's raw text, to check that no token ever left in one. */
  const answers: string[] = [];

  const send = rawSender(() => panel, answers);
  const saved = () => readFileSync(join(stateDir, 'servers.json'), 'utf8');
  const addLab = async () => {
    const added = await send('POST', '/api/servers', { name: 'lab', url: jupyter.url, token: TOKEN });
    assert.equal(added.status, 200, added.text);
  };

  before(async () => {
    ({ stateDir, services, panel } = await panelStage('ps-panel-servers-'));
    jupyter = await fakeJupyter(TOKEN);
  });
  // Each test starts from an empty registry and adds what it needs.
  beforeEach(async () => {
    for (const { name } of (await send('GET', '/api/servers')).data.servers as { name: string }[]) {
      assert.equal((await send('POST', `/api/servers/${name}/remove`)).status, 200);
    }
  });
  after(async () => {
    await closePanelStage({ stateDir, services, panel });
    await jupyter.close();
  });

  test('adds a server, checks it answers, and never returns its token', async () => {
    assert.deepEqual((await send('GET', '/api/servers')).data, { servers: [] });
    const added = await send('POST', '/api/servers', { name: 'lab', url: jupyter.url, token: TOKEN });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual({ ...added.data.server, addedAt: typeof added.data.server.addedAt }, { name: 'lab', url: jupyter.url, hasToken: true, addedAt: 'string' });
    assert.deepEqual(added.data.check, { reachable: true, error: null, defaultKernel: 'python3', kernelspecs: ['python3'], kernels: 0, kernelsHidden: null });
    assert.match(added.data.message, /^Added "lab" \(token saved, owner-only\)\. It answers: kernelspecs python3\.$/);
    assert.ok(saved().includes(TOKEN), 'the token is stored, in servers.json');

    const listed = await send('GET', '/api/servers');
    assert.deepEqual(listed.data.servers.map((s: { name: string; hasToken: boolean }) => [s.name, s.hasToken]), [['lab', true]]);
    const checked = await send('GET', '/api/servers/lab/check');
    assert.equal(checked.data.check.reachable, true);
    for (const text of answers) assert.ok(!text.includes(TOKEN), `the token left in: ${text}`);
  });

  test('refuses bad input with a message that says what to fix, and saves nothing', async () => {
    await addLab();
    const cases: [unknown, number, RegExp][] = [
      [{ name: 'pasted', url: `http://[lab/?token=${TOKEN}` }, 400, /is not a URL/],
      [{ name: 'ftp', url: 'ftp://example.org/' }, 400, /starts with http:\/\/ or https:\/\//],
      [{ name: 'creds', url: `http://me:${TOKEN}@example.org/` }, 400, /not in the URL as user:password@/],
      [{ name: 'a b', url: jupyter.url }, 400, /cannot name a server/],
      [{ name: 'local', url: jupyter.url }, 400, /cannot name a server.*not "local"/],
      [{ name: 'lab2', url: jupyter.url, token: 'two words' }, 400, /token contains spaces/],
      [{ name: 'lab2', url: jupyter.url, token: 42 }, 400, /token must be a string/],
      [{ name: 'lab2' }, 400, /Give the server's URL/],
      [{ url: jupyter.url }, 400, /Give the server a name/],
      [{ name: 'lab', url: 'http://elsewhere.example/', token: WRONG }, 409, /A server named "lab" already exists \(http:\/\/127\.0\.0\.1:\d+\/\)/],
    ];
    for (const [body, status, message] of cases) {
      const res = await send('POST', '/api/servers', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.data.error, message);
    }
    assert.deepEqual((await send('GET', '/api/servers')).data.servers.map((s: { name: string; url: string }) => [s.name, s.url]), [['lab', jupyter.url]], 'nothing else saved, "lab" unchanged');
    assert.ok(!saved().includes(WRONG));
    assert.equal((await send('GET', '/api/servers/nope/check')).status, 404);
    for (const text of answers) assert.ok(!text.includes(TOKEN), `the token left in: ${text}`);
  });

  test('a server that refuses the token or does not answer is saved, and the answer says why', async () => {
    const refused = await send('POST', '/api/servers', { name: 'wrong-token', url: jupyter.url, token: WRONG });
    assert.equal(refused.status, 200, refused.text);
    assert.equal(refused.data.check.reachable, false);
    assert.match(refused.data.check.error, /refused the token \(HTTP 403\)/);
    assert.match(refused.data.message, /but it does not answer yet/);
    assert.ok(!refused.text.includes(WRONG), 'not even echoed back by the server');

    const port = await closedPort();
    const down = await send('POST', '/api/servers', { name: 'down', url: `http://127.0.0.1:${port}/` });
    assert.equal(down.data.server.hasToken, false);
    assert.match(down.data.check.error, /nothing is listening there \(connection refused\)/);

    // Jupyter prints a URL with the token in it; pasted whole, the token is taken out and stored.
    const pasted = await send('POST', '/api/servers', { name: 'pasted', url: `${jupyter.url}lab?token=${TOKEN}` });
    assert.equal(pasted.status, 200, pasted.text);
    assert.equal(pasted.data.server.url, jupyter.url);
    assert.equal(pasted.data.server.hasToken, true);
    assert.equal(pasted.data.check.reachable, true);
    for (const text of answers) assert.ok(!text.includes(TOKEN) && !text.includes(WRONG), `a token left in: ${text}`);
  });

  test('changes from a foreign Origin, another site, or as a form are refused', async () => {
    await addLab();
    const before = saved();
    for (const origin of ['http://evil.example', `http://127.0.0.1:${panel.port + 1}`, 'null']) {
      const add = await send('POST', '/api/servers', { name: 'evil', url: 'http://evil.example/' }, { origin });
      assert.equal(add.status, 403, origin);
      assert.match(add.data.error, /foreign Origin/);
      assert.equal((await send('POST', '/api/servers/lab/remove', {}, { origin })).status, 403, origin);
      assert.equal((await send('GET', '/api/servers', undefined, { origin })).status, 403, origin);
    }
    const crossSite = await send('POST', '/api/servers/lab/remove', {}, { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' });
    assert.equal(crossSite.status, 403);
    const form = await send('POST', '/api/servers', undefined, { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 415);
    const noToken = await send('POST', '/api/servers/lab/remove', {}, { authorization: '' });
    assert.equal(noToken.status, 401);
    assert.equal(saved(), before, 'nothing changed');
  });

  test('removes a server; a second remove says there is none', async () => {
    await addLab();
    await send('POST', '/api/servers', { name: 'kept', url: jupyter.url, token: TOKEN });
    const removed = await send('POST', '/api/servers/lab/remove');
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.data, { removed: 'lab', sessions: [], message: 'Removed server "lab". Kernels running there were not touched.' });
    const again = await send('POST', '/api/servers/lab/remove');
    assert.equal(again.status, 404);
    assert.match(again.data.error, /no server named "lab"/);
    assert.deepEqual((await send('GET', '/api/servers')).data.servers.map((s: { name: string }) => s.name), ['kept']);
    assert.equal((await send('GET', '/api/servers', undefined, {})).status, 200);
  });

  test('open panels are told the list changed, and the event stream never carries a token', async () => {
    const abort = new AbortController();
    const res = await fetch(new URL('api/events', panel.baseUrl), { headers: { Authorization: `Bearer ${panel.token}` }, signal: abort.signal });
    let streamed = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) streamed += decoder.decode(chunk, { stream: true });
      } catch {
        /* aborted */
      }
    })();
    const told = () => (streamed.match(/event: servers\n/g) ?? []).length;
    try {
      await waitFor('the snapshot', () => streamed.includes('event: snapshot\n'));
      await addLab();
      await send('POST', '/api/servers', { name: 'wrong-token', url: jupyter.url, token: WRONG });
      await send('POST', '/api/servers', { name: 'pasted', url: `${jupyter.url}lab?token=${TOKEN}` });
      // Refused: no change, so nothing to tell.
      assert.equal((await send('POST', '/api/servers', { name: 'lab', url: jupyter.url, token: WRONG })).status, 409);
      assert.equal((await send('POST', '/api/servers/lab/remove', {}, { origin: 'http://evil.example' })).status, 403);
      assert.equal((await send('POST', '/api/servers/lab/remove')).status, 200);
      // A change is told as it is made, before its answer is sent: the four are on their way by now, and a refusal's would be among them.
      await waitFor('the four changes to be told', () => told() >= 4);
      assert.equal(told(), 4, streamed);
      assert.ok(streamed.includes('data: {"type":"servers"}\n'));
      assert.ok(!streamed.includes(TOKEN) && !streamed.includes(WRONG), 'no token in the event stream');
    } finally {
      abort.abort();
      await reading;
    }
  });
});

describe('panel API: starting a session on a remote server', () => {
  const TOKEN = 'sekrit-9d0b7c4e11f2a3b5c6d7';
  const WRONG = 'wrong-5e6f7a8b9c0d1e2f3a4b';
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let jupyter: Awaited<ReturnType<typeof fakeJupyter>>;
  const answers: string[] = [];
  const send = rawSender(() => panel, answers);
  const noToken = () => {
    for (const text of answers) assert.ok(!text.includes(TOKEN) && !text.includes(WRONG), `a token left in: ${text}`);
  };

  before(async () => {
    ({ stateDir, services, panel } = await panelStage('ps-panel-remote-start-'));
    // An R kernelspec beside Python's: listed for the dialog, but not offered to start.
    jupyter = await fakeJupyter(TOKEN, { ir: { name: 'ir', spec: { display_name: 'R', language: 'R' } } });
    services.sessions.servers.add({ name: 'lab', url: jupyter.url, token: TOKEN });
    services.sessions.servers.add({ name: 'wrong-token', url: jupyter.url, token: WRONG });
    services.sessions.servers.add({ name: 'down', url: `http://127.0.0.1:${await closedPort()}/` });
  });
  after(async () => {
    await closePanelStage({ stateDir, services, panel });
    await jupyter.close();
  });

  test("lists a server's kernelspecs with its default, marks the ones that are not Python, and never its token", async () => {
    const specs = await send('GET', '/api/servers/lab/kernelspecs');
    assert.equal(specs.status, 200, specs.text);
    assert.deepEqual({ ...specs.data, server: { ...specs.data.server, addedAt: typeof specs.data.server.addedAt } }, {
      server: { name: 'lab', url: jupyter.url, hasToken: true, addedAt: 'string' },
      defaultKernel: 'python3',
      kernelspecs: [
        { name: 'ir', displayName: 'R', language: 'R', python: false },
        { name: 'python3', displayName: 'Python 3', language: 'python', python: true },
      ],
    });
    noToken();
  });

  test('a server that does not answer or refuses the token is a 502 that says why, redacted', async () => {
    const down = await send('GET', '/api/servers/down/kernelspecs');
    assert.equal(down.status, 502, down.text);
    assert.match(down.data.error, /^Cannot reach the Jupyter server down \(http:\/\/127\.0\.0\.1:\d+\/\): nothing is listening there \(connection refused\)/);
    const startDown = await send('POST', '/api/sessions', { name: 'far', server: 'down' });
    assert.equal(startDown.status, 502, startDown.text);
    assert.match(startDown.data.error, /Cannot reach the Jupyter server down .*nothing is listening there/);

    // The fake server echoes the Authorization header it refused: the answer must not carry it.
    const refused = await send('GET', '/api/servers/wrong-token/kernelspecs');
    assert.equal(refused.status, 502, refused.text);
    assert.match(refused.data.error, /refused the token \(HTTP 403\)/);
    const startRefused = await send('POST', '/api/sessions', { name: 'far', server: 'wrong-token' });
    assert.equal(startRefused.status, 502, startRefused.text);
    assert.match(startRefused.data.error, /refused the token \(HTTP 403\)/);
    assert.equal(services.sessions.find('far'), undefined, 'no session was made');
    assert.equal(existsSync(join(stateDir, 'sessions', 'far')), false, 'nor a session folder');
    noToken();
  });

  test('an unknown server, a kernelspec it lacks or that is not Python, or an interpreter beside a server is a 4xx that says what to fix', async () => {
    const unknown = await send('GET', '/api/servers/nope/kernelspecs');
    assert.equal(unknown.status, 404);
    assert.match(unknown.data.error, /There is no server named "nope"/);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ server: 'nope' }, /^No remote Jupyter server named "nope"\. Servers: down, lab, wrong-token\./],
      [{ server: 'lab', kernelName: 'julia-1.10' }, /has no kernelspec "julia-1\.10"\. It has: ir \(R, R\), python3 \(Python 3, python\)/],
      [{ server: 'lab', kernelName: 'ir' }, /Kernelspec "ir" on lab .* runs R, not Python/],
      [{ server: 'lab', interpreter: TEST_PYTHON }, /"interpreter" names a Python on this machine; on server "lab" choose a kernelspec/],
      [{ server: 42 }, /server must be a string/],
    ];
    for (const [body, message] of cases) {
      const res = await send('POST', '/api/sessions', { name: 'far', ...body });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.data.error, message);
    }
    assert.equal(services.sessions.find('far'), undefined, 'no session was made, here or there');
    assert.ok(!jupyter.requests.some((r) => r.startsWith('POST /api/kernels')), 'no kernel was asked for');
    noToken();
  });

  test('a foreign Origin or another site can neither start a session on a server nor list its kernelspecs', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${panel.port + 1}`, 'null']) {
      const start = await send('POST', '/api/sessions', { name: 'far', server: 'lab' }, { origin });
      assert.equal(start.status, 403, origin);
      assert.match(start.data.error, /foreign Origin/);
      assert.equal((await send('GET', '/api/servers/lab/kernelspecs', undefined, { origin })).status, 403, origin);
    }
    const crossSite = await send('POST', '/api/sessions', { name: 'far', server: 'lab' }, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' });
    assert.equal(crossSite.status, 403);
    assert.equal((await send('GET', '/api/servers/lab/kernelspecs', undefined, { authorization: '' })).status, 401);
    assert.equal(services.sessions.find('far'), undefined);
    assert.ok(!jupyter.requests.some((r) => r.startsWith('POST /api/kernels')));
  });
});

describe('panel API: a session started on a real Jupyter Server', { skip: jupyterServerAvailable() || process.env.CI ? false : 'needs python3-jupyter-server' }, () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let jupyter: TestJupyterServer;
  const answers: string[] = [];
  const send = rawSender(() => panel, answers);

  before(async () => {
    ({ stateDir, services, panel } = await panelStage('ps-panel-remote-real-'));
    jupyter = await startJupyterServer();
    services.sessions.servers.add({ name: 'lab', url: jupyter.url, token: jupyter.token });
  });
  after(async () => {
    try {
      await panel?.close();
      await services?.shutdown();
    } finally {
      await jupyter?.close(); // throws if a kernel was left there
      if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('starts there with the chosen kernelspec and folder; the view says where, without the token', async () => {
    const started = await send('POST', '/api/sessions', { name: 'far', server: 'lab', kernelName: 'python3' });
    assert.equal(started.status, 200, started.text);
    assert.equal(started.data.session.name, 'far');
    assert.equal(started.data.session.server, 'lab');
    assert.equal(started.data.session.state, 'idle');
    assert.match(started.data.session.interpreter, /^kernelspec "python3" on lab \(http:\/\/127\.0\.0\.1:\d+\/\)$/);
    const session = services.sessions.get('far');
    const place = session.facts().place;
    assert.ok(place.kind === 'remote');
    assert.equal(place.serverName, 'lab');
    const outcome = await session.run({ code: '6 * 7', client: 'test', outputLimit: 1000 });
    assert.ok(outcome.kind === 'done' && outcome.result.error === undefined, 'it runs code');
    assert.equal((await send('POST', '/api/sessions/far/kill')).status, 200);
    for (const text of answers) assert.ok(!text.includes(jupyter.token), `the token left in: ${text}`);
  });
});
