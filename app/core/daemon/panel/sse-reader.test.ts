/** The event-stream reader: whole events whatever the chunking. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from './sse-reader.js';

test('events split anywhere come out whole and in order', () => {
  const stream = 'retry: 1500\n\nevent: snapshot\ndata: {"a":1}\n\n: keepalive\n\nevent: session\ndata: {"b":2}\n\ndata: plain\n\n';
  for (let size = 1; size <= stream.length; size++) {
    const parser = new SseParser();
    const events = [];
    for (let i = 0; i < stream.length; i += size) events.push(...parser.push(stream.slice(i, i + size)));
    assert.deepEqual(events, [
      { event: 'snapshot', data: '{"a":1}' },
      { event: 'session', data: '{"b":2}' },
      { event: 'message', data: 'plain' },
    ], `chunks of ${size}`);
  }
});

test('CRLF and CR line ends, multi-line data, and a field without a space', () => {
  const parser = new SseParser();
  const events = [...parser.push('event:x\r\ndata:one\r\ndata: two\r\n\r'), ...parser.push('\nevent: y\rdata: z\r\r')];
  // A \r that ends a chunk may be half of a \r\n, so the last event waits for the next byte.
  assert.deepEqual(events, [{ event: 'x', data: 'one\ntwo' }]);
  assert.deepEqual(parser.push(': keepalive\n\n'), [{ event: 'y', data: 'z' }]);
});
