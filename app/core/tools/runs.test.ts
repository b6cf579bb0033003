/**
 * The tools' waits on runs (run_python, wait_for_run) and helper calls on a busy session, against
 * the scripted in-memory kernel: coming back at wait_s with the output so far, picking a run up,
 * queueing behind a long run, and a caller's cancellation inside and after its wait.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKernel, FakeProvisioner, type FakeCell } from '../testing/fake-kernel.js';
import { waitFor, withDeadline } from '../testing/wait-for.js';
import { SessionManager } from '../sessions/session-manager.js';
import type { Session } from '../sessions/session.js';
import { Settings } from '../settings/settings.js';
import { helperResult } from './code-tools.js';
import { runPython, waitForRun, type Extra } from './runs.js';
import { FACTS_KEY, type ToolContext, type ToolResult } from './tool-context.js';

const text = (result: ToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('');
const facts = (result: ToolResult) => result._meta?.[FACTS_KEY] as Record<string, unknown>;

/** A call's request context: its cancellation, and no progress token. */
function call(): { extra: Extra; cancel: () => void } {
  const controller = new AbortController();
  return { extra: { signal: controller.signal, sendNotification: async () => undefined } as unknown as Extra, cancel: () => controller.abort() };
}

describe('run_python and wait_for_run over a scripted kernel', () => {
  let stateDir: string;
  let sessions: SessionManager;
  let provisioner: FakeProvisioner;
  let session: Session;
  let context: ToolContext;

  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-runs-'));
    const settings = new Settings(stateDir);
    sessions = new SessionManager({ stateDir, settings, env: {} });
    provisioner = new FakeProvisioner();
    session = sessions.adopt('default', await startFakeKernel(provisioner));
    context = {
      sessions,
      settings,
      stateDir,
      startedAt: Date.now(),
      clientName: () => 'test-client',
      clientFolder: async () => ({ path: stateDir, source: 'home', reason: 'a test' }),
      startDefaults: async () => ({}),
      formRoute: () => undefined,
      formRetry: () => undefined,
    } as ToolContext;
  });

  after(async () => {
    await sessions.shutdownAll();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** Starts run_python and hands back the call and the cell it sent. */
  async function start(code: string, waitS: number): Promise<{ answer: Promise<ToolResult>; cell: FakeCell; cancel: () => void }> {
    const { extra, cancel } = call();
    const answer = runPython(context, { code, wait_s: waitS }, extra);
    return { answer, cell: await provisioner.nextCell(), cancel };
  }

  test('a run going past wait_s comes back with its output so far and an id; wait_for_run picks it up and gets the whole result', async () => {
    const { answer, cell } = await start('long()', 0.05);
    cell.print('step 1\n');
    const first = await withDeadline(answer, 'the call to come back at wait_s');
    assert.ok(!first.isError);
    assert.match(text(first), /step 1\n/);
    assert.match(text(first), /\[Still running after .* \(run default-1\); this is not an error/);
    assert.deepEqual({ run: facts(first).run, status: facts(first).status }, { run: 'default-1', status: 'running' });
    cell.print('step 2\n');
    const look = await withDeadline(waitForRun(context, { wait_s: 0.05 }, call().extra), 'a look');
    assert.match(text(look), /step 2\n/);
    assert.doesNotMatch(text(look), /step 1/, 'each look has only what came since the last one');
    cell.print('done\n');
    cell.finish();
    const whole = await withDeadline(waitForRun(context, { run: 'default-1', wait_s: 5 }, call().extra), 'the result');
    assert.equal(text(whole), 'step 1\nstep 2\ndone\n');
    assert.equal(facts(whole).status, 'ok');
  });

  test('a run behind a long one says it has not started and what it waits behind; a helper call answers busy naming the run', async () => {
    const long = await start('fit()', 0.02);
    long.cell.begin();
    await withDeadline(long.answer, 'the long run to come back');
    const queued = await withDeadline(runPython(context, { code: 'after()', wait_s: 0.02 }, call().extra), 'the queued run to come back');
    assert.match(text(queued), /This code has not started yet \(run default-3\): it waits behind run default-2, running for .*: `fit\(\)`/);
    assert.equal(facts(queued).status, 'queued');
    context.settings.set('waitS', 0.05);
    const busy = await withDeadline(helperResult(context, 'default', 'list_names', {}), 'the helper call');
    context.settings.set('waitS', 45);
    assert.equal(busy.isError, true);
    assert.match(text(busy), /^The session is busy: run default-2 has been running for .* \(`fit\(\)`\), so this was not answered\. Call wait_for_run\(run="default-2"\)/);
    long.cell.finish();
    (await provisioner.nextCell()).finish();
    const done = await withDeadline(waitForRun(context, { run: 'default-3', wait_s: 5 }, call().extra), 'the queued run');
    assert.equal(facts(done).status, 'ok');
  });

  test('a caller that gives up inside its wait stops the run; one that gives up after it came back does not', async () => {
    const inside = await start('spin()', 5);
    inside.cell.begin();
    inside.cancel();
    const stopped = await withDeadline(inside.answer, 'the cancelled call');
    assert.equal(stopped.isError, true);
    assert.match(text(stopped), /KeyboardInterrupt/);
    const interrupts = provisioner.process.interrupts;

    const afterwards = await start('spin()', 0.02);
    afterwards.cell.begin();
    await withDeadline(afterwards.answer, 'the call to come back');
    afterwards.cancel();
    const picked = await withDeadline(waitForRun(context, { wait_s: 0.05 }, call().extra), 'a look');
    assert.match(text(picked), /Still running/);
    assert.equal(provisioner.process.interrupts, interrupts, 'no interrupt was sent');
    afterwards.cell.finish();
    await waitFor('the run to end', () => session.runs.latest()?.state === 'done');
  });
});
