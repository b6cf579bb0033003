/**
 * The user's variable names, tracked on every run through a `user_expressions` entry (no extra
 * round trip), so that when a kernel dies or is lost we can say which variables went with it,
 * and so that the names a cell made or rebound can be told (each name comes with a fingerprint:
 * the hex ids of its value and of the value's type, which change when the name is bound to
 * another object). Local and remote kernels share this.
 */
const NAMES_EXPRESSION =
  "' '.join(['%s:%x:%x' % (n, id(v), id(type(v))) for n, v in list(get_ipython().user_ns.items()) if n[:1] != '_' and n not in get_ipython().user_ns_hidden][:500])";
// resources/python/kernel_startup.py answers this key directly in our own kernels (IPython's
// formatters cost about half a millisecond a run), and so does the built-in worker; remote
// kernels evaluate the expression.
const NAMES_KEY = '__python_session_names__';

/**
 * The user_expressions to send with an execute_request: with every one, helper calls too, since
 * load_data, ols and reset_namespace bind and clear names as much as a cell does (a restart after
 * load_data must say the frame went with it).
 */
export function namesExpressions(_storeHistory?: boolean): Record<string, string> {
  return { [NAMES_KEY]: NAMES_EXPRESSION };
}

/** Each user name with its fingerprint ('' from a kernel that sends names alone), in namespace order. */
export type NameFingerprints = ReadonlyMap<string, string>;

/** The names and their fingerprints from an execute_reply's content, or undefined when the reply carries none. */
export function readUserNames(content: Record<string, unknown>): NameFingerprints | undefined {
  const expressions = content.user_expressions as Record<string, { status?: string; data?: Record<string, unknown> }> | undefined;
  const entry = expressions?.[NAMES_KEY];
  const text = entry?.status === 'ok' ? entry.data?.['text/plain'] : undefined;
  if (typeof text !== 'string') return undefined;
  const inner = text.replace(/^['"]|['"]$/g, '');
  const names = new Map<string, string>();
  if (!inner) return names;
  for (const item of inner.split(' ')) {
    const colon = item.indexOf(':');
    if (colon === -1) names.set(item, '');
    else names.set(item.slice(0, colon), item.slice(colon + 1));
  }
  return names;
}

/** What happened to the names between two readings: made or rebound, and gone. */
export interface NamesChange {
  changed: string[];
  gone: string[];
}

export function namesChange(before: NameFingerprints, after: NameFingerprints): NamesChange {
  const changed: string[] = [];
  for (const [name, print] of after) if (before.get(name) !== print) changed.push(name);
  const gone: string[] = [];
  for (const name of before.keys()) if (!after.has(name)) gone.push(name);
  return { changed, gone };
}
