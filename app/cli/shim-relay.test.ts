import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DaemonConnector, DaemonLink, LinkHandlers } from './daemon-link.js';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { findQuickAnswers, initializeResult, readQuickAnswers, writeQuickAnswers, type QuickAnswers } from './quick-answers.js';
import { waitFor } from '../core/testing/wait-for.js';
import { CONNECTION_CLOSED_CODE, DAEMON_STOPPED_MESSAGE, SESSIONS_LOST_NOTICE, ShimRelay } from './shim-relay.js';

class FakeLink implements DaemonLink {
  readonly sent: unknown[] = [];
  handlers: LinkHandlers | null = null;
  closedByShim = false;
  constructor(readonly pid: number) {}
  start(handlers: LinkHandlers): void {
    this.handlers = handlers;
  }
  send(line: string): void {
    this.sent.push(JSON.parse(line));
  }
  close(): void {
    this.closedByShim = true;
  }
  /** The daemon sends a message. */
  emit(message: object | string): void {
    this.handlers!.onLine(typeof message === 'string' ? message : JSON.stringify(message));
  }
  drop(): void {
    this.handlers!.onClose();
  }
  sentMethods(): unknown[] {
    return this.sent.map((m) => (m as { method?: string; id?: unknown }).method ?? `response:${(m as { id?: unknown }).id}`);
  }
}

/** Hands out the links it is given, in order; an Error is thrown instead. */
class FakeConnector implements DaemonConnector {
  readonly names: string[] = [];
  constructor(private readonly plan: (FakeLink | Error | Promise<FakeLink>)[]) {}
  async connect(clientName: string): Promise<DaemonLink> {
    this.names.push(clientName);
    const next = this.plan.shift();
    if (!next) throw new Error('no more links planned');
    if (next instanceof Error) throw next;
    return next;
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function setup(plan: (FakeLink | Error | Promise<FakeLink>)[]) {
  const connector = new FakeConnector(plan);
  const toClient: Record<string, any>[] = [];
  const relay = new ShimRelay({ connector, writeToClient: (line) => toClient.push(JSON.parse(line)), replayTimeoutMs: 500 });
  const send = (message: object) => relay.fromClient(JSON.stringify(message));
  return { connector, relay, toClient, send };
}

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id: number | string, text = 'hi') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
const result = (id: number | string, text: string) => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

/** Client and first daemon through initialize. */
async function initializedSession(plan: (FakeLink | Error | Promise<FakeLink>)[]) {
  const s = setup(plan);
  const first = plan[0] as FakeLink;
  s.send(initialize);
  await tick();
  first.emit({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'ps', version: '1' } } });
  s.send(initialized);
  s.toClient.length = 0;
  return { ...s, first };
}

