/**
 * The panel's Variables view and data viewer helpers (resources/python/python_session: variables,
 * data_page, data_summary) called through the helper bridge on real kernels: ipykernel and the
 * built-in worker on Debian's python3, and the worker on an interpreter with NumPy but no pandas.
 * Reading the namespace must leave the execution count, `_` and the history as they were.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KernelSupervisor, LocalProvisioner } from '../kernel/kernel.js';
import { callHelper, ToolCallError } from '../sessions/helper-bridge.js';
import type { SessionKernel } from '../kernel/supervision/session-kernel.js';
import { outputText } from '../kernel/execution/outputs.js';
import { hasModule, pyenvPython, pyenvVersions } from '../testing/interpreters-here.js';
import { TEST_PYTHON, markChildProcesses } from '../testing/test-python.js';
import { WorkerProvisioner } from '../worker/worker-provisioner.js';

const startedHere = markChildProcesses('workspace-helpers-test');
after(() => startedHere.allEnded(5000));

interface VariableRow {
  name: string;
  type: string;
  kind: string;
  shape: number[] | null;
  length: number | null;
  preview: string;
  viewable: boolean;
  error: string | null;
}

interface Page {
  kind: string;
  total_rows: number;
  filtered_rows: number;
  columns: { name: string; dtype: string; position: number }[];
  index: string[][];
  rows: (string | null)[][];
}

const SETUP = [
  'import pandas as pd, numpy as np',
  "df = pd.DataFrame({'<b>city</b>': ['Oslo', 'lima', None, 'Rome'], 'pop': [0.7, 10.0, np.nan, 2.8]})",
  'class Loud:',
  '    def __getattr__(self, name):',
  "        print('looked up', name)",
  '        raise AttributeError(name)',
  'class Stuck:',
  '    def __repr__(self):',
  '        while True: pass',
  'loud, stuck = Loud(), Stuck()',
].join('\n');

/** What reading must not change: `_` and `__`, `Out`, the execution count, the input history and the names. */
const STATE =
  "(repr(_), repr(__), len(Out) if 'Out' in globals() else None, get_ipython().execution_count if 'get_ipython' in globals() else None, len(In) if 'In' in globals() else None, get_ipython().history_manager.input_hist_raw[-1] if 'get_ipython' in globals() else None, sorted(k for k in globals() if not k.startswith('_')))";

async function state(kernel: SessionKernel): Promise<unknown> {
  return (await callHelper<{ value: unknown }>(kernel, 'value', { expression: STATE })).structured!.value;
}

function readsWithoutChanging(engine: string, start: () => Promise<SessionKernel>) {
  describe(`variables and the data viewer on ${engine}`, () => {
    let kernel: SessionKernel;
    before(async () => {
      kernel = await start();
      const setup = await kernel.execute(SETUP);
      assert.equal(setup.status, 'ok', outputText(setup.outputs));
      await kernel.execute('answer = 41');
      const last = await kernel.execute('answer + 1');
      assert.equal(last.status, 'ok');
    });
    after(async () => kernel.shutdown());

    test('variables lists every name, says which could not be shown, and changes nothing', async () => {
      const before = await state(kernel);
      const listed = await callHelper<{ names: VariableRow[]; count: number }>(kernel, 'variables', {});
      assert.deepEqual(listed.outputs, [], 'nothing printed by a __getattr__ reaches the call');
      const rows = new Map(listed.structured!.names.map((row) => [row.name, row]));
      assert.deepEqual(rows.get('df'), { ...rows.get('df')!, type: 'pandas.DataFrame', kind: 'data', shape: [4, 2], viewable: true, error: null });
      assert.equal(rows.get('pd')!.kind, 'module');
      assert.equal(rows.get('answer')!.preview, '41');
      assert.equal(rows.get('loud')!.error, null);
      assert.match(rows.get('stuck')!.error ?? '', /timed out/);
      assert.deepEqual(await state(kernel), before);
      const next = await kernel.execute('_');
      assert.equal(outputText(next.outputs).trim(), '42', '`_` is still the last result');
    });

    test('data_page sorts and filters, and data_summary counts', async () => {
      const before = await state(kernel);
      const sorted = await callHelper<Page>(kernel, 'data_page', { expression: 'df', offset: 0, limit: 10, sort: [{ column: 'pop', ascending: false }], filter: null, columns: null });
      assert.equal(sorted.structured!.kind, 'DataFrame');
      assert.deepEqual(sorted.structured!.index, [['1'], ['3'], ['0'], ['2']]);
      assert.deepEqual(sorted.structured!.rows[3], [null, null]);
      assert.equal(sorted.structured!.columns[0].name, '<b>city</b>');
      const filtered = await callHelper<Page>(kernel, 'data_page', { expression: 'df', offset: 0, limit: 10, sort: [], filter: { text: 'O', column: '<b>city</b>' }, columns: null });
      assert.deepEqual(filtered.structured!.rows.map((r) => r[0]), ['Oslo', 'Rome']);
      assert.equal(filtered.structured!.filtered_rows, 2);
      const summary = await callHelper<{ columns: { name: string; missing: number; mean: number | null }[] }>(kernel, 'data_summary', { expression: 'df', columns: null });
      assert.deepEqual(summary.structured!.columns.map((c) => [c.name, c.missing]), [['<b>city</b>', 1], ['pop', 1]]);
      assert.deepEqual(await state(kernel), before);
    });
  });
}

readsWithoutChanging('ipykernel', () => KernelSupervisor.start(new LocalProvisioner({ interpreter: TEST_PYTHON })));
readsWithoutChanging('the built-in worker', () => KernelSupervisor.start(new WorkerProvisioner({ interpreter: TEST_PYTHON })));

const numpyOnly = pyenvVersions()
  .map((version) => pyenvPython(version))
  .find((python) => hasModule(python, 'numpy') && !hasModule(python, 'pandas'));

describe('the data viewer on a worker without pandas', { skip: numpyOnly ? false : 'no interpreter here has NumPy without pandas' }, () => {
  let kernel: SessionKernel;
  before(async () => {
    kernel = await KernelSupervisor.start(new WorkerProvisioner({ interpreter: numpyOnly! }));
    await kernel.execute("import numpy as np\narr = np.arange(6)\nitems = ['b', 'a']");
  });
  after(async () => kernel.shutdown());

  test('a list opens; an array says to install pandas, with the command', async () => {
    const listed = await callHelper<Page>(kernel, 'data_page', { expression: 'items', sort: [{ column: 'value', ascending: true }] });
    assert.deepEqual(listed.structured!.rows, [['a'], ['b']]);
    await assert.rejects(callHelper(kernel, 'data_page', { expression: 'arr' }), (error: unknown) => {
      assert.ok(error instanceof ToolCallError);
      assert.equal(error.kind, 'missing_package');
      assert.match(error.install ?? '', /-m pip install pandas$/);
      return true;
    });
    const variables = await callHelper<{ names: VariableRow[] }>(kernel, 'variables', {});
    assert.deepEqual(
      variables.structured!.names.filter((row) => row.name === 'arr').map((row) => [row.shape, row.viewable]),
      [[[6], true]],
    );
  });
});
