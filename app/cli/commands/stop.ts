/**
 * `python-session-mcp stop` — ask the daemon of this state folder to stop (it shuts its kernels
 * down first) and wait until its process has exited.
 */
import { parseArgs } from 'node:util';
import { requestControl } from '../../core/daemon/control-client.js';
import { processAlive, readLockPid } from '../../core/daemon/instance-lock.js';
import { currentDaemonFiles } from '../../core/daemon/state-paths.js';

export const STOP_USAGE = `Usage: python-session-mcp stop [--timeout SECONDS]

Stops the Python Session daemon for this state folder ($PYTHON_MCP_HOME or the default):
its kernels are shut down, and every Python session with them.

Options:
  --timeout SECONDS   how long to wait for the daemon to exit (default 30)
  -h, --help          show this help
`;

export interface StopCommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIO: StopCommandIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

export async function stopCommand(argv: string[], io: StopCommandIO = processIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { timeout: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${STOP_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(STOP_USAGE);
    return 0;
  }
  const timeoutSeconds = values.timeout === undefined ? 30 : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    io.stderr(`--timeout takes a number of seconds, not ${JSON.stringify(values.timeout)}\n`);
    return 2;
  }

  const files = currentDaemonFiles();
  const result = await requestControl(files.socket.path, 'stop', { timeoutMs: 5000 });
  let pid: number | null;
  switch (result.kind) {
    case 'answer':
      pid = result.answer.pid;
      break;
    case 'refused':
      pid = readLockPid(files.lock);
      if (!result.retry || pid === null) {
        io.stderr(`The daemon did not accept the stop request: ${result.error}\n`);
        return 1;
      }
      break; // already stopping: wait for it like any other
    case 'silent':
      pid = readLockPid(files.lock);
      io.stderr(
        `The daemon${pid ? ` (pid ${pid})` : ''} accepted the connection but did not answer within 5 s.` +
          `${pid ? ` To end it anyway: kill ${pid}.` : ''} Its log: ${files.log}\n`,
      );
      return 1;
    case 'absent': {
      const holder = readLockPid(files.lock);
      if (holder !== null && processAlive(holder)) {
        io.stderr(`Process ${holder} holds the daemon lock of ${files.stateDir} but does not listen on ${files.socket.path}. To end it: kill ${holder}.\n`);
        return 1;
      }
      io.stdout(`No Python Session daemon is running (state folder ${files.stateDir}).\n`);
      return 0;
    }
  }

  io.stdout(`Stopping the Python Session daemon (pid ${pid})...\n`);
  if (await exitedWithin(pid, timeoutSeconds * 1000)) {
    io.stdout('Stopped.\n');
    return 0;
  }
  io.stderr(`The daemon (pid ${pid}) is still running after ${timeoutSeconds} s. Its log: ${files.log}. To end it anyway: kill ${pid}.\n`);
  return 1;
}

async function exitedWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}
