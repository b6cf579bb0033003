/**
 * The panel's half of code that asks the person (input(), getpass): whether a person is at a
 * panel (a page's cookie requests and event streams, not the tray's Bearer ones), the question
 * in the session's view, and the route that answers or declines it. Against a real kernel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type DaemonServices } from '../../services.js';
import { outputText } from '../../kernel/execution/outputs.js';
import type { Session } from '../../sessions/session.js';
import { TEST_PYTHON, markChildProcesses } from '../../testing/test-python.js';
import { waitFor } from '../../testing/wait-for.js';
import { panelRequest } from '../testing/panel-request.js';
import { cookieName } from './auth.js';
import { startPanelServer, type PanelServer } from './server.js';

const startedHere = markChildProcesses('panel-question-test');
after(() => startedHere.allEnded());

describe('questions in the panel', () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let session: Session;

  /** A request as the page makes it (its cookie), or as the tray and scripts do (a Bearer token). */
  const call = (method: 'GET' | 'POST', path: string, body?: unknown, as: 'page' | 'script' = 'page') => panelRequest(panel, method, path, body, as);
  const view = async () => (await call('GET', '/api/sessions')).data.sessions.find((s: { name: string }) => s.name === 'q');
  const submit = (code: string) => session.submit({ code, client: 'question-test', timeoutS: 60, outputLimit: 10_000 });

  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-panel-question-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0' } });
    panel = await startPanelServer({ services, registration: { home: join(stateDir, 'home'), env: {} } });
    session = await services.sessions.start('q', {});
  });
  after(async () => {
    await panel.close();
    await services.shutdown();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test("a person is at a panel while a page follows the events or asked lately; the tray's Bearer requests do not count", async () => {
    assert.equal(services.sessions.presence(), false, 'nothing has looked yet');
    await call('GET', '/api/state', undefined, 'script');
    assert.equal(services.sessions.presence(), false, 'a Bearer request is the tray or a script');
    const abort = new AbortController();
    const stream = await fetch(new URL('api/events', panel.baseUrl), { headers: { Authorization: `Bearer ${panel.token}` }, signal: abort.signal });
    assert.equal(stream.status, 200);
    assert.equal(services.sessions.presence(), false, "the tray's event stream is no one looking");
    abort.abort();
    await call('GET', '/api/state');
    assert.equal(services.sessions.presence(), true, "the page's request, with its cookie");
  });

  test('the route refuses what is not an answer, with words that say why', async () => {
    const cases: [unknown, RegExp][] = [
      [{ action: 'accept', value: 'x' }, /id must be the question's id/],
      [{ id: 42, action: 'accept', value: 'x' }, /id must be the question's id/],
      [{ id: 'x'.repeat(201), action: 'accept', value: 'x' }, /id must be the question's id/],
      [{ id: 'abc', action: 'accept' }, /value must be the answer, as a string/],
      [{ id: 'abc', action: 'accept', value: 7 }, /value must be the answer, as a string/],
      [{ id: 'abc', action: 'decline', value: 'x' }, /declined question takes no value/],
      [{ id: 'abc', action: 'cancel' }, /action must be "accept" \(with a value\) or "decline"/],
      [{ id: 'abc' }, /action must be/],
    ];
    for (const [body, words] of cases) {
      const answer = await call('POST', '/api/sessions/q/question', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(answer.data.error, words, JSON.stringify(body));
    }
    assert.equal((await call('POST', '/api/sessions/nope/question', { id: 'abc', action: 'decline' })).status, 404);
    const gone = await call('POST', '/api/sessions/q/question', { id: 'abc', action: 'accept', value: 'x' });
    assert.equal(gone.status, 409, 'no such question open');
    assert.match(gone.data.error, /no longer open: it was answered elsewhere .* or the run that asked it has ended/);
    const notJson = await fetch(new URL('api/sessions/q/question', panel.baseUrl), { method: 'POST', headers: { Cookie: `${cookieName(panel.port)}=${panel.token}`, 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(notJson.status, 415, 'a form post from another site cannot answer');
    const noToken = await fetch(new URL('api/sessions/q/question', panel.baseUrl), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":"abc","action":"decline"}' });
    assert.equal(noToken.status, 401);
  });

  test('input() while a page looks: the question is in the session view, the answer reaches the code, a second answer is told it is gone', async () => {
    await call('GET', '/api/state');
    const handle = submit('name = input("Your name? ")\nprint("hello", name)');
    await waitFor('the question in the view', async () => Boolean((await view())?.question));
    const asked = (await view()).question;
    assert.deepEqual(Object.keys(asked).sort(), ['askedAt', 'client', 'id', 'password', 'prompt', 'run'], 'the view carries these fields and no answer');
    assert.equal(asked.prompt, 'Your name? ');
    assert.equal(asked.password, false);
    assert.equal(asked.client, 'question-test');
    assert.equal(asked.run, handle.id);
    assert.equal((await view()).running.run, handle.id, 'asked by the run holding the kernel');

    const answered = await call('POST', '/api/sessions/q/question', { id: asked.id, action: 'accept', value: 'Ada' });
    assert.equal(answered.status, 200, JSON.stringify(answered.data));
    assert.deepEqual(answered.data, { outcome: 'answered' });
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'done');
    if (outcome.kind !== 'done') return;
    assert.equal(outcome.result.status, 'ok', JSON.stringify(outcome.result.error));
    assert.match(outputText(outcome.result.outputs), /hello Ada/);
    assert.equal((await view()).question, null, 'answered: gone from the view');
    const again = await call('POST', '/api/sessions/q/question', { id: asked.id, action: 'accept', value: 'Bob' });
    assert.equal(again.status, 409);
    assert.match(again.data.error, /no longer open/);
  });

  test('getpass answered in the panel: the view says password and the answer is nowhere but in the code', async () => {
    await call('GET', '/api/state');
    const secret = 'hunter2-Qz81';
    const handle = submit('import getpass\npw = getpass.getpass("Password: ")\nprint(len(pw))');
    await waitFor('the question in the view', async () => Boolean((await view())?.question));
    const asked = (await view()).question;
    assert.equal(asked.password, true);
    assert.equal(asked.prompt, 'Password: ');
    const answered = await call('POST', '/api/sessions/q/question', { id: asked.id, action: 'accept', value: secret });
    assert.deepEqual(answered.data, { outcome: 'answered' });
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'done');
    if (outcome.kind !== 'done') return;
    assert.match(outputText(outcome.result.outputs), new RegExp(`^${secret.length}$`, 'm'), 'the code got it');
    assert.ok(!outputText(outcome.result.outputs).includes(secret), 'not in the output');
    assert.ok(!JSON.stringify(await call('GET', '/api/state')).includes(secret), 'not in the snapshot');
    assert.ok(!readFileSync(join(session.dir, 'log.jsonl'), 'utf8').includes(secret), 'not in the log');
    const notebook = await call('GET', '/api/sessions/q/notebook');
    assert.ok(!JSON.stringify(notebook.data).includes(secret), 'not in the record');
  });

  test("Don't answer: the code gets KeyboardInterrupt and the session goes on", async () => {
    await call('GET', '/api/state');
    const handle = submit('answer = input("Go on? ")');
    await waitFor('the question in the view', async () => Boolean((await view())?.question));
    const asked = (await view()).question;
    const declined = await call('POST', '/api/sessions/q/question', { id: asked.id, action: 'decline' });
    assert.deepEqual(declined.data, { outcome: 'declined' });
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'done');
    if (outcome.kind !== 'done') return;
    assert.equal(outcome.result.status, 'error');
    assert.equal(outcome.result.error?.ename, 'KeyboardInterrupt');
    const next = await session.run({ code: 'print(6 * 7)', client: 'question-test', outputLimit: 10_000 });
    assert.equal(next.kind, 'done');
    if (next.kind === 'done') assert.match(outputText(next.result.outputs), /^42$/m);
    assert.equal((await call('POST', '/api/sessions/q/question', { id: asked.id, action: 'decline' })).status, 409, 'declined once is gone');
  });
});
