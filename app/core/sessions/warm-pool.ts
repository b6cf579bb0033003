/**
 * Ready kernels, waiting. A new session, a restart or a crash replacement takes
 * one that already started and already imported the usual scientific modules
 * (into sys.modules only: the user's namespace stays empty), so the model does
 * not wait for Python and pandas to load. Refills happen after a pause, one at
 * a time; only interpreters in use are pooled, and an idle pool shrinks to zero.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { launchKernel, type LaunchKernelOptions, type LaunchedKernel } from '../kernel/launch.js';
import { removeConnectionFile } from '../kernel/connection-info.js';

/** Imported in pooled kernels when present; a missing one is skipped silently. */
export const WARM_MODULES = ['numpy', 'pandas', 'statsmodels.api', 'scipy.stats', 'matplotlib.pyplot'];

const warmCode = (modules: string[]) =>
  `exec("import importlib\\nfor m in ${JSON.stringify(modules).replace(/"/g, "'")}:\\n    try:\\n        importlib.import_module(m)\\n    except Exception:\\n        pass", {})`;

export interface WarmPoolOptions {
  /** Ready kernels kept per interpreter in use (0 turns the pool off). */
  size: number;
  /** Where pooled kernels log until handed out. */
  logDir: string;
  /** A pool not drawn from for this long is emptied. */
  idleMs?: number;
  /** Pause before refilling, so a refill never competes with the work that drew from it. */
  refillDelayMs?: number;
  modules?: string[];
}

interface Pooled {
  key: string;
  kernel: Promise<LaunchedKernel>;
  ready: boolean;
}

export class WarmPool {
  private readonly pools = new Map<string, { options: LaunchKernelOptions; items: Pooled[]; lastUsed: number; refill?: NodeJS.Timeout }>();
  private closed = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: WarmPoolOptions) {
    this.sweeper = setInterval(() => this.shrinkIdle(), Math.min(60_000, options.idleMs ?? 600_000));
    this.sweeper.unref();
  }

  /** Only plain launches are pooled: same interpreter, folder and environment. */
  private keyOf(options: LaunchKernelOptions): string | null {
    if (options.extraArgs?.length) return null;
    return JSON.stringify([options.interpreter, options.cwd ?? '', options.env ?? {}]);
  }

  /** A launcher for KernelOptions.launcher: pooled when possible, cold otherwise. */
  readonly launch = async (options: LaunchKernelOptions): Promise<LaunchedKernel> => {
    const key = this.keyOf(options);
    if (this.closed || this.options.size <= 0 || key === null) return launchKernel(options);
    let pool = this.pools.get(key);
    if (!pool) {
      pool = { options, items: [], lastUsed: Date.now() };
      this.pools.set(key, pool);
    }
    pool.lastUsed = Date.now();
    const handed = await this.takeReady(pool.items);
    this.scheduleRefill(key);
    return handed ?? launchKernel(options);
  };

  private async takeReady(items: Pooled[]): Promise<LaunchedKernel | null> {
    while (items.length) {
      // Prefer one that finished warming; a still-warming one is still faster than a cold start.
      const index = Math.max(0, items.findIndex((item) => item.ready));
      const [item] = items.splice(index, 1);
      const kernel = await item.kernel.catch(() => null);
      if (kernel && (await this.alive(kernel))) return kernel;
      if (kernel) await this.dispose(kernel);
    }
    return null;
  }

  /** Alive and answering: the process runs and a kernel_info_request is answered promptly. */
  private async alive(kernel: LaunchedKernel): Promise<boolean> {
    if (!kernel.process.alive) return false;
    const { reply } = kernel.client.request('shell', 'kernel_info_request', {});
    const answered = await Promise.race([reply.then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), 2000))]);
    return answered;
  }

  private scheduleRefill(key: string): void {
    const pool = this.pools.get(key);
    if (!pool || pool.refill || this.closed) return;
    pool.refill = setTimeout(() => {
      pool.refill = undefined;
      if (this.closed || !this.pools.has(key)) return;
      while (pool.items.length < this.options.size) pool.items.push(this.warm(key, pool.options));
    }, this.options.refillDelayMs ?? 1500);
    pool.refill.unref();
  }

  private warm(key: string, options: LaunchKernelOptions): Pooled {
    const item: Pooled = { key, ready: false, kernel: Promise.resolve(null as unknown as LaunchedKernel) };
    item.kernel = (async () => {
      const kernel = await launchKernel({ ...options, logPath: join(this.options.logDir, `pooled-${randomUUID()}.log`) });
      // Import quietly, outside history and the user's namespace, then wait for the reply.
      const { reply } = kernel.client.request('shell', 'execute_request', {
        code: warmCode(this.options.modules ?? WARM_MODULES),
        silent: true,
        store_history: false,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: false,
      });
      await reply;
      item.ready = true;
      return kernel;
    })();
    item.kernel.catch(() => {
      const pool = this.pools.get(key);
      if (pool) pool.items = pool.items.filter((i) => i !== item);
    });
    return item;
  }

  /** Pooled kernels now: how many, their pids, for status displays. */
  async describe(): Promise<{ interpreter: string; ready: number; warming: number; pids: number[] }[]> {
    const out = [];
    for (const pool of this.pools.values()) {
      const pids: number[] = [];
      for (const item of pool.items) {
        if (!item.ready) continue;
        const kernel = await item.kernel.catch(() => null);
        if (kernel?.process.pid) pids.push(kernel.process.pid);
      }
      out.push({ interpreter: pool.options.interpreter, ready: pool.items.filter((i) => i.ready).length, warming: pool.items.filter((i) => !i.ready).length, pids });
    }
    return out;
  }

  private shrinkIdle(): void {
    const idleMs = this.options.idleMs ?? 600_000;
    for (const [key, pool] of this.pools) {
      if (Date.now() - pool.lastUsed < idleMs) continue;
      this.pools.delete(key);
      clearTimeout(pool.refill);
      for (const item of pool.items) void item.kernel.then((k) => this.dispose(k), () => undefined);
    }
  }

  /** Empties the pools of an interpreter no session uses any more. */
  drop(interpreter: string): void {
    for (const pool of this.pools.values()) if (pool.options.interpreter === interpreter) pool.lastUsed = 0;
    this.shrinkIdle();
  }

  private async dispose(kernel: LaunchedKernel): Promise<void> {
    kernel.client.close();
    await kernel.process.terminate(500);
    await removeConnectionFile(kernel.connectionFile);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(
      all.flatMap((pool) => {
        clearTimeout(pool.refill);
        return pool.items.map((item) => item.kernel.then((k) => this.dispose(k), () => undefined));
      }),
    );
  }
}
