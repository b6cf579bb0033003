/**
 * Codex, the real binary, driven by a script: `codex exec` with Python Session as its only MCP
 * server, talking to the Responses API stand-in. The model is named gpt-5.5, a model Codex knows
 * (so it hides MCP tools behind tool_search and takes images, as it does for its users); unknown
 * models get fallback metadata.
 *
 * As a new user gets it: the server's entry is what `register codex` writes, and its state folder
 * is the default one under the run's HOME, where no daemon has ever run. So the shim has to
 * start the daemon, and answers initialize (or server/discover) and tools/list from the answers
 * that come with the package: Codex gives an optional server about a second
 * (mcp_optional_startup_grace_ms) before it builds a turn without its tools.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentPlatform, resolveStateDir } from '../../app/core/daemon/state-paths.js';
import { TEST_PYTHON } from '../../app/core/testing/test-python.js';
import { CLI } from '../support/mcp-harness.js';
import { codexBinary } from './client-binaries.js';
import type { Step } from './model-script.js';
import { runScripted, teed, type ClientRun, type RunFolders } from './scripted-run.js';
import { PORT_PLACEHOLDER } from './session-spec.js';

export const CODEX_MODEL = 'gpt-5.5';

/** How Codex talks MCP: as users get it (the initialize handshake), or with its 2026-07-28 support switched on. */
export type CodexRevision = 'handshake' | '2026-07-28';

/** The feature that switches Codex 0.171's MCP 2026-07-28 support on (under development there). */
export const CODEX_2026_FEATURE = 'mcp_2026_07_28';

const toml = (value: string) => JSON.stringify(value);

/** Everything but the MCP server: the stand-in model provider. */
function standInToml(): string {
  return [
    `model = ${toml(CODEX_MODEL)}`,
    'model_provider = "stand_in"',
    'approval_policy = "never"',
    'suppress_unstable_features_warning = true',
    '',
    // Analytics on, Codex waits about 5 s at exit trying to send them out of the namespace.
    '[analytics]',
    'enabled = false',
    '',
    // Else Codex fetches its curated plugins with git from github.com at every start.
    '[features]',
    'plugins = false',
    '',
    '[model_providers.stand_in]',
    'name = "Responses API stand-in"',
    `base_url = "http://127.0.0.1:${PORT_PLACEHOLDER}/v1"`,
    'wire_api = "responses"',
    'env_key = "STAND_IN_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

/** The state folder a server started by Codex uses: the default under the run's HOME (Codex passes HOME on, not PYTHON_MCP_HOME). */
function defaultStateFolder(home: string): string {
  return resolveStateDir({ ...currentPlatform(), env: { HOME: home }, homedir: home });
}

/**
 * What `register codex --interpreter <test python>` writes for this install, with the command run
 * through wire-tee.ts (so the tests read what Codex said) and, for 2026-07-28, the variable with
 * which Codex 0.171 speaks that revision to a stdio server (its feature flag alone does not).
 */
function registeredEntry(folders: RunFolders, codexHome: string, revision: CodexRevision): string {
  const registered = spawnSync(process.execPath, [CLI, 'register', 'codex', '--interpreter', TEST_PYTHON], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: folders.home, CODEX_HOME: codexHome },
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (registered.status !== 0) throw new Error(`register codex failed: ${registered.stderr}${registered.stdout}`);
  let entry = readFileSync(join(codexHome, 'config.toml'), 'utf8');
  const command = /^command = (".*")$/m.exec(entry);
  const args = /^args = \[(.*)\]$/m.exec(entry);
  if (!command || !args) throw new Error(`register codex wrote no command and args:\n${entry}`);
  const tee = teed({ command: JSON.parse(command[1]) as string, args: JSON.parse(`[${args[1]}]`) as string[] }, folders);
  entry = entry.replace(command[0], `command = ${toml(tee.command)}`).replace(args[0], `args = [${tee.args.map(toml).join(', ')}]`);
  if (revision === '2026-07-28') {
    if (!/^\[mcp_servers\.python-session\.env\]$/m.test(entry)) throw new Error(`register codex wrote no env table:\n${entry}`);
    entry = entry.trimEnd() + `\nCODEX_MCP_PROTOCOL_VERSION = ${toml('2026-07-28')}\n`;
  }
  return entry;
}

/** Whether this Codex knows the 2026-07-28 feature; the reason to skip when it does not. */
export function codex2026Refusal(): string | false {
  const binary = codexBinary();
  if (!binary) return 'Codex is not installed';
  const listed = spawnSync(binary.command, [...binary.prefix, 'features', 'list'], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '' } });
  if (!new RegExp(`^${CODEX_2026_FEATURE}\\s`, 'm').test(listed.stdout ?? '')) return `this Codex has no feature ${CODEX_2026_FEATURE} (codex features list: ${(listed.stdout || listed.stderr || '').slice(0, 300)})`;
  return false;
}

export async function runCodex(folders: RunFolders, script: Step[], revision: CodexRevision = 'handshake'): Promise<ClientRun> {
  const binary = codexBinary();
  if (!binary) throw new Error('Codex is not installed');
  const codexHome = join(folders.root, 'codex-home');
  mkdirSync(codexHome, { recursive: true });
  // The server's state folder is the one Codex's environment leads it to; the run's cleanup stops that daemon.
  folders.state = defaultStateFolder(folders.home);
  if (existsSync(folders.state)) throw new Error(`the state folder ${folders.state} exists: a daemon ran there before`);
  const config = standInToml() + '\n' + registeredEntry(folders, codexHome, revision);
  return runScripted({
    api: 'responses',
    script,
    folders,
    files: [{ path: join(codexHome, 'config.toml'), text: config }],
    command: binary.command,
    args: [
      ...binary.prefix,
      'exec',
      ...(revision === '2026-07-28' ? ['--enable', CODEX_2026_FEATURE] : []),
      '--skip-git-repo-check',
      '--ephemeral',
      '--json',
      '--dangerously-bypass-approvals-and-sandbox',
      'Use the Python session tools as scripted.',
    ],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: folders.home,
      CODEX_HOME: codexHome,
      STAND_IN_API_KEY: 'sk-stand-in',
    },
  });
}
