/**
 * Runs that outlive a client's patience (issue 14), through the built command: the call comes
 * back at wait_s with what was printed so far, the run goes on in the daemon, and any client picks
 * it up with wait_for_run. The runs here block on files the test creates, so every step waits on
 * an event the test controls, never on time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';

/** Python that blocks until the test creates `path`. */
const until = (path: string) => `while not os.path.exists(${JSON.stringify(path)}): time.sleep(0.02)`;

describe('long runs: the call comes back, the run goes on', () => {
  let harness: Harness;
  let first: Client;
  let second: Client;
  let gates: string;
  let gate = 0;
  const newGate = () => join(gates, `gate-${++gate}`);
  const open = (path: string) => writeFile(path, '');

  /** Looks at a run until what came back (after `seen`, already read), added up, matches. */
  async function lookUntil(client: Client, run: string, pattern: RegExp, seen = ''): Promise<{ seen: string; last: CallResult }> {
    for (let look = 0; look < 200; look++) {
      const last = await call(client, 'wait_for_run', { run, wait_s: 0.5 });
      seen += text(last);
      if (pattern.test(seen)) return { seen, last };
    }
    throw new Error(`run ${run} never printed ${pattern}; seen: ${seen}`);
  }

  before(async () => {
    // Helper calls on a busy session answer within PYTHON_MCP_WAIT.
    harness = await createHarness({ PYTHON_MCP_WAIT: '1' });
    first = await harness.connect('first-client');
    second = await harness.connect('second-client');
    gates = await mkdtemp(join(tmpdir(), 'ps-gates-'));
    await call(first, 'run_python', { code: 'import os, time' });
  });
  after(async () => {
    // A failed test must not leave a run blocking the next ones' session.
    await Promise.all(Array.from({ length: gate }, (_, i) => open(join(gates, `gate-${i + 1}`))));
    await harness.close();
  });

  test('a run still going at wait_s comes back with its output so far and an id, and is not an error', async () => {
    const release = newGate();
    const reply = await call(first, 'run_python', { code: `print('started')\n${until(release)}\nprint('done')\n6 * 7`, wait_s: 0.5 });
    assert.equal(reply.isError, undefined, text(reply));
    assert.match(text(reply), /Still running after .* \(run default-\d+\); this is not an error/);
    assert.match(text(reply), /wait_for_run\(run="default-\d+"\)/);
    assert.match(text(reply), /interrupt_kernel/);
    const run = reply.facts?.run as string;
    assert.equal(reply.structuredContent, undefined);

    const status = text(await call(second, 'python_status'));
    assert.match(status, new RegExp(`running run ${run} for \\d+ s, no caller waiting`), status);

    await open(release);
    const done = await call(second, 'wait_for_run', { run, wait_s: 60 });
    assert.equal(done.isError, undefined, text(done));
    assert.match(text(done), /started\n(.|\n)*done\n42\n/, 'the whole result, in run_python\'s format, for another client');
  });

  test('wait_for_run gives what arrived since the last look while the run goes on', async () => {
    const middle = newGate();
    const end = newGate();
    const reply = await call(first, 'run_python', { code: `print('one')\n${until(middle)}\nprint('two')\n${until(end)}\nprint('three')`, wait_s: 0.2 });
    const run = reply.facts?.run as string;
    const { seen } = await lookUntil(first, run, /one/, text(reply));
    assert.doesNotMatch(seen, /two/);
    await open(middle);
    const later = await lookUntil(first, run, /two/);
    assert.doesNotMatch(later.seen, /one/, 'output already looked at is not sent again');
    await open(end);
    const whole = await call(first, 'wait_for_run', { run, wait_s: 60 });
    assert.equal(text(whole), 'one\ntwo\nthree\n');
    const log = (await readFile(join(harness.home, 'sessions', 'default', 'log.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(log.filter((entry) => typeof entry.code === 'string' && entry.code.includes("print('three')")).length, 1, 'the log holds the run once, however many looks');
  });

  test('later calls queue behind the run, say so, and come back at their own wait_s', async () => {
    const release = newGate();
    const long = await call(first, 'run_python', { code: `${until(release)}\n'long done'`, wait_s: 0.2 });
    const front = long.facts?.run as string;
    const queued = await call(second, 'run_python', { code: '1 + 1', wait_s: 0.2 });
    assert.equal(queued.isError, undefined);
    assert.match(text(queued), new RegExp(`has not started yet \\(run default-\\d+\\): it waits behind run ${front}`));
    const busy = await call(second, 'list_names');
    assert.equal(busy.isError, true);
    assert.match(text(busy), new RegExp(`busy: run ${front} has been running`));
    await open(release);
    const answer = await call(second, 'wait_for_run', { run: queued.facts?.run, wait_s: 60 });
    assert.match(text(answer), new RegExp(`waited .* in the queue behind run ${front}`));
    assert.match(text(answer), /\n2\n$/);
    // The other client's cell ran meanwhile: the reply opens with the line that says so (mcp/told-line.ts).
    assert.match(text(await call(first, 'wait_for_run', { run: front, wait_s: 60 })), /^Since your last call, second-client ran 1 cell \(In \[\d+\]\)[^\n]*\.\n'long done'\n$/);
  });

  test('a caller that gives up inside its wait stops the run; one that already came back does not', async () => {
    const never = newGate();
    const cancel = new AbortController();
    const cancelled = call(first, 'run_python', { code: `print('waiting')\n${until(never)}`, wait_s: 60 }, { signal: cancel.signal });
    const run = await waitForRunning(second);
    cancel.abort();
    await assert.rejects(cancelled);
    const stopped = await call(second, 'wait_for_run', { run, wait_s: 60 });
    assert.match(text(stopped), /KeyboardInterrupt|Interrupted/);

    const release = newGate();
    const back = await call(first, 'run_python', { code: `${until(release)}\n'kept going'`, wait_s: 0.2 });
    const looker = new AbortController();
    const look = call(second, 'wait_for_run', { run: back.facts?.run, wait_s: 60 }, { signal: looker.signal });
    await waitForRunning(first);
    looker.abort();
    await assert.rejects(look);
    await open(release);
    assert.equal(text(await call(first, 'wait_for_run', { run: back.facts?.run, wait_s: 60 })), "'kept going'\n", 'a look that gave up did not stop it');
  });

  test('interrupt_kernel stops a run nobody waits for, and the variables stay', async () => {
    await call(first, 'run_python', { code: 'kept = 5' });
    const never = newGate();
    const reply = await call(first, 'run_python', { code: `print('background')\n${until(never)}`, wait_s: 0.2 });
    assert.match(text(reply), /Still running/);
    await lookUntil(second, reply.facts?.run as string, /Still running/);
    assert.match(text(await call(second, 'interrupt_kernel')), /Interrupted; the session keeps its variables/);
    const stopped = await call(first, 'wait_for_run', { run: reply.facts?.run, wait_s: 60 });
    assert.match(text(stopped), /KeyboardInterrupt/);
    assert.equal((await call(first, 'get_value', { expression: 'kept' })).structuredContent?.value, 5);
  });

  test('timeout_s interrupts the run at its limit with no caller waiting', async () => {
    const never = newGate();
    const reply = await call(first, 'run_python', { code: `print('before the limit')\n${until(never)}`, timeout_s: 1, wait_s: 0.1 });
    const result = await call(second, 'wait_for_run', { run: reply.facts?.run, wait_s: 60 });
    assert.equal(result.isError, true);
    assert.match(text(result), /before the limit\n(.|\n)*Timed out after 1 s/);
  });

  test('wait_for_run without an id takes the latest run; an unknown id lists the runs it could mean', async () => {
    await call(first, 'run_python', { code: "'latest'" });
    assert.match(text(await call(second, 'wait_for_run', {})), /^Since your last call, first-client ran \d+ cells? [^\n]*\n'latest'\n$/);
    const unknown = await call(second, 'wait_for_run', { run: 'default-999' });
    assert.equal(unknown.isError, true);
    assert.match(text(unknown), /No run "default-999"\. The runs it could mean:\n {2}default-\d+: finished/);
  });

  /** The id of the default session's run once the kernel is running it (seen by another client). */
  async function waitForRunning(client: Client): Promise<string> {
    for (let look = 0; look < 500; look++) {
      const status = text(await call(client, 'kernel_status'));
      const id = status.match(/running run (default-\d+) for \d+ s, 1 call waiting/)?.[1];
      if (id) return id;
    }
    throw new Error('the run never started');
  }
});
