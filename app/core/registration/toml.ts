/**
 * A TOML parser that keeps source offsets, for editing Codex's config.toml in place.
 *
 * Why our own: no TOML library is a dependency, and the common ones parse to plain values and
 * write the whole file back, which drops the user's comments and layout. To change one table in
 * someone else's file we need to know where each header and key/value sits in the text; this
 * parser records that as a flat list of statements (headers and key/value lines, in text order),
 * the comments, and the document as plain values.
 *
 * It reads TOML 1.0, plus what TOML 1.1 relaxes (newlines and a trailing comma in inline tables,
 * `\e` and `\xHH` escapes, times without seconds). Values map to JSON: integers and floats to
 * numbers, dates and times to their text. Definitions TOML forbids — a key or table given twice,
 * a table header for an inline table or a value — are errors, with line and column.
 */
import { type JsonObject, type JsonValue, lineAndColumn } from './jsonc.js';

export interface TomlComment {
  /** Offset of the "#". */
  start: number;
  /** End of the comment, before the line break. */
  end: number;
}

interface LineSpan {
  /** Offset of the start of the statement's first line. */
  lineStart: number;
  /** End of its last line: after any trailing comment, before the line break. */
  lineEnd: number;
}

export interface TomlHeader extends LineSpan {
  kind: 'table' | 'array-table';
  path: string[];
}

export interface TomlKeyValue extends LineSpan {
  kind: 'keyval';
  /** The key as written, split at its dots. */
  key: string[];
  /** The path of the table it sits in, followed by `key`. */
  path: string[];
  /** Index in `statements` of the header it sits under; -1 at the top level. */
  table: number;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
  value: JsonValue;
}

export type TomlStatement = TomlHeader | TomlKeyValue;

export interface ParsedToml {
  value: JsonObject;
  statements: TomlStatement[];
  comments: TomlComment[];
}

export class TomlSyntaxError extends Error {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly reason: string;

  constructor(reason: string, text: string, offset: number) {
    const { line, column } = lineAndColumn(text, offset);
    super(`${reason} at line ${line}, column ${column}`);
    this.name = 'TomlSyntaxError';
    this.reason = reason;
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

export function parseToml(text: string): ParsedToml {
  return new Parser(text).parse();
}

/** How a table came to exist; decides what may still be added to it. */
type TableKind = 'implicit' | 'header' | 'dotted' | 'inline';

const BARE_KEY = /[A-Za-z0-9_-]/;
const VALUE_CHAR = /[0-9A-Za-z_+\-.:]/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
const DEC_INT = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const HEX_INT = /^0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*$/;
const OCT_INT = /^0o[0-7](?:_?[0-7])*$/;
const BIN_INT = /^0b[01](?:_?[01])*$/;
const FLOAT = /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_FLOATS: Readonly<Record<string, number>> = {
  inf: Infinity,
  '+inf': Infinity,
  '-inf': -Infinity,
  nan: NaN,
  '+nan': NaN,
  '-nan': NaN,
};
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};
/** Deep enough for any real config; stops a hostile file from overflowing the stack. */
const MAX_DEPTH = 128;

class Parser {
  private pos = 0;
  private readonly comments: TomlComment[] = [];
  private readonly statements: TomlStatement[] = [];
  private readonly root: JsonObject = {};
  private readonly kinds = new WeakMap<object, TableKind>();
  /** Arrays made by [[headers]], the only arrays a header may add to. */
  private readonly tableArrays = new WeakSet<JsonValue[]>();
  private current: JsonObject;
  private currentPath: string[] = [];
  private currentHeader = -1;

  constructor(private readonly text: string) {
    this.current = this.root;
    this.kinds.set(this.root, 'header');
  }

