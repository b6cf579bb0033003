/**
 * A real Jupyter Server for tests (Debian's python3-jupyter-server): loopback only, a random
 * token, a free port, and HOME, runtime, config and data folders in a temp dir so nothing of the
 * machine's own Jupyter setup leaks in. It can be stopped and started again on the same port
 * (a server restart mid-session), and `close` leaves no process behind: the server and every
 * kernel it started (they carry its mark in their environment) are killed if they linger.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_MARK_VARIABLE, TEST_PYTHON, isAlive, processesMatching, processesWithEnv } from '../../testing/test-python.js';
import { waitFor } from '../../testing/wait-for.js';

/** Set in the environment of the server and so of every kernel it starts: how `close` finds them all. */
const SERVER_MARK_VARIABLE = 'PYTHON_SESSION_TEST_JUPYTER_SERVER';

export interface TestJupyterServer {
  url: string;
  token: string;
  port: number;
  dir: string;
  /** Stops the server (it shuts its kernels down first, as on Ctrl-C). */
  stop(): Promise<void>;
  /** Starts it again on the same port and token; it knows none of the old kernels. */
  start(): Promise<void>;
  /** Stops everything and removes the temp dir; throws if processes had to be killed. */
  close(): Promise<void>;
  log(): Promise<string>;
}

/**
 * `python -m jupyter_server`, except that on Linux the server is told to stop (SIGTERM, on which
 * it shuts its kernels down) when the test process dies, however it dies: a crashed or killed
 * test run leaves no server behind.
 */
const RUN_WITH_PARENT = [
  'import runpy, signal, sys',
  'try:',
  '    import ctypes',
  "    ctypes.CDLL('libc.so.6', use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG",
  'except Exception:',
  '    pass',
  "sys.argv = ['jupyter_server'] + sys.argv[1:]",
  "runpy.run_module('jupyter_server', run_name='__main__', alter_sys=True)",
].join('\n');

export function jupyterServerAvailable(python = TEST_PYTHON): boolean {
  return spawnSync(python, ['-c', 'import jupyter_server'], { stdio: 'ignore' }).status === 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startJupyterServer(options: { python?: string; token?: string } = {}): Promise<TestJupyterServer> {
  const python = options.python ?? TEST_PYTHON;
  const token = options.token ?? randomBytes(24).toString('hex');
  const dir = await mkdtemp(join(tmpdir(), 'ps-jupyter-server-'));
  const root = join(dir, 'root');
  await mkdir(root);
  await mkdir(join(root, 'work'));
  const logFile = join(dir, 'server.log');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: dir,
    JUPYTER_RUNTIME_DIR: join(dir, 'runtime'),
    JUPYTER_CONFIG_DIR: join(dir, 'config'),
    JUPYTER_DATA_DIR: join(dir, 'data'),
    IPYTHONDIR: join(dir, 'ipython'),
    MPLCONFIGDIR: join(dir, 'mpl'),
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
    [SERVER_MARK_VARIABLE]: dir,
    // The test file's own mark, when it has one, so its leak check sees these processes too.
    ...(process.env[TEST_MARK_VARIABLE] ? { [TEST_MARK_VARIABLE]: process.env[TEST_MARK_VARIABLE] } : {}),
  };
  const leftBehind = () => [...new Set([...processesWithEnv(SERVER_MARK_VARIABLE, dir), ...processesMatching(dir)])];
  let port = 0;
  let child: ChildProcess | null = null;

  const launch = async (): Promise<boolean> => {
    const args = [
      '-c', RUN_WITH_PARENT,
      `--ServerApp.token=${token}`,
      '--ServerApp.ip=127.0.0.1',
      `--ServerApp.port=${port}`,
      '--ServerApp.port_retries=0',
      '--ServerApp.open_browser=False',
      '--ServerApp.allow_root=True', // CI runs as root
      `--ServerApp.root_dir=${root}`,
      '--no-browser',
    ];
    const log = createWriteStream(logFile, { flags: 'a' });
    const proc = spawn(python, args, { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.pipe(log);
    proc.stderr!.pipe(log);
    child = proc;
    let hasExited = false;
    const exited = new Promise<void>((resolve) =>
      proc.once('exit', () => {
        hasExited = true;
        resolve();
      }),
    );
    // Not up (it exited, e.g. the port was taken meanwhile, or it never answered): the caller tries another port.
    const up =
      (await waitFor('the Jupyter server to answer or exit', async () => (hasExited ? 'exited' : (await statusCode(port, token)) === 200 ? 'up' : null), {
        timeoutMs: 30_000,
        stepMs: 100,
      }).catch(() => 'silent')) === 'up';
    if (!up) {
      proc.kill('SIGKILL');
      await exited;
      child = null;
    }
    return up;
  };

  const server: TestJupyterServer = {
    token,
    dir,
    get port() {
      return port;
    },
    get url() {
      return `http://127.0.0.1:${port}/`;
    },
    async start() {
      if (child) return;
      if (!(await launch())) throw new Error(`The Jupyter server did not come back on port ${port}:\n${await server.log()}`);
    },
    async stop() {
      const proc = child;
      if (!proc) return;
      child = null;
      const exited = new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once('exit', () => resolve())));
      // SIGTERM: Jupyter Server shuts its kernels down, then exits.
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    async close() {
      await server.stop();
      // Its kernels go with it; anything of this server still running is a leak.
      const lingering = await waitFor("the server's kernels to end with it", () => leftBehind().length === 0, { timeoutMs: 10_000 }).then(
        () => null,
        (error: Error) => error,
      );
      const left = leftBehind();
      for (const pid of left) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      if (lingering) throw new Error(`Processes were left behind by the Jupyter server and had to be killed (${lingering.message}): ${left.join(', ')}`);
    },
    log: () => readFile(logFile, 'utf8').catch(() => ''),
  };

  // A free port can be taken between finding and binding it: try a few.
  for (let attempt = 0; attempt < 4; attempt++) {
    port = await freePort();
    if (await launch()) return server;
  }
  const log = await server.log();
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  throw new Error(`Could not start a Jupyter server with ${python}:\n${log.slice(-3000)}`);
}

async function statusCode(port: number, token: string): Promise<number> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/status`, { headers: { Authorization: `token ${token}` }, signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
