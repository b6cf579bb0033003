/**
 * Calls the Python helpers (resources/python/python_session) inside a kernel.
 * The package is imported on first use without binding any name in the user's
 * namespace, and each call publishes exactly one result bundle, which this
 * module picks out of the execution's outputs.
 *
 * A local kernel imports the package from this machine's files. A remote one cannot see them
 * ('inline-source' transport): its first call carries the package's source, which an in-memory
 * importer serves from then on, so nothing is written on the server and the helpers run with
 * the server's own pandas, statsmodels and matplotlib.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { ExecuteOptions } from '../kernel/kernel.js';
import type { SessionKernel } from '../kernel/supervision/session-kernel.js';
import { outputText, type ExecutionResult, type Output } from '../kernel/execution/outputs.js';
import { pythonHelpersDir } from '../package-root.js';

export const RESULT_MIME = 'application/vnd.python-session+json';

export interface ToolSuccess<S = Record<string, unknown>> {
  ok: true;
  text: string;
  structured: S | null;
  /** Anything else the call printed or displayed (warnings, figures). */
  outputs: Output[];
  /**
   * The whole result bundle, for what the layers above read from it (the plain code of what the
   * tool did, for the session log: sessions/tool-record.ts' toolCodeFromPayload).
   */
  payload: Record<string, unknown>;
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
  if (kernel.helperTransport === 'inline-source') return callInline<S>(kernel, tool, args, options);
  const result = await kernel.execute(helperCallCode(tool, args), { ...options, storeHistory: false });
  return readHelperResult<S>(result);
}

// ---- inline-source transport ----

/** Kind of the answer a kernel gives when it has no helpers loaded (a new kernel process). */
export const HELPERS_MISSING = 'helpers_missing';

/** The kernel incarnation (its startedAt) each remote kernel last got the sources in. */
const sourcesSent = new WeakMap<SessionKernel, number | undefined>();

/**
 * Sends the sources once per kernel process: with the first call, and again after a restart
 * (startedAt changes). A process we did not see change (restarted by someone else) answers
 * the short call with HELPERS_MISSING, and the call is repeated with the sources.
 */
async function callInline<S>(kernel: SessionKernel, tool: string, args: unknown, options: Omit<ExecuteOptions, 'storeHistory'>): Promise<ToolSuccess<S>> {
  const call = async (withSources: boolean) => {
    const result = await kernel.execute(inlineHelperCallCode(tool, args, withSources ? helperSources() : null), { ...options, storeHistory: false });
    const answer = readHelperResult<S>(result);
    if (withSources) sourcesSent.set(kernel, kernel.startedAt);
    return answer;
  };
  const known = sourcesSent.has(kernel) && sourcesSent.get(kernel) === kernel.startedAt;
  try {
    return await call(!known);
  } catch (error) {
    if (!(known && error instanceof ToolCallError && error.kind === HELPERS_MISSING)) throw error;
    sourcesSent.delete(kernel);
    return call(true);
  }
}

export interface HelperSources {
  /** The modules' sources as JSON, deflated and base64-encoded: a few times smaller on the wire. */
  packed: string;
  modules: string[];
}

let cachedSources: HelperSources | undefined;

/** Every .py file of the helper package, by module name ("python_session", "python_session.errors", …). */
export function helperSources(packageDir = join(pythonHelpersDir(), 'python_session')): HelperSources {
  if (cachedSources && packageDir === join(pythonHelpersDir(), 'python_session')) return cachedSources;
  const modules: Record<string, { source: string; package: boolean; file: string }> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '__pycache__' && readdirSync(path).includes('__init__.py')) walk(path);
        continue;
      }
      if (!entry.name.endsWith('.py')) continue;
      const rel = relative(join(packageDir, '..'), path).split(sep);
      const isInit = entry.name === '__init__.py';
      const name = (isInit ? rel.slice(0, -1) : [...rel.slice(0, -1), entry.name.slice(0, -3)]).join('.');
      modules[name] = { source: readFileSync(path, 'utf8'), package: isInit, file: rel.join('/') };
    }
  };
  walk(packageDir);
  const sources = { packed: deflateSync(Buffer.from(JSON.stringify(modules), 'utf8'), { level: 9 }).toString('base64'), modules: Object.keys(modules).sort() };
  if (packageDir === join(pythonHelpersDir(), 'python_session')) cachedSources = sources;
  return sources;
}

/**
 * Python code for one call on a kernel without our files. With `sources`, it first installs an
 * importer that serves the package from memory (source kept in linecache, so tracebacks through
 * the helpers show their lines); without, it calls the loaded package or says it has none.
 * Everything it defines lives in a private globals dict, never in the user's namespace.
 */
export function inlineHelperCallCode(tool: string, args: unknown, sources: HelperSources | null): string {
  const missing = JSON.stringify({ ok: false, kind: HELPERS_MISSING, error: 'The Python Session helpers are not loaded in this kernel.', install: null });
  const script = sources
    ? [
        'import sys',
        "if 'python_session' not in sys.modules:",
        '    import base64, importlib.abc, importlib.util, json, linecache, zlib',
        "    modules = json.loads(zlib.decompress(base64.b64decode(z)).decode('utf-8'))",
        '    class PythonSessionImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):',
        '        def find_spec(self, fullname, path=None, target=None):',
        '            entry = modules.get(fullname)',
        '            if entry is None:',
        '                return None',
        "            return importlib.util.spec_from_loader(fullname, self, origin=entry['file'], is_package=entry['package'])",
        '        def create_module(self, spec):',
        '            return None',
        '        def exec_module(self, module):',
        '            entry = modules[module.__name__]',
        "            filename = '<python-session>/' + entry['file']",
        "            linecache.cache[filename] = (len(entry['source']), None, entry['source'].splitlines(True), filename)",
        '            module.__file__ = filename',
        "            exec(compile(entry['source'], filename, 'exec'), module.__dict__)",
        '    sys.meta_path.insert(0, PythonSessionImporter())',
        '    import python_session',
        "sys.modules['python_session'].call(t, a)",
      ].join('\n')
    : [
        'import sys',
        "m = sys.modules.get('python_session')",
        'if m is None:',
        '    from IPython.display import display',
        '    display({r: json_loads(n)}, raw=True)',
        'else:',
        '    m.call(t, a)',
      ].join('\n');
  const literal = (value: string) => JSON.stringify(value);
  const globals = sources
    ? `{'z': ${literal(sources.packed)}, 't': ${literal(tool)}, 'a': ${literal(JSON.stringify(args ?? {}))}}`
    : `{'r': ${literal(RESULT_MIME)}, 'n': ${literal(missing)}, 'json_loads': __import__('json').loads, 't': ${literal(tool)}, 'a': ${literal(JSON.stringify(args ?? {}))}}`;
  return `exec(compile(${literal(script)}, '<python-session>', 'exec'), ${globals})`;
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
    | { ok: true; text: string; structured: S | null; code?: string }
    | { ok: false; error: string; kind: string; install?: string | null };
  if (!payload.ok) throw new ToolCallError(payload.error, payload.kind, payload.install ?? null, others);
  return { ok: true, text: payload.text, structured: payload.structured, outputs: others, payload: payload as unknown as Record<string, unknown> };
}
