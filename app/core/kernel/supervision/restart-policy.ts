/**
 * When a dead kernel is replaced, like jupyter_client's KernelRestarter: a kernel that dies
 * within `stableMs` of starting counts against `limit`; one that lived longer resets the count.
 * Past the limit the kernel is left dead, so one that cannot stay up (a broken environment, a
 * startup file that crashes it) is not started again and again for ever.
 */
export interface RestartPolicyOptions {
  /** Replacements in a row of kernels that died young before giving up (default 5, as restart_limit). */
  limit?: number;
  /** A kernel that lived this long counts as a stable start (default 10 s, as stable_start_time). */
  stableMs?: number;
}

export class RestartPolicy {
  readonly limit: number;
  readonly stableMs: number;
  private youngDeaths = 0;

  constructor(options: RestartPolicyOptions = {}) {
    this.limit = options.limit ?? 5;
    this.stableMs = options.stableMs ?? 10_000;
  }

  /** Records a death (or a failed start: startedAt null) and says whether to replace it. */
  shouldReplace(startedAt: number | null, now = Date.now()): boolean {
    const young = startedAt === null || now - startedAt < this.stableMs;
    this.youngDeaths = young ? this.youngDeaths + 1 : 1;
    return this.youngDeaths <= this.limit;
  }

  /** How many young deaths in a row so far. */
  get count(): number {
    return this.youngDeaths;
  }

  /** A restart asked for by someone starts the count afresh. */
  reset(): void {
    this.youngDeaths = 0;
  }
}
