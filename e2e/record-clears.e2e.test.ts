/**
 * Every namespace clear is in the record, whoever caused it, so the exported notebook re-run by
 * nbclient fails where the real session failed and passes where it passed:
 * - Restart pressed in the panel (Chromium), between cells, one after it needing a name it lost;
 * - a daemon restart (`python-session-mcp stop`, then a new client), through the built command.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';
import { NO_CHROMIUM, openRecordingPage, type RecordingPage } from './support/panel-browser.js';
import { startPanelStage, type PanelStage } from './support/panel-stage.js';
import type { DaemonServices } from '../app/core/services.js';
import type { PanelServer } from '../app/core/daemon/panel/server.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';

/** Re-runs a notebook in a fresh kernel, going on past errors; prints, per cell, what the session logged and what the re-run raised. */
const RERUN = `
import json, sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, kernel_name=nb.metadata.kernelspec.name, timeout=120, allow_errors=True, resources={"metadata": {"path": sys.argv[2]}}).execute()
cells = []
for cell in nb.cells:
    meta = cell.metadata.get("python_session", {})
    if cell.cell_type != "code" or "status" not in meta:
        continue
    errors = [o.get("ename") for o in cell.outputs if o.output_type == "error"]
    cells.append({"source": cell.source, "logged": meta["status"], "tool": meta.get("tool"), "raised": errors[0] if errors else None})
print(json.dumps(cells))
`;

interface RerunCell {
  source: string;
  logged: string;
  tool: string | null;
  raised: string | null;
}

function rerun(notebookPath: string, dir: string): RerunCell[] {
  const out = execFileSync(TEST_PYTHON, ['-c', RERUN, notebookPath, dir], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

/** The re-run raised exactly where the session did (the NameError after the clear), and nowhere else. */
function assertRerunsLikeTheSession(cells: RerunCell[], failing: RegExp) {
  for (const cell of cells) {
    if (cell.logged === 'error') assert.equal(cell.raised, 'NameError', `it failed in the session, and fails again: ${cell.source}`);
    else assert.equal(cell.raised, null, `it passed in the session, and passes again: ${cell.source}`);
  }
  assert.ok(cells.some((c) => c.logged === 'error' && failing.test(c.source)), 'the cell that needed a lost name is there');
}

describe('a Restart pressed in the panel is in the record', { skip: NO_CHROMIUM }, () => {
  let stage: PanelStage;
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let client: Client;
  let recording: RecordingPage;
  let browser: Browser;
  let page: Page;

  before(async () => {
    stage = await startPanelStage('record-clears');
    ({ stateDir, services, panel, client } = stage);
    recording = await openRecordingPage();
    ({ browser, page } = recording);
  });

  after(async () => {
    await browser?.close();
    await stage?.close();
    assert.deepEqual(recording?.pageErrors ?? [], [], 'the page threw no errors');
  });

  test('cells, Restart in the panel, more cells (one needs a lost name): the exported notebook fails where the session did', { timeout: 300_000 }, async () => {
    const run = async (code: string) => (await client.callTool({ name: 'run_python', arguments: { code } }, undefined, { timeout: 120_000 })) as CallResult;
    assert.ok(!(await run('a = 21')).isError);
    assert.ok(!(await run('print(a * 2)')).isError);

    assert.equal((await page.goto(panel.url))?.status(), 200);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    const restart = page.locator('#session-header').getByRole('button', { name: 'Restart' });
    await restart.click();
    await page.locator('#session-header').getByRole('button', { name: 'Confirm restart' }).click();
    // The clear shows in the log as a tool entry, its code the `%reset -f` the record re-runs.
    const cleared = page.locator('.entry.entry-tool[data-tool="restart"]');
    await cleared.waitFor({ timeout: 30_000 });
    assert.match((await cleared.locator('.entry-code').textContent()) ?? '', /from the control panel[^\n]*\n%reset -f/);
    // The panel's actions are the person's: the log names them as the console's cells are named.
    assert.equal(await cleared.locator('.entry-client').textContent(), 'You');

    const lost = await run('print(a)');
    assert.equal(lost.isError, true);
    assert.match(text(lost), /NameError/);
    assert.ok(!(await run('b = 5\nprint(b + 1)')).isError);

    const body = await page.evaluate(async () => (await fetch(document.querySelector<HTMLAnchorElement>('#export')!.href)).text());
    const path = join(stateDir, 'exported.ipynb');
    writeFileSync(path, body);
    const cells = rerun(path, stateDir);
    assert.deepEqual(
      cells.map((c) => c.tool ?? c.logged),
      ['ok', 'ok', 'restart', 'error', 'ok'],
      JSON.stringify(cells),
    );
    assertRerunsLikeTheSession(cells, /print\(a\)/);
  });
});

describe('a daemon restart is a boundary in the record', () => {
  let harness: Harness;

  before(async () => {
    harness = await createHarness();
  });

  after(async () => {
    await harness?.close();
    rmSync(harness.home, { recursive: true, force: true });
  });

  test('a = 1, the daemon stops, a new client runs b = 2 and print(a): the log and the notebook say the namespace started empty', { timeout: 300_000 }, async () => {
    const first = await harness.connect('first-client');
    assert.ok(!(await call(first, 'run_python', { code: 'a = 1' })).isError);
    await first.close();
    const stopped = await harness.cli('stop');
    assert.equal(stopped.code, 0, stopped.stderr);

    const second = await harness.connect('second-client');
    assert.ok(!(await call(second, 'run_python', { code: 'b = 2' })).isError);
    const lost = await call(second, 'run_python', { code: 'print(a)' });
    assert.equal(lost.isError, true);
    assert.match(text(lost), /NameError/);
    const path = join(harness.home, 'after-restart.ipynb');
    const exported = await call(second, 'export_notebook', { path });
    assert.ok(!exported.isError, text(exported));

    const cells = rerun(path, harness.home);
    assert.deepEqual(
      cells.map((c) => c.tool ?? c.logged),
      ['ok', 'new kernel', 'ok', 'error'],
      JSON.stringify(cells),
    );
    assert.match(cells[1].source, /a new kernel for this session[^\n]*\n%reset -f/);
    assertRerunsLikeTheSession(cells, /print\(a\)/);
  });
});
