/**
 * Issue #7, faults: "a crash costs one process and nothing else". Every fault here is caused on
 * purpose, through a real MCP client, the shim and the daemon, against real ipykernels; each is
 * followed by a working call, and the reply is checked for a clear account of what was lost.
 *
 * Kept apart in their own state folders: the daemon's own death (it takes its sessions with it)
 * and a full disk (which needs files where folders should be). Memory is never really exhausted:
 * the cap is tested with 1 GB, and the out-of-memory killer is stood in for by SIGKILL from outside.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { processesMatching } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { DAEMON_STOPPED_MESSAGE } from '../app/cli/shim-relay.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { HAS_PROC, dataLimitOf, descendantsOf, leftovers, memoryOf, running } from './support/proc.js';
import { IGNORES_SIGINT, ignoredInterruptTest, processDeathTests, stoppedProcessTest } from './support/fault-matrix.js';

const MB = 1024 * 1024;
const SKIP = HAS_PROC ? false : 'reads /proc (Linux only)';

/** One state folder, one daemon, one client; after the suite nothing of it may still run. */
function suite(env: Record<string, string>, name: string) {
  const state = { harness: null as unknown as Harness, client: null as unknown as Client, markers: [] as string[], daemons: [] as (number | null)[] };
  before(async () => {
    state.harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0', ...env });
    state.client = await state.harness.connect(name);
  });
  after(async () => {
    state.daemons.push(await state.harness.daemonPid());
    await state.harness.close();
    const left = await leftovers(state.harness.home, state.daemons, state.markers);
    for (const marker of state.markers) for (const pid of processesMatching(marker)) process.kill(pid, 'SIGKILL');
    assert.deepEqual(left, [], 'no kernel, child of user code or daemon outlives the suite');
    rmSync(state.harness.home, { recursive: true, force: true });
  });
  const run = (code: string, extra: Record<string, unknown> = {}) => call(state.client, 'run_python', { code, ...extra });
  const kernelPid = async (session = 'default') => {
    const status = await call(state.client, 'kernel_status', { session });
    if (typeof status.facts?.pid !== 'number') throw new Error(`kernel_status gave no pid: ${text(status)}`);
    return status.facts.pid as number;
  };
  const marker = () => {
    const m = `ps-fault-child-${randomUUID()}`;
    state.markers.push(m);
    return m;
  };
  const busy = (session = 'default') =>
    waitFor(`session ${session} to be busy`, async () => (await call(state.client, 'kernel_status', { session })).facts?.state === 'busy', { stepMs: 100 });
  return { state, run, kernelPid, marker, busy };
}

