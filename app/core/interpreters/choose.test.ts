import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fsp, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { MIN_PYTHON, chooseInterpreter, rankInterpreters, type ChooseOptions } from './choose.js';
import { hasModule, pyenvGlobalVersion, pyenvPython, pyenvRoot, pythonVersion } from '../testing/interpreters-here.js';
import { compareVersions } from './version-from-files.js';
import { InterpreterError } from './errors.js';
import { clearProbeCache } from './probe-cache.js';
import { countSpawns } from './spawn-counter.js';
import { makeCondaPrefix, makeVenv, writeFileAt } from './synthetic-tree.js';
import type { Interpreter } from './types.js';

let tmp: string;
const j = (...p: string[]) => path.join(...p);

/**
 * A stand-in interpreter: a script answering the probe the way a Python with (or without)
 * ipykernel would. Keeps these tests independent of the Pythons on the machine.
 */
async function fakePython(name: string, opts: { version?: string; ipykernel?: boolean; fail?: boolean } = {}): Promise<string> {
  const p = j(tmp, 'fakes', name);
  const answer = JSON.stringify({
    version: opts.version ?? '3.11.9',
    implementation: 'CPython',
    platform: 'linux-x86_64',
    executable: p,
    packages: { ipykernel: opts.ipykernel === false ? null : '6.29.5', pandas: '2.2.2' },
    site: [],
  });
  const body = opts.fail ? 'echo "Fatal Python error: init_fs_encoding" >&2\nexit 1' : `cat <<'EOF'\n${answer}\nEOF`;
  await writeFileAt(p, `#!/bin/sh\n${body}\n`);
  await fsp.chmod(p, 0o755);
  return p;
}

async function home(name: string): Promise<string> {
  const h = j(tmp, name);
  await fsp.mkdir(h, { recursive: true });
  return h;
}

/** Options that look only at the synthetic home: no PATH, no usual system folders. */
function isolated(h: string, extra: Partial<ChooseOptions> = {}): ChooseOptions {
  const env = { HOME: h, PATH: '' };
  return { env, discovery: { env, home: h, systemDirs: [] }, ...extra };
}

async function rejects(p: Promise<unknown>, code: string, pattern: RegExp): Promise<InterpreterError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof InterpreterError, String(err));
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return err;
  }
  assert.fail('expected a rejection');
}

before(async () => {
  tmp = realpathSync(await fsp.mkdtemp(j(os.tmpdir(), 'interp-choose-')));
});
after(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});
beforeEach(() => clearProbeCache());

