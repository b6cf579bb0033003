/**
 * The panel says which engine a session runs on (issue 16), in Debian's Chromium: a Python
 * without ipykernel shows the built-in worker and the command that would add ipykernel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { readPanelAddress } from '../app/core/daemon/panel/address.js';
import { hasModule, pyenvPython, pyenvVersions } from '../app/core/testing/interpreters-here.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM } from './support/panel-browser.js';

const bare = pyenvVersions()
  .filter((v) => /^3\.(8|9|1[0-3])\./.test(v))
  .map((v) => pyenvPython(v))
  .find((p) => existsSync(p) && !hasModule(p, 'ipykernel'));

describe('the panel names the engine', { skip: NO_CHROMIUM || (bare ? false : 'no pyenv Python 3.8–3.13 without ipykernel here') }, () => {
  let harness: Harness;
  let browser: Browser;
  before(async () => {
    harness = await createHarness({ PYTHON_MCP_INTERPRETER: bare!, PYTHON_MCP_POOL_SIZE: '0' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
    if (harness) rmSync(harness.home, { recursive: true, force: true });
  });

  test('a session on a Python without ipykernel shows the built-in worker and the install command', { timeout: 120_000 }, async (t) => {
    t.diagnostic(`interpreter ${bare}`);
    const client = await harness.connect('panel-worker');
    assert.equal(text(await call(client, 'run_python', { code: '6 * 7' })), '42\n');
    await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home) !== null, { timeoutMs: 15_000 });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 820 } })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(readPanelAddress(harness.home)!.url);
    const engine = page.locator('.fact', { has: page.locator('dt', { hasText: 'Engine' }) });
    await engine.waitFor({ timeout: 30_000 });
    const shown = (await engine.locator('dd').textContent()) ?? '';
    assert.match(shown, /^built-in worker/);
    assert.match(shown, /Installing ipykernel would add .* -m pip install ipykernel/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'panel-worker.png') });
    assert.deepEqual(errors, []);
  });
});
