/**
 * A client that reaches a session working in another folder than its own (a shared session
 * another client or the panel started) is told so once: in its first text reply that touches that
 * session, with how to start a session of its own. Relative paths would otherwise resolve
 * somewhere it does not expect, and `FileNotFoundError` says nothing about why.
 *
 * Every tool with a `session` argument touches that session; the note goes before the tool's
 * own answer. A reply that carries structuredContent is skipped (some clients hand their model
 * only that JSON), so the note waits for the next text reply.
 */
import { basename } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DEFAULT_SESSION, SESSION_NAME, type SessionManager } from '../sessions/session-manager.js';
import type { Session } from '../sessions/session.js';
import type { ClientFolder } from './client-folder.js';

interface Reply {
  content: { type: string }[];
  structuredContent?: unknown;
}

export class FolderNotices {
  private readonly done = new WeakSet<Session>();

  constructor(
    private readonly sessions: SessionManager,
    /** This connection's id, as sessions record who started them. */
    private readonly connection: string,
    private readonly folder: ClientFolder,
  ) {}

  /** `reply`, with the note before it when it is due. */
  async annotate<R extends Reply>(sessionName: string, reply: R): Promise<R> {
    const session = this.sessions.find(sessionName);
    if (!session || this.done.has(session) || !session.cwd || session.facts().place.kind === 'remote') return reply;
    if (session.startedBy?.connection === this.connection) return reply;
    if (reply.structuredContent !== undefined || !Array.isArray(reply.content)) return reply;
    const mine = await this.folder.current();
    this.done.add(session);
    if (sameFolder(session.cwd, mine.path)) return reply;
    return { ...reply, content: [{ type: 'text', text: this.note(session, session.cwd, mine.path) }, ...reply.content] };
  }

  private note(session: Session, theirs: string, mine: string): string {
    const by = session.startedBy ? ` (started by ${session.startedBy.client}, shared)` : ' (shared)';
    const name = this.freeName(mine);
    return (
      `Note: session "${session.name}"${by} works in ${theirs}, not in your folder ${mine}: relative paths in run_python, load_data, save_data, save_figure and export_notebook resolve in ${theirs}. ` +
      `For a session of your own in your folder: start_kernel(session="${name}", cwd="${mine}"), then pass session="${name}" to each call.\n\n`
    );
  }

  /** A session name from the folder's name that no session has yet. */
  private freeName(folder: string): string {
    const base = basename(folder).replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 56) || 'mine';
    for (let i = 1; ; i++) {
      const name = i === 1 ? base : `${base}-${i}`;
      if (SESSION_NAME.test(name) && !this.sessions.find(name) && name !== DEFAULT_SESSION) return name;
    }
  }
}

const sameFolder = (a: string, b: string) => (process.platform === 'win32' || process.platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b);

/**
 * Makes every tool registered on `server` from now on that takes a `session` argument pass its
 * reply through `notices`. Called before the tools are registered.
 */
export function noteSessionFolders(server: McpServer, notices: FolderNotices): void {
  const register = server.registerTool.bind(server);
  // registerTool's overloads are generic over each tool's schemas; the wrapper keeps them as they are.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  server.registerTool = ((name: string, config: { inputSchema?: Record<string, unknown> }, callback: (...args: any[]) => Promise<Reply>) => {
    if (!config.inputSchema || !('session' in config.inputSchema)) return register(name, config as never, callback as never);
    const wrapped = async (args: { session?: string }, extra: unknown) => notices.annotate(args.session ?? DEFAULT_SESSION, await callback(args, extra));
    return register(name, config as never, wrapped as never);
  }) as typeof server.registerTool;
}