describe('choosing from discovery', () => {
  it('prefers the Anaconda base that has ipykernel, probing it alone', async () => {
    const h = await home('h1');
    await makeCondaPrefix(j(h, 'miniforge3'), { python: '3.12.2', base: true, packages: ['ipykernel-6.29.5'], target: await fakePython('mf') });
    await makeCondaPrefix(j(h, 'anaconda3'), { python: '3.11.5', base: true, packages: ['ipykernel-6.28.0'], target: await fakePython('ana') });
    await makeCondaPrefix(j(h, 'anaconda3', 'envs', 'analysis'), { python: '3.10.13', packages: ['ipykernel-6.28.0'], target: await fakePython('analysis') });
    const { result, spawns } = await countSpawns(() => chooseInterpreter(isolated(h)));
    assert.equal(spawns, 1);
    assert.equal(result.interpreter.prefix, j(h, 'anaconda3'));
    assert.equal(result.reason, `conda base environment of anaconda3 at ${j(h, 'anaconda3')} (has ipykernel)`);
    assert.equal(result.probe?.packages['ipykernel'], '6.29.5');
  });

  it('puts an env the user marked first (by name or by path)', async () => {
    const h = j(tmp, 'h1');
    const byName = await chooseInterpreter(isolated(h, { markedEnvs: ['analysis'] }));
    assert.equal(byName.interpreter.prefix, j(h, 'anaconda3', 'envs', 'analysis'));
    assert.match(byName.reason, /^conda environment "analysis" \(anaconda3\) at .* \(has ipykernel\)$/);
    const byPath = await chooseInterpreter(isolated(h, { markedEnvs: [j(h, 'miniforge3') + '/'] }));
    assert.equal(byPath.interpreter.prefix, j(h, 'miniforge3'));
  });

  it('passes over a conda base without ipykernel, never starting it, and says how to fix it', async () => {
    const h = await home('h2');
    await makeCondaPrefix(j(h, 'miniconda3'), { python: '3.12.2', base: true, sitePackages: true, target: await fakePython('mc-no', { ipykernel: false }) });
    await makeVenv(j(h, '.virtualenvs', 'work'), { cfg: 'home = /usr/bin\nversion = 3.11.9\n', target: await fakePython('work'), sitePackagesOf: '3.11', pipPackages: ['ipykernel'] });
    const { result, spawns } = await countSpawns(() => chooseInterpreter(isolated(h)));
    assert.equal(spawns, 1, 'only the venv was started');
    assert.equal(result.interpreter.prefix, j(h, '.virtualenvs', 'work'));
    assert.match(result.reason, /^venv environment "work" \(Python 3\.11\.9\) at .* \(has ipykernel\); passed over: conda base environment of miniconda3 at .* \(lacks ipykernel\)$/);
    assert.deepEqual(result.passedOver?.map((p) => p.installCommand), ['conda install -n base ipykernel']);
  });

  it('passes over one whose files claimed ipykernel but whose probe says otherwise', async () => {
    const h = await home('h3');
    await makeCondaPrefix(j(h, 'anaconda3'), { python: '3.11.5', base: true, packages: ['ipykernel-6.28.0'], target: await fakePython('liar', { ipykernel: false }) });
    await makeCondaPrefix(j(h, 'anaconda3', 'envs', 'ok'), { python: '3.11.5', packages: ['ipykernel-6.28.0'], target: await fakePython('ok') });
    const { result, spawns } = await countSpawns(() => chooseInterpreter(isolated(h)));
    assert.equal(spawns, 2);
    assert.equal(result.interpreter.prefix, j(h, 'anaconda3', 'envs', 'ok'));
    assert.equal(result.passedOver?.[0]?.reason, 'lacks ipykernel');
  });

  it('skips interpreters that fail to start or are too old', async () => {
    const h = await home('h4');
    await makeCondaPrefix(j(h, 'anaconda3'), { python: '3.11.5', base: true, packages: ['ipykernel-6.28.0'], target: await fakePython('broken', { fail: true }) });
    // conda-meta claims 3.9 (ranked above `good`), the interpreter says 2.7: the probe decides.
    await makeCondaPrefix(j(h, 'anaconda3', 'envs', 'mislabelled'), { python: '3.9.0', packages: ['ipykernel-4.10.0'], target: await fakePython('old', { version: '2.7.18' }) });
    await makeCondaPrefix(j(h, 'anaconda3', 'envs', 'good'), { python: '3.8.18', packages: ['ipykernel-6.28.0'], target: await fakePython('good') });
    // Known from files to be too old: ranked last, never started.
    await makeCondaPrefix(j(h, 'anaconda3', 'envs', 'py27'), { python: '2.7.18', packages: ['ipykernel-4.10.0'], target: await fakePython('py27', { version: '2.7.18' }) });
    const { result: r, spawns } = await countSpawns(() => chooseInterpreter(isolated(h)));
    assert.equal(spawns, 3, 'broken base, mislabelled env, good env; never py27');
    assert.equal(r.interpreter.prefix, j(h, 'anaconda3', 'envs', 'good'));
    const reasons = r.passedOver?.map((p) => p.reason) ?? [];
    assert.ok(reasons.some((x) => /exited with code 1: Fatal Python error/.test(x)), reasons.join(' | '));
    assert.ok(reasons.some((x) => /2\.7\.18 is too old/.test(x)), reasons.join(' | '));
  });

  it('errors with the best candidate and its install command when nothing has ipykernel, starting nothing', async () => {
    const h = await home('h5');
    await makeCondaPrefix(j(h, 'miniconda3'), { python: '3.12.2', base: true, sitePackages: true, target: await fakePython('mc5', { ipykernel: false }) });
    await makeVenv(j(h, '.virtualenvs', 'web'), { cfg: 'home = /usr/bin\nversion = 3.11.9\n', target: await fakePython('web5', { ipykernel: false }), sitePackagesOf: '3.11' });
    const { result: err, spawns } = await countSpawns(() => rejects(chooseInterpreter(isolated(h)), 'no-ipykernel', /best candidate is the conda base environment of miniconda3/));
    assert.equal(spawns, 0);
    assert.equal(err.installCommand, 'conda install -n base ipykernel');
    assert.match(err.message, /conda install -n base ipykernel/);
    assert.equal(err.interpreter, j(h, 'miniconda3', 'bin', 'python'));
  });

  it('with requireIpykernel false, takes the best working one anyway and says it lacks ipykernel', async () => {
    const r = await chooseInterpreter(isolated(j(tmp, 'h5'), { requireIpykernel: false }));
    assert.equal(r.interpreter.prefix, j(tmp, 'h5', 'miniconda3'));
    assert.match(r.reason, /\(no ipykernel\)$/);
  });

  it('says so when there is no Python at all', async () => {
    const h = await home('empty');
    await rejects(chooseInterpreter(isolated(h)), 'none-found', /No Python interpreter was found.*PYTHON_MCP_INTERPRETER/s);
  });
});

