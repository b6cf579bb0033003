import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { processAlive } from '../../core/daemon/instance-lock.js';
import { capture, useTestHome } from '../testing/command-harness.js';
import { stopCommand } from './stop.js';


describe('stop', () => {
  const homes = useTestHome();

  test('stops the daemon, its services first, and returns once its process is gone', async () => {
    const daemon = homes.current().spawnDaemon(['--background']);
    const pid = await homes.current().waitForDaemon();
    const { out, io } = capture();
    assert.equal(await stopCommand([], io), 0);
    assert.ok(!processAlive(pid), 'the process has exited when stop returns');
    assert.equal(await daemon.exit, 0);
    assert.match(out.stdout, new RegExp(`Stopping the Python Session daemon \\(pid ${pid}\\)\\.\\.\\.\\nStopped\\.\\n`));
    assert.ok(homes.current().pidsWith('services-shutdown').includes(pid));
    assert.ok(!existsSync(homes.current().files.socket.path) && !existsSync(homes.current().files.lock));
  });

  test('with no daemon: says so and exits 0', async () => {
    const { out, io } = capture();
    assert.equal(await stopCommand([], io), 0);
    assert.match(out.stdout, /No Python Session daemon is running/);
  });

  test('rejects a bad --timeout', async () => {
    const { out, io } = capture();
    assert.equal(await stopCommand(['--timeout', 'soon'], io), 2);
    assert.match(out.stderr, /--timeout takes a number of seconds/);
  });
});
