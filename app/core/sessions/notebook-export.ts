/**
 * The session log as an nbformat 4.5 notebook that re-runs in plain Jupyter: an opening markdown
 * cell (session, interpreter, packages, dates), the imports tool code needs, then every run and
 * tool call in run order with its outputs and figures (see record-plan.ts for what each cell is).
 * `writeRecord` writes the notebook, or the percent-format script for a `.py` path.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import type { LogEntry, LogOutput } from './session-log.js';
import { notRerunSource, planRecord, reimportSource, withAttached, type PlannedCell, type RecordMeta } from './record-plan.js';
import { kernelspecFor, pythonLanguageInfo } from './record-kernelspec.js';
import { buildScript } from './script-export.js';

export type { RecordMeta } from './record-plan.js';

const MIME_BY_EXT: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml' };

/** nbformat stores multi-line text as a list of lines that keep their newlines. */
function lines(text: string): string[] {
  return text.split(/(?<=\n)/).filter((line) => line !== '');
}

async function outputJson(output: LogOutput, executionCount: number | null): Promise<Record<string, unknown> | null> {
  switch (output.type) {
    case 'stream':
      return { output_type: 'stream', name: output.name === 'stderr' ? 'stderr' : 'stdout', text: lines(output.text ?? '') };
    case 'omitted':
      return { output_type: 'stream', name: 'stdout', text: [`[${output.text ?? 'output left out'}${output.name ? `; all of it is in ${output.name}` : ''}]\n`] };
    case 'error':
      return { output_type: 'error', ename: output.name ?? 'Error', evalue: output.text ?? '', traceback: [] };
    case 'result':
    case 'display': {
      const data: Record<string, unknown> = {};
      for (const [mime, value] of Object.entries(output.data ?? {})) data[mime] = typeof value === 'string' ? lines(value) : value;
      if (output.text !== undefined && !('text/plain' in data)) data['text/plain'] = lines(output.text);
      for (const file of output.figures ?? []) {
        const mime = MIME_BY_EXT[extname(file)];
        if (!mime) continue;
        try {
          const bytes = await readFile(file);
          data[mime] = mime === 'image/svg+xml' ? lines(bytes.toString('utf8')) : bytes.toString('base64');
        } catch {
          data['text/plain'] = [`[figure ${file} is missing]`];
        }
      }
      if (Object.keys(data).length === 0) return null;
      return output.type === 'result'
        ? { output_type: 'execute_result', execution_count: executionCount, data, metadata: {} }
        : { output_type: 'display_data', data, metadata: {} };
    }
  }
}

async function entryOutputs(entry: LogEntry): Promise<Record<string, unknown>[]> {
  const outputs: Record<string, unknown>[] = [];
  for (const output of entry.outputs) {
    const json = await outputJson(output, entry.executionCount);
    if (json) outputs.push(json);
  }
  if (entry.error && !entry.outputs.some((o) => o.type === 'error')) {
    outputs.push({ output_type: 'error', ename: entry.error.ename, evalue: entry.error.evalue, traceback: entry.error.traceback });
  } else if (entry.error) {
    const errorOutput = outputs.find((o) => o.output_type === 'error');
    if (errorOutput) errorOutput.traceback = entry.error.traceback;
  }
  return outputs;
}

/** The cell's code as Jupyter runs it: the entry's, the attached tool code, the imports again. */
function notebookSource(cell: PlannedCell): string {
  const parts = [cell.mode === 'not-rerun' ? notRerunSource(cell, (line) => line) : withAttached(cell.entry.code, cell.attached.map((tool) => tool.code))];
  const again = reimportSource(cell);
  if (again) parts.push(again);
  return parts.join('\n\n');
}

function cellMetadata(cell: PlannedCell): Record<string, unknown> {
  const { entry } = cell;
  const tags = cell.mode === 'raised' ? ['raises-exception'] : [];
  return {
    ...(tags.length ? { tags } : {}),
    python_session: {
      client: entry.client,
      time: entry.time,
      duration_ms: entry.durationMs,
      status: entry.status,
      ...(entry.kind === 'tool' ? { tool: entry.tool?.name } : {}),
      ...(cell.attached.length ? { attached_tools: cell.attached.map((t) => ({ tool: t.tool?.name, time: t.time })) } : {}),
      ...(cell.mode === 'not-rerun' ? { kept_as_comments: cell.note } : {}),
    },
  };
}

const cellId = () => randomUUID().replace(/-/g, '').slice(0, 12);

export async function buildNotebook(entries: LogEntry[], meta: RecordMeta) {
  const plan = planRecord(entries, meta);
  const env = plan.environment;
  const version = env?.python.version ?? (typeof meta.languageInfo?.version === 'string' ? meta.languageInfo.version : undefined);
  const kernelspec = meta.kernelspec ?? (await kernelspecFor(env?.python.executable ?? meta.interpreter, version));
  const cells: Record<string, unknown>[] = [{ id: cellId(), cell_type: 'markdown', metadata: {}, source: lines(plan.header) }];
  if (plan.imports.length) {
    cells.push({
      id: cellId(),
      cell_type: 'code',
      execution_count: null,
      metadata: { python_session: { imports_for_tool_code: true } },
      source: lines(['# The imports the Python Session tool code below uses', ...plan.imports].join('\n')),
      outputs: [],
    });
  }
  for (const cell of plan.cells) {
    const outputs = await entryOutputs(cell.entry);
    for (const tool of cell.attached) outputs.push(...(await entryOutputs(tool)));
    cells.push({
      id: cellId(),
      cell_type: 'code',
      execution_count: cell.entry.executionCount,
      metadata: cellMetadata(cell),
      source: lines(notebookSource(cell)),
      outputs,
    });
  }
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec,
      language_info: meta.languageInfo ? { ...pythonLanguageInfo(version), ...meta.languageInfo } : pythonLanguageInfo(version),
      python_session: { session: meta.session, ...(env ? { environment: env } : {}) },
    },
    cells,
  };
}

export function notebookText(notebook: Awaited<ReturnType<typeof buildNotebook>>): string {
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

export type RecordFormat = 'ipynb' | 'py';

export function recordFormat(path: string): RecordFormat {
  return extname(path).toLowerCase() === '.py' ? 'py' : 'ipynb';
}

/** The record as text in a format, with the number of code cells it holds. */
export async function renderRecord(entries: LogEntry[], format: RecordFormat, meta: RecordMeta): Promise<{ text: string; cells: number }> {
  if (format === 'py') return buildScript(entries, meta);
  const notebook = await buildNotebook(entries, meta);
  return { text: notebookText(notebook), cells: notebook.cells.filter((c) => c.cell_type === 'code').length };
}

/** Writes the notebook, or the percent script for a `.py` path; a failure leaves nothing behind. */
export async function writeRecord(entries: LogEntry[], path: string, meta: RecordMeta): Promise<{ cells: number; format: RecordFormat }> {
  const format = recordFormat(path);
  const { text, cells } = await renderRecord(entries, format, meta);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined); // a full disk or a folder in the way leaves no half file
    throw error;
  }
  return { cells, format };
}
