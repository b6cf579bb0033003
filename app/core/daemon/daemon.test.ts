/** The daemon in this process, over its real socket: files and modes, handshakes, control, MCP. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requestControl } from './control-client.js';
import { startDaemon, type RunningDaemon } from './daemon.js';
import { LineSplitter } from './json-lines.js';
import { createEchoMcpServer, createTestServices, type TestServices } from './testing/echo-server.js';

const posix = process.platform !== 'win32';

interface RawConnection {
  send(text: string): void;
  /** The next line the daemon sends. */
  line(timeoutMs?: number): Promise<string>;
  /** Resolves when the daemon has closed the connection. */
  closed: Promise<void>;
  destroy(): void;
}

async function connectRaw(socketPath: string): Promise<RawConnection> {
  const socket = net.connect(socketPath);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const splitter = new LineSplitter();
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    for (const line of splitter.push(chunk)) {
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    send: (text) => void socket.write(text),
    line: (timeoutMs = 20_000) =>
      lines.length
        ? Promise.resolve(lines.shift()!)
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('no line from the daemon')), timeoutMs);
            waiters.push((line) => (clearTimeout(timer), resolve(line)));
          }),
    closed,
    destroy: () => socket.destroy(),
  };
}

/** Waits for `promise`; the deadline is far above what it needs, so only an event that never comes fails. */
const within = <T>(promise: Promise<T>, what: string, ms = 20_000) => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
};

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('a daemon', () => {
  let home: string;
  let daemon: RunningDaemon<TestServices>;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ps-daemon-'));
    if (posix) mkdirSync(home, { recursive: true, mode: 0o755 });
    const outcome = await startDaemon({
      stateDir: home,
      services: () => createTestServices(home),
      createMcpServer: createEchoMcpServer,
      extraInfo: { panelUrl: 'http://127.0.0.1:1/' },
      handshakeTimeoutMs: 300,
    });
    assert.equal(outcome.status, 'started');
    daemon = outcome.status === 'started' ? outcome.daemon : (undefined as never);
  });

  after(async () => {
    await daemon?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test('keeps its folder 0700 and its socket 0600', { skip: !posix }, () => {
    assert.equal(statSync(home).mode & 0o777, 0o700, 'tightened from 0755');
    assert.equal(daemon.socketPath, join(home, 'daemon.sock'));
    const socket = statSync(daemon.socketPath);
    assert.ok(socket.isSocket());
    assert.equal(socket.mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'daemon.json')).mode & 0o777, 0o600);
  });

  test('describes itself in daemon.json', () => {
    const info = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'));
    assert.equal(info.pid, process.pid);
    assert.equal(info.socket, daemon.socketPath);
    assert.equal(info.stateDir, home);
    assert.equal(info.panelUrl, 'http://127.0.0.1:1/');
    assert.match(info.version, /^\d+\.\d+\.\d+/);
    assert.ok(!Number.isNaN(Date.parse(info.started)));
  });

  test('answers ping and status', async () => {
    const ping = await requestControl(daemon.socketPath, 'ping');
    assert.ok(ping.kind === 'answer' && ping.answer.pid === process.pid);
    const status = await requestControl(daemon.socketPath, 'status');
    assert.ok(status.kind === 'answer');
    assert.equal(status.answer.socket, daemon.socketPath);
    assert.deepEqual(status.answer.services.interpreter, '/usr/bin/python3');
    assert.equal(status.answer.extra.panelUrl, 'http://127.0.0.1:1/');
  });

  test('a second start for the same folder defers to it', async () => {
    const second = await startDaemon({ stateDir: home, services: () => createTestServices(home), createMcpServer: createEchoMcpServer });
    assert.deepEqual(second, { status: 'already-running', pid: process.pid, socket: daemon.socketPath, answering: true });
  });

  test('serves MCP after the handshake, and garbage lines do not end the session', async () => {
    const connection = await connectRaw(daemon.socketPath);
    // Handshake and first request in one write: the bytes after the handshake must reach MCP.
    connection.send(`{"hello":"mcp","client":"raw-test"}\n${INITIALIZE}\n`);
    const ack = JSON.parse(await connection.line());
    assert.equal(ack.ok, true);
    assert.equal(ack.pid, process.pid);
    assert.equal(JSON.parse(await connection.line()).result.serverInfo.name, 'python-session-test');
    connection.send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    connection.send('this is not json\n{{{\n[1,2\n"a string"\n{"jsonrpc":"2.0","id":"x","method":42}\n');
    connection.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}\n');
    const answer = JSON.parse(await connection.line());
    assert.equal(answer.id, 2);
    assert.equal(answer.result.content[0].text, 'echo: still here');
    assert.equal(answer.result.structuredContent.client, 'raw-test');

    const status = await requestControl(daemon.socketPath, 'status');
    assert.ok(status.kind === 'answer' && status.answer.connections.some((c) => c.client === 'raw-test'));
    connection.destroy();
  });

  test('refuses bad handshakes with an error line and a close, and keeps running', async () => {
    for (const bad of ['not json\n', '{"hello":"ftp"}\n', '{"hello":"control","command":"reboot"}\n', '[]\n']) {
      const connection = await connectRaw(daemon.socketPath);
      connection.send(bad);
      const answer = JSON.parse(await connection.line());
      assert.equal(answer.ok, false, bad);
      assert.equal(typeof answer.error, 'string');
      await within(connection.closed, `closing after ${JSON.stringify(bad)}`);
    }
    // A handshake that never ends.
    const flood = await connectRaw(daemon.socketPath);
    flood.send('x'.repeat(200 * 1024));
    assert.match(JSON.parse(await flood.line()).error, /no newline/);
    await within(flood.closed, 'closing a flood');
    // Silence, then the handshake timeout.
    const silent = await connectRaw(daemon.socketPath);
    await within(silent.closed, 'closing a silent connection');
    // Hanging up at once.
    (await connectRaw(daemon.socketPath)).destroy();

    const ping = await requestControl(daemon.socketPath, 'ping');
    assert.equal(ping.kind, 'answer');
  });
});

