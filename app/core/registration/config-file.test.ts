import assert from 'node:assert/strict';
import { chmod, chown, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import {
  ConfigConflictError,
  ConfigFileError,
  backupPathFor,
  readConfig,
  writeConfig,
  writeFileAtomic,
} from './config-file.js';
import { JSONC_FORMAT, JSON_FORMAT, TOML_FORMAT } from './config-format.js';

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ps-config-file-'));
  roots.push(dir);
  return dir;
}

async function problem(file: string, format = JSON_FORMAT): Promise<ConfigFileError> {
  try {
    await readConfig(file, format);
  } catch (e) {
    assert.ok(e instanceof ConfigFileError, String(e));
    return e;
  }
  return assert.fail(`read ${file} without complaint`);
}

test('a missing file reads as empty and is created 0600 in new folders', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'a', 'b', 'mcp.json');
  const snap = await readConfig(file, JSON_FORMAT);
  assert.equal(snap.exists, false);
  assert.equal(snap.value, undefined);
  const { backup } = await writeConfig(snap, '{"x": 1}\n');
  assert.equal(backup, undefined);
  assert.equal(await readFile(file, 'utf8'), '{"x": 1}\n');
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  assert.equal((await stat(path.dirname(file))).mode & 0o777, 0o700);
});

test('malformed JSON, bad UTF-8, a non-object top level and a folder are refused', async () => {
  const dir = await tempDir();
  const bad = path.join(dir, 'bad.json');
  await writeFile(bad, '{\n  "mcpServers": {\n    "a": 1,\n  }\n}\n');
  const e = await problem(bad);
  assert.equal(e.problem, 'parse');
  assert.match(e.message, /bad\.json: cannot parse it: trailing comma is not allowed at line 3, column 11; the file was left unchanged/);
  // The same file is fine for a JSONC client.
  assert.deepEqual((await readConfig(bad, JSONC_FORMAT)).value, { mcpServers: { a: 1 } });

  const latin1 = path.join(dir, 'latin1.json');
  await writeFile(latin1, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
  assert.equal((await problem(latin1)).problem, 'encoding');

  const array = path.join(dir, 'array.json');
  await writeFile(array, '[]');
  assert.equal((await problem(array)).problem, 'shape');

  assert.equal((await problem(dir)).problem, 'io');
});

test('comments are refused unless the client reads JSONC', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'c.json');
  await writeFile(file, '// hi\n{}');
  assert.equal((await problem(file)).problem, 'parse');
  const snap = await readConfig(file, JSONC_FORMAT);
  assert.deepEqual(snap.value, {});
  // Keeping the comment is the document's job: setting a value edits the text around it.
  assert.equal(snap.document.set(['a'], 1), '// hi\n{\n  "a": 1\n}');
});

test('TOML: parsed with its line and column when broken, and empty when the file is missing', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'config.toml');
  await writeFile(file, '# mine\nmodel = "o3"\n[mcp_servers.a]\ncommand = \n');
  const e = await problem(file, TOML_FORMAT);
  assert.equal(e.problem, 'parse');
  assert.match(e.message, /config\.toml: cannot parse it: expected a value, found "\\n" at line 4, column 11; the file was left unchanged/);
  await writeFile(file, '# mine\nmodel = "o3"\n');
  assert.deepEqual((await readConfig(file, TOML_FORMAT)).value, { model: 'o3' });
  const missing = await readConfig(path.join(dir, 'none.toml'), TOML_FORMAT);
  assert.equal(missing.value, undefined);
  assert.equal(missing.document.set(['mcp_servers', 'x'], { command: 'y' }), '[mcp_servers.x]\ncommand = "y"\n');
});

test('an update keeps mode, writes a backup with the same mode, and leaves no temp files', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'mcp.json');
  await writeFile(file, '{"old": true}\n');
  await chmod(file, 0o640);
  const snap = await readConfig(file, JSON_FORMAT);
  const { backup } = await writeConfig(snap, '{"new": true}\n');
  assert.equal(backup, backupPathFor(file));
  assert.equal(backup, `${file}.python-session.bak`);
  assert.equal(await readFile(file, 'utf8'), '{"new": true}\n');
  assert.equal(await readFile(backup, 'utf8'), '{"old": true}\n');
  assert.equal((await stat(file)).mode & 0o777, 0o640);
  assert.equal((await stat(backup)).mode & 0o777, 0o640);
  assert.deepEqual((await readdir(dir)).sort(), ['mcp.json', 'mcp.json.python-session.bak']);
});

