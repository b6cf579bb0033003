/**
 * One scripted conversation that calls every tool of the contract, the same for every client, and
 * what a model must read from each answer. A client test prepends its own tool-search steps, runs
 * the walk in one client session (a client run costs seconds) and asserts each step.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_PYTHON } from '../../app/core/testing/test-python.js';
import { readImages, readText, type ForwardedResult, type Step } from './model-script.js';

/** The interpreter the sessions run in (the harness names it in PYTHON_MCP_INTERPRETER), as a pattern. */
const TEST_PYTHON_PATTERN = TEST_PYTHON.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const CONTRACT_TOOLS = [
  'python_status', 'list_interpreters', 'list_sessions', 'start_kernel', 'connect_to_kernel', 'disconnect_kernel', 'kernel_status',
  'interrupt_kernel', 'restart_kernel', 'shutdown_kernel', 'reset_namespace', 'run_python', 'execute_code', 'list_names',
  'describe_object', 'get_value', 'wait_for_run', 'last_error', 'export_notebook', 'load_data', 'save_data', 'ols', 'save_figure',
];

/** Advertising spend and revenue; revenue = 3 + 2·ads + a small wobble, so the fit is known. */
export const SALES = {
  ads: [1, 2, 3, 4, 5, 6, 7, 8],
  revenue: [5.1, 6.9, 9.2, 10.8, 13.1, 15.0, 16.8, 19.1],
};

/** The least-squares line and R² of revenue on ads, computed here so the test knows the answer. */
export function salesFit() {
  const { ads: x, revenue: y } = SALES;
  const n = x.length;
  const mx = x.reduce((a, b) => a + b) / n;
  const my = y.reduce((a, b) => a + b) / n;
  const sxy = x.reduce((s, xi, i) => s + (xi - mx) * (y[i] - my), 0);
  const sxx = x.reduce((s, xi) => s + (xi - mx) ** 2, 0);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const sse = y.reduce((s, yi, i) => s + (yi - intercept - slope * x[i]) ** 2, 0);
  const sst = y.reduce((s, yi) => s + (yi - my) ** 2, 0);
  return { slope, intercept, rSquared: 1 - sse / sst };
}

/** Writes the walk's input data into the client's project folder (data/sales.csv). */
export function prepareProject(project: string): void {
  mkdirSync(join(project, 'data'), { recursive: true });
  mkdirSync(join(project, 'out'), { recursive: true });
  const rows = SALES.ads.map((a, i) => `${['north', 'south'][i % 2]},${a},${SALES.revenue[i]}`);
  writeFileSync(join(project, 'data', 'sales.csv'), ['region,ads,revenue', ...rows, ''].join('\n'));
}

/** What the model read and, for file-writing tools, the project folder to look in. */
export interface Reading {
  result: ForwardedResult;
  text: string;
  project: string;
}

export interface WalkStep {
  label: string;
  /** Set on the steps the client-fact tests look up. */
  id?: 'printed' | 'error' | 'plot' | 'value' | 'ols';
  step: Step;
  expect(reading: Reading): void;
}

/** The number as a model would find it in text: with its first `digits` significant digits. */
export function mentions(text: string, value: number, digits = 4): boolean {
  const wanted = Number(value.toPrecision(digits));
  return (text.match(/-?\d+\.?\d*(?:e[-+]?\d+)?/gi) ?? []).some((token) => Number(Number(token).toPrecision(digits)) === wanted);
}

const call = (name: string, args: Record<string, unknown> = {}): Step => ({ call: name, args });

