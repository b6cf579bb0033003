/**
 * Issue #7, "nobody let in": forged messages on the kernels' channels are dropped (into the
 * kernel, and from it toward the daemon); everything the daemon keeps on disk is owner-only,
 * even with a umask that would let anyone in; nothing the daemon or its kernels listen on is
 * reachable beyond loopback; and the panel refuses requests without its token, from a foreign
 * Host (DNS rebinding) or Origin, and files outside the sessions folder.
 *
 * The panel checked is the one `serve` starts with the daemon, found the way the tray finds it
 * (`<state>/panel.json` and `<state>/panel-token`).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readPanelAddress, type PanelAddress } from '../app/core/daemon/panel/address.js';
import { readConnectionFile, channelUrl, type Channel, type ConnectionInfo } from '../app/core/kernel/messaging/connection-info.js';
import { createMessage, encodeMessage, Signer } from '../app/core/wire/index.js';
import { processesMatching } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { HAS_PROC, descendantsOf, isLoopback, leftovers, listeningSocketsOf } from './support/proc.js';

const SKIP = HAS_PROC ? false : 'reads /proc (Linux only)';

describe('the daemon and its kernels', { skip: SKIP }, () => {
  let harness: Harness;
  let client: Client;
  let daemon: number;
  let umask: number;
  const run = (code: string, extra: Record<string, unknown> = {}) => call(client, 'run_python', { code, ...extra });
  const kernelPid = async (session = 'default') => (await call(client, 'kernel_status', { session })).facts?.pid as number;
  /** The connection file a kernel was started with (its `-f` argument). */
  const connectionFileOf = (pid: number) => {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args[args.indexOf('-f') + 1];
  };

  before(async () => {
    // Everything the daemon (and the kernels it starts) creates would be world-readable under
    // this umask unless it sets its own modes: the owner-only check below then means something.
    umask = process.umask(0);
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '1', PYTHON_MCP_OUTPUT_LIMIT: '2000' });
    client = await harness.connect('security');
    // Leave a trace of every kind of file: log, figures, spilled output, a second session, a pooled kernel.
    await run('secret = 42');
    await run('import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()');
    await run('for i in range(2000): print(i)');
    await call(client, 'start_kernel', { session: 'second' });
    await run('x = 1', { session: 'second' });
    daemon = (await harness.daemonPid())!;
    await waitFor('two kernels and the pooled one', () => processesMatching(harness.home).length >= 3, { timeoutMs: 30_000 }); // kernels name the folder
  });
  after(async () => {
    process.umask(umask);
    await harness.close();
    assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(harness.home, { recursive: true, force: true });
  });

  test('the state folder, the socket, connection files and everything else the daemon writes are owner-only', { timeout: 60_000 }, () => {
    const loose: string[] = [];
    let files = 0;
    const walk = (path: string) => {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) return;
      files++;
      if ((stats.mode & 0o077) !== 0) loose.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
      if (stats.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    };
    walk(harness.home);
    assert.deepEqual(loose, [], 'readable or writable by others');
    assert.ok(files > 10, `${files} files and folders checked`);

    const socket = lstatSync(join(harness.home, 'daemon.sock'));
    assert.ok(socket.isSocket());
    assert.equal(socket.mode & 0o777, 0o600);
    const connectionFiles = readdirSync(join(harness.home, 'runtime')).filter((f) => f.endsWith('.json'));
    assert.ok(connectionFiles.length >= 3, 'a connection file per kernel, pooled ones included');
    for (const file of connectionFiles) {
      const path = join(harness.home, 'runtime', file);
      assert.equal(lstatSync(path).mode & 0o777, 0o600, path);
      assert.match(JSON.parse(readFileSync(path, 'utf8')).key, /^[0-9a-f]{64}$/, 'a random 256-bit key');
    }
    assert.equal(lstatSync(join(harness.home, 'runtime')).mode & 0o777, 0o700);
  });

  test('nothing the daemon or its kernels listen on is reachable beyond loopback', { timeout: 60_000 }, async () => {
    const kernels = processesMatching(harness.home);
    const pids = () => [daemon, ...kernels, ...kernels.flatMap(descendantsOf)];
    // Every kernel's five ZeroMQ ports (shell, iopub, stdin, control, heartbeat) are among what
    // the check sees (a pooled kernel may still be binding them); ipykernel adds a sixth, for its debugger.
    const expected = await Promise.all(
      kernels.map(async (pid) => {
        const info = await readConnectionFile(connectionFileOf(pid));
        return [info.shell_port, info.iopub_port, info.stdin_port, info.control_port, info.hb_port];
      }),
    );
    await waitFor(
      'every kernel port to be seen listening',
      () => {
        const ports = new Set(listeningSocketsOf(pids()).map((s) => s.port));
        return expected.flat().every((port) => ports.has(port));
      },
      { timeoutMs: 20_000, stepMs: 200 },
    );
    const sockets = listeningSocketsOf(pids());
    const exposed = sockets.filter((s) => !isLoopback(s.address));
    assert.deepEqual(exposed, [], `listening beyond loopback (of ${sockets.length} sockets)`);
  });

  test('a message with a forged signature is dropped on every channel into the kernel; a genuine one is obeyed', { timeout: 60_000 }, async () => {
    const file = connectionFileOf(await kernelPid());
    const info: ConnectionInfo = await readConnectionFile(file);
    const dir = mkdtempSync(join(tmpdir(), 'ps-forged-'));
    const forgeries = [
      { name: 'wrong key', signer: new Signer(Buffer.from('f'.repeat(64)), info.signature_scheme) },
      { name: 'no signature', signer: new Signer(Buffer.alloc(0), info.signature_scheme) },
    ];
    const genuine = new Signer(Buffer.from(info.key, 'utf8'), info.signature_scheme);
    const sockets: zmq.Dealer[] = [];
    try {
      const send = async (channel: Channel, signer: Signer, msgType: string, content: Record<string, unknown>) => {
        const socket = new zmq.Dealer({ linger: 0, receiveTimeout: 15_000 });
        sockets.push(socket);
        socket.connect(channelUrl(info, channel));
        const message = createMessage(msgType, 'intruder', content as never);
        await socket.send(encodeMessage(message, signer));
        return socket;
      };
      const writes = (name: string) => ({ code: `open(${JSON.stringify(join(dir, name))}, 'w').close()`, silent: false, store_history: false, user_expressions: {}, allow_stdin: false, stop_on_error: false });
      for (const forgery of forgeries) {
        for (const channel of ['shell', 'control'] as const) {
          await send(channel, forgery.signer, 'execute_request', writes(`${channel}-${forgery.name}`));
          await send(channel, forgery.signer, 'shutdown_request', { restart: false });
        }
        await send('stdin', forgery.signer, 'input_reply', { value: 'import os; os._exit(9)' });
      }
      // The control: the same request, correctly signed, is run. It also comes after the forged
      // ones on the same channel, so by the time it is answered they have been read and dropped.
      const socket = await send('shell', genuine, 'execute_request', writes('genuine'));
      const [, , , header] = (await socket.receive()).slice(-4);
      assert.ok(header, 'the genuine request was answered');
      assert.ok(existsSync(join(dir, 'genuine')), 'the genuine request ran');
      assert.deepEqual(readdirSync(dir).sort(), ['genuine'], 'no forged request ran');
      // Its cell is logged once its idle status reaches the daemon on iopub, which the reply on
      // this socket does not wait for.
      const log = join(harness.home, 'sessions', 'default', 'log.jsonl');
      await waitFor('the genuine request logged as another client’s cell', () => readFileSync(log, 'utf8').includes('"client":"another client"'));
      // The genuine request is another client's cell, as far as the session can tell: the next
      // reply opens with the line saying so (one cell, the genuine one), then the answer.
      assert.match(text(await run('secret')), /^Since your last call, another Jupyter client ran 1 cell \(In \[\d+\]\)[^\n]*\.\n42\n$/, 'the kernel is still the same and still serving');
    } finally {
      for (const socket of sockets) socket.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a forged message toward the daemon (on iopub) is dropped: only correctly signed output reaches the caller', { timeout: 60_000 }, async () => {
    // Sent from inside the kernel on its own iopub socket, under the running cell's header, so
    // that the signature is the only thing telling the forged ones apart.
    const result = await run(
      [
        'import hashlib, hmac',
        'k = get_ipython().kernel',
        "def publish(text, key):",
        "    msg = k.session.msg('stream', {'name': 'stdout', 'text': text}, parent=k.get_parent())",
        "    parts = [k.session.pack(msg[p]) for p in ('header', 'parent_header', 'metadata', 'content')]",
        "    signature = hmac.new(key, digestmod=hashlib.sha256)",
        '    for part in parts: signature.update(part)',
        "    k.iopub_socket.send_multipart([b'stream.stdout', b'<IDS|MSG>', signature.hexdigest().encode() if key else b''] + parts)",
        "publish('FORGED with another key\\n', b'0' * 64)",
        "publish('FORGED without a signature\\n', b'')",
        "publish('GENUINE\\n', k.session.key)",
      ].join('\n'),
    );
    // One socket, one order: the forged messages reached the daemon before the genuine one, and
    // the cell's end (its idle status) after it; so all three were judged before the reply.
    assert.equal(text(result), 'GENUINE\n');
  });
});

