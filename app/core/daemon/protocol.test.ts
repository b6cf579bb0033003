import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { LineSplitter, LineTooLongError, readFirstLine } from './json-lines.js';
import { parseHandshake } from './protocol.js';

describe('handshakes', () => {
  test('an MCP client, with its label trimmed and defaulted', () => {
    assert.deepEqual(parseHandshake('{"hello":"mcp","client":" claude-code "}'), { ok: true, handshake: { hello: 'mcp', client: 'claude-code' } });
    assert.deepEqual(parseHandshake('{"hello":"mcp"}'), { ok: true, handshake: { hello: 'mcp', client: 'unknown' } });
    assert.deepEqual(parseHandshake('{"hello":"mcp","client":42}'), { ok: true, handshake: { hello: 'mcp', client: 'unknown' } });
  });

  test("an MCP client's folder, when it is a plausible path", () => {
    assert.deepEqual(parseHandshake('{"hello":"mcp","client":"codex","cwd":"/home/ada/sales"}'), { ok: true, handshake: { hello: 'mcp', client: 'codex', cwd: '/home/ada/sales' } });
    for (const cwd of [42, '', 'x'.repeat(5000), 'a\u0000b']) {
      assert.deepEqual(parseHandshake(JSON.stringify({ hello: 'mcp', client: 'c', cwd })), { ok: true, handshake: { hello: 'mcp', client: 'c' } }, String(cwd).slice(0, 20));
    }
  });

  test('control commands', () => {
    for (const command of ['ping', 'status', 'stop'] as const) {
      assert.deepEqual(parseHandshake(JSON.stringify({ hello: 'control', command })), { ok: true, handshake: { hello: 'control', command } });
    }
  });

  test('anything else is refused with a reason', () => {
    for (const line of ['', 'hello', '[]', 'null', '"mcp"', '{"hello":"http"}', '{"hello":"control","command":"reboot"}', '{"hello":"control"}']) {
      const parsed = parseHandshake(line);
      assert.equal(parsed.ok, false, line);
      assert.ok(!parsed.ok && parsed.error.length > 10, line);
    }
  });
});

describe('line splitting', () => {
  test('joins lines across chunks and drops \\r', () => {
    const lines = new LineSplitter();
    assert.deepEqual(lines.push(Buffer.from('{"a":1}\n{"b"')), ['{"a":1}']);
    assert.deepEqual(lines.push(Buffer.from(':2}\r\n\n{"c":')), ['{"b":2}', '']);
    assert.deepEqual(lines.push(Buffer.from('3}\n')), ['{"c":3}']);
  });

  test('keeps multi-byte characters split between chunks whole', () => {
    const lines = new LineSplitter();
    const bytes = Buffer.from('"日本"\n');
    assert.deepEqual(lines.push(bytes.subarray(0, 2)), []);
    assert.deepEqual(lines.push(bytes.subarray(2)), ['"日本"']);
  });

  test('refuses a line past its cap', () => {
    const lines = new LineSplitter(10);
    assert.throws(() => lines.push(Buffer.from('x'.repeat(11))), LineTooLongError);
  });

  test('readFirstLine leaves the rest on the stream', async () => {
    const stream = new Readable({ read() {} });
    stream.push(Buffer.from('{"hello":"mcp"}\n{"jsonrpc"'));
    stream.push(Buffer.from(':"2.0"}\n'));
    const first = await readFirstLine(stream, { maxBytes: 1000, timeoutMs: 1000 });
    assert.equal(first, '{"hello":"mcp"}');
    const rest: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => rest.push(chunk));
    stream.resume();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(Buffer.concat(rest).toString(), '{"jsonrpc":"2.0"}\n');
  });

  test('readFirstLine gives up on a long line, an early end and silence', async () => {
    const long = Readable.from([Buffer.from('x'.repeat(2000))]);
    await assert.rejects(readFirstLine(long, { maxBytes: 1000, timeoutMs: 1000 }), LineTooLongError);
    const ended = Readable.from([Buffer.from('no newline')]);
    await assert.rejects(readFirstLine(ended, { maxBytes: 1000, timeoutMs: 1000 }), /closed before/);
    const silent = new Readable({ read() {} });
    await assert.rejects(readFirstLine(silent, { maxBytes: 1000, timeoutMs: 50 }), /no line within/);
  });
});
