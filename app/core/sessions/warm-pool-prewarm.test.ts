/**
 * The warm pool warming ahead (a client connected), with real kernels: moved to the asked folder
 * at hand-out, never into a folder with a matplotlibrc, and a kernel taken while still warming
 * stops importing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelSupervisor, LocalProvisioner } from '../kernel/kernel.js';
import { outputText } from '../kernel/execution/outputs.js';
import { TEST_PYTHON } from '../testing/test-python.js';
import { waitFor } from '../testing/wait-for.js';
import { WarmPool } from './warm-pool.js';

const readyPid = (pool: WarmPool) =>
  waitFor('a ready kernel in the pool', async () => {
    const [entry] = await pool.describe();
    return entry?.ready === 1 ? entry.pids[0] : undefined;
  }, { timeoutMs: 30_000 });

// Which folder imports come from, by a module of this name in each folder. Not sys.path[0]: ipykernel
// 6 puts the start folder first, ipykernel 7 puts '' after the standard library.
const where = "import os, which_folder; print(os.getcwd()); print(os.environ.get('PWD')); print(which_folder.FOLDER)";

test('a kernel warmed in one folder is handed out in another, as if it had started there', async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ps-pool-folder-')));
  const [warmedIn, project] = [join(root, 'warmed-in'), join(root, 'project')];
  await Promise.all([mkdir(warmedIn), mkdir(project)]);
  await writeFile(join(warmedIn, 'which_folder.py'), "FOLDER = 'warmed-in'\n");
  await writeFile(join(project, 'which_folder.py'), "FOLDER = 'project'\n");
  const pool = new WarmPool({ size: 1, logDir: root, refillDelayMs: 60_000, modules: ['json'] });
  try {
    pool.prewarm({ interpreter: TEST_PYTHON, cwd: warmedIn });
    const pooled = await readyPid(pool);
    pool.prewarm({ interpreter: TEST_PYTHON, cwd: project });
    assert.deepEqual(await pool.describe().then((p) => p.map((e) => [e.ready, e.warming])), [[1, 0]], 'a pool that has a kernel is not warmed again');
    const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, cwd: project, launcher: pool.launch }));
    try {
      assert.equal(kernel.pid, pooled, 'the prewarmed kernel was handed out');
      assert.equal(outputText((await kernel.execute(where)).outputs), `${project}\n${project}\nproject\n`);
    } finally {
      await kernel.shutdown();
    }
  } finally {
    await pool.close();
    await rm(root, { recursive: true, force: true });
  }
});

test('a folder with its own matplotlibrc gets a kernel that started there', async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ps-pool-folder-')));
  const [warmedIn, styled] = [join(root, 'warmed-in'), join(root, 'styled')];
  await Promise.all([mkdir(warmedIn), mkdir(styled)]);
  await writeFile(join(styled, 'matplotlibrc'), 'lines.linewidth: 7\n');
  const pool = new WarmPool({ size: 1, logDir: root, refillDelayMs: 60_000, modules: ['json'] });
  try {
    pool.prewarm({ interpreter: TEST_PYTHON, cwd: warmedIn });
    const pooled = await readyPid(pool);
    const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, cwd: styled, launcher: pool.launch }));
    try {
      assert.notEqual(kernel.pid, pooled, 'a cold start, not the kernel warmed elsewhere');
      assert.equal(outputText((await kernel.execute('import os; print(os.getcwd())')).outputs), `${styled}\n`);
      assert.equal((await pool.describe())[0]?.ready, 1, 'the pooled kernel waits for a folder it fits');
    } finally {
      await kernel.shutdown();
    }
  } finally {
    await pool.close();
    await rm(root, { recursive: true, force: true });
  }
});

test('a kernel taken while still warming imports nothing more', async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ps-pool-claim-')));
  // Modules no kernel imports by itself: their presence says the warm-up ran.
  const pool = new WarmPool({ size: 1, logDir: root, refillDelayMs: 60_000, modules: ['wave', 'tabnanny'] });
  try {
    pool.prewarm({ interpreter: TEST_PYTHON, cwd: root });
    const [{ warming }] = await pool.describe();
    assert.equal(warming, 1, 'a kernel is warming');
    const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, cwd: root, launcher: pool.launch }));
    try {
      assert.equal(outputText((await kernel.execute("import sys; print('wave' in sys.modules, 'tabnanny' in sys.modules)")).outputs), 'False False\n');
    } finally {
      await kernel.shutdown();
    }
    assert.deepEqual(await pool.describe().then((p) => p.map((e) => e.ready + e.warming)), [0], 'the taken kernel left the pool');
  } finally {
    await pool.close();
    await rm(root, { recursive: true, force: true });
  }
});

test('a kernel warmed to the end has imported its modules', async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ps-pool-claim-')));
  const pool = new WarmPool({ size: 1, logDir: root, refillDelayMs: 60_000, modules: ['wave', 'tabnanny'] });
  try {
    pool.prewarm({ interpreter: TEST_PYTHON, cwd: root });
    await readyPid(pool);
    const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, cwd: root, launcher: pool.launch }));
    try {
      assert.equal(outputText((await kernel.execute("import sys; print('wave' in sys.modules, 'tabnanny' in sys.modules)")).outputs), 'True True\n');
    } finally {
      await kernel.shutdown();
    }
  } finally {
    await pool.close();
    await rm(root, { recursive: true, force: true });
  }
});
