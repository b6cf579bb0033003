import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TomlSyntaxError, parseToml, renderString } from './toml.js';

const value = (text: string) => parseToml(text).value;

function syntaxError(text: string): TomlSyntaxError {
  try {
    parseToml(text);
  } catch (e) {
    assert.ok(e instanceof TomlSyntaxError, String(e));
    return e;
  }
  return assert.fail(`parsed ${JSON.stringify(text)} without complaint`);
}

test('tables, dotted keys, quoted keys and arrays of tables become plain values', () => {
  const doc = value(
    [
      'model = "o3"',
      'a.b . c = 1',
      '"quoted key" = true',
      "'literal.key' = false",
      '[mcp_servers.demo]',
      'command = "npx"',
      'args = ["-y", "x"]',
      '[ mcp_servers . "python-session" . env ]',
      'K = "v"',
      '[[profiles]]',
      'name = "one"',
      '[[profiles]]',
      'name = "two"',
      '[profiles.sub]',
      'x = 1',
    ].join('\n'),
  );
  assert.deepEqual(doc, {
    model: 'o3',
    a: { b: { c: 1 } },
    'quoted key': true,
    'literal.key': false,
    mcp_servers: { demo: { command: 'npx', args: ['-y', 'x'] }, 'python-session': { env: { K: 'v' } } },
    profiles: [{ name: 'one' }, { name: 'two', sub: { x: 1 } }],
  });
});

test('strings: escapes, literal strings, multi-line strings with brackets, quotes and joined lines', () => {
  const doc = value(
    [
      String.raw`basic = "tab\there \"q\" \\ \u00e9 \U0001F600 \e"`,
      String.raw`literal = 'C:\Users\no\escapes'`,
      'ml = """',
      '[not.a.table]',
      'key = "not a key"',
      '# not a comment"""',
      'joined = """one \\',
      '   two"""',
      'quotes = """a""b"""""',
      "ml_literal = '''",
      "[still] 'text'",
      "'''",
    ].join('\n'),
  );
  assert.equal(doc.basic, 'tab\there "q" \\ \u00e9 \u{1F600} \x1b');
  assert.equal(doc.literal, String.raw`C:\Users\no\escapes`);
  assert.equal(doc.ml, '[not.a.table]\nkey = "not a key"\n# not a comment');
  assert.equal(doc.joined, 'one two');
  assert.equal(doc.quotes, 'a""b""');
  assert.equal(doc.ml_literal, "[still] 'text'\n");
  // Nothing inside the strings was taken for a header, a key or a comment.
  const parsed = parseToml(['x = """', '[a]', '# c', '"""'].join('\n'));
  assert.deepEqual(parsed.comments, []);
  assert.equal(parsed.statements.length, 1);
});

test('numbers, booleans, dates, nested arrays and inline tables', () => {
  const doc = value(
    [
      'int = +1_000',
      'neg = -17',
      'hex = 0xDEAD_beef',
      'oct = 0o755',
      'bin = 0b1101',
      'flt = 6.626e-34',
      'exp = 5e+22',
      'inf = -inf',
      'odt = 1979-05-27T07:32:00Z',
      'ldt = 1979-05-27 07:32:00.999',
      'ld = 1979-05-27',
      'lt = 07:32',
      'nested = [ [1, 2], ["a"], [] , ]',
      'multi = [',
      '  "x", # a comment in an array',
      '  "y",',
      ']',
      'inline = { a = 1, b.c = "d", e = { f = [true] } }',
      'empty = {}',
    ].join('\n'),
  );
  assert.deepEqual(doc, {
    int: 1000,
    neg: -17,
    hex: 0xdeadbeef,
    oct: 0o755,
    bin: 13,
    flt: 6.626e-34,
    exp: 5e22,
    inf: -Infinity,
    odt: '1979-05-27T07:32:00Z',
    ldt: '1979-05-27 07:32:00.999',
    ld: '1979-05-27',
    lt: '07:32',
    nested: [[1, 2], ['a'], []],
    multi: ['x', 'y'],
    inline: { a: 1, b: { c: 'd' }, e: { f: [true] } },
    empty: {},
  });
  assert.ok(Number.isNaN(value('n = nan').n));
});

