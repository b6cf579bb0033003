/**
 * The server entry for this very install: absolute paths to the Node binary running us and to
 * the built CLI next to this module.
 *
 * Absolute paths, not `npx python-session-mcp` or a bare `node`: MCP clients start servers with
 * a minimal PATH (Claude Desktop on macOS does not read the shell profile, so nvm/Homebrew Node
 * is invisible to it), and npx adds seconds of start-up and a network check to every launch.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELECTRON_RUN_AS_NODE_ENV, INTERPRETER_ENV, type ServerEntry } from './server-entry.js';

export interface ThisInstallOptions {
  /** The interpreter new kernels should use; omitted means the daemon discovers one. */
  interpreter?: string;
  /** Defaults to process.execPath. */
  execPath?: string;
  /** Defaults to the built CLI beside this module (dist/app/cli/main.js). */
  cliPath?: string;
  /** Whether execPath is an Electron binary; defaults to whether we run inside Electron. */
  electron?: boolean;
  /** Resolves symlinks; undefined when the path does not exist. Injectable for tests. */
  realpath?: (p: string) => string | undefined;
}

/** The built CLI entry point, found from this module's own location (dist/app/core/registration/). */
export function builtCliPath(): string {
  return fileURLToPath(new URL('../../cli/main.js', import.meta.url));
}

export function thisInstallEntry(options: ThisInstallOptions = {}): ServerEntry {
  const realpath = options.realpath ?? defaultRealpath;
  const env: Record<string, string> = {};
  if (options.interpreter) env[INTERPRETER_ENV] = path.resolve(options.interpreter);
  // Inside the tray app process.execPath is the Electron binary; this variable makes it run the
  // CLI as plain Node instead of opening a second copy of the app.
  if (options.electron ?? Boolean(process.versions.electron)) env[ELECTRON_RUN_AS_NODE_ENV] = '1';
  return {
    command: stableNodePath(options.execPath ?? process.execPath, realpath),
    args: [options.cliPath ?? builtCliPath()],
    env,
  };
}

/**
 * Node reports its own path with symlinks resolved. For Homebrew that is a versioned Cellar
 * folder (/opt/homebrew/Cellar/node/22.1.0/bin/node) which `brew upgrade` deletes, breaking the
 * registration. Prefer the formula's stable link (/opt/homebrew/opt/node/bin/node) or the
 * prefix's bin/node — but only when it really points at the same binary.
 */
export function stableNodePath(execPath: string, realpath: (p: string) => string | undefined = defaultRealpath): string {
  const m = /^(.*)\/Cellar\/(node(?:@[\d.]+)?)\/[^/]+\/bin\/node$/.exec(execPath);
  if (!m) return execPath;
  const [, prefix, formula] = m;
  const actual = realpath(execPath) ?? execPath;
  for (const candidate of [`${prefix}/opt/${formula}/bin/node`, `${prefix}/bin/node`]) {
    if (realpath(candidate) === actual) return candidate;
  }
  return execPath;
}

/** Things about this install that would make a registration fragile, for the user to read. */
export function installWarnings(entry: ServerEntry, exists: (p: string) => boolean = existsSync): string[] {
  const warnings: string[] = [];
  const cli = entry.args[0];
  if (cli !== undefined && !exists(cli)) {
    warnings.push(`${cli} does not exist yet; build the package (npm run build) before starting the client.`);
  }
  if (cli !== undefined && /[\\/]_npx[\\/]/.test(cli)) {
    warnings.push(
      'This copy runs from npx\'s cache, which npm may clear at any time. For a lasting registration, ' +
        'install it (npm install -g python-session-mcp) and register from the installed copy.',
    );
  }
  if (!exists(entry.command)) warnings.push(`${entry.command} does not exist.`);
  return warnings;
}

function defaultRealpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}
