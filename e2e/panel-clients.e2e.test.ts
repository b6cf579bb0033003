/**
 * The panel's Clients view and Gemini CLI's folder trust, in Debian's Chromium against a real
 * daemon's services and panel in this process, with a home folder of the test's own: registering
 * Gemini CLI shows which folders it trusts, which of the folders it has run in it does not (where
 * it disables Python Session), and how to trust one; the real `gemini mcp list` agrees.
 *
 * Screenshots of the view land in e2e/artifacts/panel-clients-gemini{,-dark}.png (gitignored).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { createServices, type DaemonServices } from '../app/core/services.js';
import { startPanelServer, type PanelServer } from '../app/core/daemon/panel/server.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { geminiBinary, missingClient } from './clients/client-binaries.js';
import { loopbackNamespaceWorks } from './clients/network-namespace.js';
import { ARTIFACTS, NO_CHROMIUM, openRecordingPage } from './support/panel-browser.js';

describe("the Clients view tells Gemini CLI's folder trust, in Chromium", { skip: NO_CHROMIUM }, () => {
  let root: string;
  let home: string;
  let trustedProject: string;
  let untrustedProject: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  const card = () => page.locator('.client-card[data-client="gemini-cli"]');

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'ps-panel-clients-'));
    home = join(root, 'home');
    trustedProject = join(root, 'projects', 'survey');
    untrustedProject = join(root, 'projects', 'downloads');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(trustedProject, { recursive: true });
    mkdirSync(untrustedProject, { recursive: true });
    // As Gemini CLI leaves them: one folder trusted by its question, two folders it has run in.
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [trustedProject]: 'TRUST_FOLDER' }, null, 2));
    writeFileSync(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [trustedProject]: 'survey', [untrustedProject]: 'downloads' } }, null, 2));
    services = await createServices({ stateDir: join(root, 'state'), env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0' } });
    // Gemini CLI's system settings are the stage's too (none), not the machine's.
    const registration = { home, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(root, 'gemini-system-settings.json') } };
    panel = await startPanelServer({ services, host: '127.0.0.1', port: 0, registration });
    ({ browser, page, pageErrors } = await openRecordingPage());
  });

  after(async () => {
    try {
      await browser?.close();
      await panel?.close();
      await services?.shutdown();
    } finally {
      if (root) rmSync(root, { recursive: true, force: true });
    }
    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });

  test('registering Gemini CLI shows the trusted folders, the folder it disables Python Session in, and how to trust it', async () => {
    await page.goto(panel.url);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    await page.keyboard.press('3');
    await card().waitFor();
    assert.equal(await card().locator('.client-notes').count(), 0, 'nothing about trust before it is registered');

    await card().getByRole('button', { name: /^Register/ }).click();
    await page.waitForFunction(() => /Registered/.test(document.querySelector('.client-card[data-client="gemini-cli"] .client-state')?.textContent ?? ''));
    const notes = card().getByRole('note');
    await notes.waitFor();
    const lines = await notes.locator('p').allInnerTexts();
    assert.deepEqual(lines, [
      'Gemini CLI starts MCP servers only in folders you trust; in any other it lists Python Session as "Disabled".',
      `Trusted: ${trustedProject}, and the folders inside.`,
      `Gemini CLI has run in ${untrustedProject}, not trusted: Python Session is disabled there.`,
      `To trust it: start gemini in it and choose "Trust folder (downloads)" when it asks, or run /permissions trust in Gemini CLI there; or add "${untrustedProject}": "TRUST_FOLDER" to ${join(home, '.gemini', 'trustedFolders.json')}.`,
    ]);
    const settings = JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'));
    assert.ok(settings.mcpServers['python-session'], 'the entry was written');
    // The notes stay inside the card, long paths and all.
    // Measured in the page in one go: the card may be drawn again (a status refresh) between two
    // separate looks, and a box looked for while it is replaced is none (seen once under load).
    const fits = await page.waitForFunction(() => {
      const drawn = document.querySelector('.client-card[data-client="gemini-cli"]');
      const box = drawn?.querySelector('.client-notes');
      if (!drawn || !box || !box.getBoundingClientRect().width) return null;
      return { notesRight: box.getBoundingClientRect().right, cardRight: drawn.getBoundingClientRect().right };
    });
    const { notesRight, cardRight } = (await fits.jsonValue())!;
    assert.ok(notesRight <= cardRight, `the notes fit in the card (notes end at ${notesRight}, the card at ${cardRight})`);
    // Full-page screenshots need no scroll to the card (which a refresh may be drawing again).
    await page.screenshot({ path: join(ARTIFACTS, 'panel-clients-gemini.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(ARTIFACTS, 'panel-clients-gemini-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('the real gemini mcp list agrees: Python Session is Disabled in the folder the view names', { skip: missingClient('gemini') }, async (t) => {
    const gemini = geminiBinary()!;
    const args = [...gemini.prefix, 'mcp', 'list'];
    const [program, argv] = loopbackNamespaceWorks()
      ? ['unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', gemini.command, ...args]]
      : [gemini.command, args];
    const listed = await new Promise<string>((resolve, reject) => {
      const child = spawn(program, argv, {
        cwd: untrustedProject,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(root, 'gemini-system-settings.json') },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(stripVTControlCharacters(out)) : reject(new Error(`gemini mcp list exited ${code}:\n${out}`))));
    });
    t.diagnostic(`${gemini.describe} mcp list in ${untrustedProject}:\n${listed}`);
    assert.match(listed, /^\S+ python-session: .* \(stdio\) - Disabled$/m);
  });

  test('Remove takes the notes away with the entry', async () => {
    await card().getByRole('button', { name: /^Remove/ }).click();
    await page.waitForFunction(() => /Not registered/.test(document.querySelector('.client-card[data-client="gemini-cli"] .client-state')?.textContent ?? ''));
    assert.equal(await card().locator('.client-notes').count(), 0);
  });
});
