/**
 * Tool entries in the session log: a tool that changed the user's namespace or files (load_data,
 * ols, save_figure, reset_namespace, restart_kernel…) is logged as the plain Python that does the
 * same, so the log, the panel and an exported notebook show what happened to the namespace.
 */
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

/**
 * Why the namespace was emptied, whoever caused it: each is one tool entry marked clearsNamespace
 * in the log, which an export writes as `%reset -f` (a notebook has no code for restarting its own
 * kernel), so re-running the record fails where the session did.
 */
export type NamespaceClear =
  /** A restart asked for: a tool (restart_kernel, reset_namespace(restart=true)) or the panel's Restart. */
  | { kind: 'restart'; tool: string; client: string }
  /** The running code ignored an interrupt (asked for, a timeout's, a cancelled call's), so the kernel was restarted. */
  | { kind: 'interrupt-escalated'; client: string; cause: string }
  /** The kernel died while nothing of the record ran, and a fresh one took its place. */
  | { kind: 'replaced'; cause: string }
  /** A new kernel in a session whose log already holds an earlier kernel's entries (a daemon restart, the session started again). */
  | { kind: 'new-kernel' };

/** The tool entry's name, its client, and its code (a comment saying what happened, then the clear). */
export function clearRecord(clear: NamespaceClear): { name: string; client: string; code: ToolCode } {
  const code = (comment: string): ToolCode => ({ code: `# ${comment}\n%reset -f`, imports: [], clearsNamespace: true });
  const firstLine = (text: string) => text.split('\n')[0].trim();
  switch (clear.kind) {
    case 'restart':
      return {
        name: clear.tool,
        client: clear.client,
        code: code(`${clear.tool} (Python Session${clear.client === 'panel' ? ', from the control panel' : ' tool'}): a fresh kernel; every variable and import is gone (in Jupyter: Kernel > Restart)`),
      };
    case 'interrupt-escalated':
      return { name: 'restart after interrupt', client: clear.client, code: code(`Python Session: ${clear.cause}, so the kernel was restarted; every variable and import is gone`) };
    case 'replaced':
      return { name: 'kernel replaced', client: 'python-session', code: code(`Python Session: the kernel died (${firstLine(clear.cause)}) and a fresh one took its place; every variable and import is gone`) };
    case 'new-kernel':
      return {
        name: 'new kernel',
        client: 'python-session',
        code: code('Python Session: a new kernel for this session (the daemon was restarted, or the session started again); nothing of the earlier kernel\'s namespace is here'),
      };
  }
}

/**
 * Appends a tool entry (with `append`, which tells the session's watchers). Returns a warning for the
 * reply when the log could not be written: the tool's work happened all the same.
 */
export function recordToolCode(append: (entry: Omit<LogEntry, 'id'>) => LogEntry, tool: string, code: ToolCode, run: { client: string; startedAt: number; report: string }): string | null {
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
    append(entry);
    return null;
  } catch (error) {
    if (!(error instanceof SessionLogError)) throw error;
    return `Warning: this ${tool} call is not in the session log — ${error.message}. Its code will be missing from export_notebook.`;
  }
}