describe('PYTHON_MCP_INTERPRETER', () => {
  const withVar = (value: string) => {
    const h = j(tmp, 'empty');
    const env = { HOME: h, PATH: '', PYTHON_MCP_INTERPRETER: value };
    return { env, discovery: { env, home: h, systemDirs: [] } };
  };

  it('wins, with the reason saying so', async () => {
    const py = await fakePython('forced');
    const r = await chooseInterpreter(withVar(py));
    assert.equal(r.interpreter.path, py);
    assert.match(r.reason, /^PYTHON_MCP_INTERPRETER: /);
  });
  it('accepts an environment folder', async () => {
    const venv = j(tmp, 'forced-venv');
    await makeVenv(venv, { cfg: 'home = /usr/bin\nversion = 3.11.9\n', target: await fakePython('fv') });
    const r = await chooseInterpreter(withVar(venv));
    assert.equal(r.interpreter.path, j(venv, 'bin', 'python'));
    assert.equal(r.interpreter.kind, 'venv');
  });
  it('accepts a bare name, looked up on PATH like a shell would', async () => {
    const py = await fakePython('by-name');
    const env = { HOME: j(tmp, 'empty'), PATH: `${j(tmp, 'nothing-here')}:${path.dirname(py)}`, PYTHON_MCP_INTERPRETER: 'by-name' };
    const r = await chooseInterpreter({ env, discovery: { env, home: env.HOME, systemDirs: [] } });
    assert.equal(r.interpreter.path, py);
    await rejects(chooseInterpreter({ ...withVar('no-such-python') }), 'not-found', /no-such-python is not on PATH/);
  });
  it('is an error when the file does not exist', async () => {
    await rejects(chooseInterpreter(withVar(j(tmp, 'missing', 'python'))), 'not-found', /^PYTHON_MCP_INTERPRETER: .*missing[\\/]python does not exist/);
  });
  it('is an error when it is not a working Python, saying why', async () => {
    const py = await fakePython('forced-broken', { fail: true });
    await rejects(chooseInterpreter(withVar(py)), 'probe-failed', /^PYTHON_MCP_INTERPRETER: .* is not a working Python: exited with code 1: Fatal Python error/);
  });
  it('is an error, with the install command, when it lacks ipykernel', async () => {
    const py = await fakePython('forced-bare', { ipykernel: false });
    const err = await rejects(chooseInterpreter(withVar(py)), 'no-ipykernel', /does not have ipykernel/);
    assert.equal(err.installCommand, `${py} -m pip install ipykernel`);
    assert.match(err.message, new RegExp(`${py.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} -m pip install ipykernel`));
  });
  it('is an error when the Python is too old', async () => {
    const py = await fakePython('forced-old', { version: '3.6.15' });
    await rejects(chooseInterpreter(withVar(py)), 'too-old', /3\.6\.15 is too old/);
  });
});

describe('saved choice', () => {
  it('is used before discovery', async () => {
    const py = await fakePython('saved');
    const r = await chooseInterpreter(isolated(j(tmp, 'h1'), { savedChoice: py }));
    assert.equal(r.interpreter.path, py);
    assert.match(r.reason, /^your saved choice: /);
  });
  it('falls back, saying so, when it no longer exists', async () => {
    const gone = j(tmp, 'deleted-env', 'bin', 'python');
    const r = await chooseInterpreter(isolated(j(tmp, 'h1'), { savedChoice: gone }));
    assert.equal(r.interpreter.prefix, j(tmp, 'h1', 'anaconda3'));
    assert.match(r.reason, /^your saved choice .*deleted-env.* is not usable \(does not exist\); conda base environment of anaconda3/);
  });
  it('is an error with the install command when it lacks ipykernel', async () => {
    const py = await fakePython('saved-bare', { ipykernel: false });
    await rejects(chooseInterpreter(isolated(j(tmp, 'h1'), { savedChoice: py })), 'no-ipykernel', /^your saved choice: .* -m pip install ipykernel$/s);
  });
});

