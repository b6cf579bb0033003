import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createMessage, decodeMessage, encodeMessage, Signer } from './index.js';

const key = Buffer.from('0123456789abcdef');

test('signs the four JSON frames with HMAC-SHA256 as jupyter_client does', () => {
  const signer = new Signer(key);
  const message = createMessage('execute_request', 'session-1', { code: '1+1' });
  const frames = encodeMessage(message, signer);
  assert.equal(frames[0].toString(), '<IDS|MSG>');
  const expected = createHmac('sha256', key);
  for (const frame of frames.slice(2, 6)) expected.update(frame);
  assert.equal(frames[1].toString(), expected.digest('hex'));
});

test('round-trips a message, keeping identities and buffers', () => {
  const signer = new Signer(key);
  const message = createMessage('comm_msg', 's', { data: { x: 1 } });
  message.identities = [Buffer.from('peer')];
  message.buffers = [Buffer.from([1, 2, 3])];
  const decoded = decodeMessage(encodeMessage(message, signer), signer);
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.message.content, { data: { x: 1 } });
  assert.deepEqual(decoded.message.identities, [Buffer.from('peer')]);
  assert.deepEqual(decoded.message.buffers, [Buffer.from([1, 2, 3])]);
});

test('rejects a forged signature and a tampered frame before parsing', () => {
  const signer = new Signer(key);
  const frames = encodeMessage(createMessage('status', 's', { execution_state: 'idle' }), signer);
  const forged = [...frames];
  forged[1] = Buffer.from('0'.repeat(64));
  assert.deepEqual(decodeMessage(forged, signer), { ok: false, reason: 'bad-signature', detail: 'HMAC signature mismatch' });
  const tampered = [...frames];
  tampered[5] = Buffer.from('{"execution_state":"busy"}');
  assert.equal(decodeMessage(tampered, signer).ok, false);
  const otherKey = new Signer(Buffer.from('another key'));
  assert.equal(decodeMessage(frames, otherKey).ok, false);
});

test('a signature of the wrong length is rejected, not thrown on', () => {
  const signer = new Signer(key);
  const frames = encodeMessage(createMessage('status', 's', {}), signer);
  frames[1] = Buffer.from('abc');
  assert.equal(decodeMessage(frames, signer).ok, false);
});

test('malformed frames are reported as malformed', () => {
  const signer = new Signer(Buffer.alloc(0));
  assert.equal(signer.enabled, false);
  const result = decodeMessage([Buffer.from('<IDS|MSG>'), Buffer.from(''), Buffer.from('{'), Buffer.from('{}'), Buffer.from('{}'), Buffer.from('{}')], signer);
  assert.deepEqual(result.ok ? null : result.reason, 'malformed');
  assert.equal(decodeMessage([Buffer.from('no delimiter')], signer).ok, false);
});

test('message ids are unique', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => createMessage('x', 's', {}).header.msg_id));
  assert.equal(ids.size, 1000);
});
