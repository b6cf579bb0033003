/** run_python / execute_code, and the variable explorer (list_names, describe_object, get_value). */
import { z } from 'zod';
import { DEFAULT_SESSION } from '../sessions/session-manager.js';
import { ToolCallError } from '../sessions/helper-bridge.js';
import type { HelperOutcome } from '../sessions/session.js';
import { busyText } from './error-words.js';
import { discoveryMeta } from './tool-discovery.js';
import { READS, RUNS_CODE } from './tool-annotations.js';
import { runPython, waitForRun } from './runs.js';
import { contentResult, dataResult, errorResult, guarded, sessionArg, sessionFor, textResult, type ToolContext, type ToolRegistrar, type ToolResult } from './tool-context.js';

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
  return helperAnswer(() => session.helper(tool, args, { client: context.clientName(), waitS: context.settings.waitS(), timeoutMs: context.settings.timeoutS() * 1000 }), options);
}

/** A helper's outcome (its answer, which run holds the kernel, or its failure) as the tool's result. */
export async function helperAnswer(call: () => Promise<HelperOutcome<Record<string, unknown>>>, options: { answer?: 'text' | 'data' } = {}): Promise<ToolResult> {
  let outcome: HelperOutcome<Record<string, unknown>>;
  try {
    outcome = await call();
  } catch (error) {
    if (error instanceof ToolCallError) {
      const install = error.install ? `\nInstall it with:\n  ${error.install}` : '';
      return errorResult(`${error.message}${install}`, { kind: error.kind, install: error.install });
    }
    throw error;
  }
  if (outcome.kind === 'busy') return errorResult(busyText(outcome.busy), { kind: 'busy' });
  const { answer, printed, warning } = outcome;
  const reply = printed ? `${answer.text}\n\n${printed}` : answer.text;
  const text = warning ? `${reply}\n\n${warning}` : reply;
  if (options.answer === 'data' && answer.structured) return dataResult(text, printed ? { ...answer.structured, printed } : answer.structured);
  return textResult(text, answer.structured ?? undefined);
}

export const registerCodeTools: ToolRegistrar = (server, context) => {
  const runShape = {
    code: z.string().min(1).max(8_000_000).describe('Python code. The last expression is displayed, as in a notebook cell.'),
    timeout_s: z.number().positive().max(86_400).optional().describe('Seconds before the run is interrupted, whether anyone waits or not (default PYTHON_MCP_TIMEOUT or 600).'),
    wait_s: WAIT_ARG,
    session: sessionArg,
  };
  // Clients find tools by searching their names and descriptions (BM25 in Codex, keywords in
  // Claude Code): the words a model searches with come first, and the text stays short.
  const runDescription =
    'Run Python code: analysis, statistics, plot a chart. Runs in a persistent kernel in the user\'s own Python (conda env, pandas, statsmodels); variables persist between calls like notebook cells. ' +
    'Returns printed output and the last value in print order, plots as images. A failure ends with "Python error: <Type> on line N: <message>" (last_error has the traceback). ' +
    'Long output is cut, with a file holding all of it. A run still going after wait_s goes on: the reply gives its output so far and a run id for wait_for_run. Cancelling while it waits interrupts it. Runs with the user\'s rights.';
  server.registerTool(
    'run_python',
    { title: 'Run Python code', description: runDescription, inputSchema: runShape, annotations: RUNS_CODE, _meta: discoveryMeta('run_python') },
    (args, extra) => guarded(() => runPython(context, args, extra)),
  );
  server.registerTool(
    'execute_code',
    {
      title: 'Execute Python code',
      // Short on purpose: a copy of run_python's text would outrank the other tools in every search that matches it.
      description: 'The same as run_python, under the name the earlier Python tool used (kept so that existing client configs work). Prefer run_python; it takes the same arguments and answers the same way.',
      inputSchema: runShape,
      annotations: RUNS_CODE,
    },
    (args, extra) => guarded(() => runPython(context, args, extra)),
  );
  server.registerTool(
    'wait_for_run',
    {
      title: 'Wait for a running run',
      description:
        'Wait for a run that run_python left going (its reply names the run id): returns what it printed since the last look while it goes on, or, once it has ended, its whole result as run_python gives it (output, last value, figures, error). Without run, the session\'s latest run. Any client can pick up any run; interrupt_kernel stops it.',
      inputSchema: {
        run: z.string().min(1).max(200).optional().describe('The run id from run_python\'s reply, e.g. "default-3" (default: the session\'s latest run).'),
        wait_s: WAIT_ARG,
        session: sessionArg,
      },
      annotations: READS,
      _meta: discoveryMeta('wait_for_run'),
    },
    (args, extra) => guarded(() => waitForRun(context, args, extra)),
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

const WAIT_ARG = z
  .number()
  .min(0)
  .max(3600)
  .optional()
  .describe('Seconds this call waits for the run before coming back with it still going (default PYTHON_MCP_WAIT or 45, under the minute after which clients give up on a call).');

/** get_value's answer: the JSON is the value itself. */
const VALUE_SCHEMA = z.looseObject({
  value: z.unknown().describe('The value as JSON.'),
  type: z.string().describe('Its Python type.'),
  shape: z.array(z.number().int()).nullable().optional().describe('Its shape or length, where it has one.'),
  notes: z.array(z.string()).describe('What the conversion changed: NaN to null, cut lists, …'),
  printed: z.string().optional().describe('Anything the expression printed.'),
});
