/**
 * The person's side of a session in Debian's Chromium: the Variables tab, the data viewer, the
 * console under the log and "Open elsewhere", against the real daemon (started by the real
 * shim, the model side driven by an MCP client over stdio) and a real ipykernel.
 *
 * Screenshots of each view, light and dark, at 1280×800 and 900×700, land in e2e/artifacts/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { readPanelAddress, type PanelAddress } from '../app/core/daemon/panel/address.js';
import { cellGate } from '../app/core/testing/cell-gate.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { leftovers } from './support/proc.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_ARGS } from './support/panel-browser.js';

const WAIT = { timeout: 30_000 };

describe('the workspace in the panel: variables, data viewer, console, open elsewhere', { skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)` }, () => {
  let harness: Harness;
  let client: Client;
  let daemon: number | null = null;
  let panel: PanelAddress;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  /** Bodies of the data requests the page sent, to show that only the rows in view travel. */
  const dataRequests: Record<string, unknown>[] = [];
  const dataAnswers: string[] = [];

  const model = async (code: string) => {
    const result = await call(client, 'run_python', { code });
    assert.ok(!result.isError, JSON.stringify(result));
    return text(result);
  };
  /** Waits for the data viewer to draw row `n`; a timeout says what the viewer showed instead. */
  const viewerRow = async (n: number) => {
    try {
      await page.locator(`#dialog-data tbody tr[data-row="${n}"]`).waitFor(WAIT);
    } catch (error) {
      const seen = await page.evaluate(() => {
        const scroller = document.querySelector('#dialog-data .data-scroll') as HTMLElement | null;
        const rows = Array.from(document.querySelectorAll('#dialog-data tbody tr'));
        return {
          status: document.querySelector('#dialog-data .data-status')?.textContent,
          problem: (document.querySelector('#dialog-data .data-problem') as HTMLElement | null)?.hidden ? null : document.querySelector('#dialog-data .data-problem')?.textContent,
          rows: `${rows[0]?.getAttribute('data-row') ?? rows[0]?.className}…${rows.at(-1)?.getAttribute('data-row') ?? rows.at(-1)?.className} (${rows.length})`,
          scroll: scroller && `${scroller.scrollTop} of ${scroller.scrollHeight - scroller.clientHeight}`,
        };
      });
      throw new Error(`row ${n} never drawn: ${JSON.stringify(seen)}; data answers: ${dataAnswers.slice(-8).join(', ')}; page errors: ${pageErrors.join(' | ')}`, { cause: error });
    }
  };
  const row = (name: string) => page.locator(`.variables-table tr.variable[data-name="${name}"]`);
  const setTab = async (tab: 'log' | 'variables' | 'figures') => {
    // A test that failed with a dialog open leaves it open; the next one starts without it.
    await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => (d as HTMLDialogElement).close()));
    await page.click(`#tab-${tab}`);
    await page.waitForFunction((t) => document.querySelector(`#tab-${t}`)?.getAttribute('aria-selected') === 'true', tab);
  };
  const shoot = async (name: string) => {
    for (const [w, hgt] of [
      [1280, 800],
      [900, 700],
    ]) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width: w, height: hgt });
        await page.emulateMedia({ colorScheme: scheme });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await page.screenshot({ path: join(ARTIFACTS, `workspace-${name}-${w}x${hgt}-${scheme}.png`) });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
  };

  before(async () => {
    harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0' });
    client = await harness.connect('model-e2e');
    await model(
      [
        'import numpy as np, pandas as pd',
        "sales = pd.DataFrame({'region': ['north', 'south', 'east'], 'amount': [120.5, 80.25, 99.0]})",
        "big = pd.DataFrame({'n': np.arange(5000), 'square': np.arange(5000) ** 2, 'label': [f'item {i:04d}' for i in range(5000)]})",
        'big = big.sample(frac=1, random_state=1).reset_index(drop=True)',
        'wide = pd.DataFrame(np.arange(3 * 120).reshape(3, 120), columns=[f"c{i}" for i in range(120)])',
        "total = float(sales['amount'].sum())",
        'def helper(x):\n    return x',
      ].join('\n'),
    );
    daemon = await harness.daemonPid();
    await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home) !== null, { timeoutMs: 15_000 });
    panel = readPanelAddress(harness.home)!;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(panel.url).origin });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/data')) dataRequests.push(JSON.parse(request.postData() ?? '{}'));
    });
    // What each data request got back, for the words of a failed wait on the viewer's rows.
    page.on('response', (response) => {
      if (response.request().method() !== 'POST' || !new URL(response.url()).pathname.endsWith('/data')) return;
      const asked = JSON.parse(response.request().postData() ?? '{}') as { offset?: number };
      dataAnswers.push(`${new Date().toISOString().slice(11, 23)} offset ${asked.offset}: ${response.status()}`);
    });
    assert.equal((await page.goto(panel.url))?.status(), 200);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live', undefined, WAIT);
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await harness?.close();
    if (harness) {
      assert.deepEqual(await leftovers(harness.home, [daemon]), []);
      rmSync(harness.home, { recursive: true, force: true });
    }
    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });

  test('the Variables tab lists what the model built, and refreshes after its next run', { timeout: 120_000 }, async () => {
    await setTab('variables');
    await row('sales').waitFor(WAIT);
    const sales = row('sales');
    assert.match((await sales.locator('.col-type').textContent()) ?? '', /DataFrame$/);
    assert.equal(await sales.locator('.col-size').textContent(), '3 × 2');
    assert.match((await sales.locator('.col-dtypes').textContent()) ?? '', /float64/);
    assert.match((await sales.locator('.col-memory').textContent()) ?? '', /\d+ (B|KB)/);
    assert.equal(await sales.locator('button.variable-open').count(), 1, 'a DataFrame opens in the viewer');
    assert.match((await row('total').locator('.col-preview').textContent()) ?? '', /299\.75/);
    // Modules and functions are behind the toggle.
    assert.equal(await row('pd').count(), 0);
    assert.equal(await row('helper').count(), 0);
    await page.check('#variables-show-all');
    await row('pd').waitFor(WAIT);
    assert.equal(await row('helper').count(), 1);
    await page.uncheck('#variables-show-all');
    await page.fill('.variables-filter', 'to');
    await page.waitForFunction(() => document.querySelectorAll('.variables-table tr.variable').length === 1);
    assert.equal(await row('total').count(), 1);
    await page.fill('.variables-filter', '');
    assert.match((await page.locator('.variables-status').textContent()) ?? '', /as of In \[1\]/);
    await shoot('variables');

    await model("added_by_model = [1, 2, 3]");
    await row('added_by_model').waitFor(WAIT);
    assert.match((await page.locator('.variables-status').textContent()) ?? '', /as of In \[2\]/);
  });

  test('while a cell runs, the tab shows the last snapshot "as of In [n]" and does not wait for it', { timeout: 120_000 }, async () => {
    const gate = cellGate();
    const running = model(`during = 1\n${gate.waitCode}`);
    try {
      await page.waitForFunction(() => document.querySelector('#session-header .badge')?.textContent?.trim() === 'busy', undefined, WAIT);
      await page.click('.variables-toolbar button'); // Refresh: answered from the snapshot
      await page.waitForFunction(() => /updates when the running cell ends/.test(document.querySelector('.variables-status')?.textContent ?? ''), undefined, WAIT);
      assert.match((await page.locator('.variables-status').textContent()) ?? '', /as of In \[2\]/);
      assert.equal(await row('during').count(), 0);
      assert.equal(gate.isOpen(), false, 'shown while the cell still waits');
      await shoot('variables-busy');
      // The data viewer cannot read a value while the cell holds the kernel: after a short wait
      // it says which run, and offers to try again.
      await row('sales').locator('button.variable-open').click();
      const problem = page.locator('#dialog-data .data-problem');
      await problem.waitFor(WAIT);
      assert.match((await problem.textContent()) ?? '', /The session is running code \(run default-\d+, for .*\); interrupt it first, or try again when it ends\./);
      assert.equal(await problem.locator('button', { hasText: 'Try again' }).count(), 1);
      assert.equal(gate.isOpen(), false);
      await page.screenshot({ path: join(ARTIFACTS, 'workspace-data-busy.png') });
      await page.locator('#dialog-data button', { hasText: 'Close' }).click();
    } finally {
      gate.open();
    }
    await running;
    await row('during').waitFor(WAIT);
  });

  test('a DataFrame opens in the viewer; it pages on demand, sorts by a column and filters', { timeout: 120_000 }, async () => {
    await row('big').locator('button.variable-open').click();
    const dialog = page.locator('#dialog-data');
    await dialog.locator('.data-table tbody tr[data-row="0"]').waitFor(WAIT);
    assert.match((await dialog.locator('.data-shape').textContent()) ?? '', /5,000 × 3/);
    assert.match((await dialog.locator('.data-status').textContent()) ?? '', /^Rows 1–\d+ of 5,000 rows$/);
    assert.deepEqual(await dialog.locator('thead .data-col-name').allTextContents(), ['n', 'square', 'label']);
    assert.ok(dataRequests.length >= 1 && dataRequests.every((r) => (r.limit as number) <= 100), JSON.stringify(dataRequests));

    // Scrolling to the end fetches the block there, and only that block.
    const before = dataRequests.length;
    await dialog.locator('.data-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await dialog.locator('.data-table tbody tr[data-row="4999"]').waitFor(WAIT);
    const fetched = dataRequests.slice(before);
    assert.ok(fetched.length >= 1 && fetched.length <= 2, `fetched ${fetched.length} blocks`);
    assert.ok(fetched.some((r) => r.offset === 4900), JSON.stringify(fetched));
    await dialog.locator('.data-scroll').evaluate((el) => (el.scrollTop = 0));
    await dialog.locator('.data-table tbody tr[data-row="0"]').waitFor(WAIT);

    // Sort by n, ascending then descending.
    await dialog.locator('thead button.data-sort', { hasText: 'n' }).first().click();
    await page.waitForFunction(() => document.querySelector('#dialog-data tbody tr[data-row="0"] td')?.textContent === '0', undefined, WAIT);
    assert.equal(await dialog.locator('tbody tr[data-row="1"] td').first().textContent(), '1');
    await dialog.locator('thead button.data-sort', { hasText: 'n' }).first().click();
    await page.waitForFunction(() => document.querySelector('#dialog-data tbody tr[data-row="0"] td')?.textContent === '4999', undefined, WAIT);
    assert.equal(await dialog.locator('thead th[aria-sort="descending"] .data-col-name').textContent(), 'n');

    // Filter on text: "item 000" matches item 0000 … item 0009.
    await dialog.locator('.data-filter').fill('item 000');
    await page.waitForFunction(() => /of 10 rows \(filtered from 5,000\)/.test(document.querySelector('#dialog-data .data-status')?.textContent ?? ''), undefined, WAIT);
    assert.equal(await dialog.locator('tbody tr[data-row]').count(), 10);
    assert.equal(await dialog.locator('tbody tr[data-row="0"] td').first().textContent(), '9', 'still sorted descending');

    // Copy as CSV: the rows in view with the header.
    await dialog.locator('button', { hasText: 'Copy as CSV' }).click();
    const csv = await page.evaluate(() => navigator.clipboard.readText());
    const lines = csv.trim().split(/\r\n/);
    assert.match(lines[0], /(^|,)n,square,label$/);
    assert.equal(lines.length, 11, csv);
    assert.match(lines[1], /9,81,item 0009$/);
    await shoot('data-viewer');

    // The summary: one row per column.
    await dialog.locator('button', { hasText: 'Summary' }).click();
    await dialog.locator('.data-summary-table tbody tr').first().waitFor(WAIT);
    const summary = await dialog.locator('.data-summary-table tbody tr', { hasText: 'square' }).textContent();
    assert.match(summary ?? '', /int64/);
    assert.match(summary ?? '', /24990001/, 'its max');
    await shoot('data-summary');
    await dialog.locator('button', { hasText: 'Close' }).click();
  });

  test('a wide frame pages its columns', { timeout: 120_000 }, async () => {
    await setTab('variables');
    await row('wide').locator('button.variable-open').click();
    const dialog = page.locator('#dialog-data');
    await dialog.locator('.data-table tbody tr[data-row="0"]').waitFor(WAIT);
    assert.match((await dialog.locator('.data-columns-label').textContent()) ?? '', /Columns 1–50 of 120/);
    await dialog.locator('button[aria-label="Next columns"]').click();
    await page.waitForFunction(() => /Columns 51–100 of 120/.test(document.querySelector('#dialog-data .data-columns-label')?.textContent ?? ''), undefined, WAIT);
    assert.equal(await dialog.locator('thead .data-col-name').first().textContent(), 'c50');
    assert.equal(await dialog.locator('tbody tr[data-row="0"] td').first().textContent(), '50');
    // A run that changes the value while it is open: the viewer reads its rows again.
    await model('wide.iloc[0, 50] = -1');
    await page.waitForFunction(() => document.querySelector('#dialog-data tbody tr[data-row="0"] td')?.textContent === '-1', undefined, WAIT);
    await dialog.locator('button', { hasText: 'Close' }).click();
  });

  test('a million rows scroll end to end a block at a time; a MultiIndex, datetimes and missing values display', { timeout: 120_000 }, async () => {
    await setTab('variables');
    await model(
      [
        "million = pd.DataFrame({'x': np.arange(1_000_000), 'y': np.arange(1_000_000) % 7})",
        "idx = pd.MultiIndex.from_product([['a', 'b'], [1, 2]], names=['letter', 'number'])",
        "mixed = pd.DataFrame({'when': pd.to_datetime(['2024-01-01', None, '2024-03-01', '2024-04-01']), 'value': [1.5, np.nan, None, 4.0], 'cat': pd.Categorical(['u', 'v', None, 'u']), 'long': ['z' * 500, None, 'short', object()]}, index=idx)",
      ].join('\n'),
    );
    await row('million').locator('button.variable-open').click();
    const dialog = page.locator('#dialog-data');
    await dialog.locator('tbody tr[data-row="0"]').waitFor(WAIT);
    const before = dataRequests.length;
    await dialog.locator('.data-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await viewerRow(999999);
    assert.equal(await dialog.locator('tbody tr[data-row="999999"] td').first().textContent(), '999999');
    assert.ok(dataRequests.length - before <= 2, `${dataRequests.length - before} blocks fetched for the jump`);
    // A window made shorter at the end keeps the end in view (the place maps rows by proportion,
    // so a kept pixel offset would land rows short of it), and taller again too.
    const status = () => page.evaluate(() => document.querySelector('#dialog-data .data-status')?.textContent ?? '');
    const resizeTo = async (height: number) => {
      const was = await status();
      await page.setViewportSize({ width: 1280, height });
      await page.waitForFunction((w) => document.querySelector('#dialog-data .data-status')?.textContent !== w, was, WAIT);
    };
    await resizeTo(640);
    await viewerRow(999999);
    await resizeTo(800);
    await viewerRow(999999);
    await dialog.locator('.data-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    // Waits for the rows of the new place: the end's rows, already drawn, meet a plain "nothing
    // pending" at once, before the scroll has been handled (seen once in a fresh-clone CI run).
    await page.waitForFunction(
      () => {
        const row = Number(document.querySelector('#dialog-data tbody tr[data-row]')?.getAttribute('data-row'));
        return document.querySelectorAll('#dialog-data tbody tr.data-pending').length === 0 && row > 400_000 && row < 600_000;
      },
      undefined,
      WAIT,
    );
    const middle = Number(await dialog.locator('tbody tr[data-row]').first().getAttribute('data-row'));
    assert.ok(middle > 400_000 && middle < 600_000, `half way down shows row ${middle}`);
    // ... and a row half way down stays at the top through a resize.
    await resizeTo(640);
    const firstRow = () => dialog.locator('tbody tr[data-row]').first().getAttribute('data-row').then(Number);
    assert.equal(await firstRow(), middle, 'the same first row after the window got shorter');
    await resizeTo(800);
    assert.equal(await firstRow(), middle, 'the same first row after the window got taller');
    await dialog.locator('button', { hasText: 'Close' }).click();

    await row('mixed').locator('button.variable-open').click();
    await dialog.locator('tbody tr[data-row="3"]').waitFor(WAIT);
    assert.deepEqual(await dialog.locator('thead .data-index-head').allTextContents(), ['letter', 'number']);
    assert.deepEqual(await dialog.locator('tbody tr[data-row="1"] th').allTextContents(), ['a', '2']);
    const second = await dialog.locator('tbody tr[data-row="1"] td').allTextContents();
    assert.equal(second[0], 'NaT');
    assert.equal(second[1], 'NaN');
    assert.match((await dialog.locator('tbody tr[data-row="3"] td').nth(3).textContent()) ?? '', /object/);
    await shoot('data-mixed');
    await dialog.locator('button', { hasText: 'Close' }).click();
  });

  test("the person's own cell streams its output, is stopped by Interrupt, is logged as You and exported", { timeout: 120_000 }, async () => {
    await setTab('log');
    const gate = cellGate();
    const code = `import time\nprint('mine started', flush=True)\n${gate.waitCode}\nwhile True:\n    time.sleep(0.05)`;
    await page.fill('.console-input', code);
    await page.press('.console-input', 'Shift+Enter');
    await page.locator('.entry-running .live-text', { hasText: 'mine started' }).waitFor(WAIT);
    assert.equal(await page.locator('.entry-running .entry-client').textContent(), 'You');
    assert.equal(await page.locator('#session-header .unattended').count(), 0, 'not "no caller waiting": the person watches it here');
    assert.equal(await page.locator('.console-input').inputValue(), '', 'the box is emptied once sent');
    await shoot('console-running');
    gate.open();
    await page.locator('.entry-running button', { hasText: 'Interrupt' }).click();
    const finished = page.locator('.entry:not(.entry-running)', { hasText: 'mine started' });
    await finished.waitFor(WAIT);
    assert.equal(await finished.locator('.entry-client').textContent(), 'You');
    assert.match((await finished.textContent()) ?? '', /KeyboardInterrupt/);

    // History: Up brings the cell back.
    await page.click('.console-input');
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.locator('.console-input').inputValue(), code);
    await page.fill('.console-input', '');

    const notebook = await page.request.get(`${new URL(panel.url).origin}/api/sessions/default/notebook`);
    assert.equal(notebook.status(), 200);
    const cells = (await notebook.json()).cells as { cell_type: string; source: string | string[]; metadata?: { python_session?: { client?: string } } }[];
    const mine = cells.find((c) => (Array.isArray(c.source) ? c.source.join('') : c.source).includes("print('mine started', flush=True)"));
    assert.ok(mine, 'the person’s cell is in the notebook');
    assert.equal(mine.metadata?.python_session?.client, 'panel');
    // And the model sees what the person made: the namespace is one.
    await page.fill('.console-input', 'from_the_person = 7');
    await page.press('.console-input', 'Shift+Enter');
    await page.locator('.entry:not(.entry-running)', { hasText: 'from_the_person = 7' }).waitFor(WAIT);
    // And the model's next reply opens with the one line that says what the person ran (the
    // interrupted cell and this one), with the name made.
    assert.match(await model('print(from_the_person * 6)'), /^Since your last call, the person ran 2 cells \(In \[\d+\], In \[\d+\]\); new or changed: [^\n]*\bfrom_the_person\b[^\n]*\.\n42\n$/);
    assert.equal(await model('print(from_the_person)'), '7\n', 'the line comes once');
  });

  test('hostile values: a repr that raises or hangs, HTML column names, a __getattr__ that prints', { timeout: 180_000 }, async () => {
    await model(
      [
        'class Raises:',
        '    def __repr__(self):',
        "        raise RuntimeError('no repr for you')",
        'class Hangs:',
        '    def __repr__(self):',
        '        import time',
        '        time.sleep(60)',
        "        return 'never'",
        'class Chatty:',
        '    def __getattr__(self, name):',
        "        print('CHATTY', name)",
        '        raise AttributeError(name)',
        'raises, hangs, chatty = Raises(), Hangs(), Chatty()',
        "html = pd.DataFrame({'<img src=x onerror=alert(1)>': [1], '<b>bold</b>': ['<script>alert(2)</script>']})",
      ].join('\n'),
    );
    await setTab('variables');
    await row('html').waitFor({ timeout: 90_000 });
    assert.match((await row('raises').locator('.variable-error').textContent()) ?? '', /RuntimeError.*no repr for you/);
    assert.match((await row('hangs').locator('.variable-error').textContent()) ?? '', /timed out/);
    assert.equal(await page.locator('.variables-table img, .variables-table b, .variables-table script').count(), 0);
    assert.equal(await row('chatty').count(), 1);
    // Its code is in the log (the model wrote it); what it prints when looked at is not.
    assert.equal(await page.locator('.entry .outputs', { hasText: 'CHATTY' }).count(), 0, 'what __getattr__ printed stays out of the log');
    await shoot('variables-hostile');

    await row('html').locator('button.variable-open').click();
    const dialog = page.locator('#dialog-data');
    await dialog.locator('.data-table tbody tr[data-row="0"]').waitFor(WAIT);
    assert.deepEqual(await dialog.locator('thead .data-col-name').allTextContents(), ['<img src=x onerror=alert(1)>', '<b>bold</b>']);
    assert.equal(await dialog.locator('img, b, script').count(), 0, 'names and cells are text, never markup');
    assert.equal(await dialog.locator('tbody td').nth(1).textContent(), '<script>alert(2)</script>');
    await dialog.locator('button', { hasText: 'Close' }).click();
  });

  test('Open elsewhere shows the connection file, and a jupyter_client attached with it reads the model’s variables', { timeout: 120_000 }, async () => {
    await page.click('#open-elsewhere');
    const dialog = page.locator('#dialog-attach');
    await dialog.locator('#attach-file').waitFor(WAIT);
    const file = (await dialog.locator('#attach-file').textContent()) ?? '';
    assert.ok(existsSync(file), file);
    assert.equal(await dialog.locator('#attach-console').textContent(), `jupyter console --existing ${file}`);
    assert.match((await dialog.locator('#attach-python').textContent()) ?? '', /BlockingKernelClient\(connection_file=/);
    await shoot('open-elsewhere');
    await dialog.locator('button', { hasText: 'Close' }).click();

    const script = [
      'import sys',
      'from jupyter_client import BlockingKernelClient',
      'c = BlockingKernelClient(connection_file=sys.argv[1])',
      'c.load_connection_file()',
      'c.start_channels()',
      'c.wait_for_ready(timeout=30)',
      "reply = c.execute_interactive('print(total)', timeout=30)",
      'c.stop_channels()',
    ].join('\n');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(TEST_PYTHON, ['-c', script, file], { timeout: 60_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout))),
    );
    assert.equal(out, '299.75\n');
  });
});
