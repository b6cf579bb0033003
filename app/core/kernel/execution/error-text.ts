/**
 * Turns a kernel's error into the one line a person (or a model) needs:
 * `Python error: NameError on line 2: name 'x' is not defined` — the line in the
 * user's own cell, not in IPython's wrapper.
 */

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export interface PythonErrorInfo {
  ename: string;
  evalue: string;
  /** The traceback lines with colour codes removed. */
  traceback: string[];
  /** Line within the cell where the innermost user frame failed, if known. */
  line?: number;
  /** The execution count of that cell, when it is not the failing cell itself. */
  cell?: number;
  /** The one-line summary. */
  message: string;
}

// IPython >= 8.6: "Cell In[3], line 2"; 8.0-8.5: "Cell In [3], line 2" or
// "Input In [3], in <cell line: 2>()"; IPython 7: "<ipython-input-3-…> in <module>" plus "----> 2".
const CELL_FRAME = [
  /(?:Cell|Input) In ?\[(\d+)\], line (\d+)/,
  /Input In ?\[(\d+)\],? in <cell line: (\d+)>/,
];
const IPYTHON7_FRAME = /<ipython-input-(\d+)-[0-9a-f]+>/;
const ARROW_LINE = /^-+> ?(\d+)/m;
// Syntax errors name the line in the evalue-less traceback as "File <...>, line N" on old versions.
const SYNTAX_LINE = /line (\d+)\)?\s*$/;

/** Every frame of the traceback that lies in a notebook cell, outermost first. */
function cellFrames(traceback: string[]): { cell: number; line: number }[] {
  const frames: { cell: number; line: number }[] = [];
  for (const entry of traceback) {
    const match = CELL_FRAME.map((pattern) => entry.match(pattern)).find(Boolean);
    if (match) {
      frames.push({ cell: Number(match[1]), line: Number(match[2]) });
      continue;
    }
    const old = entry.match(IPYTHON7_FRAME);
    const arrow = entry.match(ARROW_LINE);
    if (old && arrow) frames.push({ cell: Number(old[1]), line: Number(arrow[1]) });
  }
  return frames;
}

export function describePythonError(
  content: { ename?: unknown; evalue?: unknown; traceback?: unknown },
  executionCount?: number | null,
): PythonErrorInfo {
  const ename = String(content.ename ?? 'Error');
  let evalue = String(content.evalue ?? '');
  const traceback = Array.isArray(content.traceback) ? content.traceback.map((line) => stripAnsi(String(line))) : [];
  const frames = cellFrames(traceback);
  const frame = frames.at(-1); // the innermost user frame is where it went wrong
  let line = frame?.line;
  let cell: number | undefined;
  let calledFrom: number | undefined;
  if (frame && executionCount != null && frame.cell !== executionCount) {
    cell = frame.cell;
    calledFrom = frames.find((f) => f.cell === executionCount)?.line;
  }
  if (/SyntaxError|IndentationError|TabError/.test(ename)) {
    // "invalid syntax (3902837.py, line 2)": the file is IPython's temporary name, useless to a reader.
    const match = evalue.match(SYNTAX_LINE);
    if (line === undefined && match) line = Number(match[1]);
    evalue = evalue.replace(/\s*\([^()]*\.py, line \d+\)\s*$/, '');
  }
  const where =
    line === undefined
      ? ''
      : cell === undefined
        ? ` on line ${line}`
        : ` on line ${line} of cell In[${cell}]${calledFrom !== undefined ? ` (called from line ${calledFrom})` : ''}`;
  const message = `Python error: ${ename}${where}${evalue ? `: ${evalue}` : ''}`;
  return { ename, evalue, traceback, line, cell, message };
}
