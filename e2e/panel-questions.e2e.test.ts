/**
 * Code that asks the person, answered in the panel: an MCP client that declares no elicitation
 * (the SDK client of the stage) runs `input()` and `getpass.getpass()` while the panel is open in
 * Debian's Chromium, and the person answers on the running cell. The getpass answer is then looked
 * for everywhere it must not be: the page, the session's log, the exported notebook, the MCP
 * result. Screenshots of the question in the light and dark themes go to a temporary folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { text, type CallResult } from './support/mcp-harness.js';
import { NO_CHROMIUM, openRecordingPage, type RecordingPage } from './support/panel-browser.js';
import { startPanelStage, type PanelStage } from './support/panel-stage.js';

const WAIT = { timeout: 30_000 };

describe('code that asks, answered in the panel', { skip: NO_CHROMIUM }, () => {
  let stage: PanelStage;
  let client: Client;
  let recording: RecordingPage;
  let page: Page;
  const shots = mkdtempSync(join(tmpdir(), 'ps-question-shots-'));

  const run = (code: string) => client.callTool({ name: 'run_python', arguments: { code } }, undefined, { timeout: 120_000 }) as Promise<CallResult>;
  const question = () => page.locator('#log .entry-running .question');

  before(async () => {
    stage = await startPanelStage('panel-questions');
    client = stage.client;
    const first = await run('print("ready")');
    assert.equal(text(first), 'ready\n', JSON.stringify(first));
    recording = await openRecordingPage();
    page = recording.page;
    assert.equal((await page.goto(stage.panel.url))?.status(), 200);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live', undefined, WAIT);
    await page.locator('#log .entry').first().waitFor(WAIT);
  });

  after(async () => {
    await recording?.browser.close();
    await stage?.close();
    assert.deepEqual(recording?.pageErrors ?? [], [], 'the page threw no errors');
  });

  test('input(): the prompt on the running cell, the box takes the keyboard, "Ada" and Enter reach the code', { timeout: 120_000 }, async (t) => {
    const asking = run('name = input("Your name? ")\nprint(f"Hello, {name}!")');
    await question().waitFor(WAIT);
    assert.equal(await question().locator('label').textContent(), 'Your name? ');
    assert.match((await question().locator('.question-note').textContent()) ?? '', /Code run by panel-questions-client is waiting for your answer/);
    assert.equal(await question().locator('input').getAttribute('type'), 'text');
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('question-input')), true, 'the box has the keyboard');
    await page.locator('#session-list .question-waiting', { hasText: 'waiting for your answer' }).waitFor(WAIT);
    assert.match((await page.locator('#announcer').textContent()) ?? '', /asks “Your name\?” and is waiting for your answer/);

    // What the person sees, in both themes (looked at by hand; not compared).
    await page.screenshot({ path: join(shots, 'question-light.png') });
    await page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
    await page.screenshot({ path: join(shots, 'question-dark.png') });
    await page.evaluate(() => delete document.documentElement.dataset.theme);
    t.diagnostic(`screenshots in ${shots}`);

    await page.keyboard.type('Ada');
    await page.keyboard.press('Enter');
    const result = await asking;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), /Hello, Ada!/);
    await question().waitFor({ state: 'detached', ...WAIT });
    await page.locator('#session-list .question-waiting').waitFor({ state: 'detached', ...WAIT });
    assert.equal(text(await run('print(name == "Ada")')), 'True\n');
  });

  test('getpass: answered in a password box, and then in none of the page, the log, the notebook or the MCP result', { timeout: 120_000 }, async (t) => {
    const secret = 'pw-Zq8!vR2#kT';
    const asking = run('import getpass\npw = getpass.getpass("Password: ")\nprint("got", len(pw), "characters")');
    await question().waitFor(WAIT);
    assert.equal(await question().locator('input').getAttribute('type'), 'password');
    assert.match((await question().locator('.question-note').textContent()) ?? '', /not shown, logged or given to any client/);
    await page.screenshot({ path: join(shots, 'question-password-light.png') });
    t.diagnostic(`screenshots in ${shots}`);
    await question().locator('input').fill(secret);
    await question().getByRole('button', { name: 'Send' }).click();
    const result = await asking;
    assert.ok(!result.isError, text(result));
    assert.match(text(result), new RegExp(`got ${secret.length} characters`));
    await question().waitFor({ state: 'detached', ...WAIT });
    await page.locator('#log .entry[data-id]', { hasText: 'getpass' }).waitFor(WAIT);

    assert.ok(!JSON.stringify(result).includes(secret), 'not in the MCP result');
    const onPage = await page.evaluate(() => [document.documentElement.outerHTML, ...Array.from(document.querySelectorAll('input, textarea'), (i) => (i as HTMLInputElement).value)].join('\n'));
    assert.ok(!onPage.includes(secret), 'not in the page, nor in any box on it');
    assert.ok(!(await recording.allAnswers()).some((a) => a.includes(secret)), 'not in anything the daemon answered the page');
    assert.ok(!readFileSync(join(stage.services.sessions.get('default').dir, 'log.jsonl'), 'utf8').includes(secret), "not in the session's log");
    const notebook = await page.evaluate(async () => (await fetch(document.querySelector<HTMLAnchorElement>('#export')!.href)).text());
    assert.match(notebook, /getpass\.getpass/, 'the notebook has the cell');
    assert.ok(!notebook.includes(secret), 'not in the exported notebook');
  });

  test("Don't answer: the run ends with KeyboardInterrupt, the session goes on; the box does not take the keyboard from the console", { timeout: 120_000 }, async () => {
    // The person is typing a cell of their own when the question comes.
    const typing = page.locator('#console textarea');
    await typing.click();
    await page.keyboard.type('draft = 1');
    const asking = run('go_on = input("Go on? ")');
    await question().waitFor(WAIT);
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('console-input')), true, 'the keyboard stays where the person types');
    assert.equal(await typing.inputValue(), 'draft = 1');
    await question().getByRole('button', { name: 'Don’t answer' }).click();
    const result = await asking;
    assert.match(text(result), /KeyboardInterrupt/);
    await question().waitFor({ state: 'detached', ...WAIT });
    assert.equal(text(await run('print(1 + 1)')), '2\n', 'the session goes on');
  });

  test("the person's own cell asks: the box takes the keyboard from the console it was run from, and the answer reaches the code", { timeout: 120_000 }, async () => {
    const typing = page.locator('#console textarea');
    await typing.fill('colour = input("Colour? ")\nprint("colour is", colour)');
    await typing.press('Shift+Enter');
    await question().waitFor(WAIT);
    assert.match((await question().locator('.question-note').textContent()) ?? '', /^Your own cell is waiting for your answer/);
    await page.waitForFunction(() => document.activeElement?.classList.contains('question-input'), undefined, WAIT);
    await page.keyboard.type('teal');
    await page.keyboard.press('Enter');
    const entry = page.locator('#log .entry[data-id]', { hasText: 'colour is teal' });
    await entry.waitFor(WAIT);
    assert.equal(await entry.locator('.entry-client').textContent(), 'You');
    // The model is told the person ran a cell, then reads what it printed.
    assert.match(text(await run('print(colour)')), /the person ran 1 cell[^\n]*colour\.\nteal\n$/);
  });
});
