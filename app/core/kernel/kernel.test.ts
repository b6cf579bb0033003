/** The engine against real ipykernel processes over real ZeroMQ. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel, KernelDiedError, KernelSupervisor, LocalProvisioner, attachedKernelOptions } from './kernel.js';
import { KernelStartError } from './process/launch.js';
import { outputText } from './execution/outputs.js';
import { TEST_PYTHON, isAlive, markChildProcesses } from '../testing/test-python.js';
import { cellGate } from '../testing/cell-gate.js';
import { waitFor } from '../testing/wait-for.js';

// Every kernel this file starts (in its own folder, the default one, by hand, or from a child
// script) carries this mark; none may outlive the file.
const startedHere = markChildProcesses('kernel-test');
after(() => startedHere.allEnded());

/** Runs `code` after printing `flag`, and resolves the run's promise once the flag has arrived: the cell is in user code. */
function runningPast(kernel: Kernel, flag: string, code: string) {
  let entered!: () => void;
  const inUserCode = new Promise<void>((resolve) => (entered = resolve));
  const run = kernel.execute(`print(${JSON.stringify(flag)}, flush=True)\n${code}`, {
    onOutput: (output) => void (output.type === 'stream' && output.text.includes(flag) && entered()),
  });
  return { run, inUserCode };
}

