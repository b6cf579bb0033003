import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCarriageReturns } from './carriage-returns.js';

test('a redrawn line keeps its last state; other lines are untouched', () => {
  const bar = Array.from({ length: 101 }, (_, i) => `\r${String(i).padStart(3)}%|${'#'.repeat(Math.floor(i / 10)).padEnd(10)}|`).join('');
  assert.equal(applyCarriageReturns(`start\n${bar}\ndone\n`), `start\n100%|##########|\ndone\n`);
});

test('a shorter frame overwrites only its own width, as on a terminal', () => {
  assert.equal(applyCarriageReturns('loading 100\rdone'), 'doneing 100');
});

test('CRLF line ends and a trailing carriage return leave the text as it reads', () => {
  assert.equal(applyCarriageReturns('a\r\nb\r\n'), 'a\nb\n');
  assert.equal(applyCarriageReturns('50%\r'), '50%');
  assert.equal(applyCarriageReturns('no returns\n'), 'no returns\n');
});