export function contractWalk(project: string): WalkStep[] {
  const out = (name: string) => join(project, 'out', name);
  const fit = salesFit();
  return [
    {
      label: 'python_status before any run names the interpreter and why',
      step: call('python_status'),
      expect: ({ text }) => {
        assert.match(text, new RegExp(TEST_PYTHON_PATTERN));
        assert.match(text, /PYTHON_MCP_INTERPRETER/);
      },
    },
    {
      label: 'list_interpreters lists the interpreter new sessions use',
      step: call('list_interpreters'),
      expect: ({ text }) => assert.match(text, new RegExp(`${TEST_PYTHON_PATTERN}[\\s\\S]*used for new sessions`)),
    },
    {
      label: 'run_python: the model reads what was printed, then the last value',
      id: 'printed',
      step: call('run_python', { code: "print('PRINTED-MARKER')\n6*7" }),
      expect: ({ text, result }) => {
        assert.match(text, /PRINTED-MARKER\n42\b/);
        assert.notEqual(result.isError, true);
      },
    },
    {
      label: 'run_python error after a print: the printed text, then the error with its line',
      id: 'error',
      step: call('run_python', { code: "print('BEFORE-ERROR')\nundefined_name" }),
      expect: ({ text, result }) => {
        assert.match(text, /BEFORE-ERROR\n[\s\S]*Python error: NameError on line 2: name 'undefined_name' is not defined/);
        assert.ok(text.indexOf('BEFORE-ERROR') < text.indexOf('Python error'), 'print order kept');
        if (result.isError !== undefined) assert.equal(result.isError, true, 'a client that shows the error flag shows it set');
      },
    },
    {
      label: 'last_error gives the traceback of that error',
      step: call('last_error'),
      expect: ({ text }) => {
        assert.match(text, /NameError/);
        assert.match(text, /undefined_name/);
        assert.match(text, /Traceback|line 2/);
      },
    },
    {
      label: 'run_python with a matplotlib plot: the image reaches the model',
      id: 'plot',
      step: call('run_python', { code: "import matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.title('squares')\nprint('PLOTTED')\nplt.show()" }),
      expect: ({ text, result }) => {
        assert.match(text, /PLOTTED/);
        const images = readImages(result);
        assert.equal(images.length, 1, `one image block in ${JSON.stringify(result.blocks)}`);
        assert.equal(images[0].mimeType, 'image/png');
        assert.ok(images[0].png && images[0].bytes > 1000, 'a real PNG');
      },
    },
    {
      label: 'save_figure writes the last figure where asked and says so',
      step: call('save_figure', { path: out('squares.png') }),
      expect: ({ text }) => {
        assert.match(text, /squares\.png/);
        assert.equal(readFileSync(out('squares.png')).subarray(1, 4).toString(), 'PNG');
      },
    },
    {
      label: 'under the Agg backend a figure left open at the end of the cell still reaches the model',
      step: call('run_python', { code: "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.figure()\nplt.bar(['a', 'b'], [3, 5])" }),
      expect: ({ result }) => {
        const images = readImages(result);
        assert.equal(images.length, 1, `one image block in ${JSON.stringify(result.blocks)}`);
        assert.ok(images[0].png);
      },
    },
    {
      label: 'a relative path in run_python resolves in the client\'s project folder',
      step: call('run_python', { code: "import pandas as pd\npd.read_csv('data/sales.csv').shape" }),
      expect: ({ text }) => assert.match(text, /\(8, 3\)/),
    },
    {
      label: 'get_value: the model reads the value',
      id: 'value',
      step: call('get_value', { expression: "{'mean': sum([1, 2, 3, 4]) / 4, 'names': ['a', 'b']}" }),
      expect: ({ text }) => {
        const json = JSON.parse(text.slice(text.indexOf('{')));
        assert.deepEqual(json.value, { mean: 2.5, names: ['a', 'b'] });
      },
    },
    {
      label: 'load_data of a CSV: rows and columns',
      step: call('load_data', { path: join(project, 'data', 'sales.csv'), name: 'sales' }),
      expect: ({ text }) => {
        assert.match(text, /\b8\b[^\n]*rows|rows[^\n]*\b8\b|\(8, 3\)|8 × 3|8 x 3/i);
        for (const column of ['region', 'ads', 'revenue']) assert.match(text, new RegExp(column));
      },
    },
    {
      label: 'list_names shows the loaded DataFrame and its shape',
      step: call('list_names'),
      expect: ({ text }) => {
        assert.match(text, /sales/);
        assert.match(text, /DataFrame/);
        assert.match(text, /8\s*[×x,]\s*3|\(8, 3\)/);
      },
    },
    {
      label: 'describe_object describes the DataFrame: columns, dtypes, values',
      step: call('describe_object', { name: 'sales' }),
      expect: ({ text }) => {
        for (const column of ['region', 'ads', 'revenue']) assert.match(text, new RegExp(column));
        assert.match(text, /int64|float64/);
        assert.match(text, /north/);
      },
    },
    {
      label: 'ols on the DataFrame: coefficients and R²',
      id: 'ols',
      step: call('ols', { data: 'sales', y: 'revenue', x: ['ads'] }),
      expect: ({ text }) => {
        assert.ok(mentions(text, fit.slope), `slope ${fit.slope} in ${text}`);
        assert.ok(mentions(text, fit.intercept), `intercept ${fit.intercept} in ${text}`);
        assert.ok(mentions(text, fit.rSquared, 3), `R² ${fit.rSquared} in ${text}`);
        assert.match(text, /R[²2-]|r_squared/i);
      },
    },
    {
      label: 'save_data writes the DataFrame and says where',
      step: call('save_data', { name: 'sales', path: out('sales-copy.csv') }),
      expect: ({ text }) => {
        assert.match(text, /sales-copy\.csv/);
        assert.equal(readFileSync(out('sales-copy.csv'), 'utf8').trim().split('\n').length, 9, 'header and 8 rows');
      },
    },
    {
      label: 'export_notebook writes the session as a notebook and says where',
      step: call('export_notebook', { path: out('session.ipynb') }),
      expect: ({ text }) => {
        assert.match(text, /session\.ipynb/);
        const notebook = JSON.parse(readFileSync(out('session.ipynb'), 'utf8'));
        const code = notebook.cells.map((c: { source: string | string[] }) => [c.source].flat().join('')).join('\n');
        assert.match(code, /PRINTED-MARKER/, 'the cells the model ran');
      },
    },
    {
      label: 'start_kernel starts a named session',
      step: call('start_kernel', { session: 'side' }),
      expect: ({ text }) => assert.match(text, /side/),
    },
    {
      label: 'run_python in the named session reads its value',
      step: call('run_python', { code: "side_value = 'SIDE-MARKER'\nside_value", session: 'side' }),
      expect: ({ text }) => assert.match(text, /'SIDE-MARKER'/),
    },
    {
      label: 'list_sessions lists both sessions',
      step: call('list_sessions'),
      expect: ({ text }) => {
        assert.match(text, /default/);
        assert.match(text, /side/);
      },
    },
    {
      label: 'kernel_status of the named session',
      step: call('kernel_status', { session: 'side' }),
      expect: ({ text }) => assert.match(text, /idle|alive|running/i),
    },
    {
      label: 'shutdown_kernel ends the named session',
      step: call('shutdown_kernel', { session: 'side' }),
      expect: ({ text }) => assert.match(text, /side[\s\S]*shut down/),
    },
    {
      label: 'interrupt_kernel with nothing running says so',
      step: call('interrupt_kernel'),
      expect: ({ text }) => assert.match(text, /Nothing was running/i),
    },
    {
      label: 'run_python still going at wait_s comes back, says it goes on and names the run',
      step: call('run_python', { code: "import time\nprint('LONG-RUN-STARTED', flush=True)\nfor _ in range(600):\n    time.sleep(0.1)", wait_s: 1 }),
      expect: ({ text, result }) => {
        assert.match(text, /Still running/);
        assert.match(text, /wait_for_run\(run="default-\d+"\)/);
        assert.notEqual(result.isError, true, 'a run still going is not an error');
      },
    },
    {
      label: 'wait_for_run on a run still going says it still runs',
      step: call('wait_for_run', { wait_s: 0 }),
      expect: ({ text }) => assert.match(text, /Still running/),
    },
    {
      label: 'interrupt_kernel stops the run that is going',
      step: call('interrupt_kernel'),
      expect: ({ text }) => assert.match(text, /^Interrupted/m),
    },
    {
      label: 'wait_for_run after the interrupt: the whole result, what was printed, then the interrupt',
      step: call('wait_for_run'),
      expect: ({ text }) => {
        assert.match(text, /LONG-RUN-STARTED/);
        assert.match(text, /KeyboardInterrupt/);
        assert.ok(text.indexOf('LONG-RUN-STARTED') < text.indexOf('KeyboardInterrupt'), 'print order kept');
      },
    },
    {
      label: 'run_python past its timeout: what was printed, then that it was interrupted',
      step: call('run_python', { code: "import time\nprint('BEFORE-SLEEP')\ntime.sleep(60)", timeout_s: 2 }),
      expect: ({ text, result }) => {
        assert.match(text, /BEFORE-SLEEP/);
        assert.match(text, /interrupt|timed out|timeout/i);
        if (result.isError !== undefined) assert.equal(result.isError, true);
      },
    },
    {
      label: 'restart_kernel says what was lost',
      step: call('restart_kernel'),
      expect: ({ text }) => {
        assert.match(text, /Restarted/);
        assert.match(text, /sales/);
      },
    },
    {
      label: 'after the restart the old names are gone',
      step: call('run_python', { code: 'sales' }),
      expect: ({ text }) => assert.match(text, /Python error: NameError on line 1: name 'sales' is not defined/),
    },
    {
      label: 'execute_code works as run_python',
      step: call('execute_code', { code: "kept = 21\nprint('EXECUTED')\nkept * 2" }),
      expect: ({ text }) => assert.match(text, /EXECUTED\n42\b/),
    },
    {
      label: 'reset_namespace clears the variables',
      step: call('reset_namespace'),
      expect: ({ text }) => assert.match(text, /kept|removed|cleared|deleted/i),
    },
    {
      label: 'connect_to_kernel with a missing connection file: the model reads why',
      step: call('connect_to_kernel', { connection_file: join(project, 'no-such-kernel.json'), session: 'attached' }),
      expect: ({ text, result }) => {
        assert.match(text, /no-such-kernel\.json/);
        if (result.isError !== undefined) assert.equal(result.isError, true);
      },
    },
    {
      label: 'disconnect_kernel on a session this server started: the model reads what happened',
      step: call('disconnect_kernel'),
      expect: ({ text }) => assert.ok(text.trim().length > 0),
    },
  ];
}

export function expectReading(walk: WalkStep, result: ForwardedResult, project: string): void {
  walk.expect({ result, text: readText(result), project });
}
