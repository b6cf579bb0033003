/**
 * The MCP clients we can register with: where each keeps its config, under which key it lists
 * servers, and the shape of a server entry it expects.
 *
 * Everything a path depends on — platform, home folder, environment, what exists on disk — comes
 * in through a PlatformContext, so the macOS and Windows layouts are tested on Linux. Paths are
 * joined with `path.win32` or `path.posix` according to the context's platform, never the host's.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { type ConfigFormat, JSONC_FORMAT, JSON_FORMAT, JSON_WITH_COMMENTS_FORMAT, TOML_FORMAT } from './config-format.js';
import { geminiDir, geminiTrustNotes } from './gemini-trust.js';
import { envVar, pathApi } from './platform-paths.js';
import type { JsonObject } from './jsonc.js';
import type { ServerEntry } from './server-entry.js';

export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'codex', 'cursor', 'gemini-cli', 'vscode', 'windsurf'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

/** The few file-system questions path discovery asks; injectable for tests. */
export interface PathProbe {
  isDirectory(p: string): boolean;
  isFile(p: string): boolean;
  /** Entry names in a folder; empty when it cannot be read. */
  list(dir: string): string[];
}

export interface PlatformContext {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  fs: PathProbe;
}

export interface ClientDefinition {
  id: ClientId;
  name: string;
  /** The top-level key (or TOML table) that holds the servers. */
  serversKey: string;
  /** The file format, read as the client itself reads it (JSONC for VS Code, TOML for Codex). */
  format: ConfigFormat;
  /** Every config file our entry belongs in; at least one, existing or not. */
  configPaths(ctx: PlatformContext): string[];
  /** Whether the client appears to be installed (its config folder exists). */
  isInstalled(ctx: PlatformContext): boolean;
  /** The entry in this client's own format. */
  shapeEntry(entry: ServerEntry): JsonObject;
  /** What the user must do for the client to pick up a change. */
  restartHint: string;
  /**
   * What the client itself does with a registered entry that the person should know (Gemini
   * CLI's folder trust), for `folder` when one is in view, else in general. Never throws.
   */
  notes?(ctx: PlatformContext, folder?: string): Promise<string[]>;
}

export const nodePathProbe: PathProbe = {
  isDirectory: (p) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false,
  isFile: (p) => statSync(p, { throwIfNoEntry: false })?.isFile() ?? false,
  list: (dir) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
};

export function defaultContext(overrides: Partial<PlatformContext> = {}): PlatformContext {
  return {
    platform: overrides.platform ?? process.platform,
    home: overrides.home ?? homedir(),
    env: overrides.env ?? process.env,
    fs: overrides.fs ?? nodePathProbe,
  };
}

/**
 * Where Electron apps (Claude Desktop, VS Code) keep per-user data: Electron's `appData`.
 * On Linux that honours XDG_CONFIG_HOME, as Electron does, when it is an absolute path.
 */
function appDataDir(ctx: PlatformContext): string {
  const p = pathApi(ctx);
  switch (ctx.platform) {
    case 'win32':
      return envVar(ctx, 'APPDATA') ?? p.join(ctx.home, 'AppData', 'Roaming');
    case 'darwin':
      return p.join(ctx.home, 'Library', 'Application Support');
    default: {
      const xdg = envVar(ctx, 'XDG_CONFIG_HOME');
      return xdg && p.isAbsolute(xdg) ? xdg : p.join(ctx.home, '.config');
    }
  }
}

const CLAUDE_DESKTOP_FILE = 'claude_desktop_config.json';

/**
 * Claude Desktop installed as an MSIX package has its %APPDATA% virtualized into its package
 * folder: a config the app wrote there shadows %APPDATA%\Claude, and which of the two it reads
 * depends on its history. So where such a package folder exists we write to both.
 */
function claudeMsixConfigDirs(ctx: PlatformContext): string[] {
  const p = path.win32;
  const local = envVar(ctx, 'LOCALAPPDATA') ?? p.join(ctx.home, 'AppData', 'Local');
  const packages = p.join(local, 'Packages');
  return ctx.fs
    .list(packages)
    .filter((name) => /^Claude_/i.test(name) && ctx.fs.isDirectory(p.join(packages, name)))
    .sort()
    .map((name) => p.join(packages, name, 'LocalCache', 'Roaming', 'Claude'));
}

function stdioEntry(entry: ServerEntry, withType: boolean): JsonObject {
  const out: JsonObject = withType ? { type: 'stdio' } : {};
  out.command = entry.command;
  out.args = [...entry.args];
  if (Object.keys(entry.env).length > 0) out.env = { ...entry.env };
  return out;
}

const claudeDesktop: ClientDefinition = {
  id: 'claude-desktop',
  name: 'Claude Desktop',
  serversKey: 'mcpServers',
  format: JSON_FORMAT,
  configPaths(ctx) {
    const p = pathApi(ctx);
    const main = p.join(appDataDir(ctx), 'Claude', CLAUDE_DESKTOP_FILE);
    if (ctx.platform !== 'win32') return [main];
    return [main, ...claudeMsixConfigDirs(ctx).map((dir) => p.join(dir, CLAUDE_DESKTOP_FILE))];
  },
  isInstalled(ctx) {
    const p = pathApi(ctx);
    if (ctx.fs.isDirectory(p.join(appDataDir(ctx), 'Claude'))) return true;
    return ctx.platform === 'win32' && claudeMsixConfigDirs(ctx).length > 0;
  },
  shapeEntry: (entry) => stdioEntry(entry, false),
  restartHint: 'Quit Claude Desktop completely (from its menu-bar or tray icon, not just the window) and open it again.',
};

