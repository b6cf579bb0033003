import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonUnreachableError, SpawningConnector, attemptLink } from './daemon-link.js';

function folder() {
  const dir = mkdtempSync(join(tmpdir(), 'ps-link-'));
  return { socketPath: join(dir, 'daemon.sock'), logPath: join(dir, 'daemon.log'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The connector's timers are unref'd (in the shim, stdin keeps the process up); a test has no
 * stdin to do that, so it holds the event loop open itself.
 */
async function keepingAlive<T>(work: () => Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => {}, 1000);
  try {
    return await work();
  } finally {
    clearInterval(keepAlive);
  }
}

async function listen(socketPath: string, onConnection: (socket: net.Socket) => void): Promise<net.Server> {
  const server = net.createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return server;
}

describe('the daemon link', () => {
  test('delivers what the daemon sent right after its ack, once started', async () => {
    const f = folder();
    const server = await listen(f.socketPath, (socket) => {
      socket.once('data', () => socket.write('{"ok":true,"hello":"mcp","pid":5,"version":"x","connection":"c1"}\n{"jsonrpc":"2.0","method":"early"}\n'));
    });
    try {
      const attempt = await attemptLink(f.socketPath, 'me', 2000);
      assert.equal(attempt.kind, 'linked');
      if (attempt.kind !== 'linked') return;
      assert.equal(attempt.link.pid, 5);
      const lines: string[] = [];
      attempt.link.start({ onLine: (line) => lines.push(line), onClose: () => {} });
      assert.deepEqual(lines, ['{"jsonrpc":"2.0","method":"early"}']);
      attempt.link.close();
    } finally {
      server.close();
      f.done();
    }
  });

  test('a refusal carries the daemon\'s reason; something that is not a daemon is named as such', async () => {
    const f = folder();
    let answer = '{"ok":false,"error":"the daemon is stopping","retry":true}\n';
    const server = await listen(f.socketPath, (socket) => socket.once('data', () => socket.end(answer)));
    try {
      assert.deepEqual(await attemptLink(f.socketPath, 'me', 2000), { kind: 'refused', error: 'the daemon is stopping', retry: true });
      answer = 'HTTP/1.1 400 Bad Request\r\n\r\n';
      const attempt = await attemptLink(f.socketPath, 'me', 2000);
      assert.ok(attempt.kind === 'refused' && !attempt.retry && /is not a Python Session daemon/.test(attempt.error));
    } finally {
      server.close();
      f.done();
    }
  });

  test('a daemon that never comes: a clear error at the deadline naming the log, after at most three starts', async () => {
    const f = folder();
    let spawns = 0;
    const connector = new SpawningConnector({
      socketPath: f.socketPath,
      logPath: f.logPath,
      deadlineMs: 4000, // ample for its starts (each exits at once) to be over well before it
      spawnDaemon: async () => {
        spawns += 1;
        return spawn(process.execPath, ['-e', 'process.exit(3)']);
      },
    });
    try {
      await assert.rejects(keepingAlive(() => connector.connect('me')), (error: Error) => {
        assert.ok(error instanceof DaemonUnreachableError);
        assert.match(error.message, /no Python Session daemon answered within 4 s \(nothing listens on .*daemon\.sock\)/);
        assert.match(error.message, /exited \(code 3\); its log is .*daemon\.log/);
        return true;
      });
      assert.ok(spawns >= 2 && spawns <= 3, `${spawns} starts`);
    } finally {
      f.done();
    }
  });

  test('a failing spawn is reported at once', async () => {
    const f = folder();
    const connector = new SpawningConnector({ socketPath: f.socketPath, logPath: f.logPath, spawnDaemon: async () => Promise.reject(new Error('EACCES')) });
    try {
      await assert.rejects(keepingAlive(() => connector.connect('me')), /could not start the daemon: EACCES/);
    } finally {
      f.done();
    }
  });

  test('once the client has left, no daemon is started', async () => {
    const f = folder();
    let spawns = 0;
    const connector = new SpawningConnector({ socketPath: f.socketPath, logPath: f.logPath, spawnDaemon: async () => (spawns++, spawn(process.execPath, ['-e', '0'])) });
    try {
      const leaving = new AbortController();
      leaving.abort();
      await assert.rejects(keepingAlive(() => connector.connect('me', leaving.signal)), { name: 'AbortError' });
      assert.equal(spawns, 0);
    } finally {
      f.done();
    }
  });
});
