import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describePythonError, stripAnsi } from './error-text.js';

const esc = '\u001b';

test('names the line in the failing cell (IPython 8.5 format, with colour codes)', () => {
  const info = describePythonError(
    {
      ename: 'NameError',
      evalue: "name 'undefined_name' is not defined",
      traceback: [`${esc}[0;31mNameError${esc}[0m  Traceback`, `Cell ${esc}[0;32mIn [4], line 2${esc}[0m\n      1 x = 1\n----> 2 undefined_name\n`],
    },
    4,
  );
  assert.equal(info.message, "Python error: NameError on line 2: name 'undefined_name' is not defined");
  assert.equal(info.traceback[1].includes(esc), false);
});

test('current IPython format and a function from an earlier cell', () => {
  const info = describePythonError(
    { ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: ['Cell In[7], line 3\n', 'Cell In[2], line 2, in f(x)\n'] },
    7,
  );
  assert.equal(info.message, 'Python error: ZeroDivisionError on line 2 of cell In[2] (called from line 3): division by zero');
  assert.equal(info.cell, 2);
});

test('IPython 8.0 "Input In" and IPython 7 formats', () => {
  assert.equal(describePythonError({ ename: 'E', evalue: 'v', traceback: ['Input In [3], in <cell line: 5>()'] }, 3).line, 5);
  assert.equal(describePythonError({ ename: 'E', evalue: 'v', traceback: ['<ipython-input-3-abc123> in <module>\n      1 a\n----> 2 b\n'] }, 3).line, 2);
});

test('syntax errors drop the temporary file name', () => {
  const info = describePythonError({ ename: 'SyntaxError', evalue: 'invalid syntax (2843912.py, line 2)', traceback: [] }, 5);
  assert.equal(info.message, 'Python error: SyntaxError on line 2: invalid syntax');
});

test('an error with no cell frame has no line', () => {
  assert.equal(describePythonError({ ename: 'KeyboardInterrupt', evalue: '', traceback: [] }, 1).message, 'Python error: KeyboardInterrupt');
  assert.equal(stripAnsi(`${esc}[1;32mok${esc}[0m`), 'ok');
});