describe('the shim relay', () => {
  test('connects on the first message, naming the client, and relays both ways in order', async () => {
    const link = new FakeLink(100);
    const { connector, send, toClient } = setup([link]);
    send(initialize);
    send(initialized);
    send(call(1));
    await tick();
    assert.deepEqual(connector.names, ['claude-code']);
    assert.deepEqual(link.sentMethods(), ['initialize', 'notifications/initialized', 'tools/call']);
    link.emit(result(0, 'init'));
    link.emit({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } });
    link.emit(result(1, 'echo: hi'));
    assert.deepEqual(toClient.map((m) => m.id ?? m.method), [0, 'notifications/message', 1]);
    assert.equal(toClient[2].result.content.length, 1, 'no notice without a restart');
  });

  test('when the daemon drops, every call in flight gets an error at once; notifications and answered calls do not', async () => {
    const { first, send, toClient } = await initializedSession([new FakeLink(100)]);
    send(call(1));
    send(call('two'));
    send(call(3));
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    first.emit(result(1, 'done'));
    toClient.length = 0;
    first.drop();
    assert.deepEqual(toClient, [{ jsonrpc: '2.0', id: 'two', error: { code: CONNECTION_CLOSED_CODE, message: DAEMON_STOPPED_MESSAGE } }]);
  });

  test('reconnects on the next message: replays initialize, swallows its answer, and notes the loss on the next tool result', async () => {
    const second = new FakeLink(200);
    const { first, send, toClient, connector } = await initializedSession([new FakeLink(100), second]);
    first.drop();
    send(call(5, 'again'));
    send(call(6, 'queued too'));
    await tick();
    assert.deepEqual(connector.names, ['claude-code', 'claude-code']);
    assert.deepEqual(second.sentMethods(), ['initialize'], 'nothing else before the new daemon answers initialize');
    const replayId = (second.sent[0] as { id: unknown }).id;
    assert.notEqual(replayId, 0, 'the replay has its own id');
    assert.deepEqual((second.sent[0] as { params: unknown }).params, initialize.params);

    second.emit({ jsonrpc: '2.0', id: replayId, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'ps', version: '1' } } });
    await tick();
    assert.deepEqual(second.sentMethods(), ['initialize', 'notifications/initialized', 'tools/call', 'tools/call']);
    assert.equal(toClient.length, 0, 'the replayed initialize is not answered to the client');

    second.emit(result(5, 'echo: again'));
    second.emit(result(6, 'echo: queued too'));
    assert.deepEqual(
      toClient[0].result.content.map((c: { text: string }) => c.text),
      [SESSIONS_LOST_NOTICE, 'echo: again'],
    );
    assert.deepEqual(toClient[1].result.content.map((c: { text: string }) => c.text), ['echo: queued too'], 'only once');
  });

  test('no loss notice when the same daemon takes the client back', async () => {
    const again = new FakeLink(100);
    const { first, send, toClient } = await initializedSession([new FakeLink(100), again]);
    first.drop();
    send(call(7));
    await tick();
    again.emit({ jsonrpc: '2.0', id: (again.sent[0] as { id: unknown }).id, result: {} });
    await tick();
    again.emit(result(7, 'echo: hi'));
    assert.equal(toClient.at(-1)!.result.content.length, 1);
  });

  test('the notice waits for a tools/call result; other answers pass untouched', async () => {
    const second = new FakeLink(200);
    const { first, send, toClient } = await initializedSession([new FakeLink(100), second]);
    first.drop();
    send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    await tick();
    second.emit({ jsonrpc: '2.0', id: (second.sent[0] as { id: unknown }).id, result: {} });
    await tick();
    second.emit({ jsonrpc: '2.0', id: 8, result: { tools: [] } });
    send(call(9));
    second.emit(result(9, 'echo: hi'));
    assert.deepEqual(toClient[0], { jsonrpc: '2.0', id: 8, result: { tools: [] } });
    assert.equal(toClient[1].result.content[0].text, SESSIONS_LOST_NOTICE);
  });

  test('a daemon that cannot be reached answers the waiting calls with the reason, and the next message tries again', async () => {
    const later = new FakeLink(300);
    const { first, send, toClient, connector } = await initializedSession([new FakeLink(100), new Error('no daemon answered within 15 s'), later]);
    first.drop();
    send(call(10));
    send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    await tick();
    assert.equal(toClient.length, 1);
    assert.equal(toClient[0].id, 10);
    assert.match(toClient[0].error.message, /could not reach its daemon: no daemon answered within 15 s/);
    send(call(11));
    await tick();
    assert.equal(connector.names.length, 3);
    assert.deepEqual(later.sentMethods(), ['initialize']);
  });

  test('a daemon lost while being set up does not leave calls hanging', async () => {
    const flaky = new FakeLink(200);
    const { first, send, toClient } = await initializedSession([new FakeLink(100), flaky]);
    first.drop();
    send(call(12));
    await tick();
    flaky.drop(); // before answering the replayed initialize
    await tick();
    assert.equal(toClient.length, 1);
    assert.match(toClient[0].error.message, /closed the connection while it was being set up/);
  });

  test('a new daemon that never answers initialize times out into an error', async () => {
    const mute = new FakeLink(200);
    const { first, send, toClient } = await initializedSession([new FakeLink(100), mute]);
    first.drop();
    send(call(13));
    await waitFor('the call to fail once the replayed initialize times out', () => toClient.length > 0);
    assert.match(toClient[0].error.message, /did not answer initialize/);
    assert.ok(mute.closedByShim);
  });

  test('a reply to a request from a daemon that is gone is not sent to its successor', async () => {
    const second = new FakeLink(200);
    const { first, send } = await initializedSession([new FakeLink(100), second]);
    first.emit({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });
    send({ jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } });
    assert.equal(first.sentMethods().at(-1), 'response:srv-1', 'answered to the daemon that asked');
    first.emit({ jsonrpc: '2.0', id: 'srv-2', method: 'roots/list' });
    first.drop();
    send({ jsonrpc: '2.0', id: 'srv-2', result: { roots: [] } });
    await tick();
    assert.deepEqual(second.sent, []);
  });

  test('cancelling a call that died with the daemon does not start a new one', async () => {
    const { first, send, connector, toClient } = await initializedSession([new FakeLink(100), new FakeLink(200)]);
    send(call(15));
    first.drop();
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 15, reason: 'gave up' } });
    await tick();
    assert.equal(connector.names.length, 1);
    assert.equal(toClient.length, 1, 'only the error for the call');
  });

  test('lines from the daemon that are not JSON never reach the client', async () => {
    const { first, toClient } = await initializedSession([new FakeLink(100)]);
    first.emit('Traceback (most recent call last):');
    first.emit(result(99, 'fine'));
    assert.deepEqual(toClient.map((m) => m.id), [99]);
  });

  test('after the client leaves, nothing more is sent or connected', async () => {
    const { first, relay, send, connector } = await initializedSession([new FakeLink(100), new FakeLink(200)]);
    relay.close();
    assert.ok(first.closedByShim);
    send(call(14));
    await tick();
    assert.equal(connector.names.length, 1);
  });
});

