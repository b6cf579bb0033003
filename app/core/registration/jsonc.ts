/**
 * A JSON / JSONC parser that keeps source offsets.
 *
 * Why not JSON.parse: to change one entry in someone else's config file without reformatting
 * the rest of it (and, for VS Code's mcp.json, without dropping the comments in it) we need to
 * know where every key and value sits in the text. This parser builds that tree. In strict mode
 * it accepts exactly JSON; with `comments` / `trailingCommas` it accepts what VS Code accepts
 * in its settings files (`//` and `/* *\/` comments, a comma before `}` or `]`).
 *
 * Errors carry a line and column so the message can point the user at the broken spot.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface JsonMember {
  key: string;
  /** Offset of the opening quote of the key. */
  keyStart: number;
  value: JsonNode;
}

export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'scalar'; start: number; end: number; value: null | boolean | number | string };

export interface JsonComment {
  start: number;
  end: number;
}

export interface ParsedJson {
  /** Undefined when the text holds nothing but whitespace (and comments, if allowed). */
  root: JsonNode | undefined;
  comments: JsonComment[];
  /** Whether a trailing comma was seen; such a file must stay JSONC. */
  hasTrailingCommas: boolean;
}

export interface ParseOptions {
  comments?: boolean;
  trailingCommas?: boolean;
}

export class JsonSyntaxError extends Error {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly reason: string;

  constructor(reason: string, text: string, offset: number) {
    const { line, column } = lineAndColumn(text, offset);
    super(`${reason} at line ${line}, column ${column}`);
    this.name = 'JsonSyntaxError';
    this.reason = reason;
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: ReadonlyArray<[string, null | boolean]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];
/** Deep enough for any real config; stops a hostile file from overflowing the stack. */
const MAX_DEPTH = 256;

export function parseJson(text: string, options: ParseOptions = {}): ParsedJson {
  const allowComments = options.comments ?? false;
  const allowTrailingCommas = options.trailingCommas ?? false;
  const comments: JsonComment[] = [];
  let hasTrailingCommas = false;
  let pos = 0;

  const fail = (reason: string, at = pos): never => {
    throw new JsonSyntaxError(reason, text, at);
  };

  const describe = (at: number): string =>
    at >= text.length ? 'end of file' : `${JSON.stringify(text[at])}`;

  /** Skips whitespace and (when allowed) comments; leaves `pos` on the next token. */
  const skip = (): void => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
        pos++;
      } else if (c === 0x2f /* / */ && (text[pos + 1] === '/' || text[pos + 1] === '*')) {
        if (!allowComments) fail('comments are not allowed in this file');
        const start = pos;
        if (text[pos + 1] === '/') {
          const nl = text.indexOf('\n', pos);
          pos = nl === -1 ? text.length : nl;
          // A line comment ends before "\r\n" as well as "\n".
          const end = pos > start && text[pos - 1] === '\r' ? pos - 1 : pos;
          comments.push({ start, end });
        } else {
          const close = text.indexOf('*/', pos + 2);
          if (close === -1) fail('unterminated /* comment', start);
          pos = close + 2;
          comments.push({ start, end: pos });
        }
      } else {
        break;
      }
    }
  };

  const parseString = (): { value: string; start: number; end: number } => {
    const start = pos;
    pos++; // opening quote
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x22 /* " */) {
        pos++;
        try {
          // The slice is a complete JSON string literal; JSON.parse decodes its escapes
          // exactly as every client will.
          return { value: JSON.parse(text.slice(start, pos)) as string, start, end: pos };
        } catch {
          fail('invalid escape in string', start);
        }
      }
      if (c === 0x5c /* \ */) {
        pos += 2;
        continue;
      }
      if (c < 0x20) fail('control character in string');
      pos++;
    }
    return fail('unterminated string', start);
  };

  const parseValue = (depth: number): JsonNode => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    skip();
    const start = pos;
    const ch = text[pos];
    if (ch === '{') return parseObject(depth);
    if (ch === '[') return parseArray(depth);
    if (ch === '"') {
      const s = parseString();
      return { kind: 'scalar', start: s.start, end: s.end, value: s.value };
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (m && m[0] !== '-') {
      pos += m[0].length;
      return { kind: 'scalar', start, end: pos, value: Number(m[0]) };
    }
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return { kind: 'scalar', start, end: pos, value };
      }
    }
    return fail(`unexpected ${describe(pos)}`);
  };

  const parseObject = (depth: number): JsonNode => {
    const start = pos;
    pos++; // {
    const members: JsonMember[] = [];
    skip();
    if (text[pos] === '}') {
      pos++;
      return { kind: 'object', start, end: pos, members };
    }
    for (;;) {
      skip();
      if (text[pos] !== '"') fail(`expected a property name in double quotes, found ${describe(pos)}`);
      const key = parseString();
      skip();
      if (text[pos] !== ':') fail(`expected ":" after property name, found ${describe(pos)}`);
      pos++;
      const value = parseValue(depth + 1);
      members.push({ key: key.value, keyStart: key.start, value });
      skip();
      if (text[pos] === '}') {
        pos++;
        return { kind: 'object', start, end: pos, members };
      }
      if (text[pos] !== ',') fail(`expected "," or "}", found ${describe(pos)}`);
      const comma = pos;
      pos++;
      skip();
      if (text[pos] === '}') {
        if (!allowTrailingCommas) fail('trailing comma is not allowed', comma);
        hasTrailingCommas = true;
        pos++;
        return { kind: 'object', start, end: pos, members };
      }
    }
  };

  const parseArray = (depth: number): JsonNode => {
    const start = pos;
    pos++; // [
    const items: JsonNode[] = [];
    skip();
    if (text[pos] === ']') {
      pos++;
      return { kind: 'array', start, end: pos, items };
    }
    for (;;) {
      items.push(parseValue(depth + 1));
      skip();
      if (text[pos] === ']') {
        pos++;
        return { kind: 'array', start, end: pos, items };
      }
      if (text[pos] !== ',') fail(`expected "," or "]", found ${describe(pos)}`);
      const comma = pos;
      pos++;
      skip();
      if (text[pos] === ']') {
        if (!allowTrailingCommas) fail('trailing comma is not allowed', comma);
        hasTrailingCommas = true;
        pos++;
        return { kind: 'array', start, end: pos, items };
      }
    }
  };

  skip();
  if (pos >= text.length) return { root: undefined, comments, hasTrailingCommas };
  const root = parseValue(0);
  skip();
  if (pos < text.length) fail(`unexpected ${describe(pos)} after the end of the document`);
  return { root, comments, hasTrailingCommas };
}

/** The plain value of a node. Objects keep the last of duplicate keys, as JSON.parse does. */
export function nodeValue(node: JsonNode): JsonValue {
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'array':
      return node.items.map(nodeValue);
    case 'object': {
      const out: JsonObject = {};
      for (const m of node.members) {
        // defineProperty, not assignment: a key named "__proto__" must stay a plain key.
        Object.defineProperty(out, m.key, {
          value: nodeValue(m.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
