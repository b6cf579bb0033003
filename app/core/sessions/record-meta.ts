/**
 * What an export says about where the session ran. A live session is asked (its kernel_info, its
 * interpreter, and the `environment` helper for the packages it imported) when its kernel is idle,
 * so an export never waits behind a long run; otherwise, and for a log read from disk, the
 * environment the latest tool entry recorded is used.
 */
import { packageVersion } from '../package-root.js';
import type { Session } from './session.js';
import type { LogEntry, SessionEnvironment } from './session-log.js';
import { loggedEnvironment, type RecordMeta } from './record-plan.js';

const ASK_TIMEOUT_MS = 10_000;

export function exportedBy(): string {
  return `python-session-mcp ${packageVersion()}`;
}

export async function liveRecordMeta(session: Session, entries: LogEntry[] = session.log.read()): Promise<RecordMeta> {
  let environment: SessionEnvironment | undefined;
  if (session.state === 'idle') {
    try {
      const answer = await session.helper<SessionEnvironment>('environment', {}, { client: 'export', waitS: 0, timeoutMs: ASK_TIMEOUT_MS });
      if (answer.kind === 'answered') environment = answer.answer.structured ?? undefined;
    } catch {
      /* a kernel that cannot answer: what the log recorded will do */
    }
  }
  return {
    session: session.name,
    environment: environment ?? loggedEnvironment(entries),
    interpreter: session.interpreter?.path,
    languageInfo: session.facts().kernelInfo?.language_info as Record<string, unknown> | undefined,
    exportedBy: exportedBy(),
  };
}

/** For a log read from disk, with no kernel to ask. */
export function loggedRecordMeta(session: string, entries: LogEntry[]): RecordMeta {
  return { session, environment: loggedEnvironment(entries), exportedBy: exportedBy() };
}
