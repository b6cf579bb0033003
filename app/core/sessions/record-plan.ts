/**
 * The session log as a record that re-runs: which cells there are, in run order, what each one
 * is (a run that went well, one that raised, one that must not run again, a tool's plain code),
 * the imports tool code needs, and the opening description. The notebook (notebook-export.ts)
 * and the percent-format script (script-export.ts) are two renderings of this plan.
 */
import type { LogEntry, SessionEnvironment } from './session-log.js';

export interface NotebookKernelspec {
  name: string;
  display_name: string;
  language: string;
}

export interface RecordMeta {
  session: string;
  /** The interpreter and packages (the live kernel's, else the latest the log recorded). */
  environment?: SessionEnvironment;
  /** The interpreter path when the environment does not name one (a live session's). */
  interpreter?: string;
  /** kernel_info's language_info, when the kernel is live. */
  languageInfo?: Record<string, unknown>;
  /** Resolved from the interpreter when absent. */
  kernelspec?: NotebookKernelspec;
  /** "python-session-mcp 0.1.0" */
  exportedBy?: string;
}

/**
 * ran: re-runs as it ran. raised: raised an error in the session, and will again (notebooks tag it
 * `raises-exception`). not-rerun: timed out, was interrupted, killed the kernel or never ran; kept as
 * comments so the record runs from top to bottom. tool: a tool's plain code.
 */
export type CellMode = 'ran' | 'raised' | 'not-rerun' | 'tool';

export interface PlannedCell {
  entry: LogEntry;
  mode: CellMode;
  /** Why a cell is kept as comments, or what it raised. */
  note?: string;
  /** Tool entries whose code runs at the end of this cell (save_figure of a figure this cell drew). */
  attached: LogEntry[];
  /** The cell empties the namespace (a reset, a restart, a kernel death). */
  clears: boolean;
  /** Imports the tool code after this namespace-emptying cell needs again. */
  reimports: string[];
}

export interface RecordPlan {
  header: string;
  /** The imports tool code needs, once, for the cell after the header. */
  imports: string[];
  cells: PlannedCell[];
  environment?: SessionEnvironment;
}

const SYNTAX_ERRORS = new Set(['SyntaxError', 'IndentationError', 'TabError']);

function classify(entry: LogEntry): Pick<PlannedCell, 'mode' | 'note' | 'clears'> {
  if (entry.kind === 'tool') return { mode: 'tool', clears: !!entry.tool?.clearsNamespace };
  const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0].trim();
  switch (entry.status) {
    case 'ok':
      return { mode: 'ran', clears: false };
    case 'timeout':
      return { mode: 'not-rerun', note: `this run timed out after ${seconds(entry.durationMs)} and was interrupted`, clears: false };
    case 'aborted':
      return { mode: 'not-rerun', note: 'this run never ran (the kernel aborted it)', clears: false };
    case 'died':
      return { mode: 'not-rerun', note: `the kernel died during this run and its variables were lost${entry.error ? ` (${firstLine(entry.error.evalue)})` : ''}`, clears: true };
    case 'error':
      if (entry.error?.ename === 'KeyboardInterrupt') return { mode: 'not-rerun', note: 'this run was interrupted', clears: false };
      return { mode: 'raised', note: `in the session this cell raised ${entry.error?.ename ?? 'an error'}${entry.error?.evalue ? `: ${firstLine(entry.error.evalue)}` : ''}`, clears: false };
  }
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

export function isSyntaxFailure(entry: LogEntry): boolean {
  return SYNTAX_ERRORS.has(entry.error?.ename ?? '');
}

function drewFigure(entry: LogEntry): boolean {
  return entry.outputs.some((o) => (o.type === 'display' || o.type === 'result') && (o.figures?.length ?? 0) > 0);
}

/** Imports in the usual order: standard library, numpy, pandas, statsmodels, matplotlib, the rest. */
export function orderImports(lines: Iterable<string>): string[] {
  const rank = (line: string) => {
    const module = line.replace(/^(from|import)\s+/, '').split(/[\s.,]/)[0];
    const order = ['os', 'numpy', 'pandas', 'statsmodels', 'matplotlib'];
    const at = order.indexOf(module);
    return at === -1 ? order.length : at;
  };
  return [...new Set(lines)].sort((a, b) => rank(a) - rank(b) || (a.startsWith('import') === b.startsWith('import') ? a.localeCompare(b) : a.startsWith('import') ? -1 : 1));
}

/** The latest environment a tool entry recorded. */
export function loggedEnvironment(entries: LogEntry[]): SessionEnvironment | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].tool?.environment) return entries[i].tool!.environment;
  return undefined;
}

export function planRecord(entries: LogEntry[], meta: RecordMeta): RecordPlan {
  const cells: PlannedCell[] = [];
  for (const entry of entries) {
    if (entry.kind === 'tool' && entry.tool?.attach === 'figure') {
      // Jupyter's inline backend closes a cell's figures when the cell ends: the code that saves
      // "the figure just drawn" only does the same at the end of the cell that drew it.
      const host = findHost(cells);
      if (host) {
        host.attached.push(entry);
        continue;
      }
    }
    cells.push({ entry, ...classify(entry), attached: [], reimports: [] });
  }
  const toolImports = (cell: PlannedCell) => [cell, ...cell.attached.map((entry) => ({ entry }))].flatMap((c) => (c.entry.kind === 'tool' ? (c.entry.tool?.imports ?? []) : []));
  const imports = orderImports(cells.flatMap(toolImports));
  for (let i = 0; i < cells.length; i++) {
    if (!cells[i].clears) continue;
    const later: string[] = [];
    for (let j = i + 1; j < cells.length; j++) {
      later.push(...toolImports(cells[j]));
      if (cells[j].clears) break;
    }
    cells[i].reimports = orderImports(later);
  }
  const environment = meta.environment ?? loggedEnvironment(entries);
  return { header: header(entries, cells, { ...meta, environment }), imports, cells, environment };
}

