/**
 * Reading and writing a client's config file without ever leaving it half-written or lost.
 *
 * - Reading refuses what it cannot understand (bad JSON or TOML, bad UTF-8, a top level that is
 *   not an object) with the file's line and column, so the caller leaves the file alone.
 * - Writing goes to a temporary file in the same folder, is flushed to disk, then renamed over
 *   the original: a reader sees the old file or the new one, never a mix.
 * - Just before the rename the original is compared with what we read. If the client rewrote
 *   it in the meantime (Claude Code rewrites ~/.claude.json often) we stop with a
 *   ConfigConflictError instead of undoing its change; the caller reads again and retries.
 * - The previous content is kept beside the file as `<file>.python-session.bak`, replaced on
 *   each change we make (one backup, not a growing pile). The name is ours so it can never
 *   clobber a `<file>.bak` the user made by hand.
 * - A symlinked config (dotfile managers) is written through: the link stays a link.
 * - Permissions and ownership of an existing file are kept; a new file is 0600, because MCP
 *   configs routinely hold other servers' API tokens.
 * - A UTF-8 byte-order mark, as Windows editors write, is kept.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdir, open, readFile, realpath, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type ConfigDocument, type ConfigFormat, ConfigShapeError, ConfigSyntaxError } from './config-format.js';
import type { JsonObject } from './jsonc.js';

export type ConfigProblem = 'parse' | 'encoding' | 'shape' | 'io';

/** A config we will not touch, and why. The file is always left exactly as it was. */
export class ConfigFileError extends Error {
  readonly path: string;
  readonly problem: ConfigProblem;
  /** What is wrong, without the path (for listings that show the path already). */
  readonly detail: string;

  constructor(file: string, problem: ConfigProblem, detail: string) {
    super(`${file}: ${detail}; the file was left unchanged`);
    this.name = 'ConfigFileError';
    this.path = file;
    this.problem = problem;
    this.detail = detail;
  }
}

/** The file changed between our read and our write. */
export class ConfigConflictError extends Error {
  readonly path: string;
  constructor(file: string) {
    super(`${file} was changed by another program while we were updating it`);
    this.name = 'ConfigConflictError';
    this.path = file;
  }
}

export interface ConfigSnapshot {
  /** The path the client uses. */
  path: string;
  /** The file actually read and written: `path` with symlinks resolved. */
  target: string;
  exists: boolean;
  /** The exact bytes read; empty when the file does not exist. */
  bytes: Buffer;
  /** The decoded text, without a byte-order mark. */
  text: string;
  bom: boolean;
  /** The parsed text, which gives back the text with one value changed. */
  document: ConfigDocument;
  /** The document; undefined when the file is missing or empty. */
  value: JsonObject | undefined;
  /** Permission bits and owner of the existing file. */
  mode?: number;
  uid?: number;
  gid?: number;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NEW_FILE_MODE = 0o600;
const NEW_DIR_MODE = 0o700;

/** Reads a config in the client's `format` (JSON, JSONC or TOML). */
export async function readConfig(file: string, format: ConfigFormat): Promise<ConfigSnapshot> {
  let target = file;
  let info: Stats;
  try {
    const link = await lstat(file);
    if (link.isSymbolicLink()) {
      try {
        target = await realpath(file);
      } catch {
        throw new ConfigFileError(file, 'io', 'it is a symbolic link to a file that does not exist');
      }
    }
    info = link.isSymbolicLink() ? await stat(target) : link;
  } catch (err) {
    if (err instanceof ConfigFileError) throw err;
    if (isErrno(err, 'ENOENT')) {
      return {
        path: file,
        target,
        exists: false,
        bytes: Buffer.alloc(0),
        text: '',
        bom: false,
        document: format.parse(''),
        value: undefined,
      };
    }
    throw new ConfigFileError(file, 'io', `cannot read it (${errorText(err)})`);
  }
  if (!info.isFile()) throw new ConfigFileError(file, 'io', 'it is not a regular file');

  let bytes: Buffer;
  try {
    bytes = await readFile(target);
  } catch (err) {
    throw new ConfigFileError(file, 'io', `cannot read it (${errorText(err)})`);
  }
  const bom = bytes.subarray(0, 3).equals(UTF8_BOM);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes);
  } catch {
    throw new ConfigFileError(file, 'encoding', 'it is not valid UTF-8 text');
  }
  let document: ConfigDocument;
  try {
    document = format.parse(text);
  } catch (err) {
    if (err instanceof ConfigSyntaxError) throw new ConfigFileError(file, 'parse', `cannot parse it: ${err.message}`);
    if (err instanceof ConfigShapeError) throw new ConfigFileError(file, 'shape', err.message);
    throw err;
  }
  const value = document.value;
  return {
    path: file,
    target,
    exists: true,
    bytes,
    text,
    bom,
    document,
    value,
    mode: info.mode & 0o777,
    uid: info.uid,
    gid: info.gid,
  };
}

