/**
 * What every tool hands a client, over stdio through the built command: which results carry
 * structuredContent (only those whose JSON is the answer), the annotations clients use to decide
 * what to ask the person, the server's initialize answer, and figures under a non-interactive
 * backend. What the models of real clients read is asserted in e2e/clients/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';

const READ_ONLY = ['python_status', 'list_interpreters', 'list_sessions', 'kernel_status', 'list_names', 'describe_object', 'last_error', 'wait_for_run'];
const RUNS_ANY_CODE = ['run_python', 'execute_code', 'get_value'];
const ANSWER_IS_JSON = ['get_value', 'ols'];

describe('tool results and annotations', () => {
  let harness: Harness;
  let client: Client;
  let folder: string;
  before(async () => {
    harness = await createHarness();
    client = await harness.connect('results-client');
    folder = await mkdtemp(join(tmpdir(), 'ps-results-'));
  });
  after(async () => harness.close());

  test('initialize names the server with a title and a website, and offers no logging it never sends', () => {
    const info = client.getServerVersion();
    assert.equal(info?.name, 'python-session');
    assert.equal(info?.title, 'Python Session');
    assert.match(String(info?.websiteUrl), /^https:\/\//);
    assert.equal(client.getServerCapabilities()?.logging, undefined);
  });

  test('annotations tell the truth: code runs with the user\'s rights, looking tools say they only look', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of RUNS_ANY_CODE) {
      const a = byName.get(name)?.annotations;
      assert.equal(a?.readOnlyHint, false, `${name} is not read-only`);
      assert.equal(a?.destructiveHint, true, `${name} may destroy`);
      assert.equal(a?.openWorldHint, true, `${name} may reach the network`);
    }
    for (const name of READ_ONLY) assert.equal(byName.get(name)?.annotations?.readOnlyHint, true, `${name} is read-only`);
    for (const tool of tools) {
      assert.ok(tool.annotations, `${tool.name} has annotations`);
      if (!READ_ONLY.includes(tool.name)) assert.equal(tool.annotations.readOnlyHint, false, `${tool.name} changes something`);
    }
    const declared = tools.filter((t) => t.outputSchema).map((t) => t.name).sort();
    assert.deepEqual(declared, ANSWER_IS_JSON, 'only tools whose JSON is the answer declare an outputSchema');
  });

  test('only get_value and ols carry structuredContent; every other result is content alone', async () => {
    await writeFile(join(folder, 'points.csv'), 'x,y\n1,2.1\n2,3.9\n3,6.2\n4,7.8\n5,10.1\n');
    const results: [string, CallResult][] = [];
    const run = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await call(client, name, args);
      results.push([name, result]);
      return result;
    };
    await run('python_status');
    await run('list_interpreters');
    await run('run_python', { code: "print('PRINTED')\n6 * 7" });
    await run('run_python', { code: "print('before')\nundefined_name" });
    await run('execute_code', { code: '1 + 1' });
    await run('load_data', { path: join(folder, 'points.csv'), name: 'points' });
    await run('list_names');
    await run('describe_object', { name: 'points' });
    await run('last_error');
    await run('kernel_status');
    await run('list_sessions');
    await run('save_data', { name: 'points', path: join(folder, 'copy.csv') });
    await run('run_python', { code: 'import matplotlib.pyplot as plt\nplt.plot(points.x, points.y)' });
    await run('save_figure', { path: join(folder, 'line.png') });
    await run('export_notebook', { path: join(folder, 'record.ipynb') });
    await run('interrupt_kernel');
    const value = await run('get_value', { expression: 'points.y.tolist()' });
    const fit = await run('ols', { data: 'points', y: 'y', x: ['x'] });
    for (const [name, result] of results) {
      if (ANSWER_IS_JSON.includes(name)) continue;
      assert.equal(result.structuredContent, undefined, `${name} answers in content only`);
      assert.ok(text(result).length > 0, `${name} says something in text`);
    }
    assert.deepEqual(value.structuredContent?.value, [2.1, 3.9, 6.2, 7.8, 10.1]);
    assert.deepEqual(value.structuredContent?.shape, [5], 'the JSON says all the text says, shape included');
    assert.match(text(value), /\(5\)/);
    assert.equal(fit.structuredContent?.nobs, 5);
    assert.equal(fit.structuredContent?.replaced_earlier, false);
    assert.ok((fit.structuredContent?.params as { name: string }[]).some((p) => p.name === 'x'));
    assert.match(text(fit), /R-squared/);
  });

  test('names a tool bound are lost with a restart, and the restart says so', async () => {
    await writeFile(join(folder, 'small.csv'), 'a,b\n1,2\n');
    await call(client, 'run_python', { code: 'by_cell = 1' });
    await call(client, 'load_data', { path: join(folder, 'small.csv'), name: 'by_tool' });
    const restarted = await call(client, 'restart_kernel');
    assert.match(text(restarted), /Lost: .*by_cell/);
    assert.match(text(restarted), /Lost: .*by_tool/, 'load_data\'s frame is named among the lost');
  });

  test('describe_object only looks: a name or a path of attributes and subscripts, never a call', async () => {
    await call(client, 'run_python', { code: 'class Box:\n    opened = 0\n    def open(self):\n        Box.opened += 1\n        return self\nbox = Box()\nbox.items = [1, 2, 3]' });
    assert.equal((await call(client, 'describe_object', { name: 'box.items[0]' })).isError, undefined);
    const refused = await call(client, 'describe_object', { name: 'box.open()' });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /get_value|run_python/);
    assert.equal((await call(client, 'get_value', { expression: 'Box.opened' })).structuredContent?.value, 0, 'the call never ran');
  });

  test('figures come back under Agg: plt.show() where it is called, the rest at the end of the cell', async () => {
    const shown = await call(client, 'run_python', {
      code: "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nprint('before show')\nplt.show()\nprint('after show')\nplt.figure()\nplt.plot([3, 2, 1])",
    });
    assert.equal(shown.isError, undefined, text(shown));
    const kinds = shown.content.map((c) => (c.type === 'image' ? 'image' : c.text.includes('before show') ? 'before' : c.text.includes('after show') ? 'after' : 'note'));
    const order = kinds.filter((k) => k !== 'note');
    assert.deepEqual(order, ['before', 'image', 'after', 'image'], `print order: ${kinds.join(', ')}`);
    assert.doesNotMatch(text(shown), /non-interactive|cannot be shown/);
    const later = await call(client, 'run_python', { code: "plt.bar(['a', 'b'], [1, 2])\nprint(matplotlib.get_backend())" });
    assert.match(text(later), /agg/i, 'the backend stays Agg');
    assert.equal(later.content.filter((c) => c.type === 'image').length, 1, 'a later cell\'s figure comes back too, once');
    assert.equal((await call(client, 'run_python', { code: 'len(plt.get_fignums())' })).content.filter((c) => c.type === 'image').length, 0, 'shown figures are closed, as inline does');
    const saved = await call(client, 'save_figure', { path: join(folder, 'bars.png') });
    assert.equal(saved.isError, undefined, `save_figure finds the figure a cell showed and closed: ${text(saved)}`);
  });
});
