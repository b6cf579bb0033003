/**
 * The fault matrix of e2e/faults.e2e.test.ts, on the built-in worker (issue 16): a segfault,
 * os._exit, SIGKILL from outside, SIGSTOP (only the heartbeat can tell), a blocking C call that
 * ignores SIGINT (the interrupt escalates to a restart), and a thread printing after its cell
 * ended. Each fault is followed by a working call and the reply names what was lost. Debian's
 * python3 with PYTHON_MCP_ENGINE=worker, and a pyenv Python without ipykernel where there is one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hasModule, pyenvPython, pyenvVersions } from '../app/core/testing/interpreters-here.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { HAS_PROC, leftovers, running } from './support/proc.js';
import { ignoredInterruptTest, processDeathTests, stoppedProcessTest } from './support/fault-matrix.js';

const SKIP = HAS_PROC ? false : 'reads /proc (Linux only)';

/** A pyenv Python 3.8+ without ipykernel, 3.11 when there is one (the one most people have). */
function pyenvWithoutIpykernel(): string | null {
  const found = pyenvVersions()
    .filter((v) => /^3\.(8|9|1[0-3])\./.test(v))
    .sort((a, b) => Math.abs(Number(a.split('.')[1]) - 11) - Math.abs(Number(b.split('.')[1]) - 11))
    .map((v) => pyenvPython(v))
    .filter((p) => existsSync(p) && !hasModule(p, 'ipykernel'));
  return found[0] ?? null;
}

const pyenv = pyenvWithoutIpykernel();
const cases: { name: string; env: Record<string, string> }[] = [
  { name: `${TEST_PYTHON} with PYTHON_MCP_ENGINE=worker`, env: { PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_ENGINE: 'worker' } },
  ...(pyenv ? [{ name: `pyenv ${pyenv}`, env: { PYTHON_MCP_INTERPRETER: pyenv } }] : []),
];
if (!pyenv) test('the worker fault matrix on a pyenv Python without ipykernel', { skip: 'no pyenv Python 3.8–3.13 without ipykernel here' }, () => undefined);

for (const python of cases) {
  describe(`faults on the built-in worker: ${python.name}`, { skip: SKIP }, () => {
    let harness: Harness;
    let client: Client;
    const daemons: (number | null)[] = [];
    const run = (code: string, extra: Record<string, unknown> = {}) => call(client, 'run_python', { code, ...extra });
    const workerPid = async () => {
      const status = await call(client, 'kernel_status');
      if (typeof status.facts?.pid !== 'number') throw new Error(`kernel_status gave no pid: ${text(status)}`);
      return status.facts.pid as number;
    };
    const busy = () => waitFor('the session to be busy', async () => (await call(client, 'kernel_status')).facts?.state === 'busy', { stepMs: 50 });

    before(async () => {
      harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0', ...python.env });
      client = await harness.connect('worker-faults');
      assert.match(text(await call(client, 'python_status')), /engine for new sessions: the built-in worker/i);
    });
    after(async () => {
      daemons.push(await harness.daemonPid());
      await harness.close();
      assert.deepEqual(await leftovers(harness.home, daemons), [], 'no worker, child or daemon outlives the suite');
      rmSync(harness.home, { recursive: true, force: true });
    });

    const target = { noun: 'worker', run, pid: workerPid, busy };
    processDeathTests(target, [
      { what: 'a segfault through ctypes', code: 'import ctypes\nctypes.string_at(0)', says: /ended by SIGSEGV \(a segmentation fault, usually in a C extension\)/ },
      { what: 'os._exit(1)', code: 'import os\nos._exit(1)', says: /exited with code 1\./ },
    ]);

    test('SIGKILL of the worker from outside mid-run is reported as such, with the names lost', { timeout: 60_000 }, async () => {
      await run('kept = 1');
      const pid = await workerPid();
      const pending = run("import time\nprint('sleeping', flush=True)\ntime.sleep(120)");
      await busy();
      process.kill(pid, 'SIGKILL');
      const died = await pending;
      assert.match(text(died), /The Python kernel died: [^\n]*ended by SIGKILL \(killed; often the out-of-memory killer\)\./);
      assert.match(text(died), /Lost with it: [^\n]*\bkept\b/);
      assert.equal(text(await run('2 + 2')), '4\n');
    });

    stoppedProcessTest(target, /The Python kernel died: the worker was stopped and silent for \d+\.\d s \(hung or stopped\) and was killed\./);

    ignoredInterruptTest(target);

    test('interrupt_kernel on a blocking C call that ignores SIGINT escalates the same way', { timeout: 60_000 }, async () => {
      await run('kept = 1');
      const pid = await workerPid();
      const flag = join(harness.home, 'blocked');
      const pending = run(`import ctypes, signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nopen(${JSON.stringify(flag)}, 'w').close()\nctypes.CDLL(None).sleep(120)`);
      await waitFor('the cell to block', () => existsSync(flag));
      const other = await harness.connect('interrupter');
      const told = text(await call(other, 'interrupt_kernel'));
      const stuck = await pending;
      assert.equal(stuck.isError, true);
      assert.match(`${told}\n${text(stuck)}`, /restarted/);
      assert.match(text(stuck), /Lost with it: [^\n]*\bkept\b/);
      await waitFor('the stuck worker to be ended', () => !running(pid), { timeoutMs: 5000 });
      assert.equal(text(await run('5 + 5')), '10\n');
    });

    test('a thread that keeps printing after its cell ended: none of it shows in the next cell', { timeout: 60_000 }, async () => {
      const first = await run(
        "import threading, time\ndef chatter():\n    for i in range(15):\n        print('late thread', i, flush=True)\n        time.sleep(0.1)\nthreading.Thread(target=chatter, daemon=True).start()\nprint('A done')",
      );
      assert.match(text(first), /A done/);
      const second = await run("import time\nprint('B start', flush=True)\ntime.sleep(1.5)\nprint('B end')");
      assert.equal(text(second), 'B start\nB end\n', 'the thread printed throughout this cell; its text is not this cell’s');
    });
  });
}
