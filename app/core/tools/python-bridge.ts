/**
 * Calls the Python helpers (resources/python/python_session) inside a kernel.
 * The package is imported on first use without binding any name in the user's
 * namespace, and each call publishes exactly one result bundle, which this
 * module picks out of the execution's outputs.
 */
import type { ExecuteOptions } from '../kernel/kernel.js';
import type { SessionKernel } from '../kernel/session-kernel.js';
import { outputText, type ExecutionResult, type Output } from '../kernel/outputs.js';
import { pythonHelpersDir } from '../package-root.js';

export const RESULT_MIME = 'application/vnd.python-session+json';

export interface ToolSuccess<S = Record<string, unknown>> {
  ok: true;
  text: string;
  structured: S | null;
  /** Anything else the call printed or displayed (warnings, figures). */
  outputs: Output[];
}

export class ToolCallError extends Error {
  constructor(
    message: string,
    readonly kind: string,
    readonly install: string | null = null,
    readonly outputs: Output[] = [],
  ) {
    super(message);
  }
}

/** Python code that imports the helpers if needed and calls one tool. */
export function helperCallCode(tool: string, args: unknown, helpersDir = pythonHelpersDir()): string {
  const script = [
    'import sys',
    "if 'python_session' not in sys.modules:",
    '    sys.path.insert(0, p)',
    '    try:',
    '        import python_session',
    '    finally:',
    '        sys.path.remove(p)',
    "sys.modules['python_session'].call(t, a)",
  ].join('\n');
  // JSON string literals are valid Python string literals, so nothing user-supplied is ever spliced raw.
  const literal = (value: string) => JSON.stringify(value);
  return `exec(compile(${literal(script)}, '<python-session>', 'exec'), {'p': ${literal(helpersDir)}, 't': ${literal(tool)}, 'a': ${literal(JSON.stringify(args ?? {}))}})`;
}

export async function callHelper<S = Record<string, unknown>>(
  kernel: SessionKernel,
  tool: string,
  args: unknown,
  options: Omit<ExecuteOptions, 'storeHistory'> = {},
): Promise<ToolSuccess<S>> {
  const result = await kernel.execute(helperCallCode(tool, args), { ...options, storeHistory: false });
  return readHelperResult<S>(result);
}

export function readHelperResult<S>(result: ExecutionResult): ToolSuccess<S> {
  const others = result.outputs.filter((o) => !((o.type === 'display_data' || o.type === 'execute_result') && RESULT_MIME in o.data));
  const bundle = result.outputs.find((o) => (o.type === 'display_data' || o.type === 'execute_result') && RESULT_MIME in o.data) as
    | Extract<Output, { type: 'display_data' }>
    | undefined;
  if (!bundle) {
    if (result.timedOut) throw new ToolCallError('Timed out; the call was interrupted.', 'timeout', null, others);
    if (result.error) throw new ToolCallError(result.error.message, 'python_error', null, others);
    throw new ToolCallError(`The helper returned no result.${outputText(others) ? ` It printed:\n${outputText(others)}` : ''}`, 'internal', null, others);
  }
  const payload = bundle.data[RESULT_MIME] as
    | { ok: true; text: string; structured: S | null }
    | { ok: false; error: string; kind: string; install?: string | null };
  if (!payload.ok) throw new ToolCallError(payload.error, payload.kind, payload.install ?? null, others);
  return { ok: true, text: payload.text, structured: payload.structured, outputs: others };
}
