/**
 * Every state file the daemon reads, with every kind of damage a desktop meets: each reader goes
 * on, the file is moved aside with its bytes (a symlink removed, its target untouched), and one
 * notice names the file. Real files on a real file system; the one failure root cannot meet
 * (a read refused by mode 000) is met for real by running that reader as another user.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionLog } from './sessions/session-log.js';
import { Settings } from './settings/settings.js';
import { checkStateFolder, inspectStateFile, readJsonStateFile, stateFileNotices, type StateFileFs, type StateFileNotice } from './state-file.js';
import { FIGURES, STATE_FILE_READERS, type StateFileReader } from './testing/state-file-readers.js';
import { FigureStore } from './sessions/figure-store.js';

const LOG = join('sessions', 'lab', 'log.jsonl');

interface Damage {
  name: string;
  /** Makes the damage at `path`; returns what to find afterwards where the bytes went. */
  make(path: string, reader: StateFileReader, outside: string): void;
  /** Damage that is no damage for this reader (an empty log is a log with no entries yet). */
  harmless?: (reader: StateFileReader) => boolean;
}

const DAMAGES: Damage[] = [
  { name: 'empty', make: (path) => writeFileSync(path, ''), harmless: (r) => r.file === LOG },
  // A log's torn last line is a crash mid-write: skipped, and the log goes on (as it always did).
  { name: 'truncated', make: (path, r) => writeFileSync(path, r.good.slice(0, Math.floor(r.good.length / 2))), harmless: (r) => r.file === LOG },
  { name: 'not JSON', make: (path, r) => writeFileSync(path, r.file === LOG ? `{ broken\n${r.good}` : '{ broken') },
  { name: 'of the wrong shape', make: (path) => writeFileSync(path, '[1, 2]\n') },
  {
    name: 'a folder',
    make: (path) => {
      mkdirSync(path);
      writeFileSync(join(path, 'inside.txt'), 'kept');
    },
  },
  {
    name: 'a symlink elsewhere',
    make: (path, r, outside) => {
      writeFileSync(outside, r.good);
      symlinkSync(outside, path);
    },
  },
];

function stateDirWith(reader: StateFileReader): { dir: string; path: string; outside: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  const path = join(dir, reader.file);
  mkdirSync(dirname(path), { recursive: true });
  return { dir, path, outside: join(mkdtempSync(join(tmpdir(), 'ps-elsewhere-')), 'target') };
}

const newNotices = (before: number, path: string) => stateFileNotices().slice(before).filter((n) => n.file === path);

/** What every reader must have done with damage at `path` that it set aside. */
function assertSetAside(notice: StateFileNotice | undefined, path: string, original: { bytes?: Buffer; folder?: boolean; link?: { target: string; bytes: string } }): void {
  assert.ok(notice, `a notice names ${path}`);
  assert.ok(notice.message.includes(path), notice.message);
  if (original.link) {
    assert.equal(notice.movedTo, undefined);
    assert.match(notice.message, /symlink.*removed the link/);
    assert.ok(!existsSync(path) || !lstatSync(path).isSymbolicLink(), 'the link is gone');
    assert.equal(readFileSync(original.link.target, 'utf8'), original.link.bytes, 'the target is untouched');
    return;
  }
  assert.match(notice.movedTo ?? '', /\.bad-\d{8}T\d{6}\.\d{3}Z$/);
  assert.match(notice.message, /moved it to /);
  if (original.folder) assert.equal(readFileSync(join(notice.movedTo!, 'inside.txt'), 'utf8'), 'kept');
  else assert.deepEqual(readFileSync(notice.movedTo!), original.bytes);
}

for (const reader of STATE_FILE_READERS) {
  for (const damage of DAMAGES) {
    test(`${reader.file} ${damage.name}: the reader goes on, and the file is ${damage.harmless?.(reader) ? 'kept' : 'set aside with a notice'}`, () => {
      const { dir, path, outside } = stateDirWith(reader);
      damage.make(path, reader, outside);
      const stats = lstatSync(path);
      const original = stats.isSymbolicLink() ? { link: { target: outside, bytes: reader.good } } : stats.isDirectory() ? { folder: true } : { bytes: readFileSync(path) };
      const before = stateFileNotices().length;
      reader.read(dir);
      const notices = newNotices(before, path);
      if (damage.harmless?.(reader)) {
        assert.deepEqual(notices, []);
        assert.deepEqual(readFileSync(path), original.bytes);
        return;
      }
      assert.equal(notices.length, 1, `one notice: ${JSON.stringify(notices)}`);
      assertSetAside(notices[0], path, original);
      // Read again: nothing more to say.
      reader.read(dir);
      assert.equal(newNotices(before, path).length, 1);
    });
  }
}

