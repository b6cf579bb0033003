/**
 * Codex, the real binary, driven by a script: `codex exec` with the built command as its only MCP
 * server, talking to the Responses API stand-in. The model is named gpt-5.5, a model Codex knows
 * (so it hides MCP tools behind tool_search and takes images, as it does for its users); unknown
 * models get fallback metadata.
 */
import { join } from 'node:path';
import { codexBinary } from './client-binaries.js';
import type { Step } from './model-script.js';
import { primeStateFolder, runScripted, SERVER_COMMAND, serverEnv, type ClientRun, type RunFolders } from './scripted-run.js';
import { PORT_PLACEHOLDER } from './session-spec.js';
import { SERVER_NAME } from './claude-run.js';

export const CODEX_MODEL = 'gpt-5.5';

const toml = (value: string) => JSON.stringify(value);

function configToml(env: Record<string, string>): string {
  return [
    `model = ${toml(CODEX_MODEL)}`,
    'model_provider = "stand_in"',
    'approval_policy = "never"',
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
    `[mcp_servers.${toml(SERVER_NAME)}]`,
    `command = ${toml(SERVER_COMMAND.command)}`,
    `args = [${SERVER_COMMAND.args.map(toml).join(', ')}]`,
    // Codex hands an MCP server only a few variables of its own environment; the rest go here.
    `env = { ${Object.entries(env).map(([k, v]) => `${k} = ${toml(v)}`).join(', ')} }`,
    'default_tools_approval_mode = "approve"',
    // Not `required`, as `register codex` writes it: Codex gives such a server about a second
    // (mcp_optional_startup_grace_ms) before it builds a turn without its tools, and the shim,
    // which has to start the daemon here, answers initialize and tools/list from the answers the
    // daemon wrote when it last ran (primeStateFolder) rather than after the daemon is up.
    '',
  ].join('\n');
}

export async function runCodex(folders: RunFolders, script: Step[]): Promise<ClientRun> {
  const binary = codexBinary();
  if (!binary) throw new Error('Codex is not installed');
  const codexHome = join(folders.root, 'codex-home');
  await primeStateFolder(folders);
  return runScripted({
    api: 'responses',
    script,
    folders,
    files: [{ path: join(codexHome, 'config.toml'), text: configToml(serverEnv(folders)) }],
    command: binary.command,
    args: [...binary.prefix, 'exec', '--skip-git-repo-check', '--ephemeral', '--json', '--dangerously-bypass-approvals-and-sandbox', 'Use the Python session tools as scripted.'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: folders.home,
      CODEX_HOME: codexHome,
      STAND_IN_API_KEY: 'sk-stand-in',
    },
  });
}
