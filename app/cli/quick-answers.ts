/**
 * `<state>/mcp-answers.json`: what this version's MCP server answers to `initialize` and to
 * `tools/list`, written by the daemon at start. A shim that has to start (or wait for) the
 * daemon answers those two from here at once: Codex builds a turn without a server's tools once
 * it has waited about a second for them, and starting the daemon can take longer. The shim then
 * initializes the daemon with the client's own request, asks it for its tools and tells the
 * client `notifications/tools/list_changed` if they differ, so a stale file costs one refresh.
 *
 * Node built-ins only: the shim reads it at every client start. The daemon writes it at start
 * (app/cli/commands/serve.ts).
 */
import { readFileSync } from 'node:fs';
import { writePrivateFile } from '../core/private-file.js';
// A type only: nothing of the MCP SDK is loaded by the shim.
import type { ServerDescription } from '../core/mcp/describe-server.js';

/** What the server answers, and the version that answers so: see app/core/mcp/describe-server.ts. */
export type QuickAnswers = ServerDescription;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function writeQuickAnswers(path: string, answers: QuickAnswers): void {
  writePrivateFile(path, JSON.stringify(answers) + '\n');
}

/** The answers in `path` when they were written by `version`; null when absent, unreadable or another version's. */
export function readQuickAnswers(path: string, version: string): QuickAnswers | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  if (!isRecord(value) || value.version !== version) return null;
  const { protocolVersions, initialize, tools } = value;
  if (!Array.isArray(protocolVersions) || !protocolVersions.length || !protocolVersions.every((v) => typeof v === 'string')) return null;
  if (!isRecord(initialize) || !isRecord(initialize.capabilities) || !isRecord(initialize.serverInfo)) return null;
  if (!isRecord(tools) || !Array.isArray(tools.tools)) return null;
  return { version, protocolVersions: protocolVersions as string[], initialize, tools };
}

/** The initialize result for a client that asked for `requested`, negotiated as the MCP SDK's server does. */
export function initializeResult(answers: QuickAnswers, requested: unknown): Record<string, unknown> {
  const protocolVersion = typeof requested === 'string' && answers.protocolVersions.includes(requested) ? requested : answers.protocolVersions[0];
  return { protocolVersion, ...answers.initialize };
}
