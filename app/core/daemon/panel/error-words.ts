/**
 * The panel's words for what a session error says can be done: what the person does in the
 * panel, where the tools name the call a model makes (tools/error-words.ts).
 */
import type { SessionError } from '../../sessions/session-errors.js';

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
