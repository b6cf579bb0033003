/**
 * The tools on the built-in worker (issue 16), through the built command: the explorer and
 * get_value, last_error, the output cap and its spill file, stdin closed, figures, the data and
 * estimation helpers (or, where pandas is missing, the name of the package and the command),
 * export_notebook, interrupt_kernel and wait_for_run. Debian's python3 with PYTHON_MCP_ENGINE=worker
 * has pandas, statsmodels and matplotlib; a pyenv Python without ipykernel has none of them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hasModule, pyenvPython, pyenvVersions } from '../app/core/testing/interpreters-here.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';

/** A pyenv Python 3.8+ with neither ipykernel nor pandas: the newest there is. */
function barePyenvPython(): string | null {
  const found = pyenvVersions()
    .filter((v) => /^3\.(8|9|1[0-3])\./.test(v))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
    .map((v) => pyenvPython(v))
    .filter((p) => existsSync(p) && !hasModule(p, 'ipykernel') && !hasModule(p, 'pandas'));
  return found.at(-1) ?? null;
}

const CSV = 'y,x1,x2\n1.0,1,2\n2.1,2,1\n2.9,3,5\n4.2,4,3\n5.1,5,8\n5.8,6,2\n7.2,7,9\n8.1,8,4\n';

const bare = barePyenvPython();
const cases = [
  { name: `${TEST_PYTHON} with PYTHON_MCP_ENGINE=worker`, path: TEST_PYTHON, env: { PYTHON_MCP_ENGINE: 'worker' } as Record<string, string>, scientific: true },
  ...(bare ? [{ name: `pyenv ${bare}`, path: bare, env: {} as Record<string, string>, scientific: false }] : []),
];
if (!bare) test('the tools on a pyenv Python without ipykernel or pandas', { skip: 'no pyenv Python 3.8–3.13 without ipykernel and pandas here' }, () => undefined);

