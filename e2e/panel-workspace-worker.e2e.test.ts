/**
 * The workspace on the built-in worker, in Debian's Chromium: a Python without ipykernel still
 * shows its variables and opens a list in the data viewer, and Open elsewhere says why the
 * worker cannot be attached, offering the ipykernel install.
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

const WAIT = { timeout: 30_000 };
const bare = pyenvVersions()
  .filter((v) => /^3\.(8|9|1[0-3])\./.test(v))
  .map((v) => pyenvPython(v))
  .find((p) => existsSync(p) && !hasModule(p, 'ipykernel'));

describe('the workspace on the built-in worker', { skip: NO_CHROMIUM || (bare ? false : 'no pyenv Python 3.8–3.13 without ipykernel here') }, () => {
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

  test('variables and a list in the data viewer; Open elsewhere says why not and offers ipykernel', { timeout: 180_000 }, async () => {
    const client = await harness.connect('worker-e2e');
    const made = await call(client, 'run_python', { code: "pairs = [(i, f'<i>{i}</i>') for i in range(250)]\nprint(len(pairs))" });
    assert.equal(text(made), '250\n', JSON.stringify(made));
    await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home) !== null, { timeoutMs: 15_000 });
    const panel = readPanelAddress(harness.home)!;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    assert.equal((await page.goto(panel.url))?.status(), 200);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live', undefined, WAIT);

    await page.click('#tab-variables');
    const pairs = page.locator('.variables-table tr.variable[data-name="pairs"]');
    await pairs.waitFor(WAIT);
    assert.equal(await pairs.locator('.col-size').textContent(), '250');
    await pairs.locator('button.variable-open').click();
    const dialog = page.locator('#dialog-data');
    await dialog.locator('tbody tr[data-row="0"]').waitFor(WAIT);
    assert.match((await dialog.locator('.data-status').textContent()) ?? '', /of 250 rows/);
    assert.equal(await dialog.locator('i').count(), 0, 'cells are text');
    await dialog.locator('button', { hasText: 'Close' }).click();

    await page.click('#open-elsewhere');
    const attach = page.locator('#dialog-attach');
    await attach.locator('#attach-reason').waitFor(WAIT);
    assert.match((await attach.locator('#attach-reason').textContent()) ?? '', /built-in worker, which is not a Jupyter kernel/);
    assert.equal(await attach.locator('button', { hasText: 'Install ipykernel…' }).count(), 1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'workspace-open-elsewhere-worker.png') });
    assert.deepEqual(errors, []);
  });
});
