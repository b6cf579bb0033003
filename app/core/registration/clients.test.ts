import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CLIENTS,
  CLIENT_IDS,
  type PathProbe,
  type PlatformContext,
  UnknownClientError,
  getClient,
  isClientId,
} from './clients.js';
import { JSONC_FORMAT, JSON_WITH_COMMENTS_FORMAT, TOML_FORMAT } from './config-format.js';

/** A fake file system: a set of folders and files, matched case-insensitively on Windows. */
function fakeFs(dirs: string[], files: string[] = [], caseInsensitive = false): PathProbe {
  const norm = (p: string) => (caseInsensitive ? p.toLowerCase() : p).replace(/[\\/]+$/, '');
  const dirSet = new Set(dirs.map(norm));
  const fileSet = new Set(files.map(norm));
  const sep = caseInsensitive ? '\\' : '/';
  return {
    isDirectory: (p) => dirSet.has(norm(p)),
    isFile: (p) => fileSet.has(norm(p)),
    list: (dir) => {
      const prefix = norm(dir) + sep;
      const names = new Set<string>();
      for (const d of [...dirs, ...files]) {
        if (norm(d).startsWith(prefix)) names.add(d.slice(prefix.length).split(sep)[0]);
      }
      return [...names];
    },
  };
}

const entry = { command: '/usr/bin/node', args: ['/opt/ps/dist/app/cli/main.js'], env: { PYTHON_MCP_INTERPRETER: '/opt/conda/bin/python' } };

function ctx(partial: Partial<PlatformContext>): PlatformContext {
  return { platform: 'linux', home: '/home/ada', env: {}, fs: fakeFs([]), ...partial };
}

test('macOS paths', () => {
  const mac = ctx({ platform: 'darwin', home: '/Users/ada' });
  assert.deepEqual(CLIENTS['claude-desktop'].configPaths(mac), [
    '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
  ]);
  assert.deepEqual(CLIENTS.vscode.configPaths(mac), ['/Users/ada/Library/Application Support/Code/User/mcp.json']);
  assert.deepEqual(CLIENTS['claude-code'].configPaths(mac), ['/Users/ada/.claude.json']);
  assert.deepEqual(CLIENTS.cursor.configPaths(mac), ['/Users/ada/.cursor/mcp.json']);
  assert.deepEqual(CLIENTS.windsurf.configPaths(mac), ['/Users/ada/.codeium/windsurf/mcp_config.json']);
  assert.deepEqual(CLIENTS.codex.configPaths(mac), ['/Users/ada/.codex/config.toml']);
  assert.deepEqual(CLIENTS['gemini-cli'].configPaths(mac), ['/Users/ada/.gemini/settings.json']);
});

test('Linux paths, honouring XDG_CONFIG_HOME for the Electron apps', () => {
  const linux = ctx({});
  assert.deepEqual(CLIENTS['claude-desktop'].configPaths(linux), ['/home/ada/.config/Claude/claude_desktop_config.json']);
  assert.deepEqual(CLIENTS.vscode.configPaths(linux), ['/home/ada/.config/Code/User/mcp.json']);
  const xdg = ctx({ env: { XDG_CONFIG_HOME: '/data/cfg' } });
  assert.deepEqual(CLIENTS['claude-desktop'].configPaths(xdg), ['/data/cfg/Claude/claude_desktop_config.json']);
  assert.deepEqual(CLIENTS.vscode.configPaths(xdg), ['/data/cfg/Code/User/mcp.json']);
  // A relative XDG_CONFIG_HOME is invalid by the spec and ignored, as Electron does.
  assert.deepEqual(CLIENTS.vscode.configPaths(ctx({ env: { XDG_CONFIG_HOME: 'cfg' } })), ['/home/ada/.config/Code/User/mcp.json']);
});

test('Codex follows CODEX_HOME, Gemini CLI follows GEMINI_CLI_HOME', () => {
  assert.deepEqual(CLIENTS.codex.configPaths(ctx({})), ['/home/ada/.codex/config.toml']);
  assert.deepEqual(CLIENTS.codex.configPaths(ctx({ env: { CODEX_HOME: '/srv/codex-home' } })), ['/srv/codex-home/config.toml']);
  // An empty variable is unset, as for the other clients.
  assert.deepEqual(CLIENTS.codex.configPaths(ctx({ env: { CODEX_HOME: '' } })), ['/home/ada/.codex/config.toml']);
  const codexHome = ctx({ env: { CODEX_HOME: '/srv/codex-home' }, fs: fakeFs(['/srv/codex-home']) });
  assert.equal(CLIENTS.codex.isInstalled(codexHome), true);
  assert.equal(CLIENTS.codex.isInstalled(ctx({ fs: fakeFs(['/home/ada/.codex']) })), true);
  assert.equal(CLIENTS.codex.isInstalled(ctx({ env: { CODEX_HOME: '/srv/codex-home' }, fs: fakeFs(['/home/ada/.codex']) })), false);

  assert.deepEqual(CLIENTS['gemini-cli'].configPaths(ctx({})), ['/home/ada/.gemini/settings.json']);
  assert.deepEqual(CLIENTS['gemini-cli'].configPaths(ctx({ env: { GEMINI_CLI_HOME: '/srv/gem' } })), ['/srv/gem/.gemini/settings.json']);
  assert.equal(CLIENTS['gemini-cli'].isInstalled(ctx({ fs: fakeFs(['/home/ada/.gemini']) })), true);
  assert.deepEqual(CLIENTS.codex.configPaths(ctx({ platform: 'win32', home: 'C:\\Users\\Ada' })), ['C:\\Users\\Ada\\.codex\\config.toml']);
  assert.deepEqual(CLIENTS['gemini-cli'].configPaths(ctx({ platform: 'win32', home: 'C:\\Users\\Ada' })), ['C:\\Users\\Ada\\.gemini\\settings.json']);
});

