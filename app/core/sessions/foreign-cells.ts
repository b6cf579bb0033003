/**
 * Cells other Jupyter clients run on a session's kernel (an IDE, `jupyter console --existing`, a
 * `jupyter_client`; the kernel assembles them from iopub) go into the session log like any run,
 * under one client name, so the panel shows them (through the session's 'logged' event) and the
 * record exports them in the order they ran. `Session.recordOtherClients` appends them.
 */
import type { ForeignCell } from '../kernel/execution/foreign-cells.js';
import type { LogEntry, LogOutput } from './session-log.js';
import { ANOTHER_CLIENT } from './parties.js';

/** The log entry of another client's cell, with its outputs as the log keeps them. */
export function foreignCellEntry(cell: ForeignCell, outputs: LogOutput[]): Omit<LogEntry, 'id'> {
  const { result } = cell;
  return {
    time: new Date(cell.startedAt).toISOString(),
    client: ANOTHER_CLIENT,
    code: cell.code,
    status: result.status,
    executionCount: result.executionCount,
    durationMs: result.durationMs,
    outputs,
    error: result.error && { ename: result.error.ename, evalue: result.error.evalue, message: result.error.message, traceback: result.error.traceback },
    spillPath: result.spillPath,
  };
}
