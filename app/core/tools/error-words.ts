/**
 * The tools' words for errors raised below them: the layers under the tools say what happened
 * and what can be done as data (SessionError.next, KernelDiedError.next); here that becomes the
 * call the model makes next.
 */
import type { KernelNext } from '../kernel/supervision/kernel-errors.js';
import { cutLine, formatDuration } from '../format.js';
import { SessionError, type SessionNext } from '../sessions/session-errors.js';
import type { BusyFacts } from '../sessions/session.js';

/** What to call after a session error, appended to its message. */
export function sessionErrorText(error: SessionError): string {
  return error.next ? joinNext(error.message, error.next) : error.message;
}

function joinNext(message: string, next: SessionNext): string {
  switch (next.kind) {
    case 'start-session':
      return `${message} Start one with start_kernel(session="${next.session}").`;
    case 'restart-or-rename':
      return `${message} Use restart_kernel, shut it down first, or choose another session name.`;
    case 'choose-kernelspec':
      return `${message}; on server "${next.server}" choose a kernelspec with kernel_name instead (list_interpreters shows the server's).`;
    case 'install-ipykernel':
      return `${message} Install it with:\n  ${next.command}\nor choose another interpreter (list_interpreters).`;
  }
}

/** The call that comes after a kernel's death, on a line of its own (empty when a fresh kernel is there). */
export function kernelNextCall(next: KernelNext): string {
  switch (next) {
    case 'check-then-rerun':
      return '\nCheck with kernel_status before running it again.';
    case 'not-ours':
      return '\nAttach with connect_to_kernel, or start one with start_kernel.';
    case 'gave-up':
      return '\nStart it again with restart_kernel once the cause is fixed.';
    default:
      return '';
  }
}

/** Any thrown value as the text of a tool error. */
export function toolErrorText(error: unknown): string {
  if (error instanceof SessionError) return sessionErrorText(error);
  return (error as Error)?.message || String(error);
}

/** The first line of some code, short, in backticks, for a one-line mention. */
export function firstLine(code: string): string {
  return `\`${cutLine(code, 80)}\`${code.trim().includes('\n') ? ' …' : ''}`;
}

/** A call that waited its wait_s for a busy kernel: which run holds it, and how to go on. */
export function busyText(busy: BusyFacts): string {
  return `The session is busy: run ${busy.run} has been running for ${formatDuration(busy.runningMs)} (${firstLine(busy.code)}), so this was not answered. Call wait_for_run(run="${busy.run}") until it ends, or interrupt_kernel to stop it, then ask again.`;
}