describe('stopping a daemon', () => {
  test('closes its connections, shuts the services down and removes socket, daemon.json and lock', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ps-daemon-'));
    try {
      let shutdowns = 0;
      const outcome = await startDaemon({
        stateDir: home,
        services: async () => ({ ...(await createTestServices(home)), shutdown: async () => void (shutdowns += 1) }),
        createMcpServer: createEchoMcpServer,
      });
      assert.ok(outcome.status === 'started');
      const { daemon } = outcome;
      const connection = await connectRaw(daemon.socketPath);
      connection.send('{"hello":"mcp","client":"t"}\n');
      await connection.line();

      const stop = await requestControl(daemon.socketPath, 'stop');
      assert.ok(stop.kind === 'answer' && stop.answer.stopping);
      await within(daemon.stopped, 'stopping');
      await within(connection.closed, 'closing the MCP connection');
      assert.equal(shutdowns, 1);
      for (const file of ['daemon.sock', 'daemon.json', 'daemon.lock']) assert.ok(!existsSync(join(home, file)), file);
      assert.equal((await requestControl(join(home, 'daemon.sock'), 'ping')).kind, 'absent');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test('a daemon whose services fail to start gives the folder back', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ps-daemon-'));
    try {
      await assert.rejects(
        startDaemon({ stateDir: home, services: async () => Promise.reject(new Error('no interpreter')), createMcpServer: createEchoMcpServer }),
        /could not start: no interpreter/,
      );
      for (const file of ['daemon.sock', 'daemon.json', 'daemon.lock']) assert.ok(!existsSync(join(home, file)), file);
      const retry = await startDaemon({ stateDir: home, services: () => createTestServices(home), createMcpServer: createEchoMcpServer });
      assert.equal(retry.status, 'started');
      if (retry.status === 'started') await retry.daemon.stop();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a state folder whose path is too long for a unix socket', { skip: !posix }, () => {
  test('gets its socket in an owner-only folder elsewhere', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ps-daemon-'));
    const home = join(root, 'a-rather-long-folder-name-for-state'.repeat(3));
    try {
      const outcome = await startDaemon({ stateDir: home, services: () => createTestServices(home), createMcpServer: createEchoMcpServer });
      assert.ok(outcome.status === 'started');
      const { daemon } = outcome;
      try {
        assert.ok(!daemon.socketPath.startsWith(home));
        assert.ok(Buffer.byteLength(daemon.socketPath) <= 100);
        assert.equal(statSync(join(daemon.socketPath, '..')).mode & 0o777, 0o700);
        assert.equal(statSync(daemon.socketPath).mode & 0o777, 0o600);
        assert.equal((await requestControl(daemon.socketPath, 'ping')).kind, 'answer');
      } finally {
        await daemon.stop();
        rmSync(join(daemon.socketPath, '..'), { recursive: true, force: true });
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
