import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMessage, type JsonObject } from '../../wire/index.js';
import { ForeignCellAssembler, type ForeignCell } from './foreign-cells.js';

/** Another client's request, and the iopub messages the kernel publishes under it. */
function request(msgType = 'execute_request') {
  const parent = createMessage(msgType, 'their-session', {}).header;
  return (type: string, content: JsonObject) => createMessage(type, 'kernel', content, parent);
}

function assembler(maxChars = 1000) {
  const cells: ForeignCell[] = [];
  let now = 1000;
  const a = new ForeignCellAssembler(() => ({ maxChars }), (cell) => cells.push(cell), () => (now += 5));
  return { a, cells };
}

test('a cell starts with execute_input, gathers its outputs and ends with its idle', () => {
  const { a, cells } = assembler();
  const of = request();
  a.take(of('status', { execution_state: 'busy' }));
  a.take(of('execute_input', { code: 'print(df)\ndf', execution_count: 7 }));
  a.take(of('stream', { name: 'stdout', text: '   a\n0  1\n' }));
  a.take(of('execute_result', { data: { 'text/plain': '   a\n0  1' }, metadata: {}, execution_count: 7 }));
  assert.equal(cells.length, 0, 'not ended before its idle');
  a.take(of('status', { execution_state: 'idle' }));
  assert.equal(cells.length, 1);
  const [cell] = cells;
  assert.equal(cell.code, 'print(df)\ndf');
  assert.equal(cell.executionCount, 7);
  assert.equal(cell.clientSession, 'their-session');
  assert.equal(cell.result.status, 'ok');
  assert.deepEqual(cell.result.outputs.map((o) => o.type), ['stream', 'execute_result']);
  assert.ok(cell.result.durationMs > 0);
});

test('an error output makes it a failed cell, described as ours are', () => {
  const { a, cells } = assembler();
  const of = request();
  a.take(of('execute_input', { code: '1/0', execution_count: 3 }));
  a.take(of('error', { ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: ['Traceback', 'ZeroDivisionError: division by zero'] }));
  a.take(of('status', { execution_state: 'idle' }));
  assert.equal(cells[0].result.status, 'error');
  assert.equal(cells[0].result.error?.ename, 'ZeroDivisionError');
});

test('requests that run no code (kernel_info, complete) and unparented messages make no cell', () => {
  const { a, cells } = assembler();
  const info = request('kernel_info_request');
  a.take(info('status', { execution_state: 'busy' }));
  a.take(info('status', { execution_state: 'idle' }));
  a.take(createMessage('status', 'kernel', { execution_state: 'starting' }));
  a.take(createMessage('stream', 'kernel', { name: 'stdout', text: 'stray' }));
  assert.equal(cells.length, 0);
  assert.equal(a.openCount, 0);
});

test('two clients’ cells interleaved on iopub are kept apart by their parent', () => {
  const { a, cells } = assembler();
  const one = request();
  const two = request();
  a.take(one('execute_input', { code: 'a', execution_count: 1 }));
  a.take(two('execute_input', { code: 'b', execution_count: 2 }));
  a.take(two('stream', { name: 'stdout', text: 'from two\n' }));
  a.take(one('stream', { name: 'stdout', text: 'from one\n' }));
  a.take(two('status', { execution_state: 'idle' }));
  a.take(one('status', { execution_state: 'idle' }));
  assert.deepEqual(cells.map((c) => [c.code, c.result.outputs.map((o) => (o.type === 'stream' ? o.text : ''))]), [
    ['b', ['from two\n']],
    ['a', ['from one\n']],
  ]);
});

test('its output is bounded like ours: head and tail past the limit', () => {
  const { a, cells } = assembler(1000);
  const of = request();
  a.take(of('execute_input', { code: 'loop', execution_count: 1 }));
  for (let i = 0; i < 100; i++) a.take(of('stream', { name: 'stdout', text: `${'x'.repeat(99)}\n` }));
  a.take(of('status', { execution_state: 'idle' }));
  const result = cells[0].result;
  assert.equal(result.streamChars, 10_000);
  assert.ok(result.outputs.some((o) => o.type === 'omitted'));
  const kept = result.outputs.reduce((n, o) => n + (o.type === 'stream' ? o.text.length : 0), 0);
  assert.ok(kept <= 1000, `kept ${kept} characters`);
});

test('a client that never says idle cannot pile up open cells; flush ends what is open', () => {
  const { a, cells } = assembler();
  for (let i = 0; i < 12; i++) a.take(request()('execute_input', { code: `c${i}`, execution_count: i }));
  assert.ok(a.openCount <= 8);
  assert.equal(cells.length, 12 - a.openCount, 'the oldest were ended as they were');
  a.flush();
  assert.equal(a.openCount, 0);
  assert.equal(cells.length, 12);
});
