/**
 * The built-in worker through its provisioner and transport: a real worker process over its real
 * loopback socket, once per interpreter present (Debian's python3, and pyenv's 3.8, 3.11 and
 * 3.13, which lack ipykernel), skipped with the reason where one is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { describePythonError } from '../kernel/execution/error-text.js';
import { KernelStartError } from '../kernel/process/launch.js';
import type { KernelDeath } from '../kernel/supervision/provisioner.js';
import type { KernelTransport } from '../kernel/messaging/transport.js';
import { createMessage, Signer, type JupyterMessage } from '../wire/index.js';
import { findPython2s, pyenvPython, pyenvVersions, pythonVersion } from '../testing/interpreters-here.js';
import { TEST_PYTHON, isAlive, markChildProcesses } from '../testing/test-python.js';
import { nextEvent, waitFor } from '../testing/wait-for.js';
import { launchWorker } from './launch-worker.js';
import { encodeWorkerLine } from './worker-lines.js';
import { WorkerProvisioner } from './worker-provisioner.js';
import { WorkerListener, type WorkerTransport } from './worker-transport.js';

// Every worker this file starts (and what user code starts in them) carries this mark; none may outlive the file.
const startedHere = markChildProcesses('worker-test');
after(() => startedHere.allEnded(5000));

interface Interpreter {
  name: string;
  path: string | null;
  why?: string;
}

function interpreters(): Interpreter[] {
  const found: Interpreter[] = [{ name: `${TEST_PYTHON} (${pythonVersion(TEST_PYTHON) ?? 'not runnable'})`, path: pythonVersion(TEST_PYTHON) ? TEST_PYTHON : null, why: `${TEST_PYTHON} does not run` }];
  const versions = pyenvVersions();
  for (const minor of ['3.8', '3.11', '3.13']) {
    const version = versions.filter((v) => v.startsWith(`${minor}.`)).at(-1);
    found.push(version ? { name: `pyenv ${version}`, path: pyenvPython(version) } : { name: `pyenv ${minor}`, path: null, why: `no pyenv Python ${minor} here` });
  }
  return found;
}

interface Ran {
  reply: JupyterMessage;
  messages: JupyterMessage[];
  text: string;
}

/** One execute_request, collected until its reply and its idle status have both come. */
async function run(transport: KernelTransport, code: string, onMessage?: (message: JupyterMessage) => void): Promise<Ran> {
  const messages: JupyterMessage[] = [];
  let idle!: () => void;
  const idleSeen = new Promise<void>((resolve) => (idle = resolve));
  const { msgId, reply } = transport.request(
    'shell',
    'execute_request',
    { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: false },
    (id) =>
      transport.onParent(id, (message) => {
        if (message.header.msg_type === 'status') {
          if (message.content.execution_state === 'idle') idle();
          return;
        }
        messages.push(message);
        onMessage?.(message);
      }),
  );
  const [answer] = await Promise.all([reply, idleSeen]);
  transport.abandon(msgId);
  const text = messages.filter((m) => m.header.msg_type === 'stream').map((m) => String(m.content.text)).join('');
  return { reply: answer, messages, text };
}

function resultText(ran: Ran): string | undefined {
  const result = ran.messages.find((m) => m.header.msg_type === 'execute_result');
  return (result?.content.data as Record<string, string> | undefined)?.['text/plain'];
}

function errorLine(ran: Ran): string {
  const error = ran.messages.find((m) => m.header.msg_type === 'error');
  assert.ok(error, 'an error message on iopub');
  return describePythonError(error.content, ran.reply.content.execution_count as number).message;
}

