/**
 * How tests wait: on a condition or an event, never a fixed sleep. A wait that runs out throws,
 * saying what it waited for, so a test cannot pass by ignoring a timeout.
 */
import type { EventEmitter } from 'node:events';

export class WaitTimeoutError extends Error {}

export interface WaitOptions {
  /** Default 10 s: far above what any condition here needs, so only a real failure reaches it. */
  timeoutMs?: number;
  /** How often the condition is checked (default 50 ms). */
  stepMs?: number;
}

/**
 * Resolves with the first truthy value `probe` returns; throws a WaitTimeoutError naming `what`
 * once `timeoutMs` has passed, even when a probe never returns (a call that hangs). The probe
 * runs once more at the deadline, so a slow machine that got there late is not failed for it. A
 * probe that throws ends the wait with its error.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, stepMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  const timedOut = () => new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}`);
  // A probe still running at the deadline loses to this (it is given a moment's grace to answer).
  const hung = rejectAfter(timeoutMs + Math.max(1000, stepMs), timedOut);
  try {
    for (;;) {
      const value = await Promise.race([Promise.resolve(probe()), hung.late]);
      if (value) return value as NonNullable<T>;
      if (Date.now() >= deadline) throw timedOut();
      await new Promise((resolve) => setTimeout(resolve, Math.min(stepMs, Math.max(1, deadline - Date.now()))));
    }
  } finally {
    hung.clear();
  }
}

/** A promise that rejects with `error()` after `ms`, unless cleared first. */
function rejectAfter(ms: number, error: () => Error): { late: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(error()), ms)));
  late.catch(() => undefined); // raced, never awaited alone
  return { late, clear: () => clearTimeout(timer) };
}

/** The arguments of the next `event` from `emitter`; throws a WaitTimeoutError naming `what` after `timeoutMs`. */
export function nextEvent<A extends unknown[] = unknown[]>(emitter: EventEmitter, event: string, what: string, timeoutMs = 10_000): Promise<A> {
  return new Promise<A>((resolve, reject) => {
    const listener = (...args: unknown[]) => {
      clearTimeout(timer);
      resolve(args as A);
    };
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what} (event "${event}")`));
    }, timeoutMs);
    emitter.once(event, listener);
  });
}

/** `promise`, or a WaitTimeoutError naming `what` if it has not settled within `timeoutMs`. */
export async function withDeadline<T>(promise: Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = rejectAfter(timeoutMs, () => new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}`));
  try {
    return await Promise.race([promise, deadline.late]);
  } finally {
    deadline.clear();
  }
}
