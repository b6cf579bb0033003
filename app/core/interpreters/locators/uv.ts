/**
 * Pythons installed by `uv python install`: `<data>/uv/python/cpython-3.12.1-linux-x86_64-gnu/`.
 * The folder name carries the version; the headers confirm it when the name is only `3.12`.
 */
import { findExecutable } from '../prefix-layout.js';
import { describeFsError, type ScanContext } from '../scan-context.js';
import { versionFromFolderName, versionFromHeadersOrName } from '../version-from-files.js';
import { eachSettled, type Candidate, type Locator } from './locator.js';

const UV_DIR = /^(cpython|pypy|graalpy)-(\d+\.\d+)/;

export function uvPythonDir(ctx: ScanContext): string {
  const explicit = ctx.getenv('UV_PYTHON_INSTALL_DIR');
  if (explicit) return ctx.expand(explicit);
  if (ctx.isWindows) {
    const appdata = ctx.getenv('APPDATA') ?? ctx.path.join(ctx.home, 'AppData', 'Roaming');
    return ctx.path.join(appdata, 'uv', 'data', 'python');
  }
  const data = ctx.getenv('XDG_DATA_HOME') ?? ctx.path.join(ctx.home, '.local', 'share');
  return ctx.path.join(data, 'uv', 'python');
}

export async function describeUvPython(ctx: ScanContext, dir: string, source: string): Promise<Candidate | undefined> {
  const name = ctx.path.basename(dir);
  const exe = await findExecutable(ctx, dir, 'root');
  if ('problem' in exe) {
    ctx.skip(dir, `uv Python without a working executable: ${exe.problem}`, source);
    return undefined;
  }
  const fromName = versionFromFolderName(name);
  const c: Candidate = { path: exe.path, kind: 'uv', name, prefix: dir, source, manager: 'uv' };
  if (fromName) {
    c.version = fromName;
    c.versionSource = 'folder name';
  } else {
    Object.assign(c, await versionFromHeadersOrName(ctx, dir, UV_DIR.exec(name)?.[2]));
  }
  return c;
}

export const uvLocator: Locator = {
  name: 'uv',
  async find(ctx) {
    const root = uvPythonDir(ctx);
    const explicit = ctx.getenv('UV_PYTHON_INSTALL_DIR') !== undefined;
    const names = (await ctx.list(root, { explicit, source: 'uv' })).filter((n) => UV_DIR.test(n));
    return eachSettled(ctx, names, (n) => ctx.path.join(root, n), async (n) => {
      const dir = ctx.path.join(root, n);
      const st = await ctx.statResult(dir);
      if (!st.info) {
        ctx.skip(dir, `folder ${describeFsError(st.code)}`, 'uv');
        return undefined;
      }
      return st.info.isDirectory ? describeUvPython(ctx, dir, 'uv') : undefined;
    });
  },
};
