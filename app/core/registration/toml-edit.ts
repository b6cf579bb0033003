/**
 * Sets or removes one table of a TOML document by editing its text in place — for Codex's
 * config.toml, where our entry is the table [mcp_servers.python-session].
 *
 * Everything outside that table stays byte for byte: other tables, comments, blank lines, key
 * order, quoting. Inside it:
 * - When the table is written the usual way (a [header] with plain `key = value` lines, and
 *   [sub.tables] such as the `env` Codex writes), only the values that change are rewritten;
 *   new keys go after the table's last line, new sub-tables after its body. Comments and keys
 *   the user added to our table stay.
 * - Any other layout (dotted keys, an inline table, a table given only by its sub-tables) is
 *   taken out and written again as one table, after the last of its sibling tables.
 * - A new table goes after the last table of its parent ([mcp_servers.*]), else at the end.
 *
 * Every result is checked before it is returned: it must parse, mean exactly the old document
 * with our one change, and still hold every comment that lay outside the text we removed. A
 * result that fails the check is never returned; the file is refused instead of damaged.
 */
import { isDeepStrictEqual } from 'node:util';
import { type TextEdit, applyEdits } from './json-edit.js';
import { type JsonObject, type JsonValue, isJsonObject } from './jsonc.js';
import {
  type ParsedToml,
  type TomlHeader,
  type TomlKeyValue,
  type TomlStatement,
  define,
  parseToml,
  renderKeyPart,
  renderString,
} from './toml.js';

/** The file's layout does not allow our change (a parent written as a value, an inline table…). */
export class TomlShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TomlShapeError';
  }
}

/**
 * Returns `text` with the table at `path` set to `value`, or removed when `value` is undefined.
 * `parsed` must be `text` parsed. Returns `text` itself when there is nothing to do.
 */
export function setTomlTable(
  text: string,
  parsed: ParsedToml,
  path: readonly string[],
  value: JsonObject | undefined,
): string {
  if (path.length === 0) throw new Error('setTomlTable needs a non-empty path');
  const expected = withTable(parsed.value, path, value);
  if (isDeepStrictEqual(expected, parsed.value)) return text;
  checkParents(parsed, path);

  const editor = new TableEditor(text, parsed);
  const old = valueAt(parsed.value, path);
  let candidate: string;
  let edits: TextEdit[] | null = value && isJsonObject(old) ? editor.editInPlace(path, old, value) : null;
  if (edits) {
    candidate = applyEdits(text, edits);
  } else {
    edits = editor.removal(path);
    candidate = applyEdits(text, edits);
    if (value) {
      let stripped: ParsedToml;
      try {
        stripped = parseToml(candidate);
      } catch {
        throw new CannotEditError();
      }
      candidate = new TableEditor(candidate, stripped).insert(path, value);
    }
  }
  if (!verify(candidate, text, parsed, edits, expected, path)) throw new CannotEditError();
  return candidate;
}

/** Only a bug in the editor leads here; the file is kept safe either way. */
class CannotEditError extends Error {
  constructor() {
    super('could not change the file without disturbing the rest of it; it was left as it was');
    this.name = 'CannotEditError';
  }
}

/** A table written from scratch: scalars and arrays first, then each sub-table under its own header. */
export function renderTable(path: readonly string[], table: JsonObject, eol = '\n'): string {
  const lines = [`[${path.map(renderKeyPart).join('.')}]`];
  const entries = Object.entries(table);
  for (const [key, value] of entries) {
    if (!isJsonObject(value)) lines.push(`${renderKeyPart(key)} = ${renderInline(value)}`);
  }
  for (const [key, value] of entries) {
    if (isJsonObject(value)) lines.push('', renderTable([...path, key], value, eol));
  }
  return lines.join(eol);
}

