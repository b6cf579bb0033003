/**
 * `export <session> <file.ipynb|file.py>`: a session's record as a notebook that re-runs, or as a
 * percent-format script for a `.py` path. Read from disk, so no daemon is needed; the interpreter
 * and packages are those the session's tool entries recorded.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveStateDir } from '../../core/daemon/state-paths.js';
import { SessionLog } from '../../core/sessions/session-log.js';
import { writeRecord } from '../../core/sessions/notebook-export.js';
import { loggedRecordMeta } from '../../core/sessions/record-meta.js';
import { SESSION_NAME } from '../../core/sessions/session-manager.js';

export async function exportCommand(argv: string[]): Promise<number> {
  const [session, file] = argv;
  if (!session || !file || argv.length > 2) {
    process.stderr.write('Usage: python-session-mcp export <session> <file.ipynb | file.py>\n  A .py path writes a percent-format script (# %% cells); any other path a notebook.\n');
    return 2;
  }
  if (!SESSION_NAME.test(session)) {
    process.stderr.write(`"${session}" is not a session name (letters, digits, ".", "_" or "-").\n`);
    return 2;
  }
  const dir = join(resolveStateDir(), 'sessions', session);
  if (!existsSync(join(dir, 'log.jsonl'))) {
    process.stderr.write(`No log for session "${session}" in ${dir}.\n`);
    return 1;
  }
  const path = resolve(file);
  const log = new SessionLog(dir, { readOnly: true }); // the daemon may be appending to it
  try {
    const entries = log.read();
    const { cells, format } = await writeRecord(entries, path, loggedRecordMeta(session, entries));
    process.stdout.write(`Wrote ${cells} ${format === 'py' ? 'cells of a percent-format script' : 'code cells of a notebook'} to ${path}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`Could not write ${path}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    log.close();
  }
}
