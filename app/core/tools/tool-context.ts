/** What every tool module gets: the daemon's services and this connection's client. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { FolderChoice } from '../sessions/project-folder.js';
import type { Session } from '../sessions/session.js';
import type { QuestionReply, QuestionView } from '../sessions/question.js';
import type { SessionManager, StartRequest } from '../sessions/session-manager.js';
import type { Settings } from '../settings/settings.js';
import { SESSION_NAME } from '../sessions/session-manager.js';
import { toolErrorText } from './error-words.js';

export interface ToolContext {
  sessions: SessionManager;
  settings: Settings;
  stateDir: string;
  startedAt: number;
  /** The MCP client's name from initialize (for the session log). */
  clientName(): string;
  /** Where a session started for this client works (its MCP root, its folder, or home), and why. */
  clientFolder(): Promise<FolderChoice>;
  /** What a session started for this client gets: its folder, and who started it. */
  startDefaults(): Promise<Pick<StartRequest, 'cwd' | 'cwdReason' | 'startedBy'>>;
  /** How this call's client can show the person a form for a question its code asks; undefined when it cannot. */
  formRoute(extra: RequestExtra, session: string): FormRoute | undefined;
  /** The answer a retried call carries for an earlier input-required result (2026-07-28), if it is one. */
  formRetry(extra: RequestExtra): FormRetry | undefined;
}

export type RequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A client's form for a question: asked inside the call (resolves with the person's reply, or
 * undefined when the client could not ask or `signal` ended it first), or by ending the call
 * with an input-required result that the client's retry answers.
 */
export type FormRoute =
  | { kind: 'request'; ask(view: QuestionView, signal: AbortSignal): Promise<QuestionReply | undefined> }
  | { kind: 'input-required' };

/** A retry's echoed state and the person's reply in it. */
export interface FormRetry {
  requestState: string;
  reply: QuestionReply | undefined;
}

/** The session by name, starting the default one on first use in this client's folder. */
export async function sessionFor(context: ToolContext, name: string): Promise<Session> {
  return context.sessions.find(name) ?? context.sessions.ensure(name, await context.startDefaults());
}

export type ToolRegistrar = (server: McpServer, context: ToolContext) => void;

export const sessionArg = z
  .string()
  .regex(SESSION_NAME, 'letters, digits, ".", "_" or "-", at most 64')
  .optional()
  .describe('Session name; sessions are independent Python processes. Default "default".');

export type Content = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/**
 * Where a result's machine-readable facts travel (pids, paths, counts), for programs and tests.
 * Not in `structuredContent`: Claude Code hands its model that JSON instead of the text, and Codex
 * hands it nothing else, so a tool whose answer is text would reach the model without it.
 * Clients do not show `_meta` to the model.
 */
export const FACTS_KEY = 'python-session/facts';

export interface ToolResult {
  [key: string]: unknown;
  content: Content[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  isError?: boolean;
}

/** A result whose answer is its text (and images); `facts` go to `_meta` only. */
export function textResult(text: string, facts?: Record<string, unknown>): ToolResult {
  return contentResult([{ type: 'text', text }], facts);
}

export function contentResult(content: Content[], facts?: Record<string, unknown>): ToolResult {
  return facts ? { content, _meta: { [FACTS_KEY]: facts } } : { content };
}

/**
 * A result whose answer is the JSON itself (get_value, ols): `structuredContent`, declared by the
 * tool's outputSchema, carries everything the text says, since that JSON is all some clients forward.
 */
export function dataResult(text: string, structured: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function errorResult(text: string, facts?: Record<string, unknown>): ToolResult {
  return { ...textResult(text, facts), isError: true };
}

/** Turns any thrown error into a tool error the model can read, instead of a protocol failure. */
export async function guarded(run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await run();
  } catch (error) {
    return errorResult(toolErrorText(error));
  }
}
