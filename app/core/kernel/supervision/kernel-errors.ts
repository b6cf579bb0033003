/**
 * What can go wrong with a kernel, as data: what happened, what was lost, and what comes next.
 * The words are plain and name no tool; the tools layer and the panel add their own (which
 * call to make next) from the fields.
 */
import type { ExitInfo } from '../process/kernel-process.js';
import { placeLabel, type KernelPlace } from './provisioner.js';

/**
 * What the caller can do next: nothing (a fresh kernel is already there), wait (the provisioner
 * is bringing it back), start or attach anew (it was not ours), or restart by hand (we stopped
 * replacing a kernel that keeps dying), or check and re-run (the connection went, the code may run on).
 */
export type KernelNext = 'replaced' | 'coming-back' | 'not-ours' | 'gave-up' | 'check-then-rerun';

/** The kernel died (or hung, or went) during or before a call. Nothing the caller asked for ran to completion. */
export class KernelDiedError extends Error {
  constructor(
    message: string,
    readonly exit: ExitInfo | null,
    readonly lostNames: string[],
    /** A fresh kernel has taken (or is taking) its place. */
    readonly restarted: boolean,
    readonly next: KernelNext = restarted ? 'replaced' : 'not-ours',
  ) {
    super(message);
  }
}

/** The connection dropped while a call ran: nothing is known about how the run ended; no variables were lost. */
export class ConnectionLostError extends KernelDiedError {
  constructor(message: string) {
    super(message, null, [], false, 'check-then-rerun');
  }
}

/** The kernel was shut down (before or while the call ran). */
export class KernelClosedError extends Error {}

/** Nothing was run: the kernel cannot take a request now (reconnecting, restarting, gone). */
export class KernelUnavailableError extends Error {}

/** Restarting was asked of a kernel that is not ours to restart. */
export class KernelNotOursError extends Error {}

/**
 * The kernel kept dying soon after it started, so it is no longer replaced (jupyter_client's
 * restart_limit): the message says how often, and what the kernel itself printed last.
 */
export class KernelGaveUpError extends KernelDiedError {
  constructor(
    message: string,
    exit: ExitInfo | null,
    lostNames: string[],
    readonly lastLines: string[],
  ) {
    super(message, exit, lostNames, false, 'gave-up');
  }
}

/** "Lost with it: a, b." or that nothing was. */
export function lostLine(names: readonly string[]): string {
  return names.length ? `Lost with it: ${names.join(', ')}.` : 'No variables were lost.';
}

/**
 * A run whose reply came without its output, told from where the kernel runs (only a server's
 * relay loses output; ZeroMQ and the worker's one connection do not).
 */
export function outputLostMessage(place: KernelPlace): string {
  if (place.kind !== 'remote') return 'The output of the run did not arrive.';
  return (
    `The Jupyter server ${placeLabel(place)} stopped relaying the kernel's output: the code ran (its reply came) but what it printed or displayed did not arrive. ` +
    'Python Session is reconnecting; run it again if you need to see its output.'
  );
}

/** A restart asked of a kernel that is not ours: where it was started. */
export function notOursMessage(place: KernelPlace): string {
  const where = place.kind === 'remote' ? ` (kernel ${place.kernelId} on ${placeLabel(place)})` : '';
  return `This kernel was started elsewhere${where}; restart it there, or start a new kernel here.`;
}
