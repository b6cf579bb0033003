import assert from 'node:assert/strict';
import { promises as fsp, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { discoverInterpreters } from './discover.js';
import { nodeHost } from './fs-port.js';
import { withFaults } from './memory-host.js';
import { countSpawns } from './spawn-counter.js';
import {
  makeCondaPrefix,
  makePyenvVersion,
  makeUvPython,
  makeVenv,
  REAL_PYTHON,
  symlinkAt,
  writeFileAt,
} from './synthetic-tree.js';
import type { Discovery, Interpreter } from './types.js';

let tmp: string;
let home: string;
let result: Discovery;
let spawns: number;

const j = (...p: string[]) => path.join(...p);

/** The interpreter whose prefix (or any alias) is `p`. */
function at(p: string): Interpreter {
  const found = result.interpreters.filter((i) => i.prefix === p || i.path === p || i.aliases.includes(p));
  assert.equal(found.length, 1, `expected one interpreter at ${p}, found ${found.length}:\n${result.interpreters.map((i) => i.prefix).join('\n')}`);
  return found[0]!;
}

function skippedFor(p: string): string {
  const s = result.skipped.filter((x) => x.path === p);
  assert.ok(s.length > 0, `expected ${p} to be skipped; skipped: ${JSON.stringify(result.skipped, null, 1)}`);
  return s.map((x) => x.reason).join(' | ');
}

before(async () => {
  tmp = realpathSync(await fsp.mkdtemp(j(os.tmpdir(), 'interp-discover-')));
  home = j(tmp, 'home');
  const ana = j(home, 'anaconda3');

  // anaconda3: a base and three good envs, plus the kinds of wreckage conda leaves behind.
  await makeCondaPrefix(ana, { python: '3.11.5', base: true, packages: ['ipykernel-6.28.0', 'anaconda-2024.02'] });
  await makeCondaPrefix(j(ana, 'envs', 'analysis'), { python: '3.10.13', packages: ['ipykernel-6.29.5', 'pandas-2.2.2', 'statsmodels-0.14.2'] });
  await makeCondaPrefix(j(ana, 'envs', 'ml'), { python: '3.12.1', pipPackages: ['ipykernel'] });
  await makeCondaPrefix(j(ana, 'envs', 'stats'), { python: '3.11.7', sitePackages: true });
  await makeCondaPrefix(j(ana, 'envs', 'r-only'), {});
  await makeCondaPrefix(j(ana, 'envs', 'half-deleted'), { python: '3.9.18', target: null });
  await makeCondaPrefix(j(ana, 'envs', 'locked'), { python: '3.11.1' });
  await symlinkAt(j(ana, 'envs', 'loop'), j(ana, 'envs', 'loop'));
  await writeFileAt(j(ana, 'envs', '.conda_envs_dir_test'));

  await makeCondaPrefix(j(home, 'miniforge3'), { python: '3.12.2', base: true, sitePackages: true });

  // Only environments.txt knows this one; it also lists a deleted env and a duplicate spelling.
  await makeCondaPrefix(j(tmp, 'elsewhere', 'projenv'), { python: '3.9.18' });
  await writeFileAt(
    j(home, '.conda', 'environments.txt'),
    [ana, j(ana, 'envs', 'analysis'), j(ana, 'envs', 'analysis') + '/', j(tmp, 'elsewhere', 'projenv'), j(tmp, 'gone', 'env'), ''].join('\n'),
  );

  // .condarc envs_dirs, reached twice: directly and through a symlinked alias.
  await makeCondaPrefix(j(home, 'conda-envs-extra', 'geo'), { python: '3.11.8' });
  await symlinkAt(j(home, 'conda-envs-extra'), j(home, 'envs-alias'));
  await writeFileAt(j(home, '.condarc'), 'channels:\n  - conda-forge\nenvs_dirs:\n  - ~/conda-envs-extra   # mine\n');
  await writeFileAt(j(home, '.config', 'conda', '.condarc'), 'envs_dirs: [~/envs-alias]\n');

  // venvs
  await makeVenv(j(home, '.virtualenvs', 'web'), {
    cfg: 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n',
    sitePackagesOf: '3.11',
    pipPackages: ['ipykernel'],
  });
  await makeVenv(j(home, '.virtualenvs', 'tool'), { cfg: 'home = /usr/bin\nimplementation = CPython\nversion_info = 3.11.2.final.0\nvirtualenv = 20.25.0\n' });
  await makeVenv(j(home, '.virtualenvs', 'broken'), { cfg: 'home = /nonexistent/bin\nversion = 3.9.1\n', target: '/nonexistent/bin/python3.9' });
  await makeVenv(j(home, '.virtualenvs', 'secret'), { cfg: 'home = /usr/bin\nversion = 3.11.2\n' });
  await makeVenv(j(tmp, 'project', '.venv'), { cfg: 'home = /usr/bin\nimplementation = CPython\nuv = 0.4.18\nversion_info = 3.12.1\n' });

  // pyenv: a version with headers, one without, a conda "version", and a shim that must be ignored.
  await makePyenvVersion(j(home, '.pyenv', 'versions', '3.12.1'), { patchlevel: '3.12.1' });
  await makePyenvVersion(j(home, '.pyenv', 'versions', '3.11.7'));
  await makeCondaPrefix(j(home, '.pyenv', 'versions', 'miniconda3-latest'), { python: '3.12.4', base: true });
  await writeFileAt(j(home, '.pyenv', 'version'), '3.12.1\n');
  await writeFileAt(j(home, '.pyenv', 'shims', 'python'), '#!/usr/bin/env bash\nexec pyenv exec python "$@"\n');
  await fsp.chmod(j(home, '.pyenv', 'shims', 'python'), 0o755);

  // uv
  await makeUvPython(j(home, '.local', 'share', 'uv', 'python', 'cpython-3.12.4-linux-x86_64-gnu'));
  await writeFileAt(j(home, '.local', 'share', 'uv', 'python', '.lock'));

  // PATH: the pyenv shims, then a folder with a second name for /usr/bin/python3 and a dangling link.
  await symlinkAt(REAL_PYTHON, j(tmp, 'bin', 'python3'));
  await symlinkAt(j(tmp, 'no-such-python'), j(tmp, 'bin', 'python3.9'));
  // A file where conda expects a folder of envs.
  await writeFileAt(j(tmp, 'not-a-folder'), 'oops');

  const env = {
    HOME: home,
    PATH: [j(home, '.pyenv', 'shims'), j(tmp, 'bin')].join(':'),
    CONDA_ENVS_PATH: j(tmp, 'not-a-folder'),
  };
  // Running as root, chmod cannot make anything unreadable: inject the failures instead.
  const host = withFaults(nodeHost({ env, home }), [
    { path: j(home, '.virtualenvs', 'secret'), code: 'EACCES', ops: ['stat', 'readdir', 'readFile'], subtree: true },
    { path: j(ana, 'envs', 'locked', 'conda-meta'), code: 'EACCES', ops: ['readdir'] },
  ]);
  const counted = await countSpawns(() =>
    discoverInterpreters({ host, workspaceDirs: [j(tmp, 'project')], systemDirs: ['/usr/bin'] }),
  );
  result = counted.result;
  spawns = counted.spawns;
});

after(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('discovery on a synthetic Unix home', () => {
  it('starts no process', () => {
    assert.equal(spawns, 0);
  });

  it('finds the anaconda3 base with its version from conda-meta', () => {
    const base = at(j(home, 'anaconda3'));
    assert.equal(base.kind, 'conda-base');
    assert.equal(base.name, 'base');
    assert.equal(base.condaEnvName, 'base');
    assert.equal(base.manager, 'anaconda3');
    assert.equal(base.version, '3.11.5');
    assert.equal(base.versionSource, 'conda-meta');
    assert.equal(base.hasIpykernel, true);
    assert.equal(base.path, j(home, 'anaconda3', 'bin', 'python'));
    assert.equal(base.realPath, realpathSync(REAL_PYTHON));
  });

  it('finds the three anaconda3 envs once each, with root, name and ipykernel status', () => {
    const analysis = at(j(home, 'anaconda3', 'envs', 'analysis'));
    assert.equal(analysis.kind, 'conda-env');
    assert.equal(analysis.condaEnvName, 'analysis');
    assert.equal(analysis.condaRoot, j(home, 'anaconda3'));
    assert.equal(analysis.manager, 'anaconda3');
    assert.equal(analysis.version, '3.10.13');
    assert.equal(analysis.hasIpykernel, true);
    assert.match(analysis.ipykernelEvidence ?? '', /conda-meta[\\/]ipykernel-6\.29\.5/);
    assert.ok(analysis.sources.includes('environments.txt'));

    const ml = at(j(home, 'anaconda3', 'envs', 'ml'));
    assert.equal(ml.version, '3.12.1');
    assert.equal(ml.hasIpykernel, true, 'pip-installed ipykernel is found in site-packages');
    assert.equal(ml.ipykernelEvidence, j(home, 'anaconda3', 'envs', 'ml', 'lib', 'python3.12', 'site-packages', 'ipykernel', '__init__.py'));

    const stats = at(j(home, 'anaconda3', 'envs', 'stats'));
    assert.equal(stats.version, '3.11.7');
    assert.equal(stats.hasIpykernel, false);
  });

  it('finds the miniforge3 base', () => {
    const mf = at(j(home, 'miniforge3'));
    assert.equal(mf.kind, 'conda-base');
    assert.equal(mf.manager, 'miniforge3');
    assert.equal(mf.version, '3.12.2');
    assert.equal(mf.hasIpykernel, false);
  });

  it('finds an env listed only in environments.txt, without a conda -n name', () => {
    const p = at(j(tmp, 'elsewhere', 'projenv'));
    assert.equal(p.kind, 'conda-env');
    assert.equal(p.name, 'projenv');
    assert.equal(p.condaEnvName, undefined);
    assert.equal(p.version, '3.9.18');
    assert.deepEqual(p.sources, ['environments.txt']);
  });

  it('finds an env from .condarc envs_dirs and merges its symlinked second path', () => {
    const geo = at(j(home, 'conda-envs-extra', 'geo'));
    assert.equal(geo.kind, 'conda-env');
    assert.equal(geo.condaEnvName, 'geo');
    assert.equal(geo.version, '3.11.8');
    assert.ok(geo.aliases.includes(j(home, 'envs-alias', 'geo', 'bin', 'python')), JSON.stringify(geo.aliases));
    assert.equal(result.interpreters.filter((i) => i.name === 'geo').length, 1);
  });

  it('treats a conda install kept by pyenv as conda', () => {
    const mc = at(j(home, '.pyenv', 'versions', 'miniconda3-latest'));
    assert.equal(mc.kind, 'conda-base');
    assert.equal(mc.manager, 'miniconda3');
    assert.equal(mc.version, '3.12.4');
  });

  it('finds venvs, virtualenvs and a uv project venv with versions from pyvenv.cfg', () => {
    const web = at(j(home, '.virtualenvs', 'web'));
    assert.equal(web.kind, 'venv');
    assert.equal(web.manager, 'venv');
    assert.equal(web.version, '3.11.2');
    assert.equal(web.versionSource, 'pyvenv.cfg');
    assert.equal(web.hasIpykernel, true);
    const tool = at(j(home, '.virtualenvs', 'tool'));
    assert.equal(tool.manager, 'virtualenv');
    assert.equal(tool.version, '3.11.2');
    assert.equal(tool.hasIpykernel, undefined, 'no site-packages folder: unknown, not "no"');
    const proj = at(j(tmp, 'project', '.venv'));
    assert.equal(proj.manager, 'uv');
    assert.equal(proj.name, 'project/.venv');
    assert.equal(proj.version, '3.12.1');
  });

  it('finds pyenv versions (real binaries, never the shims), marking the global one', () => {
    const v312 = at(j(home, '.pyenv', 'versions', '3.12.1'));
    assert.equal(v312.kind, 'pyenv');
    assert.equal(v312.version, '3.12.1');
    assert.equal(v312.versionSource, 'patchlevel.h');
    assert.ok(v312.notes?.includes('pyenv global version'));
    assert.equal(v312.pathOrder, 0, 'the shims folder is first on PATH');
    const v311 = at(j(home, '.pyenv', 'versions', '3.11.7'));
    assert.equal(v311.version, '3.11.7');
    assert.equal(v311.versionSource, 'folder name');
    assert.ok(!result.interpreters.some((i) => [i.path, ...i.aliases].some((p) => p.includes(`${path.sep}shims${path.sep}`))));
  });

  it('finds uv-managed Pythons', () => {
    const uv = at(j(home, '.local', 'share', 'uv', 'python', 'cpython-3.12.4-linux-x86_64-gnu'));
    assert.equal(uv.kind, 'uv');
    assert.equal(uv.version, '3.12.4');
    assert.equal(uv.path, j(uv.prefix, 'bin', 'python3'));
  });

  it('merges the system Python reached by several names and paths into one entry', () => {
    const system = result.interpreters.filter((i) => i.kind === 'system');
    assert.equal(system.length, 1, JSON.stringify(system, null, 1));
    const s = system[0]!;
    assert.equal(s.realPath, realpathSync(REAL_PYTHON));
    assert.ok([s.path, ...s.aliases].includes(j(tmp, 'bin', 'python3')));
    assert.ok([s.path, ...s.aliases].includes('/usr/bin/python3'));
    assert.equal(s.pathOrder, 1);
    assert.match(s.version ?? '', /^3\.\d+/);
  });

  it('never lists two entries for one environment', () => {
    const prefixes = result.interpreters.filter((i) => i.kind !== 'system').map((i) => realpathSync(i.prefix));
    assert.equal(new Set(prefixes).size, prefixes.length);
  });

  it('skips wreckage with a reason each, without stopping the scan', () => {
    const ana = j(home, 'anaconda3', 'envs');
    assert.match(skippedFor(j(ana, 'r-only')), /no Python/);
    assert.match(skippedFor(j(ana, 'half-deleted')), /half-deleted.*3\.9\.18/);
    assert.match(skippedFor(j(ana, 'loop')), /symbolic link loop/);
    assert.match(skippedFor(j(ana, 'locked')), /conda-meta is not readable \(permission denied\)/);
    assert.match(skippedFor(j(tmp, 'gone', 'env')), /does not exist/);
    assert.equal(result.skipped.find((s) => s.path === j(tmp, 'gone', 'env'))?.source, 'environments.txt');
    assert.match(skippedFor(j(home, '.virtualenvs', 'broken')), /broken virtual environment \(made from \/nonexistent\/bin\).*broken link to \/nonexistent\/bin\/python3\.9/);
    assert.match(skippedFor(j(home, '.virtualenvs', 'secret')), /permission denied/);
    assert.match(skippedFor(j(tmp, 'bin', 'python3.9')), /broken link/);
    assert.match(skippedFor(j(tmp, 'not-a-folder')), /is a file where a folder was expected/);
    assert.ok(!result.skipped.some((s) => s.path.endsWith('.conda_envs_dir_test')));
    assert.ok(!result.interpreters.some((i) => /r-only|half-deleted|loop|locked|broken|secret/.test(i.prefix)));
  });

  it('lists conda first, bases before envs', () => {
    const kinds = result.interpreters.map((i) => i.kind);
    assert.equal(kinds[0], 'conda-base');
    assert.ok(kinds.lastIndexOf('conda-base') < kinds.indexOf('conda-env'));
  });
});

describe('discovery from conda environment variables', () => {
  it('follows CONDA_EXE, CONDA_PREFIX, CONDARC and MAMBA_ROOT_PREFIX to installs outside the usual places', async () => {
    const root = j(tmp, 'vars');
    const h = j(root, 'home');
    await fsp.mkdir(h, { recursive: true });
    // A conda install in an odd place, known only through CONDA_EXE, with an active env.
    await makeCondaPrefix(j(root, 'tools', 'cnd'), { python: '3.11.4', base: true });
    await writeFileAt(j(root, 'tools', 'cnd', 'bin', 'conda'), '#!/bin/sh\n');
    await makeCondaPrefix(j(root, 'tools', 'cnd', 'envs', 'active'), { python: '3.12.3' });
    // A micromamba root: no base Python, no condabin, envs under it.
    await makeCondaPrefix(j(root, 'mm', 'envs', 'tiny'), { python: '3.13.0', packages: ['ipykernel-6.29.5'] });
    // envs_dirs from the file CONDARC names.
    await makeCondaPrefix(j(root, 'shared-envs', 'team'), { python: '3.10.14' });
    await writeFileAt(j(root, 'rc.yml'), `envs_dirs:\n  - ${j(root, 'shared-envs')}\n`);
    const env = {
      HOME: h,
      PATH: '',
      CONDA_EXE: j(root, 'tools', 'cnd', 'bin', 'conda'),
      CONDA_PREFIX: j(root, 'tools', 'cnd', 'envs', 'active'),
      MAMBA_ROOT_PREFIX: j(root, 'mm'),
      CONDARC: j(root, 'rc.yml'),
    };
    const { result: r, spawns: n } = await countSpawns(() => discoverInterpreters({ env, home: h, systemDirs: [] }));
    assert.equal(n, 0);
    const by = (p: string) => r.interpreters.find((i) => i.prefix === p);
    assert.equal(by(j(root, 'tools', 'cnd'))?.kind, 'conda-base');
    assert.equal(by(j(root, 'tools', 'cnd'))?.manager, 'conda');
    const active = by(j(root, 'tools', 'cnd', 'envs', 'active'));
    assert.equal(active?.active, true);
    assert.equal(active?.condaRoot, j(root, 'tools', 'cnd'));
    const tiny = by(j(root, 'mm', 'envs', 'tiny'));
    assert.equal(tiny?.manager, 'micromamba');
    assert.equal(tiny?.condaEnvName, 'tiny');
    assert.equal(tiny?.version, '3.13.0');
    assert.equal(by(j(root, 'shared-envs', 'team'))?.condaEnvName, 'team');
    assert.equal(r.interpreters.length, 4, r.interpreters.map((i) => i.prefix).join('\n'));
    assert.deepEqual(r.skipped, [], 'a micromamba root without a base env is normal, not an error');
  });
});

describe('discovery robustness', () => {
  it('survives a locator that throws, and reports it', async () => {
    const base = nodeHost({ env: { HOME: '/nonexistent-home', PATH: '' }, home: '/nonexistent-home' });
    const env = new Proxy({ HOME: '/nonexistent-home', PATH: '' } as Record<string, string | undefined>, {
      get(target, key) {
        if (key === 'PYENV_ROOT') throw new Error('environment exploded');
        return target[key as string];
      },
    });
    const r = await discoverInterpreters({ host: { ...base, env }, systemDirs: [] });
    assert.ok(r.skipped.some((s) => s.path === 'pyenv locator' && /environment exploded/.test(s.reason)), JSON.stringify(r.skipped));
  });
});
