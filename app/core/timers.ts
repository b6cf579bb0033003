/**
 * The one timer helper: a delay that can be cut short, and a bounded wait on a promise. Every
 * wait with a deadline in the engine goes through these, so none is left running (each is
 * unref'd and cleared) and a shutdown never sits out a long timer.
 */
export interface Delay {
  /** Resolves when the time is up, or at once when cancelled. */
  readonly done: Promise<void>;
  cancel(): void;
}

/** A timer that can be cut short (a shutdown must not wait out a 15 s backoff). */
export function delay(ms: number): Delay {
  let timer: NodeJS.Timeout | undefined;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      finish();
    },
  };
}

/** Sleeps `ms` (the timer does not keep the process alive). */
export function sleep(ms: number): Promise<void> {
  return delay(ms).done;
}

export const TIMED_OUT: unique symbol = Symbol('timed out');

/** `promise`'s value, or TIMED_OUT when `ms` passes first; the timer is cleared either way. */
export async function upTo<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  const wait = delay(ms);
  try {
    return await Promise.race([promise, wait.done.then((): typeof TIMED_OUT => TIMED_OUT)]);
  } finally {
    wait.cancel();
  }
}

/** Like upTo, for a promise whose outcome does not matter: true if it settled (either way) in time. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return (await upTo(promise.then(() => true, () => true), ms)) !== TIMED_OUT;
}
