/**
 * Reading a file of the state folder that something else may have damaged: an editor that saved
 * half of it, a sync tool, a disk error, a hand that made it a folder, a mode, a symlink. No such
 * file may keep the daemon from starting. A damaged one is moved aside (`<name>.bad-<time>`,
 * every byte kept) — a symlink is removed, its target neither followed nor moved — the reader
 * goes on with its defaults, and a notice says which file, what was wrong and what was done.
 *
 * The notices are kept for the process (one daemon per process): daemon.log, `status`, the
 * panel and each MCP connection's first reply read them, each for its own state folder.
 *
 * Node built-ins only: the CLI and the shim may use it.
 */
import { accessSync, constants, lstatSync, readFileSync, readlinkSync, renameSync, unlinkSync, type Stats } from 'node:fs';
import { basename, sep } from 'node:path';

/** The file-system calls used here: the real ones, or a test's (for failures a test cannot make for real). */
export interface StateFileFs {
  lstatSync(path: string): Stats;
  readFileSync(path: string): Buffer;
  readlinkSync(path: string): string;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  accessSync(path: string, mode: number): void;
}

const realFs: StateFileFs = {
  lstatSync: (p) => lstatSync(p),
  readFileSync: (p) => readFileSync(p),
  readlinkSync: (p) => readlinkSync(p),
  renameSync: (a, b) => renameSync(a, b),
  unlinkSync: (p) => unlinkSync(p),
  accessSync: (p, mode) => accessSync(p, mode),
};

export interface StateFileNotice {
  /** Increasing within the process: who has told which notice is tracked by it. */
  id: number;
  file: string;
  /** What was wrong, in words ("is not JSON (Unexpected token …)"). */
  damage: string;
  /** Where the bytes went; absent for a removed symlink, or when the move failed. */
  movedTo?: string;
  /** What was done and what runs instead, in words. */
  action: string;
  time: string;
  /** One line for a person: file, damage, action. */
  message: string;
}

const notices: StateFileNotice[] = [];
const listeners = new Set<(notice: StateFileNotice) => void>();

/** The notices so far for files in `stateDir` (all of them without it), oldest first. */
export function stateFileNotices(stateDir?: string): StateFileNotice[] {
  if (stateDir === undefined) return [...notices];
  const prefix = stateDir.endsWith(sep) ? stateDir : stateDir + sep;
  return notices.filter((n) => n.file.startsWith(prefix));
}

/** Calls `listener` with each notice from now on; returns how to stop. */
export function onStateFileNotice(listener: (notice: StateFileNotice) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Reads like `readStateFile` but as text with no parsing; for the rest, the same. */
export type Inspected = { state: 'missing' } | { state: 'ok'; bytes: Buffer } | { state: 'damaged'; damage: string };

/**
 * What is at `file`: nothing, a regular file's bytes, or damage that is not about the content
 * (a symlink, a folder or other non-file, a read that failed).
 */
export function inspectStateFile(file: string, fs: StateFileFs = realFs): Inspected {
  let stats: Stats;
  try {
    stats = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'damaged', damage: `could not be looked at (${errorText(error)})` };
  }
  if (stats.isSymbolicLink()) {
    let target = '?';
    try {
      target = fs.readlinkSync(file);
    } catch {
      /* named as unknown */
    }
    return { state: 'damaged', damage: `is a symlink (to ${target}), not a file of its own` };
  }
  if (stats.isDirectory()) return { state: 'damaged', damage: 'is a folder, not a file' };
  if (!stats.isFile()) return { state: 'damaged', damage: 'is not a regular file' };
  try {
    return { state: 'ok', bytes: fs.readFileSync(file) };
  } catch (error) {
    return { state: 'damaged', damage: `could not be read (${errorText(error)})` };
  }
}

export interface ReadJsonOptions {
  /** Why the parsed value is not of the right shape, or null when it is. */
  shape: (value: unknown) => string | null;
  /** What the reader does instead, in words ("the default settings are used"). */
  instead: string;
  fs?: StateFileFs;
}

/**
 * A JSON state file's value; null when there is none — because it is missing, or because it was
 * damaged and has been moved aside (with a notice). Never throws.
 */
export function readJsonStateFile<T>(file: string, options: ReadJsonOptions): T | null {
  return readJudged<T>(file, options.instead, options.fs, (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { damage: `is not JSON (${errorText(error)})` };
    }
    const wrong = options.shape(value);
    return wrong === null ? { value: value as T } : { damage: `is not of the expected shape (${wrong})` };
  });
}