for (const reader of STATE_FILE_READERS) {
  test(`${reader.file} that is fine is read and kept, without a notice`, () => {
    const { dir, path } = stateDirWith(reader);
    writeFileSync(path, reader.good);
    const before = stateFileNotices().length;
    reader.read(dir);
    assert.deepEqual(newNotices(before, path), []);
    assert.ok(existsSync(path));
    assert.deepEqual(readdirSync(dirname(path)).filter((n) => n.includes('.bad-')), []);
  });
}

// Root reads a mode-000 file all the same. So, as root, the reader runs as `nobody` (setpriv) in a
// state folder that user owns: the refusal is the kernel's, not a test double's.
const asRoot = process.getuid?.() === 0;
function emptyStateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  chmodSync(dir, 0o755);
  return dir;
}
const READERS_SCRIPT = fileURLToPath(new URL('./testing/state-file-readers.js', import.meta.url));
const NOBODY = 65534;
/** setpriv is there, and `nobody` can load the readers (a checkout under /root, 0700, it cannot). */
const canSwitchUser = asRoot && spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, READERS_SCRIPT, emptyStateDir(), 'daemon.json']).status === 0;
const UNREADABLE_SKIP = process.platform === 'win32' ? 'needs POSIX modes' : asRoot && !canSwitchUser ? 'as root, needs setpriv and a checkout user nobody can read' : false;

function readAsOwner(stateDir: string, file: string): StateFileNotice[] {
  if (!asRoot) {
    const before = stateFileNotices().length;
    (file === FIGURES.dir ? FIGURES.read : STATE_FILE_READERS.find((r) => r.file === file)!.read)(stateDir);
    return stateFileNotices().slice(before);
  }
  const child = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, READERS_SCRIPT, stateDir, file], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as StateFileNotice[];
}

/** A state folder the reading user owns, with `file` in it at mode 000. */
function unreadableIn(file: string, make: (path: string) => void): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  chmodSync(dir, 0o755);
  const path = join(dir, file);
  mkdirSync(dirname(path), { recursive: true });
  make(path);
  if (asRoot) for (let p = path; p.startsWith(dir); p = dirname(p)) chownSync(p, NOBODY, NOBODY);
  chmodSync(path, 0o000);
  return { dir, path };
}

for (const reader of STATE_FILE_READERS) {
  test(`${reader.file} unreadable (mode 000): set aside with its bytes and a notice`, { skip: UNREADABLE_SKIP }, () => {
    const { dir, path } = unreadableIn(reader.file, (p) => writeFileSync(p, reader.good));
    const notices = readAsOwner(dir, reader.file).filter((n) => n.file === path);
    assert.equal(notices.length, 1, JSON.stringify(notices));
    assert.match(notices[0].damage, /could not be read \(EACCES/);
    assertSetAside(notices[0], path, { bytes: Buffer.from(reader.good) });
  });
}

test('settings.json damaged: the defaults are used, and PYTHON_MCP_* variables still apply', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  writeFileSync(join(dir, 'settings.json'), '{ broken');
  const settings = new Settings(dir);
  assert.equal(settings.get('timeoutS'), 600);
  assert.equal(settings.timeoutS({ PYTHON_MCP_TIMEOUT: '7' }), 7);
  settings.set('waitS', 5);
  assert.equal(new Settings(dir).get('waitS'), 5, 'a fresh settings.json is written and read back');
});

test('settings.json damaged while the daemon runs: the next change sets it aside and writes what the daemon held', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  const path = join(dir, 'settings.json');
  const settings = new Settings(dir);
  settings.set('timeoutS', 30);
  writeFileSync(path, '{ broken');
  const before = stateFileNotices().length;
  settings.set('waitS', 5);
  const [notice] = newNotices(before, path);
  assert.equal(readFileSync(notice.movedTo!, 'utf8'), '{ broken');
  const reread = new Settings(dir);
  assert.equal(reread.get('timeoutS'), 30, 'the earlier change is kept');
  assert.equal(reread.get('waitS'), 5);
});

test('settings.json that is JSON but breaks the schema is set aside too, not half used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  const path = join(dir, 'settings.json');
  writeFileSync(path, '{"timeoutS": "soon", "waitS": 3}');
  const before = stateFileNotices().length;
  const settings = new Settings(dir);
  const [notice] = newNotices(before, path);
  assert.match(notice?.message ?? '', /does not fit the settings .*timeoutS/);
  assert.equal(readFileSync(notice.movedTo!, 'utf8'), '{"timeoutS": "soon", "waitS": 3}');
  assert.equal(settings.get('timeoutS'), 600);
  assert.equal(settings.get('waitS'), 45);
});

