import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ipykernelInstallCommand } from './install-hint.js';
import type { Interpreter } from './types.js';

function interp(over: Partial<Interpreter>): Interpreter {
  return { path: '/x/bin/python', realPath: '/x/bin/python3.11', kind: 'system', name: 'python', prefix: '/x', aliases: [], sources: [], ...over };
}

describe('ipykernel install command', () => {
  it('uses conda by name for named envs and the base', () => {
    assert.equal(ipykernelInstallCommand(interp({ kind: 'conda-env', condaEnvName: 'analysis', manager: 'anaconda3' })), 'conda install -n analysis ipykernel');
    assert.equal(ipykernelInstallCommand(interp({ kind: 'conda-base', condaEnvName: 'base', manager: 'miniconda3' })), 'conda install -n base ipykernel');
  });
  it('uses conda by prefix for envs conda cannot find by name', () => {
    assert.equal(
      ipykernelInstallCommand(interp({ kind: 'conda-env', prefix: '/work/my project/env' })),
      'conda install -p "/work/my project/env" ipykernel',
    );
  });
  it('uses micromamba with a channel for micromamba envs', () => {
    assert.equal(
      ipykernelInstallCommand(interp({ kind: 'conda-env', condaEnvName: 'x', manager: 'micromamba' })),
      'micromamba install -n x -c conda-forge ipykernel',
    );
  });
  it('uses pip through the interpreter itself, quoted when needed', () => {
    assert.equal(ipykernelInstallCommand('/opt/py/bin/python3'), '/opt/py/bin/python3 -m pip install ipykernel');
    assert.equal(
      ipykernelInstallCommand(interp({ kind: 'windows-registry', path: 'C:\\Program Files\\Python312\\python.exe' })),
      '"C:\\Program Files\\Python312\\python.exe" -m pip install ipykernel',
    );
    assert.equal(ipykernelInstallCommand(interp({ kind: 'venv', manager: 'venv', path: '/p/.venv/bin/python' })), '/p/.venv/bin/python -m pip install ipykernel');
  });
  it('uses uv for uv venvs, which have no pip', () => {
    assert.equal(ipykernelInstallCommand(interp({ kind: 'venv', manager: 'uv', path: '/p/.venv/bin/python' })), 'uv pip install --python /p/.venv/bin/python ipykernel');
  });
  it('respects PEP 668: apt on Debian, --break-system-packages --user elsewhere', () => {
    assert.equal(ipykernelInstallCommand(interp({ path: '/usr/bin/python3', externallyManaged: true, debianPackaging: true })), 'sudo apt install python3-ipykernel');
    assert.equal(
      ipykernelInstallCommand(interp({ path: '/opt/homebrew/bin/python3', externallyManaged: true })),
      '/opt/homebrew/bin/python3 -m pip install --user --break-system-packages ipykernel',
    );
  });
});
