import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLIENTS, CLIENT_IDS, nodePathProbe } from '../../core/registration/index.js';
import { parseToml } from '../../core/registration/toml.js';
import { type RegisterCommandOptions, registerCommand } from './register.js';

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary home with a fake built CLI, so no test touches the real user's configs. */
async function setup(): Promise<{ home: string; cli: string; run: (...argv: string[]) => Promise<Run> }> {
  const home = await mkdtemp(path.join(tmpdir(), 'ps-register-cli-'));
  roots.push(home);
  const cli = path.join(home, 'pkg', 'dist', 'app', 'cli', 'main.js');
  await mkdir(path.dirname(cli), { recursive: true });
  await writeFile(cli, '');
  const options: RegisterCommandOptions = {
    context: { platform: 'linux', home, env: {}, fs: nodePathProbe },
    thisInstall: { execPath: process.execPath, cliPath: cli, electron: false },
  };
  const run = async (...argv: string[]): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await registerCommand(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, options);
    return { code, stdout, stderr };
  };
  return { home, cli, run };
}

test('an unknown client is a usage error that lists the valid ids', async () => {
  const { run } = await setup();
  const r = await run('emacs');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /unknown client "emacs"; use one of: claude-desktop, claude-code, codex, cursor, gemini-cli, vscode, windsurf, or all/);
});

test('bad options are usage errors', async () => {
  const { run } = await setup();
  assert.equal((await run('cursor', '--frobnicate')).code, 2);
  assert.equal((await run('cursor', 'vscode')).code, 2);
  assert.match((await run('cursor', '--remove', '--interpreter', '/usr/bin/env')).stderr, /cannot be used with --remove/);
  assert.match((await run('cursor', '--interpreter', '/no/such/python')).stderr, /no interpreter at \/no\/such\/python/);
  assert.match((await run('--remove')).stderr, /need a client/);
});

test('--help prints the usage', async () => {
  const { run } = await setup();
  const r = await run('--help');
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: python-session-mcp register \[<client>\|all\]/);
  // Every client is listed with its name, and where its config is.
  for (const id of CLIENT_IDS) assert.match(r.stdout, new RegExp(`^  ${id} +${CLIENTS[id].name}: `, 'm'), id);
  assert.match(r.stdout, /codex +Codex: ~\/\.codex\/config\.toml \(or in \$CODEX_HOME\)/);
});

test('codex and gemini-cli: register, status, remove', async () => {
  const { home, cli, run } = await setup();
  const codexFile = path.join(home, '.codex', 'config.toml');
  await mkdir(path.dirname(codexFile));
  await writeFile(codexFile, '# mine\nmodel = "o3"\n');
  const added = await run('codex');
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /Added Python Session to Codex in .*config\.toml\./);
  const text = await readFile(codexFile, 'utf8');
  assert.ok(text.startsWith('# mine\nmodel = "o3"\n\n[mcp_servers.python-session]\n'), text);
  assert.deepEqual(parseToml(text).value, { model: 'o3', mcp_servers: { 'python-session': { command: process.execPath, args: [cli] } } });

  await mkdir(path.join(home, '.gemini'));
  const all = await run('all');
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /Codex already has the current Python Session entry/);
  assert.match(all.stdout, /Added Python Session to Gemini CLI/);
  const gemini = JSON.parse(await readFile(path.join(home, '.gemini', 'settings.json'), 'utf8'));
  assert.deepEqual(gemini.mcpServers['python-session'], { command: process.execPath, args: [cli] });

  const status = await run();
  assert.match(status.stdout, /codex\s+registered\s+.*\.codex\/config\.toml/);
  assert.match(status.stdout, /gemini-cli\s+registered\s+.*\.gemini\/settings\.json/);

  const removed = await run('codex', '--remove');
  assert.equal(removed.code, 0);
  assert.equal(await readFile(codexFile, 'utf8'), '# mine\nmodel = "o3"\n');
});

