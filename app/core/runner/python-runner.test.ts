/** PythonRunner, the library API, against a real kernel. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PythonError, PythonRunner, PythonTimeoutError } from './python-runner.js';
import { TEST_PYTHON, isAlive, markChildProcesses } from '../testing/test-python.js';

const startedHere = markChildProcesses('python-runner-test');
let py: PythonRunner;
before(async () => {
  py = await PythonRunner.start({ interpreter: TEST_PYTHON });
});
after(async () => {
  await py.close();
  await startedHere.allEnded();
});

test('the example from the README works as written', async () => {
  await py.run("import pandas as pd; df = pd.DataFrame({'x': [1, 2, 3]})");
  const described = await py.run('df.describe()');
  assert.match(described, /^\s+x\ncount\s+3\.0\nmean\s+2\.0/);
  assert.equal(await py.value('df.x.sum()'), 6);
});

test('run() throws PythonError carrying what was printed before the failure', async () => {
  await assert.rejects(py.run("print('partial')\n1/0"), (error: unknown) => {
    assert.ok(error instanceof PythonError);
    assert.equal(error.message, 'Python error: ZeroDivisionError on line 2: division by zero');
    assert.equal(error.output, 'partial\n');
    assert.equal(error.line, 2);
    return true;
  });
});

test('a timeout interrupts and reports the output so far', async () => {
  await assert.rejects(py.run("print('tick', flush=True)\nimport time; time.sleep(20)", { timeoutS: 0.7 }), (error: unknown) => {
    assert.ok(error instanceof PythonTimeoutError);
    assert.equal(error.output, 'tick\n');
    return true;
  });
});

test('value() carries numpy, pandas, datetimes, NaN and infinities through JSON faithfully', async () => {
  await py.run(
    [
      'import numpy as np, pandas as pd, datetime as dt',
      "frame = pd.DataFrame({'a': [1, 2], 'b': [0.5, float('nan')]}, index=['r1', 'r2'])",
    ].join('\n'),
  );
  assert.equal(await py.value('np.int64(7)'), 7);
  assert.equal(await py.value('np.float32(0.5)'), 0.5);
  assert.deepEqual(await py.value('np.arange(6).reshape(2, 3)'), [
    [0, 1, 2],
    [3, 4, 5],
  ]);
  assert.deepEqual(await py.value("pd.Series([1.5, 2.5], index=['x', 'y'], name='s')"), { name: 's', dtype: 'float64', index: ['x', 'y'], values: [1.5, 2.5] });
  const frame = await py.valueDetails<{ columns: string[]; index: string[]; data: unknown[][] }>('frame');
  assert.deepEqual(frame.value.columns, ['a', 'b']);
  assert.deepEqual(frame.value.index, ['r1', 'r2']);
  assert.deepEqual(frame.value.data, [
    [1, 0.5],
    [2, null],
  ]);
  assert.ok(frame.notes.some((note) => /NaN/.test(note)), 'NaN becomes null with a note');
  const inf = await py.valueDetails('[float("inf"), -float("inf"), 1.0]');
  assert.deepEqual(inf.value, [null, null, 1]);
  assert.ok(inf.notes.length > 0);
  assert.equal(await py.value('dt.datetime(2024, 5, 6, 7, 8, 9)'), '2024-05-06T07:08:09');
  assert.equal(await py.value('0.1 + 0.2'), 0.30000000000000004, 'doubles round-trip exactly');
  await assert.rejects(py.value('no_such_name'), /NameError|no_such_name/);
});

test('value() leaves the namespace as it was', async () => {
  const before = await py.run("sorted(n for n in dir() if not n.startswith('_'))");
  await py.value('1 + 1');
  assert.equal(await py.run("sorted(n for n in dir() if not n.startswith('_'))"), before);
});

test('saveFigure() writes the current figure, creating folders', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ps-fig-'));
  await py.run('import matplotlib\nmatplotlib.use("agg")\nimport matplotlib.pyplot as plt\nplt.figure(); plt.plot([1, 3, 2])');
  const target = join(dir, 'nested', 'deeper', 'line.png');
  const saved = await py.saveFigure(target, { dpi: 50 });
  assert.equal(saved.path, target);
  const bytes = await readFile(target);
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
  assert.equal(saved.bytes, (await stat(target)).size);
});

test('close() leaves no process behind', async () => {
  const other = await PythonRunner.start({ interpreter: TEST_PYTHON });
  const pid = other.kernel.pid!;
  assert.equal(await other.run('2 ** 10'), '1024');
  await other.close();
  assert.equal(isAlive(pid), false);
});
