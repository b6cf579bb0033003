import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { NameFingerprints } from '../kernel/execution/user-names.js';
import { ANOTHER_CLIENT } from '../sessions/parties.js';
import { OthersNewsTracker } from '../sessions/others-news.js';
import type { LogEntry } from '../sessions/session-log.js';
import type { Session } from '../sessions/session.js';
import { toldLine, withToldLine } from './told-line.js';

/** A session as the news sees it: 'logged' entries, and its names (read again on request). */
class FakeSession extends EventEmitter {
  private nextId = 1;
  refreshes = 0;
  /** What a refresh reads (another client's cells change the kernel without telling us). */
  inKernel: NameFingerprints = new Map();
  nameFingerprints: NameFingerprints = new Map();
  namesStale = false;
  refreshNames = async (): Promise<NameFingerprints> => {
    this.refreshes++;
    this.nameFingerprints = this.inKernel;
    this.namesStale = false;
    return this.inKernel;
  };

  /** A cell `client` ran that left `names` in the kernel. */
  ran(client: string, executionCount: number | null, names: Record<string, string>, kind?: 'tool'): void {
    this.inKernel = new Map(Object.entries(names));
    if (client === ANOTHER_CLIENT) this.namesStale = true; // no reply of ours carried them
    else this.nameFingerprints = this.inKernel;
    const entry = { id: this.nextId++, kind, client, executionCount, code: '', time: '', status: 'ok', durationMs: 1, outputs: [] } as LogEntry;
    this.emit('logged', entry);
  }

  get asSession(): Session {
    return this as unknown as Session;
  }
}

/** One client's calls: the line its reply would open with, if any. */
async function call(tracker: OthersNewsTracker, session: FakeSession, during?: () => void): Promise<string | null> {
  const news = await tracker.take(session.asSession);
  during?.();
  tracker.settle(session.asSession);
  return news && toldLine(news);
}

test('the line names the person’s cells and the names they made or changed, once', async () => {
  const session = new FakeSession();
  const me = new OthersNewsTracker(() => 'claude-code');
  assert.equal(await call(me, session, () => session.ran('claude-code', 1, { df: '1:a' })), null, 'a first call has nothing to be told since');
  session.ran('panel', 2, { df: '1:a', df2: '2:a' });
  session.ran('panel', 3, { df: '1:a', df2: '2:a', fit2: '3:b' });
  assert.equal(await call(me, session), 'Since your last call, the person ran 2 cells (In [2], In [3]); new or changed: df2, fit2.');
  assert.equal(await call(me, session), null, 'said once');
  session.ran('claude-code', 4, { df: '9:a', df2: '2:a', fit2: '3:b' });
  assert.equal(await call(me, session), null, 'its own cells are not news');
});

test('another Jupyter client’s cells: the names are read again once, lazily', async () => {
  const session = new FakeSession();
  const me = new OthersNewsTracker(() => 'claude-code');
  await call(me, session, () => session.ran('claude-code', 1, { df: '1:a', tmp: '5:c' }));
  session.ran(ANOTHER_CLIENT, 2, { df: '7:a' });
  assert.equal(session.refreshes, 0, 'nothing is read until the news is taken');
  assert.equal(await call(me, session), 'Since your last call, another Jupyter client ran 1 cell (In [2]); new or changed: df; gone: tmp.');
  assert.equal(session.refreshes, 1);
  assert.equal(await call(me, session), null);
  assert.equal(session.refreshes, 1);
});

test('several parties in the order they ran; another MCP client by its name; tool entries are not cells', async () => {
  const session = new FakeSession();
  const me = new OthersNewsTracker(() => 'claude-code');
  await call(me, session);
  session.ran('panel', 5, {});
  session.ran('codex-mcp-client', 6, { x: '1:a' });
  session.ran('codex-mcp-client', null, { x: '1:a', y: '2:a' }, 'tool');
  session.ran(ANOTHER_CLIENT, 7, { x: '1:a', y: '2:a' });
  session.ran('panel', null, { x: '1:a', y: '2:a' });
  assert.equal(
    await call(me, session),
    'Since your last call, the person ran 2 cells (In [5]), codex-mcp-client ran 1 cell (In [6]) and another Jupyter client ran 1 cell (In [7]); new or changed: x, y.',
  );
});

test('each client is told once, on its own next call', async () => {
  const session = new FakeSession();
  const claude = new OthersNewsTracker(() => 'claude-code');
  const codex = new OthersNewsTracker(() => 'codex-mcp-client');
  await call(claude, session);
  await call(codex, session);
  session.ran('panel', 1, { a: '1:a' });
  assert.match((await call(codex, session))!, /^Since your last call, the person ran 1 cell \(In \[1\]\); new or changed: a\.$/);
  assert.match((await call(claude, session))!, /the person ran 1 cell/);
  assert.equal(await call(codex, session), null);
  assert.equal(await call(claude, session), null);
  session.ran('codex-mcp-client', 2, { a: '1:a' });
  assert.equal(await call(claude, session), 'Since your last call, codex-mcp-client ran 1 cell (In [2]); no names new or changed.');
});

test('names that cannot be read in time leave the names out, not the line', async () => {
  const session = new FakeSession();
  let release = () => undefined as void;
  // Behind a cell that runs on: it answers only once the line has gone out.
  session.refreshNames = () => new Promise<NameFingerprints>((resolve) => (release = () => resolve(new Map())));
  const alive = setInterval(() => undefined, 1000); // the daemon's event loop, which the wait's own timer does not hold
  const me = new OthersNewsTracker(() => 'claude-code', 50);
  await call(me, session);
  session.ran(ANOTHER_CLIENT, 3, { z: '1:a' });
  assert.equal(await call(me, session), 'Since your last call, another Jupyter client ran 1 cell (In [3]).');
  release();
  clearInterval(alive);
});

test('long lists are cut, and the line opens text replies and the notes of JSON ones', () => {
  const many = Array.from({ length: 9 }, (_, i) => ({ id: i + 1, client: 'panel', executionCount: i + 1 }));
  const names = Array.from({ length: 15 }, (_, i) => `n${i}`);
  assert.equal(
    toldLine({ cells: many, names: { changed: names, gone: [] } }),
    'Since your last call, the person ran 9 cells (In [1], In [2], In [3], In [4], In [5], …, In [9]); new or changed: n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11 and 3 more.',
  );
  const line = 'Since your last call, the person ran 1 cell (In [1]).';
  const text = withToldLine({ content: [{ type: 'text', text: 'Out[2]: 3' }, { type: 'image', data: '', mimeType: 'image/png' }] }, line);
  assert.equal(text.content[0].text, `${line}\nOut[2]: 3`);
  assert.equal(text.content.length, 2);
  const json = withToldLine({ content: [{ type: 'text', text: '3' }], structuredContent: { value: 3, notes: ['cut'] } }, line);
  assert.deepEqual(json.structuredContent, { value: 3, notes: [line, 'cut'] });
  assert.ok(json.content[0].text?.startsWith(line));
  const image = withToldLine({ content: [{ type: 'image', data: '', mimeType: 'image/png' }] }, line);
  assert.deepEqual(image.content[0], { type: 'text', text: line });
});