describe('a kernel we start', () => {
  let kernel: Kernel;
  let runtimeDir: string;
  before(async () => {
    runtimeDir = await mkdtemp(join(tmpdir(), 'ps-kernel-test-'));
    kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON, runtimeDir, heartbeat: { intervalMs: 250, timeoutMs: 1500 } }), { interruptGraceMs: 3000 });
  });
  after(async () => kernel.shutdown());

  test('keeps state across calls and shows the last expression', async () => {
    await kernel.execute('x = 40');
    const result = await kernel.execute('x + 2');
    assert.equal(result.status, 'ok');
    assert.equal(outputText(result.outputs), '42\n');
    assert.equal(result.outputs[0].type, 'execute_result');
  });

  test('output comes in print order, and keeps every MIME bundle', async () => {
    const result = await kernel.execute(
      "import sys\nprint('one')\nsys.stderr.write('two\\n'); sys.stderr.flush()\nfrom IPython.display import display, HTML\ndisplay(HTML('<b>three</b>'))\nprint('four')\n'five'",
    );
    assert.deepEqual(
      result.outputs.map((o) => o.type),
      ['stream', 'stream', 'display_data', 'stream', 'execute_result'],
    );
    const html = result.outputs[2];
    assert.ok(html.type === 'display_data' && html.data['text/html'] === '<b>three</b>');
    assert.equal(outputText(result.outputs), "one\ntwo\n<IPython.core.display.HTML object>\nfour\n'five'\n");
  });

  test('what a thread and a forked child print keeps its place among the main thread\'s prints, once', async () => {
    const threaded = await kernel.execute("import threading\nprint('a')\nt = threading.Thread(target=lambda: print('b'))\nt.start(); t.join()\nprint('c')");
    assert.equal(outputText(threaded.outputs), 'a\nb\nc\n');
    const forked = await kernel.execute(
      "import os, sys\nprint('before')\npid = os.fork()\nif pid == 0:\n    print('child'); sys.stdout.flush(); os._exit(0)\nos.waitpid(pid, 0)\nprint('after')",
    );
    assert.equal(outputText(forked.outputs), 'before\nchild\nafter\n');
  });

  test('a loop of short prints arrives whole and in order; a slow printer\'s lines arrive while it runs', async () => {
    const many = await kernel.execute("for i in range(50_000): print(i)", { limits: { maxChars: 10_000_000 } });
    assert.equal(outputText(many.outputs), Array.from({ length: 50_000 }, (_, i) => `${i}\n`).join(''));
    // Each line must arrive while the cell waits for the test to have seen it: held to the end, the cell would never go on.
    const gates = [cellGate(), cellGate()];
    const messages: string[] = [];
    const slow = await kernel.execute(`print(0)\n${gates[0].waitCode}\nprint(1)\n${gates[1].waitCode}\nprint(2)`, {
      onOutput: (output) => void (output.type === 'stream' && (messages.push(output.text), gates[messages.length - 1]?.open())),
    });
    assert.equal(slow.status, 'ok', slow.error?.message);
    assert.equal(messages.join(''), '0\n1\n2\n');
    assert.equal(messages.length, 3, `each line is sent while the cell waits, not held to the end (${JSON.stringify(messages)})`);
  });

  test('print order holds after something puts ipykernel\'s plain write back (IPython 9 does, after the cell this kernel starts with)', async () => {
    await kernel.execute('import sys\nfor s in (sys.stdout, sys.stderr): s.write = type(s).write.__get__(s)');
    const result = await kernel.execute("import sys\nprint('one')\nsys.stderr.write('two\\n')\nprint('three')");
    assert.deepEqual(
      result.outputs.map((o) => (o.type === 'stream' ? `${o.name}:${o.text}` : o.type)),
      ['stdout:one\n', 'stderr:two\n', 'stdout:three\n'],
    );
  });

  test('a progress bar redrawn with carriage returns comes back as its last state', async () => {
    const result = await kernel.execute("import sys\nfor i in range(1, 1001):\n    sys.stdout.write(f'\\r{i / 10:5.1f}%')\nprint()\nprint('done')");
    assert.equal(outputText(result.outputs), '100.0%\ndone\n');
  });

  test('what a cell prints is not kept a second time in the kernel (IPython 9\'s output history)', async () => {
    await kernel.execute("for i in range(20_000): print('x' * 99)", { limits: { maxChars: 1000 } });
    const kept = await kernel.execute(
      "hm = get_ipython().history_manager\nsum(len(s) for outs in getattr(hm, 'outputs', {}).values() for o in outs for s in getattr(o, 'bundle', {}).get('stream', []))",
    );
    assert.equal(outputText(kept.outputs), '0\n');
  });

  test('the inputs of cells more than 1000 back are let go (_i<N>); In, _i and the recent ones stay; no database queue grows', async () => {
    await kernel.execute('first_cell = 1');
    // The count jumps, as after 1000 more cells; that cell's end lets the old inputs go.
    await kernel.execute('get_ipython().execution_count = 5000');
    const kept = await kernel.execute(
      "hm = get_ipython().history_manager\nfirst = In.index('first_cell = 1')\nrecent = [k for k in list(globals()) if k[:2] == '_i' and k[2:].isdigit() and int(k[2:]) >= 5000]\n[f'_i{first}' in globals(), len(recent) == 1, _i == 'get_ipython().execution_count = 5000', len(hm.db_input_cache) <= 1, len(hm.db_output_cache)]",
    );
    assert.equal(outputText(kept.outputs), '[False, True, True, True, 0]\n');
  });

  test('errors name the line in the cell and keep what was printed before', async () => {
    const result = await kernel.execute("print('before')\nundefined_name");
    assert.equal(result.status, 'error');
    assert.equal(result.error?.message, "Python error: NameError on line 2: name 'undefined_name' is not defined");
    assert.equal(outputText(result.outputs), 'before\n');
    assert.ok(result.error!.traceback.join('\n').includes('undefined_name'));
    assert.ok(!result.error!.traceback.join('').includes('\u001b'), 'colour codes stripped');
  });

  test('an error inside a function from an earlier cell names that cell', async () => {
    const define = await kernel.execute('def reciprocal(v):\n    return 1 / v\n');
    const result = await kernel.execute('y = 1\nreciprocal(0)');
    assert.match(result.error!.message, new RegExp(`^Python error: ZeroDivisionError on line 2 of cell In\\[${define.executionCount}\\] \\(called from line 2\\): division by zero$`));
  });

  test('interrupts a busy loop and a sleep', async () => {
    await kernel.execute('survives_interrupts = 40');
    for (const code of ['while True: pass', 'import time; time.sleep(60)']) {
      const { run, inUserCode } = runningPast(kernel, 'entered', code);
      await inUserCode; // interrupt the user's code, not ipykernel on its way into the request
      const outcome = await kernel.interrupt();
      const result = await run;
      assert.equal(outcome.restarted, false);
      assert.equal(result.error?.ename, 'KeyboardInterrupt');
    }
    assert.equal(outputText((await kernel.execute('survives_interrupts')).outputs), '40\n', 'state survives an interrupt');
  });

  test('a timeout interrupts the run and returns what it printed', async () => {
    const result = await kernel.execute("print('started', flush=True)\nimport time\ntime.sleep(30)", { timeoutMs: 800 });
    assert.equal(result.timedOut, true);
    assert.equal(outputText(result.outputs), 'started\n');
  });

  test('runs queued executions one at a time, in order', async () => {
    await kernel.execute('seen = []');
    await Promise.all(Array.from({ length: 10 }, (_, i) => kernel.execute(`import time; time.sleep(0.01); seen.append(${i})`)));
    assert.equal(outputText((await kernel.execute('seen')).outputs), '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n');
  });

  test('output past the limit is kept as head and tail, all of it in the spill file', async () => {
    const spill = join(runtimeDir, 'spill.txt');
    const result = await kernel.execute("for i in range(20000): print(f'line {i}')", { limits: { maxChars: 2000, spillPath: () => spill } });
    const text = outputText(result.outputs);
    assert.ok(text.startsWith('line 0\nline 1\n'));
    assert.ok(text.trimEnd().endsWith('line 19999'));
    assert.ok(text.length < 2400, `kept ${text.length} characters`);
    assert.match(text, /characters of output left out; all of it is in/);
    const full = await readFile(spill, 'utf8');
    assert.equal(full.split('\n').length - 1, 20000);
    assert.equal(result.streamChars, full.length);
  });

  test('recovers after os._exit, SIGKILL, a segfault and exit(); says what was lost', async () => {
    const deaths: [string, RegExp][] = [
      ['import os; os._exit(3)', /exited with code 3/],
      ['import os, signal; os.kill(os.getpid(), signal.SIGKILL)', /SIGKILL/],
      ['import ctypes; ctypes.string_at(0)', /SIGSEGV \(a segmentation fault/],
    ];
    for (const [code, why] of deaths) {
      await kernel.execute('precious = 1');
      const pidBefore = kernel.pid;
      await assert.rejects(kernel.execute(code), (error: unknown) => {
        assert.ok(error instanceof KernelDiedError);
        assert.match(error.message, why);
        assert.ok(error.lostNames.includes('precious'), error.message);
        assert.match(error.message, /Lost with it: .*precious/);
        return true;
      });
      const result = await kernel.execute('1 + 1');
      assert.equal(outputText(result.outputs), '2\n');
      assert.notEqual(kernel.pid, pidBefore);
      assert.ok(!isAlive(pidBefore!));
    }
    const exited = await kernel.execute('import sys; sys.exit()');
    assert.equal(exited.status, 'error', 'IPython turns sys.exit() into SystemExit and keeps the kernel');
    assert.equal(outputText((await kernel.execute('"alive"')).outputs), "'alive'\n");
  });

  test('a SIGSTOPped kernel is noticed through the heartbeat and replaced', async () => {
    const pid = kernel.pid!;
    const died = new Promise<KernelDiedError>((resolve) => kernel.once('died', resolve));
    process.kill(pid, 'SIGSTOP');
    // No call is in flight and the process does not exit by itself: only the heartbeat can notice.
    // (How fast it notices is measured in bench/fault-detection.ts.)
    const error = await died;
    assert.match(error.message, /stopped answering its heartbeat for \d+\.\d s \(hung or stopped\) and was killed/);
    assert.equal(outputText((await kernel.execute('3 * 3')).outputs), '9\n');
    await waitFor(`the stopped kernel ${pid} to be gone`, () => !isAlive(pid));
  });

  test('the connection file is owner-only while it runs and removed after', async () => {
    const file = kernel.connectionFile!;
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal((await stat(runtimeDir)).mode & 0o077, 0);
    const info = JSON.parse(await readFile(file, 'utf8'));
    assert.equal(info.ip, '127.0.0.1');
    assert.equal(info.key.length, 64);
  });
});

