/**
 * Conda family (Anaconda, Miniconda, Miniforge, Mambaforge, micromamba): install roots from
 * environment variables and the usual install places, environment prefixes from
 * ~/.conda/environments.txt, `envs_dirs` of every .condarc, and every root's `envs/`.
 * A base install is told from an env by `conda-meta` plus `condabin`.
 */
import { describeFsError, type ScanContext } from '../scan-context.js';
import { findExecutable, prefixOf } from '../prefix-layout.js';
import { condaPackageRecord, versionFromCondaMeta } from '../version-from-files.js';
import { parseCondarcEnvsDirs } from './condarc.js';
import { eachSettled, type Candidate, type Locator } from './locator.js';
import { pyenvRoot } from './pyenv.js';

/** Folder names of conda installs, in any case: anaconda3, Miniconda3, miniforge3, mambaforge, micromamba, /opt/conda. */
const ROOT_NAME = /^(?:(?:ana|mini)conda\d*|miniforge\d*|mambaforge\d*|micromamba|mamba|conda)$/i;
const GENERIC_ROOT = /^(?:conda|mamba|base)$/i;
const DISTRIBUTION = /^(anaconda|miniconda|miniforge|mambaforge|micromamba)(\d*)/i;

export interface PrefixHint {
  prefix: string;
  source: string;
  /** Named by the user or a config: a missing folder is reported, not ignored. */
  explicit: boolean;
  /** The install root this prefix was found under. */
  root?: string;
  /** Found as an install root (its own base). */
  asRoot?: boolean;
  /** Found inside a folder conda searches by name (`envs/`, envs_dirs), so `conda -n` works. */
  inEnvsDir?: boolean;
}

interface DirHint {
  dir: string;
  source: string;
  explicit: boolean;
  root?: string;
}

export const condaLocator: Locator = {
  name: 'conda',
  async find(ctx) {
    const [known, pyenvRoots, rcDirs, listed] = await Promise.all([
      knownRoots(ctx),
      pyenvCondaRoots(ctx),
      condarcEnvsDirs(ctx, condarcSearchPaths(ctx)),
      environmentsTxt(ctx),
    ]);
    const roots = uniqueBy(ctx, [...envVarRoots(ctx), ...known, ...pyenvRoots], (r) => r.dir);
    const prefixes: PrefixHint[] = [...listed, ...envVarPrefixes(ctx)];
    const envsDirs: DirHint[] = [...rcDirs, ...envVarEnvsDirs(ctx), ...userEnvsDirs(ctx)];

    await Promise.all(
      roots.map(async (r) => {
        const st = await ctx.statResult(r.dir);
        if (!st.info?.isDirectory) {
          if (r.explicit || (st.code && st.code !== 'ENOENT')) {
            ctx.skip(r.dir, `conda install folder ${st.info ? 'is not a folder' : describeFsError(st.code)}`, r.source);
          }
          return;
        }
        prefixes.push({ prefix: r.dir, source: r.source, explicit: r.explicit, root: r.dir, asRoot: true });
        envsDirs.push({ dir: ctx.path.join(r.dir, 'envs'), source: `${r.source}, envs folder`, explicit: false, root: r.dir });
        const own = ['.condarc', 'condarc', 'condarc.d'].map((f) => ctx.path.join(r.dir, f));
        envsDirs.push(...(await condarcEnvsDirs(ctx, own)));
      }),
    );

    await Promise.all(
      uniqueBy(ctx, envsDirs, (d) => d.dir).map(async (d) => {
        for (const name of await ctx.list(d.dir, { explicit: d.explicit, source: d.source })) {
          // conda writes `.conda_envs_dir_test` into envs folders; dot entries are never envs.
          if (name.startsWith('.')) continue;
          prefixes.push({ prefix: ctx.path.join(d.dir, name), source: d.source, explicit: false, root: d.root, inEnvsDir: true });
        }
      }),
    );

    return eachSettled(ctx, mergeHints(ctx, prefixes), (h) => h.prefix, (h) => describeCondaPrefix(ctx, h));
  },
};

/** One hint per prefix; the most informative facts win (explicit, root, envs-dir membership). */
function mergeHints(ctx: ScanContext, hints: PrefixHint[]): PrefixHint[] {
  const byKey = new Map<string, PrefixHint>();
  for (const h of hints) {
    const k = ctx.key(h.prefix);
    const seen = byKey.get(k);
    if (!seen) {
      byKey.set(k, { ...h });
      continue;
    }
    seen.explicit ||= h.explicit;
    seen.asRoot ||= h.asRoot;
    seen.inEnvsDir ||= h.inEnvsDir;
    seen.root ??= h.root;
    if (!seen.source.split('; ').includes(h.source)) seen.source = `${seen.source}; ${h.source}`;
  }
  return [...byKey.values()];
}

