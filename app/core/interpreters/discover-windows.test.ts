import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { discoverInterpreters } from './discover.js';
import { createMemoryHost, type MemoryTree } from './memory-host.js';
import type { RegistryPython } from './registry-reader.js';
import { countSpawns } from './spawn-counter.js';
import type { Discovery, Interpreter } from './types.js';

const HOME = 'C:\\Users\\Ana';
const LOCAL = `${HOME}\\AppData\\Local`;
const ROAMING = `${HOME}\\AppData\\Roaming`;
const PY312 = `${LOCAL}\\Programs\\Python\\Python312`;

const DIR = { dir: true } as const;

function condaPrefix(prefix: string, python: string | undefined, extra: MemoryTree = {}): MemoryTree {
  const t: MemoryTree = { [`${prefix}\\conda-meta\\history`]: '' };
  if (python) {
    t[`${prefix}\\conda-meta\\python-${python}-h4de0772_0_cpython.json`] = '{}';
    t[`${prefix}\\python.exe`] = 'MZ';
  }
  return { ...t, ...extra };
}

const tree: MemoryTree = {
  // Anaconda for "just me", with a pip-installed ipykernel in one env.
  ...condaPrefix(`${HOME}\\anaconda3`, '3.11.5', {
    [`${HOME}\\anaconda3\\condabin\\conda.bat`]: '@echo off',
    [`${HOME}\\anaconda3\\conda-meta\\ipykernel-6.28.0-py311haa95532_0.json`]: '{}',
  }),
  ...condaPrefix(`${HOME}\\anaconda3\\envs\\analysis`, '3.10.13', {
    [`${HOME}\\anaconda3\\envs\\analysis\\Lib\\site-packages\\ipykernel\\__init__.py`]: '',
  }),
  // Miniforge for all users, in its installer's capitalisation.
  ...condaPrefix('C:\\ProgramData\\Miniforge3', '3.12.2', {
    'C:\\ProgramData\\Miniforge3\\condabin': DIR,
    'C:\\ProgramData\\Miniforge3\\Lib\\site-packages': DIR,
  }),
  // Miniconda whose envs folder cannot be read.
  ...condaPrefix(`${HOME}\\miniconda3`, '3.12.4', { [`${HOME}\\miniconda3\\condabin`]: DIR, [`${HOME}\\miniconda3\\envs\\x`]: DIR }),
  // An env only environments.txt knows (CRLF, and a case-different duplicate).
  ...condaPrefix('C:\\work\\proj-env', '3.9.18'),
  [`${HOME}\\.conda\\environments.txt`]: `${HOME}\\anaconda3\\envs\\analysis\r\nC:\\work\\proj-env\r\nc:\\users\\ana\\ANACONDA3\\envs\\analysis\r\n`,
  // python.org install, on PATH and in the registry.
  [`${PY312}\\python.exe`]: 'MZ',
  [`${PY312}\\python312.dll`]: '',
  [`${PY312}\\include\\patchlevel.h`]: '#define PY_VERSION "3.12.1"\n',
  // An old per-machine install with no headers: the DLL name says 3.9.
  'C:\\Python39\\python.exe': 'MZ',
  'C:\\Python39\\python39.dll': '',
  // A venv made from Python312.
  [`${HOME}\\.virtualenvs\\web\\pyvenv.cfg`]: `home = ${PY312}\r\ninclude-system-site-packages = false\r\nversion = 3.12.1\r\n`,
  [`${HOME}\\.virtualenvs\\web\\Scripts\\python.exe`]: 'MZ',
  [`${HOME}\\.virtualenvs\\web\\Lib\\site-packages`]: DIR,
  // pyenv-win, with its shims on PATH.
  [`${HOME}\\.pyenv\\pyenv-win\\versions\\3.11.7\\python.exe`]: 'MZ',
  [`${HOME}\\.pyenv\\pyenv-win\\shims\\python.bat`]: '@echo off',
  [`${HOME}\\.pyenv\\pyenv-win\\shims\\python.exe`]: 'MZ',
  // uv
  [`${ROAMING}\\uv\\data\\python\\cpython-3.13.1-windows-x86_64-none\\python.exe`]: 'MZ',
  // The Store's app-execution alias.
  [`${LOCAL}\\Microsoft\\WindowsApps\\python.exe`]: '',
  // A third-party registration (PEP 514) outside every usual place.
  'D:\\Tools\\AcmePy\\python.exe': 'MZ',
};

const registry: RegistryPython[] = [
  { hive: 'HKCU', company: 'PythonCore', tag: '3.12', installPath: `${PY312}\\`, executablePath: `${PY312}\\python.exe`, version: '3.12.1', sysVersion: '3.12' },
  { hive: 'HKLM', company: 'ContinuumAnalytics', tag: 'Anaconda311-64', installPath: `${HOME}\\anaconda3`, sysVersion: '3.11' },
  { hive: 'HKLM', company: 'PythonCore', tag: '3.8', installPath: 'C:\\Python38\\', version: '3.8.10' },
  { hive: 'HKCU', company: 'PyLauncher', tag: 'Py', installPath: 'C:\\Windows' },
  { hive: 'HKLM', company: 'Acme', tag: 'Py310', executablePath: 'D:\\Tools\\AcmePy\\python.exe', version: '3.10.4', displayName: 'Acme Python 3.10' },
];

const env = {
  USERPROFILE: HOME,
  LOCALAPPDATA: LOCAL,
  APPDATA: ROAMING,
  PROGRAMDATA: 'C:\\ProgramData',
  SystemDrive: 'C:',
  Path: [`${LOCAL}\\Microsoft\\WindowsApps`, `${HOME}\\.pyenv\\pyenv-win\\shims`, PY312, `${HOME}\\anaconda3\\condabin`].join(';'),
};

