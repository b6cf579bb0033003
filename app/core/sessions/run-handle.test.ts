/** RunHandle and RunRegistry: pure logic, no kernel. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunRegistry } from './run-handle.js';

test('the registry numbers runs per session, queues each behind the last unfinished, and says which holds the kernel', () => {
  const runs = new RunRegistry('s');
  const a = runs.create({ kind: 'code', code: 'a', client: 'c', textCap: 100 });
  const b = runs.create({ kind: 'helper', code: 'list_names()', client: 'c', textCap: 0 });
  assert.deepEqual([a.id, b.id], ['s-1', 's-2']);
  assert.equal(a.queuedBehind, undefined);
  assert.equal(b.queuedBehind, a);
  assert.equal(runs.current(), undefined, 'nothing has started');
  a.markStarted();
  assert.equal(runs.current(), a);
  a.markEnded();
  assert.equal(runs.current(), undefined, 'ended: it no longer holds the kernel, though not yet settled');
  assert.equal(runs.startedUnsettled(), a);
  a.settle('outcome');
  assert.equal(runs.startedUnsettled(), undefined);
  assert.equal(runs.lastUnfinished(), b);
  runs.forget(b);
  assert.deepEqual(runs.list().map((r) => r.id), ['s-1'], 'a run that never started can be forgotten');
  assert.equal(runs.latest('code'), a);
});

test('the registry keeps the latest finished runs only', async () => {
  const runs = new RunRegistry('s', 2);
  const all = Array.from({ length: 5 }, (_, i) => runs.create<number>({ kind: 'code', code: `${i}`, client: 'c', textCap: 10 }));
  all.forEach((handle, i) => handle.settle(i));
  assert.deepEqual(runs.list().map((r) => r.code), ['3', '4']);
  assert.equal(await all[4].done, 4, 'a settled run keeps its outcome');
});

test('a look keeps the newest stream text within its cap and at most 20 figures, and says what it left out', () => {
  const handle = new RunRegistry('s').create({ kind: 'code', code: 'x', client: 'c', textCap: 10 });
  handle.push({ type: 'stream', name: 'stdout', text: 'abcdefgh' });
  handle.push({ type: 'stream', name: 'stdout', text: '12345678' });
  for (let i = 0; i < 22; i++) handle.push({ type: 'display_data', data: { 'text/plain': `${i}` }, metadata: {} });
  const look = handle.takeNew();
  const text = look.outputs.flatMap((o) => (o.type === 'stream' ? [o.text] : [])).join('');
  assert.equal(text, 'gh12345678');
  assert.equal(look.omittedChars, 6);
  assert.equal(look.omittedFigures, 2);
  assert.equal(look.outputs.filter((o) => o.type === 'display_data').length, 20);
  assert.deepEqual(handle.takeNew(), { outputs: [], omittedChars: 0, omittedFigures: 0 }, 'the look moved on');
});

test('a caller tied to a run stops it by giving up inside its wait; untied, it no longer can', () => {
  const handle = new RunRegistry('s').create({ kind: 'code', code: 'x', client: 'c', textCap: 10 });
  const first = new AbortController();
  const untie = handle.tieTo(first.signal);
  assert.equal(handle.waiting, 1);
  untie();
  assert.equal(handle.waiting, 0);
  first.abort();
  assert.equal(handle.signal.aborted, false);
  const second = new AbortController();
  handle.tieTo(second.signal);
  second.abort();
  assert.equal(handle.signal.aborted, true);
});

test('a failure reaches whoever waits on the run, and the run is done', async () => {
  const handle = new RunRegistry('s').create({ kind: 'code', code: 'x', client: 'c', textCap: 10 });
  handle.fail(new Error('cancelled'));
  await assert.rejects(handle.done, /cancelled/);
  assert.equal(handle.state, 'done');
});
