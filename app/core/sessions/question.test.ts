/**
 * Questions the code asks (input(), getpass), against the scripted kernel: who may answer, when
 * a question is given up for want of anyone to answer it, and that no view of it carries the answer.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKernel, FakeProvisioner, type FakeCell } from '../testing/fake-kernel.js';
import { withDeadline } from '../testing/wait-for.js';
import { NOT_AN_ANSWER } from '../kernel/messaging/input-replies.js';
import { PANEL_CLIENT } from './parties.js';
import { Session } from './session.js';

const LIMIT = 10_000;

describe('questions the code asks', () => {
  let dir: string;
  let provisioner: FakeProvisioner;
  let session: Session;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ps-question-'));
    provisioner = new FakeProvisioner();
    session = new Session('s', dir, await startFakeKernel(provisioner), { path: '/fake/python', reason: 'a test' }, dir);
  });

  afterEach(async () => {
    await session.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Submits code, ties a waiting caller to it (as a tool call does), and returns its cell. */
  async function running(client = 'claude-code', waiting = true): Promise<{ cell: FakeCell; untie: () => void; handle: ReturnType<Session['submit']> }> {
    const handle = session.submit({ code: 'name = input("Your name? ")', client, outputLimit: LIMIT });
    const untie = waiting ? handle.tieTo(undefined) : () => undefined;
    const cell = await provisioner.nextCell();
    cell.begin();
    return { cell, untie, handle };
  }

  test('code runs with stdin allowed; helper calls without it', async () => {
    const { cell, untie } = await running();
    assert.equal(cell.allowsStdin, true);
    cell.finish();
    untie();
    const helper = session.helper('list_names', {}, { client: 'c', waitS: 5 });
    const helperCell = await provisioner.nextCell();
    assert.equal(helperCell.allowsStdin, false, 'a helper call never asks the person anything');
    helperCell.answer({ ok: true, text: 'none', structured: {} });
    helperCell.finish();
    await helper;
  });

  test('answered in the panel: the kernel gets the line; the facts show the question, never the answer', async () => {
    const { cell, untie, handle } = await running();
    const answer = cell.ask('Your name? ');
    const view = session.facts().question;
    assert.ok(view, 'the open question is in the facts');
    assert.equal(view.prompt, 'Your name? ');
    assert.equal(view.run, handle.id);
    assert.equal(view.client, 'claude-code');
    assert.equal(session.answerQuestion('not-it', { action: 'accept', value: 'x' }, PANEL_CLIENT), 'gone', 'only the open question is answered');
    assert.equal(session.answerQuestion(view.id, { action: 'accept', value: 'Ada' }, PANEL_CLIENT), 'answered');
    assert.equal(await answer, 'Ada');
    assert.equal(session.facts().question, undefined, 'answered: no longer open');
    assert.equal(session.answerQuestion(view.id, { action: 'accept', value: 'again' }, PANEL_CLIENT), 'gone', 'answered once');
    assert.ok(!JSON.stringify(session.facts()).includes('Ada'));
    cell.finish();
    untie();
    await handle.done;
  });

  test('declining tells the kernel so, with who declined (it raises KeyboardInterrupt there)', async () => {
    const { cell, untie, handle } = await running();
    const answer = cell.ask('Password: ', true);
    const view = session.facts().question!;
    assert.equal(view.password, true);
    assert.equal(session.answerQuestion(view.id, { action: 'decline' }, PANEL_CLIENT), 'declined');
    const sent = await answer;
    assert.ok(sent.startsWith(`${NOT_AN_ANSWER}declined:`), sent);
    assert.match(sent, /the person declined in the panel: no answer to "Password: "/);
    cell.raise('KeyboardInterrupt');
    untie();
    await handle.done;
  });

  test('an answer that looks like one of our replies reaches the code as typed, not as a refusal', async () => {
    const { cell, untie, handle } = await running();
    const answer = cell.ask('? ');
    session.answerQuestion(session.facts().question!.id, { action: 'accept', value: `${NOT_AN_ANSWER}declined:x` }, PANEL_CLIENT);
    assert.ok(!(await answer).startsWith(NOT_AN_ANSWER));
    cell.finish();
    untie();
    await handle.done;
  });

  test('nobody waiting, no form, no panel: the code gets EOFError at once, saying why', async () => {
    const { cell, handle } = await running('claude-code', false);
    const sent = await withDeadline(cell.ask('Your name? '), 'the refusal');
    assert.ok(sent.startsWith(`${NOT_AN_ANSWER}unanswered:`), sent);
    assert.match(sent, /"Your name\? " got no answer: .*no panel was open/);
    cell.raise('EOFError');
    await handle.done;
  });

  test("a client's form holds it open after the call's wait; once the form closes unanswered, EOFError", async () => {
    const { cell, untie, handle } = await running();
    let settled = false;
    let release!: () => void;
    // As a call whose client shows forms does: it holds the question the moment it is asked.
    handle.once('question', (question) => (release = question.hold()));
    const answer = cell.ask('Your name? ').finally(() => (settled = true));
    const question = handle.question!;
    untie();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "a client's form is on screen: still open after the call's wait");
    release();
    const sent = await withDeadline(answer, 'the refusal once nobody can answer');
    assert.ok(sent.startsWith(`${NOT_AN_ANSWER}unanswered:`));
    assert.equal(question.end, 'unanswered');
    cell.raise('EOFError');
    await handle.done;
  });

  test('a caller that cannot show a form does not keep it open: nobody could answer while it waits', async () => {
    const { cell, untie, handle } = await running();
    const sent = await withDeadline(cell.ask('Your name? '), 'the refusal');
    assert.ok(sent.startsWith(`${NOT_AN_ANSWER}unanswered:`));
    cell.raise('EOFError');
    untie();
    await handle.done;
  });

  test('with a panel open, or code the person sent from the panel, the question waits for the person', async () => {
    session.presence = () => true;
    const first = await running('claude-code', false);
    const answer = first.cell.ask('Your name? ');
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(session.facts().question, 'a panel is open: it waits there');
    session.answerQuestion(session.facts().question!.id, { action: 'accept', value: 'Ada' }, PANEL_CLIENT);
    assert.equal(await answer, 'Ada');
    first.cell.finish();
    await first.handle.done;

    session.presence = () => false;
    const own = await running(PANEL_CLIENT, false);
    const ownAnswer = own.cell.ask('Sure? ');
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(session.facts().question, "the person's own cell asks the person");
    session.answerQuestion(session.facts().question!.id, { action: 'accept', value: 'y' }, PANEL_CLIENT);
    assert.equal(await ownAnswer, 'y');
    own.cell.finish();
    await own.handle.done;
  });

  test('an interrupt while the code waits for an answer closes the question with the run', async () => {
    session.presence = () => true;
    const { cell, untie, handle } = await running();
    void cell.ask('Your name? ');
    const question = handle.question!;
    await session.interrupt('panel');
    await handle.done;
    untie();
    assert.equal(question.end, 'ended');
    assert.equal(session.facts().question, undefined);
    assert.equal(cell.isDone, true);
  });
});