for (const interpreter of interpreters()) {
  describe(`the built-in worker on ${interpreter.name}`, { skip: interpreter.path ? false : interpreter.why }, () => {
    const python = interpreter.path!;
    let provisioner: WorkerProvisioner;
    let transport: WorkerTransport;
    let deaths: KernelDeath[] = [];

    const startFresh = async () => {
      const incarnation = await provisioner.start();
      transport = incarnation.transport as WorkerTransport;
      return incarnation;
    };

    before(async () => {
      provisioner = new WorkerProvisioner({ interpreter: python, heartbeat: { intervalMs: 100, timeoutMs: 500 } });
      provisioner.on('died', (death) => deaths.push(death));
      const incarnation = await startFresh();
      assert.equal(incarnation.kernelInfo.implementation, 'python-session-worker');
      assert.equal(incarnation.kernelInfo.language_info?.version, pythonVersion(python));
    });
    after(async () => provisioner.shutdown(null, true));

    test('keeps state and shows the last expression through the value\'s own forms', async () => {
      await run(transport, 'x = 40');
      assert.equal(resultText(await run(transport, 'x + 2')), '42');
      const rich = await run(transport, "class R:\n    def _repr_html_(self): return '<b>r</b>'\n    def __repr__(self): return 'R()'\nR()");
      const data = rich.messages.find((m) => m.header.msg_type === 'execute_result')?.content.data as Record<string, string>;
      assert.deepEqual(data, { 'text/html': '<b>r</b>', 'text/plain': 'R()' });
    });

    test('an error names the line of the cell, after what was printed before it', async () => {
      const ran = await run(transport, "print('before')\nundefined_name");
      assert.equal(ran.reply.content.status, 'error');
      assert.equal(ran.text, 'before\n');
      assert.equal(errorLine(ran), "Python error: NameError on line 2: name 'undefined_name' is not defined");
      const defined = await run(transport, 'def reciprocal(v):\n    return 1 / v\n');
      const called = await run(transport, 'y = 1\nreciprocal(0)');
      assert.equal(errorLine(called), `Python error: ZeroDivisionError on line 2 of cell In[${defined.reply.content.execution_count}] (called from line 2): division by zero`);
      assert.equal(errorLine(await run(transport, 'x = 1\nx = = 2')), 'Python error: SyntaxError on line 2: invalid syntax');
    });

    test('print order holds across stdout, stderr, a thread, a child process and writes to fd 1', async () => {
      const ran = await run(
        transport,
        [
          'import os, subprocess, sys, threading',
          "print('one')",
          "sys.stderr.write('two\\n')",
          "os.write(1, b'three\\n')",
          "t = threading.Thread(target=lambda: print('four')); t.start(); t.join()",
          "subprocess.run([sys.executable, '-c', 'print(\"five\")'])",
          "print('six')",
        ].join('\n'),
      );
      const runs: [string, string][] = [];
      for (const m of ran.messages.filter((m) => m.header.msg_type === 'stream')) {
        const name = String(m.content.name);
        if (runs.at(-1)?.[0] === name) runs.at(-1)![1] += String(m.content.text);
        else runs.push([name, String(m.content.text)]);
      }
      assert.deepEqual(runs, [
        ['stdout', 'one\n'],
        ['stderr', 'two\n'],
        ['stdout', 'three\nfour\nfive\nsix\n'],
      ]);
    });

    test('stdin is closed: input() fails at once and fd 0 reads nothing', async () => {
      const ran = await run(transport, "import os\nprint(repr(os.read(0, 10)))\ninput('name? ')");
      assert.equal(ran.text, "b''\n");
      assert.equal(ran.reply.content.ename, 'EOFError');
    });

    test('an interrupt stops a busy loop and a sleep, and the variables stay', async () => {
      await run(transport, 'survives = 40');
      for (const code of ['while True: pass', 'import time; time.sleep(60)']) {
        let entered!: () => void;
        const inUserCode = new Promise<void>((resolve) => (entered = resolve));
        const ran = run(transport, `print('entered', flush=True)\n${code}`, (m) => void (m.header.msg_type === 'stream' && String(m.content.text).includes('entered') && entered()));
        await inUserCode;
        await provisioner.interrupt();
        assert.equal((await ran).reply.content.ename, 'KeyboardInterrupt', code);
      }
      assert.equal(resultText(await run(transport, 'survives')), '40');
    });

    test('a C call holding the GIL silences the heartbeat without condemning the worker', async () => {
      const pid = provisioner.pid;
      // ctypes.PyDLL keeps the GIL through the call: the reader thread cannot answer for 3 s, six
      // times the heartbeat's limit. Nothing the worker sends can say the call began (sending
      // needs the GIL too), so the test pings until a ping goes unanswered.
      const ran = run(transport, 'import ctypes\nctypes.PyDLL(None).usleep(3000000)');
      await waitFor('a ping to go unanswered while the GIL is held', async () => !(await transport.ping(300)), { timeoutMs: 2500 });
      assert.equal((await ran).reply.content.status, 'ok');
      assert.equal(provisioner.pid, pid);
      assert.deepEqual(deaths, []);
      assert.equal(await transport.ping(2000), true);
    });

    test('a crash is noticed with its exit code before the run is failed; a fresh worker follows', async () => {
      await run(transport, 'precious = 1');
      const pid = provisioner.pid!;
      const died = nextEvent<[KernelDeath]>(provisioner, 'died', 'the worker to die');
      let settledBeforeDeath = false;
      const ran = run(transport, 'import os; os._exit(3)');
      ran.then(
        () => (settledBeforeDeath = deaths.length === 0),
        () => (settledBeforeDeath = deaths.length === 0),
      );
      const [death] = await died;
      assert.match(death.what, /exited with code 3/);
      assert.equal(death.exit?.code, 3);
      await assert.rejects(ran);
      assert.equal(settledBeforeDeath, false, 'the death comes first, so the run gets its account');
      await waitFor(`the dead worker ${pid} to be gone`, () => !isAlive(pid));
      deaths = [];
      await startFresh();
      assert.equal(resultText(await run(transport, '1 + 1')), '2');
    });

    test('a SIGSTOPped worker is noticed by the heartbeat and killed', async () => {
      const pid = provisioner.pid!;
      const died = nextEvent<[KernelDeath]>(provisioner, 'died', 'the stopped worker to be declared dead');
      process.kill(pid, 'SIGSTOP');
      const [death] = await died;
      assert.match(death.what, /was stopped and silent for \d+\.\d s \(hung or stopped\) and was killed/);
      await waitFor(`the stopped worker ${pid} to be gone`, () => !isAlive(pid));
      deaths = [];
      await startFresh();
    });

    test('when our side of the connection closes, the worker ends its whole process group', async () => {
      const pid = provisioner.pid!;
      const child = Number(resultText(await run(transport, "import subprocess\nchild = subprocess.Popen(['sleep', '300'])\nchild.pid")));
      assert.ok(isAlive(child));
      const died = nextEvent<[KernelDeath]>(provisioner, 'died', 'the orphaned worker to exit');
      transport.close('test: the daemon goes');
      await died;
      await waitFor('the worker to exit by itself', () => !isAlive(pid));
      await waitFor('its child to go with it', () => !isAlive(child));
      deaths = [];
      await startFresh();
    });
  });
}

