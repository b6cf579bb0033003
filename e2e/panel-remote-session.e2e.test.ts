/**
 * Starting a session on a remote Jupyter server from the panel's New-session dialog, in Debian's
 * Chromium against a real daemon (services + panel server in this process), a real Jupyter
 * Server on loopback, and an MCP client: the server is added in the Servers view, picked in the
 * dialog with its default kernelspec, started, listed "on <name>", and then runs code sent over
 * MCP. A server that does not answer says so in the dialog. The token never reaches the page.
 *
 * A screenshot of the dialog lands in e2e/artifacts/ (gitignored).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Browser, Page } from 'playwright-core';
import { createMcpServer } from '../app/core/mcp/server.js';
import type { DaemonServices } from '../app/core/services.js';
import type { PanelServer } from '../app/core/daemon/panel/server.js';
import { freePort, jupyterServerAvailable, type TestJupyterServer } from '../app/core/remote/testing/jupyter-server.js';
import { ARTIFACTS, NO_CHROMIUM, openRecordingPage } from './support/panel-browser.js';
import { startRemotePanelStage, type RemotePanelStage } from './support/remote-panel-stage.js';

// Skipped on a developer machine without the server; in CI (CI=true) a missing server fails the run instead.
const skip = NO_CHROMIUM || (jupyterServerAvailable() || process.env.CI ? false : 'needs python3-jupyter-server (apt-get install python3-jupyter-server)');

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };

describe('a new session on a remote Jupyter server, from the panel, in Chromium', { skip }, () => {
  let stage: RemotePanelStage;
  let services: DaemonServices;
  let panel: PanelServer;
  let jupyter: TestJupyterServer;
  let client: Client;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let allAnswers: () => Promise<string[]>;

  const dialog = () => page.locator('#dialog-new');
  const openDialog = async () => {
    await page.click('#new-session');
    await dialog().locator('#new-where').waitFor();
  };
  /** Picks where the session runs once the servers are listed in the dialog. */
  const pickPlace = async (server: string) => {
    await dialog().locator(`#new-where option[value="${server}"]`).waitFor({ state: 'attached' });
    await page.selectOption('#new-where', server);
  };

  before(async () => {
    stage = await startRemotePanelStage('ps-panel-remote-session-e2e-');
    ({ services, panel, jupyter } = stage);

    const server = createMcpServer(services, { id: 'e2e' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    client = new Client({ name: 'e2e-client', version: '1.0.0' });
    await client.connect(clientTransport);

    ({ browser, page, pageErrors, allAnswers } = await openRecordingPage());
  });

  after(async () => {
    try {
      await browser?.close();
      await client?.close();
    } finally {
      await stage?.close();
    }
    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });

  test('a server is added in the Servers view', async () => {
    await page.goto(panel.url);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    await page.click('#nav-servers');
    await page.fill('#server-name', 'lab');
    await page.fill('#server-url', jupyter.url);
    await page.fill('#server-token', jupyter.token);
    await page.locator('#server-form').getByRole('button', { name: 'Add server' }).click();
    await page.locator('#server-rows tr[data-server="lab"] .server-status', { hasText: 'answers' }).waitFor();
    // A second one where nothing listens, for the dialog's error.
    services.sessions.servers.add({ name: 'down', url: `http://127.0.0.1:${await freePort()}/` });
    await page.click('#nav-sessions');
  });

  test("the dialog says so when the picked server does not answer, and keeps the dialog open on Start", async () => {
    await openDialog();
    await pickPlace('down');
    const specError = dialog().locator('#new-kernelspec-error');
    await specError.waitFor();
    assert.match(await specError.innerText(), /^Cannot reach the Jupyter server down \(http:\/\/127\.0\.0\.1:\d+\/\): nothing is listening there \(connection refused\)/);
    await page.fill('#new-name', 'nowhere');
    await dialog().getByRole('button', { name: 'Start' }).click();
    const formError = dialog().locator('.form > .form-error');
    await formError.waitFor();
    assert.match(await formError.innerText(), /Cannot reach the Jupyter server down .*nothing is listening there/);
    assert.ok(await dialog().isVisible(), 'the dialog stays open, with what was chosen');
    assert.equal(await page.inputValue('#new-where'), 'down');
    assert.equal(services.sessions.find('nowhere'), undefined);
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'hidden' });
  });

  test("picking the server offers its kernelspecs, its default chosen, in place of the interpreters", async () => {
    await openDialog();
    assert.equal(await page.inputValue('#new-where'), '', 'this machine first');
    assert.ok(await dialog().locator('#new-interpreter').isVisible());
    assert.equal(await dialog().locator('#new-kernelspec').isVisible(), false);
    await pickPlace('lab');
    await dialog().locator('#new-kernelspec option[value="python3"]').waitFor({ state: 'attached' });
    assert.equal(await page.inputValue('#new-kernelspec'), 'python3', "the server's default is chosen");
    assert.match(await dialog().locator('#new-kernelspec option[value="python3"]').innerText(), /\(python3\) · default/);
    assert.equal(await dialog().locator('#new-interpreter').isVisible(), false, 'no local interpreter for a remote session');
    assert.equal(await dialog().locator('#new-kernelspec-error').isVisible(), false);
    assert.match(await dialog().locator('#new-cwd-hint').innerText(), /relative to its root/);
    await page.screenshot({ path: join(ARTIFACTS, 'panel-new-remote-session.png') });
  });

  test('starting it lists the session "on lab"', async () => {
    await page.fill('#new-name', 'far');
    await dialog().getByRole('button', { name: 'Start' }).click();
    await dialog().waitFor({ state: 'hidden', timeout: 120_000 });
    const where = page.locator('.session-item[data-session="far"] .session-where');
    await where.waitFor();
    assert.equal(await where.innerText(), 'on lab');
    assert.equal(await where.getAttribute('data-where'), 'remote');
    await page.locator('.toast', { hasText: 'Started far on lab.' }).waitFor();
    await page.locator('#session-header h2', { hasText: 'far' }).waitFor();
    assert.match(await page.locator('#session-header .facts').innerText(), /kernelspec "python3" on lab \(http:\/\/127\.0\.0\.1:\d+\/\)/);
    const place = services.sessions.get('far').facts().place;
    assert.ok(place.kind === 'remote');
    assert.equal(place.serverName, 'lab');
  });

  test('an MCP client runs code in it, and the run shows in the panel', async () => {
    const result = (await client.callTool({ name: 'run_python', arguments: { session: 'far', code: "where = 'remote'\nprint(where.upper())\n6 * 7" } }, undefined, { timeout: 120_000 })) as ToolResult;
    assert.ok(!result.isError, JSON.stringify(result));
    assert.equal(result.content.map((c) => c.text ?? '').join(''), 'REMOTE\n42\n');
    const entry = page.locator('.entry:not(.entry-running)', { hasText: "where = 'remote'" });
    await entry.waitFor();
    assert.match((await entry.textContent()) ?? '', /REMOTE/);
  });

  test('the token never reached the page', async () => {
    assert.ok(!(await page.content()).includes(jupyter.token), 'the token is not in the page');
    const seen = await allAnswers();
    assert.ok(seen.some((text) => text.includes('"kernelspecs"')), 'the kernelspec answers were read');
    for (const text of seen) assert.ok(!text.includes(jupyter.token), `the token came back in: ${text}`);
  });
});
