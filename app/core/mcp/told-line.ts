/**
 * The model is told what others did in its session: the next reply that touches a session opens
 * with one line naming the cells that others ran since this client's previous call to it (the
 * person in the panel, another Jupyter client on the kernel, another MCP client) and the names
 * they made or changed. The line comes once per client per news (sessions/others-news.ts keeps
 * the marks). A reply that carries structuredContent gets it in its `notes` too, since some
 * clients hand their model only that JSON.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ANOTHER_CLIENT, PANEL_CLIENT } from '../sessions/parties.js';
import type { CellNote, OthersNews, OthersNewsTracker } from '../sessions/others-news.js';
import { DEFAULT_SESSION, type SessionManager } from '../sessions/session-manager.js';

/** Cell numbers and names listed before the rest are counted. */
const LISTED_CELLS = 6;
const LISTED_NAMES = 12;

function who(client: string): string {
  if (client === PANEL_CLIENT) return 'the person';
  if (client === ANOTHER_CLIENT) return 'another Jupyter client';
  return client;
}

function cellsPart(client: string, cells: CellNote[]): string {
  const numbers = cells.flatMap((cell) => (cell.executionCount === null ? [] : [`In [${cell.executionCount}]`]));
  const shown = numbers.length > LISTED_CELLS ? [...numbers.slice(0, LISTED_CELLS - 1), '…', numbers.at(-1)!] : numbers;
  return `${who(client)} ran ${cells.length} cell${cells.length === 1 ? '' : 's'}${shown.length ? ` (${shown.join(', ')})` : ''}`;
}

function list(names: string[]): string {
  if (names.length <= LISTED_NAMES) return names.join(', ');
  return `${names.slice(0, LISTED_NAMES).join(', ')} and ${names.length - LISTED_NAMES} more`;
}

/** `Since your last call, the person ran 2 cells (In [7], In [8]); new or changed: df2, fit2.` */
export function toldLine(news: OthersNews): string {
  const byClient = new Map<string, CellNote[]>();
  for (const cell of news.cells) byClient.set(cell.client, [...(byClient.get(cell.client) ?? []), cell]);
  const parts = [...byClient].map(([client, cells]) => cellsPart(client, cells));
  const ran = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  let names = '';
  if (news.names) {
    const { changed, gone } = news.names;
    names = changed.length ? `; new or changed: ${list(changed)}` : '; no names new or changed';
    if (gone.length) names += `; gone: ${list(gone)}`;
  }
  return `Since your last call, ${ran}${names}.`;
}

interface Reply {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** `reply` opening with `line`: in its first text, and first in its JSON's notes when it has JSON. */
export function withToldLine<R extends Reply>(reply: R, line: string): R {
  if (!Array.isArray(reply.content)) return reply;
  const [first, ...rest] = reply.content;
  const content = first?.type === 'text' ? [{ ...first, text: `${line}\n${first.text ?? ''}` }, ...rest] : [{ type: 'text', text: line }, ...reply.content];
  const structured = reply.structuredContent;
  if (!structured) return { ...reply, content };
  const notes = Array.isArray(structured.notes) ? structured.notes : [];
  return { ...reply, content, structuredContent: { ...structured, notes: [line, ...notes] } };
}

/**
 * Makes every tool registered on `server` from now on that takes a `session` argument open its
 * reply with the line when others ran cells there. Called before any other wrapper of the tools
 * (noteSessionFolders), so the line comes first.
 */
export function tellOthersCells(server: McpServer, sessions: SessionManager, tracker: OthersNewsTracker): void {
  const register = server.registerTool.bind(server);
  // registerTool's overloads are generic over each tool's schemas; the wrapper keeps them as they are.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  server.registerTool = ((name: string, config: { inputSchema?: Record<string, unknown> }, callback: (...args: any[]) => Promise<Reply>) => {
    if (!config.inputSchema || !('session' in config.inputSchema)) return register(name, config as never, callback as never);
    const wrapped = async (args: { session?: string }, extra: unknown) => {
      const sessionName = args.session ?? DEFAULT_SESSION;
      const before = sessions.find(sessionName);
      const news = before ? await tracker.take(before) : null;
      try {
        const reply = await callback(args, extra);
        return news ? withToldLine(reply, toldLine(news)) : reply;
      } finally {
        const after = sessions.find(sessionName);
        if (after) tracker.settle(after);
      }
    };
    return register(name, config as never, wrapped as never);
  }) as typeof server.registerTool;
}
