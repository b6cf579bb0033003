/** The record's plan and the percent script: which cell is what, where tool code goes, and imports. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LogEntry } from './session-log.js';
import { orderImports, planRecord, withAttached } from './record-plan.js';
import { buildScript, scriptCode } from './script-export.js';
import { buildNotebook } from './notebook-export.js';

let id = 0;
const at = (n: number) => new Date(Date.UTC(2026, 0, 2, 10, 0, n)).toISOString();
const run = (code: string, more: Partial<LogEntry> = {}): LogEntry => ({ id: ++id, time: at(id), client: 'test', code, status: 'ok', executionCount: id, durationMs: 5, outputs: [], ...more });
const tool = (name: string, code: string, imports: string[], more: Partial<NonNullable<LogEntry['tool']>> = {}): LogEntry => ({
  id: ++id,
  kind: 'tool',
  tool: { name, imports, ...more },
  time: at(id),
  client: 'test',
  code: `# ${name} (Python Session tool): it\n${code}`,
  status: 'ok',
  executionCount: null,
  durationMs: 5,
  outputs: [{ type: 'stream', name: 'stdout', text: `${name} report\n` }],
});
const env = { python: { version: '3.11.2', implementation: 'CPython', executable: '/usr/bin/python3' }, packages: { pandas: '1.5.3' } };
const figure = { type: 'display' as const, text: '<Figure>', figures: ['/nowhere/fig.png'] };

test('each entry becomes a cell in run order, marked by what it was', () => {
  const entries = [
    tool('load_data', "df = pd.read_csv('/abs/a.csv')", ['import pandas as pd'], { environment: env }),
    run('print(df.shape)'),
    run('undefined_name', { status: 'error', error: { ename: 'NameError', evalue: "name 'undefined_name' is not defined", message: '', traceback: [] } }),
    run('while True: pass', { status: 'timeout', durationMs: 600_000 }),
    run('import time; time.sleep(99)', { status: 'error', error: { ename: 'KeyboardInterrupt', evalue: '', message: '', traceback: [] } }),
    run('import os; os._exit(1)', { status: 'died', executionCount: null, error: { ename: 'KernelDied', evalue: 'exit code 1', message: '', traceback: [] } }),
  ];
  const plan = planRecord(entries, { session: 'main' });
  assert.deepEqual(plan.cells.map((c) => c.mode), ['tool', 'ran', 'raised', 'not-rerun', 'not-rerun', 'not-rerun']);
  assert.match(plan.cells[3].note!, /timed out after 600 s/);
  assert.match(plan.cells[4].note!, /interrupted/);
  assert.equal(plan.cells[5].clears, true, 'a kernel death empties the namespace');
  assert.deepEqual(plan.imports, ['import pandas as pd']);
  assert.match(plan.header, /# Python Session "main"/);
  assert.match(plan.header, /`\/usr\/bin\/python3` \(CPython 3\.11\.2\)/);
  assert.match(plan.header, /pandas 1\.5\.3/);
  assert.match(plan.header, /2026-01-02 10:00:0\d to 10:00:0\d UTC; 5 runs and 1 tool call/);
});

test('save_figure of a figure no variable holds runs at the end of the cell that drew it', () => {
  const entries = [
    run('plt.plot([1, 2])', { outputs: [figure] }),
    run('x = 1'),
    tool('save_figure', "plt.gcf().savefig('/abs/f.png')", ['import os', 'import matplotlib.pyplot as plt'], { attach: 'figure' }),
    tool('save_figure', "fig.savefig('/abs/g.png')", ['import os']),
  ];
  const plan = planRecord(entries, { session: 's' });
  assert.equal(plan.cells.length, 3);
  assert.deepEqual(plan.cells[0].attached.map((e) => e.tool?.name), ['save_figure']);
  assert.equal(plan.cells[2].mode, 'tool');
  assert.deepEqual(plan.imports, ['import os', 'import matplotlib.pyplot as plt']);
});

test('a cell that empties the namespace imports again what later tool code needs', () => {
  const entries = [
    tool('load_data', "df = pd.read_csv('/a.csv')", ['import pandas as pd']),
    tool('reset_namespace', '%reset -f', [], { clearsNamespace: true }),
    tool('ols', 'fit = sm.OLS(...)', ['import pandas as pd', 'import statsmodels.api as sm']),
  ];
  const plan = planRecord(entries, { session: 's' });
  assert.deepEqual(plan.cells[1].reimports, ['import pandas as pd', 'import statsmodels.api as sm']);
  assert.deepEqual(plan.cells[0].reimports, []);
});

test('imports come in the usual order, each once', () => {
  assert.deepEqual(
    orderImports(['import matplotlib.pyplot as plt', 'from statsmodels.stats.stattools import durbin_watson', 'import statsmodels.api as sm', 'import pandas as pd', 'import os', 'import pandas as pd', 'import pyreadstat']),
    ['import os', 'import pandas as pd', 'import statsmodels.api as sm', 'from statsmodels.stats.stattools import durbin_watson', 'import matplotlib.pyplot as plt', 'import pyreadstat'],
  );
});

test('in a script, magics and shell escapes are comments, and a cell magic comments the whole cell', () => {
  assert.equal(scriptCode('%matplotlib inline\nx = 1\n  !ls'), '# %matplotlib inline\nx = 1\n#   !ls');
  assert.equal(scriptCode('%%bash\necho hi'), '# %%bash\n# echo hi');
});

test('the script wraps a cell that raised so it goes on, and keeps the unrunnable ones as comments', async () => {
  const entries = [
    run('x = 1\nprint(y)', { status: 'error', error: { ename: 'NameError', evalue: "name 'y' is not defined", message: '', traceback: [] } }),
    run('def f(:\n  pass', { status: 'error', error: { ename: 'SyntaxError', evalue: 'invalid syntax', message: '', traceback: [] } }),
    run('s = """a\nb"""\nboom()', { status: 'error', error: { ename: 'NameError', evalue: 'boom', message: '', traceback: [] } }),
    tool('reset_namespace', '%reset -f', [], { clearsNamespace: true }),
  ];
  const { text, cells } = await buildScript(entries, { session: 's', kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } });
  assert.equal(cells, 4);
  assert.match(text, /^# ---\n# jupyter:\n# {3}kernelspec:/);
  assert.match(text, /try:\n {4}x = 1\n {4}print\(y\)\nexcept Exception as _error:/);
  assert.match(text, /# def f\(:/);
  assert.match(text, /# s = """a\n# b"""/, 'a multi-line string is not indented into a try block');
  assert.match(text, /\n# %reset -f/);
});

test('the notebook tags cells that raised, comments out a timed-out run and names the interpreter', async () => {
  const entries = [
    tool('load_data', "df = pd.read_csv('/abs/a.csv')", ['import pandas as pd'], { environment: env }),
    run('1/0', { status: 'error', error: { ename: 'ZeroDivisionError', evalue: 'division by zero', message: '', traceback: ['tb'] }, outputs: [{ type: 'error', name: 'ZeroDivisionError', text: 'division by zero' }] }),
    run('while True: pass', { status: 'timeout' }),
  ];
  const notebook = await buildNotebook(entries, { session: 's', kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } });
  const cells = notebook.cells as { cell_type: string; source: string[]; metadata: Record<string, any>; outputs?: Record<string, unknown>[] }[];
  assert.deepEqual(cells.map((c) => c.cell_type), ['markdown', 'code', 'code', 'code', 'code']);
  assert.deepEqual(cells[1].source, ['# The imports the Python Session tool code below uses\n', 'import pandas as pd']);
  assert.equal(cells[2].metadata.python_session.tool, 'load_data');
  assert.deepEqual(cells[2].outputs, [{ output_type: 'stream', name: 'stdout', text: ['load_data report\n'] }]);
  assert.deepEqual(cells[3].metadata.tags, ['raises-exception']);
  assert.deepEqual(cells[3].outputs, [{ output_type: 'error', ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: ['tb'] }]);
  assert.match(cells[4].source.join(''), /^# Python Session: this run timed out .*\n# while True: pass$/);
  assert.equal((notebook.metadata.language_info as { version?: string }).version, '3.11.2');
});

test('attached save code goes before the last top-level plt.show(), which closes the figure in Jupyter, else at the end', () => {
  assert.equal(withAttached('plt.plot(x)\nplt.show()  # done', ['save()']), "plt.plot(x)\n# Run before plt.show(): Jupyter closes a figure once it is shown.\nsave()\nplt.show()  # done");
  assert.match(withAttached('for i in r:\n    plt.plot(i)\n    plt.show()', ['save()']), /plt\.show\(\)\n\n# Run at the end of the cell that drew the figure.*\nsave\(\)$/);
  assert.equal(withAttached('x = 1', []), 'x = 1');
});
