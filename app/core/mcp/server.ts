/**
 * The MCP server built from the tools. Each client connection gets its own McpServer over the
 * same services (app/core/services.ts), so two clients can work in one kernel.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { packageHomepage, packageVersion } from '../package-root.js';
import type { DaemonServices } from '../services.js';
import { registerCodeTools } from '../tools/code-tools.js';
import { registerRecordTools } from '../tools/record-tools.js';
import { registerSessionTools } from '../tools/session-tools.js';
import { registerAnalysisTools } from '../tools/analysis-tools.js';
import type { ToolContext, ToolRegistrar } from '../tools/tool-context.js';
import { ClientFolder } from './client-folder.js';
import { FolderNotices, noteSessionFolders } from './folder-notices.js';
import { tellOthersCells } from './told-line.js';
import { OthersNewsTracker } from '../sessions/others-news.js';
import { noteStateFiles } from './state-file-notes.js';

const REGISTRARS: ToolRegistrar[] = [registerSessionTools, registerCodeTools, registerAnalysisTools, registerRecordTools];

const INSTRUCTIONS =
  'Python Session runs Python in persistent Jupyter kernels in the user\'s own interpreter (often an Anaconda environment). ' +
  'Variables persist between run_python calls, like notebook cells; sessions are named (default "default") and shared with other clients and with the user\'s control panel. ' +
  'Start with python_status to see the interpreter and its packages. Load files with load_data, fit regressions with ols, inspect variables with list_names/describe_object, and get exact numbers with get_value.';

/** The server as every client meets it at initialize, before any tool is registered. */
export function newMcpServer(): McpServer {
  // No logging capability: the daemon logs to its own file, not to the client.
  return new McpServer(
    { name: 'python-session', title: 'Python Session', version: packageVersion(), websiteUrl: packageHomepage() },
    { instructions: INSTRUCTIONS },
  );
}

/** Registers every tool of the contract; registration itself calls nothing on `context`. */
export function registerTools(server: McpServer, context: ToolContext): void {
  for (const register of REGISTRARS) register(server, context);
}

/** `cwd`: the folder the client started the shim in (from its handshake), for the folder rule. */
export function createMcpServer(services: DaemonServices, connection: { id: string; client?: string; cwd?: string }): McpServer {
  const server = newMcpServer();
  const clientName = () => server.server.getClientVersion()?.name ?? connection.client ?? connection.id;
  // Looked for now (once per daemon, then cached), so warming on initialize does not wait for it.
  void services.sessions.chosenInterpreter().catch(() => undefined);
  // Once the client is initialized its folder is known: warm a kernel there for its first run.
  const folder = new ClientFolder(server.server, {
    client: clientName,
    cwd: connection.cwd,
    onInitialized: (choice) => void services.sessions.prewarm(choice.path).catch(() => undefined),
  });
  const context: ToolContext = {
    sessions: services.sessions,
    settings: services.settings,
    stateDir: services.stateDir,
    startedAt: services.startedAt,
    clientName,
    clientFolder: () => folder.current(),
    async startDefaults() {
      const choice = await folder.current();
      return { cwd: choice.path, cwdReason: choice.reason, startedBy: { connection: connection.id, client: clientName() } };
    },
  };
  // First, so that the line about others' cells opens the reply, before a folder note.
  tellOthersCells(server, services.sessions, new OthersNewsTracker(clientName));
  noteStateFiles(server, services.stateDir);
  noteSessionFolders(server, new FolderNotices(services.sessions, connection.id, folder));
  registerTools(server, context);
  return server;
}
