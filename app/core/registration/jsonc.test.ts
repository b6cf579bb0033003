import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonSyntaxError, nodeValue, parseJson } from './jsonc.js';

const JSONC = { comments: true, trailingCommas: true };

test('strict mode agrees with JSON.parse on valid documents', () => {
  const samples = [
    '{}',
    '[]',
    '{"a": 1, "b": [true, false, null], "c": {"d": "e\\n\\u00e9\\"x"}}',
    '  {"n": -0.5e+10, "m": 0, "k": 1E3}  \n',
    '"just a string"',
    '42',
    '{"emoji": "\\ud83d\\ude00", "raw": "日本"}',
  ];
  for (const s of samples) {
    const parsed = parseJson(s);
    assert.ok(parsed.root, s);
    assert.deepEqual(nodeValue(parsed.root), JSON.parse(s), s);
  }
});

test('strict mode rejects what JSON.parse rejects', () => {
  const bad = [
    '{"a": 1,}',
    '[1, 2,]',
    '{"a": 1} // c',
    '/* c */ {}',
    "{'a': 1}",
    '{a: 1}',
    '{"a": 01}',
    '{"a": .5}',
    '{"a": "tab\there"}',
    '{"a": "\\x41"}',
    '{"a": 1} {"b": 2}',
    '{"a": tru}',
    '{"a" 1}',
    '{"a": 1',
    '"unterminated',
    '-',
  ];
  for (const s of bad) {
    assert.throws(() => JSON.parse(s), SyntaxError, `JSON.parse accepted ${s}`);
    assert.throws(() => parseJson(s), JsonSyntaxError, s);
  }
});

function syntaxError(text: string): JsonSyntaxError {
  try {
    parseJson(text);
  } catch (e) {
    assert.ok(e instanceof JsonSyntaxError);
    return e;
  }
  return assert.fail(`accepted ${text}`);
}

test('errors point at the line and column of the problem', () => {
  const e = syntaxError('{\n  "a": 1,\n  "b": oops\n}');
  assert.equal(e.line, 3);
  assert.equal(e.column, 8);
  assert.match(e.message, /unexpected "o" at line 3, column 8/);
});

test('trailing comma errors point at the comma', () => {
  const e = syntaxError('{\n  "a": 1,\n}');
  assert.equal(e.line, 2);
  assert.equal(e.column, 9);
  assert.match(e.message, /trailing comma/);
});

test('JSONC mode accepts comments and trailing commas and records them', () => {
  const text = [
    '// leading',
    '{',
    '  /* block */ "servers": {',
    '    "x": {"command": "a", "args": ["b",],}, // trailing',
    '  },',
    '}',
    '',
  ].join('\r\n');
  const parsed = parseJson(text, JSONC);
  assert.ok(parsed.root);
  assert.deepEqual(nodeValue(parsed.root), { servers: { x: { command: 'a', args: ['b'] } } });
  assert.equal(parsed.hasTrailingCommas, true);
  assert.deepEqual(
    parsed.comments.map((c) => text.slice(c.start, c.end)),
    ['// leading', '/* block */', '// trailing'],
  );
});

test('comment markers inside strings are text, not comments', () => {
  const parsed = parseJson('{"url": "http://x/*y*/"}', JSONC);
  assert.equal(parsed.comments.length, 0);
  assert.deepEqual(nodeValue(parsed.root!), { url: 'http://x/*y*/' });
});

test('an unterminated block comment is an error', () => {
  assert.throws(() => parseJson('{} /* open', JSONC), /unterminated \/\* comment/);
});

test('a document of only whitespace or comments has no root', () => {
  assert.equal(parseJson('  \n').root, undefined);
  assert.equal(parseJson('// nothing yet\n', JSONC).root, undefined);
  assert.throws(() => parseJson('// nothing yet\n'), JsonSyntaxError);
});

test('offsets locate keys and values', () => {
  const text = '{"a": [1, 2], "bb": {"c": null}}';
  const root = parseJson(text).root;
  assert.ok(root && root.kind === 'object');
  const [a, bb] = root.members;
  assert.equal(text.slice(a.keyStart, a.keyStart + 3), '"a"');
  assert.equal(text.slice(a.value.start, a.value.end), '[1, 2]');
  assert.equal(text.slice(bb.value.start, bb.value.end), '{"c": null}');
  assert.equal(root.start, 0);
  assert.equal(root.end, text.length);
});

test('duplicate keys keep the last value, as JSON.parse does', () => {
  const s = '{"a": 1, "a": 2}';
  assert.deepEqual(nodeValue(parseJson(s).root!), JSON.parse(s));
});

test('a "__proto__" key stays a plain key', () => {
  const value = nodeValue(parseJson('{"__proto__": {"polluted": true}}').root!) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('absurd nesting is refused instead of overflowing the stack', () => {
  assert.throws(() => parseJson('['.repeat(100_000)), /nesting too deep/);
});
