/**
 * How clients that hide MCP tools behind a search find ours. Claude Code reads two keys of a
 * tool's `_meta`: `anthropic/alwaysLoad` keeps a tool in the model's prompt instead of behind
 * ToolSearch, and `anthropic/searchHint` adds words its keyword search matches (its ranking
 * favours words in the tool's name, which "stop" or "csv" are not in ours). Other clients ignore them.
 */
const ALWAYS_LOAD = 'anthropic/alwaysLoad';
const SEARCH_HINT = 'anthropic/searchHint';

/** The tools a model needs before it knows to search: running code and picking a long run up. */
const ALWAYS_LOADED = new Set(['run_python', 'wait_for_run']);

/** The words a model searches with, per tool (found by driving the real clients' search). */
const HINTS: Record<string, string> = {
  run_python: 'run python code, execute a script or notebook cell, analyse data, plot a chart',
  wait_for_run: 'wait for a long run, get the rest of the output, check on running code',
  interrupt_kernel: 'stop the running code, cancel or abort a long run, ctrl-c',
  load_data: 'load a csv, excel, stata, parquet or json file into a dataframe, read data',
  save_data: 'save or export a dataframe to csv or excel, write data',
  ols: 'regression, linear regression, least squares, statsmodels, econometrics',
  save_figure: 'plot, chart, save a figure as png, svg or pdf',
  python_status: 'which python, environment, installed packages',
};

/** The `_meta` for a tool's registration, or undefined when it needs none. */
export function discoveryMeta(tool: string): Record<string, unknown> | undefined {
  const meta: Record<string, unknown> = {};
  if (ALWAYS_LOADED.has(tool)) meta[ALWAYS_LOAD] = true;
  if (HINTS[tool]) meta[SEARCH_HINT] = HINTS[tool];
  return Object.keys(meta).length ? meta : undefined;
}
