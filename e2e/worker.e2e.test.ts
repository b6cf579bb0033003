/**
 * Every Python runs code (issue 16), through the built command: an interpreter without ipykernel
 * (pyenv's, here) gets the built-in worker, says so with the command that would add ipykernel,
 * and keeps the tools' promises — state, REPL display, the error line after what was printed, a
 * crash replaced with the names lost, interrupt, timeout_s. PYTHON_MCP_ENGINE=worker forces it on
 * Debian's python3 too, where ipykernel would otherwise run.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { findPython2s, hasModule, pyenvPython, pyenvVersions } from '../app/core/testing/interpreters-here.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';

/** pyenv Pythons 3.8+ without ipykernel: the interpreters the worker is for. */
function withoutIpykernel(): { name: string; path: string }[] {
  return pyenvVersions()
    .filter((v) => /^3\.(8|9|1[0-3])\./.test(v))
    .map((v) => ({ name: `pyenv ${v}`, path: pyenvPython(v) }))
    .filter((p) => existsSync(p.path) && !hasModule(p.path, 'ipykernel'));
}

const found = withoutIpykernel();
const minor = (p: { name: string }) => Number(p.name.match(/ 3\.(\d+)\./)?.[1] ?? 0);
const newest = [...found].sort((a, b) => minor(a) - minor(b)).at(-1);
// The oldest and newest CPython the worker supports, and the one most people have.
const picked = [found.find((p) => minor(p) === 8), found.find((p) => minor(p) === 11), newest].filter((p, i, all): p is { name: string; path: string } => !!p && all.indexOf(p) === i);
const cases = [
  ...picked.map((p) => ({ ...p, env: {} as Record<string, string> })),
  { name: `${TEST_PYTHON} with PYTHON_MCP_ENGINE=worker`, path: TEST_PYTHON, env: { PYTHON_MCP_ENGINE: 'worker' } },
];

if (!picked.length) test('the worker on a Python without ipykernel', { skip: 'no pyenv Python 3.8–3.13 without ipykernel here' }, () => undefined);

for (const python of cases) {
  describe(`the built-in worker: ${python.name}`, () => {
    let harness: Harness;
    let client: Client;
    before(async () => {
      harness = await createHarness({ PYTHON_MCP_INTERPRETER: python.path, ...python.env });
      client = await harness.connect('worker-e2e');
    });
    after(async () => harness.close());

    test('runs code with state and REPL display; python_status names the engine and what ipykernel would add', async (t) => {
      t.diagnostic(`interpreter ${python.path}`);
      assert.equal(text(await call(client, 'run_python', { code: 'x = 40' })), '(no output)');
      const shown = await call(client, 'run_python', { code: "import sys\nprint('a')\nprint('b', file=sys.stderr)\nx + 2" });
      assert.equal(text(shown), 'a\nb\n42\n');
      const status = text(await call(client, 'python_status'));
      assert.match(status, /engine the built-in worker — /);
      if (!python.env.PYTHON_MCP_ENGINE) assert.match(status, /Installing ipykernel would add .*magics.*: .* -m pip install ipykernel/);
    });

    test('an error reads as the contract says, after what was printed, and the session stays', async () => {
      const failed = await call(client, 'run_python', { code: "print('first')\nundefined_name" });
      assert.equal(failed.isError, true);
      assert.equal(text(failed), "first\nPython error: NameError on line 2: name 'undefined_name' is not defined");
      assert.equal(text(await call(client, 'run_python', { code: 'x' })), '40\n');
    });

    test('timeout_s interrupts a loop; the variables stay', async () => {
      const stopped = await call(client, 'run_python', { code: "print('looping')\nwhile True: pass", timeout_s: 1 });
      assert.match(text(stopped), /looping\n(.|\n)*Timed out after 1 s/);
      assert.equal(text(await call(client, 'run_python', { code: 'x' })), '40\n');
    });

    test('a crash is replaced and the caller is told what was lost', async () => {
      const died = await call(client, 'run_python', { code: 'import os\nos._exit(3)' });
      assert.equal(died.isError, true);
      assert.match(text(died), /died(.|\n)*Lost with it: .*x/);
      assert.equal(text(await call(client, 'run_python', { code: "'fresh'" })), "'fresh'\n");
    });
  });
}

/** Pythons too old for either engine: pyenv's 2.x and 3.0–3.7, and any Python 2 on PATH. */
const tooOld = [
  ...pyenvVersions()
    .filter((v) => /^(2\.|3\.[0-7]\.)/.test(v))
    .map((v) => ({ name: `pyenv ${v}`, path: pyenvPython(v), version: v })),
  ...findPython2s()
    .filter((p) => !p.source.startsWith('pyenv'))
    .map((p) => ({ name: p.source, path: p.path, version: p.version })),
].filter((p) => existsSync(p.path));
if (!tooOld.length) test('a Python older than 3.8 is refused', { skip: 'no Python 2 or 3.0–3.7 here' }, () => undefined);

describe('a Python older than 3.8 gets an error naming the versions that work', () => {
  for (const python of tooOld) {
    test(`${python.name}, with and without PYTHON_MCP_ENGINE=worker`, async () => {
      for (const env of [{}, { PYTHON_MCP_ENGINE: 'worker' }] as Record<string, string>[]) {
        const harness = await createHarness({ PYTHON_MCP_INTERPRETER: python.path, PYTHON_MCP_POOL_SIZE: '0', ...env });
        try {
          const client = await harness.connect('old-python');
          const refused = await call(client, 'run_python', { code: '1 + 1' });
          assert.equal(refused.isError, true);
          assert.match(text(refused), new RegExp(`Python ${python.version.replace(/\./g, '\\.')} is too old: Python Session runs code in CPython 3\\.8 to 3\\.13`));
          assert.match(text(refused), /built-in worker/);
          assert.doesNotMatch(text(refused), /^2\n/);
        } finally {
          await harness.close();
        }
      }
    });
  }
});
