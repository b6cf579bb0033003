/**
 * Every reader of a state file the daemon keeps, as the daemon calls it at start (or, for a
 * session's log and figures, when the session starts), for the damage tests. Run directly
 * (`node state-file-readers.js <state folder> <file>`), it calls the one reader and prints the
 * notices as JSON: the test runs it as another user to meet a real EACCES.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clearPanelFiles } from '../daemon/panel/address.js';
import { clearDaemonInfo, clearQuickAnswers } from '../daemon/start-files.js';
import { ServerRegistry } from '../remote/server-registry.js';
import { FigureStore } from '../sessions/figure-store.js';
import { SessionLog } from '../sessions/session-log.js';
import { Settings } from '../settings/settings.js';
import { stateFileNotices } from '../state-file.js';

export interface StateFileReader {
  /** Relative to the state folder. */
  file: string;
  /** A good file of this kind. */
  good: string;
  read(stateDir: string): void;
}

const SESSION = join('sessions', 'lab');

export const STATE_FILE_READERS: StateFileReader[] = [
  { file: 'settings.json', good: '{"timeoutS": 30}\n', read: (dir) => void new Settings(dir) },
  { file: 'servers.json', good: '{"version": 1, "servers": {}}\n', read: (dir) => void new ServerRegistry(dir).list() },
  { file: 'daemon.json', good: '{"pid": 1}\n', read: (dir) => clearDaemonInfo(join(dir, 'daemon.json')) },
  { file: 'mcp-answers.json', good: '{"version": "0.0.0"}\n', read: (dir) => clearQuickAnswers(join(dir, 'mcp-answers.json')) },
  { file: 'panel.json', good: '{"port": 8000, "pid": 1}\n', read: (dir) => clearPanelFiles(dir) },
  { file: 'panel-token', good: `${'a'.repeat(43)}\n`, read: (dir) => clearPanelFiles(dir) },
  { file: join(SESSION, 'log.jsonl'), good: '{"id": 1, "code": "a = 1", "outputs": []}\n', read: (dir) => new SessionLog(join(dir, SESSION)).close() },
];

/** The one folder: a session's figures. */
export const FIGURES = { dir: join(SESSION, 'figures'), read: (stateDir: string) => void new FigureStore(join(stateDir, SESSION, 'figures')) };

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [stateDir, file] = process.argv.slice(2);
  if (file === FIGURES.dir) FIGURES.read(stateDir);
  else STATE_FILE_READERS.find((r) => r.file === file)!.read(stateDir);
  process.stdout.write(JSON.stringify(stateFileNotices()));
}