describe('ranking', () => {
  const i = (over: Partial<Interpreter>): Interpreter => ({ path: `/p/${over.name}`, realPath: `/p/${over.name}`, kind: 'system', name: 'x', prefix: '/p', aliases: [], sources: [], ...over });
  it('orders marked, conda bases by distribution, then the rest by PATH order, kind and version', () => {
    const ranked = rankInterpreters(
      [
        i({ name: 'sys-late', kind: 'system', pathOrder: 5, version: '3.12.0' }),
        i({ name: 'mf', kind: 'conda-base', manager: 'miniforge3' }),
        i({ name: 'py-first', kind: 'pyenv', pathOrder: 1, version: '3.11.7' }),
        i({ name: 'ana', kind: 'conda-base', manager: 'anaconda3' }),
        i({ name: 'old', kind: 'system', pathOrder: 0, version: '2.7.18' }),
        i({ name: 'env', kind: 'conda-env', condaEnvName: 'env' }),
        i({ name: 'uv-new', kind: 'uv', version: '3.13.1' }),
        i({ name: 'uv-old', kind: 'uv', version: '3.10.4' }),
        i({ name: 'marked', kind: 'conda-env', condaEnvName: 'marked' }),
      ],
      { markedEnvs: ['marked'] },
    );
    assert.deepEqual(
      ranked.map((r) => r.interpreter.name),
      ['marked', 'ana', 'mf', 'py-first', 'sys-late', 'env', 'uv-new', 'uv-old', 'old'],
    );
  });
});

/**
 * A Python without ipykernel first on PATH, as this machine has one: pyenv's global version
 * behind pyenv's shims when it lacks ipykernel (the case this machine's users meet), otherwise a
 * venv made here without it.
 */
async function pythonFirstOnPathWithoutIpykernel(): Promise<{ python: string; pathDir: string; how: string; env: Record<string, string> }> {
  const version = pyenvGlobalVersion();
  const pyenv = version ? pyenvPython(version) : null;
  const pyenvVersion = pyenv && existsSync(pyenv) ? pythonVersion(pyenv) : null;
  const keep = Object.fromEntries(['PYENV_ROOT', 'PYENV_VERSION'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  if (pyenv && pyenvVersion && compareVersions(pyenvVersion, MIN_PYTHON) >= 0 && !hasModule(pyenv, 'ipykernel')) {
    return { python: pyenv, pathDir: path.join(pyenvRoot(), 'shims'), how: `pyenv's global version ${version} (Python ${pyenvVersion}), its shims first on PATH`, env: keep };
  }
  const venv = j(tmp, 'no-ipykernel-venv');
  execFileSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', '--copies', venv]);
  return { python: j(venv, 'bin', 'python'), pathDir: j(venv, 'bin'), how: `a venv without ipykernel made from /usr/bin/python3, first on PATH (no pyenv global version without ipykernel here)`, env: {} };
}

// The system Python is the one with ipykernel here only where Debian's python3-ipykernel is
// installed (as .ci/run does); on a machine without it the tests use a venv instead.
const systemWithIpykernel = existsSync('/usr/bin/python3') && hasModule('/usr/bin/python3', 'ipykernel');
describe('this machine', { skip: !systemWithIpykernel && 'needs /usr/bin/python3 with ipykernel (apt install python3-ipykernel)' }, () => {
  it('passes over the Python first on PATH that lacks ipykernel for the system one that has it', async (t) => {
    const first = await pythonFirstOnPathWithoutIpykernel();
    t.diagnostic(`first on PATH: ${first.python}, ${first.how}`);
    const env = { HOME: os.homedir(), PATH: `${first.pathDir}:/usr/bin:/bin`, ...first.env };
    const r = await chooseInterpreter({ env, discovery: { env } });
    assert.equal(r.interpreter.realPath, realpathSync('/usr/bin/python3'));
    assert.ok(r.probe?.packages['ipykernel']);
    const passed = r.passedOver?.find((p) => realpathSync(p.path) === realpathSync(first.python));
    assert.ok(passed, `${first.python} is among those passed over: ${JSON.stringify(r.passedOver)}`);
    assert.equal(passed.reason, 'lacks ipykernel');
    assert.equal(passed.installCommand, `${passed.path} -m pip install ipykernel`);
  });
});
