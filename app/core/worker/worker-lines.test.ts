/** The worker's line framing: pure logic (the worker itself is tested over its real socket in worker.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createMessage, Signer } from '../wire/index.js';
import { decodeWorkerLine, encodeWorkerLine, LineSplitter } from './worker-lines.js';

const key = 'ab'.repeat(32);
const signer = new Signer(Buffer.from(key));

test('a line is the hex HMAC-SHA256 of the JSON, a space, the JSON, a newline', () => {
  const line = encodeWorkerLine('shell', createMessage('execute_request', 's', { code: '1+1' }), signer);
  assert.equal(line.at(-1), 0x0a);
  const text = line.subarray(0, -1).toString();
  const [signature, ...rest] = text.split(' ');
  const body = rest.join(' ');
  assert.equal(signature, createHmac('sha256', key).update(body).digest('hex'));
  assert.equal(JSON.parse(body).channel, 'shell');
  const decoded = decodeWorkerLine(line.subarray(0, -1), signer);
  assert.ok(decoded.ok);
  assert.equal(decoded.channel, 'shell');
  assert.deepEqual(decoded.message.content, { code: '1+1' });
});

test('a forged, tampered, unsigned or foreign line is refused before it is parsed', () => {
  const line = encodeWorkerLine('iopub', createMessage('status', 's', { execution_state: 'idle' }), signer).subarray(0, -1);
  const space = line.indexOf(0x20);
  const tampered = Buffer.concat([line.subarray(0, space + 1), Buffer.from(line.subarray(space + 1).toString().replace('idle', 'busy'))]);
  const other = encodeWorkerLine('iopub', createMessage('status', 's', {}), new Signer(Buffer.from('another key'))).subarray(0, -1);
  for (const bad of [tampered, other, Buffer.from(`${'0'.repeat(64)} {}`), Buffer.from('{"channel":"shell"}'), Buffer.from('abc {}')]) {
    const decoded = decodeWorkerLine(bad, signer);
    assert.equal(decoded.ok, false);
    assert.equal(!decoded.ok && decoded.reason, 'bad-signature');
  }
});

test('a signed line that is not a worker message is malformed', () => {
  const sign = (body: string) => Buffer.from(`${signer.sign([Buffer.from(body)])} ${body}`);
  for (const body of ['{', '[]', '{"channel":"shell"}', '{"channel":"elsewhere","header":{"msg_type":"x"}}']) {
    const decoded = decodeWorkerLine(sign(body), signer);
    assert.equal(!decoded.ok && decoded.reason, 'malformed', body);
  }
});

test('lines split across chunks, several in one chunk, and an over-long line skipped to its end', () => {
  const lines: string[] = [];
  const overflows: number[] = [];
  const splitter = new LineSplitter((line) => lines.push(line.toString()), (bytes) => overflows.push(bytes), 10);
  splitter.push(Buffer.from('one\ntw'));
  splitter.push(Buffer.from('o\nthree\n'));
  splitter.push(Buffer.from('0123456789abc'));
  splitter.push(Buffer.from('def\nfour\n'));
  assert.deepEqual(lines, ['one', 'two', 'three', 'four']);
  assert.equal(overflows.length, 1);
});
