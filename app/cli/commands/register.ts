/**
 * `python-session-mcp register` — add this install to an MCP client's config, remove it, or
 * show where every client stands.
 *
 *   register                         status of every client (same as --status)
 *   register <client>|all            add or update the entry
 *   register <client>|all --remove   remove it
 *
 * The work is done by core/registration; this module only parses arguments and prints.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  CLIENT_IDS,
  type ClientId,
  type ClientStatus,
  type PlatformContext,
  type RegistrationResult,
  type ThisInstallOptions,
  getClient,
  installWarnings,
  isClientId,
  registerClient,
  registrationStatus,
  thisInstallEntry,
  unregisterClient,
} from '../../core/registration/index.js';

export interface CommandIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** For tests and embedders: where to look instead of the real home, and how to build the entry. */
export interface RegisterCommandOptions {
  context?: Partial<PlatformContext>;
  thisInstall?: Omit<ThisInstallOptions, 'interpreter'>;
  /** The folder the person registers from (the working folder by default): Gemini CLI's folder trust is told for it. */
  folder?: string;
}

const processIO: CommandIO = {
  stdout: (s) => void process.stdout.write(s),
  stderr: (s) => void process.stderr.write(s),
};

export const REGISTER_USAGE = `Usage: python-session-mcp register [<client>|all] [options]

Adds Python Session to an MCP client's own config file, keeping everything else in it.
Without a client, lists every client and whether it is registered.

Clients, and the file each keeps its servers in:
  claude-desktop      Claude Desktop: claude_desktop_config.json in its app-data folder
  claude-code         Claude Code: ~/.claude.json (or in $CLAUDE_CONFIG_DIR)
  codex               Codex: ~/.codex/config.toml (or in $CODEX_HOME), a [mcp_servers.python-session] table
  cursor              Cursor: ~/.cursor/mcp.json
  gemini-cli          Gemini CLI: ~/.gemini/settings.json (it starts servers only in folders it trusts)
  vscode              VS Code: mcp.json in its user folder
  windsurf            Windsurf: ~/.codeium/windsurf/mcp_config.json
  all                 every client that is installed (with --remove: every one registered)

Options:
  --remove            remove the entry instead of adding it
  --interpreter PATH  Python interpreter for new sessions; without it, an interpreter already
                      registered with the client is kept, otherwise the daemon chooses
  --no-interpreter    remove a registered interpreter and let the daemon choose
  --dry-run           show what would change, write nothing
  --status            list the clients and their state (the default without a client)
  --json              with --status: print JSON
  -h, --help          show this help
`;

