/** PYTHON_MCP_INTERPRETER, listed so the table shows it; an executable or an environment folder. */
import { identifyExecutable } from '../identify.js';
import { findExecutable } from '../prefix-layout.js';
import type { ScanContext } from '../scan-context.js';
import type { Candidate, Locator } from './locator.js';

export const ENV_VAR = 'PYTHON_MCP_INTERPRETER';

/** An executable path as given, or the interpreter inside a folder (`bin/python`, `Scripts\python.exe`, `python.exe`). */
export async function resolveExecutable(ctx: ScanContext, given: string): Promise<{ path: string } | { problem: string }> {
  const trimmed = given.trim();
  if (!/[\\/]/.test(trimmed) && trimmed !== '~') {
    // A bare name (`python3`) means what the shell would run: the first match on PATH.
    const names = ctx.isWindows && !/\.exe$/i.test(trimmed) ? [`${trimmed}.exe`, trimmed] : [trimmed];
    for (const dir of ctx.pathDirs()) {
      for (const n of names) {
        const candidate = ctx.path.join(dir, n);
        if (await ctx.isFile(candidate)) return { path: candidate };
      }
    }
    return { problem: `${trimmed} is not on PATH` };
  }
  const p = ctx.expand(trimmed);
  if (!(await ctx.isDir(p))) return { path: p };
  for (const layout of ['venv', 'root'] as const) {
    const found = await findExecutable(ctx, p, layout);
    if ('path' in found) return found;
  }
  return { problem: `${p} is a folder with no Python executable in it` };
}

export const envVarLocator: Locator = {
  name: 'env-var',
  async find(ctx): Promise<Candidate[]> {
    const given = ctx.getenv(ENV_VAR);
    if (!given) return [];
    const exe = await resolveExecutable(ctx, given);
    if ('problem' in exe) {
      ctx.skip(given, exe.problem, ENV_VAR);
      return [];
    }
    const c = await identifyExecutable(ctx, exe.path, { source: ENV_VAR, fallbackKind: 'env-var', explicit: true });
    return c ? [c] : [];
  },
};
