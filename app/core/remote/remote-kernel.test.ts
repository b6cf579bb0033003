/**
 * RemoteKernel against a real Jupyter Server on loopback (Debian's python3-jupyter-server),
 * reached through a TCP relay the tests can cut: runs, figures, errors, interrupts, timeouts,
 * restarts, the helpers sent as source, attaching and detaching, a refused token, a dropped
 * connection, and the server restarted mid-session.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KernelDiedError, KernelSupervisor } from '../kernel/kernel.js';
import { outputText } from '../kernel/execution/outputs.js';
import { cellGate } from '../testing/cell-gate.js';
import { waitFor, withDeadline } from '../testing/wait-for.js';
import { callHelper } from '../sessions/helper-bridge.js';
import { JupyterApi, RemoteServerError } from './jupyter-api.js';
import { RemoteConnectionLostError, RemoteKernel, type RemoteKernelOptions } from './remote-kernel.js';
import { RemoteServer } from './server-registry.js';
import { jupyterServerAvailable, startJupyterServer, type TestJupyterServer } from './testing/jupyter-server.js';
import { startTcpProxy, type TcpProxy } from './testing/tcp-proxy.js';
import { RemoteProvisioner } from './remote-provisioner.js';
import { KernelChannel } from './kernel-channel.js';
import { placeLabel } from '../kernel/supervision/provisioner.js';

// Skipped on a developer machine without the server; in CI (CI=true) a missing server fails the run instead.
const skip = jupyterServerAvailable() || process.env.CI ? false : 'needs python3-jupyter-server (apt-get install python3-jupyter-server)';

// A remote call that never settles must fail its test, not hang the file (and the suite) forever.
const BOUNDED = { timeout: 60_000 };

const FAST: RemoteKernelOptions = {
  interruptGraceMs: 3000,
  reconnectWaitMs: 3000,
  backoff: { initialMs: 100, maxMs: 800 },
  pingIntervalMs: 1000,
  pingTimeoutMs: 2000,
  startTimeoutMs: 60_000,
  // Beyond BOUNDED: an interrupt from elsewhere must be settled by the kernel's answers, not by this bound.
  endedThereWaitMs: 120_000,
};

describe('a kernel on a Jupyter server', { skip }, () => {
  let server: TestJupyterServer;
  let proxy: TcpProxy;
  let remote: RemoteServer;
  let api: JupyterApi;
  let kernel: RemoteKernel;
  const codeSent: string[] = [];

  before(async () => {
    server = await startJupyterServer();
    proxy = await startTcpProxy(server.port);
    remote = new RemoteServer('lab', proxy.url, server.token);
    api = new JupyterApi(new RemoteServer('direct', server.url, server.token));
    kernel = await KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'start' }, FAST), FAST);
    const execute = kernel.execute.bind(kernel);
    kernel.execute = (code, options) => (codeSent.push(code), execute(code, options));
  });

  after(async () => {
    let left: unknown[] = [];
    let stuck: Error | null = null;
    try {
      // Bounded: a kernel wedged by a failed test must not keep the file from ending.
      await withDeadline(kernel?.shutdown() ?? Promise.resolve(), 'the kernel to shut down', 20_000).catch((error: Error) => (stuck = error));
      left = await api.kernels().catch(() => []); // a test that failed midway may have left the server stopped
    } finally {
      await proxy?.close(); // its connections go, and with them the kernel's WebSocket
      await server?.close();
    }
    if (stuck) throw stuck;
    assert.deepEqual(left, [], 'shutdown ends the kernel on the server');
  });

  test('says where it runs, and that it is ours', BOUNDED, () => {
    assert.equal(placeLabel(kernel.place), `lab (${proxy.url})`);
    assert.equal(kernel.helperTransport, 'inline-source');
    assert.equal(kernel.pid, undefined);
    assert.equal(kernel.owned, true);
    assert.equal(kernel.state, 'idle');
    assert.equal(kernel.provisioner.kernelName, 'python3');
    assert.equal(kernel.connectionFile, `lab:${kernel.provisioner.kernelId}`);
    assert.match(String(kernel.kernelInfo?.language_info?.version), /^3\./);
  });

  test('REPL display, print order and state across calls', BOUNDED, async () => {
    await kernel.execute('x = 40');
    const result = await kernel.execute("import sys\nprint('a')\nprint('b', file=sys.stderr)\nx + 2");
    assert.equal(result.status, 'ok');
    assert.equal(outputText(result.outputs), 'a\nb\n42\n');
    assert.equal(result.outputs.at(-1)?.type, 'execute_result');
    assert.ok(kernel.knownNames.includes('x'));
  });

  test('errors name the line, after what was printed', BOUNDED, async () => {
    const result = await kernel.execute("print('before')\nundefined_name");
    assert.equal(result.error?.message, "Python error: NameError on line 2: name 'undefined_name' is not defined");
    assert.equal(outputText(result.outputs), 'before\n');
  });

  test('figures come back as PNG display data', BOUNDED, async () => {
    const result = await kernel.execute('import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()');
    const figure = result.outputs.find((o) => o.type === 'display_data');
    assert.ok(figure && figure.type === 'display_data' && typeof figure.data['image/png'] === 'string');
    assert.equal(Buffer.from(figure.data['image/png'] as string, 'base64').subarray(1, 4).toString(), 'PNG');
  });

  test('output is streamed to the caller while the run goes on', BOUNDED, async () => {
    // The cell goes on only once the test has seen its first line: held to the end, it never would.
    const gate = cellGate();
    const seen: string[] = [];
    const result = await kernel.execute(`print('tick', flush=True)\n${gate.waitCode}\nprint('tock')`, {
      onOutput: (o) => void (o.type === 'stream' && (seen.push(o.text), gate.open())),
    });
    assert.equal(result.status, 'ok', result.error?.message);
    assert.equal(seen.join(''), 'tick\ntock\n');
  });

  test('interrupt stops a sleep and keeps the variables', BOUNDED, async () => {
    await kernel.execute('kept_through_interrupt = 40');
    let sleeping!: () => void;
    const asleep = new Promise<void>((resolve) => (sleeping = resolve));
    const running = kernel.execute("import time\nprint('sleeping', flush=True)\ntime.sleep(60)", { onOutput: () => sleeping() });
    await asleep; // interrupt the sleep itself, not a request still on its way
    const { restarted } = await kernel.interrupt();
    const result = await running;
    assert.equal(restarted, false);
    assert.equal(result.interrupted, true);
    assert.equal(result.error?.ename, 'KeyboardInterrupt');
    assert.equal(outputText((await kernel.execute('kept_through_interrupt')).outputs), '40\n');
  });

  test('an interrupt sent through the server by someone else (JupyterLab): the run is told KeyboardInterrupt once the kernel answers on control, and goes on', BOUNDED, async () => {
    await kernel.execute('kept_through_their_interrupt = 41');
    let sleeping!: () => void;
    const asleep = new Promise<void>((resolve) => (sleeping = resolve));
    const running = kernel.execute("import time\nprint('sleeping', flush=True)\ntime.sleep(60)", { onOutput: () => sleeping() });
    await asleep;
    await api.interrupt(kernel.provisioner.kernelId);
    const result = await running;
    assert.notEqual(result.interrupted, true, 'not asked for here');
    assert.equal(result.error?.ename, 'KeyboardInterrupt');
    assert.equal(kernel.provisioner.connection.state, 'connected');
    assert.equal(outputText((await kernel.execute('kept_through_their_interrupt')).outputs), '41\n');
  });

  test('a timeout interrupts the run', BOUNDED, async () => {
    const result = await kernel.execute('import time; time.sleep(60)', { timeoutMs: 800 });
    assert.equal(result.timedOut, true);
    assert.equal(result.error?.ename, 'KeyboardInterrupt', 'the interrupt, not the end of the sleep, ended the run');
    assert.notEqual(result.restarted, true, 'an interrupt was enough');
  });

  test('the helpers arrive as source once per kernel process, and run with the remote packages', BOUNDED, async () => {
    await kernel.restart(); // a kernel process no helper call has reached yet
    await kernel.execute('x = 40');
    codeSent.length = 0;
    const first = await callHelper<{ value: unknown }>(kernel, 'value', { expression: 'x * 2' });
    assert.equal(first.structured?.value, 80);
    const names = await callHelper(kernel, 'list_names', {});
    assert.match(names.text, /\bx\b/);
    assert.equal(codeSent.filter((c) => c.includes('PythonSessionImporter')).length, 1, 'sources sent once');
    assert.ok(codeSent[1].length < 2000, 'later calls are short');
    const leaked = await kernel.execute("sorted(n for n in ('z', 't', 'a', 'm', 'PythonSessionImporter', 'modules') if n in globals())");
    assert.equal(outputText(leaked.outputs), '[]\n', 'nothing bound in the user namespace');
  });

  test('a restart by someone else is told, with what was lost, and the helpers go to the new process with their source', BOUNDED, async () => {
    await callHelper(kernel, 'value', { expression: '1' }); // the helpers are loaded in this process
    await kernel.execute('made_before_the_restart = 1');
    const died = new Promise<KernelDiedError>((resolve) => kernel.once('died', resolve));
    await api.restart(kernel.provisioner.kernelId); // behind the session's back
    const told = await died;
    assert.match(told.message, /^The kernel on lab \(http:\/\/127\.0\.0\.1:\d+\/\) was restarted from the server's side \(in JupyterLab, or through the server's API\): every variable is gone\./);
    assert.ok(told.lostNames.includes('made_before_the_restart'), told.message);
    // The server's output relay for this session reconnects to the new process on its own; until
    // it has, a run's output can be lost. A run whose output comes back proves it has.
    await waitFor(
      "this session's connection to carry the restarted kernel's output",
      async () => outputText((await kernel.execute("print('relayed')").catch(() => null))?.outputs ?? []) === 'relayed\n',
      { timeoutMs: 30_000 },
    );
    codeSent.length = 0;
    const again = await callHelper<{ value: unknown }>(kernel, 'value', { expression: '1 + 1' });
    assert.equal(again.structured?.value, 2);
    assert.equal(codeSent.length, 1, 'the restart was told, so the first call carries the sources');
    assert.ok(codeSent[0].includes('PythonSessionImporter'));
  });

  test('helpers gone from a process nobody saw restart answer "missing", and the call is repeated with their source', BOUNDED, async () => {
    await callHelper(kernel, 'value', { expression: '1' });
    // As in a process restarted unseen: the helper modules are not there.
    await kernel.execute("import sys\nfor _m in [m for m in sys.modules if m == 'python_session' or m.startswith('python_session.')]:\n    del sys.modules[_m]\ndel _m");
    codeSent.length = 0;
    const again = await callHelper<{ value: unknown }>(kernel, 'value', { expression: '1 + 1' });
    assert.equal(again.structured?.value, 2);
    assert.equal(codeSent.length, 2, 'a short call answered "missing", then one with the sources');
    assert.ok(!codeSent[0].includes('PythonSessionImporter') && codeSent[1].includes('PythonSessionImporter'));
  });

  test('restart loses the variables, says which, and the kernel goes on', BOUNDED, async () => {
    await kernel.execute('keep_me = 1');
    const before = kernel.startedAt;
    const restarts = kernel.restartCount;
    const { lostNames } = await kernel.restart();
    assert.ok(lostNames.includes('keep_me'));
    assert.equal(kernel.restartCount, restarts + 1);
    assert.notEqual(kernel.startedAt, before);
    assert.equal((await kernel.execute('keep_me')).error?.ename, 'NameError');
    codeSent.length = 0;
    await callHelper(kernel, 'list_names', {});
    assert.ok(codeSent[0].includes('PythonSessionImporter'), 'a new process gets the sources again');
  });

  test('code that ignores the interrupt is stopped by a restart', BOUNDED, async () => {
    const result = await kernel.execute('import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)', { timeoutMs: 500 });
    assert.equal(result.timedOut, true);
    assert.equal(result.restarted, true);
    assert.equal(outputText((await kernel.execute('1 + 1')).outputs), '2\n');
  });

  test('a kernel process that dies on the server is reported like a local crash', BOUNDED, async () => {
    await kernel.execute('doomed = 1');
    const died = new Promise<KernelDiedError>((resolve) => kernel.once('died', resolve));
    const restartedEvent = new Promise<{ lostNames: string[] }>((resolve) => kernel.once('restarted', resolve));
    await assert.rejects(kernel.execute('import os; os._exit(1)'), (error: Error) => {
      assert.ok(error instanceof KernelDiedError);
      assert.match(error.message, /died \(its process exited\) and the server restarted it/);
      assert.match(error.message, /Lost with it: .*doomed/);
      return true;
    });
    assert.ok((await died).restarted);
    assert.ok((await restartedEvent).lostNames.includes('doomed'));
    assert.equal(outputText((await kernel.execute('2 + 2')).outputs), '4\n');
  });

  test('a dropped connection fails the run in flight at once, then comes back with the variables', BOUNDED, async () => {
    await kernel.execute('survivor = 7');
    const gate = cellGate();
    let entered!: () => void;
    const inCell = new Promise<void>((resolve) => (entered = resolve));
    const running = kernel.execute(`print('running', flush=True)\n${gate.waitCode}\n${gate.passedCode}`, { onOutput: () => entered() });
    await inCell;
    assert.ok(proxy.cutAll() > 0);
    await assert.rejects(running, (error: Error) => {
      assert.ok(error instanceof RemoteConnectionLostError);
      assert.match(error.message, /The connection to the Jupyter server lab .* dropped while this ran .*The code may still be running there, and the kernel keeps its variables/s);
      return true;
    });
    assert.equal(gate.passed(), false, 'no hang: the run failed while its code was still waiting at the gate');
    gate.open();
    await waitFor('the session to reconnect', () => kernel.provisioner.connection.state === 'connected');
    assert.equal(outputText((await kernel.execute('survivor')).outputs), '7\n');
    assert.equal(gate.passed(), true, 'the code went on running on the server');
  });

  test('while the network is down, a call waits a little, then says why nothing ran', BOUNDED, async () => {
    await kernel.execute('outlasts_the_outage = 7');
    proxy.pause(true);
    proxy.cutAll();
    await waitFor('the session to notice the outage', () => kernel.provisioner.connection.state === 'reconnecting');
    await assert.rejects(kernel.execute('1'), /Nothing was run: the connection to the Jupyter server lab .* has been down since .* Python Session keeps reconnecting/);
    proxy.pause(false);
    await waitFor('the session to reconnect', () => kernel.provisioner.connection.state === 'connected');
    assert.equal(outputText((await kernel.execute('outlasts_the_outage')).outputs), '7\n');
  });

  test('a kernel another client shut down, which the server then started again, is told like a restart there', BOUNDED, async () => {
    await kernel.execute('ended_by_another = 1');
    const died = new Promise<KernelDiedError>((resolve) => kernel.once('died', resolve));
    const restarted = new Promise<{ lostNames: string[] }>((resolve) => kernel.once('restarted', resolve));
    // Another client asks the kernel itself to end (not through the server's API): the server's restarter starts it again.
    const other = await KernelChannel.open(api, kernel.provisioner.kernelId, randomUUID());
    try {
      await other.request('control', 'shutdown_request', { restart: false }).reply;
    } finally {
      other.close();
    }
    const death = await died;
    assert.match(death.message, /was shut down from the server's side and the server started it again: every variable is gone\.\nLost with it: .*ended_by_another/);
    assert.ok((await restarted).lostNames.includes('ended_by_another'));
    assert.equal((await kernel.execute('ended_by_another')).error?.ename, 'NameError');
    assert.equal(outputText((await kernel.execute('6 * 7')).outputs), '42\n');
  });

  test('the server restarted mid-session: the run fails clearly, and a fresh kernel replaces the lost one', BOUNDED, async () => {
    await kernel.execute('lost_in_restart = 1');
    const oldId = kernel.provisioner.kernelId;
    const died = new Promise<KernelDiedError>((resolve) => kernel.once('died', resolve));
    const replaced = new Promise<{ lostNames: string[] }>((resolve) => kernel.once('restarted', resolve));
    let entered!: () => void;
    const inCell = new Promise<void>((resolve) => (entered = resolve));
    const running = kernel.execute("import time\nprint('running', flush=True)\ntime.sleep(30)", { onOutput: () => entered() });
    await inCell;
    const stopping = server.stop();
    // Jupyter Server shuts its kernels down as it stops (interrupting them first): that is what the run hears.
    await assert.rejects(running, /was shut down from the server's side while this ran \(the server is stopping.*\nLost with it: .*lost_in_restart/);
    // At once, before the server has closed the WebSocket: the connection counts as down, so the
    // next call is not sent into a closing socket ("WebSocket is not open: readyState 2 (CLOSING)").
    assert.equal(kernel.provisioner.connection.state, 'reconnecting');
    await assert.rejects(kernel.execute('1'), /Nothing was run: the connection to the Jupyter server lab .* has been down since .* \(the kernel was shut down from the server's side\)/);
    await stopping;
    await server.start();
    const death = await died;
    assert.match(death.message, /is gone: the server no longer has kernel/);
    assert.ok(death.lostNames.includes('lost_in_restart'));
    assert.ok((await replaced).lostNames.includes('lost_in_restart'));
    assert.notEqual(kernel.provisioner.kernelId, oldId);
    assert.equal(kernel.state, 'idle');
    assert.equal(outputText((await kernel.execute('3 * 3')).outputs), '9\n');
    assert.equal((await kernel.execute('lost_in_restart')).error?.ename, 'NameError');
  });
});

describe('attaching to a kernel already on the server', { skip }, () => {
  let server: TestJupyterServer;
  let remote: RemoteServer;
  let api: JupyterApi;
  before(async () => {
    server = await startJupyterServer();
    remote = new RemoteServer('lab', server.url, server.token);
    api = new JupyterApi(remote);
  });
  after(async () => {
    await server?.close();
  });

  test('attach by id, share its namespace, detach without killing it', BOUNDED, async () => {
    const model = await api.startKernel();
    const first = await KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'attach', kernelId: model.id }, FAST), FAST);
    assert.equal(first.owned, false);
    await first.execute('shared = 5');
    await assert.rejects(first.restart(), /started elsewhere .*restart it there/);
    await first.shutdown();
    assert.ok((await api.kernels()).some((k) => k.id === model.id), 'still running after detaching');
    const second = await KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'attach', kernelId: model.id }, FAST), FAST);
    assert.equal(outputText((await second.execute('shared')).outputs), '5\n');
    await second.shutdown();
    await api.shutdown(model.id);
  });

  test('an unknown id lists the kernels that are there', BOUNDED, async () => {
    const model = await api.startKernel();
    await assert.rejects(KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'attach', kernelId: 'no-such-kernel' }, FAST), FAST), (error: Error) => {
      assert.ok(error instanceof RemoteServerError && error.kind === 'not-found');
      assert.match(error.message, new RegExp(`No kernel with id "no-such-kernel" on lab .*Running there: ${model.id} \\(python3`));
      return true;
    });
    await api.shutdown(model.id);
  });

  test('a wrong or missing token is refused with a message that says so, and never shows the token', BOUNDED, async () => {
    const wrong = 'wrong-token-1234567890';
    for (const bad of [new RemoteServer('lab', server.url, wrong), new RemoteServer('lab', server.url, undefined)]) {
      await assert.rejects(KernelSupervisor.start(new RemoteProvisioner(bad, { kind: 'start' }, FAST), FAST), (error: Error) => {
        assert.ok(error instanceof RemoteServerError && error.kind === 'auth', error.message);
        assert.match(error.message, bad.hasToken ? /refused the token \(HTTP 403\)/ : /it needs a token/);
        assert.match(error.message, /python-session-mcp servers add lab/);
        assert.ok(!error.message.includes(wrong) && !error.message.includes(server.token));
        return true;
      });
    }
    assert.deepEqual(await api.kernels(), [], 'nothing was started');
  });

  test('an unknown kernelspec lists the ones the server has', BOUNDED, async () => {
    await assert.rejects(KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'start', kernelName: 'julia-1.9' }, FAST), FAST), /has no kernelspec "julia-1.9"\. It has: python3 \(Python 3/);
  });

  test('a kernelspec for another language is refused before anything starts', BOUNDED, async () => {
    const dir = join(server.dir, 'data', 'kernels', 'fake-r');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'kernel.json'), JSON.stringify({ argv: ['R', '--slave', '-f', '{connection_file}'], display_name: 'R', language: 'R' }));
    await assert.rejects(KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'start', kernelName: 'fake-r' }, FAST), FAST), (error: Error) => {
      assert.ok(error instanceof RemoteServerError && error.kind === 'unsupported');
      assert.match(error.message, /Kernelspec "fake-r" on lab .* runs R, not Python; .*It has: fake-r \(R, R\), python3 \(Python 3/);
      return true;
    });
    assert.deepEqual(await api.kernels(), []);
  });

  test('a server that is down is named as such', BOUNDED, async () => {
    const { freePort } = await import('./testing/jupyter-server.js');
    const nowhere = new RemoteServer('gone', `http://127.0.0.1:${await freePort()}/`, 'x');
    await assert.rejects(KernelSupervisor.start(new RemoteProvisioner(nowhere, { kind: 'start' }, FAST), FAST), /Cannot reach the Jupyter server gone .*connection refused/);
  });
});
