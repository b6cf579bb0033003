/**
 * `python-session-mcp` with no arguments: the MCP server a client starts on stdio. It is a thin
 * relay to the daemon, which it starts in the background when none is running, so every client
 * shares the same sessions and a client restart loses nothing.
 *
 * Every client runs this at every start, so it loads nothing heavy: no MCP SDK, no zod, no
 * zeromq — Node built-ins and a few small modules. stdout carries JSON-RPC only; diagnostics
 * go to stderr, which clients keep in their MCP logs.
 *
 * Environment: PYTHON_MCP_HOME (and XDG_STATE_HOME / XDG_RUNTIME_DIR / LOCALAPPDATA) choose the
 * state folder and so the daemon; PYTHON_SESSION_DAEMON_ENTRY names the script run as
 * `<node> <script> serve --background` to start one (default: main.js beside this file).
 */
import { fileURLToPath } from 'node:url';
import { BoundedLineSplitter } from '../core/daemon/json-lines.js';
import { findQuickAnswers, packagedAnswersPath } from './quick-answers.js';
import { currentDaemonFiles } from '../core/daemon/state-paths.js';
import { packageVersion } from '../core/package-root.js';
import { SpawningConnector, spawnBackgroundDaemon } from './daemon-link.js';
import { MESSAGE_LIMIT_BYTES, ShimRelay } from './shim-relay.js';

export const DAEMON_ENTRY_ENV = 'PYTHON_SESSION_DAEMON_ENTRY';

export function daemonEntry(env: NodeJS.ProcessEnv = process.env): string {
  return env[DAEMON_ENTRY_ENV] || fileURLToPath(new URL('./main.js', import.meta.url));
}

/** The folder the client started us in; the daemon decides whether it is a project folder. */
function workingFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined; // removed while we ran
  }
}

export interface ShimOptions {
  /**
   * The answers that come with the package (quick-answers.ts); null for a shim whose daemon is
   * not this package's MCP server (the tests' echo daemon), which answers from its state file only.
   */
  packagedAnswers?: string | null;
}

/** Runs until the client closes stdin; resolves with the exit code. */
export function runShim(options: ShimOptions = {}): Promise<number> {
  const packaged = options.packagedAnswers === undefined ? packagedAnswersPath() : options.packagedAnswers;
  const diagnostics = (message: string) => void process.stderr.write(`python-session-mcp: ${message}\n`);
  const files = currentDaemonFiles();
  const entry = daemonEntry();
  const connector = new SpawningConnector({
    socketPath: files.socket.path,
    logPath: files.log,
    spawnDaemon: () => spawnBackgroundDaemon({ entry, stateDir: files.stateDir, logPath: files.log }),
    diagnostics,
    cwd: workingFolder(),
  });
  const relay = new ShimRelay({
    connector,
    writeToClient: (line) => void process.stdout.write(line + '\n'),
    diagnostics,
    onInitializeAnswered: () => diagnostics(`ready ${Math.round(performance.now())} ms after start (state folder ${files.stateDir})`),
    quickAnswers: () => findQuickAnswers(files.answers, packageVersion(), packaged),
  });

  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      relay.close();
      // Let what is already written reach the client before the caller exits.
      process.stdout.write('', () => resolve(0));
    };
    // A message past the limit is answered with an error here: passed on, it would make the
    // daemon's transport hang up, and memory would grow with whatever the client sends.
    const lines = new BoundedLineSplitter(MESSAGE_LIMIT_BYTES);
    process.stdin.on('data', (chunk: Buffer) => {
      for (const line of lines.push(chunk)) {
        if (typeof line === 'string') relay.fromClient(line);
        else relay.fromClientOversized(line);
      }
    });
    process.stdin.on('end', finish);
    process.stdin.on('error', finish);
    // The client is gone if it stops reading us.
    process.stdout.on('error', finish);
  });
}
