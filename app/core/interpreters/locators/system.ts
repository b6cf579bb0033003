/**
 * Pythons on PATH and in the usual install places (/usr/bin, Homebrew, python.org's macOS
 * framework, %LOCALAPPDATA%\Programs\Python, C:\Python3xx). Shim folders (pyenv, asdf, mise)
 * and the Microsoft Store app-execution aliases are skipped: they are launchers, not Pythons.
 */
import { identifyExecutable } from '../identify.js';
import type { ScanContext } from '../scan-context.js';
import { eachSettled, type Locator } from './locator.js';
import { pyenvRoot } from './pyenv.js';

const POSIX_NAME = /^python(?:[23](?:\.\d+)?)?$/;
const WINDOWS_NAME = /^python3?\.exe$/i;

interface Dir {
  dir: string;
  pathOrder?: number;
}

async function usualDirs(ctx: ScanContext): Promise<string[]> {
  const p = ctx.path;
  if (ctx.options.systemDirs) return ctx.options.systemDirs;
  const children = async (parent: string, re: RegExp) =>
    (await ctx.list(parent)).filter((n) => re.test(n)).map((n) => p.join(parent, n));
  if (ctx.isWindows) {
    const local = ctx.getenv('LOCALAPPDATA') ?? p.join(ctx.home, 'AppData', 'Local');
    const drive = (ctx.getenv('SYSTEMDRIVE') ?? 'C:').replace(/[\\/]*$/, '') + '\\';
    const programFiles = [ctx.getenv('ProgramFiles'), ctx.getenv('ProgramFiles(x86)')].filter((d): d is string => !!d);
    const found = await Promise.all([
      children(p.join(local, 'Programs', 'Python'), /^Python\d+/i),
      ...programFiles.map((d) => children(d, /^Python\d+/i)),
      children(drive, /^Python\d+$/i),
    ]);
    return found.flat();
  }
  const framework = '/Library/Frameworks/Python.framework/Versions';
  const frameworks = (await children(framework, /^\d+\.\d+$/)).map((d) => p.join(d, 'bin'));
  return ['/usr/bin', '/usr/local/bin', '/bin', '/opt/homebrew/bin', '/opt/local/bin', ...frameworks];
}

/** Folders of launchers that pick a Python at run time. */
function isShimDir(ctx: ScanContext, dir: string): boolean {
  const base = ctx.path.basename(dir).toLowerCase();
  return base === 'shims' || ctx.within(dir, ctx.path.join(pyenvRoot(ctx), 'shims'));
}

/**
 * macOS's /usr/bin/python3 is a stub: it runs the Command Line Tools' Python, or, when they are
 * absent, opens an installer dialog — which a probe must never trigger. Returns the real
 * interpreter behind the stub, `''` when there is none (skip it), undefined for other paths.
 */
async function macStubTarget(ctx: ScanContext, exe: string): Promise<string | undefined> {
  if (ctx.host.platform !== 'darwin' || !/^\/usr\/bin\/python3?$/.test(exe)) return undefined;
  for (const real of [
    '/Library/Developer/CommandLineTools/usr/bin/python3',
    '/Applications/Xcode.app/Contents/Developer/usr/bin/python3',
  ]) {
    if (await ctx.isFile(real)) return real;
  }
  ctx.skip(exe, 'macOS stub that would ask to install the Command Line Tools, not an interpreter', 'PATH');
  return '';
}

export const systemLocator: Locator = {
  name: 'system',
  async find(ctx) {
    const dirs = new Map<string, Dir>();
    ctx.pathDirs().forEach((dir, i) => {
      const k = ctx.key(dir);
      if (!dirs.has(k)) dirs.set(k, { dir, pathOrder: i });
    });
    for (const dir of await usualDirs(ctx)) {
      const k = ctx.key(dir);
      if (!dirs.has(k)) dirs.set(k, { dir });
    }
    const found = await eachSettled(ctx, [...dirs.values()], (d) => d.dir, async (d) => {
      if (isShimDir(ctx, d.dir)) return [];
      const names = (await ctx.list(d.dir)).filter((n) => (ctx.isWindows ? WINDOWS_NAME : POSIX_NAME).test(n));
      if (ctx.isWindows && /[\\/]microsoft[\\/]windowsapps$/i.test(d.dir)) {
        for (const n of names) {
          ctx.skip(ctx.path.join(d.dir, n), 'Microsoft Store app alias, not an interpreter (an installed Store Python is found through the registry)', 'PATH');
        }
        return [];
      }
      const source = d.pathOrder !== undefined ? 'PATH' : 'usual location';
      const list = await Promise.all(
        names.map(async (n) => {
          const listed = ctx.path.join(d.dir, n);
          const stub = await macStubTarget(ctx, listed);
          if (stub === '') return undefined;
          const c = await identifyExecutable(ctx, stub ?? listed, {
            source,
            fallbackKind: 'system',
            pathOrder: d.pathOrder,
            explicit: true, // it was in the folder listing: a failure is a broken link worth naming
          });
          if (c && stub) c.aliases = [...(c.aliases ?? []), listed];
          return c;
        }),
      );
      return list.filter((c) => c !== undefined);
    });
    return found.flat();
  },
};
