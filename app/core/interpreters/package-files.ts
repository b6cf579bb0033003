/**
 * What can be learnt about an interpreter's packages from files alone: whether ipykernel is
 * installed (so the chooser can skip probing Pythons that lack it) and whether pip is fenced
 * off by PEP 668 (so the install hint uses a command that will work).
 */
import type { Candidate } from './locators/locator.js';
import { prefixOf } from './prefix-layout.js';
import type { ScanContext } from './scan-context.js';
import type { InterpreterKind } from './types.js';
import { minorOf } from './version-from-files.js';

export interface PackageFacts {
  hasIpykernel?: boolean;
  ipykernelEvidence?: string;
  externallyManaged?: boolean;
  debianPackaging?: boolean;
}

type Subject = Pick<Candidate, 'kind' | 'prefix' | 'version' | 'venv' | 'ipykernel'>;

/** Kinds that can carry PEP 668's marker (venvs and conda envs never do). */
const MARKABLE_KINDS: ReadonlySet<InterpreterKind> = new Set(['system', 'windows-registry', 'env-var', 'uv', 'pyenv']);

/**
 * `lib/python3.X/site-packages` of a prefix; when X is unknown, every `lib/python3.*` there is.
 * `lib64` only for distribution Pythons (Fedora, SUSE put platform packages there).
 */
async function libSitePackages(ctx: ScanContext, prefix: string, minor: string | undefined, lib64 = false): Promise<string[]> {
  const p = ctx.path;
  if (ctx.isWindows) return [p.join(prefix, 'Lib', 'site-packages')];
  let minors = minor ? [minor] : [];
  if (!minor) {
    try {
      minors = (await ctx.readdir(p.join(prefix, 'lib')))
        .map((n) => /^python(\d+\.\d+)t?$/.exec(n)?.[1])
        .filter((m): m is string => m !== undefined);
    } catch {
      minors = [];
    }
  }
  return minors.flatMap((m) => [
    p.join(prefix, 'lib', `python${m}`, 'site-packages'),
    ...(lib64 ? [p.join(prefix, 'lib64', `python${m}`, 'site-packages')] : []),
  ]);
}

/** Debian/Ubuntu keep system packages in dist-packages, and pip --user's in /usr/local. */
function debianDirs(ctx: ScanContext, prefix: string, minor: string | undefined): string[] {
  if (ctx.isWindows || prefix !== '/usr') return [];
  const out = ['/usr/lib/python3/dist-packages'];
  if (minor) out.unshift(`/usr/local/lib/python${minor}/dist-packages`, `/usr/lib/python${minor}/dist-packages`);
  return out;
}

/** The user site-packages (`pip install --user`), which every non-venv Python reads. */
function userSite(ctx: ScanContext, minor: string | undefined): string[] {
  if (!minor) return [];
  const p = ctx.path;
  const base = ctx.getenv('PYTHONUSERBASE');
  if (ctx.isWindows) {
    const appdata = base ?? p.join(ctx.getenv('APPDATA') ?? p.join(ctx.home, 'AppData', 'Roaming'), 'Python');
    return [p.join(appdata, `Python${minor.replace('.', '')}`, 'site-packages')];
  }
  const out = [p.join(base ?? p.join(ctx.home, '.local'), 'lib', `python${minor}`, 'site-packages')];
  if (ctx.host.platform === 'darwin') out.push(p.join(ctx.home, 'Library', 'Python', minor, 'lib', 'python', 'site-packages'));
  return out;
}

/** Every folder the interpreter will import packages from, most specific first. */
export async function siteDirsFromFiles(ctx: ScanContext, s: Subject): Promise<string[]> {
  const minor = minorOf(s.version);
  const own = await libSitePackages(ctx, s.prefix, minor);
  if (s.kind === 'venv') {
    if (!s.venv?.systemSitePackages || !s.venv.home) return own;
    const basePrefix = prefixOf(ctx, ctx.path.join(s.venv.home, 'python'));
    return [...own, ...(await libSitePackages(ctx, basePrefix, minor, true)), ...debianDirs(ctx, basePrefix, minor), ...userSite(ctx, minor)];
  }
  const distro = s.kind === 'system' || s.kind === 'windows-registry' || s.kind === 'env-var';
  const withLib64 = distro ? await libSitePackages(ctx, s.prefix, minor, true) : own;
  return [...withLib64, ...debianDirs(ctx, s.prefix, minor), ...userSite(ctx, minor)];
}

export async function packageFacts(ctx: ScanContext, s: Subject): Promise<PackageFacts> {
  const facts: PackageFacts = {};
  if (s.ipykernel?.has) {
    facts.hasIpykernel = true;
    facts.ipykernelEvidence = s.ipykernel.evidence;
  } else {
    const dirs = await siteDirsFromFiles(ctx, s);
    // The folder first: most candidates (lib64, user site) do not exist, and one stat says so.
    const looked = await Promise.all(
      dirs.map(async (dir) => {
        if (!(await ctx.isDir(dir))) return { exists: false };
        const init = ctx.path.join(dir, 'ipykernel', '__init__.py');
        return (await ctx.isFile(init)) ? { exists: true, init } : { exists: true };
      }),
    );
    const hit = looked.find((l) => l.init);
    if (hit?.init) {
      facts.hasIpykernel = true;
      facts.ipykernelEvidence = hit.init;
    } else if (looked.some((l) => l.exists)) {
      // Readable package folders without it: a confident no (the probe has the last word).
      facts.hasIpykernel = false;
    }
  }
  if (MARKABLE_KINDS.has(s.kind)) {
    // PEP 668: the marker sits in the stdlib folder.
    const minor = minorOf(s.version);
    const stdlib = ctx.isWindows ? ctx.path.join(s.prefix, 'Lib') : minor ? ctx.path.join(s.prefix, 'lib', `python${minor}`) : undefined;
    if (stdlib && (await ctx.isFile(ctx.path.join(stdlib, 'EXTERNALLY-MANAGED')))) facts.externallyManaged = true;
    if (!ctx.isWindows && s.prefix === '/usr' && (await ctx.isDir('/usr/lib/python3/dist-packages'))) facts.debianPackaging = true;
  }
  return facts;
}
