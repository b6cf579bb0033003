/** The panel's hand-written Python highlighter (renderer/highlight.js), run in Node: tokenize() needs no DOM. */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../app/core/package-root.js';

type Token = [string | null, string];
let tokenize: (code: string) => Token[];

before(async () => {
  // The renderer is plain browser JavaScript, not compiled: load it by path.
  ({ tokenize } = await import(pathToFileURL(join(packageRoot(), 'renderer', 'highlight.js')).href));
});

const kinds = (code: string) => tokenize(code).filter(([kind]) => kind !== null);

test('the tokens put back together are the code, whatever it is', () => {
  for (const code of ['', 'x', "s = 'unterminated\nnext = 1", 'f"""a\n{b}\n"""', '@decorator\ndef f(x: int) -> "str":\n    return x  # done', '0x1F + 1_000.5e-3j', 'é = "ü"', '\\\n']) {
    assert.equal(tokenize(code).map(([, text]) => text).join(''), code);
  }
});

test('keywords, strings, comments, numbers, builtins, decorators and defined names', () => {
  assert.deepEqual(kinds("@cache\ndef area(r):\n    return 3.14 * r ** 2  # πr²\nprint(f'{area(2)}')"), [
    ['decorator', '@cache'],
    ['keyword', 'def'],
    ['function', 'area'],
    ['keyword', 'return'],
    ['number', '3.14'],
    ['number', '2'],
    ['comment', '# πr²'],
    ['builtin', 'print'],
    ['string', "f'{area(2)}'"],
  ]);
  assert.deepEqual(kinds('class Model(Base): pass'), [['keyword', 'class'], ['classname', 'Model'], ['keyword', 'pass']]);
});

test('strings: every prefix and quote, escapes, and a # inside is not a comment', () => {
  assert.deepEqual(kinds(`rb'\\d+' + "a\\"b # c" + '''x\n'y'\n'''`), [
    ['string', "rb'\\d+'"],
    ['string', '"a\\"b # c"'],
    ['string', "'''x\n'y'\n'''"],
  ]);
});

test('names that merely contain keywords or digits stay plain; attributes are not builtins', () => {
  assert.deepEqual(kinds('format_list = x1 + df.sum + obj.print'), []);
  assert.deepEqual(kinds('value2 = 2'), [['number', '2']]);
});

test('soft keywords only at the start of a statement', () => {
  assert.deepEqual(kinds('match command:\n    case [x]:\n        pass'), [['keyword', 'match'], ['keyword', 'case'], ['keyword', 'pass']]);
  assert.deepEqual(kinds('match = re.match(p, s)'), []);
});
