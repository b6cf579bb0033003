/**
 * A client is told, once, when the daemon found a file of its state folder damaged and moved it
 * aside (app/core/state-file.ts): one line before its first text reply, and again only for a file
 * found damaged later (a session's log opened afterwards). Replies carrying structuredContent are
 * skipped, as for the folder notes: some clients hand their model only that JSON.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { stateFileNotices } from '../state-file.js';

interface Reply {
  content: { type: string }[];
  structuredContent?: unknown;
}

/** Makes every tool registered on `server` from now on put the notes due before its reply. */
export function noteStateFiles(server: McpServer, stateDir: string): void {
  const told = new Set<number>();
  const annotate = <R extends Reply>(reply: R): R => {
    if (reply?.structuredContent !== undefined || !Array.isArray(reply?.content)) return reply;
    const due = stateFileNotices(stateDir).filter((n) => !told.has(n.id));
    if (!due.length) return reply;
    for (const notice of due) told.add(notice.id);
    const text = `Note: a damaged file in the daemon's state folder was set aside, and the daemon runs on: ${due.map((n) => n.message).join(' ')}\n\n`;
    return { ...reply, content: [{ type: 'text', text }, ...reply.content] };
  };
  const register = server.registerTool.bind(server);
  // registerTool's overloads are generic over each tool's schemas; the wrapper keeps them as they are.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  server.registerTool = ((name: string, config: unknown, callback: (...args: any[]) => Promise<Reply>) =>
    register(name, config as never, (async (...args: unknown[]) => annotate(await callback(...args))) as never)) as typeof server.registerTool;
}
