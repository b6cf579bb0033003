/**
 * The two scripts around the suite, run as CI and `npm test` run them: .ci/failures.mjs (a failed
 * pass's failing tests, printed in full from its log) and scripts/test-setup.mjs (what `npm test`
 * sets up, then the tests), on the Node running this file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { packageRoot } from '../app/core/package-root.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';

/** This process's environment without the variable that makes a nested `node --test` report to its parent. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

const dir = mkdtempSync(join(tmpdir(), 'ps-ci-tools-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const FAILING = `import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
describe('a suite', () => {
  test('the test that fails', () => assert.equal('seen', 'expected value 7781'));
  test('the test that passes', () => {});
});
`;

function logOf(reporter: 'tap' | 'spec'): string {
  const file = join(dir, `sample-${reporter}.test.mjs`);
  writeFileSync(file, FAILING);
  const run = spawnSync(process.execPath, ['--test', `--test-reporter=${reporter}`, file], { encoding: 'utf8', env: plainEnv() });
  assert.notEqual(run.status, 0, 'the sample run fails');
  const log = join(dir, `${reporter}.log`);
  writeFileSync(log, run.stdout + run.stderr);
  return log;
}

function failuresOf(log: string): string {
  const out = spawnSync(process.execPath, [join(packageRoot(), '.ci', 'failures.mjs'), log], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return out.stdout;
}

describe('.ci/failures.mjs prints a failed pass\'s failing tests in full', () => {
  for (const reporter of ['tap', 'spec'] as const) {
    test(`from node's ${reporter} reporter`, () => {
      const printed = failuresOf(logOf(reporter));
      assert.match(printed, /the test that fails/);
      assert.match(printed, /expected value 7781/, 'the assertion\'s message is there');
      assert.match(printed, /sample-\w+\.test\.mjs/, 'so is where the test is');
      assert.doesNotMatch(printed, /the test that passes/);
    });
  }

  test('a log without node test output (a build error): its last lines', () => {
    const log = join(dir, 'build.log');
    writeFileSync(log, `${Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n')}\nerror TS2304: Cannot find name 'x'.\n`);
    const printed = failuresOf(log);
    assert.match(printed, /no failing test found/);
    assert.match(printed, /error TS2304/);
    assert.doesNotMatch(printed, /^line 5$/m);
  });
});

describe('scripts/test-setup.mjs', () => {
  test('says in one line what the tests use, then runs a folder\'s test files on this Node with that Python', () => {
    const folder = join(dir, 'suite');
    mkdirSync(join(folder, 'inner'), { recursive: true });
    const marker = join(dir, 'ran');
    writeFileSync(
      join(folder, 'inner', 'probe.test.mjs'),
      `import { test } from 'node:test';\nimport { writeFileSync } from 'node:fs';\ntest('probe', () => writeFileSync(${JSON.stringify(marker)}, process.version + ' ' + process.env.PYTHON_SESSION_TEST_PYTHON));\n`,
    );
    writeFileSync(join(folder, 'helper.mjs'), 'throw new Error("not a test file: never run");\n');
    const run = spawnSync(process.execPath, [join(packageRoot(), 'scripts', 'test-setup.mjs'), 'node', '--test', folder], {
      encoding: 'utf8',
      // Named clients: the setup finds them and installs nothing.
      env: plainEnv({ PYTHON_SESSION_TEST_PYTHON: TEST_PYTHON, PYTHON_SESSION_CLAUDE: process.execPath, PYTHON_SESSION_CODEX: process.execPath, PYTHON_SESSION_GEMINI: process.execPath }),
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const setupLines = run.stdout.split('\n').filter((line) => line.startsWith('test setup:'));
    assert.equal(setupLines.length, 1, run.stdout);
    assert.match(setupLines[0], new RegExp(`Python: ${TEST_PYTHON.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(PYTHON_SESSION_TEST_PYTHON\\)`));
    assert.match(setupLines[0], /client binaries: present/);
    assert.ok(existsSync(marker), 'the folder\'s test file ran');
    assert.equal(
      readFileSync(marker, 'utf8'),
      `${process.version} ${TEST_PYTHON}`,
      'on the Node that ran the setup, with the Python it chose',
    );
  });
});
