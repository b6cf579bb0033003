/**
 * pyenv (and pyenv-win) versions: the real interpreters under `versions/`, never the shims
 * (a shim is a script that would pick a version at run time). pyenv-virtualenv envs are venvs;
 * Anaconda/Miniforge "versions" are left to the conda locator.
 */
import { findExecutable } from '../prefix-layout.js';
import { describeFsError, type ScanContext } from '../scan-context.js';
import { versionFromFolderName, versionFromHeadersOrName } from '../version-from-files.js';
import { eachSettled, type Candidate, type Locator } from './locator.js';
import { describeVenv } from './venv.js';

export function pyenvRoot(ctx: ScanContext): string {
  const root = ctx.getenv('PYENV_ROOT');
  if (root) return ctx.expand(root);
  if (ctx.isWindows) {
    const win = ctx.getenv('PYENV') ?? ctx.getenv('PYENV_HOME');
    return win ? ctx.expand(win) : ctx.path.join(ctx.home, '.pyenv', 'pyenv-win');
  }
  return ctx.path.join(ctx.home, '.pyenv');
}

/** Names pyenv runs by default: PYENV_VERSION, else the `version` file (colon- or line-separated). */
async function globalVersions(ctx: ScanContext, root: string): Promise<string[]> {
  const fromEnv = ctx.getenv('PYENV_VERSION');
  const text = fromEnv ?? (await ctx.readText(ctx.path.join(root, 'version')));
  if (!text) return [];
  return text
    .split(/[\s:]+/)
    .map((s) => s.trim())
    .filter((s) => s && !s.startsWith('#'));
}

export async function describePyenvVersion(ctx: ScanContext, dir: string, source: string): Promise<Candidate | undefined> {
  const exe = await findExecutable(ctx, dir, 'root');
  if ('problem' in exe) {
    ctx.skip(dir, `pyenv version without a working executable: ${exe.problem}`, source);
    return undefined;
  }
  const name = ctx.path.basename(dir);
  const fromName = versionFromFolderName(name);
  return { path: exe.path, kind: 'pyenv', name, prefix: dir, source, manager: 'pyenv', ...(await versionFromHeadersOrName(ctx, dir, fromName)) };
}

export const pyenvLocator: Locator = {
  name: 'pyenv',
  async find(ctx) {
    const root = pyenvRoot(ctx);
    const versionsDir = ctx.path.join(root, 'versions');
    const [names, global] = await Promise.all([ctx.list(versionsDir), globalVersions(ctx, root)]);
    const shims = ctx.key(ctx.path.join(root, 'shims'));
    const shimsOrder = ctx.pathDirs().findIndex((d) => ctx.key(d) === shims);

    const lists = await eachSettled(ctx, names.filter((n) => !n.startsWith('.')), (n) => ctx.path.join(versionsDir, n), async (n) => {
      const dir = ctx.path.join(versionsDir, n);
      const st = await ctx.statResult(dir);
      if (!st.info) {
        ctx.skip(dir, `pyenv version folder ${describeFsError(st.code)}`, 'pyenv');
        return [];
      }
      if (!st.info.isDirectory) return [];
      if (await ctx.isDir(ctx.path.join(dir, 'conda-meta'))) return []; // conda locator's
      const found: Candidate[] = [];
      const main = (await ctx.isFile(ctx.path.join(dir, 'pyvenv.cfg')))
        ? await describeVenv(ctx, dir, { source: 'pyenv', manager: 'pyenv-virtualenv' })
        : await describePyenvVersion(ctx, dir, 'pyenv');
      if (main) {
        if (global.includes(n)) {
          main.notes = [...(main.notes ?? []), 'pyenv global version'];
          if (shimsOrder >= 0 && global[0] === n) main.pathOrder = shimsOrder;
        }
        found.push(main);
      }
      // pyenv-virtualenv keeps envs in versions/<v>/envs/<name> (versions/<name> links there).
      for (const e of await ctx.list(ctx.path.join(dir, 'envs'))) {
        const v = await describeVenv(ctx, ctx.path.join(dir, 'envs', e), { source: 'pyenv', manager: 'pyenv-virtualenv' });
        if (v) found.push(v);
      }
      return found;
    });
    return lists.flat();
  },
};
