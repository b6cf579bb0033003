/**
 * What this version's MCP server answers to `initialize`, `tools/list` and `server/discover`
 * (app/core/mcp/describe-server.ts). A shim that has to start (or wait for) the daemon answers
 * those from here at once: Codex builds a turn without a server's tools once it has waited about
 * a second for them, and starting the daemon can take longer. The shim then initializes the
 * daemon with the client's own request, asks it for its tools and tells the client
 * `notifications/tools/list_changed` if they differ, so a stale answer costs one refresh.
 *
 * Two places hold them: the package (`dist/mcp-answers.json`, written by `npm run build`, so a
 * first-time user's first turn has every tool) and the state folder (`<state>/mcp-answers.json`,
 * written by every daemon at start), which wins where it exists and is this version's. A state
 * file that is damaged in any way (empty, cut short, not JSON, another shape, a folder, a
 * symlink, too large) is passed over for the package's.
 *
 * Node built-ins only: the shim reads this at every client start.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writePrivateFile } from '../core/private-file.js';
// A type only: nothing of the MCP SDK is loaded by the shim.
import type { ServerDescription } from '../core/mcp/describe-server.js';

/** What the server answers, and the version that answers so: see app/core/mcp/describe-server.ts. */
export type QuickAnswers = ServerDescription;

/** Far above what the answers take (about 40 KB); a larger file is not ours. */
const MAX_BYTES = 1024 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string');

/** The answers that ship with the package: dist/mcp-answers.json (this file is dist/app/cli/quick-answers.js). */
export function packagedAnswersPath(): string {
  return fileURLToPath(new URL('../../mcp-answers.json', import.meta.url));
}

export function writeQuickAnswers(path: string, answers: QuickAnswers): void {
  writePrivateFile(path, JSON.stringify(answers) + '\n');
}

/** The text of a regular file at `path` (a symlink, a folder or a file past MAX_BYTES is refused), or null. */
function readRegularFile(path: string): string | null {
  let fd: number;
  try {
    // O_NOFOLLOW: a symlink put in the state folder is not followed (Windows has none to refuse).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size === 0 || stat.size > MAX_BYTES) return null;
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.toString('utf8', 0, read);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The answers in `path` when they were written by `version` in the shape the shim needs; null otherwise. */
export function readQuickAnswers(path: string, version: string): QuickAnswers | null {
  const text = readRegularFile(path);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.version !== version) return null;
  const { protocolVersions, initialize, tools, discover } = value;
  if (!isStringList(protocolVersions)) return null;
  if (!isRecord(initialize) || !isRecord(initialize.capabilities) || !isRecord(initialize.serverInfo)) return null;
  if (!isRecord(tools) || !Array.isArray(tools.tools) || !tools.tools.every(isRecord)) return null;
  if (!isRecord(discover) || !isStringList(discover.supportedVersions) || !isRecord(discover.capabilities)) return null;
  return { version, protocolVersions, initialize, tools, discover };
}

/** The state folder's answers where they are sound and this version's, else the package's (when given); null when neither is. */
export function findQuickAnswers(statePath: string, version: string, packagedPath: string | null = packagedAnswersPath()): QuickAnswers | null {
  return readQuickAnswers(statePath, version) ?? (packagedPath === null ? null : readQuickAnswers(packagedPath, version));
}

/** The initialize result for a client that asked for `requested`, negotiated as the MCP SDK's server does. */
export function initializeResult(answers: QuickAnswers, requested: unknown): Record<string, unknown> {
  const protocolVersion = typeof requested === 'string' && answers.protocolVersions.includes(requested) ? requested : answers.protocolVersions[0];
  return { protocolVersion, ...answers.initialize };
}
