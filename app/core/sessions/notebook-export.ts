/** The session log as an nbformat 4.5 notebook: code cells with their outputs and figures. */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import type { LogEntry, LogOutput } from './session-log.js';

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

export async function buildNotebook(entries: LogEntry[], meta: { language_version?: string } = {}) {
  const cells = [];
  for (const entry of entries) {
    const outputs = [];
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
    cells.push({
      id: randomUUID().slice(0, 8),
      cell_type: 'code',
      execution_count: entry.executionCount,
      metadata: { python_session: { client: entry.client, time: entry.time, duration_ms: entry.durationMs, status: entry.status } },
      source: lines(entry.code),
      outputs,
    });
  }
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python', ...(meta.language_version ? { version: meta.language_version } : {}) },
    },
    cells,
  };
}

export async function writeNotebook(entries: LogEntry[], path: string, meta: { language_version?: string } = {}): Promise<{ cells: number }> {
  const notebook = await buildNotebook(entries, meta);
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(notebook, null, 1)}\n`);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined); // a failed export (a full disk, a folder in the way) leaves nothing behind
    throw error;
  }
  return { cells: notebook.cells.length };
}
