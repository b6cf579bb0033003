/**
 * The part of a .condarc that discovery needs: the `envs_dirs` (and older `envs_path`) lists.
 * Not a YAML parser: conda config files are flat, and reading two list keys does not justify a
 * dependency. Block lists, flow lists, quotes and comments are handled.
 */

const KEYS = new Set(['envs_dirs', 'envs_path']);

function stripComment(s: string): string {
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(s[i - 1] ?? ''))) {
      return s.slice(0, i);
    }
  }
  return s;
}

function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    return t.slice(1, -1);
  }
  return t;
}

function flowList(s: string): string[] {
  const inner = s.trim().replace(/^\[/, '').replace(/\]$/, '');
  return inner
    .split(',')
    .map(unquote)
    .filter((x) => x.length > 0);
}

/** The folders listed under `envs_dirs:` / `envs_path:`, unexpanded, in file order. */
export function parseCondarcEnvsDirs(text: string): string[] {
  const out: string[] = [];
  let inList = false;
  let keyIndent = 0;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = stripComment(rawLine).replace(/\s+$/, '');
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    const key = /^(\s*)([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(line);
    if (key && !line.trimStart().startsWith('-')) {
      inList = false;
      if (KEYS.has(key[2] as string) && (key[1] as string).length === 0) {
        const rest = (key[3] ?? '').trim();
        if (rest.startsWith('[')) out.push(...flowList(rest));
        else if (rest !== '') out.push(unquote(rest));
        else {
          inList = true;
          keyIndent = indent;
        }
      }
      continue;
    }
    if (inList) {
      const item = /^\s*-\s+(.*)$/.exec(line) ?? /^\s*-$/.exec(line);
      if (item && indent >= keyIndent) {
        const v = unquote(item[1] ?? '');
        if (v !== '') out.push(v);
      } else if (indent <= keyIndent) {
        inList = false;
      }
    }
  }
  return out;
}