export function backupPathFor(file: string): string {
  return `${file}.python-session.bak`;
}

export interface WriteResult {
  /** Where the previous content was saved, when there was one. */
  backup?: string;
}

/**
 * Replaces the config read as `snapshot` with `text`, keeping a backup of the old content.
 * Throws ConfigConflictError, leaving the file alone, when it changed since `snapshot`.
 */
export async function writeConfig(snapshot: ConfigSnapshot, text: string): Promise<WriteResult> {
  const data = Buffer.concat([snapshot.bom ? UTF8_BOM : Buffer.alloc(0), Buffer.from(text, 'utf8')]);
  const owner = snapshot.exists ? { mode: snapshot.mode!, uid: snapshot.uid, gid: snapshot.gid } : { mode: NEW_FILE_MODE };
  if (!snapshot.exists) await mkdir(path.dirname(snapshot.target), { recursive: true, mode: NEW_DIR_MODE });

  let backup: string | undefined;
  if (snapshot.exists) {
    // The backup holds secrets just as the config does: same permissions and owner.
    backup = backupPathFor(snapshot.path);
    await writeFileAtomic(backup, snapshot.bytes, owner);
  }
  await writeFileAtomic(snapshot.target, data, {
    ...owner,
    precondition: () => assertUnchanged(snapshot),
  });
  return { backup };
}

async function assertUnchanged(snapshot: ConfigSnapshot): Promise<void> {
  let current: Buffer | undefined;
  try {
    current = await readFile(snapshot.target);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
  const same = snapshot.exists ? current !== undefined && current.equals(snapshot.bytes) : current === undefined;
  if (!same) throw new ConfigConflictError(snapshot.path);
}

export interface AtomicWriteOptions {
  mode: number;
  uid?: number;
  gid?: number;
  /** Runs once the new content is safely on disk, just before the rename; throwing aborts. */
  precondition?: () => Promise<void>;
}

export async function writeFileAtomic(file: string, data: Buffer | string, options: AtomicWriteOptions): Promise<void> {
  const dir = path.dirname(file);
  // Same folder as the target, so the rename never crosses file systems and stays atomic.
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', options.mode);
  let renamed = false;
  try {
    try {
      await handle.writeFile(data);
      // open() applied the umask; set the exact bits the old file had.
      await handle.chmod(options.mode);
      await restoreOwner(handle, options);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await options.precondition?.();
    await renameWithRetry(temp, file);
    renamed = true;
    await syncDirectory(dir);
  } finally {
    if (!renamed) await unlink(temp).catch(() => undefined);
  }
}

/** Root (e.g. under sudo) writing a user's config must not hand the file over to root. */
async function restoreOwner(
  handle: Awaited<ReturnType<typeof open>>,
  options: AtomicWriteOptions,
): Promise<void> {
  if (options.uid === undefined || options.gid === undefined || process.getuid?.() !== 0) return;
  await handle.chown(options.uid, options.gid).catch(() => undefined);
}

/**
 * On Windows a rename over a file that another process (the client, an antivirus scanner)
 * has open fails for a moment with EPERM / EACCES / EBUSY; a short retry gets through.
 */
async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (err) {
      const transient = process.platform === 'win32' && (isErrno(err, 'EPERM') || isErrno(err, 'EACCES') || isErrno(err, 'EBUSY'));
      if (!transient || attempt >= 8) throw err;
      // Ref'd, unlike timers.sleep: the register command has nothing else keeping it alive meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
    }
  }
}

/** Makes the rename itself durable; not possible (nor needed) on Windows. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: some file systems refuse fsync on a directory.
  }
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