function uniqueBy<T>(ctx: ScanContext, items: T[], pathOf: (t: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const it of items) {
    const k = ctx.key(pathOf(it));
    if (!seen.has(k)) seen.set(k, it);
  }
  return [...seen.values()];
}

/**
 * Describes one conda prefix, or records why it is left out (missing, unreadable, not conda,
 * half-deleted, no Python). Exported for `identify`, which classifies a bare executable.
 */
export async function describeCondaPrefix(ctx: ScanContext, hint: PrefixHint): Promise<Candidate | undefined> {
  const { prefix, source } = hint;
  const st = await ctx.statResult(prefix);
  if (!st.info) {
    if (hint.explicit || st.code !== 'ENOENT') ctx.skip(prefix, `environment folder ${describeFsError(st.code)}`, source);
    return undefined;
  }
  if (!st.info.isDirectory) {
    if (hint.explicit || hint.inEnvsDir) ctx.skip(prefix, 'not a folder', source);
    return undefined;
  }
  let meta: string[];
  try {
    meta = await ctx.readdir(ctx.path.join(prefix, 'conda-meta'));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') {
      // A root without a base env is normal (micromamba); a non-conda folder among envs is not.
      if (!hint.asRoot && (hint.explicit || hint.inEnvsDir)) ctx.skip(prefix, 'not a conda environment (no conda-meta folder)', source);
    } else {
      ctx.skip(prefix, `conda-meta ${describeFsError(code)}`, source);
    }
    return undefined;
  }

  const version = versionFromCondaMeta(meta);
  const exe = await findExecutable(ctx, prefix, 'root');
  if ('problem' in exe) {
    ctx.skip(
      prefix,
      version
        ? `half-deleted environment: conda-meta lists Python ${version} but ${exe.problem}`
        : 'no Python in this conda environment',
      source,
    );
    return undefined;
  }

  const isBase = await isCondaBase(ctx, prefix, hint);
  const root = isBase ? prefix : (hint.root ?? (await rootAbove(ctx, prefix)));
  const manager = root ? await managerOf(ctx, root, isBase ? meta : undefined) : undefined;
  const envsParent = ctx.path.basename(ctx.path.dirname(prefix)).toLowerCase() === 'envs';
  const envName = isBase ? 'base' : hint.inEnvsDir || envsParent ? ctx.path.basename(prefix) : undefined;
  const record = condaPackageRecord(meta, 'ipykernel');
  const condaPrefix = ctx.getenv('CONDA_PREFIX');
  const notes: string[] = [];
  if (source.includes('environments.txt') && !hint.inEnvsDir) notes.push('listed in environments.txt');

  const c: Candidate = {
    path: exe.path,
    kind: isBase ? 'conda-base' : 'conda-env',
    name: envName ?? ctx.path.basename(prefix),
    prefix,
    source,
    manager,
    condaEnvName: envName,
    condaRoot: root,
    active: condaPrefix !== undefined && ctx.key(condaPrefix) === ctx.key(prefix),
    // Absence of a record is not proof: pip may have put ipykernel in site-packages.
    ipykernel: record ? { has: true, evidence: ctx.path.join(prefix, 'conda-meta', record) } : undefined,
  };
  if (version) {
    c.version = version;
    c.versionSource = 'conda-meta';
  }
  if (notes.length) c.notes = notes;
  return c;
}

/** `conda-meta` plus `condabin` marks an install's base; micromamba roots have `envs/` instead. */
async function isCondaBase(ctx: ScanContext, prefix: string, hint: PrefixHint): Promise<boolean> {
  if (await ctx.isDir(ctx.path.join(prefix, 'condabin'))) return true;
  return hint.asRoot === true && (await ctx.isDir(ctx.path.join(prefix, 'envs')));
}

/** `<root>/envs/<name>` → `<root>` when `<root>` is a conda install. */
async function rootAbove(ctx: ScanContext, prefix: string): Promise<string | undefined> {
  const parent = ctx.path.dirname(prefix);
  if (ctx.path.basename(parent).toLowerCase() !== 'envs') return undefined;
  const root = ctx.path.dirname(parent);
  return (await ctx.isDir(ctx.path.join(root, 'conda-meta'))) ? root : undefined;
}

/**
 * The distribution a root came from: its folder name when that says (anaconda3, miniforge3),
 * a Homebrew Caskroom name, MAMBA_ROOT_PREFIX, or the `anaconda` metapackage record.
 */