test('the exact permission bits are kept, even those the umask would strip', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'shared.json');
  await writeFile(file, '{}');
  await chmod(file, 0o666);
  await writeConfig(await readConfig(file, JSON_FORMAT), '{"a": 1}');
  assert.equal((await stat(file)).mode & 0o777, 0o666);
});

test('a byte-order mark is kept', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'bom.json');
  await writeFile(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a": 1}')]));
  const snap = await readConfig(file, JSON_FORMAT);
  assert.equal(snap.bom, true);
  assert.deepEqual(snap.value, { a: 1 });
  await writeConfig(snap, '{"a": 2}');
  const bytes = await readFile(file);
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(bytes.subarray(3).toString(), '{"a": 2}');
});

test('a symlinked config is written through the link, which stays a link', async () => {
  const dir = await tempDir();
  await mkdir(path.join(dir, 'dotfiles'));
  const real = path.join(dir, 'dotfiles', 'mcp.json');
  const link = path.join(dir, 'mcp.json');
  await writeFile(real, '{}');
  await symlink(real, link);
  const snap = await readConfig(link, JSON_FORMAT);
  assert.equal(snap.target, real);
  await writeConfig(snap, '{"a": 1}');
  assert.ok((await lstat(link)).isSymbolicLink());
  assert.equal(await readlink(link), real);
  assert.equal(await readFile(real, 'utf8'), '{"a": 1}');
  assert.deepEqual(await readdir(path.join(dir, 'dotfiles')), ['mcp.json']);
});

test('a dangling symlink is refused rather than replaced', async () => {
  const dir = await tempDir();
  const link = path.join(dir, 'mcp.json');
  await symlink(path.join(dir, 'gone.json'), link);
  assert.equal((await problem(link)).problem, 'io');
});

test('a change made by someone else after our read aborts the write', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'mcp.json');
  await writeFile(file, '{"v": 1}');
  const snap = await readConfig(file, JSON_FORMAT);
  await writeFile(file, '{"v": 2, "theirs": true}');
  await assert.rejects(writeConfig(snap, '{"v": 1, "ours": true}'), ConfigConflictError);
  assert.equal(await readFile(file, 'utf8'), '{"v": 2, "theirs": true}');
  assert.deepEqual((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);

  // A file that appears after we saw none is not overwritten either.
  const fresh = path.join(dir, 'fresh.json');
  const none = await readConfig(fresh, JSON_FORMAT);
  await writeFile(fresh, '{"client": "wrote me"}');
  await assert.rejects(writeConfig(none, '{}'), ConfigConflictError);
  assert.equal(await readFile(fresh, 'utf8'), '{"client": "wrote me"}');
});

test('writeFileAtomic replaces in one step and cleans up when aborted', async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'f');
  await writeFile(file, 'old');
  await assert.rejects(
    writeFileAtomic(file, 'new', {
      mode: 0o600,
      precondition: async () => {
        // The new content is already on disk under a temporary name, beside the target.
        const names = await readdir(dir);
        assert.equal(names.filter((n) => n.startsWith('.f.') && n.endsWith('.tmp')).length, 1);
        throw new Error('stop');
      },
    }),
    /stop/,
  );
  assert.equal(await readFile(file, 'utf8'), 'old');
  assert.deepEqual(await readdir(dir), ['f']);
  await writeFileAtomic(file, 'new', { mode: 0o600 });
  assert.equal(await readFile(file, 'utf8'), 'new');
  assert.deepEqual(await readdir(dir), ['f']);
});

test('running as root, a user\'s file keeps its owner', { skip: process.getuid?.() !== 0 && 'needs root' }, async () => {
  const dir = await tempDir();
  const file = path.join(dir, 'mcp.json');
  await writeFile(file, '{}');
  await chown(file, 4321, 4322);
  await writeConfig(await readConfig(file, JSON_FORMAT), '{"a": 1}');
  const info = await stat(file);
  assert.equal(info.uid, 4321);
  assert.equal(info.gid, 4322);
  const backup = await stat(backupPathFor(file));
  assert.equal(backup.uid, 4321);
});
