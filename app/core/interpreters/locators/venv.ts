/**
 * venv / virtualenv / uv / Poetry / Pipenv environments: anything with a pyvenv.cfg. Found in
 * the active VIRTUAL_ENV, virtualenvwrapper's WORKON_HOME, Pipenv's and Poetry's folders, and
 * `.venv`/`venv` of the workspace folders we are given.
 */
import { findExecutable } from '../prefix-layout.js';
import { describeFsError, type ScanContext } from '../scan-context.js';
import { parsePyvenvCfg, versionFromPyvenvCfg } from '../version-from-files.js';
import { eachSettled, type Candidate, type Locator } from './locator.js';

const PROJECT_VENV_NAMES = ['.venv', 'venv', 'env'];

export interface VenvHint {
  source: string;
  /** Named directly (VIRTUAL_ENV, a folder of venvs): report when it is not a venv. */
  explicit?: boolean;
  manager?: string;
}

export async function describeVenv(ctx: ScanContext, prefix: string, hint: VenvHint): Promise<Candidate | undefined> {
  const text = await ctx.readText(ctx.path.join(prefix, 'pyvenv.cfg'));
  if (text === undefined) {
    if (hint.explicit) ctx.skip(prefix, 'not a virtual environment (no pyvenv.cfg)', hint.source);
    return undefined;
  }
  const cfg = parsePyvenvCfg(text);
  const exe = await findExecutable(ctx, prefix, 'venv');
  if ('problem' in exe) {
    // Typically the Python it was made from has been uninstalled: say which.
    const base = cfg['home'] ? ` (made from ${cfg['home']})` : '';
    ctx.skip(prefix, `broken virtual environment${base}: ${exe.problem}`, hint.source);
    return undefined;
  }
  const version = versionFromPyvenvCfg(cfg);
  const manager = hint.manager ?? (cfg['uv'] ? 'uv' : cfg['virtualenv'] ? 'virtualenv' : 'venv');
  const base = ctx.path.basename(prefix);
  const name = PROJECT_VENV_NAMES.includes(base) ? `${ctx.path.basename(ctx.path.dirname(prefix))}/${base}` : base;
  const active = ctx.getenv('VIRTUAL_ENV');
  const c: Candidate = {
    path: exe.path,
    kind: 'venv',
    name,
    prefix,
    source: hint.source,
    manager,
    active: active !== undefined && ctx.key(active) === ctx.key(prefix),
    venv: { home: cfg['home'], systemSitePackages: (cfg['include-system-site-packages'] ?? '').toLowerCase() === 'true' },
  };
  if (version) {
    c.version = version;
    c.versionSource = 'pyvenv.cfg';
  }
  return c;
}

/** Folders whose children are venvs, each with the tool that keeps them there. */
function venvFolders(ctx: ScanContext): Array<{ dir: string; source: string; manager?: string; explicit: boolean }> {
  const p = ctx.path;
  const home = ctx.home;
  const out: Array<{ dir: string; source: string; manager?: string; explicit: boolean }> = [];
  const workon = ctx.getenv('WORKON_HOME');
  if (workon) out.push({ dir: ctx.expand(workon), source: 'WORKON_HOME', explicit: true });
  out.push({ dir: p.join(home, '.virtualenvs'), source: 'virtualenvwrapper folder', explicit: false });
  out.push({ dir: p.join(home, '.venvs'), source: 'venvs folder', explicit: false });
  out.push({ dir: p.join(home, 'venvs'), source: 'venvs folder', explicit: false });
  const poetryCache = ctx.getenv('POETRY_CACHE_DIR');
  const poetryDirs = poetryCache
    ? [p.join(ctx.expand(poetryCache), 'virtualenvs')]
    : ctx.isWindows
      ? [p.join(ctx.getenv('LOCALAPPDATA') ?? p.join(home, 'AppData', 'Local'), 'pypoetry', 'Cache', 'virtualenvs')]
      : ctx.host.platform === 'darwin'
        ? [p.join(home, 'Library', 'Caches', 'pypoetry', 'virtualenvs')]
        : [p.join(ctx.getenv('XDG_CACHE_HOME') ?? p.join(home, '.cache'), 'pypoetry', 'virtualenvs')];
  for (const dir of poetryDirs) out.push({ dir, source: 'Poetry', manager: 'poetry', explicit: false });
  if (!ctx.isWindows) {
    const data = ctx.getenv('XDG_DATA_HOME') ?? p.join(home, '.local', 'share');
    out.push({ dir: p.join(data, 'virtualenvs'), source: 'Pipenv', manager: 'pipenv', explicit: false });
  }
  return out;
}

export const venvLocator: Locator = {
  name: 'venv',
  async find(ctx) {
    const prefixes: Array<{ prefix: string } & VenvHint> = [];
    const active = ctx.getenv('VIRTUAL_ENV');
    if (active) prefixes.push({ prefix: ctx.path.normalize(active), source: 'VIRTUAL_ENV', explicit: true });
    for (const ws of ctx.options.workspaceDirs ?? []) {
      for (const n of PROJECT_VENV_NAMES) prefixes.push({ prefix: ctx.path.join(ws, n), source: 'workspace folder' });
    }
    await Promise.all(
      venvFolders(ctx).map(async (f) => {
        for (const name of await ctx.list(f.dir, { explicit: f.explicit, source: f.source })) {
          if (name.startsWith('.')) continue;
          // Inside a folder of venvs, a child that is not one deserves a reason.
          prefixes.push({ prefix: ctx.path.join(f.dir, name), source: f.source, manager: f.manager, explicit: true });
        }
      }),
    );
    const unique = [...new Map(prefixes.map((h) => [ctx.key(h.prefix), h])).values()];
    return eachSettled(ctx, unique, (h) => h.prefix, async (h) => {
      const st = await ctx.statResult(h.prefix);
      if (!st.info) {
        if (h.explicit || st.code !== 'ENOENT') ctx.skip(h.prefix, `folder ${describeFsError(st.code)}`, h.source);
        return undefined;
      }
      // virtualenvwrapper keeps its hook scripts as plain files next to the envs.
      if (!st.info.isDirectory) return undefined;
      return describeVenv(ctx, h.prefix, h);
    });
  },
};
