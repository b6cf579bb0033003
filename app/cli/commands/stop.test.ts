import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { processAlive } from '../../core/daemon/instance-lock.js';
import { TestHome } from '../../core/daemon/testing/daemon-processes.js';
import { stopCommand } from './stop.js';

function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
}

describe('stop', () => {
  let home: TestHome;
  let previous: string | undefined;
  beforeEach(() => {
    home = new TestHome();
    previous = process.env.PYTHON_MCP_HOME;
    process.env.PYTHON_MCP_HOME = home.dir;
  });
  afterEach(async () => {
    if (previous === undefined) delete process.env.PYTHON_MCP_HOME;
    else process.env.PYTHON_MCP_HOME = previous;
    await home.cleanup();
  });

  test('stops the daemon, its services first, and returns once its process is gone', async () => {
    const daemon = home.spawnDaemon(['--background']);
    const pid = await home.waitForDaemon();
    const { out, io } = capture();
    assert.equal(await stopCommand([], io), 0);
    assert.ok(!processAlive(pid), 'the process has exited when stop returns');
    assert.equal(await daemon.exit, 0);
    assert.match(out.stdout, new RegExp(`Stopping the Python Session daemon \\(pid ${pid}\\)\\.\\.\\.\\nStopped\\.\\n`));
    assert.ok(home.pidsWith('services-shutdown').includes(pid));
    assert.ok(!existsSync(home.files.socket.path) && !existsSync(home.files.lock));
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
