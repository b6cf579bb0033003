/**
 * Changes one value inside a JSON / JSONC document by editing its text in place.
 *
 * Config files belong to their clients and users: we must keep every other key, the user's
 * formatting, and (for VS Code's mcp.json) their comments. So instead of parse → mutate →
 * stringify, we compute minimal text edits at the offsets the parser recorded: replace our
 * entry's value, insert it after the last member, or cut it out together with its comma.
 *
 * Every edit is checked before it is returned: the new text must parse, must mean exactly the
 * old document with our one change, and must still hold every comment that was outside the
 * text we replaced. If that check ever fails, a comment-free file is rewritten in full
 * (nothing can be lost there); a file with comments is refused rather than damaged.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type JsonMember,
  type JsonNode,
  type JsonObject,
  type JsonValue,
  type ParsedJson,
  type ParseOptions,
  isJsonObject,
  nodeValue,
  parseJson,
} from './jsonc.js';

/** The file's layout does not allow our change (top level not an object, a duplicate key…). */
export class JsonShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonShapeError';
  }
}

export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

export interface Format {
  /** One level of indentation: the file's own, or two spaces. */
  indent: string;
  eol: string;
}

export function detectFormat(text: string): Format {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // The first indented line of a pretty-printed document is one level deep.
  const m = /^([ \t]+)["{[\]}]/m.exec(text);
  let indent = '  ';
  if (m) indent = m[1].startsWith('\t') ? '\t' : m[1].slice(0, 8);
  return { indent, eol };
}

/** Applies non-overlapping edits; edits at the same offset land in the order given. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = edits
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.offset - b.e.offset || a.i - b.i)
    .map(({ e }) => e);
  let out = '';
  let cursor = 0;
  for (const e of sorted) {
    if (e.offset < cursor) throw new Error('overlapping text edits');
    out += text.slice(cursor, e.offset) + e.content;
    cursor = e.offset + e.length;
  }
  return out + text.slice(cursor);
}

/**
 * Returns `text` with the value at `path` set to `value` (or removed, when `value` is
 * undefined). Missing intermediate objects are created. `parsed` must be `text` parsed with
 * `options`. Returns `text` itself when there is nothing to do.
 */
export function setJsonPath(
  text: string,
  parsed: ParsedJson,
  path: readonly string[],
  value: JsonValue | undefined,
  options: ParseOptions,
): string {
  if (path.length === 0) throw new Error('setJsonPath needs a non-empty path');
  const before = parsed.root === undefined ? undefined : nodeValue(parsed.root);
  if (before !== undefined && !isJsonObject(before)) {
    throw new JsonShapeError('the top level of the file is not a JSON object');
  }
  const expected = withPath(before ?? {}, path, value);
  if (isDeepStrictEqual(expected, before ?? {})) return text;

  const format = detectFormat(text);
  const planner = new EditPlanner(text, format);
  const edits = planner.plan(parsed.root, path, value);
  const candidate = applyEdits(text, edits);
  if (verify(candidate, text, parsed, edits, expected, options)) return candidate;

  // Unreachable unless the planner has a bug; keep the user's file safe either way.
  if (parsed.comments.length === 0 && !parsed.hasTrailingCommas) {
    return serializeDocument(expected, format, text.length === 0 || /\n\s*$/.test(text));
  }
  throw new Error(
    'could not change the file without disturbing its comments; it was left as it was',
  );
}

/** A whole document, pretty-printed in the given format. */
export function serializeDocument(value: JsonValue, format: Format, finalNewline = true): string {
  return serialize(value, format, '') + (finalNewline ? format.eol : '');
}

function serialize(value: JsonValue, format: Format, baseIndent: string): string {
  return JSON.stringify(value, null, format.indent).replace(/\n/g, format.eol + baseIndent);
}

/** The plain-value equivalent of the edit, used to check the text edit. */
function withPath(root: JsonObject, path: readonly string[], value: JsonValue | undefined): JsonObject {
  const copy = structuredClone(root);
  let obj: JsonObject = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const next = obj[path[i]];
    if (!isJsonObject(next)) {
      if (value === undefined) return copy; // nothing to remove under a non-object
      const created: JsonObject = {};
      define(obj, path[i], created);
      obj = created;
    } else {
      obj = next;
    }
  }
  const last = path[path.length - 1];
  if (value === undefined) delete obj[last];
  else define(obj, last, value);
  return copy;
}

