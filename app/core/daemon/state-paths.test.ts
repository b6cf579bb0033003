import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  UNIX_SOCKET_PATH_LIMIT,
  UnsafeFolderError,
  daemonFiles,
  ensurePrivateDir,
  resolveStateDir,
  socketLocation,
  type PlatformContext,
} from './state-paths.js';

const linux = (env: Record<string, string> = {}): PlatformContext => ({
  platform: 'linux',
  env,
  homedir: '/home/ada',
  tmpdir: '/tmp',
  username: 'ada',
  uid: 1000,
});
const mac = (env: Record<string, string> = {}): PlatformContext => ({
  platform: 'darwin',
  env,
  homedir: '/Users/ada',
  tmpdir: '/var/folders/xy/abcdefghijklmnopqrstuvwxyz01/T',
  username: 'ada',
  uid: 501,
});
const windows = (env: Record<string, string> = {}): PlatformContext => ({
  platform: 'win32',
  env,
  homedir: 'C:\\Users\\Ada Lovelace',
  tmpdir: 'C:\\Users\\Ada Lovelace\\AppData\\Local\\Temp',
  username: 'Ada Lovelace',
  uid: null,
});

describe('the state folder', () => {
  test('PYTHON_MCP_HOME wins everywhere, made absolute', () => {
    assert.equal(resolveStateDir(linux({ PYTHON_MCP_HOME: '/srv/ps', XDG_STATE_HOME: '/x' })), '/srv/ps');
    assert.equal(resolveStateDir(mac({ PYTHON_MCP_HOME: '/Volumes/data/ps' })), '/Volumes/data/ps');
    assert.equal(resolveStateDir(windows({ PYTHON_MCP_HOME: 'D:\\ps', LOCALAPPDATA: 'C:\\L' })), 'D:\\ps');
    assert.equal(resolveStateDir(linux({ PYTHON_MCP_HOME: 'relative/dir' })), join(process.cwd(), 'relative/dir'));
  });

  test('Linux: XDG_STATE_HOME when absolute, else ~/.local/state', () => {
    assert.equal(resolveStateDir(linux()), '/home/ada/.local/state/python-session');
    assert.equal(resolveStateDir(linux({ XDG_STATE_HOME: '/data/state' })), '/data/state/python-session');
    assert.equal(resolveStateDir(linux({ XDG_STATE_HOME: 'not/absolute' })), '/home/ada/.local/state/python-session');
  });

  test('macOS: Application Support', () => {
    assert.equal(resolveStateDir(mac()), '/Users/ada/Library/Application Support/Python Session');
  });

  test('Windows: %LOCALAPPDATA%, else the profile\'s AppData\\Local', () => {
    assert.equal(resolveStateDir(windows({ LOCALAPPDATA: 'C:\\Users\\Ada Lovelace\\AppData\\Local' })), 'C:\\Users\\Ada Lovelace\\AppData\\Local\\PythonSession');
    assert.equal(resolveStateDir(windows()), 'C:\\Users\\Ada Lovelace\\AppData\\Local\\PythonSession');
  });

  test('the daemon\'s files sit in it', () => {
    const files = daemonFiles('/home/ada/.local/state/python-session', linux());
    assert.equal(files.lock, '/home/ada/.local/state/python-session/daemon.lock');
    assert.equal(files.info, '/home/ada/.local/state/python-session/daemon.json');
    assert.equal(files.log, '/home/ada/.local/state/python-session/daemon.log');
    assert.equal(daemonFiles('C:\\L\\PythonSession', windows()).lock, 'C:\\L\\PythonSession\\daemon.lock');
  });
});

describe('the socket', () => {
  test('is daemon.sock in the state folder when the path fits', () => {
    assert.deepEqual(socketLocation('/home/ada/.local/state/python-session', linux()), {
      path: '/home/ada/.local/state/python-session/daemon.sock',
      privateDir: null,
    });
  });

  test('moves to an owner-only folder under XDG_RUNTIME_DIR when the state path is too long', () => {
    const deep = `/home/ada/${'very-long-folder-name/'.repeat(5)}python-session`;
    const location = socketLocation(deep, linux({ XDG_RUNTIME_DIR: '/run/user/1000' }));
    assert.match(location.path, /^\/run\/user\/1000\/python-session-1000-[0-9a-f]{16}\/daemon\.sock$/);
    assert.equal(location.privateDir, location.path.replace(/\/daemon\.sock$/, ''));
    assert.ok(Buffer.byteLength(location.path) <= UNIX_SOCKET_PATH_LIMIT);
  });

  test('falls back to tmp without a runtime folder, and each state folder gets its own socket', () => {
    const a = socketLocation(`/home/ada/${'x'.repeat(120)}/a`, linux());
    const b = socketLocation(`/home/ada/${'x'.repeat(120)}/b`, linux());
    assert.match(a.path, /^\/tmp\/python-session-1000-[0-9a-f]{16}\/daemon\.sock$/);
    assert.notEqual(a.path, b.path);
    assert.equal(a.path, socketLocation(`/home/ada/${'x'.repeat(120)}/a`, linux()).path, 'stable for the same folder');
  });

  test('counts bytes, not characters', () => {
    // 30 three-byte characters: 30 characters but 90 bytes, which with the rest passes 100.
    const location = socketLocation(`/home/ada/${'é'.repeat(15)}${'日'.repeat(20)}`, linux());
    assert.notEqual(location.privateDir, null);
  });

  test('on macOS a long tmp path gives way to /tmp', () => {
    const longTmp: PlatformContext = { ...mac(), tmpdir: `/var/folders/${'q'.repeat(60)}/T` };
    const location = socketLocation(`/Users/ada/${'deep/'.repeat(20)}`, longTmp);
    assert.match(location.path, /^\/tmp\/python-session-501-/);
  });

  test('on Windows is a named pipe per user and state folder, case-insensitively', () => {
    const location = socketLocation('C:\\Users\\Ada Lovelace\\AppData\\Local\\PythonSession', windows());
    assert.match(location.path, /^\\\\\.\\pipe\\python-session-Ada_Lovelace-[0-9a-f]{16}$/);
    assert.equal(location.privateDir, null);
    assert.equal(socketLocation('c:\\users\\ada lovelace\\appdata\\local\\pythonsession', windows()).path, location.path);
    assert.notEqual(socketLocation('D:\\elsewhere', windows()).path, location.path);
  });
});

describe('ensurePrivateDir', { skip: process.platform === 'win32' }, () => {
  test('creates the folder 0700 and tightens a looser one', () => {
    const root = mkdtempSync(join(tmpdir(), 'ps-private-'));
    try {
      const created = join(root, 'a', 'b');
      ensurePrivateDir(created);
      assert.equal(statSync(created).mode & 0o777, 0o700);
      const loose = join(root, 'loose');
      mkdirSync(loose, { mode: 0o755 });
      ensurePrivateDir(loose);
      assert.equal(statSync(loose).mode & 0o777, 0o700);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('refuses a symlink where a private folder in a shared place should be', () => {
    const root = mkdtempSync(join(tmpdir(), 'ps-private-'));
    try {
      mkdirSync(join(root, 'real'));
      symlinkSync(join(root, 'real'), join(root, 'link'));
      assert.throws(() => ensurePrivateDir(join(root, 'link'), { refuseSymlink: true }), UnsafeFolderError);
      ensurePrivateDir(join(root, 'link')); // a symlinked state folder is the user's choice
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