/** A value on one line: strings double-quoted, tables inline. */
export function renderInline(value: JsonValue): string {
  if (value === null) throw new TomlShapeError('TOML has no null value');
  if (typeof value === 'string') return renderString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(renderInline).join(', ')}]`;
  const members = Object.entries(value).map(([k, v]) => `${renderKeyPart(k)} = ${renderInline(v)}`);
  return members.length ? `{ ${members.join(', ')} }` : '{}';
}

function valueAt(root: JsonObject, path: readonly string[]): JsonValue | undefined {
  let value: JsonValue | undefined = root;
  for (const key of path) {
    if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** The document's plain value with the change made, to check the text edit against. */
function withTable(root: JsonObject, path: readonly string[], value: JsonObject | undefined): JsonObject {
  const copy = structuredClone(root);
  let table = copy;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(table, key) ? table[key] : undefined;
    if (isJsonObject(next)) {
      table = next;
    } else {
      if (value === undefined) return copy;
      const created: JsonObject = {};
      define(table, key, created);
      table = created;
    }
  }
  const last = path[path.length - 1];
  if (value === undefined) delete table[last];
  else define(table, last, structuredClone(value));
  return copy;
}

/** Each table above ours must be a plain table we can add a [header] under. */
function checkParents(parsed: ParsedToml, path: readonly string[]): void {
  let value: JsonValue | undefined = parsed.value;
  for (let i = 1; i < path.length; i++) {
    const prefix = path.slice(0, i);
    const name = prefix.join('.');
    value = isJsonObject(value) && Object.hasOwn(value, path[i - 1]) ? value[path[i - 1]] : undefined;
    if (value === undefined) return;
    if (Array.isArray(value)) throw new TomlShapeError(`"${name}" in the file is an array, not a table`);
    if (!isJsonObject(value)) throw new TomlShapeError(`"${name}" in the file is not a table`);
    const inline = parsed.statements.some((s) => s.kind === 'keyval' && samePath(s.path, prefix));
    if (inline) {
      throw new TomlShapeError(
        `"${name}" is written as an inline table (${name} = { … }); write it as [${name}.<name>] tables first`,
      );
    }
  }
}

class TableEditor {
  private readonly statements: readonly TomlStatement[];
  readonly eol: string;

  constructor(
    private readonly text: string,
    parsed: ParsedToml,
  ) {
    this.statements = parsed.statements;
    this.eol = text.includes('\r\n') ? '\r\n' : '\n';
  }

  /**
   * Edits for changing the table at `path` from `old` to `value` where it is, or null when its
   * layout is not one we edit in place.
   */
  editInPlace(path: readonly string[], old: JsonObject, value: JsonObject): TextEdit[] | null {
    const main = this.headerAt(path);
    if (main === undefined) return null;
    // A key of ours set from outside our table (a dotted key in [mcp_servers]) is not in place.
    const owned = new Set(this.statements.map((s, i) => (s.kind !== 'keyval' && startsWith(s.path, path) ? i : -1)));
    const outside = this.statements.some(
      (s) => s.kind === 'keyval' && startsWith(s.path, path) && !owned.has(s.table),
    );
    if (outside) return null;
    return this.editTable(main, old, value);
  }

  private editTable(headerIndex: number, old: JsonObject, value: JsonObject): TextEdit[] | null {
    const header = this.statements[headerIndex] as TomlHeader;
    const body = this.bodyOf(headerIndex);
    const edits: TextEdit[] = [];
    const newLines: string[] = [];
    const newTables: string[] = [];
    const deleted = new Set<TomlKeyValue>();
    for (const key of new Set([...Object.keys(old), ...Object.keys(value)])) {
      const before = Object.hasOwn(old, key) ? old[key] : undefined;
      const after = Object.hasOwn(value, key) ? value[key] : undefined;
      if (isDeepStrictEqual(before, after)) continue;
      const lines = body.filter((kv) => kv.key[0] === key);
      const direct = lines.length === 1 && lines[0].key.length === 1 ? lines[0] : undefined;
      if (lines.length > 0 && !direct) return null; // dotted keys: rewrite the whole table
      const subPath = [...header.path, key];
      const sub = this.headerAt(subPath);
      const deeper = this.statements.some((s) => s.kind !== 'keyval' && startsWith(s.path, subPath));

      if (after === undefined) {
        if (!direct) return null;
        edits.push(this.deleteLine(direct));
        deleted.add(direct);
      } else if (before === undefined) {
        if (deeper) return null;
        if (isJsonObject(after)) newTables.push(renderTable(subPath, after, this.eol));
        else newLines.push(`${renderKeyPart(key)} = ${renderInline(after)}`);
      } else if (direct) {
        edits.push({ offset: direct.valueStart, length: direct.valueEnd - direct.valueStart, content: renderInline(after) });
      } else if (sub !== undefined && isJsonObject(before) && isJsonObject(after)) {
        const inner = this.editTable(sub, before, after);
        if (!inner) return null;
        edits.push(...inner);
      } else {
        return null;
      }
    }
    if (newLines.length || newTables.length) {
      // After the last line that stays: an insertion inside a deleted line would be lost.
      const kept = body.filter((kv) => !deleted.has(kv));
      const last = kept.length ? kept[kept.length - 1] : header;
      const indent = body.length ? this.text.slice(body[0].lineStart, body[0].keyStart) : '';
      const { eol } = this;
      const content = newLines.map((l) => eol + indent + l).join('') + newTables.map((t) => eol + eol + t).join('');
      edits.push({ offset: last.lineEnd, length: 0, content });
    }
    return edits;
  }

  /** Edits that take out every line defining something at or under `path`. */
  removal(path: readonly string[]): TextEdit[] {
    const ranges: Array<[number, number]> = [];
    const owned = new Set<number>();
    this.statements.forEach((s, i) => {
      if (s.kind === 'keyval' || !startsWith(s.path, path)) return;
      owned.add(i);
      ranges.push([s.lineStart, this.regionEnd(i)]);
    });
    for (const s of this.statements) {
      if (s.kind === 'keyval' && startsWith(s.path, path) && !owned.has(s.table)) {
        ranges.push([s.lineStart, this.afterLineBreak(s.lineEnd)]);
      }
    }
    ranges.sort((a, b) => a[0] - b[0]);
    // Ranges with only blank lines between them go as one.
    const merged: Array<[number, number]> = [];
    for (const r of ranges) {
      const prev = merged[merged.length - 1];
      if (prev && (r[0] <= prev[1] || /^\s*$/.test(this.text.slice(prev[1], r[0])))) prev[1] = Math.max(prev[1], r[1]);
      else merged.push([...r]);
    }
    return merged.map(([start, end]) => this.withBlankLines(start, end));
  }

  /** Text with a new table at `path` (which must not exist yet). */
  insert(path: readonly string[], value: JsonObject): string {
    const { text, eol } = this;
    const parent = path.slice(0, -1);
    let at = text.length;
    if (parent.length > 0) {
      for (let i = this.statements.length - 1; i >= 0; i--) {
        const s = this.statements[i];
        if (s.kind !== 'keyval' && startsWith(s.path, parent)) {
          at = this.regionEnd(i);
          break;
        }
      }
    }
    const before = text.slice(0, at);
    const after = text.slice(at);
    let lead = before.length > 0 && !before.endsWith('\n') ? eol : '';
    // A blank line between our table and what comes before and after it.
    if (before.trim() !== '' && !/\n[ \t]*\r?\n$/.test(before + lead)) lead += eol;
    const trail = after.length > 0 && !/^[ \t]*(\r?\n|$)/.test(after) ? eol + eol : eol;
    return before + lead + renderTable(path, value, eol) + trail + after;
  }

  private headerAt(path: readonly string[]): number | undefined {
    const i = this.statements.findIndex((s) => s.kind === 'table' && samePath(s.path, path));
    return i === -1 ? undefined : i;
  }

  private bodyOf(headerIndex: number): TomlKeyValue[] {
    return this.statements.filter((s): s is TomlKeyValue => s.kind === 'keyval' && s.table === headerIndex);
  }

  /** The end of a header's table: after the line break of its last key/value (or of the header). */
  private regionEnd(headerIndex: number): number {
    const body = this.bodyOf(headerIndex);
    const last = body.length ? body[body.length - 1] : this.statements[headerIndex];
    return this.afterLineBreak(last.lineEnd);
  }

  private afterLineBreak(lineEnd: number): number {
    if (this.text.startsWith('\r\n', lineEnd)) return lineEnd + 2;
    if (this.text[lineEnd] === '\n') return lineEnd + 1;
    return lineEnd;
  }

  private deleteLine(kv: TomlKeyValue): TextEdit {
    const end = this.afterLineBreak(kv.lineEnd);
    return { offset: kv.lineStart, length: end - kv.lineStart, content: '' };
  }

  /**
   * A removal that also takes the blank lines after it, and — at the end of the file — those
   * before it, so that taking out a table we appended gives back the file as it was.
   */
  private withBlankLines(start: number, end: number): TextEdit {
    const { text } = this;
    for (let m: RegExpExecArray | null; (m = /^[ \t]*\r?\n/.exec(text.slice(end))); ) end += m[0].length;
    if (/^[ \t]*$/.test(text.slice(end))) {
      end = text.length;
      while (start > 0) {
        const prev = text.lastIndexOf('\n', start - 2) + 1;
        if (!/^[ \t]*\r?\n$/.test(text.slice(prev, start))) break;
        start = prev;
      }
    }
    return { offset: start, length: end - start, content: '' };
  }
}

function verify(
  candidate: string,
  original: string,
  parsed: ParsedToml,
  edits: readonly TextEdit[],
  expected: JsonObject,
  path: readonly string[],
): boolean {
  let after: ParsedToml;
  try {
    after = parseToml(candidate);
  } catch {
    return false;
  }
  if (!isDeepStrictEqual(withoutEmptyParents(after.value, path), withoutEmptyParents(expected, path))) return false;
  // Comments inside text we replaced or removed (inside our own old table) may go; all others stay.
  const replaced = (c: { start: number; end: number }) =>
    edits.some((e) => e.length > 0 && c.start >= e.offset && c.end <= e.offset + e.length);
  const kept = parsed.comments.filter((c) => !replaced(c)).map((c) => original.slice(c.start, c.end));
  const now = after.comments.map((c) => candidate.slice(c.start, c.end));
  return isDeepStrictEqual(kept, now);
}

/**
 * The document without the tables above `path` that hold nothing. In TOML, [a.b] alone makes
 * `a` exist; once [a.b] is taken out, `a` is gone or empty depending on how it was written,
 * and the two mean the same.
 */
function withoutEmptyParents(doc: JsonObject, path: readonly string[]): JsonObject {
  const copy = structuredClone(doc);
  for (let i = path.length - 1; i >= 1; i--) {
    const holder = valueAt(copy, path.slice(0, i - 1));
    const table = valueAt(copy, path.slice(0, i));
    if (isJsonObject(holder) && isJsonObject(table) && Object.keys(table).length === 0) delete holder[path[i - 1]];
  }
  return copy;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return path.length >= prefix.length && prefix.every((k, i) => path[i] === k);
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && startsWith(a, b);
}
