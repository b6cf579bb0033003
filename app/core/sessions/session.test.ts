/**
 * Session, the one door to a session, against the scripted in-memory kernel (testing/fake-kernel.ts):
 * the run path, queueing, what holds the kernel, helper calls that answer busy, and every
 * namespace clear in the log whoever caused it.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKernel, FakeProvisioner, autoAnswer } from '../testing/fake-kernel.js';
import { nextEvent, waitFor, withDeadline } from '../testing/wait-for.js';
import { SessionLog } from './session-log.js';
import { Session } from './session.js';

const LIMIT = 10_000;

describe('Session over a scripted kernel', () => {
  let dir: string;
  let provisioner: FakeProvisioner;
  let session: Session;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ps-session-'));
    provisioner = new FakeProvisioner();
    session = new Session('s', dir, await startFakeKernel(provisioner), { path: '/fake/python', reason: 'a test' }, dir);
  });

  afterEach(async () => {
    await session.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  const clears = () => session.log.read().filter((e) => e.tool?.clearsNamespace);

  test('a run goes one way: queued, running (the facts say so), logged, settled', async () => {
    const handle = session.submit({ code: 'print(1)', client: 'c', outputLimit: LIMIT });
    assert.equal(handle.id, 's-1');
    const cell = await provisioner.nextCell();
    assert.equal(cell.code, 'print(1)', 'the code reaches the kernel as it was sent');
    cell.print('1\n');
    assert.equal(handle.state, 'running');
    assert.deepEqual(session.facts().running && { run: session.facts().running!.run, code: session.facts().running!.code, client: session.facts().running!.client }, { run: 's-1', code: 'print(1)', client: 'c' });
    assert.equal(session.facts().state, 'busy');
    cell.finish('ok', undefined, ['x']);
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'done');
    assert.equal(outcome.kind === 'done' && outcome.result.outputs.length, 1);
    assert.equal(session.facts().running, undefined, 'nothing holds the kernel after it');
    assert.equal(session.facts().variables, 1);
    const [entry] = session.log.read();
    assert.equal(entry.code, 'print(1)');
    assert.equal(entry.status, 'ok');
    assert.equal(outcome.entry.id, entry.id);
  });

  test('the panel is told the run ended before its entry is logged', async () => {
    const seen: string[] = [];
    session.on('changed', () => seen.push(session.facts().running ? 'changed:running' : 'changed:idle'));
    session.on('logged', () => seen.push(session.facts().running ? 'logged:running' : 'logged'));
    const handle = session.submit({ code: 'x', client: 'c', outputLimit: LIMIT });
    (await provisioner.nextCell()).finish();
    await handle.done;
    assert.ok(!seen.includes('logged:running'), seen.join(' '));
    assert.equal(seen.at(-1), 'changed:idle');
  });

  test('a run submitted while another goes waits behind it; the facts count it queued', async () => {
    const first = session.submit({ code: 'long()', client: 'a', outputLimit: LIMIT });
    const long = await provisioner.nextCell();
    long.begin();
    const second = session.submit({ code: 'short()', client: 'b', outputLimit: LIMIT });
    assert.equal(second.queuedBehind, first);
    assert.equal(second.state, 'queued');
    assert.equal(session.facts().queued, 1);
    assert.equal(session.runs.lastUnfinished(), second);
    long.finish();
    const short = await provisioner.nextCell();
    assert.equal(short.code, 'short()', 'the kernel got the queued run only after the first ended');
    short.finish();
    await second.done;
    assert.deepEqual(session.log.read().map((e) => e.code), ['long()', 'short()']);
  });

  test('a run cancelled while queued never reaches the kernel and fails its handle', async () => {
    const first = session.submit({ code: 'long()', client: 'a', outputLimit: LIMIT });
    const long = await provisioner.nextCell();
    long.begin();
    const second = session.submit({ code: 'never()', client: 'b', outputLimit: LIMIT });
    second.cancel();
    long.finish();
    await first.done;
    await assert.rejects(second.done, /Cancelled before it started/);
    assert.equal(second.state, 'done');
    assert.deepEqual(session.log.read().map((e) => e.code), ['long()']);
  });

  test('a helper call behind a long run answers busy after its wait, naming the run; it never reaches the kernel', async () => {
    const run = session.submit({ code: 'fit()', client: 'a', outputLimit: LIMIT });
    const fit = await provisioner.nextCell();
    fit.begin();
    const outcome = await session.helper('list_names', {}, { client: 'b', waitS: 0.05 });
    assert.equal(outcome.kind, 'busy');
    assert.equal(outcome.kind === 'busy' && outcome.busy.run, run.id);
    assert.equal(outcome.kind === 'busy' && outcome.busy.code, 'fit()');
    assert.deepEqual(session.runs.list('helper'), [], 'the call that gave up is forgotten');
    fit.finish();
    await run.done;
    autoAnswer(provisioner);
    const next = await session.run({ code: 'after()', client: 'a', outputLimit: LIMIT });
    assert.equal(next.kind, 'done', 'the kernel never saw the helper: the next run is the next cell');
  });

  test('a helper call is a run while it goes, and the plain code it returns is logged as a tool entry', async () => {
    const answering = session.helper('load_data', { path: 'x.csv' }, { client: 'b', waitS: 1 });
    const cell = await provisioner.nextCell();
    assert.equal(cell.storeHistory, false);
    assert.equal(session.runs.current()?.kind, 'helper', 'it holds the kernel');
    assert.equal(session.facts().running, undefined, 'the facts show code runs only');
    cell.answer({ ok: true, text: 'Loaded x', structured: null, code: "x = pd.read_csv('x.csv')", imports: ['import pandas as pd'], code_notes: { tool: 'load_data' } });
    cell.finish();
    const outcome = await answering;
    assert.equal(outcome.kind === 'answered' && outcome.answer.text, 'Loaded x');
    const [entry] = session.log.read();
    assert.equal(entry.kind, 'tool');
    assert.equal(entry.tool?.name, 'load_data');
    assert.equal(entry.client, 'b');
  });

  test('a restart asked for is logged as a clear, named by who asked', async () => {
    await session.restart('claude', 'restart_kernel');
    await session.restart('panel');
    const [tool, panel] = clears();
    assert.equal(tool.tool?.name, 'restart_kernel');
    assert.equal(tool.client, 'claude');
    assert.match(tool.code, /^# restart_kernel \(Python Session tool\): a fresh kernel[^\n]*\n%reset -f$/);
    assert.equal(panel.client, 'panel');
    assert.match(panel.code, /from the control panel/);
    assert.equal(provisioner.processes.length, 3);
  });

  test('an interrupt the code ignores escalates to a restart, recorded as a clear after the run', async () => {
    provisioner.ignoreInterrupts = true;
    const handle = session.submit({ code: 'blocking_c_call()', client: 'a', outputLimit: LIMIT });
    (await provisioner.nextCell()).begin();
    // The supervisor's own timers do not hold the process open: the deadline's does.
    const { restarted } = await withDeadline(session.interrupt('panel'), 'the escalated interrupt');
    assert.equal(restarted, true);
    const outcome = await handle.done;
    assert.equal(outcome.kind === 'done' && outcome.result.restarted, true);
    const entries = session.log.read();
    assert.deepEqual(entries.map((e) => e.kind ?? 'run'), ['run', 'tool']);
    assert.equal(entries[1].tool?.clearsNamespace, true);
    assert.equal(entries[1].client, 'panel');
    assert.match(entries[1].code, /ignored an interrupt, so the kernel was restarted/);
  });

  test('a timeout that escalates is recorded as a clear too, though nobody asked', async () => {
    provisioner.ignoreInterrupts = true;
    const handle = session.submit({ code: 'blocking_c_call()', client: 'a', outputLimit: LIMIT, timeoutS: 0.02 });
    (await provisioner.nextCell()).begin();
    const outcome = await withDeadline(handle.done, 'the run that timed out');
    assert.equal(outcome.kind === 'done' && outcome.entry.status, 'timeout');
    await waitFor('the clear to be logged', () => clears().length === 1);
    assert.match(clears()[0].code, /did not stop within/);
  });

  test('a death mid-run is logged once, as the died run (which is the clear); a fresh kernel takes over', async () => {
    const handle = session.submit({ code: 'crash()', client: 'a', outputLimit: LIMIT });
    (await provisioner.nextCell()).begin();
    const restarted = nextEvent(session, 'restarted', 'the replacement');
    provisioner.die();
    const outcome = await handle.done;
    assert.equal(outcome.kind, 'died');
    await restarted;
    assert.deepEqual(session.log.read().map((e) => e.status), ['died']);
    assert.equal(clears().length, 0, 'no second clear for the same death');
    autoAnswer(provisioner);
    const next = await session.run({ code: 'again()', client: 'b', outputLimit: LIMIT });
    assert.equal(next.kind, 'done');
  });

  test('a death while idle is logged as a clear once the kernel is replaced, and the next run of a client is told', async () => {
    autoAnswer(provisioner);
    await session.run({ code: 'a = 1', client: 'a', outputLimit: LIMIT });
    const restarted = nextEvent(session, 'restarted', 'the replacement');
    provisioner.die();
    await restarted;
    assert.equal(clears().length, 1);
    assert.match(clears()[0].code, /the kernel died \(/);
    const next = await session.run({ code: 'a', client: 'a', outputLimit: LIMIT });
    assert.equal(next.diedBefore?.times, 1);
  });

  test('a new kernel over a log an earlier kernel wrote starts with a clear, once', async () => {
    autoAnswer(provisioner);
    await session.run({ code: 'a = 1', client: 'a', outputLimit: LIMIT });
    await session.shutdown();
    const later = new FakeProvisioner();
    autoAnswer(later);
    session = new Session('s', dir, await startFakeKernel(later), undefined, dir);
    const entries = session.log.read();
    assert.deepEqual(entries.map((e) => e.tool?.name ?? e.code), ['a = 1', 'new kernel']);
    assert.equal(entries[1].tool?.clearsNamespace, true);
    await session.shutdown();
    session = new Session('s', dir, await startFakeKernel(new FakeProvisioner()), undefined, dir);
    assert.equal(new SessionLog(dir).read().length, 2, 'a log that already ends in a clear gets no second one');
  });
});
