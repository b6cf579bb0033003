/** `export <session> <file.ipynb>`: a session's log as a notebook, read from disk (no daemon needed). */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveStateDir } from '../../core/daemon/state-paths.js';
import { SessionLog } from '../../core/sessions/session-log.js';
import { writeNotebook } from '../../core/sessions/notebook-export.js';

export async function exportCommand(argv: string[]): Promise<number> {
  const [session, file] = argv;
  if (!session || !file) {
    process.stderr.write('Usage: python-session-mcp export <session> <file.ipynb>\n');
    return 2;
  }
  const dir = join(resolveStateDir(), 'sessions', session);
  if (!existsSync(join(dir, 'log.jsonl'))) {
    process.stderr.write(`No log for session "${session}" in ${dir}.\n`);
    return 1;
  }
  const path = resolve(file);
  const { cells } = await writeNotebook(new SessionLog(dir).read(), path);
  process.stdout.write(`Wrote ${cells} cells to ${path}\n`);
  return 0;
}
