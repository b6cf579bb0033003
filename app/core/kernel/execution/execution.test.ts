/**
 * ExecutionFuture and OutputCollector: done means reply and idle, in either order; what a run
 * printed is bounded (head and tail in memory, all of it in the spill file); how a run ended is
 * told through methods. Pure logic over scripted messages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessage, type JsonObject } from '../../wire/index.js';
import { ExecutionFuture } from './execution.js';
import { OutputCollector } from './output-collector.js';
import type { Output } from './outputs.js';

const request = createMessage('execute_request', 'client', { code: 'x' });
const iopub = (msgType: string, content: JsonObject) => createMessage(msgType, 'kernel', content, request.header);
const reply = (content: JsonObject) => createMessage('execute_reply', 'kernel', content, request.header);
const settled = async (promise: Promise<unknown>) => (await Promise.race([promise.then(() => true, () => true), new Promise((resolve) => setImmediate(() => resolve(false)))])) as boolean;

test('a future is done only once both its reply and its idle have come, whichever comes first', async () => {
  for (const order of [['reply', 'idle'], ['idle', 'reply']]) {
    const future = new ExecutionFuture();
    future.handleIopub(iopub('execute_input', { code: 'x', execution_count: 3 }));
    future.handleIopub(iopub('stream', { name: 'stdout', text: 'hi\n' }));
    for (const step of order) {
      assert.equal(await settled(future.done), false, `not done before ${step}`);
      if (step === 'reply') future.handleReply(reply({ status: 'ok', execution_count: 3 }));
      else future.handleIopub(iopub('status', { execution_state: 'idle' }));
    }
    const result = await future.done;
    assert.equal(result.status, 'ok');
    assert.equal(result.executionCount, 3);
    assert.deepEqual(result.outputs, [{ type: 'stream', name: 'stdout', text: 'hi\n' }]);
  }
});

test('a future stopped by a restart answers with what was printed, marked restarted with the names lost', async () => {
  const seen: Output[] = [];
  const future = new ExecutionFuture({}, (output) => seen.push(output));
  future.handleIopub(iopub('execute_input', { code: 'x', execution_count: 1 }));
  future.handleIopub(iopub('stream', { name: 'stdout', text: 'partial' }));
  future.markInterrupted();
  future.markRestarted(['df', 'model']);
  future.finishWithoutReply();
  const result = await future.done;
  assert.equal(result.status, 'aborted');
  assert.equal(result.restarted, true);
  assert.deepEqual(result.lostNames, ['df', 'model']);
  assert.equal(result.interrupted, true);
  assert.deepEqual(seen, [{ type: 'stream', name: 'stdout', text: 'partial' }], 'output went to the watcher as it came');
});

test('a failed future rejects and later messages change nothing', async () => {
  const future = new ExecutionFuture();
  future.fail(new Error('the kernel died'));
  future.handleReply(reply({ status: 'ok', execution_count: 1 }));
  await assert.rejects(future.done, /the kernel died/);
  assert.equal(future.isSettled, true);
  await future.begun; // a run that is over counts as begun: an interrupt waiting for it goes on
});

test('past the limit, stream text keeps a head and a tail in memory and goes whole to the spill file; a late value keeps its place', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-collector-'));
  try {
    const spill = join(dir, 'out', 'spill.txt');
    const collector = new OutputCollector({ maxChars: 100, spillPath: () => spill });
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}\n`);
    for (const line of lines) collector.take(iopub('stream', { name: 'stdout', text: line }));
    collector.take(iopub('execute_result', { data: { 'text/plain': '42' }, metadata: {}, execution_count: 1 }));
    await collector.closeSpill();
    const result = collector.result({ content: { status: 'ok' }, executionCount: 1, durationMs: 1, timedOut: false, interrupted: false, lostNames: null });
    assert.equal(readFileSync(spill, 'utf8'), lines.join(''));
    assert.equal(result.spillPath, spill);
    assert.equal(result.streamChars, lines.join('').length);
    const text = result.outputs.map((o) => (o.type === 'stream' ? o.text : o.type === 'omitted' ? '[omitted]' : o.type === 'execute_result' ? '[42]' : '')).join('');
    assert.ok(text.startsWith('line 0\n'), text);
    assert.ok(text.includes('[omitted]'));
    assert.ok(text.endsWith('line 49\n[42]'), `the value comes after the text printed before it: ${text}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('carriage returns come back applied, and clear_output(wait) clears at the next output', () => {
  const collector = new OutputCollector();
  collector.take(iopub('stream', { name: 'stdout', text: 'progress 10%\rprogress 90%\rprogress 100%\n' }));
  collector.take(iopub('clear_output', { wait: true }));
  assert.equal(collector.outputs.length, 1, 'not cleared yet');
  collector.take(iopub('stream', { name: 'stdout', text: 'fresh\n' }));
  const result = collector.result({ content: { status: 'ok' }, executionCount: 1, durationMs: 1, timedOut: false, interrupted: false, lostNames: null });
  assert.deepEqual(result.outputs, [{ type: 'stream', name: 'stdout', text: 'fresh\n' }]);
  const again = new OutputCollector();
  again.take(iopub('stream', { name: 'stdout', text: 'progress 10%\rprogress 100%\n' }));
  const shown = again.result({ content: { status: 'ok' }, executionCount: 1, durationMs: 1, timedOut: false, interrupted: false, lostNames: null });
  assert.deepEqual(shown.outputs, [{ type: 'stream', name: 'stdout', text: 'progress 100%\n' }]);
});
