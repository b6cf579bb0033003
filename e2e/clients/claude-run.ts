/**
 * Claude Code, the real binary, driven by a script: `claude -p` with the built command as its only
 * MCP server, talking to the Messages API stand-in.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeBinary } from './client-binaries.js';
import type { Step } from './model-script.js';
import { runScripted, SERVER_COMMAND, serverEnv, teed, type ClientRun, type RunFolders } from './scripted-run.js';
import { PORT_PLACEHOLDER } from './session-spec.js';

export const SERVER_NAME = 'python-session';

/**
 * Runs a script in Claude Code; `tools` are the server's tools it may call without asking.
 * `settings`: more of Claude Code's settings for this run (its hooks, for one), passed with --settings.
 */
export async function runClaude(folders: RunFolders, script: Step[], tools: string[], options: { settings?: Record<string, unknown> } = {}): Promise<ClientRun> {
  const binary = claudeBinary();
  if (!binary) throw new Error('Claude Code is not installed');
  const config = join(folders.root, 'mcp.json');
  // Through wire-tee.ts: the tests read which revision Claude Code spoke.
  writeFileSync(config, JSON.stringify({ mcpServers: { [SERVER_NAME]: { ...teed(SERVER_COMMAND, folders), env: serverEnv(folders) } } }));
  const settings = join(folders.root, 'claude-settings.json');
  if (options.settings) writeFileSync(settings, JSON.stringify(options.settings));
  return runScripted({
    api: 'anthropic',
    script,
    folders,
    command: binary.command,
    args: [
      ...binary.prefix,
      '-p',
      'Use the Python session tools as scripted.',
      '--mcp-config',
      config,
      '--strict-mcp-config',
      '--allowedTools',
      tools.map((t) => `mcp__${SERVER_NAME}__${t}`).join(','),
      '--output-format',
      'stream-json',
      '--verbose',
      ...(options.settings ? ['--settings', settings] : []),
    ],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: folders.home,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${PORT_PLACEHOLDER}`,
      ANTHROPIC_API_KEY: 'sk-ant-stand-in',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  });
}
