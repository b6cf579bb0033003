// A small Python highlighter: keywords, strings (every prefix and quote style), comments,
// numbers, decorators, builtins, and the names that def and class introduce. It never fails on
// odd input — whatever it does not recognise is plain text — and it builds text nodes only.

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);
// Soft keywords are keywords only at the start of a statement; elsewhere they are names.
const SOFT_KEYWORDS = new Set(['match', 'case', 'type', '_']);
const BUILTINS = new Set(
  'abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip self cls Exception ValueError TypeError KeyError IndexError NameError AttributeError RuntimeError ImportError ZeroDivisionError StopIteration KeyboardInterrupt'.split(' '),
);

const STRING_START = /^(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])?('''|"""|'|")/;
const NUMBER = /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/;
const NAME = /^[A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF]*/;

/** Splits code into [kind, text] pairs; kind is null for plain text. Joined, they are the code. */
export function tokenize(code) {
  const tokens = [];
  let i = 0;
  let plain = '';
  let expectName = null; // 'def' or 'class' just seen
  let lineStart = true;
  const push = (kind, text) => {
    if (plain) {
      tokens.push([null, plain]);
      plain = '';
    }
    tokens.push([kind, text]);
  };
  while (i < code.length) {
    const rest = code.slice(i, i + 400); // regexes anchor on a short window, keeping this linear
    const ch = code[i];
    if (ch === '#') {
      const end = code.indexOf('\n', i);
      const stop = end === -1 ? code.length : end;
      push('comment', code.slice(i, stop));
      i = stop;
      continue;
    }
    const quote = STRING_START.exec(rest);
    if (quote) {
      const delim = quote[1];
      let j = i + quote[0].length;
      while (j < code.length) {
        if (code[j] === '\\') {
          j += 2;
          continue;
        }
        if (code.startsWith(delim, j)) {
          j += delim.length;
          break;
        }
        if (delim.length === 1 && code[j] === '\n') break; // unterminated: stop at the line's end
        j++;
      }
      push('string', code.slice(i, Math.min(j, code.length)));
      i = Math.min(j, code.length);
      lineStart = false;
      expectName = null;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(code[i + 1] ?? ''))) {
      const prev = code[i - 1] ?? '';
      const number = /[\w]/.test(prev) ? null : NUMBER.exec(rest);
      if (number && number[0]) {
        push('number', number[0]);
        i += number[0].length;
        lineStart = false;
        continue;
      }
    }
    if (ch === '@' && lineStart) {
      const name = /^@[\w.]+/.exec(rest);
      if (name) {
        push('decorator', name[0]);
        i += name[0].length;
        lineStart = false;
        continue;
      }
    }
    const name = NAME.exec(rest);
    if (name) {
      const word = name[0];
      const afterDot = code[i - 1] === '.';
      let kind = null;
      if (expectName) kind = expectName === 'class' ? 'classname' : 'function';
      else if (!afterDot && KEYWORDS.has(word)) kind = 'keyword';
      else if (!afterDot && lineStart && SOFT_KEYWORDS.has(word) && /^\s+[\w(\[{'"-]/.test(code.slice(i + word.length, i + word.length + 3)) && word !== '_') kind = 'keyword';
      else if (!afterDot && BUILTINS.has(word)) kind = 'builtin';
      expectName = !afterDot && (word === 'def' || word === 'class') ? word : null;
      if (kind) push(kind, word);
      else plain += word;
      i += word.length;
      lineStart = false;
      continue;
    }
    if (ch === '\n') lineStart = true;
    else if (ch !== ' ' && ch !== '\t') {
      lineStart = false;
      expectName = null;
    }
    plain += ch;
    i++;
  }
  if (plain) tokens.push([null, plain]);
  return tokens;
}

/** A <code> element holding the highlighted code. */
export function highlight(code) {
  const el = document.createElement('code');
  el.className = 'python';
  for (const [kind, text] of tokenize(code)) {
    if (kind) {
      const span = document.createElement('span');
      span.className = `tok-${kind}`;
      span.textContent = text;
      el.append(span);
    } else {
      el.append(document.createTextNode(text));
    }
  }
  return el;
}