test('Claude Code follows CLAUDE_CONFIG_DIR', () => {
  assert.deepEqual(CLIENTS['claude-code'].configPaths(ctx({ env: { CLAUDE_CONFIG_DIR: '/work/claude-alt' } })), [
    '/work/claude-alt/.claude.json',
  ]);
});

const WIN_HOME = 'C:\\Users\\Ada';
const WIN_ENV = { APPDATA: 'C:\\Users\\Ada\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\Ada\\AppData\\Local' };

test('Windows: Claude Desktop in %APPDATA% only, when no MSIX package exists', () => {
  const win = ctx({ platform: 'win32', home: WIN_HOME, env: WIN_ENV, fs: fakeFs(['C:\\Users\\Ada\\AppData\\Local\\Packages\\Microsoft.Other_123'], [], true) });
  assert.deepEqual(CLIENTS['claude-desktop'].configPaths(win), ['C:\\Users\\Ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json']);
  assert.equal(CLIENTS['claude-desktop'].isInstalled(win), false);
});

test('Windows: Claude Desktop MSIX package folder is found and written too', () => {
  const packages = 'C:\\Users\\Ada\\AppData\\Local\\Packages';
  const win = ctx({
    platform: 'win32',
    home: WIN_HOME,
    env: WIN_ENV,
    fs: fakeFs(
      [`${packages}\\Claude_pzs8sxrjxfjjc`, `${packages}\\Microsoft.WindowsTerminal_8wekyb3d8bbwe`],
      [`${packages}\\Claude.txt`],
      true,
    ),
  });
  assert.deepEqual(CLIENTS['claude-desktop'].configPaths(win), [
    'C:\\Users\\Ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    `${packages}\\Claude_pzs8sxrjxfjjc\\LocalCache\\Roaming\\Claude\\claude_desktop_config.json`,
  ]);
  assert.equal(CLIENTS['claude-desktop'].isInstalled(win), true);
});

test('Windows: environment names are case-insensitive, and defaults come from the home folder', () => {
  const win = ctx({ platform: 'win32', home: WIN_HOME, env: { appdata: 'D:\\Roam' } });
  assert.deepEqual(CLIENTS.vscode.configPaths(win), ['D:\\Roam\\Code\\User\\mcp.json']);
  const bare = ctx({ platform: 'win32', home: WIN_HOME, env: {} });
  assert.deepEqual(CLIENTS.vscode.configPaths(bare), ['C:\\Users\\Ada\\AppData\\Roaming\\Code\\User\\mcp.json']);
  assert.deepEqual(CLIENTS.cursor.configPaths(bare), ['C:\\Users\\Ada\\.cursor\\mcp.json']);
  assert.deepEqual(CLIENTS.windsurf.configPaths(bare), ['C:\\Users\\Ada\\.codeium\\windsurf\\mcp_config.json']);
  assert.deepEqual(CLIENTS['claude-code'].configPaths(bare), ['C:\\Users\\Ada\\.claude.json']);
});

test('installed means the client\'s config folder exists', () => {
  const home = '/home/ada';
  const linux = ctx({
    fs: fakeFs([`${home}/.cursor`, `${home}/.config/Code/User`, `${home}/.codeium/windsurf`], [`${home}/.claude.json`]),
  });
  assert.equal(CLIENTS.cursor.isInstalled(linux), true);
  assert.equal(CLIENTS.vscode.isInstalled(linux), true);
  assert.equal(CLIENTS.windsurf.isInstalled(linux), true);
  assert.equal(CLIENTS['claude-code'].isInstalled(linux), true);
  assert.equal(CLIENTS['claude-desktop'].isInstalled(linux), false);
  assert.equal(CLIENTS.cursor.isInstalled(ctx({})), false);
});

test('entry shapes: VS Code and Claude Code say "type": "stdio", the others do not', () => {
  assert.deepEqual(CLIENTS.vscode.shapeEntry(entry), { type: 'stdio', ...entry });
  assert.deepEqual(CLIENTS['claude-code'].shapeEntry(entry), { type: 'stdio', ...entry });
  for (const id of ['claude-desktop', 'codex', 'cursor', 'gemini-cli', 'windsurf'] as const) {
    assert.deepEqual(CLIENTS[id].shapeEntry(entry), entry, id);
  }
  assert.equal(CLIENTS.vscode.serversKey, 'servers');
  assert.equal(CLIENTS.vscode.format, JSONC_FORMAT);
  assert.equal(CLIENTS.codex.serversKey, 'mcp_servers');
  assert.equal(CLIENTS.codex.format, TOML_FORMAT);
  // Gemini CLI strips comments and then calls JSON.parse: comments yes, trailing commas no.
  assert.equal(CLIENTS['gemini-cli'].format, JSON_WITH_COMMENTS_FORMAT);
  for (const id of CLIENT_IDS.filter((c) => c !== 'vscode' && c !== 'codex')) assert.equal(CLIENTS[id].serversKey, 'mcpServers');
});

test('an empty env is left out of the entry', () => {
  assert.deepEqual(CLIENTS.cursor.shapeEntry({ ...entry, env: {} }), { command: entry.command, args: entry.args });
});

test('unknown clients are named in the error with the valid ids', () => {
  assert.equal(isClientId('cursor'), true);
  assert.equal(isClientId('emacs'), false);
  assert.throws(() => getClient('emacs'), (e: unknown) => {
    assert.ok(e instanceof UnknownClientError);
    assert.match(e.message, /unknown client "emacs"; use one of: claude-desktop, claude-code, codex, cursor, gemini-cli, vscode, windsurf/);
    return true;
  });
});