test('register, again, status, remove: the whole round trip', async () => {
  const { home, cli, run } = await setup();
  const file = path.join(home, '.cursor', 'mcp.json');
  await mkdir(path.dirname(file));
  await writeFile(file, '{"mcpServers": {"other": {"command": "x"}}}');

  const first = await run('cursor', '--interpreter', process.execPath);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /Added Python Session to Cursor/);
  assert.match(first.stdout, /Restart Cursor/);
  const doc = JSON.parse(await readFile(file, 'utf8'));
  assert.deepEqual(doc.mcpServers['python-session'], {
    command: process.execPath,
    args: [cli],
    env: { PYTHON_MCP_INTERPRETER: process.execPath },
  });
  assert.deepEqual(doc.mcpServers.other, { command: 'x' });

  const second = await run('cursor', '--interpreter', process.execPath);
  assert.equal(second.code, 0);
  assert.match(second.stdout, /already has the current Python Session entry.*nothing changed/);

  const status = await run();
  assert.equal(status.code, 0);
  assert.match(status.stdout, /This install runs: .*main\.js/);
  assert.match(status.stdout, /cursor\s+registered\s+.*\.cursor\/mcp\.json/);
  assert.match(status.stdout, new RegExp(`interpreter: ${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(status.stdout, /claude-desktop\s+not installed/);

  const json = await run('--status', '--json');
  const parsed = JSON.parse(json.stdout) as { clients: { client: string; state: string }[] };
  assert.equal(parsed.clients.find((c) => c.client === 'cursor')?.state, 'current');

  const removed = await run('cursor', '--remove');
  assert.equal(removed.code, 0);
  assert.match(removed.stdout, /Removed Python Session from Cursor/);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { mcpServers: { other: { command: 'x' } } });
});

test('status marks a stale entry and says how to fix it', async () => {
  const { home, run } = await setup();
  await mkdir(path.join(home, '.cursor'));
  await writeFile(
    path.join(home, '.cursor', 'mcp.json'),
    JSON.stringify({ mcpServers: { 'python-session': { command: '/old/node', args: ['/old/main.js'] } } }),
  );
  const r = await run('--status');
  assert.match(r.stdout, /cursor\s+stale/);
  assert.match(r.stdout, /it runs "\/old\/node" instead of/);
  assert.match(r.stdout, /To register: python-session-mcp register cursor/);
});

test('all registers every installed client and skips the rest', async () => {
  const { home, run } = await setup();
  await mkdir(path.join(home, '.cursor'));
  await mkdir(path.join(home, '.config', 'Code', 'User'), { recursive: true });
  const r = await run('all');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Added Python Session to Cursor/);
  assert.match(r.stdout, /Added Python Session to VS Code/);
  assert.doesNotMatch(r.stdout, /Windsurf|Claude/);
  const vscode = JSON.parse(await readFile(path.join(home, '.config', 'Code', 'User', 'mcp.json'), 'utf8'));
  assert.equal(vscode.servers['python-session'].type, 'stdio');
  await assert.rejects(stat(path.join(home, '.codeium')), { code: 'ENOENT' });

  const removeAll = await run('all', '--remove');
  assert.equal(removeAll.code, 0);
  assert.match(removeAll.stdout, /Removed Python Session from Cursor/);
  assert.match(removeAll.stdout, /Removed Python Session from VS Code/);
});

test('all with no client installed fails with a hint', async () => {
  const { run } = await setup();
  const r = await run('all');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /No supported MCP client found/);
});

test('a broken config is reported, exit 1, and the others still get registered', async () => {
  const { home, run } = await setup();
  await mkdir(path.join(home, '.cursor'));
  await writeFile(path.join(home, '.cursor', 'mcp.json'), '{"mcpServers": ');
  await mkdir(path.join(home, '.codeium', 'windsurf'), { recursive: true });
  const r = await run('all');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Cursor: .*mcp\.json: cannot parse it: .*; the file was left unchanged/);
  assert.match(r.stdout, /Added Python Session to Windsurf/);
  assert.equal(await readFile(path.join(home, '.cursor', 'mcp.json'), 'utf8'), '{"mcpServers": ');
});

test('--dry-run shows the entry and writes nothing', async () => {
  const { home, run } = await setup();
  const r = await run('windsurf', '--dry-run');
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Entry: \{"command":/);
  assert.match(r.stdout, /Would add Python Session to Windsurf/);
  await assert.rejects(stat(path.join(home, '.codeium')), { code: 'ENOENT' });
});

test('without --interpreter a registered interpreter is kept; --no-interpreter removes it', async () => {
  const { home, run } = await setup();
  const file = path.join(home, '.cursor', 'mcp.json');
  await mkdir(path.dirname(file));
  await writeFile(
    file,
    JSON.stringify({ mcpServers: { 'python-session': { command: '/old/node', args: ['/old.js'], env: { PYTHON_MCP_INTERPRETER: '/envs/ds/bin/python' } } } }),
  );
  const refresh = await run('cursor');
  assert.equal(refresh.code, 0, refresh.stderr);
  assert.match(refresh.stdout, /command "\/old\/node" →/);
  assert.doesNotMatch(refresh.stdout, /interpreter/);
  const kept = JSON.parse(await readFile(file, 'utf8')).mcpServers['python-session'];
  assert.equal(kept.command, process.execPath);
  assert.deepEqual(kept.env, { PYTHON_MCP_INTERPRETER: '/envs/ds/bin/python' });
  assert.match((await run('cursor')).stdout, /nothing changed/);

  const cleared = await run('cursor', '--no-interpreter');
  assert.match(cleared.stdout, /interpreter "\/envs\/ds\/bin\/python" → \(chosen by the daemon\)/);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')).mcpServers['python-session'].env, {});
});

test('gemini-cli: register and the status tell when the folder it runs from is not trusted by Gemini CLI', async () => {
  const home = await mkdtemp(path.join(tmpdir(), 'ps-register-cli-'));
  roots.push(home);
  const project = path.join(home, 'project');
  await mkdir(path.join(home, '.gemini'), { recursive: true });
  await mkdir(project);
  const cli = path.join(home, 'pkg', 'dist', 'app', 'cli', 'main.js');
  const env = { GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(home, 'no-system-settings.json') };
  const options: RegisterCommandOptions = {
    context: { platform: 'linux', home, env, fs: nodePathProbe },
    thisInstall: { execPath: process.execPath, cliPath: cli, electron: false },
    folder: project,
  };
  const run = async (...argv: string[]): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await registerCommand(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, options);
    return { code, stdout, stderr };
  };
  const added = await run('gemini-cli');
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /^Added Python Session to Gemini CLI in .*\nStart a new Gemini CLI session.*\nGemini CLI does not trust .*project \(folder trust is on/);
  assert.match(added.stdout, /or add ".*project": "TRUST_FOLDER" to .*trustedFolders\.json\.\n$/);
  const status = await run();
  assert.match(status.stdout, /gemini-cli +registered +\S+settings\.json\n +Gemini CLI does not trust /);

  await writeFile(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
  assert.doesNotMatch((await run('gemini-cli')).stdout, /does not trust/);
  assert.doesNotMatch((await run()).stdout, /does not trust/);
});
