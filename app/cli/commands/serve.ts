/**
 * `python-session-mcp serve [--background]` — run the daemon: in the foreground it says where
 * it listens and logs to stderr too; with --background (how the shim starts it) it writes only
 * to daemon.log. If a daemon already serves this state folder, it says so and exits 0.
 */
import { parseArgs } from 'node:util';
import { createMcpServer } from '../../core/mcp/server.js';
import { describeMcpServer } from '../../core/mcp/describe-server.js';
import { writeQuickAnswers } from '../quick-answers.js';
import { createServices } from '../../core/services.js';
import { serveDaemon } from '../../core/daemon/serve-daemon.js';
import { startPanelServer } from '../../core/daemon/panel/server.js';
import { resolveStateDir } from '../../core/daemon/state-paths.js';

export const SERVE_USAGE = `Usage: python-session-mcp serve [--background]

Runs the Python Session daemon for this state folder ($PYTHON_MCP_HOME or the default) until
it is stopped (Ctrl-C, or \`python-session-mcp stop\`). MCP clients reach it through
\`python-session-mcp\`, which starts it by itself when needed.

Options:
  --background   log to daemon.log only and print nothing (used by the shim)
  -h, --help     show this help
`;

export async function serveCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { background: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${SERVE_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const stateDir = resolveStateDir();
  const background = values.background ?? false;
  return serveDaemon({
    background,
    stateDir,
    services: ({ log }) => createServices({ stateDir, logger: log }),
    createMcpServer,
    // The panel starts with the daemon and ends with it; a panel that cannot start costs the
    // panel, never the MCP clients.
    onStarted: async (daemon) => {
      // For the next shim that has to start a daemon: it answers initialize, tools/list and server/discover from this at once (before the package's own answers).
      void describeMcpServer()
        .then((answers) => writeQuickAnswers(daemon.files.answers, answers))
        .catch((error: Error) => daemon.log.warn(`the MCP answers for shims could not be written: ${error.message}`));
      try {
        const panel = await startPanelServer({ services: daemon.services, stateDir });
        for (const warning of panel.warnings) daemon.log.warn(warning);
        daemon.updateInfo({ panel: panel.baseUrl });
        void daemon.stopped.then(() => panel.close());
        if (!background) process.stdout.write(`Panel: ${panel.url}\n`);
      } catch (error) {
        daemon.log.error(`the panel could not start: ${(error as Error).message}`);
        if (!background) process.stderr.write(`The panel could not start: ${(error as Error).message}\n`);
      }
    },
  });
}
