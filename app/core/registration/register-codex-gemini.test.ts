import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { type PlatformContext, nodePathProbe } from './clients.js';
import { ConfigFileError } from './config-file.js';
import { nodeValue, parseJson } from './jsonc.js';
import { registerClient, registrationStatus, unregisterClient } from './register.js';
import type { ServerEntry } from './server-entry.js';
import { parseToml } from './toml.js';

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

/** A temporary home folder, seen as a Linux machine with the given environment. */
async function home(env: Record<string, string> = {}): Promise<PlatformContext> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ps-register-cg-'));
  roots.push(dir);
  return { platform: 'linux', home: dir, env, fs: nodePathProbe };
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

const toml = async (file: string) => parseToml(await readFile(file, 'utf8')).value as Record<string, Record<string, unknown>>;

test('Codex: a new ~/.codex/config.toml holds our table as `codex mcp add` writes it, 0600', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.codex', 'config.toml');
  const result = await registerClient('codex', ENTRY, ctx);
  assert.deepEqual(result.paths, [file]);
  assert.equal(result.files[0].action, 'added');
  assert.match(result.message, /Added Python Session to Codex in .*config\.toml\.\nStart a new Codex session/);
  assert.equal(
    await readFile(file, 'utf8'),
    [
      '[mcp_servers.python-session]',
      'command = "/usr/bin/node"',
      'args = ["/opt/python-session/dist/app/cli/main.js"]',
      '',
      '[mcp_servers.python-session.env]',
      'PYTHON_MCP_INTERPRETER = "/opt/conda/bin/python"',
      '',
    ].join('\n'),
  );
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const [status] = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['codex'] });
  assert.equal(status.state, 'current');
  assert.equal(status.installed, true);
});

test('Codex: comments, other tables and servers stay; a second run changes nothing; removal gives the file back', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.codex', 'config.toml');
  const original = [
    '# ~/.codex/config.toml — my settings',
    'model = "gpt-5-codex"   # default model',
    'approval_policy = "on-request"',
    '',
    '[model_providers.local]',
    'name = "Local"',
    'base_url = "http://127.0.0.1:8080/v1"',
    '',
    '[mcp_servers.docs]',
    'command = "npx"',
    'args = ["-y", "docs-mcp"]',
    '',
    '[[profiles.extra]]',
    'name = "a"',
    '',
  ].join('\n');
  await put(file, original);

  const added = await registerClient('codex', ENTRY, ctx);
  assert.equal(added.backup, `${file}.python-session.bak`);
  assert.equal(await readFile(added.backup!, 'utf8'), original);
  const text = await readFile(file, 'utf8');
  assert.ok(text.startsWith(original.slice(0, original.indexOf('[[profiles.extra]]'))), 'everything up to our table is untouched');
  assert.ok(text.includes('# ~/.codex/config.toml — my settings\n') && text.includes('# default model\n'));
  const doc = await toml(file);
  assert.deepEqual(doc.mcp_servers, {
    docs: { command: 'npx', args: ['-y', 'docs-mcp'] },
    'python-session': { command: ENTRY.command, args: ENTRY.args, env: ENTRY.env },
  });
  assert.equal(doc.model, 'gpt-5-codex');

  await rm(added.backup!);
  const again = await registerClient('codex', ENTRY, ctx);
  assert.equal(again.changed, false);
  assert.match(again.message, /Codex already has the current Python Session entry/);
  assert.equal(await readFile(file, 'utf8'), text);
  assert.deepEqual((await readdir(path.dirname(file))).sort(), ['config.toml']);

  const removed = await unregisterClient('codex', ctx);
  assert.equal(removed.files[0].action, 'removed');
  assert.equal(await readFile(file, 'utf8'), original);
});

test('Codex: an update keeps what the user added to our table and says what changed', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.codex', 'config.toml');
  await put(
    file,
    [
      '[mcp_servers.python-session]',
      'command = "/old/node"',
      'args = ["/old/main.js"]',
      'tool_timeout_sec = 600 # long cells',
      '',
      '[mcp_servers.python-session.env]',
      'PYTHON_MCP_INTERPRETER = "/old/python"',
      'PYTHON_MCP_TIMEOUT = "900"',
      '',
    ].join('\n'),
  );
  const [stale] = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['codex'] });
  assert.equal(stale.state, 'stale');
  assert.deepEqual(stale.files[0].entry, { command: '/old/node', args: ['/old/main.js'], interpreter: '/old/python' });

  const result = await registerClient('codex', ENTRY, ctx);
  assert.equal(result.files[0].action, 'updated');
  assert.match(result.message, /command "\/old\/node" → "\/usr\/bin\/node"/);
  assert.match(result.message, /interpreter "\/old\/python" → "\/opt\/conda\/bin\/python"/);
  assert.equal(
    await readFile(file, 'utf8'),
    [
      '[mcp_servers.python-session]',
      'command = "/usr/bin/node"',
      'args = ["/opt/python-session/dist/app/cli/main.js"]',
      'tool_timeout_sec = 600 # long cells',
      '',
      '[mcp_servers.python-session.env]',
      'PYTHON_MCP_INTERPRETER = "/opt/conda/bin/python"',
      'PYTHON_MCP_TIMEOUT = "900"',
      '',
    ].join('\n'),
  );
  // Without an interpreter, the registered one is kept when asked to, else removed.
  assert.equal((await registerClient('codex', { ...ENTRY, env: {} }, { ...ctx, keepInterpreter: true })).changed, false);
  await registerClient('codex', { ...ENTRY, env: {} }, ctx);
  assert.deepEqual((await toml(file)).mcp_servers['python-session'], {
    command: ENTRY.command,
    args: ENTRY.args,
    tool_timeout_sec: 600,
    env: { PYTHON_MCP_TIMEOUT: '900' },
  });
});