test('two kernels started at once get different ports and keys', async () => {
  const starts = await Promise.allSettled([KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON })), KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON }))]);
  const started = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  // One that failed must not leave the other running (its sockets would keep this file from ending).
  if (started.length < 2) {
    await Promise.all(started.map((k) => k.shutdown()));
    throw (starts.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason;
  }
  const [a, b] = started;
  try {
    const portsA = Object.values(a.provisioner.connection!).filter((v) => typeof v === 'number');
    const portsB = Object.values(b.provisioner.connection!).filter((v) => typeof v === 'number');
    assert.equal(new Set([...portsA, ...portsB]).size, 10);
    assert.notEqual(a.provisioner.connection!.key, b.provisioner.connection!.key);
    await a.execute('v = "a"');
    await b.execute('v = "b"');
    assert.equal(outputText((await a.execute('v')).outputs), "'a'\n");
  } finally {
    await Promise.all([a.shutdown(), b.shutdown()]);
  }
});

test('shutdown leaves no process and removes the connection file', async () => {
  const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON }));
  await kernel.execute("import subprocess; child = subprocess.Popen(['sleep', '300'])");
  const childPid = Number(outputText((await kernel.execute('child.pid')).outputs));
  const pid = kernel.pid!;
  const file = kernel.connectionFile!;
  await kernel.shutdown();
  assert.equal(isAlive(pid), false);
  await waitFor('children of user code to go with the group', () => !isAlive(childPid));
  await assert.rejects(stat(file));
  await assert.rejects(kernel.execute('1'), /shut down/);
});

