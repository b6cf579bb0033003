/**
 * The interpreters this machine really has, for the tests that need a particular kind (a Python 2,
 * a pyenv Python without ipykernel): found where pyenv and PATH put them, never assumed by version.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface FoundPython {
  path: string;
  /** platform.python_version(), as the interpreter itself reports it. */
  version: string;
  /** Where it was found, for the test's diagnostic. */
  source: string;
}

export function pyenvRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.PYENV_ROOT || path.join(os.homedir(), '.pyenv');
}

/** pyenv's installed versions (folder names under versions/), sorted. */
export function pyenvVersions(env: NodeJS.ProcessEnv = process.env): string[] {
  try {
    return readdirSync(path.join(pyenvRoot(env), 'versions')).filter((name) => !name.startsWith('.')).sort();
  } catch {
    return [];
  }
}

/** The version pyenv runs by default: PYENV_VERSION, else the first name in `<root>/version`. */
export function pyenvGlobalVersion(env: NodeJS.ProcessEnv = process.env): string | null {
  let text = env.PYENV_VERSION;
  if (!text) {
    try {
      text = readFileSync(path.join(pyenvRoot(env), 'version'), 'utf8');
    } catch {
      return null;
    }
  }
  return text.split(/[\s:]+/).find((name) => name && !name.startsWith('#')) ?? null;
}

export function pyenvPython(version: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(pyenvRoot(env), 'versions', version, 'bin', 'python');
}

/** What `python -c code` prints, or null when it does not run (or fails). */
function ask(python: string, code: string): string | null {
  const r = spawnSync(python, ['-c', code], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

export function pythonVersion(python: string): string | null {
  return ask(python, 'import platform; print(platform.python_version())');
}

export function hasModule(python: string, module: string): boolean {
  return ask(python, `import ${module}`) !== null;
}

/** Every Python 2 here: pyenv's 2.x versions, then python2 and python2.7 on PATH. */
export function findPython2s(env: NodeJS.ProcessEnv = process.env): FoundPython[] {
  const candidates: { path: string; source: string }[] = [
    ...pyenvVersions(env)
      .filter((v) => /^2\.\d/.test(v))
      .map((v) => ({ path: pyenvPython(v, env), source: `pyenv version ${v}` })),
    ...(env.PATH ?? '')
      .split(path.delimiter)
      .filter(Boolean)
      .flatMap((dir) => ['python2', 'python2.7'].map((name) => ({ path: path.join(dir, name), source: `${name} on PATH` }))),
  ];
  const found: FoundPython[] = [];
  for (const c of candidates) {
    if (!existsSync(c.path) || found.some((f) => f.path === c.path)) continue;
    const version = pythonVersion(c.path);
    if (version?.startsWith('2.')) found.push({ ...c, version });
  }
  return found;
}
