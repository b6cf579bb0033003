/**
 * The body of `python-session-mcp serve`: start the daemon for this state folder, say where it
 * listens (in the foreground), and run until it is stopped. Shared by the real command and by
 * the test entry, which differ only in the services they pass.
 */
import type { DaemonLog } from './daemon-log.js';
import { startDaemon, type DaemonServicesLike, type McpServerFactory, type RunningDaemon } from './daemon.js';
import { resolveStateDir } from './state-paths.js';

export interface ServeDaemonOptions<S extends DaemonServicesLike> {
  /** Started by a shim: nothing on stdout, the log only in daemon.log. */
  background: boolean;
  /** Defaults to the folder the environment names. */
  stateDir?: string;
  /** Given the daemon's log, for the engine to write its events to. */
  services: (context: { log: DaemonLog }) => Promise<S>;
  createMcpServer: McpServerFactory<S>;
  extraInfo?: Record<string, unknown>;
  /** Called once the daemon is up, e.g. to start the panel and `updateInfo` its URL. */
  onStarted?: (daemon: RunningDaemon<S>) => void | Promise<void>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

export async function serveDaemon<S extends DaemonServicesLike>(options: ServeDaemonOptions<S>): Promise<number> {
  const stdout = options.stdout ?? ((text) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text) => void process.stderr.write(text));
  // Backgrounded, stdout is the log file (or a client's pipe): the daemon must not write to it.
  const say = options.background ? () => {} : stdout;
  const stateDir = options.stateDir ?? resolveStateDir();

  let outcome;
  try {
    outcome = await startDaemon({
      stateDir,
      services: options.services,
      createMcpServer: options.createMcpServer,
      extraInfo: options.extraInfo,
      logToStderr: !options.background,
      handleProcessEvents: true,
    });
  } catch (error) {
    stderr(`python-session-mcp serve: ${(error as Error).message ?? error}\n`);
    return 1;
  }

  if (outcome.status === 'already-running') {
    const state = outcome.answering ? 'is already running' : 'already holds this state folder (it is not answering right now)';
    say(`A Python Session daemon ${state}: pid ${outcome.pid}, socket ${outcome.socket}, state folder ${stateDir}.\n`);
    return 0;
  }

  const { daemon } = outcome;
  say(
    `Python Session daemon running, pid ${daemon.pid}\n` +
      `  socket        ${daemon.socketPath}\n` +
      `  state folder  ${daemon.files.stateDir}\n` +
      `  log           ${daemon.files.log}\n` +
      `Stop it with Ctrl-C or \`python-session-mcp stop\`.\n`,
  );
  try {
    await options.onStarted?.(daemon);
  } catch (error) {
    daemon.log.error('start-up hook failed', error);
    await daemon.stop('start-up hook failed');
    stderr(`python-session-mcp serve: ${(error as Error).message ?? error}\n`);
    return 1;
  }
  await daemon.stopped;
  say('Python Session daemon stopped.\n');
  // Stopped means stopped: a handle some library forgot to close must not keep the process up
  // (`stop` waits for this pid to go). Unref'd, so a clean exit is not delayed by it.
  setTimeout(() => process.exit(0), 2000).unref();
  return 0;
}
