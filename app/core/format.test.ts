import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutLine } from './format.js';
import { firstLine } from './tools/error-words.js';
import { panelBusyText } from './daemon/panel/error-words.js';

test('cutLine keeps the first line of the text, trimmed, whole when it fits', () => {
  assert.equal(cutLine('  df = load()\nprint(df)\n', 80), 'df = load()');
  assert.equal(cutLine('x'.repeat(80), 80), 'x'.repeat(80));
  assert.equal(cutLine('', 80), '');
});

test('cutLine cuts a longer first line to max characters, the last one …', () => {
  const cut = cutLine(`${'a'.repeat(100)}\nnext`, 80);
  assert.equal(cut, `${'a'.repeat(79)}…`);
  assert.equal(cut.length, 80);
  assert.equal(cutLine('y'.repeat(61), 60), `${'y'.repeat(59)}…`);
});

test('the tools and the panel mention running code through the same cut', () => {
  const code = `${'total = '.repeat(20)}1\nprint(total)`;
  assert.equal(firstLine(code), `\`${cutLine(code, 80)}\` …`);
  assert.equal(firstLine('x = 1'), '`x = 1`');
  assert.equal(
    panelBusyText({ run: 'default-3', kind: 'code', runningMs: 75_000, code }),
    `The session is running code (run default-3, for 1 min 15 s: ${cutLine(code, 60)}); interrupt it first, or try again when it ends.`,
  );
});