test('Codex: CODEX_HOME is where the config goes', async () => {
  const ctx = await home();
  const codexHome = path.join(ctx.home, 'elsewhere', 'codex');
  const withHome = { ...ctx, env: { CODEX_HOME: codexHome } };
  const [before] = await registrationStatus({ ...withHome, clients: ['codex'] });
  assert.equal(before.state, 'not-installed');
  await mkdir(codexHome, { recursive: true });
  const result = await registerClient('codex', ENTRY, withHome);
  assert.deepEqual(result.paths, [path.join(codexHome, 'config.toml')]);
  assert.ok((await toml(path.join(codexHome, 'config.toml'))).mcp_servers['python-session']);
  await assert.rejects(stat(path.join(ctx.home, '.codex')), { code: 'ENOENT' });
});

test('Codex: a broken config.toml, or an inline mcp_servers, is refused and left byte for byte', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.codex', 'config.toml');
  const broken = '# mine\n[mcp_servers.docs]\ncommand = "npx\n';
  await put(file, broken);
  await assert.rejects(registerClient('codex', ENTRY, ctx), (e: unknown) => {
    assert.ok(e instanceof ConfigFileError);
    assert.equal(e.problem, 'parse');
    assert.match(e.message, /config\.toml: cannot parse it: line break inside a string .* at line 3, column 15; the file was left unchanged/);
    return true;
  });
  const [status] = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['codex'] });
  assert.equal(status.state, 'unreadable');

  const inline = 'mcp_servers = { docs = { command = "npx" } }\n';
  await put(file, inline);
  await assert.rejects(registerClient('codex', ENTRY, ctx), (e: unknown) => {
    assert.ok(e instanceof ConfigFileError);
    assert.equal(e.problem, 'shape');
    assert.match(e.message, /"mcp_servers" is written as an inline table/);
    return true;
  });
  assert.equal(await readFile(file, 'utf8'), inline);
  assert.deepEqual(await readdir(path.dirname(file)), ['config.toml']);
});

test('Gemini CLI: mcpServers in ~/.gemini/settings.json, its comments and other settings kept', async () => {
  const ctx = await home();
  const file = path.join(ctx.home, '.gemini', 'settings.json');
  const original = [
    '{',
    '  // Gemini reads comments in its settings',
    '  "general": { "vimMode": true },',
    '  "mcpServers": {',
    '    "docs": { "command": "npx", "args": ["-y", "docs-mcp"] }',
    '  }',
    '}',
    '',
  ].join('\n');
  await put(file, original);
  const [before] = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['gemini-cli'] });
  assert.equal(before.state, 'not-registered');

  const result = await registerClient('gemini-cli', ENTRY, ctx);
  assert.match(result.message, /Added Python Session to Gemini CLI in .*settings\.json\.\n.*\.python-session\.bak\.\nStart a new Gemini CLI session/);
  const text = await readFile(file, 'utf8');
  assert.ok(text.includes('  // Gemini reads comments in its settings\n'));
  const doc = nodeValue(parseJson(text, { comments: true }).root!) as Record<string, unknown>;
  assert.deepEqual(doc, {
    general: { vimMode: true },
    mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-mcp'] }, 'python-session': ENTRY },
  });
  const [after] = await registrationStatus({ ...ctx, expected: ENTRY, clients: ['gemini-cli'] });
  assert.equal(after.state, 'current');
  await unregisterClient('gemini-cli', ctx);
  assert.equal(await readFile(file, 'utf8'), original);
});

test('Gemini CLI: GEMINI_CLI_HOME stands in for the home folder; trailing commas are refused as Gemini refuses them', async () => {
  const ctx = await home();
  const alt = path.join(ctx.home, 'gem-home');
  const withHome = { ...ctx, env: { GEMINI_CLI_HOME: alt } };
  const result = await registerClient('gemini-cli', ENTRY, withHome);
  const file = path.join(alt, '.gemini', 'settings.json');
  assert.deepEqual(result.paths, [file]);
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { mcpServers: { 'python-session': ENTRY } });

  const trailing = '{\n  "mcpServers": {},\n}\n';
  await put(file, trailing);
  await assert.rejects(registerClient('gemini-cli', ENTRY, withHome), (e: unknown) => e instanceof ConfigFileError && e.problem === 'parse');
  assert.equal(await readFile(file, 'utf8'), trailing);
});
