/** The warm pool with real kernels: hand-out, clean namespace, crash replacement, shrinking. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelSupervisor, LocalProvisioner } from '../kernel/kernel.js';
import { outputText } from '../kernel/execution/outputs.js';
import { TEST_PYTHON, isAlive, markChildProcesses } from '../testing/test-python.js';
import { waitFor } from '../testing/wait-for.js';
import { WarmPool } from './warm-pool.js';

const startedHere = markChildProcesses('warm-pool-test');
after(() => startedHere.allEnded()); // handed out or pooled

const oneReady = (pool: WarmPool) => waitFor('the pool to hold a ready kernel', async () => (await pool.describe())[0]?.ready === 1, { timeoutMs: 30_000 });

test('a pooled kernel is handed out ready, with modules imported but an empty namespace', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ps-pool-'));
  const pool = new WarmPool({ size: 1, logDir: dir, refillDelayMs: 0, modules: ['json', 'decimal', 'no_such_module_here'] });
  const first = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, launcher: pool.launch }));
  try {
    await oneReady(pool); // it refills after a hand-out
    const [{ pids }] = await pool.describe();
    const second = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, launcher: pool.launch }));
    assert.equal(second.pid, pids[0], 'the second kernel came from the pool');
    const loaded = await second.execute("import sys; 'decimal' in sys.modules");
    assert.equal(outputText(loaded.outputs), 'True\n');
    // IPython's own names (IPython 9 adds its `open`), and the `sys` imported just above.
    const names = await second.execute("[n for n in dir() if not n.startswith('_') and n not in ('In', 'Out', 'exit', 'quit', 'get_ipython', 'open', 'sys')]");
    assert.equal(outputText(names.outputs), '[]\n', 'nothing leaked into the user namespace');
    await second.shutdown();
  } finally {
    await first.shutdown();
    await pool.close();
  }
});

test('a crash is replaced from the pool, and closing the pool ends its kernels', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ps-pool-'));
  const pool = new WarmPool({ size: 1, logDir: dir, refillDelayMs: 0, modules: [] });
  const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, launcher: pool.launch }));
  try {
    await oneReady(pool);
    const [{ pids }] = await pool.describe();
    await assert.rejects(kernel.execute('import os; os._exit(1)'));
    assert.equal(outputText((await kernel.execute('1 + 1')).outputs), '2\n');
    assert.equal(kernel.pid, pids[0], 'the replacement came from the pool');
    await oneReady(pool);
    const [{ pids: refilled }] = await pool.describe();
    await pool.close();
    await waitFor('pooled kernels to end with the pool', () => !isAlive(refilled[0]));
  } finally {
    await kernel.shutdown();
    await pool.close();
  }
});

test('a pool for an interpreter nobody uses is emptied', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ps-pool-'));
  const pool = new WarmPool({ size: 1, logDir: dir, refillDelayMs: 0, modules: [] });
  const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, launcher: pool.launch }));
  await kernel.shutdown();
  await oneReady(pool);
  const [{ pids }] = await pool.describe();
  pool.drop(TEST_PYTHON);
  assert.deepEqual(await pool.describe(), []);
  await waitFor('the dropped pool\'s kernel to end', () => !isAlive(pids[0]));
  await pool.close();
});
