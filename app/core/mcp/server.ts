/**
 * The MCP server built from the tools. Each client connection gets its own McpServer over the
 * same services (app/core/services.ts), so two clients can work in one kernel.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
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
import { DISCOVER_METHOD, META_SERVER_INFO, STATELESS_VERSIONS } from './revisions.js';
import { RevisionTransport } from './revision-transport.js';
import { formRoute } from './person-forms.js';
import type { FormRetry } from '../tools/tool-context.js';

const REGISTRARS: ToolRegistrar[] = [registerSessionTools, registerCodeTools, registerAnalysisTools, registerRecordTools];

const INSTRUCTIONS =
  'Python Session runs Python in persistent Jupyter kernels in the user\'s own interpreter (often an Anaconda environment). ' +
  'Variables persist between run_python calls, like notebook cells; sessions are named (default "default") and shared with other clients and with the user\'s control panel. ' +
  'Start with python_status to see the interpreter and its packages. Load files with load_data, fit regressions with ols, inspect variables with list_names/describe_object, and get exact numbers with get_value.';

const DiscoverRequestSchema = z.object({ method: z.literal(DISCOVER_METHOD), params: z.optional(z.looseObject({})) });

/**
 * An McpServer that serves both revisions on every transport it is connected to
 * (revision-transport.ts) and answers `server/discover` with what `initialize` answers.
 */
export class RevisionAwareMcpServer extends McpServer {
  private revision: RevisionTransport | undefined;
  private readonly serverInfo: { name: string; title: string; version: string; websiteUrl?: string };
  private readonly instructions: string;
  /** Called once, at a stateless client's first request (the handshake's `initialized` has no twin there). */
  onStatelessClient?: () => void;

  constructor() {
    const serverInfo = { name: 'python-session', title: 'Python Session', version: packageVersion(), websiteUrl: packageHomepage() };
    // No logging capability: the daemon logs to its own file, not to the client.
    super(serverInfo, { instructions: INSTRUCTIONS });
    this.serverInfo = serverInfo;
    this.instructions = INSTRUCTIONS;
    this.server.setRequestHandler(DiscoverRequestSchema, () => ({
      supportedVersions: [...STATELESS_VERSIONS],
      capabilities: this.capabilities(),
      instructions: this.instructions,
      // Caching hints (required by Codex 0.171's 2026-07-28 client): the same for every user (no
      // path or user data: the package ships it), and valid only for this server's life, which a
      // client cannot see, so it asks again each time (a local round trip).
      ttlMs: 0,
      cacheScope: 'public',
      _meta: { [META_SERVER_INFO]: this.serverInfo },
    }));
  }

  /** What `initialize` answers as capabilities (the tools registered so far make it). */
  private capabilities(): ServerCapabilities {
    // Public at run time, marked private in the SDK's types: the same object initialize sends.
    return (this.server as unknown as { getCapabilities(): ServerCapabilities }).getCapabilities();
  }

  /** The client's name from a stateless request's `_meta`. */
  statelessClientName(): string | undefined {
    return this.revision?.statelessClientName;
  }

  /** What a retried call (2026-07-28) carries for an earlier input-required result. */
  formRetry(requestId: string | number): FormRetry | undefined {
    return this.revision?.retry(requestId);
  }

  override connect(transport: Transport): Promise<void> {
    this.revision = new RevisionTransport(transport, { supported: STATELESS_VERSIONS, onStatelessClient: () => this.onStatelessClient?.() });
    return super.connect(this.revision);
  }
}

/** The server as every client meets it, before any tool is registered. */
export function newMcpServer(): RevisionAwareMcpServer {
  return new RevisionAwareMcpServer();
}

/** Registers every tool of the contract; registration itself calls nothing on `context`. */
export function registerTools(server: McpServer, context: ToolContext): void {
  for (const register of REGISTRARS) register(server, context);
}

/** `cwd`: the folder the client started the shim in (from its handshake), for the folder rule. */
export function createMcpServer(services: DaemonServices, connection: { id: string; client?: string; cwd?: string }): McpServer {
  const server = newMcpServer();
  const clientName = () => server.server.getClientVersion()?.name ?? server.statelessClientName() ?? connection.client ?? connection.id;
  // Looked for now (once per daemon, then cached), so warming on initialize does not wait for it.
  void services.sessions.chosenInterpreter().catch(() => undefined);
  // Once the client is initialized its folder is known: warm a kernel there for its first run.
  const folder = new ClientFolder(server.server, {
    client: clientName,
    cwd: connection.cwd,
    onInitialized: (choice) => void services.sessions.prewarm(choice.path).catch(() => undefined),
  });
  // A stateless client is known at its first request (2026-07-28 has no initialized).
  server.onStatelessClient = () => folder.clientKnown();
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
    formRoute: (extra, session) => formRoute(extra, server.server.getClientCapabilities(), session),
    formRetry: (extra) => server.formRetry(extra.requestId),
  };
  // First, so that the line about others' cells opens the reply, before a folder note.
  tellOthersCells(server, services.sessions, new OthersNewsTracker(clientName));
  noteStateFiles(server, services.stateDir);
  noteSessionFolders(server, new FolderNotices(services.sessions, connection.id, folder));
  registerTools(server, context);
  return server;
}