function findHost(cells: PlannedCell[]): PlannedCell | undefined {
  for (let i = cells.length - 1; i >= 0; i--) {
    const cell = cells[i];
    if (cell.clears) return undefined;
    if (cell.mode === 'ran' && drewFigure(cell.entry)) return cell;
  }
  return undefined;
}

function stamp(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') + ' UTC';
}

function header(entries: LogEntry[], cells: PlannedCell[], meta: RecordMeta): string {
  const env = meta.environment;
  const interpreter = env?.python.executable ?? meta.interpreter;
  const version = env?.python.version ?? (typeof meta.languageInfo?.version === 'string' ? meta.languageInfo.version : undefined);
  const lines = [`# Python Session "${meta.session}"`, ''];
  const python = version ? `${env?.python.implementation ?? 'Python'} ${version}` : 'version not recorded';
  lines.push(`- **Interpreter:** ${interpreter ? `\`${interpreter}\` (${python})` : `not recorded (${python})`}`);
  const packages = Object.entries(env?.packages ?? {});
  lines.push(`- **Packages:** ${packages.length ? packages.map(([name, v]) => `${name} ${v}`).join(', ') : 'not recorded'}`);
  if (entries.length) {
    const first = stamp(entries[0].time);
    const last = stamp(entries[entries.length - 1].time);
    const span = first === last ? first : first.slice(0, 10) === last.slice(0, 10) ? `${first.replace(' UTC', '')} to ${last.slice(11)}` : `${first} to ${last}`;
    const runs = entries.filter((e) => e.kind !== 'tool').length;
    const tools = entries.length - runs;
    lines.push(`- **When:** ${span}; ${runs} run${runs === 1 ? '' : 's'} and ${tools} tool call${tools === 1 ? '' : 's'}`);
    const clients = [...new Set(entries.map((e) => e.client))];
    lines.push(`- **Client${clients.length === 1 ? '' : 's'}:** ${clients.join(', ')}`);
  } else {
    lines.push('- **When:** nothing has run in this session yet');
  }
  if (meta.exportedBy) lines.push(`- **Exported:** ${stamp(new Date().toISOString())} by ${meta.exportedBy}`);
  lines.push('');
  lines.push('The cells are the session\'s runs in the order they ran, with their outputs.');
  if (cells.some((c) => c.mode === 'tool' || c.attached.length)) {
    lines.push(
      'A cell that starts with `# <tool> (Python Session tool)` is the plain pandas, statsmodels and matplotlib code that does what that tool did (the imports it needs are in the cell below); its output is what the tool reported.',
    );
  }
  if (cells.some((c) => c.mode === 'not-rerun')) lines.push('Runs that timed out, were interrupted or killed the kernel are kept as comments, so the record runs from top to bottom.');
  if (cells.some((c) => c.mode === 'raised')) lines.push('Cells that raised an error in the session are tagged `raises-exception`.');
  return lines.join('\n');
}

/** Every line of `code` as a comment. */
export function commentOut(code: string): string {
  return code
    .split('\n')
    .map((line) => (line ? `# ${line}` : '#'))
    .join('\n');
}

/** The comment block of a cell kept as comments, and what it means for the namespace. */
export function notRerunSource(cell: PlannedCell, magic: (line: string) => string): string {
  const parts = [`# Python Session: ${cell.note}; the code is kept as comments so the record runs through.`, commentOut(cell.entry.code)];
  if (cell.clears) parts.push(magic('%reset -f  # a fresh kernel took its place: nothing of the namespace was left'));
  return parts.join('\n');
}

/** The lines that import again, after a cell that emptied the namespace. */
export function reimportSource(cell: PlannedCell): string | null {
  if (!cell.reimports.length) return null;
  return ['# The namespace is empty now: the imports the tool code below needs, again', ...cell.reimports].join('\n');
}

/** A top-level `plt.show()`: where Jupyter's inline backend shows the cell's figures and closes them. */
const SHOW = /^(plt|pyplot|matplotlib\.pyplot)\.show\(\s*\)\s*;?\s*(#.*)?$/;

/**
 * The cell's code with the code of the tools attached to it (save_figure of the figure it drew):
 * before its last top-level plt.show(), which closes the figure in Jupyter, else at its end.
 */
export function withAttached(code: string, attached: string[]): string {
  if (!attached.length) return code;
  const block = attached.join('\n\n');
  const lines = code.split('\n');
  const show = lines.findLastIndex((line) => SHOW.test(line));
  if (show === -1) return `${code}\n\n# Run at the end of the cell that drew the figure: Jupyter closes a cell's figures when it ends.\n${block}`;
  return [...lines.slice(0, show), "# Run before plt.show(): Jupyter closes a figure once it is shown.", block, ...lines.slice(show)].join('\n');
}
