/**
 * The session record as a percent-format script (`# %%` cells, as Jupytext, VS Code and Spyder
 * read them) that `python script.py` runs from top to bottom: IPython magics and shell escapes
 * become comments (Jupytext's convention), and a cell that raised in the session is wrapped so
 * that it reports its error and the script goes on, as the session did.
 */
import type { LogEntry } from './session-log.js';
import { commentOut, isSyntaxFailure, notRerunSource, planRecord, reimportSource, withAttached, type PlannedCell, type RecordMeta } from './record-plan.js';
import { kernelspecFor } from './record-kernelspec.js';

/** `%magic`, `%%cell magic` and `!shell` lines are IPython, not Python: comments in a script. */
function isIpythonLine(line: string): boolean {
  return /^\s*[%!]/.test(line);
}

export function scriptCode(code: string): string {
  const all = code.split('\n');
  if (/^\s*%%/.test(all[0] ?? '')) return commentOut(code); // a cell magic: the whole cell is its input
  return all.map((line) => (isIpythonLine(line) ? `# ${line}` : line)).join('\n');
}

/**
 * A cell that raised, as code that reports the error and lets the script go on. Indenting it into a
 * `try:` would change multi-line strings or mix tabs with spaces: such cells are kept as comments.
 */
function raisedCode(cell: PlannedCell): string {
  const code = scriptCode(cell.entry.code);
  const header = `# Python Session: ${cell.note}.`;
  const indentable = !/'''|"""/.test(code) && !/^\s*\t/m.test(code) && code.split('\n').some((l) => l.trim() && !l.trim().startsWith('#'));
  if (isSyntaxFailure(cell.entry) || !indentable) return `${header} It is kept as comments.\n${commentOut(cell.entry.code)}`;
  const body = code
    .split('\n')
    .map((line) => (line ? `    ${line}` : line))
    .join('\n');
  return `${header}\ntry:\n${body}\nexcept Exception as _error:  # the session went on after it, and so does the script\n    print('%s: %s' % (type(_error).__name__, _error))`;
}

function cellSource(cell: PlannedCell): string {
  const parts: string[] = [];
  if (cell.mode === 'not-rerun') parts.push(notRerunSource(cell, (line) => `# ${line}`));
  else if (cell.mode === 'raised') parts.push(raisedCode(cell));
  else parts.push(withAttached(scriptCode(cell.entry.code), cell.attached.map((tool) => scriptCode(tool.code))));
  const again = reimportSource(cell);
  if (again) parts.push(again);
  return parts.join('\n\n');
}

export async function buildScript(entries: LogEntry[], meta: RecordMeta): Promise<{ text: string; cells: number }> {
  const plan = planRecord(entries, meta);
  const env = plan.environment;
  const kernelspec = meta.kernelspec ?? (await kernelspecFor(env?.python.executable ?? meta.interpreter, env?.python.version));
  const blocks: string[] = [
    // Jupytext's header, so the script opens as a notebook again with the same kernel.
    ['# ---', '# jupyter:', '#   kernelspec:', `#     display_name: ${kernelspec.display_name}`, `#     language: ${kernelspec.language}`, `#     name: ${kernelspec.name}`, '# ---'].join('\n'),
    `# %% [markdown]\n${plan.header
      .split('\n')
      .map((line) => (line ? `# ${line}` : '#'))
      .join('\n')}`,
  ];
  const imports = [...plan.imports];
  // Notebooks have display() built in; a script needs it imported.
  if (plan.cells.some((c) => c.mode !== 'tool' && /(^|[^\w.])display\(/.test(c.entry.code))) imports.push('from IPython.display import display');
  let cells = 0;
  if (imports.length) {
    const note = imports.length > plan.imports.length ? '\n# (and display(), which notebooks have built in)' : '';
    blocks.push(`# %%\n# The imports the Python Session tool code below uses${note}\n${imports.join('\n')}`);
    cells++;
  }
  for (const cell of plan.cells) {
    const title = cell.entry.kind === 'tool' ? ` ${cell.entry.tool?.name ?? 'tool'}` : cell.entry.executionCount !== null ? ` In [${cell.entry.executionCount}]` : '';
    blocks.push(`# %%${title}\n${cellSource(cell)}`);
    cells++;
  }
  return { text: `${blocks.join('\n\n')}\n`, cells };
}
