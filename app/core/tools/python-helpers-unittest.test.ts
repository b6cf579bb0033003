/**
 * Runs the Python unittest suite of the kernel-side helpers (resources/python/tests) with a
 * real interpreter: /usr/bin/python3 unless PYTHON_SESSION_TEST_PYTHON names another one.
 * The suite needs pandas, numpy, statsmodels and matplotlib in that interpreter.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const helpersPackage = join('resources', 'python', 'python_session');

/** The repository root: four levels above dist/app/core/tools/, or found by walking up. */
function repoRoot(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const guess = resolve(here, '..', '..', '..', '..');
  if (existsSync(join(guess, helpersPackage))) return guess;
  let dir = here;
  while (!existsSync(join(dir, helpersPackage))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${helpersPackage} above ${here}`);
    dir = parent;
  }
  return dir;
}

const override = process.env.PYTHON_SESSION_TEST_PYTHON;
const python = override && override.length > 0 ? override : '/usr/bin/python3';
const skip = !override && !existsSync(python) ? `${python} does not exist; set PYTHON_SESSION_TEST_PYTHON` : false;

test('Python helpers: unittest suite passes', { skip, timeout: 10 * 60 * 1000 }, (t) => {
  const root = repoRoot();
  const run = spawnSync(
    python,
    ['-m', 'unittest', 'discover', '-s', join('resources', 'python', 'tests'), '-t', join('resources', 'python')],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', MPLBACKEND: 'Agg' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 9 * 60 * 1000,
    },
  );
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  if (run.error) assert.fail(`could not run ${python}: ${run.error.message}\n${output}`);
  const lines = output.trim().split('\n');
  const summary = lines.filter((line) => /^(Ran \d+ tests?|OK|FAILED)/.test(line)).join('; ');
  t.diagnostic(`${python}: ${summary || 'no summary'}`);
  // The digits reached on NIST's certified values (tests/test_estimation.py prints them).
  for (const line of lines.filter((l) => l.startsWith('LRE '))) t.diagnostic(line);
  assert.equal(run.status, 0, `python -m unittest exited with ${run.status ?? run.signal}:\n${output}`);
});
