import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonShapeError, applyEdits, detectFormat, setJsonPath } from './json-edit.js';
import { type JsonValue, nodeValue, parseJson } from './jsonc.js';

const STRICT = { comments: false, trailingCommas: false };
const JSONC = { comments: true, trailingCommas: true };
const PATH = ['mcpServers', 'python-session'];
const ENTRY = { command: '/usr/bin/node', args: ['/opt/ps/main.js'] };

function edit(text: string, value: JsonValue | undefined, options = STRICT, path = PATH): string {
  return setJsonPath(text, parseJson(text, options), path, value, options);
}

test('adds an entry after the last server, in the file\'s own indentation', () => {
  const text = '{\n    "mcpServers": {\n        "other": {"command": "x"}\n    },\n    "theme": "dark"\n}\n';
  assert.equal(
    edit(text, ENTRY),
    [
      '{',
      '    "mcpServers": {',
      '        "other": {"command": "x"},',
      '        "python-session": {',
      '            "command": "/usr/bin/node",',
      '            "args": [',
      '                "/opt/ps/main.js"',
      '            ]',
      '        }',
      '    },',
      '    "theme": "dark"',
      '}',
      '',
    ].join('\n'),
  );
});

test('creates the servers key when missing, keeping the other keys untouched', () => {
  const text = '{\n  "numStartups": 3,\n  "projects": {"/a": {"x": 1}}\n}';
  const out = edit(text, { command: 'n' });
  assert.equal(
    out,
    '{\n  "numStartups": 3,\n  "projects": {"/a": {"x": 1}},\n  "mcpServers": {\n    "python-session": {\n      "command": "n"\n    }\n  }\n}',
  );
});

test('fills an empty servers object and an empty file', () => {
  assert.equal(
    edit('{\n  "mcpServers": {}\n}\n', { command: 'n' }),
    '{\n  "mcpServers": {\n    "python-session": {\n      "command": "n"\n    }\n  }\n}\n',
  );
  assert.equal(edit('', { command: 'n' }), '{\n  "mcpServers": {\n    "python-session": {\n      "command": "n"\n    }\n  }\n}\n');
  assert.equal(edit('{}', { command: 'n' }), '{\n  "mcpServers": {\n    "python-session": {\n      "command": "n"\n    }\n  }\n}');
});

test('replaces an existing entry in place', () => {
  const text = '{\n  "mcpServers": {\n    "python-session": {"command": "old"},\n    "z": {}\n  }\n}\n';
  assert.equal(
    edit(text, { command: 'new' }),
    '{\n  "mcpServers": {\n    "python-session": {\n      "command": "new"\n    },\n    "z": {}\n  }\n}\n',
  );
});

test('returns the same text when the value is already there', () => {
  const text = '{"mcpServers":{"python-session":{"command":"n"}}}';
  assert.equal(edit(text, { command: 'n' }), text);
  assert.equal(edit('{"a": 1}', undefined), '{"a": 1}');
});

test('removes the last, a middle and the only entry with their lines and commas', () => {
  const last = '{\n  "mcpServers": {\n    "a": 1,\n    "python-session": {\n      "command": "n"\n    }\n  }\n}\n';
  assert.equal(edit(last, undefined), '{\n  "mcpServers": {\n    "a": 1\n  }\n}\n');

  const middle = '{\n  "mcpServers": {\n    "python-session": {"command": "n"},\n    "b": 2\n  }\n}\n';
  assert.equal(edit(middle, undefined), '{\n  "mcpServers": {\n    "b": 2\n  }\n}\n');

  const only = '{\n  "mcpServers": {\n    "python-session": {"command": "n"}\n  },\n  "k": 1\n}\n';
  assert.equal(edit(only, undefined), '{\n  "mcpServers": {},\n  "k": 1\n}\n');

  const inline = '{"mcpServers": {"a": 1, "python-session": {"command": "n"}, "b": 2}}';
  assert.equal(edit(inline, undefined), '{"mcpServers": {"a": 1, "b": 2}}');
});

test('a minified file stays on one line', () => {
  assert.equal(edit('{"mcpServers":{"a":1}}', { command: 'n' }), '{"mcpServers":{"a":1,"python-session":{"command":"n"}}}');
  assert.equal(edit('{"x":1}', { command: 'n' }), '{"x":1,"mcpServers":{"python-session":{"command":"n"}}}');
});

test('CRLF line endings and tab indentation are kept', () => {
  const text = '{\r\n\t"servers": {\r\n\t\t"a": {}\r\n\t}\r\n}\r\n';
  assert.deepEqual(detectFormat(text), { indent: '\t', eol: '\r\n' });
  assert.equal(
    edit(text, { type: 'stdio' }, JSONC, ['servers', 'python-session']),
    '{\r\n\t"servers": {\r\n\t\t"a": {},\r\n\t\t"python-session": {\r\n\t\t\t"type": "stdio"\r\n\t\t}\r\n\t}\r\n}\r\n',
  );
});