test('statements carry their paths, tables and spans; comments are recorded', () => {
  const text = '# top\nmodel = "o3" # trailing\n\n[mcp_servers.x]\n  command = "c"\r\nenv.K = "v"';
  const parsed = parseToml(text);
  assert.deepEqual(
    parsed.comments.map((c) => text.slice(c.start, c.end)),
    ['# top', '# trailing'],
  );
  const [model, header, command, env] = parsed.statements;
  assert.equal(model.kind, 'keyval');
  assert.equal(text.slice(model.lineStart, model.lineEnd), 'model = "o3" # trailing');
  assert.ok(header.kind === 'table');
  assert.deepEqual(header.path, ['mcp_servers', 'x']);
  assert.equal(text.slice(header.lineStart, header.lineEnd), '[mcp_servers.x]');
  assert.ok(command.kind === 'keyval' && env.kind === 'keyval');
  assert.equal(command.table, 1);
  assert.deepEqual(command.path, ['mcp_servers', 'x', 'command']);
  assert.equal(text.slice(command.valueStart, command.valueEnd), '"c"');
  assert.equal(text.slice(command.lineStart, command.lineEnd), '  command = "c"');
  assert.deepEqual(env.key, ['env', 'K']);
  assert.deepEqual(env.path, ['mcp_servers', 'x', 'env', 'K']);
  assert.equal(env.lineEnd, text.length);
});

test('a key named __proto__ stays a plain key', () => {
  const doc = value('__proto__ = 1\n[a]\n"__proto__" = { polluted = true }');
  assert.equal(Object.getPrototypeOf(doc), Object.prototype);
  assert.ok(Object.hasOwn(doc, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('what TOML forbids is refused with a line and column', () => {
  const cases: Array<[string, RegExp]> = [
    ['a = 1\na = 2', /key a is defined twice at line 2, column 1/],
    ['[t]\n[t]', /table \[t\] is defined twice at line 2/],
    ['a.b = 1\n[a]', /table \[a\] is defined twice/],
    ['a = { b = 1 }\n[a.c]', /key a is already defined as a value/],
    ['a = { b = 1 }\na.c = 2', /key a is already defined/],
    ['a = [1]\n[[a]]', /not as an array of tables/],
    ['a = "x\ny"', /line break inside a string .* at line 1, column 7/],
    ['a = """never closed', /unterminated multi-line string at line 1, column 5/],
    ['a = 1 b = 2', /expected the end of the line, found "b" at line 1, column 7/],
    ['a = ', /expected a value/],
    ['a = yes', /invalid value "yes"/],
    ['a = 01', /invalid value "01"/],
    [String.raw`a = "\q"`, /invalid escape sequence/],
    ['[a', /expected "\]"/],
    ['a = [1 2]', /expected "," or "\]" in an array/],
    ['a = 1\rb = 2', /expected the end of the line/],
    ['# bell \x07', /control character in a comment/],
    ['= 1', /expected a key/],
    ['a = """x""""""', /too many quotes/],
  ];
  for (const [text, message] of cases) assert.match(syntaxError(text).message, message, JSON.stringify(text));
  // Arrays nested without end do not overflow the stack.
  assert.match(syntaxError(`a = ${'['.repeat(10_000)}`).message, /nested too deeply/);
});

test('CRLF files and a file without a final line break parse the same as LF ones', () => {
  const lf = '# c\n[mcp_servers.x]\ncommand = "c"\nargs = [\n  "a",\n]\n';
  assert.deepEqual(value(lf.replace(/\n/g, '\r\n')), value(lf));
  assert.deepEqual(value(lf.trimEnd()), value(lf));
  assert.deepEqual(value(''), {});
  assert.deepEqual(value('\ufeffa = 1'), { a: 1 });
});

test('strings are written back so that they parse to themselves', () => {
  for (const s of ['plain', 'C:\\Program Files\\Python\\python.exe', 'say "hi"', 'tab\tnew\nline\r\x00\x7f', 'é ☃ 😀', '']) {
    assert.equal(value(`k = ${renderString(s)}`).k, s);
  }
});
