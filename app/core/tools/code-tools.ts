/** run_python / execute_code, and the variable explorer (list_names, describe_object, get_value). */
import { z } from 'zod';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { outputText, type Output } from '../kernel/outputs.js';
import { DEFAULT_SESSION } from '../sessions/session-manager.js';
import { runContent } from '../mcp/run-content.js';
import { callHelper, ToolCallError } from './python-bridge.js';
import { READS, RUNS_CODE } from './tool-annotations.js';
import { contentResult, dataResult, errorResult, guarded, sessionArg, sessionFor, textResult, type ToolContext, type ToolRegistrar, type ToolResult } from './tool-context.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const PROGRESS_EVERY_MS = 3000;

/** Sends progress (elapsed seconds and the latest output) while a long run goes on. */
function progressReporter(extra: Extra) {
  const token = extra._meta?.progressToken;
  let latest = '';
  const started = Date.now();
  const timer =
    token === undefined
      ? undefined
      : setInterval(() => {
          const elapsed = Math.round((Date.now() - started) / 1000);
          const tail = latest.trim().split('\n').slice(-3).join('\n').slice(-300);
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: elapsed, message: `Running for ${elapsed} s${tail ? `; latest output:\n${tail}` : ''}` },
            })
            .catch(() => undefined);
        }, PROGRESS_EVERY_MS);
  return {
    onOutput(output: Output) {
      if (output.type === 'stream') latest = (latest + output.text).slice(-2000);
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

export async function runPython(context: ToolContext, args: { code: string; timeout_s?: number; session?: string }, extra: Extra): Promise<ToolResult> {
  const session = await sessionFor(context, args.session ?? DEFAULT_SESSION);
  const timeoutS = args.timeout_s ?? context.settings.timeoutS();
  const progress = progressReporter(extra);
  try {
    const outcome = await session.run({
      code: args.code,
      client: context.clientName(),
      timeoutS,
      signal: extra.signal,
      onOutput: (output) => progress.onOutput(output),
      outputLimit: context.settings.outputLimit(),
    });
    // Said before the output: the kernel that held this client's variables died since its last call.
    const before = outcome.diedBefore
      ? [{ type: 'text' as const, text: `Note: this session's kernel died since your previous call${outcome.diedBefore.times > 1 ? ` (${outcome.diedBefore.times} times; the last time is described here)` : ''}, so this call ran in a fresh one.\n${outcome.diedBefore.error.message}\n\n` }]
      : [];
    const warnings = outcome.warnings.map((text) => ({ type: 'text' as const, text: `\n${text}` }));
    const noted = {
      ...(outcome.diedBefore ? { died_before: { lost_names: outcome.diedBefore.error.lostNames } } : {}),
      ...(outcome.warnings.length ? { warnings: outcome.warnings } : {}),
    };
    if (outcome.kind === 'died') {
      const died = errorResult(outcome.error.message, { status: 'died', lost_names: outcome.error.lostNames, restarted: outcome.error.restarted, ...noted });
      return { ...died, content: [...before, ...died.content, ...warnings] };
    }
    const { result, figures } = outcome;
    const failed = result.status !== 'ok' || !!result.timedOut;
    const facts = {
      status: result.timedOut ? 'timeout' : result.status,
      execution_count: result.executionCount,
      duration_ms: result.durationMs,
      figures: figures.filter((f) => f.path).map((f) => f.path),
      ...(result.spillPath ? { full_output_path: result.spillPath } : {}),
      ...(result.error ? { error: { ename: result.error.ename, evalue: result.error.evalue, line: result.error.line ?? null } } : {}),
      ...(result.restarted ? { restarted: true, lost_names: result.lostNames ?? [] } : {}),
      ...noted,
    };
    // The answer is the printed text and figures, so no structuredContent (see FACTS_KEY).
    const answer = contentResult([...before, ...runContent(result, figures, timeoutS), ...warnings], facts);
    return failed ? { ...answer, isError: true } : answer;
  } finally {
    progress.stop();
  }
}

/**
 * Calls a Python helper and shapes its answer (or its failure) for the model. `answer: 'data'` is
 * for tools whose JSON is the answer (get_value, ols): it goes out as structuredContent, with any
 * text the helper printed added to it, so a client that forwards only the JSON loses nothing.
 */
export async function helperResult(
  context: ToolContext,
  sessionName: string | undefined,
  tool: string,
  args: Record<string, unknown>,
  options: { answer?: 'text' | 'data' } = {},
): Promise<ToolResult> {
  const session = await sessionFor(context, sessionName ?? DEFAULT_SESSION);
  try {
    const result = await callHelper(session.kernel, tool, args, { timeoutMs: context.settings.timeoutS() * 1000 });
    const printed = outputText(result.outputs).trim();
    const text = printed ? `${result.text}\n\n${printed}` : result.text;
    if (options.answer === 'data' && result.structured) return dataResult(text, printed ? { ...result.structured, printed } : result.structured);
    return textResult(text, result.structured ?? undefined);
  } catch (error) {
    if (error instanceof ToolCallError) {
      const install = error.install ? `\nInstall it with:\n  ${error.install}` : '';
      return errorResult(`${error.message}${install}`, { kind: error.kind, install: error.install });
    }
    throw error;
  }
}

export const registerCodeTools: ToolRegistrar = (server, context) => {
  const runShape = {
    code: z.string().min(1).max(8_000_000).describe('Python code. The last expression is displayed, as in a notebook cell.'),
    timeout_s: z.number().positive().max(86_400).optional().describe('Seconds before the run is interrupted (default PYTHON_MCP_TIMEOUT or 600).'),
    session: sessionArg,
  };
  const runDescription =
    'Run Python code in a persistent Jupyter kernel in the user\'s own Python (their conda env, pandas, statsmodels…): data analysis, statistics, plots. Variables, imports and loaded data persist between calls, like notebook cells. ' +
    'Returns printed output and the last expression\'s value in print order; matplotlib plots and charts come back as images (also saved to the session\'s figures folder). ' +
    'On failure the reply ends with "Python error: <Type> on line N: <message>" and the session keeps its state; call last_error for the full traceback. ' +
    'Long outputs are cut to head and tail with the path of a file holding all of it. Long runs report progress; cancelling the call interrupts the kernel. The code runs with the user\'s rights.';
  server.registerTool(
    'run_python',
    { title: 'Run Python code', description: runDescription, inputSchema: runShape, annotations: RUNS_CODE },
    (args, extra) => guarded(() => runPython(context, args, extra)),
  );
  server.registerTool(
    'execute_code',
    { title: 'Execute Python code', description: `Same as run_python (kept for clients configured for the earlier tool). ${runDescription}`, inputSchema: runShape, annotations: RUNS_CODE },
    (args, extra) => guarded(() => runPython(context, args, extra)),
  );
  server.registerTool(
    'list_names',
    {
      title: 'List variables',
      description: 'List the user variables in a session (a variable explorer): name, type, shape or length, size and a short preview. DataFrames show their shape and dtypes. Use it to see what data is loaded before writing code.',
      inputSchema: { session: sessionArg },
      annotations: READS,
    },
    (args) => guarded(() => helperResult(context, args.session, 'list_names', {})),
  );
  server.registerTool(
    'describe_object',
    {
      title: 'Describe a variable',
      description: 'Describe one variable: type, shape, dtypes, missing values, memory size, and a bounded head and tail (DataFrames, arrays, Series); signature and docstring for functions; the summary for fitted statsmodels results.',
      inputSchema: { name: z.string().min(1).max(1000).describe('Variable name, or a path of attributes and constant subscripts like df.columns or results["model"]'), session: sessionArg },
      annotations: READS,
    },
    (args) => guarded(() => helperResult(context, args.session, 'describe', { name: args.name })),
  );
  server.registerTool(
    'get_value',
    {
      title: 'Get a value as JSON',
      description: 'Evaluate a Python expression in the session and return its value as JSON in structuredContent.value (numpy and pandas objects converted; NaN and infinities become null with a note). Use it when you need exact numbers rather than printed text. The expression can call any code, so it is not read-only.',
      inputSchema: { expression: z.string().min(1).max(100_000).describe('A Python expression, e.g. "model.params.to_dict()"'), session: sessionArg },
      outputSchema: VALUE_SCHEMA,
      annotations: RUNS_CODE,
    },
    (args) => guarded(() => helperResult(context, args.session, 'value', { expression: args.expression }, { answer: 'data' })),
  );
};

/** get_value's answer: the JSON is the value itself. */
const VALUE_SCHEMA = z.looseObject({
  value: z.unknown().describe('The value as JSON.'),
  type: z.string().describe('Its Python type.'),
  shape: z.array(z.number().int()).nullable().optional().describe('Its shape or length, where it has one.'),
  notes: z.array(z.string()).describe('What the conversion changed: NaN to null, cut lists, …'),
  printed: z.string().optional().describe('Anything the expression printed.'),
});
