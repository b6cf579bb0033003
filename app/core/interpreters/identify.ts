/**
 * What a bare executable path is: the venv, conda env, pyenv version or uv Python around it,
 * or else a plain install. PATH entries, registry entries, PYTHON_MCP_INTERPRETER and a saved
 * choice all go through here, so the same interpreter gets the same kind whichever way it is
 * reached (and then merges as one).
 */
import { describeCondaPrefix } from './locators/conda.js';
import type { Candidate } from './locators/locator.js';
import { describePyenvVersion, pyenvRoot } from './locators/pyenv.js';
import { describeUvPython, uvPythonDir } from './locators/uv.js';
import { describeVenv } from './locators/venv.js';
import { brokenLink, prefixOf } from './prefix-layout.js';
import { describeFsError, type ScanContext } from './scan-context.js';
import type { InterpreterKind, VersionSource } from './types.js';
import { minorOf, versionFromExecutableName, versionFromHeaders } from './version-from-files.js';

export interface IdentifyHint {
  source: string;
  /** Kind when nothing more specific applies. */
  fallbackKind: Extract<InterpreterKind, 'system' | 'windows-registry' | 'env-var'>;
  pathOrder?: number;
  version?: string;
  versionSource?: VersionSource;
  /** Report a missing executable as skipped (the user or the registry named it). */
  explicit?: boolean;
}

export async function identifyExecutable(ctx: ScanContext, exe: string, hint: IdentifyHint): Promise<Candidate | undefined> {
  const st = await ctx.statResult(exe);
  if (!st.info?.isFile) {
    const why = st.info
      ? 'is not a file'
      : ((await brokenLink(ctx, exe))?.replace(`${exe} `, '') ?? describeFsError(st.code));
    if (hint.explicit || st.code !== 'ENOENT' || st.info) ctx.skip(exe, why, hint.source);
    return undefined;
  }
  const prefix = prefixOf(ctx, exe);
  const c = await classify(ctx, exe, prefix, hint);
  if (!c) return undefined;
  if (ctx.key(c.path) !== ctx.key(exe)) c.aliases = [...(c.aliases ?? []), exe];
  if (hint.pathOrder !== undefined) c.pathOrder = Math.min(c.pathOrder ?? Infinity, hint.pathOrder);
  return c;
}

async function classify(ctx: ScanContext, exe: string, prefix: string, hint: IdentifyHint): Promise<Candidate | undefined> {
  const p = ctx.path;
  // Python itself looks for pyvenv.cfg next to the executable or one folder up.
  for (const dir of [prefix, p.dirname(exe)]) {
    if (await ctx.isFile(p.join(dir, 'pyvenv.cfg'))) {
      return describeVenv(ctx, dir, { source: hint.source, explicit: true });
    }
  }
  if (await ctx.isDir(p.join(prefix, 'conda-meta'))) {
    return describeCondaPrefix(ctx, { prefix, source: hint.source, explicit: true });
  }
  const parent = p.dirname(prefix);
  if (ctx.key(parent) === ctx.key(p.join(pyenvRoot(ctx), 'versions'))) {
    return describePyenvVersion(ctx, prefix, hint.source);
  }
  if (ctx.key(parent) === ctx.key(uvPythonDir(ctx))) {
    return describeUvPython(ctx, prefix, hint.source);
  }
  return describePlain(ctx, exe, hint);
}

/** A Python that belongs to no environment manager: its prefix follows symlinks, as Python's does. */
async function describePlain(ctx: ScanContext, exe: string, hint: IdentifyHint): Promise<Candidate> {
  const p = ctx.path;
  const real = (await ctx.realpath(exe)) ?? exe;
  const prefix = prefixOf(ctx, real);
  const c: Candidate = {
    path: exe,
    kind: hint.fallbackKind,
    name: ctx.isWindows ? p.basename(prefix) : p.basename(exe),
    prefix,
    source: hint.source,
  };
  let version = hint.version;
  let source = hint.versionSource;
  const nameMinor = versionFromExecutableName(p.basename(real)) ?? versionFromExecutableName(p.basename(exe));
  const minor = minorOf(version) ?? nameMinor ?? (ctx.isWindows ? await minorFromDll(ctx, prefix) : undefined);
  if (!version || !/^\d+\.\d+\.\d+/.test(version)) {
    const fromHeaders = await versionFromHeaders(ctx, prefix, minor);
    if (fromHeaders) {
      version = fromHeaders;
      source = 'patchlevel.h';
    } else if (!version && minor) {
      version = minor;
      source = 'executable name';
    }
  }
  if (version) {
    c.version = version;
    c.versionSource = source ?? 'executable name';
  }
  return c;
}

/** Windows installs carry `python312.dll` next to python.exe. */
async function minorFromDll(ctx: ScanContext, prefix: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await ctx.readdir(prefix);
  } catch {
    return undefined;
  }
  for (const n of names) {
    const m = /^python(\d)(\d+)\.dll$/i.exec(n);
    if (m) return `${m[1]}.${m[2]}`;
  }
  return undefined;
}
