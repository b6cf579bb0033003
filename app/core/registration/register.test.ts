import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLIENTS, type PlatformContext, nodePathProbe } from './clients.js';
import { ConfigFileError } from './config-file.js';
import { registerClient, registrationStatus, unregisterClient } from './register.js';
import type { ServerEntry } from './server-entry.js';

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

/** A temporary home folder, seen as a Linux machine with no environment overrides. */
async function home(): Promise<PlatformContext> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ps-register-'));
  roots.push(dir);
  return { platform: 'linux', home: dir, env: {}, fs: nodePathProbe };
}

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

const ENTRY: ServerEntry = {
  command: '/usr/bin/node',
  args: ['/opt/python-session/dist/app/cli/main.js'],
  env: { PYTHON_MCP_INTERPRETER: '/opt/conda/bin/python' },
};

const json = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

test('Claude Desktop: adds our entry, keeps other servers and unrelated keys, backs up, says restart', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.config', 'Claude', 'claude_desktop_config.json');
  const original = {
    mcpServers: { filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] } },
    globalShortcut: 'Ctrl+Space',
  };
  await put(file, JSON.stringify(original, null, 2));

  const result = await registerClient('claude-desktop', ENTRY, ctx);
  assert.equal(result.client, 'claude-desktop');
  assert.equal(result.changed, true);
  assert.deepEqual(result.paths, [file]);
  assert.equal(result.backup, `${file}.python-session.bak`);
  assert.deepEqual(result.files, [{ path: file, action: 'added', changes: [], backup: result.backup }]);
  assert.match(result.message, /Added Python Session to Claude Desktop in .*claude_desktop_config\.json\./);
  assert.match(result.message, /Quit Claude Desktop completely/);

  assert.deepEqual(await json(file), {
    mcpServers: { ...original.mcpServers, 'python-session': ENTRY },
    globalShortcut: 'Ctrl+Space',
  });
  assert.equal(await readFile(result.backup!, 'utf8'), JSON.stringify(original, null, 2));
  // Atomic write: only the config and its backup are left in the folder.
  assert.deepEqual((await readdir(path.dirname(file))).sort(), [
    'claude_desktop_config.json',
    'claude_desktop_config.json.python-session.bak',
  ]);
});

test('a second run changes nothing, writes no backup, and says so', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.cursor', 'mcp.json');
  await put(file, '{"mcpServers": {"other": {"command": "x"}}}');
  await registerClient('cursor', ENTRY, ctx);
  const backup = `${file}.python-session.bak`;
  await rm(backup);
  const before = await readFile(file);
  const mtime = (await stat(file)).mtimeMs;

  const again = await registerClient('cursor', ENTRY, ctx);
  assert.equal(again.changed, false);
  assert.equal(again.backup, undefined);
  assert.equal(again.files[0].action, 'unchanged');
  assert.match(again.message, /Cursor already has the current Python Session entry in .*; nothing changed\./);
  assert.doesNotMatch(again.message, /Restart/);
  assert.deepEqual(await readFile(file), before);
  assert.equal((await stat(file)).mtimeMs, mtime);
  await assert.rejects(stat(backup), { code: 'ENOENT' });
});

test('a malformed config is refused and left byte for byte as it was', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.cursor', 'mcp.json');
  const broken = '{\n  "mcpServers": {\n    "other": {"command": "x"}\n  \n'; // unclosed
  await put(file, broken);
  await assert.rejects(registerClient('cursor', ENTRY, ctx), (e: unknown) => {
    assert.ok(e instanceof ConfigFileError);
    assert.equal(e.problem, 'parse');
    assert.match(e.message, /cannot parse it: .* at line 5, column 1; the file was left unchanged/);
    return true;
  });
  await assert.rejects(unregisterClient('cursor', ctx), ConfigFileError);
  assert.equal(await readFile(file, 'utf8'), broken);
  assert.deepEqual(await readdir(path.dirname(file)), ['mcp.json']);
});

test('a servers key that is not an object is refused, not replaced', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json');
  await put(file, '{"mcpServers": ["not", "an", "object"]}');
  await assert.rejects(registerClient('windsurf', ENTRY, ctx), (e: unknown) => {
    assert.ok(e instanceof ConfigFileError);
    assert.equal(e.problem, 'shape');
    return true;
  });
  assert.equal(await readFile(file, 'utf8'), '{"mcpServers": ["not", "an", "object"]}');
});

test('a new config file is created 0600 with just our entry', async () => {
  const ctx = await home();
  const result = await registerClient('windsurf', ENTRY, ctx);
  const file = path.join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json');
  assert.deepEqual(result.paths, [file]);
  assert.equal(result.backup, undefined);
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.deepEqual(await json(file), { mcpServers: { 'python-session': ENTRY } });
});

