/**
 * A run left going by a call that came back at its wait_s (issue 14), as the person sees it in
 * the panel in Debian's Chromium: it shows as running with nobody waiting for it, and the panel's
 * Interrupt button stops it. The run blocks on a file the test never creates, so nothing races the clock.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser } from 'playwright-core';
import { readPanelAddress } from '../app/core/daemon/panel/address.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM } from './support/panel-browser.js';

describe('the panel shows a run nobody waits for, and stops it', { skip: NO_CHROMIUM }, () => {
  let harness: Harness;
  let client: Client;
  let browser: Browser;

  before(async () => {
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0' });
    client = await harness.connect('long-run-panel');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await harness?.close();
    if (harness) rmSync(harness.home, { recursive: true, force: true });
  });

  test("'no caller waiting' while the run goes on after its call came back; Interrupt stops it", { timeout: 120_000 }, async () => {
    const never = join(harness.home, 'never-created');
    const reply = await call(client, 'run_python', { code: `import os, time\nprint('working')\nwhile not os.path.exists(${JSON.stringify(never)}): time.sleep(0.02)`, wait_s: 0.2 });
    assert.match(text(reply), /Still running/);
    const run = reply.facts?.run as string;
    await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home) !== null, { timeoutMs: 15_000 });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 820 } })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(readPanelAddress(harness.home)!.url);
    const badge = page.locator('.session-info .unattended');
    await badge.waitFor({ timeout: 30_000 });
    assert.equal(await badge.textContent(), 'no caller waiting');
    assert.match(String(await badge.getAttribute('title')), new RegExp(`Run ${run} goes on`));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'panel-long-run.png') });

    // A caller waiting again takes the badge away; it comes back when that caller's wait ends.
    const look = call(client, 'wait_for_run', { run, wait_s: 1 });
    await page.locator('.session-info .unattended').waitFor({ state: 'detached', timeout: 30_000 });
    assert.match(text(await look), /Still running/);
    await badge.waitFor({ timeout: 30_000 });

    await page.locator('button.interrupt').click();
    const stopped = await call(client, 'wait_for_run', { run, wait_s: 60 });
    assert.match(text(stopped), /working\n(.|\n)*KeyboardInterrupt/);
    await page.locator('.session-info .unattended').waitFor({ state: 'detached', timeout: 30_000 });
    assert.deepEqual(errors, []);
  });
});
