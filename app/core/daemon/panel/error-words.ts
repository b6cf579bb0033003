/**
 * The panel's words for what a session error says can be done: what the person does in the
 * panel, where the tools name the call a model makes (tools/error-words.ts).
 */
import { cutLine, formatDuration } from '../../format.js';
import type { SessionError } from '../../sessions/session-errors.js';
import type { BusyFacts } from '../../sessions/session.js';

export function panelSessionErrorText(error: SessionError): string {
  const next = error.next;
  if (!next) return error.message;
  switch (next.kind) {
    case 'start-session':
      return `${error.message} Start it with New session.`;
    case 'restart-or-rename':
      return `${error.message} Restart it, shut it down first, or choose another session name.`;
    case 'choose-kernelspec':
      return `${error.message}; on server "${next.server}" choose a kernelspec instead.`;
    case 'install-ipykernel':
      return `${error.message} Install it with:\n  ${next.command}\nor choose another interpreter.`;
  }
}

/** An answer to a question that is no longer open (the page still showed it). */
export function panelQuestionGoneText(): string {
  return 'That question is no longer open: it was answered elsewhere (in the client, or another panel), or the run that asked it has ended.';
}

/** An action that waited for a busy kernel: which run holds it, and what the person can do. */
export function panelBusyText(busy: BusyFacts): string {
  return `The session is running code (run ${busy.run}, for ${formatDuration(busy.runningMs)}: ${cutLine(busy.code, 60)}); interrupt it first, or try again when it ends.`;
}
