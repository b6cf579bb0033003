/**
 * Remote Jupyter servers in the control panel, in Debian's Chromium against a real daemon
 * (services + panel server in this process) and a real Jupyter Server on loopback: a server is
 * added through the form, listed without its token, and removed; a session started on it says
 * it runs "on <name>" in the sessions list, next to a local one that says "local".
 *
 * A screenshot of the Servers view lands in e2e/artifacts/ (gitignored).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { DaemonServices } from '../app/core/services.js';
import type { PanelServer } from '../app/core/daemon/panel/server.js';
import { jupyterServerAvailable, type TestJupyterServer } from '../app/core/remote/testing/jupyter-server.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { ARTIFACTS, NO_CHROMIUM, openRecordingPage } from './support/panel-browser.js';
import { startRemotePanelStage, type RemotePanelStage } from './support/remote-panel-stage.js';

// Skipped on a developer machine without the server; in CI (CI=true) a missing server fails the run instead.
const skip = NO_CHROMIUM || (jupyterServerAvailable() || process.env.CI ? false : 'needs python3-jupyter-server (apt-get install python3-jupyter-server)');

describe('remote Jupyter servers in the panel, in Chromium', { skip }, () => {
  let stage: RemotePanelStage;
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let jupyter: TestJupyterServer;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let allAnswers: () => Promise<string[]>;

  const row = (name: string) => page.locator(`#server-rows tr[data-server="${name}"]`);
  const formError = () => page.locator('#server-form-error');
  const fillForm = async (name: string, url: string, token?: string) => {
    await page.fill('#server-name', name);
    await page.fill('#server-url', url);
    if (token !== undefined) await page.fill('#server-token', token);
  };
  const submit = () => page.locator('#server-form').getByRole('button', { name: 'Add server' }).click();

  before(async () => {
    stage = await startRemotePanelStage('ps-panel-servers-e2e-');
    ({ stateDir, services, panel, jupyter } = stage);
    ({ browser, page, pageErrors, allAnswers } = await openRecordingPage());
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await stage?.close();
    }
    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });

  test('the Servers view opens from the keyboard, with no servers yet', async () => {
    await page.goto(panel.url);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    await page.keyboard.press('4');
    await page.locator('#view-servers').waitFor();
    assert.equal(await page.getAttribute('#nav-servers', 'aria-current'), 'page');
    await page.locator('#server-rows', { hasText: 'No servers yet' }).waitFor();
    assert.equal(await page.getAttribute('#server-token', 'type'), 'password');
  });

  test("a bad URL is refused with the daemon's message next to the form, keeping what was typed", async () => {
    await fillForm('lab', 'not a url', jupyter.token);
    await submit();
    await formError().waitFor();
    assert.match(await formError().innerText(), /"not a url" is not a URL\. Give the Jupyter server's address/);
    assert.deepEqual(services.sessions.servers.list(), [], 'nothing saved');
    assert.equal(await page.inputValue('#server-url'), 'not a url', 'the fields keep their text to be corrected');
  });

  test('adds a server: listed with its URL and "stored", checked, and its token nowhere on the page', async () => {
    await page.fill('#server-url', jupyter.url);
    const added = page.waitForResponse((r) => r.url().endsWith('/api/servers') && r.request().method() === 'POST');
    const reloaded = page.waitForResponse((r) => r.url().endsWith('/api/servers') && r.request().method() === 'GET');
    await submit();
    await Promise.all([added, reloaded]);
    await row('lab').waitFor();
    assert.equal(await formError().isVisible(), false, 'the earlier error is gone');
    const note = page.locator('#server-form-note');
    await note.waitFor();
    assert.match(await note.innerText(), /^Added "lab" \(token saved, owner-only\)\. It answers: kernelspecs python3\.$/);
    assert.equal(await row('lab').locator('td').nth(1).innerText(), jupyter.url);
    assert.equal(await row('lab').locator('.server-token').innerText(), 'stored');
    await row('lab').locator('.server-status', { hasText: 'answers' }).waitFor();
    assert.match(await row('lab').locator('.server-status').innerText(), /kernelspecs: python3 \(default\)/);
    await page.screenshot({ path: join(ARTIFACTS, 'panel-servers.png') });

    assert.equal(await page.inputValue('#server-token'), '', 'the token field is cleared once saved');
    assert.ok(!(await page.content()).includes(jupyter.token), 'the token is not in the page');
    const seen = await allAnswers();
    assert.ok(seen.some((text) => text.includes('"hasToken":true')), 'the answers that could have held it were read');
    for (const text of seen) assert.ok(!text.includes(jupyter.token), `the token came back in: ${text}`);
    assert.equal(services.sessions.servers.get('lab').revealToken(), jupyter.token, 'and it was stored');
    assert.ok(readFileSync(join(stateDir, 'servers.json'), 'utf8').includes(jupyter.token));
  });

  test('a second server of the same name is refused', async () => {
    await fillForm('lab', 'http://127.0.0.1:1/');
    await submit();
    await formError().waitFor();
    assert.match(await formError().innerText(), /A server named "lab" already exists/);
    assert.equal(services.sessions.servers.get('lab').url, jupyter.url, 'the first one is unchanged');
    await page.fill('#server-name', '');
    await page.fill('#server-url', '');
  });

  test('each session says where it runs: "on lab" for one on the server, "local" with its interpreter here', async () => {
    await services.sessions.start('here', {});
    await services.sessions.startRemote('far', { server: 'lab' });
    // The Servers view lists the session running there as it appears.
    await row('lab').locator('.server-sessions', { hasText: 'far' }).waitFor();
    await page.click('#nav-sessions');
    const where = (name: string) => page.locator(`.session-item[data-session="${name}"] .session-where`);
    await where('far').waitFor();
    assert.equal(await where('far').innerText(), 'on lab');
    assert.equal(await where('far').getAttribute('data-where'), 'remote');
    assert.equal(await where('here').innerText(), `local · ${TEST_PYTHON}`);
    assert.equal(await where('here').getAttribute('data-where'), 'local');
    await page.screenshot({ path: join(ARTIFACTS, 'panel-servers-sessions.png') });
    await page.click('.session-item[data-session="far"]');
    await page.locator('#session-header h2', { hasText: 'far' }).waitFor();
    const facts = await page.locator('#session-header .facts').innerText();
    assert.match(facts, /WHERE\s+on lab/i);
    assert.match(facts, /kernelspec "python3" on lab \(http:\/\/127\.0\.0\.1:\d+\/\)/);
  });

  test('removes the server in two clicks; the session there keeps running', async () => {
    await page.click('#nav-servers');
    const remove = row('lab').getByRole('button', { name: 'Remove' });
    await remove.click();
    const confirm = row('lab').getByRole('button', { name: 'Confirm remove' });
    await confirm.click();
    await page.waitForFunction(() => !document.querySelector('#server-rows tr[data-server="lab"]'));
    await page.locator('#server-rows', { hasText: 'No servers yet' }).waitFor();
    await page.locator('.toast', { hasText: 'Removed server "lab". Kernels running there were not touched. Session "far" still runs there until it ends.' }).waitFor();
    assert.deepEqual(services.sessions.servers.list(), []);
    assert.ok(!readFileSync(join(stateDir, 'servers.json'), 'utf8').includes(jupyter.token), 'the token went with it');
    const far = services.sessions.get('far');
    const outcome = await far.run({ code: '6 * 7', client: 'e2e', outputLimit: 1000 });
    assert.ok(outcome.kind === 'done' && outcome.result.error === undefined, 'the session on it still runs code');
    for (const text of await allAnswers()) assert.ok(!text.includes(jupyter.token), `the token came back in: ${text}`);
  });
});