  parse(): ParsedToml {
    const { text } = this;
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
    while (this.pos < text.length) {
      const lineStart = this.pos;
      this.skipSpaces();
      if (this.pos >= text.length) break;
      const c = text[this.pos];
      if (c === '#') {
        this.comment();
        this.lineBreak();
      } else if (c === '\n' || c === '\r') {
        this.lineBreak();
      } else if (c === '[') {
        this.header(lineStart);
      } else {
        this.keyValueLine(lineStart);
      }
    }
    return { value: this.root, statements: this.statements, comments: this.comments };
  }

  private fail(reason: string, at = this.pos): never {
    throw new TomlSyntaxError(reason, this.text, at);
  }

  private describe(at = this.pos): string {
    return at >= this.text.length ? 'end of file' : JSON.stringify(this.text[at]);
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }

  /** Consumes one line break ("\n" or "\r\n"), or accepts the end of the file. */
  private lineBreak(): void {
    const { text } = this;
    if (this.pos >= text.length) return;
    if (text[this.pos] === '\n') this.pos++;
    else if (text[this.pos] === '\r' && text[this.pos + 1] === '\n') this.pos += 2;
    else this.fail(`expected the end of the line, found ${this.describe()}`);
  }

  /** After a statement: spaces, an optional comment, then the line break. Returns the line's end. */
  private endOfLine(): number {
    this.skipSpaces();
    if (this.text[this.pos] === '#') this.comment();
    const end = this.pos;
    this.lineBreak();
    return end;
  }

  private comment(): void {
    const { text } = this;
    const start = this.pos;
    while (this.pos < text.length && text[this.pos] !== '\n') {
      if (text[this.pos] === '\r' && text[this.pos + 1] === '\n') break;
      if (isControl(text.charCodeAt(this.pos))) this.fail('control character in a comment');
      this.pos++;
    }
    this.comments.push({ start, end: this.pos });
  }

  /** Spaces, comments and line breaks, as allowed between the items of an array. */
  private skipBlank(): void {
    for (;;) {
      this.skipSpaces();
      const c = this.text[this.pos];
      if (c === '#') this.comment();
      else if (c === '\n') this.pos++;
      else if (c === '\r' && this.text[this.pos + 1] === '\n') this.pos += 2;
      else return;
    }
  }

  private expect(char: string, what: string): void {
    if (this.text[this.pos] !== char) this.fail(`expected ${what}, found ${this.describe()}`);
    this.pos++;
  }

  private header(lineStart: number): void {
    const start = this.pos;
    this.pos++;
    const array = this.text[this.pos] === '[';
    if (array) this.pos++;
    this.skipSpaces();
    const path = this.key();
    this.skipSpaces();
    this.expect(']', array ? '"]]"' : '"]"');
    if (array) this.expect(']', '"]]"');
    const lineEnd = this.endOfLine();

    this.current = array ? this.defineTableArray(path, start) : this.defineTable(path, start);
    this.currentPath = path;
    this.currentHeader = this.statements.length;
    this.statements.push({ kind: array ? 'array-table' : 'table', path, lineStart, lineEnd });
  }

  private keyValueLine(lineStart: number): void {
    const keyStart = this.pos;
    const key = this.key();
    this.skipSpaces();
    this.expect('=', '"=" after the key');
    this.skipSpaces();
    const valueStart = this.pos;
    const value = this.value(0);
    const valueEnd = this.pos;
    const lineEnd = this.endOfLine();
    this.assign(this.current, key, value, 'dotted', keyStart);
    this.statements.push({
      kind: 'keyval',
      key,
      path: [...this.currentPath, ...key],
      table: this.currentHeader,
      keyStart,
      valueStart,
      valueEnd,
      value,
      lineStart,
      lineEnd,
    });
  }

  /** A key: simple keys joined by dots, with optional spaces around the dots. */
  private key(): string[] {
    const parts = [this.simpleKey()];
    for (;;) {
      const save = this.pos;
      this.skipSpaces();
      if (this.text[this.pos] !== '.') {
        this.pos = save;
        return parts;
      }
      this.pos++;
      this.skipSpaces();
      parts.push(this.simpleKey());
    }
  }

