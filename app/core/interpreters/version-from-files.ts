/**
 * Python versions read from files an install leaves behind, so listing never starts a Python:
 * conda-meta package records, pyvenv.cfg, the C headers' patchlevel.h, folder and executable names.
 */
import type { ScanContext } from './scan-context.js';
import type { VersionSource } from './types.js';

export interface VersionInfo {
  version: string;
  source: VersionSource;
}

// conda names records `<name>-<version>-<build>.json`; neither version nor build has a dash,
// which keeps `python-dateutil-…` and `python_abi-…` out.
const CONDA_PYTHON = /^python-(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?)-[^-]+\.json$/;

export function versionFromCondaMeta(names: readonly string[]): string | undefined {
  for (const n of names) {
    const m = CONDA_PYTHON.exec(n);
    if (m) return m[1];
  }
  return undefined;
}

/** The conda-meta record of a package (`ipykernel-6.29.5-pyh3099207_0.json`), if installed. */
export function condaPackageRecord(names: readonly string[], pkg: string): string | undefined {
  const prefix = `${pkg}-`;
  return names.find((n) => n.startsWith(prefix) && n.endsWith('.json') && /^\d/.test(n.slice(prefix.length)));
}

/** `key = value` lines of pyvenv.cfg (keys lower-cased, as the venv module reads them). */
export function parsePyvenvCfg(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf('=');
    if (i <= 0) continue;
    out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

const RELEASE_LEVEL: Record<string, string> = { alpha: 'a', beta: 'b', candidate: 'rc' };

/**
 * `3.11.7`, `3.11.7.final.0` (virtualenv's version_info), `3.13.0.candidate.1`, `3.11` → PEP 440
 * style (`3.11.7`, `3.13.0rc1`, `3.11`); undefined when it is not a version.
 */
export function normalizeVersion(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const s = raw.trim();
  const info = /^(\d+)\.(\d+)\.(\d+)\.(alpha|beta|candidate|final)\.(\d+)$/.exec(s);
  if (info) {
    const base = `${info[1]}.${info[2]}.${info[3]}`;
    return info[4] === 'final' ? base : `${base}${RELEASE_LEVEL[info[4]]}${info[5]}`;
  }
  const plain = /^(\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?)(?:[+\s].*)?$/.exec(s);
  return plain ? plain[1] : undefined;
}

export function versionFromPyvenvCfg(cfg: Record<string, string>): string | undefined {
  // venv writes `version`, virtualenv `version_info`, uv `version_info` too.
  return normalizeVersion(cfg['version']) ?? normalizeVersion(cfg['version_info']);
}

export function versionFromPatchlevel(text: string): string | undefined {
  const m = /#define\s+PY_VERSION\s+"([^"]+)"/.exec(text);
  return m ? normalizeVersion(m[1]) : undefined;
}

/** From a pyenv or uv folder name: `3.11.7`, `cpython-3.12.1-linux-x86_64-gnu`, `pypy3.10-7.3.15`. */
export function versionFromFolderName(name: string): string | undefined {
  const uv = /^(?:cpython|pypy|graalpy)-(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?)/.exec(name);
  if (uv) return uv[1];
  const plain = /^(\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?)t?$/.exec(name);
  if (plain) return plain[1];
  const pypy = /^pypy(\d+\.\d+)-/.exec(name);
  return pypy ? pypy[1] : undefined;
}

/** `python3.11` → `3.11`; `python3`/`python` say nothing useful. */
export function versionFromExecutableName(name: string): string | undefined {
  const m = /^python(\d+\.\d+)(?:\.exe)?$/i.exec(name);
  return m ? m[1] : undefined;
}

/** `3.11.2` → [3, 11, 2]; missing parts are 0. */
export function versionTuple(v: string | undefined): number[] {
  if (!v) return [];
  return v.split(/[.a-z]/i).filter((x) => x !== '').map((x) => Number.parseInt(x, 10));
}

export function compareVersions(a: string | undefined, b: string | undefined): number {
  const x = versionTuple(a);
  const y = versionTuple(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? -1) - (y[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** `3.11.2` → `3.11`. */
export function minorOf(v: string | undefined): string | undefined {
  const m = v ? /^(\d+\.\d+)/.exec(v) : null;
  return m ? m[1] : undefined;
}

/**
 * The exact version from the install's C headers: `include/python3.X/patchlevel.h` (Unix) or
 * `include\patchlevel.h` (Windows). Only present where headers were installed.
 */
export async function versionFromHeaders(ctx: ScanContext, prefix: string, minor?: string): Promise<string | undefined> {
  const include = ctx.path.join(prefix, 'include');
  const files: string[] = [];
  if (ctx.isWindows) {
    files.push(ctx.path.join(include, 'patchlevel.h'));
  } else if (minor) {
    // 3.7 and older used ABI-suffixed folders (python3.7m); free-threaded builds use python3.13t.
    for (const suffix of ['', 'm', 't', 'd']) files.push(ctx.path.join(include, `python${minor}${suffix}`, 'patchlevel.h'));
  } else {
    let dirs: string[] = [];
    try {
      dirs = await ctx.readdir(include);
    } catch {
      return undefined;
    }
    // python3.11, python3.6m, python3.13t
    for (const d of dirs.filter((n) => /^python\d+\.\d+[a-z]*$/.test(n))) {
      files.push(ctx.path.join(include, d, 'patchlevel.h'));
    }
  }
  for (const f of files) {
    let text: string | undefined;
    try {
      text = await ctx.host.readFile(f);
    } catch {
      continue;
    }
    const v = versionFromPatchlevel(text);
    if (v && (!minor || minorOf(v) === minor)) return v;
  }
  return undefined;
}

/**
 * The headers' exact version when they are installed, else what the folder name says (which may
 * be only `3.12`): how pyenv and uv installs, named by version, are read.
 */
export async function versionFromHeadersOrName(
  ctx: ScanContext,
  prefix: string,
  fromName: string | undefined,
): Promise<{ version?: string; versionSource?: 'patchlevel.h' | 'folder name' }> {
  const fromHeaders = await versionFromHeaders(ctx, prefix, minorOf(fromName));
  if (fromHeaders) return { version: fromHeaders, versionSource: 'patchlevel.h' };
  return fromName ? { version: fromName, versionSource: 'folder name' } : {};
}
