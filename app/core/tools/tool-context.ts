/** What every tool module gets: the daemon's services and this connection's client. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { SessionManager } from '../sessions/session-manager.js';
import type { Settings } from '../settings/settings.js';
import { SESSION_NAME } from '../sessions/session-manager.js';

export interface ToolContext {
  sessions: SessionManager;
  settings: Settings;
  stateDir: string;
  startedAt: number;
  /** The MCP client's name from initialize (for the session log). */
  clientName(): string;
}

export type ToolRegistrar = (server: McpServer, context: ToolContext) => void;

export const sessionArg = z
  .string()
  .regex(SESSION_NAME, 'letters, digits, ".", "_" or "-", at most 64')
  .optional()
  .describe('Session name; sessions are independent Python processes. Default "default".');

export type Content = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function textResult(text: string, structured?: Record<string, unknown>): ToolResult {
  return structured ? { content: [{ type: 'text', text }], structuredContent: structured } : { content: [{ type: 'text', text }] };
}

export function errorResult(text: string, structured?: Record<string, unknown>): ToolResult {
  return { ...textResult(text, structured), isError: true };
}

/** Turns any thrown error into a tool error the model can read, instead of a protocol failure. */
export async function guarded(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    return errorResult((error as Error).message || String(error));
  }
}