/** A text state file's content, checked by `shape`; null when missing or moved aside. Never throws. */
export function readTextStateFile(file: string, options: { shape: (text: string) => string | null; instead: string; fs?: StateFileFs }): string | null {
  return readJudged<string>(file, options.instead, options.fs, (text) => {
    const wrong = options.shape(text);
    return wrong === null ? { value: text } : { damage: `is not of the expected shape (${wrong})` };
  });
}

/** The one path of both readers: missing, damaged as a file, empty, or judged by its content. */
function readJudged<T>(file: string, instead: string, fs: StateFileFs | undefined, judge: (text: string) => { value: T } | { damage: string }): T | null {
  const found = inspectStateFile(file, fs);
  if (found.state === 'missing') return null;
  let damage: string;
  if (found.state === 'damaged') damage = found.damage;
  else {
    const text = found.bytes.toString('utf8');
    const verdict: { value: T } | { damage: string } = text.trim() ? judge(text) : { damage: 'is empty' };
    if ('value' in verdict) return verdict.value;
    damage = verdict.damage;
  }
  setAside(file, damage, instead, fs);
  return null;
}

/**
 * For a file whose content any text may be (a log, a lock): set aside only when it is no file
 * of its own — a folder, a symlink, unreadable. Never throws.
 */
export function clearStateFile(file: string, instead: string, fs: StateFileFs = realFs): void {
  const found = inspectStateFile(file, fs);
  if (found.state === 'damaged') setAside(file, found.damage, instead, fs);
}

/**
 * Whether the folder at `dir` can be used (or is missing, and so can be made); otherwise — a
 * file, a symlink, a folder this user cannot read or write — it is set aside with a notice.
 */
export function checkStateFolder(dir: string, instead: string, fs: StateFileFs = realFs): boolean {
  let stats: Stats;
  try {
    stats = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    setAside(dir, `could not be looked at (${errorText(error)})`, instead, fs);
    return false;
  }
  let damage: string | null = null;
  if (stats.isSymbolicLink()) {
    let target = '?';
    try {
      target = fs.readlinkSync(dir);
    } catch {
      /* named as unknown */
    }
    damage = `is a symlink (to ${target}), not a folder of its own`;
  } else if (!stats.isDirectory()) damage = 'is a file, not a folder';
  else {
    try {
      fs.accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (error) {
      damage = `cannot be used (${errorText(error)})`;
    }
  }
  if (damage === null) return true;
  setAside(dir, damage, instead, fs);
  return false;
}

/**
 * Moves a damaged state file out of the way and records the notice: renamed to
 * `<file>.bad-<time>` beside it, or, for a symlink, the link removed. Never throws: a move that
 * fails is said in the notice, and the file stays where it was.
 */
export function setAside(file: string, damage: string, instead: string, fs: StateFileFs = realFs): StateFileNotice {
  let movedTo: string | undefined;
  let done: string;
  let isLink = false;
  try {
    isLink = fs.lstatSync(file).isSymbolicLink();
  } catch {
    /* the rename below says what is wrong */
  }
  try {
    if (isLink) {
      fs.unlinkSync(file);
      done = 'removed the link (what it points to was left alone)';
    } else {
      movedTo = asideName(file, fs);
      fs.renameSync(file, movedTo);
      done = `moved it to ${basename(movedTo)}`;
    }
  } catch (error) {
    movedTo = undefined;
    done = `could not move it aside (${errorText(error)}), so it was left as it is`;
  }
  return record({ file, damage, movedTo, action: `${done}; ${instead}` });
}

/** A notice for a file that was not moved (the reader kept what it could, e.g. a log's good lines). */
export function reportStateFile(file: string, damage: string, action: string): StateFileNotice {
  return record({ file, damage, action });
}

function record(fields: { file: string; damage: string; movedTo?: string; action: string }): StateFileNotice {
  const notice: StateFileNotice = {
    id: notices.length + 1,
    ...fields,
    time: new Date().toISOString(),
    message: `${fields.file} ${fields.damage}: ${fields.action}.`,
  };
  notices.push(notice);
  for (const listener of listeners) {
    try {
      listener(notice);
    } catch {
      /* a listener's failure is not the reader's */
    }
  }
  return notice;
}

/** `<file>.bad-<UTC time, ISO 8601 basic format>`, with a counter should that name be taken. */
function asideName(file: string, fs: StateFileFs): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '');
  for (let n = 1; ; n++) {
    const candidate = `${file}.bad-${stamp}${n === 1 ? '' : `-${n}`}`;
    try {
      fs.lstatSync(candidate);
    } catch {
      return candidate;
    }
  }
}

const errorText = (error: unknown) => {
  const e = error as NodeJS.ErrnoException;
  return e?.code && e.syscall ? `${e.code}: ${e.message.replace(/^[A-Z]+: /, '')}` : (e?.message ?? String(error));
};

/** Shape checks used by several readers. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