export async function managerOf(ctx: ScanContext, root: string, rootMeta?: string[]): Promise<string> {
  let dir = root;
  for (let i = 0; i < 3; i++) {
    const name = ctx.path.basename(dir);
    // anaconda3, Miniforge3, and pyenv's `miniconda3-latest` / `anaconda3-2024.02-1`
    const m = DISTRIBUTION.exec(name);
    if (m) return `${m[1]}${m[2]}`.toLowerCase();
    // Homebrew's Caskroom/miniconda/base: the distribution is a folder or two up.
    if (!GENERIC_ROOT.test(name)) break;
    dir = ctx.path.dirname(dir);
  }
  const mamba = ctx.getenv('MAMBA_ROOT_PREFIX');
  if (mamba && ctx.key(mamba) === ctx.key(root)) return 'micromamba';
  let meta = rootMeta;
  if (!meta) {
    try {
      meta = await ctx.readdir(ctx.path.join(root, 'conda-meta'));
    } catch {
      meta = [];
    }
  }
  if (meta.some((n) => /^anaconda-(?:\d|custom)/.test(n))) return 'anaconda3';
  return 'conda';
}

function envVarRoots(ctx: ScanContext): DirHint[] {
  const out: DirHint[] = [];
  const add = (dir: string | undefined, source: string) => {
    if (dir) out.push({ dir: ctx.path.normalize(dir), source, explicit: true });
  };
  for (const name of ['CONDA_EXE', '_CONDA_EXE']) {
    const exe = ctx.getenv(name);
    // <root>/bin/conda, <root>/condabin/conda, <root>\Scripts\conda.exe, <root>\condabin\conda.bat
    if (exe) add(ctx.path.dirname(ctx.path.dirname(exe)), name);
  }
  const py = ctx.getenv('CONDA_PYTHON_EXE');
  if (py) add(prefixOf(ctx, py), 'CONDA_PYTHON_EXE');
  add(ctx.getenv('CONDA_ROOT'), 'CONDA_ROOT');
  add(ctx.getenv('CONDA_DIR'), 'CONDA_DIR');
  add(ctx.getenv('MAMBA_ROOT_PREFIX'), 'MAMBA_ROOT_PREFIX');
  // With an env active, CONDA_PREFIX_1 is the base it was activated from.
  add(ctx.getenv('CONDA_PREFIX_1'), 'CONDA_PREFIX_1');
  return out;
}

function envVarPrefixes(ctx: ScanContext): PrefixHint[] {
  const p = ctx.getenv('CONDA_PREFIX');
  return p ? [{ prefix: ctx.path.normalize(p), source: 'CONDA_PREFIX', explicit: true }] : [];
}

function envVarEnvsDirs(ctx: ScanContext): DirHint[] {
  const out: DirHint[] = [];
  for (const name of ['CONDA_ENVS_PATH', 'CONDA_ENVS_DIRS']) {
    const v = ctx.getenv(name);
    if (!v) continue;
    for (const d of v.split(ctx.isWindows ? ';' : ':')) {
      if (d.trim()) out.push({ dir: ctx.expand(d), source: name, explicit: true });
    }
  }
  return out;
}

/** conda's per-user env folders, used when the install itself is not writable. */
function userEnvsDirs(ctx: ScanContext): DirHint[] {
  const p = ctx.path;
  const dirs = [p.join(ctx.home, '.conda', 'envs')];
  if (ctx.isWindows) {
    const local = ctx.getenv('LOCALAPPDATA') ?? p.join(ctx.home, 'AppData', 'Local');
    dirs.push(p.join(local, 'conda', 'conda', 'envs'));
  }
  return dirs.map((dir) => ({ dir, source: 'user envs folder', explicit: false }));
}

/** Folders that hold conda installs by their usual names. Each is listed once, not probed name by name. */
function rootParents(ctx: ScanContext): string[] {
  const p = ctx.path;
  const home = ctx.home;
  if (ctx.isWindows) {
    const local = ctx.getenv('LOCALAPPDATA') ?? p.join(home, 'AppData', 'Local');
    const drive = (ctx.getenv('SYSTEMDRIVE') ?? 'C:').replace(/[\\/]*$/, '') + '\\';
    const homeDrive = ctx.getenv('HOMEDRIVE') ? ctx.getenv('HOMEDRIVE')!.replace(/[\\/]*$/, '') + '\\' : undefined;
    return [
      home,
      ctx.getenv('USERPROFILE'),
      local,
      p.join(local, 'Continuum'), // Anaconda's default before 2019
      p.join(local, 'Programs'),
      ctx.getenv('PROGRAMDATA'),
      ctx.getenv('ALLUSERSPROFILE'),
      ctx.getenv('ProgramFiles'),
      drive,
      homeDrive,
    ].filter((d): d is string => !!d);
  }
  return [
    home,
    p.join(home, 'opt'), // macOS graphical installer
    p.join(home, '.local'),
    p.join(home, '.local', 'share'), // micromamba ≥ 2 default root: ~/.local/share/mamba
    '/opt',
    '/usr/local',
    '/usr/share',
    ...(ctx.host.platform === 'darwin' ? ['/opt/homebrew'] : []),
    '/',
  ];
}

