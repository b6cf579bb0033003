/** The panel's JSON API and event stream against a real kernel. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type DaemonServices } from '../mcp/server.js';
import { TEST_PYTHON } from '../testing/test-python.js';
import { SseParser } from './panel-sse-reader.js';
import { startPanelServer, type PanelServer } from './panel-server.js';

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
    stateDir = mkdtempSync(join(tmpdir(), 'ps-panel-api-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON } });
    panel = await startPanelServer({ services, registration: { home: join(stateDir, 'home'), env: {} } });
  });
  after(async () => {
    await panel.close();
    await services.shutdown();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('starts a session, and refuses a second one of the same name or a bad name', async () => {
    const started = await call('POST', '/api/sessions', { name: 'a' });
    assert.equal(started.status, 200, JSON.stringify(started.data));
    assert.equal(started.data.session.name, 'a');
    assert.equal(started.data.session.state, 'idle');
    assert.equal(started.data.session.interpreter, TEST_PYTHON);
    assert.ok(started.data.session.pid > 0);
    const again = await call('POST', '/api/sessions', { name: 'a' });
    assert.equal(again.status, 400);
    assert.match(again.data.error, /already has a kernel/);
    assert.equal((await call('POST', '/api/sessions', { name: 'no spaces' })).status, 400);
    assert.equal((await call('POST', '/api/sessions/nope/interrupt')).status, 404);
  });

  test('the event stream starts with a snapshot, then tells a run as it goes: busy, logged, idle', async () => {
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
    const until = async (predicate: () => boolean) => {
      for (let i = 0; i < 200 && !predicate(); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(predicate());
    };
    await until(() => events.length > 0);
    assert.equal(events[0].event, 'snapshot');
    assert.deepEqual(events[0].data.sessions.map((s: { name: string }) => s.name), ['a']);

    await services.sessions.get('a').run({ code: 'import time; time.sleep(0.2); print("done")', client: 'api-test', outputLimit: 10_000 });
    await until(() => events.some((e) => e.event === 'logged'));
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
    const session = services.sessions.get('a');
    const running = session.run({ code: 'while True: pass', client: 'api-test', outputLimit: 10_000 });
    for (let i = 0; i < 100 && session.state !== 'busy'; i++) await new Promise((r) => setTimeout(r, 20));
    const reset = await call('POST', '/api/sessions/a/reset');
    assert.equal(reset.status, 409);
    assert.match(reset.data.error, /interrupt it first/);
    const all = await call('POST', '/api/sessions/interrupt-all');
    assert.deepEqual(all.data.interrupted, [{ name: 'a', restarted: false }]);
    const outcome = await running;
    assert.equal(outcome.kind === 'done' && outcome.result.error?.ename, 'KeyboardInterrupt');
    await session.run({ code: 'kept = 1', client: 'api-test', outputLimit: 10_000 });
    const cleared = await call('POST', '/api/sessions/a/reset');
    assert.equal(cleared.status, 200, JSON.stringify(cleared.data));
    const after = await session.run({ code: 'kept', client: 'api-test', outputLimit: 10_000 });
    assert.equal(after.kind === 'done' && after.result.error?.ename, 'NameError');
  });

  test('a killed session leaves its log, figures and notebook readable', async () => {
    const killed = await call('POST', '/api/sessions/a/kill');
    assert.equal(killed.status, 200);
    const list = await call('GET', '/api/sessions');
    assert.deepEqual(list.data.sessions, []);
    assert.deepEqual(list.data.past, ['a']);
    const log = await call('GET', '/api/sessions/a/log?limit=2');
    assert.equal(log.status, 200);
    assert.equal(log.data.entries.length, 2);
    assert.ok(log.data.hasMore);
    assert.equal((await call('GET', '/api/sessions/a/figures')).data.figures.length, 0);
    const notebook = await call('GET', '/api/sessions/a/notebook');
    assert.equal(notebook.data.nbformat, 4);
    assert.equal((await call('GET', '/api/sessions/a/log?before=x')).status, 400);
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
    assert.deepEqual(before.data.clients.map((c: { id: string }) => c.id), ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf']);
    assert.ok(before.data.clients.every((c: { paths: string[] }) => c.paths.every((p) => p.startsWith(join(stateDir, 'home')))));
    const added = await call('POST', '/api/clients/cursor/register');
    assert.equal(added.status, 200, JSON.stringify(added.data));
    assert.equal(added.data.client.registered, true);
    assert.equal(added.data.client.state, 'current');
    const removed = await call('POST', '/api/clients/cursor/unregister');
    assert.equal(removed.data.client.registered, false);
    assert.equal((await call('POST', '/api/clients/notepad/register')).status, 404);
  });
});
