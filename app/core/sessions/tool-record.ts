/**
 * Tool entries in the session log: a tool that changed the user's namespace or files (load_data,
 * ols, save_figure, reset_namespace, restart_kernel…) is logged as the plain Python that does the
 * same, so the log, the panel and an exported notebook show what happened to the namespace.
 */
import type { Session } from './session.js';
import { SessionLogError, type LogEntry, type SessionEnvironment, type ToolRecord } from './session-log.js';

/** The plain code of one tool call, as a Python helper returns it (or as written here for restarts). */
export interface ToolCode {
  /** The MCP tool's name (the helper "reset" is reset_namespace). */
  tool?: string;
  code: string;
  imports: string[];
  attach?: 'figure';
  clearsNamespace?: boolean;
  environment?: SessionEnvironment;
}

/** The `code`, `imports`, `code_notes` and `environment` fields of a helper's payload, if it has code. */
export function toolCodeFromPayload(payload: Record<string, unknown>): ToolCode | null {
  if (typeof payload.code !== 'string' || !payload.code) return null;
  const notes = (payload.code_notes ?? {}) as { tool?: unknown; attach?: unknown; clears_namespace?: unknown };
  return {
    ...(typeof notes.tool === 'string' ? { tool: notes.tool } : {}),
    code: payload.code,
    imports: Array.isArray(payload.imports) ? payload.imports.filter((i): i is string => typeof i === 'string') : [],
    ...(notes.attach === 'figure' ? { attach: 'figure' as const } : {}),
    ...(notes.clears_namespace === true ? { clearsNamespace: true } : {}),
    ...(isEnvironment(payload.environment) ? { environment: payload.environment } : {}),
  };
}

function isEnvironment(value: unknown): value is SessionEnvironment {
  const env = value as SessionEnvironment | undefined;
  return !!env && typeof env === 'object' && typeof env.python?.version === 'string' && typeof env.packages === 'object';
}

/** A restart empties the namespace the way `%reset -f` does; a notebook has no code for restarting its own kernel. */
export function restartCode(tool: string): ToolCode {
  return {
    code: `# ${tool} (Python Session tool): a fresh kernel; every variable and import is gone (in Jupyter: Kernel > Restart)\n%reset -f`,
    imports: [],
    clearsNamespace: true,
  };
}

/**
 * Appends a tool entry and tells the session's watchers (the panel). Returns a warning for the
 * reply when the log could not be written: the tool's work happened all the same.
 */
export function recordToolCode(session: Session, tool: string, code: ToolCode, run: { client: string; startedAt: number; report: string }): string | null {
  tool = code.tool ?? tool;
  const record: ToolRecord = {
    name: tool,
    imports: code.imports,
    ...(code.attach ? { attach: code.attach } : {}),
    ...(code.clearsNamespace ? { clearsNamespace: true } : {}),
    ...(code.environment ? { environment: code.environment } : {}),
  };
  const entry: Omit<LogEntry, 'id'> = {
    kind: 'tool',
    tool: record,
    time: new Date(run.startedAt).toISOString(),
    client: run.client,
    code: code.code,
    status: 'ok',
    executionCount: null,
    durationMs: Date.now() - run.startedAt,
    outputs: run.report ? [{ type: 'stream', name: 'stdout', text: run.report.endsWith('\n') ? run.report : `${run.report}\n` }] : [],
  };
  try {
    session.emit('logged', session.log.append(entry));
    return null;
  } catch (error) {
    if (!(error instanceof SessionLogError)) throw error;
    return `Warning: this ${tool} call is not in the session log — ${error.message}. Its code will be missing from export_notebook.`;
  }
}

/** restart_kernel, and reset_namespace(restart=true): the namespace is gone. */
export function recordRestart(session: Session, tool: string, client: string): string | null {
  return recordToolCode(session, tool, restartCode(tool), { client, startedAt: Date.now(), report: '' });
}