  private simpleKey(): string {
    const { text } = this;
    const c = text[this.pos];
    if (c === '"') {
      if (text.startsWith('"""', this.pos)) this.fail('a key cannot be a multi-line string');
      return this.basicString();
    }
    if (c === "'") {
      if (text.startsWith("'''", this.pos)) this.fail('a key cannot be a multi-line string');
      return this.literalString();
    }
    const start = this.pos;
    while (this.pos < text.length && BARE_KEY.test(text[this.pos])) this.pos++;
    if (this.pos === start) this.fail(`expected a key, found ${this.describe()}`);
    return text.slice(start, this.pos);
  }

  private value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail('values nested too deeply');
    const { text } = this;
    const c = text[this.pos];
    if (c === '"') return text.startsWith('"""', this.pos) ? this.multilineBasicString() : this.basicString();
    if (c === "'") return text.startsWith("'''", this.pos) ? this.multilineLiteralString() : this.literalString();
    if (c === '[') return this.array(depth);
    if (c === '{') return this.inlineTable(depth);
    return this.scalar();
  }

  private scalar(): JsonValue {
    const { text } = this;
    const start = this.pos;
    const scan = () => {
      while (this.pos < text.length && VALUE_CHAR.test(text[this.pos])) this.pos++;
    };
    scan();
    // A date and a time may be separated by a space: "1979-05-27 07:32:00".
    if (DATE.test(text.slice(start, this.pos)) && text[this.pos] === ' ' && /^\d{2}:\d{2}/.test(text.slice(this.pos + 1, this.pos + 6))) {
      this.pos++;
      scan();
    }
    const token = text.slice(start, this.pos);
    if (token === '') this.fail(`expected a value, found ${this.describe(start)}`, start);
    if (token === 'true') return true;
    if (token === 'false') return false;
    if (token in SPECIAL_FLOATS) return SPECIAL_FLOATS[token];
    const digits = token.replace(/_/g, '');
    if (DEC_INT.test(token)) return Number(digits);
    if (HEX_INT.test(token)) return parseInt(digits.slice(2), 16);
    if (OCT_INT.test(token)) return parseInt(digits.slice(2), 8);
    if (BIN_INT.test(token)) return parseInt(digits.slice(2), 2);
    if (FLOAT.test(token) && /[.eE]/.test(token)) return Number(digits);
    if (DATE_TIME.test(token) || TIME.test(token)) return token;
    return this.fail(`invalid value ${JSON.stringify(token)}`, start);
  }