/** Claude Code keeps user-scope servers in `.claude.json`, under CLAUDE_CONFIG_DIR when set. */
function claudeCodeFile(ctx: PlatformContext): string {
  const p = pathApi(ctx);
  return p.join(envVar(ctx, 'CLAUDE_CONFIG_DIR') ?? ctx.home, '.claude.json');
}

const claudeCode: ClientDefinition = {
  id: 'claude-code',
  name: 'Claude Code',
  serversKey: 'mcpServers',
  format: JSON_FORMAT,
  configPaths: (ctx) => [claudeCodeFile(ctx)],
  isInstalled(ctx) {
    const p = pathApi(ctx);
    return ctx.fs.isFile(claudeCodeFile(ctx)) || ctx.fs.isDirectory(p.join(ctx.home, '.claude'));
  },
  // `claude mcp add` writes "type": "stdio"; we match what the client writes itself.
  shapeEntry: (entry) => stdioEntry(entry, true),
  restartHint: 'Start a new Claude Code session; sessions already running keep their old list of servers.',
};

/** Codex keeps its config in $CODEX_HOME, ~/.codex by default. A relative path counts from the working folder, as for Codex. */
function codexHome(ctx: PlatformContext): string {
  const p = pathApi(ctx);
  const named = envVar(ctx, 'CODEX_HOME');
  return named ? p.resolve(named) : p.join(ctx.home, '.codex');
}

const codex: ClientDefinition = {
  id: 'codex',
  name: 'Codex',
  serversKey: 'mcp_servers',
  format: TOML_FORMAT,
  configPaths: (ctx) => [pathApi(ctx).join(codexHome(ctx), 'config.toml')],
  isInstalled: (ctx) => ctx.fs.isDirectory(codexHome(ctx)),
  // As `codex mcp add` writes it: command, args and an env table, no type.
  shapeEntry: (entry) => stdioEntry(entry, false),
  restartHint: 'Start a new Codex session; "codex mcp list" shows the server.',
};

const cursor: ClientDefinition = {
  id: 'cursor',
  name: 'Cursor',
  serversKey: 'mcpServers',
  format: JSON_FORMAT,
  configPaths: (ctx) => [pathApi(ctx).join(ctx.home, '.cursor', 'mcp.json')],
  isInstalled: (ctx) => ctx.fs.isDirectory(pathApi(ctx).join(ctx.home, '.cursor')),
  shapeEntry: (entry) => stdioEntry(entry, false),
  restartHint: 'Restart Cursor (or reload its window), then check the server is enabled under Settings → MCP.',
};

/** Gemini CLI reads ~/.gemini/settings.json; GEMINI_CLI_HOME stands in for the home folder. */
function geminiSettings(ctx: PlatformContext): string {
  return pathApi(ctx).join(geminiDir(ctx), 'settings.json');
}

const geminiCli: ClientDefinition = {
  id: 'gemini-cli',
  name: 'Gemini CLI',
  serversKey: 'mcpServers',
  format: JSON_WITH_COMMENTS_FORMAT,
  configPaths: (ctx) => [geminiSettings(ctx)],
  isInstalled: (ctx) => ctx.fs.isDirectory(pathApi(ctx).dirname(geminiSettings(ctx))),
  shapeEntry: (entry) => stdioEntry(entry, false),
  restartHint: 'Start a new Gemini CLI session; its /mcp command lists the server.',
  // Gemini CLI starts no MCP server in a folder it does not trust.
  notes: (ctx, folder) => geminiTrustNotes(ctx, folder),
};

const vscode: ClientDefinition = {
  id: 'vscode',
  name: 'VS Code',
  serversKey: 'servers',
  format: JSONC_FORMAT,
  configPaths: (ctx) => [pathApi(ctx).join(appDataDir(ctx), 'Code', 'User', 'mcp.json')],
  isInstalled: (ctx) => ctx.fs.isDirectory(pathApi(ctx).join(appDataDir(ctx), 'Code', 'User')),
  shapeEntry: (entry) => stdioEntry(entry, true),
  restartHint: 'Restart VS Code (or run "Developer: Reload Window"); the server is listed under "MCP: List Servers".',
};

const windsurf: ClientDefinition = {
  id: 'windsurf',
  name: 'Windsurf',
  serversKey: 'mcpServers',
  format: JSON_FORMAT,
  configPaths: (ctx) => [pathApi(ctx).join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json')],
  isInstalled: (ctx) => ctx.fs.isDirectory(pathApi(ctx).join(ctx.home, '.codeium', 'windsurf')),
  shapeEntry: (entry) => stdioEntry(entry, false),
  restartHint: 'Restart Windsurf (or press refresh in its MCP server list).',
};

export const CLIENTS: Readonly<Record<ClientId, ClientDefinition>> = {
  'claude-desktop': claudeDesktop,
  'claude-code': claudeCode,
  codex,
  cursor,
  'gemini-cli': geminiCli,
  vscode,
  windsurf,
};

export function isClientId(id: string): id is ClientId {
  return (CLIENT_IDS as readonly string[]).includes(id);
}

export class UnknownClientError extends Error {
  readonly clientId: string;
  constructor(clientId: string) {
    super(`unknown client "${clientId}"; use one of: ${CLIENT_IDS.join(', ')}`);
    this.name = 'UnknownClientError';
    this.clientId = clientId;
  }
}

export function getClient(id: string): ClientDefinition {
  if (!isClientId(id)) throw new UnknownClientError(id);
  return CLIENTS[id];
}