describe('the shim answers initialize and tools/list itself while the daemon is not linked yet', () => {
  const answers: QuickAnswers = {
    version: '9.9.9',
    protocolVersions: ['2025-11-25', '2025-06-18'],
    initialize: { capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'python-session', version: '9.9.9' }, instructions: 'Run Python.' },
    tools: { tools: [{ name: 'run_python', inputSchema: { type: 'object' } }] },
    discover: {
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18'],
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'python-session', version: '9.9.9' },
      instructions: 'Run Python.',
    },
  };

  function quickSetup(plan: (FakeLink | Error | Promise<FakeLink>)[], quick: QuickAnswers | null = answers) {
    const connector = new FakeConnector(plan);
    const toClient: Record<string, any>[] = [];
    const relay = new ShimRelay({ connector, writeToClient: (line) => toClient.push(JSON.parse(line)), replayTimeoutMs: 500, quickAnswers: () => quick });
    return { relay, toClient, send: (message: object) => relay.fromClient(JSON.stringify(message)) };
  }

  /** A link that has not connected yet, and the means to let it. */
  function pendingLink(pid: number) {
    const link = new FakeLink(pid);
    let connect!: () => void;
    const ready = new Promise<FakeLink>((resolve) => (connect = () => resolve(link)));
    return { link, ready, connect };
  }

  /** The client initialized and listed its tools from the answers; then the daemon is linked and the replay answered. */
  async function quickStart() {
    const pending = pendingLink(100);
    const setup = quickSetup([pending.ready]);
    setup.send(initialize);
    setup.send(initialized);
    setup.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    return { ...setup, pending };
  }

  async function answerReplay(link: FakeLink) {
    await waitFor('the replayed initialize', () => link.sent.length >= 1);
    link.emit({ jsonrpc: '2.0', id: (link.sent[0] as { id: string }).id, result: { protocolVersion: '2025-06-18', ...answers.initialize } });
  }

  test('initialize and tools/list are answered at once; the daemon is then initialized with the client’s own request', async () => {
    const { send, toClient, pending } = await quickStart();
    send(call(2));
    assert.deepEqual(toClient[0], { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', ...answers.initialize } }, 'the version the client asked for, as the server negotiates');
    assert.deepEqual(toClient[1], { jsonrpc: '2.0', id: 1, result: answers.tools });
    assert.equal(toClient.length, 2, 'the call waits for the daemon');

    pending.connect();
    await waitFor('the replayed initialize', () => pending.link.sent.length === 1);
    const replayed = pending.link.sent[0] as { id: string; method: string; params: unknown };
    assert.equal(replayed.method, 'initialize');
    assert.deepEqual(replayed.params, initialize.params);
    pending.link.emit({ jsonrpc: '2.0', id: replayed.id, result: { protocolVersion: '2025-06-18', ...answers.initialize } });
    await waitFor('the call and the tools check to reach the daemon', () => pending.link.sent.length === 4);
    assert.deepEqual(pending.link.sentMethods(), ['initialize', 'notifications/initialized', 'tools/call', 'tools/list']);
    const check = pending.link.sent[3] as { id: string };
    pending.link.emit({ jsonrpc: '2.0', id: check.id, result: answers.tools });
    pending.link.emit(result(2, 'ran'));
    await waitFor('the call’s result', () => toClient.length === 3);
    assert.deepEqual(toClient[2], result(2, 'ran'), 'the replay and the check were answered to the shim alone, and the tools matched');
  });

  test('tools that differ from the daemon’s are announced with notifications/tools/list_changed', async () => {
    const { toClient, pending } = await quickStart();
    pending.connect();
    await answerReplay(pending.link);
    await waitFor('the tools check', () => pending.link.sent.length === 3);
    pending.link.emit({ jsonrpc: '2.0', id: (pending.link.sent[2] as { id: string }).id, result: { tools: [...(answers.tools.tools as object[]), { name: 'wait_for_run', inputSchema: { type: 'object' } }] } });
    await waitFor('the notification', () => toClient.length === 3);
    assert.deepEqual(toClient[2], { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  });

  test('without answers (none written yet, or another version’s) everything goes to the daemon as before', async () => {
    const link = new FakeLink(100);
    const { send, toClient } = quickSetup([link], null);
    send(initialize);
    send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    await waitFor('both requests to reach the daemon', () => link.sent.length === 2);
    assert.deepEqual(link.sentMethods(), ['initialize', 'tools/list']);
    assert.equal(toClient.length, 0);
  });

  test('a linked daemon answers tools/list itself, and a second page is never answered from the file', async () => {
    const pending = pendingLink(100);
    const { send, toClient } = quickSetup([pending.ready]);
    send(initialize);
    send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'page-2' } });
    assert.equal(toClient.length, 1, 'only initialize was answered here');
    pending.connect();
    await answerReplay(pending.link);
    await waitFor('the paged request to reach the daemon', () => pending.link.sent.length === 2);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    assert.deepEqual(pending.link.sentMethods(), ['initialize', 'tools/list', 'tools/list']);
    assert.equal(toClient.length, 1);
  });
});

