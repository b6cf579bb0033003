/**
 * Where the executable sits inside an environment, per platform and kind, and the reverse:
 * which prefix an executable belongs to.
 */
import type { ScanContext } from './scan-context.js';
import { describeFsError } from './scan-context.js';

/** `venv` puts Windows executables in `Scripts\`; conda, pyenv-win, uv and python.org at the root. */
export type Layout = 'venv' | 'root';

export type Found = { path: string } | { problem: string };

const POSIX_MINOR = /^python3\.\d+$/;

/** The environment folder an executable belongs to (`<prefix>/bin/python`, `<prefix>\Scripts\python.exe`). */
export function prefixOf(ctx: ScanContext, exe: string): string {
  const dir = ctx.path.dirname(exe);
  const base = ctx.path.basename(dir).toLowerCase();
  if (ctx.isWindows) return base === 'scripts' ? ctx.path.dirname(dir) : dir;
  return base === 'bin' ? ctx.path.dirname(dir) : dir;
}

/** The folder holding the executables. */
export function binDir(ctx: ScanContext, prefix: string, layout: Layout): string {
  if (ctx.isWindows) return layout === 'venv' ? ctx.path.join(prefix, 'Scripts') : prefix;
  return ctx.path.join(prefix, 'bin');
}

/**
 * The interpreter of an environment: `python`, then `python3`, then `python3.X`. A broken link
 * or a missing executable comes back as a problem sentence (a half-deleted env says so).
 */
export async function findExecutable(ctx: ScanContext, prefix: string, layout: Layout): Promise<Found> {
  const dir = binDir(ctx, prefix, layout);
  const names = ctx.isWindows ? ['python.exe'] : ['python', 'python3'];
  let broken: string | undefined;
  for (const name of names) {
    const p = ctx.path.join(dir, name);
    const r = await ctx.statResult(p);
    if (r.info?.isFile) return { path: p };
    if (r.code && r.code !== 'ENOENT' && r.code !== 'ENOTDIR') {
      broken ??= `${p} ${describeFsError(r.code)}`;
    } else if (r.code === 'ENOENT') {
      broken ??= await brokenLink(ctx, p);
    }
  }
  if (!ctx.isWindows) {
    // uv and some source builds ship only bin/python3.X.
    let entries: string[] = [];
    try {
      entries = await ctx.readdir(dir);
    } catch {
      entries = [];
    }
    for (const name of entries.filter((n) => POSIX_MINOR.test(n)).sort().reverse()) {
      const p = ctx.path.join(dir, name);
      if (await ctx.isFile(p)) return { path: p };
    }
  }
  return { problem: broken ?? `no Python executable in ${dir}` };
}

/** "… is a broken link to X" when `p` is a dangling symlink, else undefined. */
export async function brokenLink(ctx: ScanContext, p: string): Promise<string | undefined> {
  try {
    const l = await ctx.host.lstat(p);
    if (!l.isSymbolicLink) return undefined;
    const target = await ctx.host.readlink(p).catch(() => '?');
    return `${p} is a broken link to ${target}`;
  } catch {
    return undefined;
  }
}