/** Runs the subcommand; `argv` is what follows `register`. Resolves to the exit code. */
export async function registerCommand(
  argv: string[],
  io: CommandIO = processIO,
  options: RegisterCommandOptions = {},
): Promise<number> {
  const out = (s: string) => io.stdout(s.endsWith('\n') ? s : `${s}\n`);
  const err = (s: string) => io.stderr(s.endsWith('\n') ? s : `${s}\n`);
  const usageError = (message: string) => {
    err(`python-session-mcp register: ${message}`);
    err('Run "python-session-mcp register --help" for usage.');
    return 2;
  };

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        remove: { type: 'boolean' },
        interpreter: { type: 'string' },
        'no-interpreter': { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        status: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    return usageError(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(REGISTER_USAGE);
    return 0;
  }
  if (positionals.length > 1) return usageError(`expected one client, got ${positionals.join(' ')}`);
  const target = positionals[0];
  if (target !== undefined && target !== 'all' && !isClientId(target)) {
    return usageError(`unknown client "${target}"; use one of: ${CLIENT_IDS.join(', ')}, or all`);
  }

  let interpreter: string | undefined;
  const noInterpreter = Boolean(values['no-interpreter']);
  if (noInterpreter && (values.interpreter !== undefined || values.remove)) {
    return usageError('--no-interpreter cannot be used with --interpreter or --remove');
  }
  if (values.interpreter !== undefined) {
    if (values.remove) return usageError('--interpreter cannot be used with --remove');
    interpreter = path.resolve(values.interpreter);
    // A typo here would only surface later, as a daemon that cannot start kernels.
    if (!existsSync(interpreter)) {
      return usageError(`no interpreter at ${interpreter}; give the full path (see "python-session-mcp interpreters")`);
    }
  }
  const entry = thisInstallEntry({ ...options.thisInstall, interpreter });
  const ctx = options.context ?? {};
  const folder = options.folder ?? workingFolder();

  if (target === undefined || values.status) {
    if (values.remove || values['dry-run']) return usageError('--remove and --dry-run need a client (or all)');
    const clients = target && target !== 'all' ? [target as ClientId] : undefined;
    const statuses = await registrationStatus({ ...ctx, expected: entry, clients, folder });
    if (values.json) out(JSON.stringify({ entry, clients: statuses }, null, 2));
    else out(formatStatus(statuses, entry.command, entry.args, interpreter));
    return 0;
  }
  if (values.json) return usageError('--json is only for --status');

  const remove = Boolean(values.remove);
  const dryRun = Boolean(values['dry-run']);
  let clients: ClientId[];
  if (target === 'all') {
    const statuses = await registrationStatus(ctx);
    const hasEntry = (s: ClientStatus) => s.files.some((f) => f.state !== 'absent');
    clients = statuses.filter((s) => (remove ? hasEntry(s) : s.installed || hasEntry(s))).map((s) => s.client);
    if (clients.length === 0) {
      if (remove) {
        out('No client has a Python Session entry; nothing to remove.');
        return 0;
      }
      err(
        `No supported MCP client found (${CLIENT_IDS.join(', ')}). ` +
          'To write a config anyway, name the client: python-session-mcp register <client>',
      );
      return 1;
    }
  } else {
    clients = [target as ClientId];
  }

  if (!remove) {
    for (const warning of installWarnings(entry)) err(`warning: ${warning}`);
    if (dryRun) out(`Entry: ${JSON.stringify(entry)}`);
  }
  let failures = 0;
  for (const id of clients) {
    try {
      const result: RegistrationResult = remove
        ? await unregisterClient(id, { ...ctx, dryRun })
        : await registerClient(id, entry, { ...ctx, dryRun, keepInterpreter: !interpreter && !noInterpreter, folder });
      out([result.message, ...result.notes].join('\n'));
    } catch (e) {
      failures++;
      err(`${getClient(id).name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return failures > 0 ? 1 : 0;
}

/** The folder the command runs in; undefined when it no longer exists (then the notes speak in general). */
function workingFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

const STATE_LABEL: Record<ClientStatus['state'], string> = {
  current: 'registered',
  stale: 'stale',
  registered: 'registered',
  'not-registered': 'not registered',
  'not-installed': 'not installed',
  unreadable: 'unreadable',
};

function formatStatus(statuses: ClientStatus[], command: string, args: string[], interpreter?: string): string {
  const lines = [`This install runs: ${[command, ...args].join(' ')}`];
  if (interpreter) lines.push(`with interpreter: ${interpreter}`);
  lines.push('');
  const idWidth = Math.max(...statuses.map((s) => s.client.length)) + 2;
  const stateWidth = Math.max(...Object.values(STATE_LABEL).map((l) => l.length)) + 2;
  const indent = ' '.repeat(2 + idWidth + stateWidth);
  for (const s of statuses) {
    const [first, ...others] = s.paths;
    lines.push(`  ${s.client.padEnd(idWidth)}${STATE_LABEL[s.state].padEnd(stateWidth)}${first}`);
    for (const other of others) lines.push(indent + other);
    const interpreters = new Set(s.files.map((f) => f.entry?.interpreter).filter((i) => i !== undefined));
    for (const i of interpreters) lines.push(`${indent}interpreter: ${i}`);
    for (const problem of s.problems) lines.push(`${indent}${problem}`);
    for (const note of s.notes) lines.push(`${indent}${note}`);
  }
  const todo = statuses.filter((s) => s.state === 'stale' || s.state === 'not-registered');
  if (todo.length > 0) {
    lines.push('', `To register: python-session-mcp register ${todo.length === 1 ? todo[0].client : 'all'}`);
  }
  return lines.join('\n');
}
