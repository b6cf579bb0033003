/**
 * Issue #4 end to end: the MCP SDK's real Client over stdio against the built
 * command (shim → daemon → ipykernel), every tool.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { cellGate } from '../app/core/testing/cell-gate.js';
import { TEST_PYTHON, isAlive } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';
import { leftovers } from './support/proc.js';

describe('MCP tools over stdio', () => {
  let harness: Harness;
  let client: Client;
  before(async () => {
    harness = await createHarness({ PYTHON_MCP_OUTPUT_LIMIT: '4000' });
    client = await harness.connect('first-client');
  });
  after(async () => {
    await harness.close();
    assert.deepEqual(await leftovers(harness.home, []), [], 'no kernels or daemon left');
  });

  test('lists every tool of the contract, with schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    for (const name of [
      'python_status', 'list_interpreters', 'list_sessions', 'start_kernel', 'connect_to_kernel', 'disconnect_kernel', 'kernel_status',
      'interrupt_kernel', 'restart_kernel', 'shutdown_kernel', 'reset_namespace', 'run_python', 'execute_code', 'list_names',
      'describe_object', 'get_value', 'last_error', 'export_notebook', 'load_data', 'save_data', 'ols', 'save_figure',
    ]) {
      assert.ok(names.includes(name), `${name} is served`);
    }
    const run = tools.find((t) => t.name === 'run_python')!;
    assert.deepEqual(run.inputSchema.required, ['code']);
    assert.ok((run.description ?? '').length > 200, 'described for a model');
    assert.equal(tools.find((t) => t.name === 'restart_kernel')!.annotations?.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === 'list_names')!.annotations?.readOnlyHint, true);
  });

  test('python_status names the interpreter and why, before and after the first run', async () => {
    const before = await call(client, 'python_status');
    assert.match(text(before), new RegExp(TEST_PYTHON.replace(/[/.]/g, '\\$&')));
    assert.match(text(before), /PYTHON_MCP_INTERPRETER/);
    await call(client, 'run_python', { code: 'warm = 1' });
    const afterRun = await call(client, 'python_status');
    assert.equal(afterRun.facts?.state, 'idle');
    assert.ok(afterRun.facts?.pid > 0);
    assert.ok(afterRun.facts?.memory_bytes > 10_000_000);
    assert.match(String(afterRun.facts?.packages?.ipykernel), /^\d/);
  });

  test('run_python: state persists, the last expression shows, output is in print order', async () => {
    await call(client, 'run_python', { code: 'total = 40' });
    const result = await call(client, 'run_python', { code: "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\ntotal + 2" });
    assert.equal(text(result), 'a\nb\nc\n42\n');
    assert.equal(result.isError, undefined);
    const same = await call(client, 'execute_code', { code: 'total' });
    assert.equal(text(same), '40\n');
  });

  test('errors read as the contract says, after what was printed, and last_error has the traceback', async () => {
    await call(client, 'run_python', { code: 'unharmed = 40' });
    const result = await call(client, 'run_python', { code: "print('first')\nundefined_name" });
    assert.equal(result.isError, true);
    assert.equal(text(result), "first\nPython error: NameError on line 2: name 'undefined_name' is not defined");
    const last = await call(client, 'last_error');
    assert.match(text(last), /Traceback/);
    assert.match(text(last), /----> 2 undefined_name/);
    assert.equal(text(await call(client, 'run_python', { code: 'unharmed' })), '40\n', 'the session stays as it was');
  });

  test('figures come back as image content and are saved in the session folder', async () => {
    const result = await call(client, 'run_python', { code: 'import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.title("squares")\nplt.show()' });
    const image = result.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
    assert.ok(image, 'an image content item');
    assert.equal(image.mimeType, 'image/png');
    assert.equal(Buffer.from(image.data, 'base64').subarray(1, 4).toString(), 'PNG');
    const [figure] = result.facts?.figures as string[];
    assert.ok(figure.startsWith(join(harness.home, 'sessions', 'default', 'figures')));
    assert.ok(existsSync(figure));
    assert.ok(!text(result).includes('iVBOR'), 'never base64 in the text');
  });

  test('output past the limit comes back as head and tail, with the file holding all of it', async () => {
    const result = await call(client, 'run_python', { code: "for i in range(5000): print(f'row {i}')" });
    const out = text(result);
    assert.ok(out.startsWith('row 0\n'));
    assert.ok(out.includes('row 4999'));
    assert.ok(out.length < 5000, `reply has ${out.length} characters`);
    const spill = result.facts?.full_output_path as string;
    assert.match(out, /characters of output left out; the whole output is in /);
    const full = await readFile(spill, 'utf8');
    assert.equal(full.trim().split('\n').length, 5000);
  });

  test('a timeout interrupts a loop and returns what it printed', async () => {
    await call(client, 'run_python', { code: 'outlives_the_loop = 40' });
    const result = await call(client, 'run_python', { code: "print('looping', flush=True)\nwhile True: pass", timeout_s: 1 });
    assert.equal(result.isError, true);
    assert.match(text(result), /^looping\n[\s\S]*Timed out after 1 s; the run was interrupted/);
    assert.equal(text(await call(client, 'run_python', { code: 'outlives_the_loop' })), '40\n', 'interrupted, not restarted');
  });

  test('cancelling a call interrupts the kernel', async () => {
    const controller = new AbortController();
    const started = join(harness.home, 'cancel-started');
    const finished = join(harness.home, 'cancel-finished');
    const code = `import time\nopen(${JSON.stringify(started)}, 'w').close()\nfor _ in range(600): time.sleep(0.1)\nopen(${JSON.stringify(finished)}, 'w').close()`;
    const pending = call(client, 'run_python', { code }, { signal: controller.signal });
    await waitFor('the cell to be running', () => existsSync(started));
    controller.abort();
    await assert.rejects(pending);
    await waitFor('the kernel to go back to idle', async () => (await call(client, 'kernel_status')).facts?.state === 'idle', { timeoutMs: 30_000 });
    assert.equal(existsSync(finished), false, 'the loop was interrupted, not run to its end');
  });

  test('long runs send progress notifications', async () => {
    // The run goes on only once a notification has come: without one it would wait at the gate (and fail).
    const gate = cellGate();
    const progress: { progress: number; message?: string }[] = [];
    const code = `print('step one', flush=True)\n${gate.waitCode}\n'done'`;
    const result = await call(client, 'run_python', { code }, { onprogress: (p) => (progress.push(p), gate.open()), resetTimeoutOnProgress: true });
    assert.equal(result.isError, undefined, text(result));
    assert.match(text(result), /done/);
    assert.match(progress[0].message ?? '', /Running for \d+ s; latest output:\nstep one/);
  });

  test('the variable explorer and get_value', async () => {
    await call(client, 'run_python', { code: "import pandas as pd\nprices = pd.DataFrame({'p': [1.0, 2.5, None], 'q': [3, 4, 5]})" });
    const names = await call(client, 'list_names');
    assert.match(text(names), /prices/);
    assert.match(text(names), /DataFrame/);
    const described = await call(client, 'describe_object', { name: 'prices' });
    assert.match(text(described), /3 rows|\(3, 2\)|3 × 2/);
    const value = await call(client, 'get_value', { expression: "prices['q'].tolist()" });
    assert.deepEqual(value.structuredContent?.value, [3, 4, 5]);
    const missing = await call(client, 'get_value', { expression: 'nothing_here' });
    assert.equal(missing.isError, true);
  });

  test('sessions: start, list, status, interrupt, restart, reset, shutdown', async () => {
    await call(client, 'run_python', { code: '1' }); // the default session exists
    const started = await call(client, 'start_kernel', { session: 'second', cwd: harness.home });
    assert.match(text(started), /Started/);
    assert.equal(started.facts?.cwd, harness.home);
    assert.equal(text(await call(client, 'run_python', { session: 'second', code: 'import os; os.getcwd()' })), `'${harness.home}'\n`);
    const again = await call(client, 'start_kernel', { session: 'second' });
    assert.equal(again.isError, true);
    assert.match(text(again), /already has a kernel/);
    const listed = await call(client, 'list_sessions');
    assert.deepEqual((listed.facts?.sessions as { session: string }[]).map((s) => s.session).sort(), ['default', 'second']);
    assert.match(text(await call(client, 'interrupt_kernel', { session: 'second' })), /Nothing was running/);
    await call(client, 'run_python', { session: 'second', code: 'keep = 1' });
    const restarted = await call(client, 'restart_kernel', { session: 'second' });
    assert.deepEqual(restarted.facts?.lost_names, ['os', 'keep']);
    await call(client, 'run_python', { session: 'second', code: 'a = 1; b = 2' });
    const reset = await call(client, 'reset_namespace', { session: 'second' });
    assert.equal(reset.isError, undefined, text(reset));
    assert.equal((await call(client, 'run_python', { session: 'second', code: 'a' })).isError, true);
    assert.match(text(await call(client, 'shutdown_kernel', { session: 'second' })), /shut down/);
    const unknown = await call(client, 'run_python', { session: 'second', code: '1' });
    assert.match(text(unknown), /No session named "second". Sessions: default\./);
  });

  test('bad arguments get a validation error and the daemon keeps serving', async () => {
    const bad = await call(client, 'run_python', { code: 42 });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /code/);
    const badSession = await call(client, 'run_python', { code: '1', session: '../etc' });
    assert.equal(badSession.isError, true);
    assert.equal(text(await call(client, 'run_python', { code: '1 + 1' })), '2\n');
  });

  test('a crashed kernel is replaced and the caller told what was lost', async () => {
    await call(client, 'run_python', { code: 'precious = [1, 2, 3]' });
    const died = await call(client, 'run_python', { code: 'import os; os._exit(7)' });
    assert.equal(died.isError, true);
    assert.match(text(died), /The Python kernel died: the kernel exited with code 7/);
    assert.match(text(died), /Lost with it: .*precious/);
    assert.equal(text(await call(client, 'run_python', { code: '2 * 21' })), '42\n');
  });

  test('list_interpreters shows the chosen one', async () => {
    const result = await call(client, 'list_interpreters');
    assert.match(text(result), /used for new sessions/);
    assert.ok(Array.isArray(result.facts?.interpreters));
  });

  test('export_notebook writes a notebook that nbformat validates', async () => {
    // A session of its own, with its own history: what the notebook must hold does not hang on other tests.
    const session = 'notebook';
    await call(client, 'start_kernel', { session });
    try {
      for (const code of ['a = 1', "print('hello')", 'import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()', 'undefined_name']) {
        await call(client, 'run_python', { session, code });
      }
      const path = join(harness.home, 'out', 'session.ipynb');
      const result = await call(client, 'export_notebook', { session, path });
      assert.match(text(result), /Wrote 4 cells/);
      const check = execFileSync(TEST_PYTHON, ['-c', 'import nbformat,sys; nb=nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); code = [c for c in nb.cells if c.cell_type == "code"]; print(len(code), sum(1 for c in code for o in c.outputs if "image/png" in o.get("data", {})))', path], { encoding: 'utf8' });
      const [cells, images] = check.trim().split(' ').map(Number);
      assert.equal(cells, 4);
      assert.equal(images, 1, 'the figure is in the notebook');
    } finally {
      await call(client, 'shutdown_kernel', { session });
    }
  });

  test('the session log has every execution, with its status and its client', async () => {
    const session = 'logged';
    await call(client, 'start_kernel', { session });
    try {
      await call(client, 'run_python', { session, code: 'x = 1' });
      await call(client, 'run_python', { session, code: 'undefined_name' });
      await call(client, 'run_python', { session, code: 'while True: pass', timeout_s: 1 });
      await call(client, 'run_python', { session, code: 'import os; os._exit(1)' });
      const lines = (await readFile(join(harness.home, 'sessions', session, 'log.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => l.status), ['ok', 'error', 'timeout', 'died']);
      assert.ok(lines.every((l) => l.client === 'first-client'));
    } finally {
      await call(client, 'shutdown_kernel', { session });
    }
  });
});

describe('two clients, one daemon', () => {
  let harness: Harness;
  before(async () => {
    harness = await createHarness();
  });
  after(async () => harness.close());

  test('share a session across two shim processes, with no output mixed', async () => {
    const [a, b] = await Promise.all([harness.connect('client-a'), harness.connect('client-b')]);
    await call(a, 'run_python', { code: 'shared = "from a"' });
    assert.equal(text(await call(b, 'run_python', { code: 'shared' })), "'from a'\n");
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(i % 2 ? a : b, 'run_python', { code: `import time\nfor k in range(3):\n    print('call ${i} line', k)\n    time.sleep(0.005)` })),
    );
    // A call that waited a while behind the others says so on a line of its own, before its output;
    // before that, a call is told what the other client ran since its previous one (mcp/told-line.ts).
    const told = runs.filter((result) => /^Since your last call, client-[ab] ran \d+ cells?/.test(text(result))).length;
    assert.ok(told > 0, 'each client is told of the other’s cells');
    const output = (result: CallResult) =>
      text(result)
        .replace(/^Since your last call, client-[ab] ran [^\n]*\n/, '')
        .replace(/^\(This code waited .* in the queue behind run default-\d+ before it started\.\)\n/, '');
    runs.forEach((result, i) => assert.equal(output(result), [0, 1, 2].map((k) => `call ${i} line ${k}\n`).join('')));
    const log = (await readFile(join(harness.home, 'sessions', 'default', 'log.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual([...new Set(log.map((l) => l.client))].sort(), ['client-a', 'client-b']);
  });

  test('a daemon killed with SIGKILL is replaced; the next call works and says sessions were lost', async () => {
    const client = await harness.connect('survivor');
    await call(client, 'run_python', { code: 'x = 1' });
    const pid = await harness.daemonPid();
    assert.ok(pid && isAlive(pid));
    const kernelPid = (await call(client, 'kernel_status')).facts?.pid as number;
    process.kill(pid, 'SIGKILL');
    await waitFor('the kernel to end with its daemon', () => !isAlive(kernelPid), { timeoutMs: 5000 });
    const next = await call(client, 'run_python', { code: '1 + 1' });
    assert.match(text(next), /2\n/);
    assert.match(text(next), /daemon restarted.*session was lost/i);
    const newPid = await harness.daemonPid();
    assert.notEqual(newPid, pid);
  });
});
