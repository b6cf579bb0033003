/**
 * Issue #7, hostile and malformed input: broken JSON-RPC written straight into the shim, wrong
 * argument types, code strings of tens of megabytes, output that is not valid UTF-8, replies
 * that would be too big for a client, and file paths with `..` and odd characters. Each must get
 * an error (or a capped answer) while the same daemon keeps serving the same sessions.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MESSAGE_LIMIT_BYTES, ShimRelay } from '../app/cli/shim-relay.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';
import { HAS_PROC, leftovers, running } from './support/proc.js';
import { spawnRawShim, type RawShim } from './support/raw-shim.js';

const SKIP = HAS_PROC ? false : 'reads /proc (Linux only)';

describe('malformed JSON-RPC written straight into the shim', { skip: SKIP }, () => {
  let harness: Harness;
  let raw: RawShim;
  let daemon: number;
  before(async () => {
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0' });
    raw = spawnRawShim(harness.env);
    await raw.initialize('hostile-raw');
    daemon = (await harness.daemonPid())!;
  });
  after(async () => {
    await raw.close();
    await harness.close();
    assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(harness.home, { recursive: true, force: true });
  });

  const runCall = (id: string, code: string) => raw.request({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_python', arguments: { code } } });

  test('every line that is not one JSON-RPC message gets a JSON-RPC error, with its id when it has one', { timeout: 60_000 }, async () => {
    assert.equal((await runCall('setup', 'kept = "still here"')).result?.content?.[0]?.text, '(no output)');
    const cases: { line: string | Buffer; code: number; id: string | null; says: RegExp }[] = [
      { line: '{not json', code: -32700, id: null, says: /Parse error/ },
      { line: Buffer.from([0x00, 0xff, 0xfe, 0x20, 0x67, 0x61, 0x72, 0x62, 0x61, 0x67, 0x65]), code: -32700, id: null, says: /Parse error/ },
      { line: '42', code: -32600, id: null, says: /a JSON-RPC message is an object/ },
      { line: 'null', code: -32600, id: null, says: /a JSON-RPC message is an object/ },
      { line: '"tools/list"', code: -32600, id: null, says: /a JSON-RPC message is an object/ },
      { line: '[]', code: -32600, id: null, says: /batches are not supported/ },
      { line: '{"jsonrpc":"2.0"}', code: -32600, id: null, says: /neither a request, a notification nor a response/ },
      { line: '{"jsonrpc":"2.0","id":"no-method"}', code: -32600, id: 'no-method', says: /neither a request/ },
      { line: '{"jsonrpc":"1.0","id":"old","method":"tools/list"}', code: -32600, id: 'old', says: /not JSON-RPC 2\.0/ },
      { line: '{"id":"bare","method":"tools/list"}', code: -32600, id: 'bare', says: /not JSON-RPC 2\.0/ },
      { line: '{"jsonrpc":"2.0","id":"params","method":"tools/list","params":[1,2]}', code: -32600, id: 'params', says: /"params" must be an object/ },
      { line: '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', code: -32600, id: null, says: /"id" must be a string or an integer/ },
      { line: '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', code: -32600, id: null, says: /"id" must be a string or an integer/ },
      { line: '{"jsonrpc":"2.0","id":"extra","method":"tools/list","evil":true}', code: -32600, id: 'extra', says: /unexpected members/ },
      { line: '{"jsonrpc":"2.0","id":"m","method":7}', code: -32600, id: 'm', says: /"method" must be a string/ },
      { line: '[{"jsonrpc":"2.0","id":"in-batch","method":"tools/list"}]', code: -32600, id: 'in-batch', says: /batches are not supported/ },
    ];
    for (const { line, code, id, says } of cases) {
      const seen = raw.received.length;
      raw.writeLine(line);
      const answer = await raw.waitFor(`an answer to ${String(line)}`, (m) => raw.received.indexOf(m) >= seen, 10_000);
      assert.equal(answer.jsonrpc, '2.0');
      assert.equal(answer.id, id, `id for ${String(line)}`);
      assert.equal(answer.error?.code, code, `code for ${String(line)}`);
      assert.match(answer.error?.message, says);
    }
    // Nothing reached the daemon to upset it: same process, same session, same variables.
    assert.equal((await runCall('after', 'kept')).result?.content?.[0]?.text, "'still here'\n");
    assert.equal(await harness.daemonPid(), daemon);
  });

  test('unknown methods, unknown tools and missing params get errors', { timeout: 60_000 }, async () => {
    const unknown = await raw.request({ jsonrpc: '2.0', id: 'u1', method: 'no/such/method' });
    assert.equal(unknown.error?.code, -32601);
    const tool = await raw.request({ jsonrpc: '2.0', id: 'u2', method: 'tools/call', params: { name: 'rm_rf', arguments: {} } });
    assert.equal(tool.result?.isError, true);
    assert.match(tool.result?.content?.[0]?.text, /Tool rm_rf not found/);
    const noParams = await raw.request({ jsonrpc: '2.0', id: 'u3', method: 'tools/call' });
    assert.ok(noParams.error, 'tools/call without params is an error');
    const stringArgs = await raw.request({ jsonrpc: '2.0', id: 'u4', method: 'tools/call', params: { name: 'run_python', arguments: 'print(1)' } });
    assert.ok(stringArgs.error || stringArgs.result?.isError, 'arguments that are not an object are refused');
    assert.equal((await runCall('u5', '1 + 1')).result?.content?.[0]?.text, '2\n');
  });

  test('bytes that are not UTF-8 inside a message are read as U+FFFD, not as a broken stream', { timeout: 60_000 }, async () => {
    const line = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"bytes","method":"tools/call","params":{"name":"run_python","arguments":{"code":"s = \''),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('\'\\nprint(len(s), all(c == \'\\\\ufffd\' for c in s))"}}}'),
    ]);
    raw.writeLine(line);
    const answer = await raw.waitFor('the answer to "bytes"', (m) => m.id === 'bytes');
    assert.equal(answer.result?.content?.[0]?.text, '3 True\n');
  });

  test(`a message past ${MESSAGE_LIMIT_BYTES / 1024 / 1024} MB gets an error naming its size; the connection, the daemon and the session stay`, { timeout: 120_000 }, async () => {
    const huge = await runCall('huge', `x = 1\n#${'#'.repeat(30 * 1024 * 1024)}`);
    assert.equal(huge.result?.isError, true);
    assert.match(huge.result?.content?.[0]?.text, /^This request is 30\.0 MB, more than the 8\.0 MB Python Session accepts in one message, so it was not run\./);
    // The id was found at the end of the line (where the TypeScript SDK puts it); a notification that size gets no answer but does no harm.
    raw.writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: 'y'.repeat(12 * 1024 * 1024) } }));
    // The id first, as Python's SDK writes it.
    raw.writeLine(`{"jsonrpc":"2.0","id":"first","method":"tools/list","params":{"cursor":"${'c'.repeat(9 * 1024 * 1024)}"}}`);
    const first = await raw.waitFor('the answer to "first"', (m) => m.id === 'first');
    assert.equal(first.error?.code, -32600);
    assert.match(first.error?.message, /This request is 9\.0 MB/);
    assert.equal((await runCall('still', 'kept')).result?.content?.[0]?.text, "'still here'\n");
    assert.equal(await harness.daemonPid(), daemon);
  });
});

describe('the shim’s last line of defence: a reply too big for the client', () => {
  // Whatever the daemon sends, a reply past the limit must not reach the client's transport,
  // which would hang up (and with it every later call). Driven directly: the tools cap their own
  // replies, so no real call produces one any more.
  test('is replaced by an error for that one call, and the next reply passes', async () => {
    const toClient: Record<string, any>[] = [];
    let handlers: { onLine(line: string): void; onClose(): void } | null = null;
    const link = { pid: 1, start: (h: typeof handlers) => (handlers = h), send: () => undefined, close: () => undefined };
    const relay = new ShimRelay({ connector: { connect: async () => link as never }, writeToClient: (line) => toClient.push(JSON.parse(line)) });
    relay.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_value', arguments: { expression: 'x' } } }));
    relay.fromClient(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_python', arguments: { code: '1' } } }));
    await waitFor('the relay to link to the daemon', () => handlers !== null, { stepMs: 5 });
    handlers!.onLine(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'v'.repeat(MESSAGE_LIMIT_BYTES + 1) }] } }));
    handlers!.onLine(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '1\n' }] } }));
    assert.equal(toClient.length, 2);
    assert.equal(toClient[0].id, 1);
    assert.equal(toClient[0].result.isError, true);
    assert.match(toClient[0].result.content[0].text, /^The reply was 8\.0 MB, more than an MCP client accepts in one message \(8\.0 MB\), so it was not sent\./);
    assert.deepEqual(toClient[1], { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '1\n' }] } });
    relay.close();
  });
});

describe('hostile arguments, code and output through a real MCP client', { skip: SKIP }, () => {
  let harness: Harness;
  let client: Client;
  let daemon: number;
  let kernel: number;
  let files: string;
  const run = (code: string, extra: Record<string, unknown> = {}) => call(client, 'run_python', { code, ...extra });
  const kernelPid = async () => (await call(client, 'kernel_status', {})).facts?.pid as number;

  before(async () => {
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0', PYTHON_MCP_OUTPUT_LIMIT: '20000' });
    client = await harness.connect('hostile');
    await run('kept = "still here"');
    daemon = (await harness.daemonPid())!;
    kernel = await kernelPid();
    files = mkdtempSync(join(tmpdir(), 'ps-hostile-files-'));
  });
  // After every test: the same daemon, the same kernel, the same variables, a working call.
  afterEach(async () => {
    assert.equal(await harness.daemonPid(), daemon, 'the same daemon');
    assert.ok(running(daemon));
    assert.equal(text(await run('kept')), "'still here'\n", 'the session kept its variables');
    assert.equal(await kernelPid(), kernel, 'the same kernel process');
  });
  after(async () => {
    await harness.close();
    assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(harness.home, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  });

  const refused = (result: CallResult, field: RegExp) => {
    assert.equal(result.isError, true, text(result));
    assert.match(text(result), field);
  };

  test('wrong argument types and values are refused with the field named', { timeout: 60_000 }, async () => {
    refused(await call(client, 'run_python', { code: 42 }), /code/);
    refused(await call(client, 'run_python', { code: null }), /code/);
    refused(await call(client, 'run_python', { code: '' }), /code/);
    refused(await call(client, 'run_python', {}), /code/);
    refused(await call(client, 'run_python', { code: '1', timeout_s: 'soon' }), /timeout_s/);
    refused(await call(client, 'run_python', { code: '1', timeout_s: -5 }), /timeout_s/);
    refused(await call(client, 'run_python', { code: '1', session: ['default'] }), /session/);
    refused(await call(client, 'get_value', { expression: { evil: true } }), /expression/);
    refused(await call(client, 'describe_object', { name: 7 }), /name/);
    refused(await call(client, 'load_data', { path: 3, name: 'df' }), /path/);
    refused(await call(client, 'load_data', { path: 'x.csv', name: 'not an identifier' }), /identifier/);
    refused(await call(client, 'ols', { data: 'df', y: 'y', x: 'x1' }), /x/);
    refused(await call(client, 'save_figure', { path: 'a.png', dpi: 1e9 }), /dpi/);
  });

  test('session names that would leave the state folder are refused; nothing is created outside it', { timeout: 60_000 }, async () => {
    for (const session of ['..', '../escape', 'a/b', '/abs', '.hidden', '', 'x'.repeat(65), 'ｆｕｌｌｗｉｄｔｈ', 'nul\u0000byte', 'new\nline']) {
      refused(await call(client, 'start_kernel', { session }), /session/);
      refused(await call(client, 'run_python', { code: '1', session }), /session/);
    }
    assert.ok(!existsSync(join(harness.home, 'escape')) && !existsSync(join(harness.home, '..', 'escape')));
    assert.deepEqual(
      readFileSync(join(harness.home, 'sessions', 'default', 'log.jsonl'), 'utf8').includes('escape'),
      false,
    );
  });

  test('a code string of tens of megabytes gets a clear error; one of a few megabytes runs', { timeout: 120_000 }, async () => {
    const huge = await run(`x = "${'a'.repeat(30 * 1024 * 1024)}"`);
    assert.equal(huge.isError, true);
    assert.match(text(huge), /This request is 30\.0 MB, more than the 8\.0 MB Python Session accepts in one message, so it was not run\. Write large code or data to a file/);
    const fine = await run(`s = "${'b'.repeat(5 * 1024 * 1024)}"\nlen(s)`);
    assert.equal(text(fine), `${5 * 1024 * 1024}\n`);
  });

  test('replies that would be too big for a client are capped: a huge value, a huge displayed value, many large figures', { timeout: 180_000 }, async () => {
    await run('big = "a" * 30_000_000');
    const shown = await run('big');
    assert.ok(text(shown).length < 21_000, `the repr came back capped (${text(shown).length} characters)`);
    assert.match(text(shown), /characters of this value left out/);
    const value = await call(client, 'get_value', { expression: 'big' });
    assert.ok(JSON.stringify(value).length < 1_000_000);
    const html = await run("from IPython.display import HTML\nHTML('<p>' + 'x' * 20_000_000 + '</p>')");
    assert.ok(JSON.stringify(html).length < 100_000);
    const raised = await run("raise ValueError('x' * 20_000_000)");
    assert.ok(JSON.stringify(raised).length < 100_000, `an exception's message is bounded too (${JSON.stringify(raised).length})`);
    assert.match(text(raised), /^Python error: ValueError on line 1: x+\n\[… \d+ characters of this message left out …\]/);
    assert.ok(JSON.stringify(await call(client, 'last_error', {})).length < 200_000);

    const figures = await run(
      'import numpy as np, matplotlib.pyplot as plt\nfor i in range(8):\n    plt.figure(figsize=(10, 10), dpi=100)\n    plt.imshow(np.random.default_rng(i).random((1000, 1000)))\n    plt.show()',
    );
    const images = figures.content.filter((c) => c.type === 'image') as { data: string }[];
    const imageChars = images.reduce((n, c) => n + c.data.length, 0);
    assert.ok(images.length >= 1 && images.length < 8, `${images.length} of 8 images sent`);
    assert.ok(imageChars <= 5_000_000, `${imageChars} base64 characters of images in one reply`);
    assert.match(text(figures), /not sent, as this reply already carries \d+\.\d MB of images/);
    assert.equal((figures.facts?.figures as string[]).length, 8, 'every figure was saved');
    await run('del big');
  });

  test('output that is not valid UTF-8, from Python, from C and from a child, comes back readable; the kernel’s output capture survives it', { timeout: 120_000 }, async () => {
    assert.equal(text(await run("import os\nos.write(1, b'\\xff\\xfe bad \\x80\\n')\nNone")), '\ufffd\ufffd bad \ufffd\n');
    // A character split across two writes (and so across two reads of the capture pipe).
    assert.equal(text(await run("import os\ne = 'é'.encode()\nos.write(1, e[:1]); os.write(1, e[1:] + b'\\n')\nNone")), 'é\n');
    assert.equal(text(await run("import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import sys; sys.stdout.buffer.write(bytes([255]) + b\" from a child\\\\n\")'])\nNone")), '\ufffd from a child\n');
    assert.equal(text(await run("print('\\udcff escaped byte')")), '\ufffd escaped byte\n');
    assert.equal(text(await run("print('\\ud800 lone surrogate')")), '\\ud800 lone surrogate\n');
    // Had the reply been lost, the call would end at its timeout saying so, not with the error alone.
    const raised = await run("raise ValueError('bad \\ud800 value')", { timeout_s: 20 });
    assert.match(text(raised), /^Python error: ValueError on line 1: bad \\ud800 value$/);
    const displayed = await run("from IPython.display import display\ndisplay({'text/plain': 'shown \\ud800'}, raw=True)");
    assert.equal(text(displayed), 'shown \\ud800\n');
    // The capture still works, and a child filling the pipe does not block: this hung before.
    const seq = await run("import subprocess\nsubprocess.run(['seq', '200000']).returncode", { timeout_s: 30 });
    assert.equal(seq.facts?.status, 'ok');
    const spilled = readFileSync(seq.facts?.full_output_path as string, 'utf8');
    assert.ok(spilled.includes('\n199999\n200000\n'));
  });

  test('file paths with .., quotes, spaces, newlines and non-ASCII characters go exactly where they resolve; impossible ones get errors', { timeout: 120_000 }, async () => {
    const odd = `we'ird "name" é $(touch pwned) ;`;
    mkdirSync(join(files, 'sub'), { recursive: true });
    writeFileSync(join(files, `${odd}.csv`), 'a,b\n1,2\n3,4\n');
    const loaded = await call(client, 'load_data', { path: join(files, 'sub', '..', `${odd}.csv`), name: 'odd' });
    assert.equal(loaded.isError, undefined, text(loaded));
    assert.match(text(loaded), /2 rows/);
    assert.ok(!existsSync(join(files, 'sub', 'pwned')) && !existsSync('pwned'), 'nothing was run by a shell');

    const target = join(files, 'out', '..', 'saved', `new\nline ø.csv`);
    const saved = await call(client, 'save_data', { name: 'odd', path: target });
    assert.equal(saved.isError, undefined, text(saved));
    assert.equal(readFileSync(join(files, 'saved', `new\nline ø.csv`), 'utf8').trim().split('\n').length, 3);

    const notebook = await call(client, 'export_notebook', { path: join(files, 'nb', '..', `it's "here".ipynb`) });
    assert.equal(notebook.isError, undefined, text(notebook));
    assert.ok(statSync(join(files, `it's "here".ipynb`)).size > 0);

    for (const path of [join(files, '..', '..', '..', 'no', 'such', '..', 'file.csv'), join(files, 'nul\u0000byte.csv'), join(files, 'x'.repeat(300) + '.csv'), files]) {
      const failed = await call(client, 'load_data', { path, name: 'nope' });
      assert.equal(failed.isError, true, `load_data(${JSON.stringify(path)})`);
    }
    refused(await call(client, 'load_data', { path: 'p'.repeat(5000), name: 'nope' }), /path/);
    for (const path of [join(files, 'nul\u0000byte.ipynb'), files, '/dev/full/x.ipynb', join('/proc', 'nope.ipynb')]) {
      const failed = await call(client, 'export_notebook', { path });
      assert.equal(failed.isError, true, `export_notebook(${JSON.stringify(path)})`);
    }
    assert.deepEqual(readdirSync(tmpdir()).filter((f) => f.startsWith(`${basename(files)}.`)), [], 'a failed export leaves no temporary file behind');
    const cwd = await call(client, 'start_kernel', { session: 'elsewhere', cwd: join(files, 'sub', '..', 'missing') });
    refused(cwd, /does not exist or is not a folder/);
  });
});