describe('the daemon’s panel', { skip: SKIP }, () => {
  let harness: Harness;
  let daemon: number;
  let panel: PanelAddress;
  before(async () => {
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0' });
    const client = await harness.connect('panel-security');
    await call(client, 'run_python', { code: "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()" });
    daemon = (await harness.daemonPid())!;
    // `serve` starts the panel once the daemon is up; it writes its address and token owner-only.
    await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home) !== null, { timeoutMs: 15_000 });
    panel = readPanelAddress(harness.home)!;
  });
  after(async () => {
    await harness.close();
    assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(harness.home, { recursive: true, force: true });
  });

  /** A raw HTTP request, so Host and Origin can be anything (fetch will not forge Host). */
  const send = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: panel.port, path, method, headers: { Host: `127.0.0.1:${panel.port}`, ...headers }, setHost: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
          if (res.headers['content-type']?.startsWith('text/event-stream')) res.destroy(); // an open stream: the status is enough
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(method === 'POST' ? '{}' : undefined);
    });
  const bearer = () => ({ Authorization: `Bearer ${panel.token}` });

  test('with the token, from its own origin, it answers (the control for everything below)', { timeout: 30_000 }, async () => {
    assert.equal((await send('/api/health', bearer())).status, 200);
    assert.equal((await send('/api/state', { ...bearer(), Origin: `http://127.0.0.1:${panel.port}` })).status, 200);
    assert.equal((await send('/api/state', { ...bearer(), Host: `localhost:${panel.port}` })).status, 200);
  });

  test('no token, a wrong one, or the token where only the page takes it: 401', { timeout: 30_000 }, async () => {
    assert.equal((await send('/api/state')).status, 401);
    assert.equal((await send('/api/state', { Authorization: 'Bearer not-the-token' })).status, 401);
    assert.equal((await send('/api/state', { Cookie: `python-session-panel-${panel.port}=not-the-token` })).status, 401);
    assert.equal((await send(`/api/state?token=${panel.token}`)).status, 401);
    assert.equal((await send('/api/sessions/interrupt-all', {}, 'POST')).status, 401);
    assert.equal((await send('/api/events')).status, 401);
  });

  test('the right token from a foreign Host (DNS rebinding), a foreign Origin, or another site: 403', { timeout: 30_000 }, async () => {
    for (const host of ['evil.example', `evil.example:${panel.port}`, `127.0.0.1.evil.example:${panel.port}`, `127.0.0.1:${panel.port + 1}`, '127.0.0.1']) {
      assert.equal((await send('/api/state', { ...bearer(), Host: host })).status, 403, `Host: ${host}`);
    }
    for (const origin of ['http://evil.example', `http://evil.example:${panel.port}`, `http://127.0.0.1:${panel.port + 1}`, `https://127.0.0.1:${panel.port}`, 'null']) {
      assert.equal((await send('/api/state', { ...bearer(), Origin: origin })).status, 403, `Origin: ${origin}`);
      assert.equal((await send('/api/sessions/interrupt-all', { ...bearer(), Origin: origin }, 'POST')).status, 403, `POST from ${origin}`);
      assert.equal((await send('/api/events', { ...bearer(), Origin: origin })).status, 403, `event stream for ${origin}`);
    }
    for (const site of ['cross-site', 'same-site']) {
      assert.equal((await send('/api/state', { ...bearer(), 'Sec-Fetch-Site': site })).status, 403, `Sec-Fetch-Site: ${site}`);
    }
  });

  test('files: figures inside the sessions folder only, whatever `..` or a planted link says', { timeout: 30_000 }, async () => {
    const figures = join(harness.home, 'sessions', 'default', 'figures');
    const [figure] = readdirSync(figures);
    assert.equal((await send(`/api/file?path=${encodeURIComponent(join(figures, figure))}`, bearer())).status, 200, 'a figure is served');
    symlinkSync(join(harness.home, 'panel-token'), join(figures, 'planted.txt'));
    for (const path of [join(harness.home, 'sessions', '..', 'panel-token'), join(figures, 'planted.txt'), join(figures, '..', '..', '..', 'settings.json'), '/etc/passwd', 'relative.txt']) {
      const answer = await send(`/api/file?path=${encodeURIComponent(path)}`, bearer());
      assert.ok([400, 403, 404].includes(answer.status), `${path}: ${answer.status}`);
      assert.ok(!answer.body.includes(panel.token), 'the token never leaks');
    }
  });

  test('it listens on loopback only, and its token and address files are owner-only', { timeout: 30_000 }, () => {
    const mine = listeningSocketsOf([daemon]).filter((s) => s.port === panel.port);
    assert.equal(mine.length, 1, 'the daemon holds the panel port');
    assert.ok(isLoopback(mine[0].address), mine[0].address);
    assert.equal(lstatSync(join(harness.home, 'panel-token')).mode & 0o777, 0o600);
    assert.equal(lstatSync(join(harness.home, 'panel.json')).mode & 0o777, 0o600);
  });
});