test('killing the owner ends its kernels (lifeline), even when the owner is SIGKILLed', async () => {
  const script = `
    import { KernelSupervisor, LocalProvisioner } from ${JSON.stringify(new URL('./kernel.js', import.meta.url).href)};
    const k = await KernelSupervisor.start(new LocalProvisioner({ interpreter: ${JSON.stringify(TEST_PYTHON)} }));
    console.log(k.pid);
    setInterval(() => {}, 1000);`;
  const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve) => owner.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  assert.ok(isAlive(pid));
  owner.kill('SIGKILL');
  await waitFor('the orphaned kernel to exit by itself', () => !isAlive(pid), { timeoutMs: 5000 });
});

test('os.write to fd 1, print and input() in user code never reach our stdout or block', async () => {
  // Run the engine in a child whose stdout we own: nothing but our own line may appear there.
  const script = `
    import { KernelSupervisor, LocalProvisioner, outputText } from ${JSON.stringify(new URL('./index.js', import.meta.url).href)};
    const k = await KernelSupervisor.start(new LocalProvisioner({ interpreter: ${JSON.stringify(TEST_PYTHON)} }));
    const r = await k.execute("import os, sys\\nos.write(1, b'raw fd write\\\\n')\\nos.write(2, b'raw fd2\\\\n')\\nprint('printed')\\ninput('name? ')");
    await k.shutdown();
    process.stderr.write(JSON.stringify({ ename: r.error?.ename, text: outputText(r.outputs) }) + '\\n');
    console.log('ONLY THIS');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stdout, 'ONLY THIS\n');
  const report = JSON.parse(stderr.trim().split('\n').at(-1)!);
  assert.equal(report.ename, 'StdinNotImplementedError', 'input() fails at once instead of blocking');
  assert.match(report.text, /printed/);
});

test('a Python without ipykernel gets a clear start error', async () => {
  const bare = process.env.PYTHON_SESSION_TEST_BARE_PYTHON;
  const interpreter = bare || join(tmpdir(), 'no-such-python');
  await assert.rejects(KernelSupervisor.start(new LocalProvisioner({ interpreter })), (error: unknown) => {
    assert.ok(error instanceof KernelStartError);
    assert.ok(error.message.includes(interpreter));
    return true;
  });
});

test('connects to a kernel started by hand, and leaves it running on disconnect', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ps-hand-'));
  const file = join(dir, 'kernel-hand.json');
  const hand = spawn(TEST_PYTHON, ['-m', 'ipykernel_launcher', '-f', file], { stdio: 'ignore', detached: true });
  try {
    await waitFor('the hand-started kernel to write its connection file', async () => (await stat(file).catch(() => null)) !== null, { timeoutMs: 20_000 });
    const attached = attachedKernelOptions({ startTimeoutMs: 20_000 });
    const kernel = await KernelSupervisor.start(new LocalProvisioner(attached, file), attached);
    assert.equal(kernel.owned, false);
    await kernel.execute('shared = 7');
    assert.equal(outputText((await kernel.execute('shared * 6')).outputs), '42\n');
    const { run, inUserCode } = runningPast(kernel, 'sleeping', 'import time; time.sleep(30)');
    await inUserCode;
    await kernel.interrupt(); // by interrupt_request on control: we have no process to signal
    assert.equal((await run).error?.ename, 'KeyboardInterrupt');
    await kernel.shutdown();
    assert.ok(isAlive(hand.pid!), 'disconnecting does not kill a kernel we did not start');
    const again = await KernelSupervisor.start(new LocalProvisioner(attachedKernelOptions(), file), attachedKernelOptions());
    assert.equal(outputText((await again.execute('shared')).outputs), '7\n');
    await again.shutdown();
  } finally {
    process.kill(-hand.pid!, 'SIGKILL');
  }
});