for (const python of cases) {
  describe(`the tools on the built-in worker: ${python.name}`, () => {
    let harness: Harness;
    let client: Client;
    let dir: string;
    const run = (code: string, extra: Record<string, unknown> = {}) => call(client, 'run_python', { code, ...extra });
    before(async () => {
      harness = await createHarness({ PYTHON_MCP_INTERPRETER: python.path, PYTHON_MCP_OUTPUT_LIMIT: '2000', PYTHON_MCP_POOL_SIZE: '0', ...python.env });
      client = await harness.connect('worker-tools');
      dir = join(harness.home, 'data');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'small.csv'), CSV);
      assert.match(text(await call(client, 'python_status')), /engine for new sessions: the built-in worker/i);
      await run("label = 'hello'"); // what each test checks survived it
    });
    after(async () => harness.close());

    test('list_names, describe_object and get_value', async () => {
      await run("prices = {'p': [1.0, 2.5], 'q': [3, 4, 5]}\nclass Point:\n    def __init__(self): self.x, self.y = 1, 2\npt = Point()\nlabel = 'hello'");
      const names = text(await call(client, 'list_names'));
      for (const name of ['prices', 'pt', 'label', 'Point']) assert.match(names, new RegExp(`\\b${name}\\b`), names);
      assert.match(names, /dict/);
      const described = await call(client, 'describe_object', { name: 'prices' });
      assert.equal(described.isError, undefined, text(described));
      assert.match(text(described), /dict/);
      assert.match(text(described), /\bq\b/);
      const attribute = await call(client, 'describe_object', { name: 'pt.y' });
      assert.match(text(attribute), /int/);
      const value = await call(client, 'get_value', { expression: "prices['q']" });
      assert.equal(value.isError, undefined, text(value));
      assert.deepEqual(value.structuredContent?.value, [3, 4, 5]);
      assert.equal((await call(client, 'get_value', { expression: 'label.upper()' })).structuredContent?.value, 'HELLO');
      const missing = await call(client, 'get_value', { expression: 'nothing_here' });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /NameError/);
      assert.equal(text(await run('label')), "'hello'\n", 'the helpers left the namespace as it was');
    });

    test('last_error has the traceback of the failed cell', async () => {
      const failed = await run("def inner():\n    return 1 / 0\nprint('before')\ninner()");
      assert.equal(text(failed), 'before\nPython error: ZeroDivisionError on line 2: division by zero');
      const last = text(await call(client, 'last_error'));
      assert.match(last, /Traceback/);
      assert.match(last, /ZeroDivisionError: division by zero/);
      assert.match(last, /inner\(\)/);
    });

    test('output past the limit comes back as head and tail, the spill file holding all of it', async () => {
      const result = await run("for i in range(3000): print(f'row {i}')");
      const out = text(result);
      assert.ok(out.startsWith('row 0\n'));
      assert.match(out, /row 2999\n$/);
      assert.ok(out.length < 5000, `reply has ${out.length} characters`);
      assert.match(out, /characters of output left out; the whole output is in /);
      const full = await readFile(result.facts?.full_output_path as string, 'utf8');
      assert.equal(full.trim().split('\n').length, 3000);
    });

    test('input() with no form to show it and no panel open fails clearly at once, and the session stays', async () => {
      // The worker asks like a kernel (its stdin channel); this client shows no forms and no panel is open.
      const asked = await run("print('asking')\nanswer = input('name? ')");
      assert.equal(asked.isError, true);
      assert.match(text(asked), /^asking\n/);
      assert.match(text(asked), /Python error: EOFError on line 2: "name\? " got no answer: the client that ran this code cannot show the person a form, and no panel was open to answer in\./);
      assert.equal(text(await run('label')), "'hello'\n");
    });

    test('interrupt_kernel stops a pure-Python loop and a time.sleep; the variables stay', async () => {
      const pid = (await call(client, 'kernel_status')).facts?.pid as number;
      const other = await harness.connect('interrupter');
      for (const [i, code] of ['while True: pass', 'import time\ntime.sleep(120)'].entries()) {
        const flag = join(harness.home, `started-${i}`);
        const pending = run(`open(${JSON.stringify(flag)}, 'w').close()\n${code}`);
        await waitFor('the cell to be running', () => existsSync(flag));
        assert.match(text(await call(other, 'interrupt_kernel')), /nterrupt/);
        const stopped = await pending;
        assert.equal(stopped.isError, true);
        assert.match(text(stopped), /KeyboardInterrupt|Interrupted/);
        assert.doesNotMatch(text(stopped), /restarted/);
      }
      assert.equal((await call(client, 'kernel_status')).facts?.pid, pid, 'the same worker process');
      assert.equal(text(await run('label')), "'hello'\n");
    });

    test('wait_for_run picks up a run longer than wait_s', async () => {
      const gate = join(harness.home, 'release');
      const reply = await run(`import os, time\nprint('started', flush=True)\nwhile not os.path.exists(${JSON.stringify(gate)}): time.sleep(0.02)\nprint('done')\n6 * 7`, { wait_s: 0.5 });
      assert.equal(reply.isError, undefined, text(reply));
      assert.match(text(reply), /^started\n/);
      assert.match(text(reply), /Still running after .* \(run default-\d+\)/);
      const runId = reply.facts?.run as string;
      await writeFile(gate, '');
      const last = await call(client, 'wait_for_run', { run: runId, wait_s: 60 });
      assert.equal(last.isError, undefined, text(last));
      assert.match(text(last), /done\n42\n/);
    });

    if (python.scientific) {
      test('matplotlib figures come back as images and are saved', async () => {
        const result = await run('import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.title("squares")\nplt.show()');
        const image = result.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
        assert.ok(image, `an image content item: ${text(result)}`);
        assert.equal(image.mimeType, 'image/png');
        assert.equal(Buffer.from(image.data, 'base64').subarray(1, 4).toString(), 'PNG');
        const [figure] = result.facts?.figures as string[];
        assert.ok(existsSync(figure));
      });

      test('load_data, ols, save_data and save_figure', async () => {
        const loaded = await call(client, 'load_data', { path: join(dir, 'small.csv'), name: 'small' });
        assert.equal(loaded.isError, undefined, text(loaded));
        assert.equal(loaded.facts?.rows, 8);
        const fit = await call(client, 'ols', { data: 'small', y: 'y', x: ['x1', 'x2'] });
        assert.equal(fit.isError, undefined, text(fit));
        assert.deepEqual((fit.structuredContent?.params as { name: string }[]).map((p) => p.name).sort(), ['const', 'x1', 'x2']);
        assert.ok((fit.structuredContent?.r_squared as number) > 0.9);
        const out = join(dir, 'out', 'small.csv');
        const saved = await call(client, 'save_data', { name: 'small', path: out });
        assert.equal(saved.isError, undefined, text(saved));
        assert.match(await readFile(out, 'utf8'), /^y,x1,x2\n/);
        assert.ok((await run("import matplotlib.pyplot as plt\nplt.scatter(small.x1, small.y)\nplt.title('fit')")).content.some((c) => c.type === 'image'));
        const chart = join(dir, 'charts', 'fit.png');
        const figure = await call(client, 'save_figure', { path: chart, dpi: 80 });
        assert.equal(figure.isError, undefined, text(figure));
        assert.equal(figure.facts?.bytes, (await stat(chart)).size);
      });
    } else {
      test('load_data, ols and save_figure name the missing package and the command that installs it', async () => {
        const pip = new RegExp(`${python.path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} -m pip install`);
        const calls: [string, Record<string, unknown>, string][] = [
          ['load_data', { path: join(dir, 'small.csv'), name: 'small' }, 'pandas'],
          ['ols', { data: 'small', y: 'y', x: ['x1'] }, 'pandas|statsmodels'],
          ['save_figure', { path: join(dir, 'f.png') }, 'matplotlib'],
        ];
        for (const [tool, args, missing] of calls) {
          const result = await call(client, tool, args);
          assert.equal(result.isError, true, `${tool}: ${text(result)}`);
          assert.match(text(result), new RegExp(`\\b(${missing})\\b`), `${tool}: ${text(result)}`);
          assert.match(text(result), pip, `${tool}: ${text(result)}`);
        }
        assert.equal(text(await run('label')), "'hello'\n");
      });
    }

    test('export_notebook of a worker session', async () => {
      const session = 'notebook';
      await call(client, 'start_kernel', { session });
      try {
        for (const code of ['a = 1', "print('hello')", 'a + 1', 'undefined_name']) await run(code, { session });
        const path = join(harness.home, 'out', 'worker.ipynb');
        const result = await call(client, 'export_notebook', { session, path });
        assert.match(text(result), /Wrote 4 cells/);
        // Validated by nbformat in Debian's python3, whatever interpreter ran the session.
        const check = execFileSync(TEST_PYTHON, ['-c', 'import nbformat,sys,json; nb=nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); code=[c for c in nb.cells if c.cell_type=="code"]; print(json.dumps([[o.get("output_type") for o in c.outputs] for c in code]))', path], { encoding: 'utf8' });
        assert.deepEqual(JSON.parse(check), [[], ['stream'], ['execute_result'], ['error']]);
      } finally {
        await call(client, 'shutdown_kernel', { session });
      }
    });
  });
}
