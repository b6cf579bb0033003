/** Waiters for "usable again", released together; a permanent failure rejects them all. */
import { delay } from '../timers.js';

export class Gate {
  private opened = false;
  private failure: Error | null = null;
  private readonly waiters = new Set<{ resolve: () => void; reject: (e: Error) => void }>();

  open(): void {
    this.opened = true;
    this.failure = null;
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
  }

  shut(): void {
    this.opened = false;
  }

  fail(error: Error): void {
    this.opened = false;
    this.failure = error;
    for (const w of this.waiters) w.reject(error);
    this.waiters.clear();
  }

  get isOpen(): boolean {
    return this.opened;
  }

  /** Resolves once open; rejects with `onTimeout()` after `ms`, or with the failure. */
  wait(ms: number, onTimeout: () => Error): Promise<void> {
    if (this.opened) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = delay(ms);
      const waiter = {
        resolve: () => (timer.cancel(), resolve()),
        reject: (e: Error) => (timer.cancel(), reject(e)),
      };
      void timer.done.then(() => {
        if (!this.waiters.delete(waiter)) return; // released or failed first
        reject(onTimeout());
      });
      this.waiters.add(waiter);
    });
  }
}