async function knownRoots(ctx: ScanContext): Promise<DirHint[]> {
  const out: DirHint[] = [];
  const parents = [...new Map(rootParents(ctx).map((d) => [ctx.key(d), d])).values()];
  await Promise.all(
    parents.map(async (parent) => {
      for (const name of await ctx.list(parent)) {
        if (ROOT_NAME.test(name)) out.push({ dir: ctx.path.join(parent, name), source: 'known install location', explicit: false });
      }
    }),
  );
  if (ctx.host.platform === 'darwin') {
    // Homebrew casks keep the install one level down.
    for (const brew of ['/opt/homebrew/Caskroom', '/usr/local/Caskroom']) {
      for (const cask of ['miniconda', 'miniforge', 'anaconda', 'mambaforge']) {
        out.push({ dir: ctx.path.join(brew, cask, 'base'), source: 'Homebrew cask', explicit: false });
      }
    }
  }
  return out;
}

/** pyenv can install Anaconda/Miniforge as "versions"; they are conda installs. */
async function pyenvCondaRoots(ctx: ScanContext): Promise<DirHint[]> {
  const versions = ctx.path.join(pyenvRoot(ctx), 'versions');
  const names = await ctx.list(versions);
  const out: DirHint[] = [];
  await Promise.all(
    names.map(async (n) => {
      const dir = ctx.path.join(versions, n);
      if (await ctx.isDir(ctx.path.join(dir, 'conda-meta'))) out.push({ dir, source: 'pyenv', explicit: false });
    }),
  );
  return out;
}

/** Every place conda reads a .condarc from, system to user (conda's own search order). */
export function condarcSearchPaths(ctx: ScanContext): string[] {
  const p = ctx.path;
  const trio = (dir: string) => ['.condarc', 'condarc', 'condarc.d'].map((f) => p.join(dir, f));
  const out: string[] = [];
  if (ctx.isWindows) {
    out.push(...trio(p.join(ctx.getenv('PROGRAMDATA') ?? 'C:\\ProgramData', 'conda')));
  } else {
    out.push(...trio('/etc/conda'), ...trio('/var/lib/conda'));
  }
  const root = ctx.getenv('CONDA_ROOT');
  if (root) out.push(...trio(root));
  const xdg = ctx.getenv('XDG_CONFIG_HOME');
  if (xdg) out.push(...trio(p.join(xdg, 'conda')));
  out.push(...trio(p.join(ctx.home, '.config', 'conda')), ...trio(p.join(ctx.home, '.conda')), p.join(ctx.home, '.condarc'));
  const prefix = ctx.getenv('CONDA_PREFIX');
  if (prefix) out.push(...trio(prefix));
  const condarc = ctx.getenv('CONDARC');
  if (condarc) out.push(ctx.expand(condarc));
  return out;
}

/** The `envs_dirs` named by a set of .condarc files or condarc.d folders. */
async function condarcEnvsDirs(ctx: ScanContext, files: string[]): Promise<DirHint[]> {
  const lists = await Promise.all(
    files.map(async (f): Promise<DirHint[]> => {
      const st = await ctx.statResult(f);
      if (!st.info) {
        if (st.code !== 'ENOENT' && st.code !== 'ENOTDIR') ctx.skip(f, `conda config ${describeFsError(st.code)}`);
        return [];
      }
      const paths = st.info.isDirectory
        ? (await ctx.list(f)).filter((n) => /\.ya?ml$|condarc/i.test(n)).map((n) => ctx.path.join(f, n))
        : [f];
      const out: DirHint[] = [];
      for (const file of paths) {
        const text = await ctx.readText(file);
        if (text === undefined) continue;
        for (const d of parseCondarcEnvsDirs(text)) {
          out.push({ dir: ctx.expand(d), source: `envs_dirs in ${file}`, explicit: true });
        }
      }
      return out;
    }),
  );
  return lists.flat();
}

/** Prefixes in ~/.conda/environments.txt, where conda records every env it creates. */
async function environmentsTxt(ctx: ScanContext): Promise<PrefixHint[]> {
  const file = ctx.path.join(ctx.home, '.conda', 'environments.txt');
  const text = await ctx.readText(file);
  if (text === undefined) return [];
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && ctx.path.isAbsolute(l))
    .map((l) => ({ prefix: ctx.path.normalize(l).replace(/(.)[\\/]+$/, '$1'), source: 'environments.txt', explicit: true }));
}
