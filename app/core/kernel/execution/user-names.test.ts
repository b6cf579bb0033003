import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namesChange, readUserNames } from './user-names.js';

const reply = (text: string) => ({ user_expressions: { __python_session_names__: { status: 'ok', data: { 'text/plain': text } } } });

test('names come with their fingerprints; a kernel that sends names alone still gives the names', () => {
  const names = readUserNames(reply("'df:7f01:a2 fit:7f02:b3'"))!;
  assert.deepEqual([...names], [['df', '7f01:a2'], ['fit', '7f02:b3']]);
  assert.deepEqual([...readUserNames(reply("'x y'"))!.keys()], ['x', 'y']);
  assert.equal(readUserNames(reply("''"))!.size, 0);
  assert.equal(readUserNames({}), undefined);
  assert.equal(readUserNames({ user_expressions: { __python_session_names__: { status: 'error' } } }), undefined);
});

test('a change is a new name, a rebound one (another object or type), or a name gone', () => {
  const before = readUserNames(reply("'df:1:a fit:2:b kept:3:c old:4:d'"))!;
  const after = readUserNames(reply("'df:1:a fit:9:b kept:3:e new:5:f'"))!;
  assert.deepEqual(namesChange(before, after), { changed: ['fit', 'kept', 'new'], gone: ['old'] });
  assert.deepEqual(namesChange(after, after), { changed: [], gone: [] });
});
