import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fsp, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { InterpreterError } from './errors.js';
import { clearProbeCache } from './probe-cache.js';
import { parseProbeOutput, PROBE_PACKAGES, probeInterpreter } from './probe.js';
import { countSpawns } from './spawn-counter.js';
import { findPython2s, hasModule, pyenvRoot } from '../testing/interpreters-here.js';

const SYSTEM = '/usr/bin/python3';
// Whichever Python 2 this machine has (pyenv's, or one on PATH), if any.
const PY2 = findPython2s()[0];
let tmp: string;

async function script(name: string, body: string, mode = 0o755): Promise<string> {
  const p = path.join(tmp, name);
  await fsp.writeFile(p, `#!/bin/sh\n${body}\n`, { mode });
  return p;
}

async function rejects(p: Promise<unknown>, code: string, pattern: RegExp): Promise<InterpreterError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof InterpreterError, `expected InterpreterError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return err;
  }
  assert.fail('expected a rejection');
}

before(async () => {
  tmp = realpathSync(await fsp.mkdtemp(path.join(os.tmpdir(), 'interp-probe-')));
});
after(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});
beforeEach(() => clearProbeCache());

describe('probing a real interpreter', { skip: !existsSync(SYSTEM) && `${SYSTEM} is absent` }, () => {
  it('reports version, platform and packages in one process, then answers from the cache', async () => {
    const first = await countSpawns(() => probeInterpreter(SYSTEM));
    assert.equal(first.spawns, 1, 'exactly one process');
    const p = first.result;
    const expected = execFileSync(SYSTEM, ['-c', 'import platform;print(platform.python_version())'], { encoding: 'utf8' }).trim();
    assert.equal(p.version, expected);
    assert.equal(p.implementation, 'CPython');
    assert.match(p.platform, /^linux/);
    assert.deepEqual(Object.keys(p.packages).sort(), [...PROBE_PACKAGES].sort());
    for (const v of Object.values(p.packages)) assert.ok(v === null || typeof v === 'string');
    assert.ok((p.siteDirs ?? []).length > 0);

    const second = await countSpawns(() => probeInterpreter(SYSTEM));
    assert.equal(second.spawns, 0);
    assert.equal(second.result.cached, true);
    assert.equal(second.result.version, p.version);
  });

  it('keeps probes on disk across restarts when given a cache file', async () => {
    const cacheFile = path.join(tmp, 'cache', 'probes.json');
    assert.equal((await countSpawns(() => probeInterpreter(SYSTEM, { cacheFile }))).spawns, 1);
    clearProbeCache(); // a new daemon
    const again = await countSpawns(() => probeInterpreter(SYSTEM, { cacheFile }));
    assert.equal(again.spawns, 0);
    assert.equal(again.result.cached, true);
    const onDisk = JSON.parse(await fsp.readFile(cacheFile, 'utf8'));
    assert.ok(onDisk.entries[SYSTEM]);
  });

  it('probes again once a package folder changes (pip install)', async () => {
    const venv = path.join(tmp, 'venv');
    execFileSync(SYSTEM, ['-m', 'venv', '--without-pip', venv]);
    const py = path.join(venv, 'bin', 'python');
    const first = await probeInterpreter(py);
    assert.equal(first.packages['ipykernel'], null, 'a fresh venv has no ipykernel');
    assert.equal((await countSpawns(() => probeInterpreter(py))).spawns, 0);
    const site = (first.siteDirs ?? []).find((d) => d.startsWith(venv));
    assert.ok(site, JSON.stringify(first.siteDirs));
    // What pip leaves behind: a package folder and its dist-info.
    await fsp.mkdir(path.join(site, 'ipykernel'), { recursive: true });
    await fsp.writeFile(path.join(site, 'ipykernel', '__init__.py'), '');
    await fsp.mkdir(path.join(site, 'ipykernel-6.29.5.dist-info'));
    await fsp.writeFile(path.join(site, 'ipykernel-6.29.5.dist-info', 'METADATA'), 'Metadata-Version: 2.1\nName: ipykernel\nVersion: 6.29.5\n');
    const after = await countSpawns(() => probeInterpreter(py));
    assert.equal(after.spawns, 1, 'the cached answer was invalidated');
    assert.equal(after.result.packages['ipykernel'], '6.29.5');
  });
});

describe('probing Python 2', { skip: !PY2 && `no Python 2 here (looked in ${path.join(pyenvRoot(), 'versions')} and for python2, python2.7 on PATH)` }, () => {
  it('reports an old Python as old, not as broken', async (t) => {
    const py2 = PY2!;
    t.diagnostic(`probing ${py2.path} (${py2.source}, Python ${py2.version})`);
    const p = await probeInterpreter(py2.path);
    assert.equal(p.version, py2.version);
    assert.equal(p.packages['ipykernel'] !== null, hasModule(py2.path, 'ipykernel'), `ipykernel: ${p.packages['ipykernel']}`);
  });
});

describe('probe failures say why', () => {
  it('no such file', async () => {
    await rejects(probeInterpreter(path.join(tmp, 'nope', 'python')), 'not-found', /nope[\\/]python is not a working Python: no such file/);
  });
  it('a folder', async () => {
    await rejects(probeInterpreter(tmp), 'not-found', /is a folder/);
  });
  it('not executable', async () => {
    const p = await script('noexec', 'echo hi', 0o644);
    await rejects(probeInterpreter(p), 'not-executable', /permission denied/);
  });
  it('exits with an error', async () => {
    const p = await script('crash', 'echo "ImportError: no module named encodings" >&2\nexit 3');
    await rejects(probeInterpreter(p), 'probe-failed', /exited with code 3: ImportError: no module named encodings/);
  });
  it('prints something else', async () => {
    const p = await script('chatty', 'echo hello there');
    await rejects(probeInterpreter(p), 'probe-failed', /did not print the expected answer \(output began: hello there\)/);
  });
  it('hangs', { timeout: 60_000 }, async () => {
    // Waiting for it to end would take ten minutes: the probe gives up at its timeout instead.
    const p = await script('hang', 'exec sleep 600');
    await rejects(probeInterpreter(p, { timeoutMs: 300 }), 'timeout', /did not answer within 0\.3 s/);
  });
  it('tolerates noise printed before the answer', () => {
    const json = JSON.stringify({ version: '3.12.1', implementation: 'CPython', platform: 'linux-x86_64', executable: '/x', packages: { ipykernel: '6.29.5', pandas: null } });
    const p = parseProbeOutput('/x', { stdout: `sitecustomize says hi\n\n${json}\n`, stderr: '', code: 0, signal: null, timedOut: false }, 1000);
    assert.equal(p.version, '3.12.1');
    assert.equal(p.packages['ipykernel'], '6.29.5');
    assert.equal(p.packages['pyarrow'], null);
  });
});