function define(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function verify(
  candidate: string,
  original: string,
  parsed: ParsedJson,
  edits: readonly TextEdit[],
  expected: JsonObject,
  options: ParseOptions,
): boolean {
  let after: ParsedJson;
  try {
    after = parseJson(candidate, options);
  } catch {
    return false;
  }
  if (after.root === undefined || !isDeepStrictEqual(nodeValue(after.root), expected)) return false;
  // Comments inside a range we replaced (inside our own old entry) may go; all others stay.
  const replaced = (c: { start: number; end: number }) =>
    edits.some((e) => e.length > 0 && c.start >= e.offset && c.end <= e.offset + e.length);
  const kept = parsed.comments.filter((c) => !replaced(c)).map((c) => original.slice(c.start, c.end));
  const now = after.comments.map((c) => candidate.slice(c.start, c.end));
  return isDeepStrictEqual(kept, now);
}

class EditPlanner {
  /** A document written on one line stays on one line. */
  private compact = false;

  constructor(
    private readonly text: string,
    private readonly format: Format,
  ) {}

  plan(root: JsonNode | undefined, path: readonly string[], value: JsonValue | undefined): TextEdit[] {
    if (root === undefined) {
      if (value === undefined) return [];
      return this.newDocument(nest(path, value));
    }
    if (root.kind !== 'object') throw new JsonShapeError('the top level of the file is not a JSON object');
    this.compact = root.members.length > 0 && !this.text.slice(root.start, root.end).includes('\n');

    let obj = root;
    for (let i = 0; i < path.length; i++) {
      const key = path[i];
      const found = obj.members.filter((m) => m.key === key);
      if (found.length > 1) {
        throw new JsonShapeError(
          `the file has ${found.length} "${path.slice(0, i + 1).join('.')}" keys; remove the duplicates first`,
        );
      }
      const member = found[0];
      const isLast = i === path.length - 1;
      if (isLast) {
        if (value === undefined) return member ? this.removeMember(obj, member) : [];
        return member ? this.replaceValue(member, value) : this.insertMember(obj, key, value);
      }
      if (!member) {
        if (value === undefined) return [];
        return this.insertMember(obj, key, nest(path.slice(i + 1), value));
      }
      if (member.value.kind !== 'object') {
        if (value === undefined) return [];
        throw new JsonShapeError(`"${path.slice(0, i + 1).join('.')}" in the file is not a JSON object`);
      }
      obj = member.value;
    }
    return [];
  }

  private newDocument(value: JsonValue): TextEdit[] {
    const { text, format } = this;
    const doc = serializeDocument(value, format);
    // Whitespace only: replace it. Comments only (JSONC): keep them and add the object after.
    if (text.trim() === '') return [{ offset: 0, length: text.length, content: doc }];
    const sep = text.endsWith('\n') ? '' : format.eol;
    return [{ offset: text.length, length: 0, content: sep + doc }];
  }

  private replaceValue(member: JsonMember, value: JsonValue): TextEdit[] {
    const content = this.compact
      ? JSON.stringify(value)
      : serialize(value, this.format, this.indentOf(member.keyStart));
    return [{ offset: member.value.start, length: member.value.end - member.value.start, content }];
  }

  private insertMember(obj: Extract<JsonNode, { kind: 'object' }>, key: string, value: JsonValue): TextEdit[] {
    const { text, format } = this;
    const k = JSON.stringify(key);
    const inner = { start: obj.start + 1, end: obj.end - 1 };

    if (obj.members.length === 0) {
      if (this.compact) {
        const content = `${k}:${JSON.stringify(value)}`;
        return text.slice(inner.start, inner.end).trim() === ''
          ? [{ offset: inner.start, length: inner.end - inner.start, content }]
          : [{ offset: inner.start, length: 0, content }];
      }
      const objIndent = this.indentOf(obj.start);
      const indent = objIndent + format.indent;
      const member = `${k}: ${serialize(value, format, indent)}`;
      if (text.slice(inner.start, inner.end).trim() === '') {
        return [
          { offset: inner.start, length: inner.end - inner.start, content: format.eol + indent + member + format.eol + objIndent },
        ];
      }
      // Only comments inside: put the member first and leave the comments after it.
      return [{ offset: inner.start, length: 0, content: format.eol + indent + member }];
    }

    const last = obj.members[obj.members.length - 1];
    const afterLast = this.skipTrivia(last.value.end);
    const trailingComma = text[afterLast] === ',';
    const commaEdit: TextEdit[] = trailingComma ? [] : [{ offset: last.value.end, length: 0, content: ',' }];
    const afterComma = trailingComma ? afterLast + 1 : last.value.end;

    const first = obj.members[0];
    if (this.compact || !text.slice(obj.start, first.keyStart).includes('\n')) {
      // An object written on one line gets the new member on that line too.
      const sep = this.compact ? '' : ' ';
      return [...commaEdit, { offset: afterComma, length: 0, content: `${sep}${k}:${sep}${JSON.stringify(value)}` }];
    }

    const indent = this.indentOf(first.keyStart);
    // A file that ends its members with a comma (JSONC) gets one after ours as well, which also
    // makes removing our entry later give back the original text exactly.
    const member = format.eol + indent + `${k}: ${serialize(value, format, indent)}` + (trailingComma ? ',' : '');
    // When the closing brace sits on its own line, insert just before that line, so that a
    // comment trailing the last member stays on the member's line.
    const close = obj.end - 1;
    const closeLine = this.lineStart(close);
    let at = afterComma;
    if (closeLine > afterComma && /^[ \t]*$/.test(text.slice(closeLine, close))) {
      at = closeLine - 1;
      if (text[at - 1] === '\r') at--;
    }
    return [...commaEdit, { offset: at, length: 0, content: member }];
  }

  private removeMember(obj: Extract<JsonNode, { kind: 'object' }>, member: JsonMember): TextEdit[] {
    const { text } = this;
    const index = obj.members.indexOf(member);
    const afterValue = this.skipTrivia(member.value.end);
    const trailingComma = text[afterValue] === ',';
    let start = member.keyStart;
    let end = trailingComma ? afterValue + 1 : member.value.end;

    // A member that has its lines to itself is removed with those lines.
    const lineStart = this.lineStart(start);
    const lineEnd = this.lineEnd(end);
    if (/^[ \t]*$/.test(text.slice(lineStart, start)) && /^[ \t]*\r?$/.test(text.slice(end, lineEnd))) {
      start = lineStart;
      end = lineEnd < text.length ? lineEnd + 1 : lineEnd;
    } else {
      while (text[end] === ' ' || text[end] === '\t') end++;
    }

    if (obj.members.length === 1) {
      const rest = text.slice(obj.start + 1, start) + text.slice(end, obj.end - 1);
      if (rest.trim() === '') return [{ offset: obj.start + 1, length: obj.end - obj.start - 2, content: '' }];
    }
    const edits: TextEdit[] = [{ offset: start, length: end - start, content: '' }];
    if (!trailingComma && index > 0) {
      // The last member goes: the comma that separated it from the one before goes too.
      const comma = this.skipTrivia(obj.members[index - 1].value.end);
      if (text[comma] === ',') edits.push({ offset: comma, length: 1, content: '' });
    }
    return edits;
  }

  /** Index of the next character that is neither whitespace nor part of a comment. */
  private skipTrivia(pos: number): number {
    const { text } = this;
    for (;;) {
      while (pos < text.length && /\s/.test(text[pos])) pos++;
      if (text.startsWith('//', pos)) {
        const nl = text.indexOf('\n', pos);
        pos = nl === -1 ? text.length : nl;
      } else if (text.startsWith('/*', pos)) {
        const close = text.indexOf('*/', pos + 2);
        pos = close === -1 ? text.length : close + 2;
      } else {
        return pos;
      }
    }
  }

  private lineStart(pos: number): number {
    return this.text.lastIndexOf('\n', pos - 1) + 1;
  }

  /** Index of the "\n" ending the line that holds `pos`, or the text's length. */
  private lineEnd(pos: number): number {
    const nl = this.text.indexOf('\n', pos);
    return nl === -1 ? this.text.length : nl;
  }

  private indentOf(pos: number): string {
    const start = this.lineStart(pos);
    return /^[ \t]*/.exec(this.text.slice(start, pos))![0];
  }
}

function nest(path: readonly string[], value: JsonValue): JsonValue {
  let out = value;
  for (let i = path.length - 1; i >= 0; i--) {
    const obj: JsonObject = {};
    define(obj, path[i], out);
    out = obj;
  }
  return out;
}
