import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseEngine, EngineChoiceError } from './engine-choice.js';

const install = '/env/bin/python -m pip install ipykernel';

test('ipykernel where it is installed, the worker where it is not, with the command that would add ipykernel', () => {
  assert.equal(chooseEngine({ hasIpykernel: true, installCommand: install }).engine, 'ipykernel');
  const worker = chooseEngine({ hasIpykernel: false, installCommand: install });
  assert.equal(worker.engine, 'worker');
  assert.match(worker.upgrade ?? '', /magics.*connect_to_kernel.*Jupyter.*: \/env\/bin\/python -m pip install ipykernel$/);
});

test('PYTHON_MCP_ENGINE forces an engine; ipykernel forced where it is missing is refused with the command', () => {
  assert.equal(chooseEngine({ hasIpykernel: true, forced: 'worker', installCommand: install }).engine, 'worker');
  assert.equal(chooseEngine({ hasIpykernel: true, forced: ' IPyKernel ', installCommand: install }).engine, 'ipykernel');
  assert.throws(() => chooseEngine({ hasIpykernel: false, forced: 'ipykernel', installCommand: install }), (e: Error) => e instanceof EngineChoiceError && e.message.includes(install));
  assert.throws(() => chooseEngine({ hasIpykernel: true, forced: 'jupyter', installCommand: install }), /takes "ipykernel" or "worker"/);
});