test('an interrupt sent as a message, as on Windows (no signals there), stops a sleep and keeps the variables', async () => {
  const provisioner = new WorkerProvisioner({ interpreter: TEST_PYTHON, interruptMode: 'message' });
  try {
    const transport = (await provisioner.start()).transport as WorkerTransport;
    await run(transport, 'survives = 40');
    let entered!: () => void;
    const inUserCode = new Promise<void>((resolve) => (entered = resolve));
    const ran = run(transport, "print('entered', flush=True)\nimport time; time.sleep(60)", (m) => void (m.header.msg_type === 'stream' && String(m.content.text).includes('entered') && entered()));
    await inUserCode;
    await provisioner.interrupt();
    assert.equal((await ran).reply.content.ename, 'KeyboardInterrupt');
    assert.equal(resultText(await run(transport, 'survives')), '40');
  } finally {
    await provisioner.shutdown(null, true);
  }
});

test('killing the owner ends its workers, even when the owner is SIGKILLed', async () => {
  const script = `
    import { launchWorker } from ${JSON.stringify(new URL('./launch-worker.js', import.meta.url).href)};
    const w = await launchWorker({ interpreter: ${JSON.stringify(TEST_PYTHON)} });
    console.log(w.process.pid);
    setInterval(() => {}, 1000);`;
  const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve) => owner.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
  assert.ok(isAlive(pid));
  owner.kill('SIGKILL');
  await waitFor('the orphaned worker to exit by itself', () => !isAlive(pid), { timeoutMs: 5000 });
});

test('the listener takes only a correctly signed hello, counts forgeries, and then closes', async () => {
  const key = 'cd'.repeat(32);
  const listener = await WorkerListener.open(key);
  const send = (line: Buffer) =>
    new Promise<'closed'>((resolve) => {
      const socket = connect(listener.port, '127.0.0.1', () => socket.write(line));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve('closed'));
      socket.resume();
    });
  const hello = (signer: Signer) => encodeWorkerLine('control', createMessage('worker_hello', 's', { pid: 1 }), signer);
  assert.equal(await send(hello(new Signer(Buffer.from('a guessed key')))), 'closed');
  assert.equal(await send(Buffer.from('not even a signed line\n')), 'closed');
  assert.equal(listener.badSignatures, 2);
  const socket = connect(listener.port, '127.0.0.1', () => socket.write(hello(new Signer(Buffer.from(key)))));
  const transport = await listener.connection();
  assert.equal(transport.hello.content.pid, 1);
  await assert.rejects(
    new Promise((resolve, reject) => {
      const late = connect(listener.port, '127.0.0.1', () => resolve('connected'));
      late.on('error', reject);
    }),
    /ECONNREFUSED/,
    'the listener closes once the worker is in',
  );
  transport.close();
  socket.destroy();
});

test('a Python older than 3.8 is told which versions run the worker', async (t) => {
  const old = findPython2s()[0];
  if (!old) return t.skip('no Python 2 here');
  await assert.rejects(launchWorker({ interpreter: old.path }), (error: unknown) => {
    assert.ok(error instanceof KernelStartError);
    assert.match(error.message, new RegExp(`^Unsupported Python ${old.version.replace(/\./g, '\\.')} at .*3\\.8 to 3\\.13`));
    return true;
  });
});
