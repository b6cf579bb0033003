/**
 * Cells other Jupyter clients run on a session's kernel (an IDE, `jupyter console --existing`, a
 * `jupyter_client`; the kernel assembles them from iopub) go into the session log like any run,
 * under one client name, so the panel shows them (through the session's 'logged' event) and the
 * record exports them in the order they ran.
 */
import type { ForeignCell } from '../kernel/foreign-cells.js';
import type { SavedFigure } from './figure-store.js';
import { SessionLogError, type LogEntry } from './session-log.js';
import type { Session } from './session.js';

/** The client name of every cell another Jupyter client ran. */
export const ANOTHER_CLIENT = 'another client';

/** From now on, logs the cells other clients run on `session`'s kernel, bounded by the session's output limit. */
export function recordForeignCells(session: Session, outputLimit: () => number): void {
  session.kernel.foreignLimits = () => ({ maxChars: outputLimit(), spillPath: () => session.spillPath() });
  session.kernel.on('foreign-cell', (cell) => session.emit('logged', logForeignCell(session, cell)));
}

/** Appends the cell to the session log; a log that cannot be written loses the record, not the entry the panel shows. */
export function logForeignCell(session: Session, cell: ForeignCell): LogEntry {
  const { result } = cell;
  const figures: SavedFigure[] = [];
  const entry: Omit<LogEntry, 'id'> = {
    time: new Date(cell.startedAt).toISOString(),
    client: ANOTHER_CLIENT,
    code: cell.code,
    status: result.status,
    executionCount: result.executionCount,
    durationMs: result.durationMs,
    outputs: session.toLogOutputs(result, figures),
    error: result.error && { ename: result.error.ename, evalue: result.error.evalue, message: result.error.message, traceback: result.error.traceback },
    spillPath: result.spillPath,
  };
  try {
    return session.log.append(entry);
  } catch (error) {
    if (error instanceof SessionLogError) return error.entry;
    throw error;
  }
}
