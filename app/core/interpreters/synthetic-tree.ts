/**
 * Builders of fake environments on the real file system (conda prefixes, venvs, pyenv and uv
 * Pythons) whose executables are symlinks to a real interpreter. Shared by the tests and the
 * benchmark; not part of the public API.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';

export const REAL_PYTHON = '/usr/bin/python3';

async function touch(file: string, text = ''): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, text);
}

async function link(target: string, at: string): Promise<void> {
  await fsp.mkdir(path.dirname(at), { recursive: true });
  await fsp.symlink(target, at);
}

function minor(version: string): string {
  return version.split('.').slice(0, 2).join('.');
}

export interface CondaPrefixSpec {
  /** Python version recorded in conda-meta; omit for an env without Python. */
  python?: string;
  base?: boolean;
  /** Extra conda-meta records, e.g. `ipykernel-6.28.0`. */
  packages?: string[];
  /** Packages pip put in site-packages (no conda record). */
  pipPackages?: string[];
  /** Create site-packages even when empty (so "no ipykernel" is a confident no). */
  sitePackages?: boolean;
  /** Symlink target of bin/python; null for none (a half-deleted env). */
  target?: string | null;
}

export async function makeCondaPrefix(dir: string, spec: CondaPrefixSpec = {}): Promise<void> {
  const meta = path.join(dir, 'conda-meta');
  await fsp.mkdir(meta, { recursive: true });
  await touch(path.join(meta, 'history'), '==> 2024-01-01 00:00:00 <==\n');
  if (spec.python) await touch(path.join(meta, `python-${spec.python}-h955ad1f_0_cpython.json`), '{}');
  // Records that must not be mistaken for Python itself.
  await touch(path.join(meta, 'python-dateutil-2.8.2-pyhd8ed1ab_0.json'), '{}');
  await touch(path.join(meta, 'python_abi-3.11-4_cp311.json'), '{}');
  for (const p of spec.packages ?? []) await touch(path.join(meta, `${p}-py_0.json`), '{}');
  if (spec.base) await touch(path.join(dir, 'condabin', 'conda'), '#!/bin/sh\n');
  const target = spec.target === undefined ? REAL_PYTHON : spec.target;
  if (target !== null && spec.python) await link(target, path.join(dir, 'bin', 'python'));
  if (spec.python && (spec.sitePackages || spec.pipPackages?.length)) {
    const site = path.join(dir, 'lib', `python${minor(spec.python)}`, 'site-packages');
    await fsp.mkdir(site, { recursive: true });
    for (const p of spec.pipPackages ?? []) await touch(path.join(site, p, '__init__.py'));
  }
}

export interface VenvSpec {
  cfg: string;
  target?: string;
  sitePackagesOf?: string;
  pipPackages?: string[];
}

export async function makeVenv(dir: string, spec: VenvSpec): Promise<void> {
  await touch(path.join(dir, 'pyvenv.cfg'), spec.cfg);
  await link(spec.target ?? REAL_PYTHON, path.join(dir, 'bin', 'python'));
  await link('python', path.join(dir, 'bin', 'python3'));
  if (spec.sitePackagesOf) {
    const site = path.join(dir, 'lib', `python${spec.sitePackagesOf}`, 'site-packages');
    await fsp.mkdir(site, { recursive: true });
    for (const p of spec.pipPackages ?? []) await touch(path.join(site, p, '__init__.py'));
  }
}

export async function makePyenvVersion(dir: string, opts: { patchlevel?: string; target?: string } = {}): Promise<void> {
  await link(opts.target ?? REAL_PYTHON, path.join(dir, 'bin', 'python'));
  if (opts.patchlevel) {
    await touch(
      path.join(dir, 'include', `python${minor(opts.patchlevel)}`, 'patchlevel.h'),
      `/* Version as a string */\n#define PY_VERSION              "${opts.patchlevel}"\n`,
    );
  }
}

export async function makeUvPython(dir: string, opts: { target?: string } = {}): Promise<void> {
  await link(opts.target ?? REAL_PYTHON, path.join(dir, 'bin', 'python3'));
}

export { link as symlinkAt, touch as writeFileAt };