test('Claude Code: top-level mcpServers in ~/.claude.json, project servers and state untouched', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.claude.json');
  const original = {
    numStartups: 42,
    projects: { '/src/app': { mcpServers: { local: { command: 'l' } }, allowedTools: [] } },
    oauthAccount: { emailAddress: 'ada@example.com' },
  };
  await put(file, JSON.stringify(original, null, 2));
  await registerClient('claude-code', ENTRY, ctx);
  const after = await json(file);
  assert.deepEqual(after, { ...original, mcpServers: { 'python-session': { type: 'stdio', ...ENTRY } } });
});

test('VS Code: "servers" key, "type": "stdio", comments and trailing commas preserved', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.config', 'Code', 'User', 'mcp.json');
  const original = [
    '{',
    '  // Servers I use at work',
    '  "servers": {',
    '    "github": {',
    '      "type": "http",',
    '      "url": "https://api.githubcopilot.com/mcp/", // remote',
    '    },',
    '  },',
    '  "inputs": [],',
    '}',
    '',
  ].join('\n');
  await put(file, original);

  const result = await registerClient('vscode', ENTRY, ctx);
  assert.equal(result.changed, true);
  const text = await readFile(file, 'utf8');
  assert.ok(text.includes('  // Servers I use at work\n'));
  assert.ok(text.includes('"url": "https://api.githubcopilot.com/mcp/", // remote'));
  assert.ok(text.includes('"inputs": [],'));
  const status = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['vscode'] });
  assert.equal(status[0].state, 'current');

  // Its value, read the way VS Code reads it (comments stripped), has both servers.
  const { parseJson, nodeValue } = await import('./jsonc.js');
  const doc = nodeValue(parseJson(text, { comments: true, trailingCommas: true }).root!) as Record<string, unknown>;
  assert.deepEqual(doc.servers, {
    github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' },
    'python-session': { type: 'stdio', ...ENTRY },
  });

  // Removing it gives back the original file exactly.
  const removed = await unregisterClient('vscode', ctx);
  assert.equal(removed.changed, true);
  assert.equal(await readFile(file, 'utf8'), original);
});

test('removal deletes only our entry; removing again, or from a missing file, changes nothing', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.cursor', 'mcp.json');
  await put(file, '{"mcpServers": {"other": {"command": "x"}}, "k": 1}');
  await registerClient('cursor', ENTRY, ctx);

  const removed = await unregisterClient('cursor', ctx);
  assert.equal(removed.changed, true);
  assert.equal(removed.files[0].action, 'removed');
  assert.match(removed.message, /Removed Python Session from Cursor in .*\.\n.*\nRestart Cursor/);
  assert.deepEqual(await json(file), { mcpServers: { other: { command: 'x' } }, k: 1 });

  const backupBefore = await readFile(`${file}.python-session.bak`);
  const again = await unregisterClient('cursor', ctx);
  assert.equal(again.changed, false);
  assert.match(again.message, /Cursor has no Python Session entry in .*; nothing changed\./);
  assert.deepEqual(await readFile(`${file}.python-session.bak`), backupBefore);

  const elsewhere = await home();
  const none = await unregisterClient('windsurf', elsewhere);
  assert.equal(none.changed, false);
  await assert.rejects(stat(path.join(elsewhere.home, '.codeium')), { code: 'ENOENT' });
});

test('re-registering updates our fields, keeps keys the user added, and reports what changed', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.cursor', 'mcp.json');
  const stale = {
    command: '/old/node',
    args: ['/old/main.js'],
    env: { PYTHON_MCP_INTERPRETER: '/old/python', PYTHON_MCP_TIMEOUT: '600' },
    disabled: false,
  };
  await put(file, JSON.stringify({ mcpServers: { 'python-session': stale } }, null, 2));

  const status = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['cursor'] });
  assert.equal(status[0].state, 'stale');
  assert.deepEqual(status[0].files[0].entry, { command: '/old/node', args: ['/old/main.js'], interpreter: '/old/python' });
  assert.deepEqual(status[0].problems, [
    'it runs "/old/node" instead of "/usr/bin/node"',
    'its arguments are ["/old/main.js"] instead of ["/opt/python-session/dist/app/cli/main.js"]',
    'it uses interpreter "/old/python" instead of "/opt/conda/bin/python"',
  ]);

  const result = await registerClient('cursor', ENTRY, ctx);
  assert.equal(result.files[0].action, 'updated');
  assert.match(result.message, /command "\/old\/node" → "\/usr\/bin\/node"/);
  assert.match(result.message, /interpreter "\/old\/python" → "\/opt\/conda\/bin\/python"/);
  assert.deepEqual((await json(file)).mcpServers['python-session'], {
    command: ENTRY.command,
    args: ENTRY.args,
    env: { PYTHON_MCP_TIMEOUT: '600', PYTHON_MCP_INTERPRETER: '/opt/conda/bin/python' },
    disabled: false,
  });

  // Registering without an interpreter removes ours (the daemon then chooses) but keeps theirs.
  const noInterp = await registerClient('cursor', { ...ENTRY, env: {} }, ctx);
  assert.match(noInterp.message, /interpreter "\/opt\/conda\/bin\/python" → \(chosen by the daemon\)/);
  assert.deepEqual((await json(file)).mcpServers['python-session'].env, { PYTHON_MCP_TIMEOUT: '600' });
});

