import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { commandLine, condaFromHistory, externallyManagedMessage, pep668MarkerPath, planIpykernelInstall } from './install-ipykernel.js';
import { OutputTail } from './install-run.js';
import type { Interpreter } from './types.js';

const interp = (over: Partial<Interpreter>): Interpreter => ({ path: '/x/bin/python', realPath: '/x/bin/python', kind: 'system', name: 'python', prefix: '/x', aliases: [], sources: [], ...over });

test('PEP 668: the marker is in the stdlib folder, and ignored inside a venv', () => {
  assert.equal(pep668MarkerPath({ stdlib: '/usr/lib/python3.11', prefix: '/usr', basePrefix: '/usr' }, path.posix), '/usr/lib/python3.11/EXTERNALLY-MANAGED');
  assert.equal(pep668MarkerPath({ stdlib: '/usr/lib/python3.11', prefix: '/home/u/.venvs/a', basePrefix: '/usr' }, path.posix), null);
});

test("PEP 668: the marker's Error message, with its continuation lines", () => {
  const debian = '[externally-managed]\nError=To install Python packages system-wide, try apt install\n python3-xyz, where xyz is the package you are trying to\n install.\n\n If you wish to install a non-Debian-packaged Python package,\n create a virtual environment.\n';
  assert.equal(
    externallyManagedMessage(debian),
    'To install Python packages system-wide, try apt install\npython3-xyz, where xyz is the package you are trying to\ninstall.\n\nIf you wish to install a non-Debian-packaged Python package,\ncreate a virtual environment.',
  );
  assert.equal(externallyManagedMessage('[other]\nError=not this one\n'), null);
  assert.equal(externallyManagedMessage(''), null);
  assert.equal(externallyManagedMessage('[externally-managed]\nError = one line\n[next]\nError=x'), 'one line');
});

test('conda: the env is installed into by the conda that owns it, by name, with --yes (the person confirmed in the panel)', () => {
  const env = interp({ kind: 'conda-env', path: '/h/miniconda3/envs/analysis/bin/python', prefix: '/h/miniconda3/envs/analysis', condaEnvName: 'analysis', condaRoot: '/h/miniconda3' });
  const plan = planIpykernelInstall(env, { condaExe: '/h/miniconda3/condabin/conda' });
  assert.deepEqual(plan, { kind: 'run', tool: 'conda', argv: ['/h/miniconda3/condabin/conda', 'install', '-n', 'analysis', '--yes', 'ipykernel'], command: '/h/miniconda3/condabin/conda install -n analysis --yes ipykernel' });
  const byPrefix = planIpykernelInstall({ ...env, condaEnvName: undefined, prefix: '/data/my envs/a' }, { condaExe: '/h/miniconda3/condabin/conda' });
  assert.equal(byPrefix.kind === 'run' && byPrefix.command, '/h/miniconda3/condabin/conda install -p "/data/my envs/a" --yes ipykernel');
  const mamba = planIpykernelInstall({ ...env, manager: 'micromamba' }, { condaExe: '/h/bin/micromamba' });
  assert.deepEqual(mamba.kind === 'run' && mamba.argv, ['/h/bin/micromamba', 'install', '-n', 'analysis', '-c', 'conda-forge', '--yes', 'ipykernel']);
  const none = planIpykernelInstall(env, {});
  assert.equal(none.kind, 'unavailable');
  assert.match(none.kind === 'unavailable' ? none.reason : '', /No conda executable was found for \/h\/miniconda3\/envs\/analysis/);
});

test('pip: `<python> -m pip install ipykernel`, one argv element per word, spaces kept in the path', () => {
  const plan = planIpykernelInstall(interp({ kind: 'venv', path: '/home/u/my env/bin/python' }));
  assert.deepEqual(plan, { kind: 'run', tool: 'pip', argv: ['/home/u/my env/bin/python', '-m', 'pip', 'install', 'ipykernel'], command: '"/home/u/my env/bin/python" -m pip install ipykernel' });
  const uv = planIpykernelInstall(interp({ kind: 'venv', manager: 'uv' }), { uvExe: '/u/bin/uv' });
  assert.deepEqual(uv.kind === 'run' && uv.argv, ['/u/bin/uv', 'pip', 'install', '--python', '/x/bin/python', 'ipykernel']);
  assert.equal(planIpykernelInstall(interp({ kind: 'venv', manager: 'uv' })).kind, 'unavailable');
});

test('an externally managed Python is explained with the system command or a venv, never --break-system-packages', () => {
  const marker = { marker: '/usr/lib/python3.11/EXTERNALLY-MANAGED', message: 'try apt install python3-xyz' };
  const debian = planIpykernelInstall(interp({ path: '/usr/bin/python3', prefix: '/usr', debianPackaging: true }), { externallyManaged: marker });
  assert.equal(debian.kind, 'externally-managed');
  if (debian.kind !== 'externally-managed') return;
  assert.match(debian.explanation, /PEP 668/);
  assert.deepEqual(debian.alternatives.map((a) => a.command), ['sudo apt install python3-ipykernel', '/usr/bin/python3 -m venv ~/.venvs/analysis && ~/.venvs/analysis/bin/python -m pip install ipykernel']);
  const brew = planIpykernelInstall(interp({ path: '/opt/homebrew/bin/python3', kind: 'uv' }), { externallyManaged: marker, uvExe: '/u/uv' });
  assert.equal(brew.kind, 'externally-managed');
  const commands = [debian, brew].flatMap((p) => (p.kind === 'externally-managed' ? p.alternatives.map((a) => a.command) : []));
  assert.ok(commands.length >= 3 && commands.every((c) => !c.includes('--break-system-packages')), commands.join('\n'));
  // Not marked: plain pip.
  assert.equal(planIpykernelInstall(interp({ kind: 'pyenv' })).kind, 'run');
});

test("conda-meta/history names the conda that made the env; a bare name doesn't count", () => {
  assert.equal(condaFromHistory('==> 2024-01-01 00:00:00 <==\n# cmd: /opt/conda/bin/conda create -n a python=3.11\n'), '/opt/conda/bin/conda');
  assert.equal(condaFromHistory('# cmd: C:\\Users\\u\\miniconda3\\Scripts\\conda.exe install x'), 'C:\\Users\\u\\miniconda3\\Scripts\\conda.exe');
  assert.equal(condaFromHistory('# cmd: conda create -n a'), undefined);
  assert.equal(condaFromHistory('# cmd: /usr/bin/python -m something'), undefined);
});

test('commandLine quotes what a shell would split', () => {
  assert.equal(commandLine(['/a b/python', '-m', 'pip']), '"/a b/python" -m pip');
});

test('the kept output is the last part, and says when the start was dropped', () => {
  const tail = new OutputTail(10);
  tail.add('12345');
  tail.add('67890');
  assert.equal(tail.truncated, false);
  tail.add('abc');
  assert.equal(tail.text(), '4567890abc');
  assert.equal(tail.truncated, true);
  tail.add('x'.repeat(25));
  assert.equal(tail.text(), 'x'.repeat(10));
});