  private basicString(): string {
    const { text } = this;
    const start = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      if (this.pos >= text.length) this.fail('unterminated string', start);
      const c = text[this.pos];
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === '\\') {
        out += this.escape(false);
        continue;
      }
      if (c === '\n' || c === '\r') this.fail('line break inside a string (a multi-line string needs """)');
      if (isControl(text.charCodeAt(this.pos))) this.fail('control character inside a string');
      out += c;
      this.pos++;
    }
  }

  private multilineBasicString(): string {
    const { text } = this;
    const start = this.pos;
    this.pos += 3;
    this.skipFirstLineBreak();
    let out = '';
    for (;;) {
      if (this.pos >= text.length) this.fail('unterminated multi-line string', start);
      const c = text[this.pos];
      if (c === '"') {
        const closed = this.closingQuotes('"');
        out += closed.content;
        if (closed.done) return out;
        continue;
      }
      if (c === '\\') {
        out += this.escape(true);
        continue;
      }
      out += this.multilineChar();
    }
  }

  private literalString(): string {
    const { text } = this;
    const start = this.pos;
    this.pos++;
    const close = text.indexOf("'", this.pos);
    const lineEnd = text.indexOf('\n', this.pos);
    if (close === -1 || (lineEnd !== -1 && lineEnd < close)) this.fail('unterminated string', start);
    for (let i = this.pos; i < close; i++) {
      if (isControl(text.charCodeAt(i)) || text[i] === '\r') this.fail('control character inside a string', i);
    }
    const out = text.slice(this.pos, close);
    this.pos = close + 1;
    return out;
  }

  private multilineLiteralString(): string {
    const { text } = this;
    const start = this.pos;
    this.pos += 3;
    this.skipFirstLineBreak();
    let out = '';
    for (;;) {
      if (this.pos >= text.length) this.fail('unterminated multi-line string', start);
      if (text[this.pos] === "'") {
        const closed = this.closingQuotes("'");
        out += closed.content;
        if (closed.done) return out;
        continue;
      }
      out += this.multilineChar();
    }
  }

  /** A line break right after the opening delimiter is not part of the string. */
  private skipFirstLineBreak(): void {
    if (this.text[this.pos] === '\n') this.pos++;
    else if (this.text.startsWith('\r\n', this.pos)) this.pos += 2;
  }

  /** One character of a multi-line string body (a line break, or any non-control character). */
  private multilineChar(): string {
    const { text } = this;
    const c = text[this.pos];
    if (c === '\r') {
      if (text[this.pos + 1] !== '\n') this.fail('a carriage return must be followed by a line feed');
      // A CRLF inside a string reads as "\n", as other TOML parsers (Python's tomllib) read it.
      this.pos += 2;
      return '\n';
    }
    if (c !== '\n' && isControl(text.charCodeAt(this.pos))) this.fail('control character inside a string');
    this.pos++;
    return c;
  }

  /**
   * A run of quotes inside a multi-line string: three close it, and up to two more just before
   * them belong to the string ('""""' ends a string with one quote).
   */
  private closingQuotes(quote: string): { content: string; done: boolean } {
    let n = 0;
    while (this.text[this.pos + n] === quote) n++;
    if (n < 3) {
      this.pos += n;
      return { content: quote.repeat(n), done: false };
    }
    if (n > 5) this.fail('too many quotes at the end of a multi-line string', this.pos + 5);
    this.pos += n;
    return { content: quote.repeat(n - 3), done: true };
  }

  private escape(multiline: boolean): string {
    const { text } = this;
    const start = this.pos;
    this.pos++;
    const e = text[this.pos];
    if (e !== undefined && e in SIMPLE_ESCAPES) {
      this.pos++;
      return SIMPLE_ESCAPES[e];
    }
    if (e === 'u' || e === 'U' || e === 'x') {
      const length = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = text.slice(this.pos + 1, this.pos + 1 + length);
      if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(hex)) this.fail('invalid escape sequence', start);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail('escape is not a Unicode scalar value', start);
      this.pos += 1 + length;
      return String.fromCodePoint(code);
    }
    if (multiline && (e === ' ' || e === '\t' || e === '\n' || e === '\r')) {
      // A backslash ending a line joins it to the next: the break and following blanks go.
      this.skipSpaces();
      if (text[this.pos] !== '\n' && !text.startsWith('\r\n', this.pos)) this.fail('invalid escape sequence', start);
      while (this.pos < text.length) {
        const c = text[this.pos];
        if (c === ' ' || c === '\t' || c === '\n') this.pos++;
        else if (c === '\r' && text[this.pos + 1] === '\n') this.pos += 2;
        else break;
      }
      return '';
    }
    return this.fail('invalid escape sequence', start);
  }

  private array(depth: number): JsonValue[] {
    this.pos++;
    const items: JsonValue[] = [];
    for (;;) {
      this.skipBlank();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return items;
      }
      items.push(this.value(depth + 1));
      this.skipBlank();
      if (this.text[this.pos] === ',') {
        this.pos++;
      } else if (this.text[this.pos] !== ']') {
        this.fail(`expected "," or "]" in an array, found ${this.describe()}`);
      }
    }
  }

  private inlineTable(depth: number): JsonObject {
    this.pos++;
    const table: JsonObject = {};
    this.kinds.set(table, 'inline');
    this.skipBlank();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return table;
    }
    for (;;) {
      const keyStart = this.pos;
      const key = this.key();
      this.skipSpaces();
      this.expect('=', '"=" after the key');
      this.skipSpaces();
      const value = this.value(depth + 1);
      this.assign(table, key, value, 'inline', keyStart);
      this.skipBlank();
      const c = this.text[this.pos];
      if (c === '}') {
        this.pos++;
        return table;
      }
      if (c !== ',') this.fail(`expected "," or "}" in an inline table, found ${this.describe()}`);
      this.pos++;
      this.skipBlank();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return table;
      }
    }
  }

  /** Sets `key` (dotted) to `value` in `table`, creating the tables the dots name. */
  private assign(table: JsonObject, key: string[], value: JsonValue, created: 'dotted' | 'inline', at: number): void {
    let target = table;
    for (let i = 0; i < key.length - 1; i++) {
      const existing = own(target, key[i]);
      if (existing === undefined) {
        const next: JsonObject = {};
        this.kinds.set(next, created);
        define(target, key[i], next);
        target = next;
        continue;
      }
      const kind = isTable(existing) ? this.kinds.get(existing) : undefined;
      const extendable = created === 'inline' ? kind === 'inline' : kind === 'dotted' || kind === 'implicit';
      if (!isTable(existing) || !extendable) this.fail(`${describeKey(key.slice(0, i + 1))} is already defined`, at);
      if (created === 'dotted') this.kinds.set(existing, 'dotted');
      target = existing;
    }
    const last = key[key.length - 1];
    if (own(target, last) !== undefined) this.fail(`${describeKey(key)} is defined twice`, at);
    define(target, last, value);
  }

  /** Walks a header's path up to its last key, creating implicit tables on the way. */
  private parentOf(path: string[], at: number): JsonObject {
    let target = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      const existing = own(target, path[i]);
      if (existing === undefined) {
        const next: JsonObject = {};
        this.kinds.set(next, 'implicit');
        define(target, path[i], next);
        target = next;
      } else if (Array.isArray(existing) && this.tableArrays.has(existing)) {
        target = existing[existing.length - 1] as JsonObject;
      } else if (isTable(existing) && this.kinds.get(existing) !== 'inline') {
        target = existing;
      } else {
        this.fail(`${describeKey(path.slice(0, i + 1))} is already defined as a value`, at);
      }
    }
    return target;
  }

  private defineTable(path: string[], at: number): JsonObject {
    const parent = this.parentOf(path, at);
    const last = path[path.length - 1];
    const existing = own(parent, last);
    if (existing === undefined) {
      const table: JsonObject = {};
      this.kinds.set(table, 'header');
      define(parent, last, table);
      return table;
    }
    if (isTable(existing) && this.kinds.get(existing) === 'implicit') {
      this.kinds.set(existing, 'header');
      return existing;
    }
    return this.fail(`table [${path.map(renderKeyPart).join('.')}] is defined twice`, at);
  }

  private defineTableArray(path: string[], at: number): JsonObject {
    const parent = this.parentOf(path, at);
    const last = path[path.length - 1];
    const existing = own(parent, last);
    const table: JsonObject = {};
    this.kinds.set(table, 'header');
    if (existing === undefined) {
      const array: JsonValue[] = [table];
      this.tableArrays.add(array);
      define(parent, last, array);
    } else if (Array.isArray(existing) && this.tableArrays.has(existing)) {
      existing.push(table);
    } else {
      this.fail(`${describeKey(path)} is already defined, not as an array of tables`, at);
    }
    return table;
  }
}

/** Control characters TOML allows nowhere but as escapes (tab is allowed). */
function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x09) || code === 0x7f;
}

function isTable(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(table: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** defineProperty, not assignment: a key named "__proto__" must stay a plain key. */
export function define(table: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(table, key, { value, enumerable: true, writable: true, configurable: true });
}

function describeKey(key: string[]): string {
  return `key ${key.map(renderKeyPart).join('.')}`;
}

/** A key part as TOML writes it: bare when it can be, else a basic string. */
export function renderKeyPart(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : renderString(key);
}

/** A basic (double-quoted) TOML string. */
export function renderString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (isControl(code)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