test('a dry run reports the change and writes nothing', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.cursor', 'mcp.json');
  await put(file, '{}');
  const result = await registerClient('cursor', ENTRY, { ...ctx, dryRun: true });
  assert.equal(result.changed, true);
  assert.equal(result.dryRun, true);
  assert.equal(result.backup, undefined);
  assert.match(result.message, /Would add Python Session to Cursor/);
  assert.match(result.message, /Dry run: nothing was written\./);
  assert.equal(await readFile(file, 'utf8'), '{}');
  assert.deepEqual(await readdir(path.dirname(file)), ['mcp.json']);
});

test('status: not installed, not registered, current, stale, unreadable', async () => {
  const ctx = await home();
  await mkdir(path.join(ctx.home, '.cursor'));
  await put(path.join(ctx.home, '.codeium', 'windsurf', 'mcp_config.json'), '{"mcpServers": {,}}');
  await put(
    path.join(ctx.home, '.claude.json'),
    JSON.stringify({ mcpServers: { 'python-session': { type: 'stdio', ...ENTRY, command: '/elsewhere/node' } } }),
  );
  await registerClient('vscode', ENTRY, ctx);

  const byId = Object.fromEntries((await registrationStatus({ ...ctx, expected: ENTRY })).map((s) => [s.client, s]));
  assert.equal(byId['claude-desktop'].state, 'not-installed');
  assert.equal(byId['claude-desktop'].installed, false);
  assert.equal(byId.cursor.state, 'not-registered');
  assert.equal(byId.cursor.installed, true);
  assert.equal(byId.vscode.state, 'current');
  assert.deepEqual(byId.vscode.paths, [path.join(ctx.home, '.config', 'Code', 'User', 'mcp.json')]);
  assert.equal(byId['claude-code'].state, 'stale');
  assert.deepEqual(byId['claude-code'].problems, ['it runs "/elsewhere/node" instead of "/usr/bin/node"']);
  assert.equal(byId.windsurf.state, 'unreadable');
  assert.match(byId.windsurf.problems[0], /cannot parse it/);

  // Without an expected entry, entries are reported but not judged.
  const plain = await registrationStatus({ ...ctx, clients: ['claude-code'] });
  assert.equal(plain[0].state, 'registered');
  // Without an expected interpreter, the one in the file is not held against it.
  const anyInterp = await registrationStatus({ ...ctx, expected: { ...ENTRY, env: {} }, clients: ['vscode'] });
  assert.equal(anyInterp[0].state, 'current');
  assert.equal(anyInterp[0].files[0].entry?.interpreter, '/opt/conda/bin/python');
});

test('an entry of another kind under our name (a remote url server) is replaced, not merged', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.cursor', 'mcp.json');
  await put(file, JSON.stringify({ mcpServers: { 'python-session': { url: 'http://localhost:9/mcp', headers: { a: 'b' } } } }));
  await registerClient('cursor', ENTRY, ctx);
  assert.deepEqual((await json(file)).mcpServers['python-session'], ENTRY);
});

test('unknown clients are rejected before anything is read', async () => {
  const ctx = await home();
  await assert.rejects(registerClient('emacs', ENTRY, ctx), /unknown client "emacs"; use one of: claude-desktop, claude-code, codex, cursor, gemini-cli, vscode, windsurf/);
  await assert.rejects(unregisterClient('emacs', ctx), /unknown client/);
});

test('a client with several config files: one broken file means none is written', async () => {
  const ctx = await home();
  const a = path.join(ctx.home, 'Roaming', 'Claude', 'claude_desktop_config.json');
  const b = path.join(ctx.home, 'Packages', 'Claude_x', 'LocalCache', 'Roaming', 'Claude', 'claude_desktop_config.json');
  const twoFiles = { ...CLIENTS['claude-desktop'], configPaths: () => [a, b] };
  await put(a, '{"mcpServers": {}}');
  await put(b, '{"mcpServers": {');
  await assert.rejects(registerClient(twoFiles, ENTRY, ctx), ConfigFileError);
  assert.equal(await readFile(a, 'utf8'), '{"mcpServers": {}}');

  await put(b, '{"mcpServers": {"python-session": ' + JSON.stringify(ENTRY) + '}}');
  const result = await registerClient(twoFiles, ENTRY, ctx);
  assert.deepEqual(result.paths, [a, b]);
  assert.deepEqual(result.files.map((f) => f.action), ['added', 'unchanged']);
  assert.equal(result.backup, `${a}.python-session.bak`);
  assert.deepEqual((await json(a)).mcpServers['python-session'], ENTRY);
  assert.equal((await registerClient(twoFiles, ENTRY, ctx)).changed, false);
});
