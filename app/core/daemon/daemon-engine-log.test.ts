/**
 * The daemon hands its daemon.log to the engine: a kernel that dies under a running daemon
 * leaves a line there (real daemon, real services, real ipykernel).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMcpServer } from '../mcp/server.js';
import { createServices, type DaemonServices } from '../services.js';
import { TEST_PYTHON } from '../testing/test-python.js';
import { waitFor } from '../testing/wait-for.js';
import { startDaemon, type RunningDaemon } from './daemon.js';

describe('a daemon with real services', () => {
  let home: string;
  let daemon: RunningDaemon<DaemonServices>;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ps-daemon-log-'));
    const outcome = await startDaemon({
      stateDir: home,
      services: ({ log }) =>
        createServices({ stateDir: home, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0', PYTHON_MCP_ENGINE: 'ipykernel' }, logger: log }),
      createMcpServer,
    });
    assert.equal(outcome.status, 'started');
    daemon = outcome.status === 'started' ? outcome.daemon : (undefined as never);
  });

  after(async () => {
    await daemon?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  test("writes a kernel's death to daemon.log", async () => {
    const session = await daemon.services.sessions.start('logged', { interpreter: TEST_PYTHON, cwd: home });
    const pid = session.facts().pid;
    assert.ok(pid, 'the kernel has a pid');
    const logText = () => readFileSync(daemon.files.log, 'utf8');
    assert.doesNotMatch(logText(), /died/);
    process.kill(pid, 'SIGKILL');
    const line = await waitFor('a death line in daemon.log', () => logText().split('\n').find((l) => /\bwarn\b.*kernel .* died/.test(l)), { timeoutMs: 20_000 });
    assert.match(line, /died/);
  });
});
