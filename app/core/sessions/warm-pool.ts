/**
 * Ready kernels, waiting. A new session, a restart or a crash replacement takes
 * one that already started and already imported the usual scientific modules
 * (into sys.modules only: the user's namespace stays empty), so the model does
 * not wait for Python and pandas to load. Refills happen after a pause, one at
 * a time; only interpreters in use are pooled, and an idle pool shrinks to zero.
 *
 * Pools are keyed by interpreter and environment, not by folder: a kernel warmed
 * before the client said where its project is (see `prewarm`) must still serve it.
 * One started in another folder is moved when handed out (chdir, PWD, and the
 * start folder's entry at the head of sys.path), which leaves it as a kernel
 * started there would be, with one exception that is checked: matplotlib reads a
 * `matplotlibrc` from the folder it is imported in, so a folder holding one gets
 * a kernel that started there, or a cold start.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchKernel, type LaunchKernelOptions, type LaunchedKernel } from '../kernel/process/launch.js';
import { removeConnectionFile } from '../kernel/messaging/connection-info.js';

/** Imported in pooled kernels when present; a missing one is skipped silently. */
export const WARM_MODULES = ['numpy', 'pandas', 'statsmodels.api', 'scipy.stats', 'matplotlib.pyplot'];

const warmCode = (module: string) =>
  `exec("import importlib\\ntry:\\n    importlib.import_module(${JSON.stringify(module).replace(/"/g, "'")})\\nexcept Exception:\\n    pass", {})`;

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
  /** The folder it was started in. */
  folder: string;
  kernel: Promise<LaunchedKernel>;
  ready: boolean;
  /** Taken while still warming: it stops after the import under way, so the taker waits for no more. */
  claimed?: boolean;
}

/** The folder a launch runs in (none given: ours). */
const folderOf = (options: LaunchKernelOptions) => resolve(options.cwd ?? process.cwd());

/** Moves a kernel to another folder as if it had started there; runs in a private namespace. */
const moveCode = (folder: string) =>
  `exec(${JSON.stringify(
    [
      'import os, sys',
      'old = os.getcwd()',
      'os.chdir(new)',
      "os.environ['PWD'] = new",
      // `python -m ipykernel_launcher` put its start folder first on sys.path.
      'sys.path[:] = [new if p == old else p for p in sys.path]',
    ].join('\n'),
  )}, {'new': ${JSON.stringify(folder)}})`;

export class WarmPool {
  private readonly pools = new Map<string, { options: LaunchKernelOptions; items: Pooled[]; lastUsed: number; refill?: NodeJS.Timeout }>();
  private closed = false;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: WarmPoolOptions) {
    this.sweeper = setInterval(() => this.shrinkIdle(), Math.min(60_000, options.idleMs ?? 600_000));
    this.sweeper.unref();
  }

  /** Only plain launches are pooled: same interpreter and environment (the folder is set at hand-out). */
  private keyOf(options: LaunchKernelOptions): string | null {
    if (options.extraArgs?.length) return null;
    return JSON.stringify([options.interpreter, options.env ?? {}]);
  }

  private poolFor(key: string, options: LaunchKernelOptions) {
    let pool = this.pools.get(key);
    if (!pool) {
      pool = { options, items: [], lastUsed: Date.now() };
      this.pools.set(key, pool);
    }
    pool.lastUsed = Date.now();
    return pool;
  }

  /** A launcher for KernelOptions.launcher: pooled when possible, cold otherwise. */
  readonly launch = async (options: LaunchKernelOptions): Promise<LaunchedKernel> => {
    const key = this.keyOf(options);
    if (this.closed || this.options.size <= 0 || key === null) return launchKernel(options);
    const pool = this.poolFor(key, options);
    pool.options = options; // refills start where the latest kernel went: a restart there gets an exact match
    const handed = await this.takeReady(pool.items, folderOf(options));
    this.scheduleRefill(key);
    return handed ?? launchKernel(options);
  };

  /**
   * Warms kernels for launches like `options` now, unless that pool already has some: a client
   * connected, and its first run should not wait for Python (issue #13, item 8).
   */
  prewarm(options: LaunchKernelOptions): void {
    const key = this.keyOf(options);
    if (this.closed || this.options.size <= 0 || key === null) return;
    const pool = this.poolFor(key, options);
    if (pool.items.length) return;
    pool.options = options;
    clearTimeout(pool.refill);
    pool.refill = undefined;
    while (pool.items.length < this.options.size) pool.items.push(this.warm(key, options));
  }

  private async takeReady(items: Pooled[], folder: string): Promise<LaunchedKernel | null> {
    // matplotlib read the rc file of the folder it was imported in: moving is only sound when neither folder has one.
    const hasRc = (dir: string) => existsSync(join(dir, 'matplotlibrc'));
    const fits = (item: Pooled) => item.folder === folder || (!hasRc(folder) && !hasRc(item.folder));
    // Ready before warming (a warming one stops importing when taken, so it is still ahead of a cold start), then already in the folder.
    const rank = (item: Pooled) => (item.ready ? 0 : 2) + (item.folder === folder ? 0 : 1);
    for (;;) {
      const candidates = items.filter(fits).sort((a, b) => rank(a) - rank(b));
      const item = candidates[0];
      if (!item) return null;
      items.splice(items.indexOf(item), 1);
      item.claimed = true;
      const kernel = await item.kernel.catch(() => null);
      if (!kernel) continue;
      const usable = item.folder === folder ? await this.alive(kernel) : await this.move(kernel, folder);
      if (usable) return kernel;
      await this.dispose(kernel);
    }
  }

  /** Alive and answering: the process runs and a kernel_info_request is answered promptly. */
  private async alive(kernel: LaunchedKernel): Promise<boolean> {
    if (!kernel.process.alive) return false;
    const { reply } = kernel.client.request('shell', 'kernel_info_request', {});
    return this.answered(reply.then(() => true));
  }

  /** Alive, and now working in `folder` (the reply proves both). */
  private async move(kernel: LaunchedKernel, folder: string): Promise<boolean> {
    if (!kernel.process.alive) return false;
    const { reply } = kernel.client.request('shell', 'execute_request', {
      code: moveCode(folder),
      silent: true,
      store_history: false,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: false,
    });
    return this.answered(reply.then((message) => (message.content as { status?: string }).status === 'ok'));
  }

  private answered(check: Promise<boolean>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000)));
    return Promise.race([check.catch(() => false), late]).finally(() => clearTimeout(timer));
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
    const item: Pooled = { key, folder: folderOf(options), ready: false, kernel: Promise.resolve(null as unknown as LaunchedKernel) };
    item.kernel = (async () => {
      const kernel = await launchKernel({ ...options, logPath: join(this.options.logDir, `pooled-${randomUUID()}.log`) });
      // Import quietly, outside history and the user's namespace, one module at a time: a kernel
      // taken meanwhile (the first call came early) waits for the import under way, not for all.
      for (const module of this.options.modules ?? WARM_MODULES) {
        if (item.claimed) return kernel;
        const { reply } = kernel.client.request('shell', 'execute_request', {
          code: warmCode(module),
          silent: true,
          store_history: false,
          user_expressions: {},
          allow_stdin: false,
          stop_on_error: false,
        });
        await reply;
      }
      item.ready = true;
      return kernel;
    })();
    item.kernel.catch(() => {
      const items = this.pools.get(key)?.items;
      if (items?.includes(item)) items.splice(items.indexOf(item), 1);
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
