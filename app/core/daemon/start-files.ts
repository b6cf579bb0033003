/**
 * The files a starting daemon writes afresh — daemon.json (who it is) and mcp-answers.json (what
 * its MCP server answers, for shims) — are read first, and a damaged one (not ours in shape, a
 * folder, a symlink, unreadable) is moved aside with a notice (../state-file.ts), so the writes
 * that follow work and the person hears of it.
 */
import { isRecord, readJsonStateFile } from '../state-file.js';

const INSTEAD = 'this daemon writes a fresh one';

export function clearDaemonInfo(path: string): void {
  readJsonStateFile(path, { shape: (value) => (isRecord(value) && typeof value.pid === 'number' ? null : 'no "pid"'), instead: INSTEAD });
}

export function clearQuickAnswers(path: string): void {
  readJsonStateFile(path, { shape: (value) => (isRecord(value) && typeof value.version === 'string' ? null : 'no "version"'), instead: INSTEAD });
}
