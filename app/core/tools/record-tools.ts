/** last_error and export_notebook: what went wrong, and the session as a notebook. */
import { z } from 'zod';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { expandHome } from '../home-path.js';
import { DEFAULT_SESSION } from '../sessions/session-manager.js';
import { writeRecord } from '../sessions/notebook-export.js';
import { liveRecordMeta } from '../sessions/record-meta.js';
import { READS, REPLACES } from './tool-annotations.js';
import { guarded, sessionArg, textResult, type ToolRegistrar } from './tool-context.js';

export const registerRecordTools: ToolRegistrar = (server, context) => {
  server.registerTool(
    'last_error',
    {
      title: 'Last error',
      description: 'The full traceback (colour codes removed) of the latest failed run in a session, with the code that raised it. Use it when the one-line error from run_python is not enough.',
      inputSchema: { session: sessionArg },
      annotations: READS,
    },
    (args) =>
      guarded(async () => {
        const session = context.sessions.get(args.session ?? DEFAULT_SESSION);
        const error = session.lastError;
        if (!error) return textResult('No error in this session yet.', { error: null });
        const text = `${error.message}\n\nCode (${error.time}):\n${error.code}\n\nTraceback:\n${error.traceback.join('\n') || '(none)'}`;
        return textResult(text, { error: { ename: error.ename, evalue: error.evalue, line: error.line ?? null, traceback: error.traceback, code: error.code, time: error.time } });
      }),
  );

  server.registerTool(
    'export_notebook',
    {
      title: 'Export as notebook',
      description:
        'Write the session\'s record as a Jupyter notebook (.ipynb) that re-runs in plain Jupyter: every run with its outputs and figures, and every tool call (load_data, ols, save_figure…) as the plain pandas/statsmodels/matplotlib code that does the same, in the order they ran. A .py path writes the same record as a percent-format script (# %% cells). Missing folders are created.',
      inputSchema: { path: z.string().min(1).max(4096).describe("Where to write, e.g. analysis.ipynb (relative to the session's working folder) or ~/analysis.ipynb"), session: sessionArg },
      annotations: REPLACES,
    },
    (args) =>
      guarded(async () => {
        const session = context.sessions.get(args.session ?? DEFAULT_SESSION);
        // Relative to the session's folder, as the kernel's own paths are; the notebook is written on this machine.
        const base = session.facts().place.kind !== 'remote' && session.cwd ? session.cwd : homedir();
        const path = resolve(base, expandHome(args.path));
        const entries = session.log.read();
        const { cells, format } = await writeRecord(entries, path, await liveRecordMeta(session, entries));
        return textResult(`Wrote ${cells} cells to ${path}${format === 'py' ? ' (a percent-format script; `python` runs it)' : ''}.`, { path, cells, format });
      }),
  );
};