const logOf = (home: string, session = 'default') =>
  readFileSync(join(home, 'sessions', session, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { code: string; status: string; client: string }); // a torn line throws

describe('user code that ends the kernel', { skip: SKIP }, () => {
  const { state, run, kernelPid, busy } = suite({ PYTHON_MCP_MEMORY_LIMIT: '1024' }, 'faults');

  test('sys.exit() and exit() end the cell, not the kernel: nothing is lost', { timeout: 60_000 }, async () => {
    await run('kept = "still here"');
    const pid = await kernelPid();
    const exited = await run('import sys\nsys.exit(3)');
    assert.equal(exited.isError, true);
    assert.match(text(exited), /Python error: SystemExit: 3$/);
    assert.equal(text(await run('exit()')), '(no output)');
    // ipykernel stops its loop 0.1 s after exit() when exit_now is set: that flag, not a race
    // against the stop, is what shows the kernel stays.
    assert.equal(text(await run('get_ipython().exit_now')), 'False\n', 'exit() did not schedule the kernel to stop');
    assert.equal(await kernelPid(), pid, 'the same kernel process');
    assert.equal(text(await run('kept')), "'still here'\n");
  });

  // Each of these ends the process for real; the reply must say how, and name what went with it.
  processDeathTests(
    { noun: 'kernel', run, pid: kernelPid, busy },
    [
      { what: 'os._exit(1)', code: 'import os\nos._exit(1)', says: /the kernel exited with code 1\./ },
      { what: 'a segfault through ctypes', code: 'import ctypes\nctypes.string_at(0)', says: /ended by SIGSEGV \(a segmentation fault, usually in a C extension\)/ },
      { what: 'os.abort()', code: 'import os\nos.abort()', says: /ended by SIGABRT \(aborted\)/ },
      { what: 'os.kill(os.getpid(), 9)', code: 'import os\nos.kill(os.getpid(), 9)', says: /ended by SIGKILL \(killed; often the out-of-memory killer\)/ },
    ],
    (died, killer, name) => {
      assert.match(text(died), /A fresh kernel has been started/);
      assert.ok((died.facts?.lost_names as string[]).includes(name));
      const log = logOf(state.harness.home);
      assert.deepEqual(
        log.filter((e) => e.code === killer.code).map((e) => e.status),
        ['died'],
        'the session log records the death',
      );
    },
  );
});

describe('user code that eats memory', { skip: SKIP }, () => {
  describe('with the cap (1024 MB here)', () => {
    const { run, kernelPid } = suite({ PYTHON_MCP_MEMORY_LIMIT: '1024' }, 'memory');

    test('a runaway allocation is a MemoryError in that kernel: the process and its variables stay', { timeout: 120_000 }, async () => {
      await run('kept = "still here"');
      const pid = await kernelPid();
      assert.equal(dataLimitOf(pid), 1024 * MB, 'RLIMIT_DATA is set on the kernel');

      const one = await run('block = bytearray(8 * 1024**3)');
      assert.equal(one.isError, true);
      assert.match(text(one), /Python error: MemoryError on line 1/);

      // Grows step by step, as a real leak does, until the cap stops it.
      const loop = await run("hog = []\nwhile True:\n    hog.append(b'\\x01' * (50 * 1024 * 1024))");
      assert.equal(loop.isError, true);
      assert.match(text(loop), /Python error: MemoryError on line 3/);
      assert.equal(await kernelPid(), pid, 'the same kernel process: nothing was killed');
      assert.ok(memoryOf(pid).peak > 700 * MB, 'the kernel really grew to near its cap');
      assert.equal(text(await run('del hog\nkept')), "'still here'\n");
    });
  });

  describe('the cap is on by default', () => {
    const { run, kernelPid } = suite({}, 'default-cap');

    test('at half the machine, with no setting at all', { timeout: 60_000 }, async () => {
      await run('1');
      assert.equal(dataLimitOf(await kernelPid()), Math.floor(totalmem() / 2));
    });
  });

  describe('without the cap (PYTHON_MCP_MEMORY_LIMIT=off)', () => {
    const { run, kernelPid } = suite({ PYTHON_MCP_MEMORY_LIMIT: 'off' }, 'no-cap');

    test('a kernel the out-of-memory killer takes (SIGKILL from outside) is reported as such', { timeout: 120_000 }, async () => {
      await run('kept = 1');
      const pid = await kernelPid();
      assert.equal(dataLimitOf(pid), Infinity);
      const pending = run("import time\nhog = []\nfor _ in range(6):\n    hog.append(b'\\x01' * (50 * 1024 * 1024))\nprint('allocated', flush=True)\ntime.sleep(120)");
      await waitFor('the kernel to grow past 250 MB', () => memoryOf(pid).rss > 250 * MB, { timeoutMs: 30_000 });
      process.kill(pid, 'SIGKILL'); // what the OOM killer does
      const died = await pending;
      assert.match(text(died), /The Python kernel died: the kernel was ended by SIGKILL \(killed; often the out-of-memory killer\)\./);
      assert.match(text(died), /Lost with it: [^\n]*\bkept\b/);
      assert.equal(text(await run('2 + 2')), '4\n');
    });
  });
});

describe('user code that hangs', { skip: SKIP }, () => {
  const { state, run, kernelPid, busy } = suite({}, 'hangs');

  test('a pure-Python loop is interrupted at its timeout; the kernel and its variables stay', { timeout: 60_000 }, async () => {
    await run('kept = 1');
    const pid = await kernelPid();
    const looped = await run("print('looping', flush=True)\nwhile True: pass", { timeout_s: 1 });
    assert.equal(looped.isError, true);
    // Interrupted, not restarted: the same process answers next, with the variable.
    assert.match(text(looped), /^looping\n[\s\S]*Timed out after 1 s; the run was interrupted\. Above is what it printed\.$/);
    assert.equal(await kernelPid(), pid);
    assert.equal(text(await run('kept')), '1\n');
  });

  test('time.sleep is interrupted by interrupt_kernel from another client', { timeout: 60_000 }, async () => {
    await run('kept = 1');
    const pid = await kernelPid();
    const other = await state.harness.connect('another-client');
    const flag = join(state.harness.home, 'napping');
    const pending = run(`import time\nprint('napping', flush=True)\nopen(${JSON.stringify(flag)}, 'w').close()\ntime.sleep(120)`);
    await waitFor('the cell to be asleep', () => existsSync(flag));
    await call(other, 'interrupt_kernel', {});
    const napped = await pending;
    assert.equal(napped.isError, true);
    assert.match(text(napped), /^napping\n[\s\S]*Python error: KeyboardInterrupt on line 4/);
    assert.equal(await kernelPid(), pid);
    assert.equal(text(await run('kept')), '1\n');
  });

  test('an interrupt sent the moment a run starts is never lost to a restart: the kernel and its variables stay', { timeout: 120_000 }, async () => {
    // ipykernel ignores SIGINT until it has entered the request, and swallows one that lands in
    // its own code around the user's: neither may turn into "would not stop, restarted".
    await run('kept = 1');
    const pid = await kernelPid();
    const other = await state.harness.connect('impatient-client');
    for (let i = 0; i < 8; i++) {
      const pending = run("import time\nprint('started', flush=True)\ntime.sleep(120)");
      // As soon as the daemon has sent it (before that there is nothing to interrupt).
      await waitFor(`round ${i}: the kernel to be busy`, async () => (await call(other, 'kernel_status', {})).facts?.state === 'busy', { stepMs: 5 });
      await call(other, 'interrupt_kernel', {});
      const result = await pending;
      assert.match(text(result), /Python error: KeyboardInterrupt|^Interrupted\.$/, `round ${i}: ${text(result)}`);
      assert.doesNotMatch(text(result), /restarted/);
    }
    assert.equal(await kernelPid(), pid, 'never restarted');
    assert.equal(text(await run('kept')), '1\n');
  });

  const hanging = { noun: 'kernel', run, pid: kernelPid, busy };
  ignoredInterruptTest(hanging, () => assert.equal(logOf(state.harness.home).find((e) => e.code === IGNORES_SIGINT)?.status, 'timeout', 'the run is in the log'));

  stoppedProcessTest(hanging, /The Python kernel died: the kernel stopped answering its heartbeat for \d+\.\d s \(hung or stopped\) and was killed\./);

  test('a kernel that dies between calls: the next call says so before its own output', { timeout: 60_000 }, async () => {
    await run('kept_idle = 1');
    const pid = await kernelPid();
    process.kill(pid, 'SIGKILL'); // while idle: nobody's call is there to report it
    await waitFor(
      'the daemon to notice and put a fresh kernel in its place',
      async () => {
        const status = (await call(state.client, 'kernel_status', {})).facts;
        return status?.state === 'idle' && status.pid !== pid;
      },
      { timeoutMs: 15_000, stepMs: 100 },
    );
    const next = await run("print('hello')");
    assert.match(text(next), /^Note: this session's kernel died since your previous call, so this call ran in a fresh one\.\nThe Python kernel died: the kernel was ended by SIGKILL/);
    assert.match(text(next), /Lost with it: [^\n]*\bkept_idle\b/);
    assert.match(text(next), /\n\nhello\n$/);
    assert.deepEqual((next.facts?.died_before as { lost_names: string[] }).lost_names.includes('kept_idle'), true);
    assert.equal(text(await run("print('again')")), 'again\n', 'told once');
  });
});

describe('user code that starts threads and child processes', { skip: SKIP }, () => {
  const { state, run, kernelPid, marker } = suite({}, 'children');

  test('a thread that keeps printing after its cell ended: none of it shows in the next cell', { timeout: 60_000 }, async () => {
    const first = await run(
      "import threading, time\ndef chatter():\n    for i in range(15):\n        print('late thread', i, flush=True)\n        time.sleep(0.1)\nthreading.Thread(target=chatter, daemon=True).start()\nprint('A done')",
    );
    assert.match(text(first), /A done/);
    const second = await run("import time\nprint('B start', flush=True)\ntime.sleep(1.5)\nprint('B end')");
    assert.equal(text(second), 'B start\nB end\n', 'the thread printed throughout this cell; its text is not this cell’s');
  });

  test('a child process that keeps printing after its cell ended: none of it shows in the next cell', { timeout: 60_000 }, async () => {
    const tag = marker();
    await run(`import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', "import time\\nfor i in range(15):\\n    print('late child', i, flush=True)\\n    time.sleep(0.1)", '${tag}'])\nprint('C done')`);
    const second = await run("import time\nprint('D start', flush=True)\ntime.sleep(1.5)\nprint('D end')");
    assert.equal(text(second), 'D start\nD end\n');
  });

  test('a forked copy of the kernel that keeps printing after its cell ended: none of it shows in the next cell', { timeout: 60_000 }, async () => {
    const first = await run(
      "import os, time\nif os.fork() == 0:\n    for i in range(15):\n        print('late fork', i, flush=True)\n        time.sleep(0.1)\n    os._exit(0)\nprint('E done')",
    );
    assert.match(text(first), /E done/);
    const second = await run("import time\nprint('F start', flush=True)\ntime.sleep(1.5)\nprint('F end')");
    assert.equal(text(second), 'F start\nF end\n');
  });

  test('what threads and children print while their own cell runs stays with that cell', { timeout: 60_000 }, async () => {
    // The child's text is the cell's last act: it must be passed on before the cell's reply.
    const result = await run("import subprocess, threading\nt = threading.Thread(target=lambda: print('from a thread', flush=True))\nt.start(); t.join()\nsubprocess.run(['echo', 'from a child'])\nNone");
    assert.equal(text(result), 'from a thread\nfrom a child\n');
  });

  test('an interrupt reaches the whole process group: a child the cell waits on stops too', { timeout: 60_000 }, async () => {
    const tag = marker();
    await run('started = True');
    const pid = await kernelPid();
    const result = await run(`import subprocess, sys\np = subprocess.Popen([sys.executable, '-c', 'import time\\nwhile True: time.sleep(0.1)', '${tag}'])\np.wait()`, { timeout_s: 2 });
    assert.match(text(result), /Timed out after 2 s; the run was interrupted\./);
    await waitFor('the child to get the SIGINT too', () => processesMatching(tag).length === 0, { timeoutMs: 5000 });
    assert.equal(await kernelPid(), pid);
  });

  test('a kill reaches the whole process group: children that ignore SIGINT and SIGTERM end with a restart, and with a crashed kernel', { timeout: 60_000 }, async () => {
    const stubborn = (tag: string) =>
      `import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import signal, time\\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\\nwhile True: time.sleep(0.1)', '${tag}'])\nNone`;
    const restarted = marker();
    await run(stubborn(restarted));
    await waitFor('the stubborn child to start', () => processesMatching(restarted).length === 1, { timeoutMs: 5000 });
    await call(state.client, 'restart_kernel', {});
    await waitFor('restart_kernel to end the child', () => processesMatching(restarted).length === 0, { timeoutMs: 5000 });

    const crashed = marker();
    await run(stubborn(crashed));
    await waitFor('the stubborn child to start', () => processesMatching(crashed).length === 1, { timeoutMs: 5000 });
    await run('import os\nos._exit(3)');
    await waitFor('the crashed kernel’s child to go with it', () => processesMatching(crashed).length === 0, { timeoutMs: 5000 });
    assert.equal(text(await run('5 + 5')), '10\n');
  });
});

describe('the daemon killed with SIGKILL mid-run', { skip: SKIP }, () => {
  // The warm pool stays on (its default): pooled kernels must not outlive the daemon either.
  const { state, run, kernelPid, marker, busy } = suite({ PYTHON_MCP_POOL_SIZE: '1' }, 'survivor');

  test('no kernel or child lingers, the shim recovers, and the log holds every finished run', { timeout: 120_000 }, async () => {
    const { harness, client } = state;
    for (const code of ['a = 1', 'b = 2', "print('three')"]) assert.equal((await run(code)).isError, undefined);
    await call(client, 'start_kernel', { session: 'other' });
    const tag = marker();
    const spawn = `import subprocess, sys\nchild = subprocess.Popen([sys.executable, '-c', 'import time\\nwhile True: time.sleep(0.1)', '${tag}'])`;
    await run('c = 3', { session: 'other' });
    await run(spawn, { session: 'other' });
    const kernels = [await kernelPid(), await kernelPid('other')];
    await waitFor('the pool to refill', () => processesMatching(harness.home).length > kernels.length, { timeoutMs: 20_000 }); // kernels name the folder
    // Everything the daemon started: the two kernels, the pooled one, the child of user code.
    const daemon = (await harness.daemonPid())!;
    const everything = [...new Set([...descendantsOf(daemon), ...processesMatching(tag)])];
    assert.ok(everything.length >= 4 && kernels.every((pid) => everything.includes(pid)), `kernels ${kernels}, pooled kernel and child among ${everything}`);

    state.daemons.push(daemon);
    const pending = run("print('started', flush=True)\nimport time\ntime.sleep(120)");
    await busy();
    process.kill(daemon, 'SIGKILL');

    await assert.rejects(pending, (error: Error) => error.message.includes(DAEMON_STOPPED_MESSAGE));
    await waitFor('every process of the killed daemon to end', () => everything.every((pid) => !running(pid))).catch((error: Error) => {
      throw new Error(`${error.message}; orphans: ${everything.filter(running)}`);
    });

    // Every run that finished is in the log, the one cut off is not.
    assert.deepEqual(logOf(harness.home).map((e) => [e.code, e.status]), [['a = 1', 'ok'], ['b = 2', 'ok'], ["print('three')", 'ok']]);
    assert.deepEqual(logOf(harness.home, 'other').map((e) => e.code), ['c = 3', spawn]);

    const next = await run('1 + 1');
    assert.match(text(next), /daemon restarted since the last call, so every Python session was lost/);
    assert.match(text(next), /2\n$/);
    const replacement = await harness.daemonPid();
    assert.ok(replacement && replacement !== daemon && running(replacement));
  });
});

describe('a full disk or an unusable state folder', { skip: SKIP }, () => {
  const { state, run } = suite({ PYTHON_MCP_OUTPUT_LIMIT: '2000' }, 'disk');
  const sessionDir = (name = 'default') => join(state.harness.home, 'sessions', name);
  /** Puts a file where the daemon expects a folder. */
  const blockFolder = (path: string) => {
    rmSync(path, { recursive: true, force: true });
    writeFileSync(path, 'not a folder');
  };
  let daemon: number | null = null;
  before(async () => {
    daemon = await state.harness.daemonPid(); // the one the suite's client started
  });
  afterEach(async () => {
    assert.ok(daemon && running(daemon), 'the daemon is still up');
    assert.equal(await state.harness.daemonPid(), daemon, 'and it is the same daemon');
  });

  test('the session log on a full disk: the reply still comes, with a warning; once there is room, runs are logged again', { timeout: 60_000 }, async () => {
    await run('kept = 1');
    const log = join(sessionDir(), 'log.jsonl');
    const saved = readFileSync(log);
    rmSync(log);
    symlinkSync('/dev/full', log); // every write fails with ENOSPC
    try {
      const result = await run("print('ran anyway')\nkept + 1");
      assert.equal(result.isError, undefined);
      assert.match(text(result), /^ran anyway\n2\n/);
      assert.match(text(result), /Warning: this run is not in the session log — could not write the session log [^\n]*log\.jsonl: ENOSPC: no space left on device/);
      assert.equal((result.facts?.warnings as string[]).length, 1);
    } finally {
      rmSync(log);
      writeFileSync(log, saved);
    }
    assert.equal(text(await run('kept + 2')), '3\n');
    assert.deepEqual(logOf(state.harness.home).map((e) => e.code), ['kept = 1', 'kept + 2'], 'the unlogged run is the only one missing');
  });

  test('figures into a folder that is a file: the image still comes back, marked as not saved', { timeout: 60_000 }, async () => {
    blockFolder(join(sessionDir(), 'figures'));
    const result = await run("import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()\nprint('drawn')");
    assert.equal(result.isError, undefined, text(result));
    assert.ok(result.content.some((c) => c.type === 'image'), 'the image is in the reply');
    assert.match(text(result), /\[figure not saved: EEXIST: file already exists, mkdir '[^']*figures'\]/);
    assert.deepEqual(result.facts?.figures, []);
  });

  test('long output when the spill folder is a file: the head and tail come back, without a file to point to', { timeout: 60_000 }, async () => {
    blockFolder(join(sessionDir(), 'outputs'));
    const result = await run('for i in range(3000): print(i)');
    assert.equal(result.isError, undefined);
    assert.match(text(result), /^0\n1\n/);
    assert.match(text(result), /2999\n$/);
    assert.match(text(result), /characters of output, which could not be saved \(EEXIST[^)]*\), left out …\]/, 'and it does not point to a file that is not there');
    assert.equal(result.facts?.full_output_path, undefined);
  });

  test('a session folder that is a file: start_kernel says which, and other sessions keep working', { timeout: 60_000 }, async () => {
    mkdirSync(join(state.harness.home, 'sessions'), { recursive: true });
    writeFileSync(sessionDir('blocked'), 'not a folder');
    const result = await call(state.client, 'start_kernel', { session: 'blocked' });
    assert.equal(result.isError, true);
    assert.match(text(result), new RegExp(`EEXIST: file already exists, mkdir '${sessionDir('blocked').replace(/[/.]/g, '\\$&')}'`));
    assert.equal(text(await run('40 + 2')), '42\n');
  });

  // A real full filesystem, when this machine lets us mount one (root, and a kernel that allows tmpfs).
  const tiny = () => sessionDir('tiny');
  let mounted = false;
  test('a session on a full 1 MB filesystem: replies come with warnings, nothing is half-written, and it recovers', { timeout: 120_000 }, async (t) => {
    mkdirSync(tiny(), { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', tiny()], { stdio: 'ignore' });
      mounted = true;
    } catch {
      t.skip('cannot mount a tmpfs here (needs root and a permissive kernel); the /dev/full and file-for-folder cases stand in');
      return;
    }
    try {
      assert.equal((await call(state.client, 'start_kernel', { session: 'tiny' })).isError, undefined);
      const filler = join(tiny(), 'filler');
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k'], { stdio: 'ignore' });
      } catch {
        /* dd stops with ENOSPC: the disk is full, which is the point */
      }
      const result = await run("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nfor i in range(3000): print(i)\n6 * 7", { session: 'tiny' });
      assert.equal(result.isError, undefined, text(result));
      assert.ok(result.content.some((c) => c.type === 'image'), 'the figure is in the reply');
      assert.match(text(result), /\[figure not saved: ENOSPC: no space left on device/);
      assert.match(text(result), /characters of output, which could not be saved \(ENOSPC: no space left on device, write\), left out …\]/);
      assert.equal(result.facts?.full_output_path, undefined);
      assert.match(text(result), /\n2999\n42\n\nWarning: this run is not in the session log — [^\n]*ENOSPC/, 'the value after the text printed before it, then the warning');
      // Nothing half-written: the log is absent or whole lines only.
      const log = join(tiny(), 'log.jsonl');
      if (existsSync(log)) assert.deepEqual(logOf(state.harness.home, 'tiny'), []);

      rmSync(filler);
      assert.equal(text(await run("print('room again')", { session: 'tiny' })), 'room again\n');
      assert.deepEqual(logOf(state.harness.home, 'tiny').map((e) => e.code), ["print('room again')"]);
      await call(state.client, 'shutdown_kernel', { session: 'tiny' });
    } finally {
      if (mounted) execFileSync('umount', ['-l', tiny()], { stdio: 'ignore' });
      assert.ok(!existsSync(join(tiny(), 'filler')));
    }
  });
});
