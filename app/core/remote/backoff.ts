/**
 * Waits between reconnection attempts: doubling from `initialMs` up to `maxMs`, each wait half
 * fixed and half random ("equal jitter"), so a server coming back is not hit by every client
 * at the same instant, and no wait is ever near zero after the first few.
 */
export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
}

export function backoffDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialMs ?? 250;
  const max = options.maxMs ?? 15_000;
  const ceiling = Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