describe('a 2026-07-28 client (no initialize; its version and name in each request’s _meta)', () => {
  const answers: QuickAnswers = {
    version: '9.9.9',
    protocolVersions: ['2025-11-25'],
    initialize: { capabilities: { tools: {} }, serverInfo: { name: 'python-session', version: '9.9.9' } },
    tools: { tools: [{ name: 'run_python', inputSchema: { type: 'object' } }] },
    discover: { resultType: 'complete', supportedVersions: ['2026-07-28', '2025-11-25'], capabilities: { tools: {} }, serverInfo: { name: 'python-session', version: '9.9.9' } },
  };
  const meta = (version = '2026-07-28') => ({
    _meta: {
      'io.modelcontextprotocol/protocolVersion': version,
      'io.modelcontextprotocol/clientInfo': { name: 'claude-code', version: '2.1.332' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  });

  function setup(plan: (FakeLink | Promise<FakeLink>)[]) {
    const connector = new FakeConnector(plan);
    const toClient: Record<string, any>[] = [];
    const ready = { told: 0 };
    const relay = new ShimRelay({ connector, writeToClient: (line) => toClient.push(JSON.parse(line)), replayTimeoutMs: 500, quickAnswers: () => answers, onInitializeAnswered: () => ready.told++ });
    return { relay, toClient, connector, ready, send: (message: object) => relay.fromClient(JSON.stringify(message)) };
  }

  test('server/discover and tools/list are answered at once (tools/list with resultType), and nothing is replayed to the daemon', async () => {
    let connect!: () => void;
    const link = new FakeLink(100);
    const { send, toClient, connector, ready } = setup([new Promise<FakeLink>((resolve) => (connect = () => resolve(link)))]);
    send({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: meta() });
    send({ jsonrpc: '2.0', id: 'd2', method: 'server/discover', params: meta() });
    send({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: meta() });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...meta(), name: 'run_python', arguments: { code: '1' } } });
    assert.deepEqual(toClient[0], { jsonrpc: '2.0', id: 'd', result: answers.discover });
    assert.deepEqual(toClient[1], { jsonrpc: '2.0', id: 'd2', result: answers.discover });
    assert.deepEqual(toClient[2], { jsonrpc: '2.0', id: 0, result: { resultType: 'complete', ...answers.tools } });
    assert.equal(toClient.length, 3, 'the call waits for the daemon');
    await tick();
    assert.equal(ready.told, 1, 'the shim says it is ready once');
    assert.deepEqual(connector.names, ['claude-code'], 'the daemon hears the client’s name from _meta');
    connect();
    await waitFor('the call and the tools check to reach the daemon', () => link.sent.length === 2);
    assert.deepEqual(link.sentMethods(), ['tools/call', 'tools/list'], 'no initialize to replay');
  });

  test('tools that differ from the daemon’s are announced on each subscriptions/listen stream that asked, tagged with its id, and nowhere else', async () => {
    let connect!: () => void;
    const link = new FakeLink(100);
    const { send, toClient } = setup([new Promise<FakeLink>((resolve) => (connect = () => resolve(link)))]);
    send({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: meta() });
    send({ jsonrpc: '2.0', id: 'listen-tools', method: 'subscriptions/listen', params: { ...meta(), notifications: { toolsListChanged: true } } });
    send({ jsonrpc: '2.0', id: 'listen-other', method: 'subscriptions/listen', params: { ...meta(), notifications: { resourcesListChanged: true } } });
    connect();
    await waitFor('the streams and the tools check to reach the daemon', () => link.sent.length === 3);
    assert.deepEqual(link.sentMethods(), ['subscriptions/listen', 'subscriptions/listen', 'tools/list']);
    link.emit({ jsonrpc: '2.0', id: (link.sent[2] as { id: string }).id, result: { tools: [] } });
    await waitFor('the notification', () => toClient.length === 2);
    assert.deepEqual(toClient[1], { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-tools' } } });
  });

  test('a request declaring a version the daemon does not speak goes to the daemon, which refuses it', async () => {
    const link = new FakeLink(100);
    const { send, toClient } = setup([link]);
    send({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: meta('2099-01-01') });
    await waitFor('the request to reach the daemon', () => link.sent.length === 1);
    assert.equal(toClient.length, 0);
  });
});

describe('the quick answers file', () => {
  test('is read only when this version wrote it, and negotiates the protocol version as the server does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ps-quick-'));
    const path = join(dir, 'mcp-answers.json');
    assert.equal(readQuickAnswers(path, '1.0.0'), null, 'absent');
    const answers: QuickAnswers = {
      version: '1.0.0',
      protocolVersions: ['2025-11-25', '2025-06-18'],
      initialize: { capabilities: {}, serverInfo: { name: 'ps' } },
      tools: { tools: [] },
      discover: { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 'ps' } },
    };
    writeQuickAnswers(path, answers);
    if (process.platform !== 'win32') assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(readQuickAnswers(path, '1.0.0'), answers);
    assert.equal(readQuickAnswers(path, '1.0.1'), null, 'another version’s');
    await writeFile(path, '{"version":"1.0.0","protocolVersions":[],"initialize":{},"tools":{}}');
    assert.equal(readQuickAnswers(path, '1.0.0'), null, 'malformed');
    assert.equal(initializeResult(answers, '2025-06-18').protocolVersion, '2025-06-18');
    assert.equal(initializeResult(answers, '1999-01-01').protocolVersion, '2025-11-25', 'unknown: the newest');
    await rm(dir, { recursive: true, force: true });
  });

  test('a damaged state file is passed over for the package’s answers, whatever the damage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ps-quick-'));
    const packaged = join(dir, 'packaged.json');
    const good = (version: string): QuickAnswers => ({
      version,
      protocolVersions: ['2025-11-25'],
      initialize: { capabilities: {}, serverInfo: { name: version === 'state' ? 'from-state' : 'from-package' } },
      tools: { tools: [] },
      discover: { supportedVersions: ['2026-07-28'], capabilities: {}, serverInfo: { name: 'ps' } },
    });
    writeFileSync(packaged, JSON.stringify({ ...good('1.0.0'), initialize: { capabilities: {}, serverInfo: { name: 'from-package' } } }));
    const statePath = join(dir, 'mcp-answers.json');
    const fromState = { ...good('1.0.0'), initialize: { capabilities: {}, serverInfo: { name: 'from-state' } } };
    const text = JSON.stringify(fromState);
    const served = () => (findQuickAnswers(statePath, '1.0.0', packaged)?.initialize.serverInfo as { name?: string } | undefined)?.name;

    writeFileSync(statePath, text);
    assert.equal(served(), 'from-state', 'a sound state file of this version wins');
    const damages: [string, () => void][] = [
      ['absent', () => rmSync(statePath, { force: true })],
      ['empty', () => writeFileSync(statePath, '')],
      ['cut short', () => writeFileSync(statePath, text.slice(0, text.length / 2))],
      ['not JSON', () => writeFileSync(statePath, 'not json at all\n')],
      ['JSON of another shape', () => writeFileSync(statePath, JSON.stringify({ ...fromState, discover: { supportedVersions: 'all' } }))],
      ['a JSON array', () => writeFileSync(statePath, '[1,2,3]')],
      ['another version’s', () => writeFileSync(statePath, JSON.stringify({ ...fromState, version: '0.9.0' }))],
      ['a folder', () => mkdirSync(statePath)],
      ['a symlink to a sound file', () => symlinkSync(packaged.replace('packaged', 'elsewhere'), statePath)],
    ];
    writeFileSync(packaged.replace('packaged', 'elsewhere'), text);
    for (const [what, damage] of damages) {
      rmSync(statePath, { recursive: true, force: true });
      damage();
      assert.equal(served(), 'from-package', what);
    }
    rmSync(statePath, { recursive: true, force: true });
    assert.equal(findQuickAnswers(statePath, '1.0.0', join(dir, 'no-package.json')), null, 'neither: nothing to answer with');
    await rm(dir, { recursive: true, force: true });
  });
});
