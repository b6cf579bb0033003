/** Daemons as real processes: one per state folder, however they are started, and clean exits. */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { processAlive } from './instance-lock.js';
import { TestHome } from './testing/daemon-processes.js';
import { waitFor } from '../testing/wait-for.js';

let home: TestHome;
afterEach(async () => {
  await home.cleanup();
  assert.deepEqual(home.liveDaemons(), [], 'no daemon left behind');
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('daemon processes', () => {
  test('two started at once: one runs, the other says so and exits 0', async () => {
    home = new TestHome();
    // Slow services widen the window in which the first holds the lock but is not yet "ready".
    const env = { TEST_DAEMON_START_DELAY_MS: '400' };
    const a = home.spawnDaemon([], env);
    const b = home.spawnDaemon([], env);
    const first = await Promise.race([a.exit.then(() => 'a'), b.exit.then(() => 'b')]);
    const [loser, winner] = first === 'a' ? [a, b] : [b, a];
    assert.equal(await loser.exit, 0, loser.output());
    assert.equal(await home.waitForDaemon(), winner.child.pid);
    assert.match(loser.output(), new RegExp(`already running: pid ${winner.child.pid}\\b`));
    assert.equal(winner.child.exitCode, null, 'the winner keeps running');
    await waitFor('the services to start', () => home.pidsWith('started').length > 0, { timeoutMs: 5000 });
    assert.deepEqual(home.pidsWith('started'), [winner.child.pid]);
  });

  test('eight racing over the stale lock and socket of a crashed daemon: exactly one runs', async () => {
    home = new TestHome();
    writeFileSync(home.files.lock, `${await deadPid()}\n`);
    writeFileSync(home.files.socket.path, ''); // where the dead socket was; nothing listens on it

    const daemons = Array.from({ length: 8 }, () => home.spawnDaemon(['--background']));
    await waitFor('seven to give way', () => daemons.filter((d) => d.child.exitCode === null).length === 1, { timeoutMs: 15_000 });
    const [running] = daemons.filter((d) => d.child.exitCode === null);
    for (const d of daemons) if (d !== running) assert.equal(d.child.exitCode, 0, d.output());
    assert.equal(await home.waitForDaemon(), running.child.pid);
    await waitFor('the services to start', () => home.pidsWith('started').length > 0, { timeoutMs: 5000 });
    assert.deepEqual(home.pidsWith('started'), [running.child.pid]);
    assert.equal(running.output(), '', 'a background daemon writes nothing to stdout or stderr');
  });

  test('SIGTERM shuts the services down and removes socket, daemon.json and lock', { skip: process.platform === 'win32' }, async () => {
    home = new TestHome();
    const d = home.spawnDaemon();
    const pid = await home.waitForDaemon();
    await waitFor('daemon.json to name the daemon', () => home.infoPid() === pid, { timeoutMs: 5000 });
    assert.match(d.output(), /Python Session daemon running, pid \d+\n\s+socket\s+\S+daemon\.sock/);
    d.child.kill('SIGTERM');
    assert.equal(await d.exit, 0);
    assert.ok(home.pidsWith('services-shutdown').includes(pid));
    for (const file of [home.files.socket.path, home.files.info, home.files.lock]) assert.ok(!existsSync(file), file);
  });

  test('after a kill -9, the next start takes the folder over', { skip: process.platform === 'win32' }, async () => {
    home = new TestHome();
    const crashed = home.spawnDaemon(['--background']);
    const pid = await home.waitForDaemon();
    crashed.child.kill('SIGKILL');
    await crashed.exit;
    assert.ok(existsSync(home.files.lock) && existsSync(home.files.socket.path), 'a crash leaves its files');
    const next = home.spawnDaemon(['--background']);
    const newPid = await home.waitForDaemon();
    assert.notEqual(newPid, pid);
    assert.equal(newPid, next.child.pid);
    assert.ok(!processAlive(pid));
  });
});
