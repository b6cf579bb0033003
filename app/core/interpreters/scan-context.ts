/**
 * One scan's view of the host: memoised stats (locators look at the same folders), errors
 * turned into values (one bad entry never stops a scan), and the list of what was skipped.
 */
import type { PlatformPath } from 'node:path';
import { getEnv, type FileInfo, type HostPort } from './fs-port.js';
import type { DiscoveryOptions, Skipped } from './types.js';

export interface StatResult {
  info?: FileInfo;
  /** errno code (ENOENT, EACCES, ELOOP, ENOTDIR, ...) when the stat failed. */
  code?: string;
}

/** Errors that only mean "nothing there": expected for most of the places we look. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

/** A verb phrase for an errno code: "folder " + this reads as a sentence. */
export function describeFsError(code: string | undefined): string {
  switch (code) {
    case 'ENOENT':
      return 'does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'is not readable (permission denied)';
    case 'ELOOP':
      return 'is a symbolic link loop';
    case 'ENOTDIR':
      return 'is not a folder';
    case 'EIO':
      return 'could not be read (I/O error)';
    default:
      return code ? `could not be read (${code})` : 'could not be read';
  }
}

export function errnoOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export class ScanContext {
  readonly host: HostPort;
  readonly path: PlatformPath;
  readonly isWindows: boolean;
  readonly home: string;
  readonly options: DiscoveryOptions;
  readonly skipped: Skipped[] = [];
  private readonly stats = new Map<string, Promise<StatResult>>();
  private readonly reals = new Map<string, Promise<string | undefined>>();
  private readonly dirs = new Map<string, Promise<string[]>>();
  private readonly skippedKeys = new Set<string>();

  constructor(host: HostPort, options: DiscoveryOptions = {}) {
    this.host = host;
    this.path = host.path;
    this.isWindows = host.platform === 'win32';
    this.home = host.home;
    this.options = options;
  }

  getenv(name: string): string | undefined {
    return getEnv(this.host, name);
  }

  /** Comparison key for a path: normalised, and case-folded where the file system folds case. */
  key(p: string): string {
    const n = this.path.normalize(p).replace(/[\\/]+$/, '');
    const k = n === '' ? this.path.sep : n;
    return this.isWindows ? k.toLowerCase() : k;
  }

  skip(p: string, reason: string, source?: string): void {
    const k = `${this.key(p)}\0${reason}`;
    if (this.skippedKeys.has(k)) return;
    this.skippedKeys.add(k);
    this.skipped.push(source ? { path: p, reason, source } : { path: p, reason });
  }

  statResult(p: string): Promise<StatResult> {
    const k = this.key(p);
    let r = this.stats.get(k);
    if (!r) {
      r = this.host.stat(p).then(
        (info) => ({ info }),
        (err: unknown) => ({ code: errnoOf(err) ?? 'EUNKNOWN' }),
      );
      this.stats.set(k, r);
    }
    return r;
  }

  async stat(p: string): Promise<FileInfo | undefined> {
    return (await this.statResult(p)).info;
  }

  async isDir(p: string): Promise<boolean> {
    return (await this.stat(p))?.isDirectory === true;
  }

  async isFile(p: string): Promise<boolean> {
    return (await this.stat(p))?.isFile === true;
  }

  /**
   * Folder entries. A missing folder is silent unless `explicit` (the user or a config named
   * it); any other failure is recorded as skipped with its reason.
   */
  async list(dir: string, opts: { explicit?: boolean; source?: string } = {}): Promise<string[]> {
    try {
      return await this.readdir(dir);
    } catch (err) {
      const code = errnoOf(err);
      if (!ABSENT.has(code ?? '') || opts.explicit) {
        this.skip(dir, code === 'ENOTDIR' ? 'is a file where a folder was expected' : `folder ${describeFsError(code)}`, opts.source);
      }
      return [];
    }
  }

  /** Text of a small file, or undefined; failures other than absence are recorded. */
  async readText(file: string, opts: { explicit?: boolean; source?: string } = {}): Promise<string | undefined> {
    try {
      return await this.host.readFile(file);
    } catch (err) {
      const code = errnoOf(err);
      // ENOTDIR here means a parent is a file: for a file, that is simply "not there".
      const phrase = code === 'ENOTDIR' ? 'does not exist' : describeFsError(code);
      if (code === 'EISDIR') this.skip(file, 'is a folder where a file was expected', opts.source);
      else if (!ABSENT.has(code ?? '') || opts.explicit) this.skip(file, `file ${phrase}`, opts.source);
      return undefined;
    }
  }

  /** Memoised readdir (several locators look at the same folders); rejects like the host's. */
  readdir(dir: string): Promise<string[]> {
    const k = this.key(dir);
    let r = this.dirs.get(k);
    if (!r) {
      r = this.host.readdir(dir);
      this.dirs.set(k, r);
      r.catch(() => undefined); // the caller sees the rejection; the cache must not warn
    }
    return r;
  }

  realpath(p: string): Promise<string | undefined> {
    const k = this.key(p);
    let r = this.reals.get(k);
    if (!r) {
      r = this.host.realpath(p).then(
        (x) => x,
        () => undefined,
      );
      this.reals.set(k, r);
    }
    return r;
  }

  /** Expands `~`, `$VAR`, `${VAR}` and (on Windows) `%VAR%`, as conda does in .condarc. */
  expand(p: string): string {
    let out = p.trim();
    if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) out = this.home + out.slice(1);
    out = out.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (m, a?: string, b?: string) => {
      const v = this.getenv((a ?? b) as string);
      return v ?? m;
    });
    if (this.isWindows) out = out.replace(/%([^%]+)%/g, (m, name: string) => this.getenv(name) ?? m);
    // Relative entries are rare; anchoring them at home beats anchoring them at our cwd.
    return this.path.isAbsolute(out) ? this.path.normalize(out) : this.path.join(this.home, out);
  }

  /** True when `child` is `parent` or inside it (lexically). */
  within(child: string, parent: string): boolean {
    const c = this.key(child);
    const p = this.key(parent);
    return c === p || c.startsWith(p.endsWith(this.path.sep) ? p : p + this.path.sep);
  }

  /** PATH as a list of folders, in order. */
  pathDirs(): string[] {
    const raw = this.getenv('PATH') ?? '';
    const delimiter = this.isWindows ? ';' : ':';
    return raw
      .split(delimiter)
      .map((d) => d.trim().replace(/^"(.*)"$/, '$1'))
      .filter((d) => d.length > 0 && this.path.isAbsolute(d));
  }
}