let result: Discovery;
let spawns: number;

function at(prefix: string): Interpreter {
  const key = prefix.toLowerCase();
  const found = result.interpreters.filter((i) => i.prefix.toLowerCase() === key);
  assert.equal(found.length, 1, `expected one at ${prefix}; have:\n${result.interpreters.map((i) => `${i.kind} ${i.prefix}`).join('\n')}`);
  return found[0]!;
}

before(async () => {
  const host = createMemoryHost({
    platform: 'win32',
    home: HOME,
    env,
    tree,
    registry,
    faults: [{ path: `${HOME}\\miniconda3\\envs`, code: 'EACCES', ops: ['readdir'] }],
  });
  const counted = await countSpawns(() => discoverInterpreters({ host }));
  result = counted.result;
  spawns = counted.spawns;
});

describe('discovery on a Windows layout (injected file system, environment and registry)', () => {
  it('starts no process (the registry comes through the port)', () => {
    assert.equal(spawns, 0);
  });

  it('finds the Anaconda base at the root layout, merged with its registry entry', () => {
    const a = at(`${HOME}\\anaconda3`);
    assert.equal(a.kind, 'conda-base');
    assert.equal(a.path, `${HOME}\\anaconda3\\python.exe`);
    assert.equal(a.manager, 'anaconda3');
    assert.equal(a.version, '3.11.5');
    assert.equal(a.hasIpykernel, true);
    assert.ok(a.sources.some((s) => s.startsWith('registry HKLM')), a.sources.join(', '));
  });

  it('finds conda envs, with pip-installed ipykernel under Lib\\site-packages, and folds case duplicates', () => {
    const e = at(`${HOME}\\anaconda3\\envs\\analysis`);
    assert.equal(e.kind, 'conda-env');
    assert.equal(e.condaEnvName, 'analysis');
    assert.equal(e.version, '3.10.13');
    assert.equal(e.hasIpykernel, true);
    assert.equal(e.ipykernelEvidence, `${HOME}\\anaconda3\\envs\\analysis\\Lib\\site-packages\\ipykernel\\__init__.py`);
    const p = at('C:\\work\\proj-env');
    assert.equal(p.kind, 'conda-env');
    assert.equal(p.version, '3.9.18');
  });

  it('finds Miniforge under ProgramData and names it consistently', () => {
    const m = at('C:\\ProgramData\\Miniforge3');
    assert.equal(m.kind, 'conda-base');
    assert.equal(m.manager, 'miniforge3');
    assert.equal(m.hasIpykernel, false);
  });

  it('keeps scanning past an unreadable envs folder, and says so', () => {
    assert.equal(at(`${HOME}\\miniconda3`).kind, 'conda-base');
    const s = result.skipped.find((x) => x.path === `${HOME}\\miniconda3\\envs`);
    assert.match(s?.reason ?? '', /permission denied/);
  });

  it('finds the python.org install once, from PATH and the registry, with its header version', () => {
    const p = at(PY312);
    assert.equal(p.kind, 'windows-registry');
    assert.equal(p.version, '3.12.1');
    assert.equal(p.pathOrder, 2);
    assert.ok(p.sources.includes('PATH'));
  });

  it('reads the minor version from pythonXY.dll when nothing better exists', () => {
    const p = at('C:\\Python39');
    assert.equal(p.kind, 'system');
    assert.equal(p.version, '3.9');
    assert.equal(p.versionSource, 'executable name');
  });

  it('finds a venv by its Scripts\\python.exe', () => {
    const v = at(`${HOME}\\.virtualenvs\\web`);
    assert.equal(v.kind, 'venv');
    assert.equal(v.path, `${HOME}\\.virtualenvs\\web\\Scripts\\python.exe`);
    assert.equal(v.version, '3.12.1');
    assert.equal(v.hasIpykernel, false);
  });

  it('finds pyenv-win versions but not its shims', () => {
    const v = at(`${HOME}\\.pyenv\\pyenv-win\\versions\\3.11.7`);
    assert.equal(v.kind, 'pyenv');
    assert.equal(v.version, '3.11.7');
    assert.ok(!result.interpreters.some((i) => /\\shims\\/i.test([i.path, ...i.aliases].join('|'))));
  });

  it('finds uv Pythons under %APPDATA%', () => {
    const u = at(`${ROAMING}\\uv\\data\\python\\cpython-3.13.1-windows-x86_64-none`);
    assert.equal(u.kind, 'uv');
    assert.equal(u.version, '3.13.1');
  });

  it('lists a registry-only Python with the registry version, and skips stale and launcher entries', () => {
    const a = at('D:\\Tools\\AcmePy');
    assert.equal(a.kind, 'windows-registry');
    assert.equal(a.version, '3.10.4');
    assert.equal(a.versionSource, 'registry');
    assert.ok(a.notes?.includes('Acme Python 3.10'));
    assert.ok(result.skipped.some((s) => s.path === 'C:\\Python38\\python.exe' && /does not exist/.test(s.reason)), JSON.stringify(result.skipped));
    assert.ok(!result.interpreters.some((i) => i.prefix === 'C:\\Windows'));
  });

  it('skips the Microsoft Store alias with the reason', () => {
    const s = result.skipped.find((x) => x.path === `${LOCAL}\\Microsoft\\WindowsApps\\python.exe`);
    assert.match(s?.reason ?? '', /app alias/);
    assert.ok(!result.interpreters.some((i) => /WindowsApps/i.test(i.path)));
  });

  it('uses Windows paths throughout', () => {
    for (const i of result.interpreters) {
      assert.match(i.path, /^[A-Z]:\\/i, i.path);
      assert.ok(!i.path.includes('/'), i.path);
    }
  });
});