test('a log with lines that are not entries goes on with its readable entries, all bytes kept aside', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  const path = join(dir, 'log.jsonl');
  const bytes = '{"id": 1, "code": "a = 1", "outputs": []}\n\u0000\u0000garbage\n{"id": 2, "code": "b = 2", "outputs": []}\n';
  writeFileSync(path, bytes);
  const before = stateFileNotices().length;
  const log = new SessionLog(dir);
  const [notice] = newNotices(before, path);
  assert.match(notice.message, /has 1 line that is not a log entry: moved it to .*holding the 2 readable entries/);
  assert.equal(readFileSync(notice.movedTo!, 'utf8'), bytes);
  assert.deepEqual(log.read().map((e) => e.code), ['a = 1', 'b = 2']);
  assert.equal(log.append({ time: '', client: 't', code: 'c', status: 'ok', executionCount: 3, durationMs: 1, outputs: [] }).id, 3);
  log.close();
});

const FOLDER_DAMAGES: { name: string; make: (path: string, outside: string) => void }[] = [
  { name: 'a file', make: (path) => writeFileSync(path, 'not a folder') },
  {
    name: 'a symlink elsewhere',
    make: (path, outside) => {
      mkdirSync(outside);
      writeFileSync(join(outside, 'theirs.png'), 'theirs');
      symlinkSync(outside, path);
    },
  },
];

for (const damage of FOLDER_DAMAGES) {
  test(`a session's figures folder that is ${damage.name}: set aside, and figures go to a fresh folder`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
    const path = join(dir, FIGURES.dir);
    mkdirSync(dirname(path), { recursive: true });
    const outside = join(mkdtempSync(join(tmpdir(), 'ps-elsewhere-')), 'figs');
    damage.make(path, outside);
    const before = stateFileNotices().length;
    const store = new FigureStore(path);
    const [notice] = newNotices(before, path);
    assert.ok(notice, 'a notice names the folder');
    if (damage.name.includes('symlink')) {
      assert.match(notice.message, /symlink.*removed the link/);
      assert.equal(readFileSync(join(outside, 'theirs.png'), 'utf8'), 'theirs');
    } else {
      assert.equal(readFileSync(notice.movedTo!, 'utf8'), 'not a folder');
    }
    const [saved] = store.save({ 'image/png': Buffer.from('png').toString('base64') }, 1);
    assert.ok(saved.path.startsWith(path) && !saved.error, JSON.stringify(saved));
    assert.ok(lstatSync(path).isDirectory());
  });
}

test("a session's figures folder this user cannot use (mode 000): set aside with what it held", { skip: UNREADABLE_SKIP }, () => {
  const { dir, path } = unreadableIn(FIGURES.dir, (p) => {
    mkdirSync(p);
    writeFileSync(join(p, 'old.png'), 'old');
    if (asRoot) chownSync(join(p, 'old.png'), NOBODY, NOBODY);
  });
  const [notice] = readAsOwner(dir, FIGURES.dir).filter((n) => n.file === path);
  assert.match(notice?.damage ?? '', /cannot be used \(EACCES/);
  chmodSync(notice.movedTo!, 0o700);
  assert.equal(readFileSync(join(notice.movedTo!, 'old.png'), 'utf8'), 'old');
});

test('a move that fails leaves the file where it was, and the notice says so', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-state-'));
  const path = join(dir, 'settings.json');
  writeFileSync(path, '{ broken');
  // The one seam: a rename the file system refuses, which a test cannot provoke for real as root.
  const fs: StateFileFs = {
    lstatSync: (p) => lstatSync(p),
    readFileSync: (p) => readFileSync(p),
    readlinkSync: () => '',
    renameSync: () => {
      throw Object.assign(new Error('EROFS: read-only file system, rename'), { code: 'EROFS', syscall: 'rename' });
    },
    unlinkSync: () => {},
    accessSync: () => {},
  };
  const before = stateFileNotices().length;
  assert.equal(readJsonStateFile(path, { shape: () => null, instead: 'defaults', fs }), null);
  const [notice] = newNotices(before, path);
  assert.match(notice.message, /could not move it aside \(EROFS: .*\), so it was left as it is; defaults/);
  assert.equal(readFileSync(path, 'utf8'), '{ broken');
  assert.deepEqual(inspectStateFile(path).state, 'ok');
  assert.equal(checkStateFolder(join(dir, 'none'), 'x'), true, 'a missing folder is fine: it is made when needed');
});
