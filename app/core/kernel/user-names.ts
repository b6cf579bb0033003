/**
 * The user's variable names, tracked on every run through a
 * `user_expressions` entry (no extra round trip), so that when a kernel dies
 * or is lost we can say which variables went with it. Local and remote kernels share this.
 */
const NAMES_EXPRESSION =
  "' '.join([n for n in get_ipython().user_ns if n[:1] != '_' and n not in get_ipython().user_ns_hidden][:500])";
// resources/python/kernel_startup.py answers this key directly in our own kernels (IPython's
// formatters cost about half a millisecond a run); remote kernels evaluate the expression.
const NAMES_KEY = '__python_session_names__';

/**
 * The user_expressions to send with an execute_request: with every one, helper calls too, since
 * load_data, ols and reset_namespace bind and clear names as much as a cell does (a restart after
 * load_data must say the frame went with it).
 */
export function namesExpressions(_storeHistory?: boolean): Record<string, string> {
  return { [NAMES_KEY]: NAMES_EXPRESSION };
}

/** The names from an execute_reply's content, or undefined when the reply carries none. */
export function readUserNames(content: Record<string, unknown>): string[] | undefined {
  const expressions = content.user_expressions as Record<string, { status?: string; data?: Record<string, unknown> }> | undefined;
  const entry = expressions?.[NAMES_KEY];
  const text = entry?.status === 'ok' ? entry.data?.['text/plain'] : undefined;
  if (typeof text !== 'string') return undefined;
  const inner = text.replace(/^['"]|['"]$/g, '');
  return inner ? inner.split(' ') : [];
}
