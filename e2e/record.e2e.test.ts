/**
 * A record that re-runs, end to end: an MCP client drives the built command through load_data
 * (CSV and xlsx), ols (bg_lags, cov_type), a plot, save_figure, save_data and run_python cells that
 * use them; the notebook export_notebook writes validates, and Debian's nbclient runs it in a fresh
 * kernel from another folder, without the project's helpers, reproducing the printed coefficients.
 * The `.py` export runs with python3 and prints the same numbers; the `export` command writes the
 * same cells. Then the panel in Chromium: tool entries shown as code marked with their tool, and
 * an Export offering both formats.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import { call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';
import { ARTIFACTS, NO_CHROMIUM, openRecordingPage, type RecordingPage } from './support/panel-browser.js';
import { startPanelStage, type PanelStage } from './support/panel-stage.js';
import type { DaemonServices } from '../app/core/services.js';
import type { PanelServer } from '../app/core/daemon/panel/server.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';

/** Deterministic data with full-precision values: a `;`-separated CSV and an xlsx of two sheets. */
function writeData(dir: string) {
  let state = 20260102;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648 - 0.5;
  };
  const rows = Array.from({ length: 48 }, (_, i) => {
    const x1 = 10 + 4 * next();
    const x2 = 3 * next();
    const y = 1.25 + 0.8 * x1 - 2.1 * x2 + next();
    return { year: 1970 + i, y, x1, x2 };
  });
  writeFileSync(join(dir, 'macro.csv'), `year;y;x1\n${rows.map((r) => `${r.year};${r.y};${r.x1}`).join('\n')}\n`);
  const script = [
    'import json, sys, pandas as pd',
    'rows = json.loads(sys.argv[2])',
    'with pd.ExcelWriter(sys.argv[1], engine="openpyxl") as book:',
    '    pd.DataFrame({"note": ["x2 by year"]}).to_excel(book, sheet_name="Notes", index=False)',
    '    pd.DataFrame({"year": [r["year"] for r in rows], "x2": [r["x2"] for r in rows]}).to_excel(book, sheet_name="Data", index=False)',
  ].join('\n');
  execFileSync(TEST_PYTHON, ['-c', script, join(dir, 'extra.xlsx'), JSON.stringify(rows)]);
}

/** Lines of `printed` that start with one of the labels. */
function labelled(printed: string, ...labels: string[]): string[] {
  return printed.split('\n').filter((line) => labels.some((label) => line.startsWith(label)));
}