test('JSONC: comments stay where they were, including one trailing the last server', () => {
  const text = [
    '{',
    '  // My servers',
    '  "servers": {',
    '    /* the fetcher */',
    '    "fetch": {"type": "stdio", "command": "uvx"} // added by hand',
    '  },',
    '  "inputs": [],',
    '}',
    '',
  ].join('\n');
  const out = edit(text, { type: 'stdio', command: 'n' }, JSONC, ['servers', 'python-session']);
  assert.equal(
    out,
    [
      '{',
      '  // My servers',
      '  "servers": {',
      '    /* the fetcher */',
      '    "fetch": {"type": "stdio", "command": "uvx"}, // added by hand',
      '    "python-session": {',
      '      "type": "stdio",',
      '      "command": "n"',
      '    }',
      '  },',
      '  "inputs": [],',
      '}',
      '',
    ].join('\n'),
  );
  // And back out again, leaving the original text.
  assert.equal(edit(out, undefined, JSONC, ['servers', 'python-session']), text);
});

test('JSONC: a file that uses trailing commas gets one after our entry too', () => {
  const text = '{\n  "servers": {\n    "a": {},\n  },\n}\n';
  const out = edit(text, { command: 'n' }, JSONC, ['servers', 'python-session']);
  assert.equal(out, '{\n  "servers": {\n    "a": {},\n    "python-session": {\n      "command": "n"\n    },\n  },\n}\n');
  assert.equal(edit(out, undefined, JSONC, ['servers', 'python-session']), text);
});

test('JSONC: removing our entry keeps the comment above the next server', () => {
  const text = '{\n  "servers": {\n    "python-session": {"command": "n"},\n    // keep me\n    "b": {}\n  }\n}\n';
  assert.equal(
    edit(text, undefined, JSONC, ['servers', 'python-session']),
    '{\n  "servers": {\n    // keep me\n    "b": {}\n  }\n}\n',
  );
});

test('JSONC: a file of only comments gets the object after them', () => {
  const text = '// VS Code MCP servers\n';
  const out = edit(text, { command: 'n' }, JSONC, ['servers', 'python-session']);
  assert.equal(out, '// VS Code MCP servers\n{\n  "servers": {\n    "python-session": {\n      "command": "n"\n    }\n  }\n}\n');
});

test('refuses a top level that is not an object, a servers key that is not one, and duplicates', () => {
  assert.throws(() => edit('[1, 2]', { command: 'n' }), JsonShapeError);
  assert.throws(() => edit('{"mcpServers": []}', { command: 'n' }), /"mcpServers" in the file is not a JSON object/);
  assert.throws(() => edit('{"mcpServers": {}, "mcpServers": {}}', { command: 'n' }), /2 "mcpServers" keys/);
  // Removing from a non-object has nothing to do, and is not an error.
  assert.equal(edit('{"mcpServers": null}', undefined), '{"mcpServers": null}');
});

test('applyEdits applies in offset order and rejects overlaps', () => {
  assert.equal(
    applyEdits('abcdef', [
      { offset: 4, length: 1, content: 'E' },
      { offset: 1, length: 0, content: '1' },
      { offset: 1, length: 0, content: '2' },
    ]),
    'a12bcdEf',
  );
  assert.throws(() => applyEdits('abc', [{ offset: 0, length: 2, content: '' }, { offset: 1, length: 1, content: '' }]));
});

/** A small deterministic generator, so a failure can be reproduced from its seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomValue(r: () => number, depth: number): JsonValue {
  const pick = Math.floor(r() * (depth > 2 ? 4 : 6));
  switch (pick) {
    case 0:
      return Math.floor(r() * 1000) - 500;
    case 1:
      return `s${Math.floor(r() * 100)}`;
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(r() * 3) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, JsonValue> = {};
      for (let i = Math.floor(r() * 4); i > 0; i--) o[`k${Math.floor(r() * 10)}`] = randomValue(r, depth + 1);
      return o;
    }
  }
}

test('random documents: every edit means exactly the intended change, in every layout', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const r = rng(seed);
    const doc = randomValue(r, 3) as Record<string, JsonValue>;
    const base: Record<string, JsonValue> = typeof doc === 'object' && doc && !Array.isArray(doc) ? doc : {};
    if (r() < 0.7) {
      const servers: Record<string, JsonValue> = {};
      for (let i = Math.floor(r() * 3); i > 0; i--) servers[`srv${i}`] = { command: `c${i}` };
      if (r() < 0.5) servers['python-session'] = { command: 'old', extra: [1] };
      base.mcpServers = servers;
    }
    const layouts = [JSON.stringify(base), JSON.stringify(base, null, 2), JSON.stringify(base, null, '\t').replace(/\n/g, '\r\n')];
    for (const text of layouts) {
      for (const value of [{ command: 'new', args: ['a'] }, undefined]) {
        const out = edit(text, value);
        const expected = structuredClone(base);
        const servers = (expected.mcpServers ?? {}) as Record<string, JsonValue>;
        if (value === undefined) delete servers['python-session'];
        else {
          servers['python-session'] = value;
          expected.mcpServers = servers;
        }
        assert.deepEqual(nodeValue(parseJson(out).root!), expected, `seed ${seed}: ${text}`);
        // Single-line in, single-line out; multi-line files keep their line ending.
        if (!text.includes('\n') && Object.keys(base).length > 0) assert.ok(!out.includes('\n'), `seed ${seed}`);
        if (text.includes('\r\n')) assert.ok(!/[^\r]\n/.test(out), `seed ${seed}: bare LF in CRLF file`);
      }
    }
  }
});
