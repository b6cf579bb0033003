import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../testing/wait-for.js';
import { acquireInstanceLock, processAlive, readLockPid } from './instance-lock.js';
import { stateFileNotices } from '../state-file.js';

function folder(): { dir: string; lockPath: string; socketPath: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ps-lock-'));
  return { dir, lockPath: join(dir, 'daemon.lock'), socketPath: join(dir, 'daemon.sock'), done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A pid that is certainly not running: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function age(path: string, seconds: number): void {
  const then = new Date(Date.now() - seconds * 1000);
  utimesSync(path, then, then);
}

describe('the instance lock', () => {
  test('a lock that is a folder or a symlink is no daemon\'s: set aside with a notice, and taken', async () => {
    for (const make of [(p: string) => mkdirSync(p), (p: string) => symlinkSync('/nonexistent/lock', p)]) {
      const f = folder();
      try {
        make(f.lockPath);
        const before = stateFileNotices().length;
        const outcome = await acquireInstanceLock(f);
        assert.ok(outcome.acquired);
        assert.equal(readLockPid(f.lockPath), process.pid);
        const [notice] = stateFileNotices().slice(before);
        assert.equal(notice?.file, f.lockPath);
        assert.match(notice.action, /the lock is taken afresh/);
        outcome.lock.release();
      } finally {
        f.done();
      }
    }
  });

  test('is created holding our pid and released only by us', async () => {
    const f = folder();
    try {
      const outcome = await acquireInstanceLock(f);
      assert.ok(outcome.acquired);
      assert.equal(readLockPid(f.lockPath), process.pid);
      writeFileSync(f.lockPath, '999999\n'); // someone else's now
      outcome.lock.release();
      assert.ok(existsSync(f.lockPath), 'a lock that changed hands is left alone');
      writeFileSync(f.lockPath, `${process.pid}\n`);
      outcome.lock.release();
      assert.ok(!existsSync(f.lockPath));
    } finally {
      f.done();
    }
  });

  test('taken over from a pid that is not running', async () => {
    const f = folder();
    try {
      writeFileSync(f.lockPath, `${await deadPid()}\n`);
      const logged: string[] = [];
      const outcome = await acquireInstanceLock({ ...f, log: (m) => logged.push(m) });
      assert.ok(outcome.acquired);
      assert.equal(readLockPid(f.lockPath), process.pid);
      assert.match(logged.join('\n'), /stale lock/);
    } finally {
      f.done();
    }
  });

  test('deferred to a live owner that answers on the socket', async () => {
    const f = folder();
    const server = net.createServer((socket) => socket.end(JSON.stringify({ ok: true, pid: 4242, version: 'x' }) + '\n'));
    await new Promise<void>((resolve) => server.listen(f.socketPath, resolve));
    try {
      writeFileSync(f.lockPath, `${process.ppid}\n`); // alive, and not us
      age(f.lockPath, 3600);
      const outcome = await acquireInstanceLock(f);
      assert.deepEqual(outcome, { acquired: false, ownerPid: 4242, answering: true });
      assert.equal(readFileSync(f.lockPath, 'utf8'), `${process.ppid}\n`);
    } finally {
      server.close();
      f.done();
    }
  });

  test('deferred to a live owner that is listening but busy', async () => {
    const f = folder();
    const held: net.Socket[] = [];
    const server = net.createServer((socket) => void held.push(socket)); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(f.socketPath, resolve));
    try {
      writeFileSync(f.lockPath, `${process.ppid}\n`);
      age(f.lockPath, 3600);
      const outcome = await acquireInstanceLock({ ...f, pingTimeoutMs: 200 });
      assert.deepEqual(outcome, { acquired: false, ownerPid: process.ppid, answering: false });
    } finally {
      for (const socket of held) socket.destroy();
      server.close();
      f.done();
    }
  });

  test('waits for a live owner that is still starting, then defers to it', async () => {
    const f = folder();
    writeFileSync(f.lockPath, `${process.ppid}\n`); // fresh: inside the start-up grace
    const server = net.createServer((socket) => socket.end(JSON.stringify({ ok: true, pid: process.ppid, version: 'x' }) + '\n'));
    // Each look at the owner is followed by a ping; a second look means the first ping found nobody listening.
    let looks = 0;
    const isAlive = (pid: number) => (looks++, processAlive(pid));
    try {
      const outcome = acquireInstanceLock({ ...f, startupGraceMs: 5000, isAlive });
      await waitFor('the acquirer to find the owner not listening yet, and look again', () => looks >= 2);
      await new Promise<void>((resolve) => server.listen(f.socketPath, resolve));
      assert.deepEqual(await outcome, { acquired: false, ownerPid: process.ppid, answering: true }, 'it waited for the owner to listen');
      assert.equal(readFileSync(f.lockPath, 'utf8'), `${process.ppid}\n`, "the owner's lock is left alone");
    } finally {
      server.close();
      f.done();
    }
  });

  test('taken over from a live pid that never listened (a reused pid)', async () => {
    const f = folder();
    try {
      writeFileSync(f.lockPath, `${process.ppid}\n`);
      age(f.lockPath, 60);
      const outcome = await acquireInstanceLock({ ...f, startupGraceMs: 1000 });
      assert.ok(outcome.acquired);
    } finally {
      f.done();
    }
  });

  test('a stale lock that changes hands before it is removed is left to its new owner', async () => {
    const f = folder();
    const server = net.createServer((socket) => socket.end(JSON.stringify({ ok: true, pid: 777, version: 'x' }) + '\n'));
    await new Promise<void>((resolve) => server.listen(f.socketPath, resolve));
    try {
      const dead = await deadPid();
      writeFileSync(f.lockPath, `${dead}\n`);
      let swapped = false;
      // Between our reading the stale lock and removing it, another starter removes it and takes its own.
      const isAlive = (pid: number) => {
        if (pid === dead && !swapped) {
          swapped = true;
          rmSync(f.lockPath);
          writeFileSync(f.lockPath, `${process.ppid}\n`);
          return false;
        }
        return pid !== dead;
      };
      const outcome = await acquireInstanceLock({ ...f, isAlive });
      assert.ok(swapped);
      assert.deepEqual(outcome, { acquired: false, ownerPid: 777, answering: true });
      assert.equal(readFileSync(f.lockPath, 'utf8'), `${process.ppid}\n`);
    } finally {
      server.close();
      f.done();
    }
  });

  test('an empty lock is waited on while young and taken over when old', async () => {
    const f = folder();
    // A fake clock for its waits: each tick is one more look at the lock.
    mock.timers.enable({ apis: ['setTimeout'] });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    try {
      writeFileSync(f.lockPath, '');
      let settled = false;
      const outcome = acquireInstanceLock({ ...f, startupGraceMs: 5000 }).finally(() => (settled = true));
      for (let look = 0; look < 5; look++) {
        await settle();
        mock.timers.tick(50);
      }
      await settle();
      assert.equal(settled, false, 'a young empty lock is waited on');
      assert.equal(readFileSync(f.lockPath, 'utf8'), '', 'and left as it is');
      age(f.lockPath, 60);
      mock.timers.tick(50);
      const result = await outcome;
      assert.ok(result.acquired, 'an old one is taken over');
      assert.equal(readLockPid(f.lockPath), process.pid);
    } finally {
      mock.timers.reset();
      f.done();
    }
  });
});