function python(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return execFileSync(TEST_PYTHON, args, { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
}

const NBCLIENT_RUN = `
import sys, nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
name = nb.metadata.kernelspec.name
specs = KernelSpecManager().find_kernel_specs()
assert name in specs, "the notebook's kernelspec %r is not installed (have %s)" % (name, sorted(specs))
NotebookClient(nb, kernel_name=name, timeout=300, resources={"metadata": {"path": sys.argv[2]}}).execute()
nbformat.write(nb, sys.argv[3])
print(name, specs[name])
`;

type Cell = { cell_type: string; source: string | string[]; metadata: Record<string, any>; outputs?: { output_type: string; name?: string; text?: string | string[]; data?: Record<string, unknown> }[] };
const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join('') : (value ?? ''));
const stdout = (cell: Cell) => (cell.outputs ?? []).filter((o) => o.output_type === 'stream' && o.name === 'stdout').map((o) => joined(o.text)).join('');

describe('the session record re-runs in plain Jupyter', () => {
  let harness: Harness;
  let files: string;
  let out: string;
  let printed = '';
  let olsResult: CallResult;
  const fit: Record<string, CallResult> = {};

  before(async () => {
    harness = await createHarness();
    files = mkdtempSync(join(tmpdir(), 'ps-record-data-'));
    out = join(files, 'out');
    writeData(files);
  });

  after(async () => {
    await harness?.close();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  test('an analysis through the tools and run_python', { timeout: 300_000 }, async () => {
    const client = await harness.connect();
    const step = async (name: string, args: Record<string, unknown>) => {
      const result = await call(client, name, args);
      assert.ok(!result.isError, `${name}: ${text(result)}`);
      return result;
    };
    const csv = await step('load_data', { path: join(files, 'macro.csv'), name: 'macro' });
    assert.match(text(csv), /48 rows × 3 columns/);
    await step('load_data', { path: join(files, 'extra.xlsx'), name: 'extra', options: { sheet_name: 'Data' } });
    await step('run_python', { code: "df = macro.merge(extra, on='year').reset_index(drop=True)\nprint('ROWS', len(df))" });
    olsResult = await step('ols', { data: 'df', y: 'y', x: ['x1', 'x2'], cov_type: 'HC1', bg_lags: 3, name: 'fit' });
    assert.equal(olsResult.structuredContent?.breusch_godfrey?.lags, 3);
    fit.coefficients = await step('run_python', {
      code: "print('COEF', ' '.join('%s=%.10f' % item for item in fit.params.items()))\nprint('BSE', ' '.join('%.10f' % v for v in fit.bse))\nprint('R2 %.12f' % fit.rsquared)",
    });
    printed = text(fit.coefficients);
    // A plot no variable holds (the figure the cell drew), and one held by `fig`.
    const scatter = await step('run_python', { code: "import matplotlib.pyplot as plt\nplt.scatter(df.x1, df.y)\nplt.title('y on x1')\nplt.show()" });
    assert.ok(scatter.content.some((c) => c.type === 'image'), 'the plot came back');
    await step('save_figure', { path: join(out, 'figs', 'scatter.png') });
    await step('run_python', { code: "fig, ax = plt.subplots(figsize=(6, 3))\nax.plot(df.year, fit.resid, marker='o')\nax.set_title('residuals');" });
    await step('save_figure', { path: join(out, 'figs', 'resid.png'), dpi: 80 });
    await step('save_data', { name: 'df', path: join(out, 'data', 'merged.csv') });
    const used = await step('run_python', {
      code: [
        'import os',
        'import pandas as pd',
        `back = pd.read_csv(${JSON.stringify(join(out, 'data', 'merged.csv'))}, float_precision='round_trip')`,
        "print('SAVED', len(back), list(back.columns), (back['y'] == df['y']).all())",
        `print('FIGURES', all(os.path.getsize(os.path.join(${JSON.stringify(join(out, 'figs'))}, f)) > 2000 for f in ('scatter.png', 'resid.png')))`,
      ].join('\n'),
    });
    assert.match(text(used), /SAVED 48 \['year', 'y', 'x1', 'x2'\] True/);
    assert.match(text(used), /FIGURES True/);
    const failed = await call(client, 'run_python', { code: 'undefined_name + 1' });
    assert.equal(failed.isError, true, 'a run that fails is part of the record too');

    const notebook = await step('export_notebook', { path: join(out, 'record.ipynb') });
    assert.match(text(notebook), /Wrote \d+ cells/);
    await step('export_notebook', { path: join(out, 'record.py') });
  });

  test('the log holds every tool call as its plain code, marked with the tool', () => {
    const entries = readFileSync(join(harness.home, 'sessions', 'default', 'log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const tools = entries.filter((e) => e.kind === 'tool');
    assert.deepEqual(tools.map((e) => e.tool.name), ['load_data', 'load_data', 'ols', 'save_figure', 'save_figure', 'save_data']);
    const code = (name: string, n = 0) => tools.filter((e) => e.tool.name === name)[n].code as string;
    assert.match(code('load_data'), new RegExp(`^# load_data \\(Python Session tool\\): .*\\nmacro = pd\\.read_csv\\('${join(files, 'macro.csv')}', sep=';', float_precision='round_trip'\\)$`));
    assert.match(code('load_data', 1), /extra = pd\.read_excel\('.*extra\.xlsx', sheet_name='Data'\)/);
    assert.match(code('ols'), /fit = sm\.OLS\(_data\['y'\], sm\.add_constant\(_data\[\['x1', 'x2'\]\]\)\)\.fit\(cov_type='HC1', use_t=True\)/);
    // statsmodels ≥ 0.15 (pip's, as in the test venv) is asked for the plain tuple by name.
    assert.match(code('ols'), /acorr_breusch_godfrey\(fit, nlags=3(, result_object=False)?\)/);
    assert.match(code('save_figure'), /plt\.gcf\(\)\.savefig\(/);
    assert.equal(tools.filter((e) => e.tool.name === 'save_figure')[0].tool.attach, 'figure');
    assert.match(code('save_figure', 1), /fig\.savefig\('.*resid\.png', format='png', bbox_inches='tight', dpi=80\)/);
    assert.match(code('save_data'), /df\.to_csv\('.*merged\.csv', index=False, sep=','\)/);
    assert.ok(tools.every((e) => e.tool.environment?.python?.executable), 'each tool entry says which interpreter ran it');
  });

  test('the notebook validates, opens with where it ran, and keeps the imports once at the top', () => {
    const check = python(['-c', 'import nbformat,sys; nb=nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); print("valid")', join(out, 'record.ipynb')], { cwd: files });
    assert.equal(check.trim(), 'valid');
    const notebook = JSON.parse(readFileSync(join(out, 'record.ipynb'), 'utf8'));
    const cells = notebook.cells as Cell[];
    const opening = joined(cells[0].source);
    assert.equal(cells[0].cell_type, 'markdown');
    assert.match(opening, /# Python Session "default"/);
    assert.match(opening, new RegExp(`Interpreter:\\*\\* \`${TEST_PYTHON}\` \\(CPython 3\\.\\d+`));
    assert.match(opening, /pandas \d+\.\d+/);
    assert.match(opening, /statsmodels \d+\.\d+/);
    assert.match(opening, /matplotlib \d+\.\d+/);
    assert.match(opening, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d to \d\d:\d\d:\d\d UTC/);
    assert.equal(notebook.metadata.language_info.name, 'python');
    assert.match(notebook.metadata.language_info.version, /^3\.\d+\.\d+/);
    assert.equal(notebook.metadata.kernelspec.name, 'python3');
    const imports = joined(cells[1].source);
    for (const line of ['import os', 'import pandas as pd', 'import statsmodels.api as sm', 'import matplotlib.pyplot as plt']) {
      assert.ok(imports.split('\n').includes(line), `${line} is in the imports cell`);
    }
    const toolCells = cells.filter((c) => c.metadata.python_session?.tool || c.metadata.python_session?.attached_tools);
    assert.equal(toolCells.length, 6);
    assert.ok(toolCells.every((c) => !/^(import|from) /m.test(joined(c.source).split('Python Session tool')[1] ?? '')), 'tool code imports nothing itself');
    const drawing = cells.find((c) => joined(c.source).includes("plt.title('y on x1')"))!;
    assert.match(joined(drawing.source), /plt\.gcf\(\)\.savefig\(.*scatter\.png.*\nplt\.show\(\)$/, 'the save of a figure no variable holds is in the cell that drew it, before the figure is shown');
    assert.deepEqual(drawing.metadata.python_session.attached_tools.map((t: { tool: string }) => t.tool), ['save_figure']);
    const failed = cells.find((c) => joined(c.source) === 'undefined_name + 1')!;
    assert.deepEqual(failed.metadata.tags, ['raises-exception']);
    assert.equal(failed.outputs?.[0].output_type, 'error');
    assert.ok(cells.some((c) => c.outputs?.some((o) => o.output_type === 'display_data' && o.data?.['image/png'])), 'the figures are in the notebook');
  });

  test('nbclient re-runs the notebook in a fresh kernel from another folder, and gets the same coefficients', { timeout: 600_000 }, (t) => {
    // Whatever the session wrote must be written again by the notebook, folders included.
    const sessionScatter = statSync(join(out, 'figs', 'scatter.png')).size;
    rmSync(join(out, 'figs'), { recursive: true, force: true });
    rmSync(join(out, 'data'), { recursive: true, force: true });
    const elsewhere = mkdtempSync(join(tmpdir(), 'ps-record-rerun-'));
    try {
      const executed = join(elsewhere, 'executed.ipynb');
      const ran = python(['-c', NBCLIENT_RUN, join(out, 'record.ipynb'), elsewhere, executed], { cwd: elsewhere });
      assert.match(ran, /^python3 \//, 'the kernelspec the notebook names is installed');
      const cells = JSON.parse(readFileSync(executed, 'utf8')).cells as Cell[];
      const errors = cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === 'error').map((o) => ({ tags: c.metadata.tags, source: joined(c.source) })));
      assert.deepEqual(errors, [{ tags: ['raises-exception'], source: 'undefined_name + 1' }], 'only the cell that failed in the session fails');
      const rerun = stdout(cells.find((c) => joined(c.source).includes("print('COEF'"))!);
      const wanted = labelled(printed, 'COEF', 'BSE', 'R2');
      assert.equal(wanted.length, 3, printed);
      assert.deepEqual(labelled(rerun, 'COEF', 'BSE', 'R2'), wanted);
      t.diagnostic(`session and nbclient re-run both printed: ${wanted.join(' | ')}`);
      // The ols cell reports the diagnostics the tool reported.
      const olsCell = stdout(cells.find((c) => c.metadata.python_session?.tool === 'ols')!);
      const bg = olsResult.structuredContent!.breusch_godfrey;
      assert.match(olsCell, /OLS Regression Results/);
      assert.ok(olsCell.includes(`Breusch-Godfrey LM, 3 lags: Obs*R-squared ${bg.lm.toFixed(6)} (p ${bg.lm_pvalue.toFixed(6)})`), olsCell);
      assert.ok(olsCell.includes(`Durbin-Watson stat: ${olsResult.structuredContent!.durbin_watson.toFixed(6)}`));
      const session = olsResult.structuredContent!.params.map((p: { name: string; coef: number }) => `${p.name}=${p.coef.toFixed(10)}`).join(' ');
      assert.equal(wanted[0], `COEF ${session}`, 'the session printed what the ols tool reported');
      assert.match(stdout(cells.find((c) => joined(c.source).includes("print('SAVED'"))!), /SAVED 48 \['year', 'y', 'x1', 'x2'\] True\nFIGURES True/);
      // An empty figure (what saving after Jupyter closed it would give) is a fraction of the size.
      const rerunScatter = statSync(join(out, 'figs', 'scatter.png')).size;
      assert.ok(Math.abs(rerunScatter - sessionScatter) < 0.1 * sessionScatter, `the figure no variable held was saved with its content (${rerunScatter} bytes, ${sessionScatter} in the session)`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('the .py export runs with python3 from another folder and prints the same numbers', { timeout: 300_000 }, () => {
    rmSync(join(out, 'figs'), { recursive: true, force: true });
    const elsewhere = mkdtempSync(join(tmpdir(), 'ps-record-script-'));
    try {
      const script = readFileSync(join(out, 'record.py'), 'utf8');
      assert.match(script, /^# ---\n# jupyter:\n/);
      assert.match(script, /\n# %% \[markdown\]\n# # Python Session "default"/);
      assert.match(script, /\n# %% load_data\n# load_data \(Python Session tool\)/);
      const env = { ...process.env };
      delete env.MPLBACKEND;
      const printedByScript = python([join(out, 'record.py')], { cwd: elsewhere, env });
      assert.deepEqual(labelled(printedByScript, 'COEF', 'BSE', 'R2'), labelled(printed, 'COEF', 'BSE', 'R2'));
      assert.match(printedByScript, /NameError: name 'undefined_name' is not defined/, 'the cell that failed reports its error, and the script goes on');
      assert.match(printedByScript, /SAVED 48/);
      assert.ok(existsSync(join(out, 'figs', 'resid.png')));
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('the export command writes the same record from the log on disk', async () => {
    const viaCli = await harness.cli('export', 'default', join(out, 'cli.ipynb'));
    assert.equal(viaCli.code, 0, viaCli.stderr);
    const script = await harness.cli('export', 'default', join(out, 'cli.py'));
    assert.equal(script.code, 0, script.stderr);
    assert.match(script.stdout, /percent-format script/);
    const sources = (file: string) => (JSON.parse(readFileSync(file, 'utf8')).cells as Cell[]).filter((c) => c.cell_type === 'code').map((c) => joined(c.source));
    assert.deepEqual(sources(join(out, 'cli.ipynb')), sources(join(out, 'record.ipynb')));
    python(['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))', join(out, 'cli.ipynb')], { cwd: files });
    const cells = (file: string) => readFileSync(file, 'utf8').split('\n# %%').slice(2);
    assert.deepEqual(cells(join(out, 'cli.py')), cells(join(out, 'record.py')));
    const usage = await harness.cli('export', 'default');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /file\.ipynb \| file\.py/);
  });
});

describe('the panel shows tool calls as code and exports both formats', { skip: NO_CHROMIUM }, () => {
  let stage: PanelStage;
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let client: Client;
  let recording: RecordingPage;
  let browser: Browser;
  let page: Page;

  before(async () => {
    stage = await startPanelStage('record-e2e');
    ({ stateDir, services, panel, client } = stage);
    recording = await openRecordingPage();
    ({ browser, page } = recording);
  });

  after(async () => {
    await browser?.close();
    await stage?.close();
    assert.deepEqual(recording?.pageErrors ?? [], [], 'the page threw no errors');
  });

  test('a load_data call is in the log as its pandas code, marked load_data; Export gives .ipynb and .py', { timeout: 120_000 }, async () => {
    assert.equal((await page.goto(panel.url))?.status(), 200);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    const data = join(stateDir, 'data.csv');
    writeFileSync(data, 'a,b\n1,2.5\n3,4.5\n');
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallResult;
      assert.ok(!result.isError, JSON.stringify(result));
    };
    await tool('run_python', { code: "print('before the tool')" });
    await tool('load_data', { path: data, name: 'small' });
    await tool('run_python', { code: "print('after the tool', small.b.sum())" });

    const entry = page.locator('.entry.entry-tool[data-tool="load_data"]');
    await entry.waitFor({ timeout: 15_000 });
    assert.equal(await entry.locator('.entry-tool-name').textContent(), 'load_data');
    assert.match((await entry.locator('.entry-code').textContent()) ?? '', new RegExp(`small = pd\\.read_csv\\('${data}'`));
    assert.ok((await entry.locator('.entry-code .tok-string').count()) > 0, 'the code is highlighted');
    assert.match((await entry.locator('.outputs').textContent()) ?? '', /2 rows × 2 columns/, "the tool's report is its output");
    await page.locator('.entry:not(.entry-running)', { hasText: 'after the tool' }).waitFor();
    const order = await page.locator('.log-feed .entry').evaluateAll((nodes) => nodes.map((n) => (n as HTMLElement).dataset.tool ?? (n.textContent?.includes('before the tool') ? 'before' : 'after')));
    assert.deepEqual(order, ['before', 'load_data', 'after']);

    assert.deepEqual(await page.locator('#export-group a').allTextContents(), ['.ipynb', '.py']);
    const downloads = await page.evaluate(async () => {
      const get = async (selector: string) => {
        const response = await fetch(document.querySelector<HTMLAnchorElement>(selector)!.href);
        return { type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), body: await response.text() };
      };
      return { notebook: await get('#export'), script: await get('#export-py') };
    });
    assert.equal(downloads.notebook.type, 'application/x-ipynb+json');
    assert.match(downloads.notebook.disposition ?? '', /attachment; filename="default-.*\.ipynb"/);
    const notebook = JSON.parse(downloads.notebook.body);
    assert.equal(notebook.metadata.kernelspec.name, 'python3');
    assert.match(notebook.cells[0].source.join(''), /# Python Session "default"/);
    assert.ok(notebook.cells.some((c: Cell) => c.metadata.python_session?.tool === 'load_data'));
    assert.equal(downloads.script.type, 'text/x-python; charset=utf-8');
    assert.match(downloads.script.disposition ?? '', /attachment; filename="default-.*\.py"/);
    assert.match(downloads.script.body, /\n# %% load_data\n# load_data \(Python Session tool\)[^\n]*\nsmall = pd\.read_csv\(/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'record-tool-entry.png') });
  });
});
