/**
 * How soon faults are noticed: the measures the tests no longer assert (a test checks that a
 * fault is noticed, and how; how fast is a figure, read here on a quiet machine).
 * `node dist/bench/fault-detection.js [python] [rounds]`.
 *
 * - a SIGSTOPped kernel, with the daemon's default heartbeat: SIGSTOP to the `died` event;
 * - a run past its timeout (1 s): how long the run took in all, and how far past the timeout;
 * - a dropped connection to a Jupyter server (when python3-jupyter-server is there): the cut to
 *   the run's error.
 */
import { type Kernel, KernelSupervisor, LocalProvisioner } from '../app/core/kernel/kernel.js';
import { RemoteServer } from '../app/core/remote/server-registry.js';
import { jupyterServerAvailable, startJupyterServer } from '../app/core/remote/testing/jupyter-server.js';
import { startTcpProxy } from '../app/core/remote/testing/tcp-proxy.js';
import { spread, timed } from './stats.js';
import { RemoteProvisioner } from '../app/core/remote/remote-provisioner.js';

const python = process.argv[2] || process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3';
const rounds = Number(process.argv[3] ?? 5);

/** Resolves once `kernel` has printed `flag` in a run started with `code` after it. */
function runPast(kernel: { execute: Kernel['execute'] }, code: string) {
  let entered!: () => void;
  const inCell = new Promise<void>((resolve) => (entered = resolve));
  const run = kernel.execute(`print('entered', flush=True)\n${code}`, { onOutput: () => entered() });
  run.catch(() => undefined);
  return { run, inCell };
}

async function heartbeat(): Promise<number[]> {
  const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: python })); // the default heartbeat, as the daemon runs it
  const values: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      await kernel.execute('1');
      const pid = kernel.pid!;
      const died = new Promise((resolve) => kernel.once('died', resolve));
      values.push(
        await timed(async () => {
          process.kill(pid, 'SIGSTOP');
          await died;
        }),
      );
    }
  } finally {
    await kernel.shutdown();
  }
  return values;
}

async function timeout(): Promise<{ total: number[]; past: number[] }> {
  const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter: python }));
  const total: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const result = await kernel.execute("print('looping', flush=True)\nwhile True: pass", { timeoutMs: 1000 });
      if (!result.timedOut) throw new Error('the run did not time out');
      total.push(result.durationMs);
    }
  } finally {
    await kernel.shutdown();
  }
  return { total, past: total.map((ms) => ms - 1000) };
}

async function droppedConnection(): Promise<number[] | string> {
  if (!jupyterServerAvailable(python)) return `skipped: ${python} has no jupyter_server`;
  const server = await startJupyterServer({ python });
  const proxy = await startTcpProxy(server.port);
  const kernel = await KernelSupervisor.start(new RemoteProvisioner(new RemoteServer('bench', proxy.url, server.token), { kind: 'start' }, { reconnectWaitMs: 3000, backoff: { initialMs: 100, maxMs: 800 } }));
  const values: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      await kernel.execute('1');
      const { run, inCell } = runPast(kernel, 'import time; time.sleep(2)');
      await inCell;
      values.push(
        await timed(async () => {
          proxy.cutAll();
          await run.then(
            () => {
              throw new Error('the run was not cut');
            },
            () => undefined,
          );
        }),
      );
      while (kernel.provisioner.connection.state !== 'connected') await new Promise((resolve) => setTimeout(resolve, 50));
      await kernel.execute('import time; time.sleep(2.5)'); // the cut run's sleep ends on the server before the next round
    }
  } finally {
    await kernel.shutdown();
    await proxy.close();
    await server.close();
  }
  return values;
}

const stopped = await heartbeat();
const timedOut = await timeout();
const dropped = await droppedConnection();
console.log(`Fault detection, ${rounds} rounds each, ${python}; median (p10–p90) in ms:`);
console.log(`  SIGSTOPped kernel noticed (default heartbeat)   ${spread(stopped, 0)}`);
console.log(`  run with a 1 s timeout, whole run              ${spread(timedOut.total, 0)}  (past the timeout: ${spread(timedOut.past, 0)})`);
console.log(`  dropped server connection to the run's error   ${typeof dropped === 'string' ? dropped : spread(dropped, 0)}`);
