/**
 * The answers that ship with the package (dist/mcp-answers.json): the same whoever builds them,
 * wherever, and holding nothing of the machine they were built on.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { packageVersion } from '../core/package-root.js';
import { packagedAnswersPath, readQuickAnswers } from './quick-answers.js';

const SCRIPT = fileURLToPath(new URL('./package-answers.js', import.meta.url));
const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

test('built answers are identical under any HOME and state folder, touch neither, and name no path or user', () => {
  const root = mkdtempSync(join(tmpdir(), 'ps-package-answers-'));
  try {
    const build = (name: string, withState: boolean) => {
      const home = join(root, `home-${name}`);
      const state = join(root, `state-${name}`);
      mkdirSync(home);
      if (withState) {
        // A state folder holding answers of its own, damaged ones even: the build must not read them.
        mkdirSync(state);
        writeFileSync(join(state, 'mcp-answers.json'), '{"version":"0.0.0-elsewhere"}');
      }
      const out = join(root, `answers-${name}.json`);
      const ran = spawnSync(process.execPath, [SCRIPT, out], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PYTHON_MCP_HOME: state, XDG_STATE_HOME: join(home, 'xdg-state'), USER: `user-${name}` },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(ran.status, 0, ran.stderr);
      if (!withState) assert.equal(existsSync(state), false, 'no state folder was made');
      assert.equal(existsSync(join(home, 'xdg-state')), false, 'nothing was made under HOME');
      return { text: readFileSync(out, 'utf8'), home, state };
    };
    const a = build('a', false);
    const b = build('b', true);
    assert.equal(a.text, b.text, 'the same bytes whatever HOME and PYTHON_MCP_HOME');
    assert.equal(a.text, readFileSync(packagedAnswersPath(), 'utf8'), 'and the same as `npm run build` put into dist/');

    for (const path of [a.home, b.home, a.state, b.state, root, tmpdir(), PACKAGE_ROOT.replace(/\/$/, ''), process.env.HOME ?? '/nonexistent-home']) {
      assert.ok(!a.text.includes(path), `the answers name ${path}`);
    }
    // Looked for as a path segment: a user named like a plain word ("root") is in a tool's prose.
    for (const user of ['user-a', 'user-b', userInfo().username]) assert.ok(!a.text.includes(`/${user}/`) && !a.text.includes(`\\${user}\\`), `the answers name the user ${user} in a path`);
    assert.ok(!a.text.includes('user-a') && !a.text.includes('user-b'), 'nothing of $USER');

    const answers = readQuickAnswers(packagedAnswersPath(), packageVersion());
    assert.ok(answers, 'the shim reads them as they are');
    assert.ok((answers.tools.tools as unknown[]).length >= 20);
    assert.equal(answers.discover.resultType, 'complete');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
