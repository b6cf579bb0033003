/**
 * A run's output streams into the panel while it runs: the real daemon (started by the real
 * shim, driven by an MCP client over stdio), a real kernel, and the panel in Debian's Chromium.
 *
 * The cell waits for the test between its prints (a file per step), so "shown while it runs"
 * is checked without racing the clock: the call cannot return before the test lets it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { readPanelAddress, type PanelAddress } from '../app/core/daemon/panel/address.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';
import { leftovers } from './support/proc.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS } from './support/panel-browser.js';

const WAIT = { timeout: 30_000 };

describe('output streams into the panel while a run goes on', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)` }, () => {
  let harness: Harness;
  let client: Client;
  let daemon: number | null = null;
  let panel: PanelAddress;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  const openPanel = async (): Promise<Page> => {
    const p = await context.newPage();
    p.on('pageerror', (error) => pageErrors.push(error.message));
    assert.equal((await p.goto(panel.url))?.status(), 200);
    await p.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live', undefined, WAIT);
    return p;
  };

  /** Starts a run through MCP without waiting for it; returned() says whether its reply came. */
  const runInBackground = (code: string) => {
    let done = false;
    const running = call(client, 'run_python', { code }).then((result: CallResult) => {
      done = true;
      return result;
    });
    return { running, returned: () => done };
  };

  before(async () => {
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0' });
    client = await harness.connect('live-e2e');
    const warm = await call(client, 'run_python', { code: "print('ready')" });
    assert.equal(text(warm), 'ready\n', JSON.stringify(warm));
    daemon = await harness.daemonPid();
    await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home) !== null, { timeoutMs: 15_000 });
    panel = readPanelAddress(harness.home)!;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    page = await openPanel();
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await harness?.close();
    if (harness) {
      assert.deepEqual(await leftovers(harness.home, [daemon]), []);
      rmSync(harness.home, { recursive: true, force: true });
    }
    assert.deepEqual(pageErrors, [], 'the pages threw no errors');
  });

  test("'step 0' shows in the running entry before the call returns; the finished entry then replaces it", { timeout: 180_000 }, async () => {
    const gates = join(harness.home, 'gates');
    mkdirSync(gates, { recursive: true });
    const gate = (i: number) => join(gates, `step-${i}`);
    // Steps 0 and 1 wait for the test to open their gate (a minute at most, so a failed test
    // never leaves the kernel waiting); steps 2 and 3 run as a plain loop would.
    const code = [
      'import os, sys, time',
      'for i in range(4):',
      "    print(f'step {i}', flush=True)",
      "    print(f'warn {i} <b>not markup</b>', file=sys.stderr, flush=True)",
      '    deadline = time.time() + 60',
      `    while i < 2 and not os.path.exists(os.path.join(${JSON.stringify(gates)}, f'step-{i}')) and time.time() < deadline:`,
      '        time.sleep(0.05)',
      '    if i >= 2:',
      '        time.sleep(1)',
    ].join('\n');
    const { running, returned } = runInBackground(code);
    try {
      const live = page.locator('.entry-running .live-text');
      await page.locator('.entry-running .live-text', { hasText: 'step 0' }).waitFor(WAIT);
      assert.equal(returned(), false, 'step 0 is shown while the run is still going');
      assert.equal(await page.locator('.entry:not(.entry-running)', { hasText: 'step 0' }).count(), 0, 'no finished entry yet');
      // stderr is told apart as in finished entries, and output is text, never markup.
      const stderr = page.locator('.entry-running .live-text .out.stderr', { hasText: 'warn 0' });
      await stderr.waitFor(WAIT);
      assert.match((await stderr.textContent()) ?? '', /<b>not markup<\/b>/);
      assert.equal(await page.locator('.entry-running .live-text b').count(), 0, 'no element made from the output');
      const [outColor, errColor] = await Promise.all([
        page.locator('.entry-running .live-text .out.stdout').first().evaluate((el) => getComputedStyle(el).color),
        stderr.evaluate((el) => getComputedStyle(el).color),
      ]);
      assert.notEqual(outColor, errColor, 'stderr has its own colour');

      writeFileSync(gate(0), '');
      await page.locator('.entry-running .live-text .out.stderr', { hasText: 'warn 1' }).waitFor(WAIT);
      assert.equal(returned(), false, 'step 1 is shown while the run is still going');
      assert.match((await live.textContent()) ?? '', /^step 0\nwarn 0 <b>not markup<\/b>\nstep 1\nwarn 1 <b>not markup<\/b>\n$/, 'in print order, once each');
      assert.equal(await page.locator('.entry-running').count(), 1);

      // A panel opened now starts from the daemon's snapshot, which holds the text so far.
      const late = await openPanel();
      try {
        await late.locator('.entry-running .live-text', { hasText: 'step 1' }).waitFor(WAIT);
        assert.match((await late.locator('.entry-running .live-text').textContent()) ?? '', /step 0[\s\S]*step 1/);
      } finally {
        await late.close();
      }
      await page.screenshot({ path: join(ARTIFACTS, 'panel-live-output.png') });
    } finally {
      writeFileSync(gate(0), '');
      writeFileSync(gate(1), '');
    }

    const result = await running;
    assert.ok(!result.isError, JSON.stringify(result));
    assert.match(text(result), /step 0\n[\s\S]*step 3\n/);
    const finished = page.locator('.entry:not(.entry-running)', { hasText: 'step 3' });
    await finished.waitFor(WAIT);
    assert.match((await finished.textContent()) ?? '', /step 0[\s\S]*step 1[\s\S]*step 2[\s\S]*step 3/);
    assert.equal(await finished.locator('.out.stderr', { hasText: 'warn 3' }).count(), 1);
    await page.waitForFunction(() => document.querySelectorAll('.entry-running').length === 0, undefined, WAIT);
    assert.equal(await page.locator('.entry', { hasText: 'step 3' }).count(), 1, 'the finished entry took the running one’s place');
  });

  test('a flood of output reaches the panel as its latest part only, and the panel keeps up', { timeout: 180_000 }, async () => {
    const gate = join(harness.home, 'gates', 'flood');
    const lines = 300_000;
    const code = [
      'import os, time',
      `for i in range(${lines}):`,
      "    print(f'flood line {i:7d}')",
      "print('flood done', flush=True)",
      'deadline = time.time() + 60',
      `while not os.path.exists(${JSON.stringify(gate)}) and time.time() < deadline:`,
      '    time.sleep(0.05)',
    ].join('\n');
    const { running, returned } = runInBackground(code);
    try {
      await page.locator('.entry-running .live-text', { hasText: 'flood done' }).waitFor({ timeout: 90_000 });
      assert.equal(returned(), false);
      const shown = (await page.locator('.entry-running .live-text').textContent()) ?? '';
      assert.ok(shown.length <= 32 * 1024, `the panel holds ${shown.length} characters of it`);
      assert.match(shown, new RegExp(`flood line ${String(lines - 1).padStart(7)}\\nflood done\\n$`), 'the latest part, up to the last line');
      assert.ok(!shown.includes(`flood line ${String(0).padStart(7)}\n`), 'the first lines were cut');
      assert.match((await page.locator('.entry-running .live-cut').textContent()) ?? '', /earlier characters not shown/);
      const fromBottom = await page.locator('.entry-running .live-text').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
      assert.ok(fromBottom < 24, `the box shows its newest line (${fromBottom}px from the bottom)`);
      assert.equal(await page.locator('#connection').textContent(), 'Live', 'the event stream kept up');
      await page.screenshot({ path: join(ARTIFACTS, 'panel-live-output-flood.png') });
    } finally {
      writeFileSync(gate, '');
    }
    const result = await running;
    assert.ok(!result.isError, JSON.stringify(result).slice(0, 2000));
    await page.locator('.entry:not(.entry-running)', { hasText: 'flood done' }).waitFor(WAIT);
    await page.waitForFunction(() => document.querySelectorAll('.entry-running').length === 0, undefined, WAIT);
  });
});
