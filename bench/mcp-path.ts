/**
 * Issue #4/#8 benchmarks through the full path: MCP client → shim → daemon →
 * kernel, with Python's jupyter_client on the same interpreter as the baseline.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { FACTS_KEY } from '../app/core/tools/tool-context.js';
import { median, ms, repeat, timed } from './stats.js';
import { OUTPUT_10MB } from './kernel-engine.js';
import { JupyterClientBaseline, interleaved } from './baseline.js';
import { startedDaemons, stopStartedDaemons } from './shim-daemons.js';

const CLI = fileURLToPath(new URL('../app/cli/main.js', import.meta.url));

type Result = { content: { type: string; text?: string }[]; structuredContent?: Record<string, any>; _meta?: Record<string, any>; isError?: boolean };

/** A text tool's facts, which travel in _meta (see FACTS_KEY). */
const facts = (result: Result): Record<string, any> => result._meta?.[FACTS_KEY] ?? {};

export interface Daemon {
  home: string;
  env: Record<string, string>;
  connect(): Promise<{ client: Client; ms: number }>;
  pid(): number;
  stop(): Promise<void>;
}

export function startDaemonHome(python: string, extra: Record<string, string> = {}): Daemon {
  const home = mkdtempSync(join(tmpdir(), 'ps-bench-'));
  const env = { ...(process.env as Record<string, string>), PYTHON_MCP_HOME: home, PYTHON_MCP_INTERPRETER: python, ...extra };
  const clients: Client[] = [];
  const started: Promise<number[]>[] = [];
  return {
    home,
    env,
    async connect() {
      const t = process.hrtime.bigint();
      const client = new Client({ name: 'bench', version: '1' });
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'pipe' });
      await client.connect(transport);
      started.push(startedDaemons(transport.stderr as Readable)); // the stream holds what came before
      clients.push(client);
      return { client, ms: ms(t) };
    },
    pid() {
      return JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')).pid;
    },
    async stop() {
      // A shim answers initialize from the package's answers before the daemon it starts is up: a
      // `stop` sent before that daemon has said where it is finds nothing, and it outlives the run.
      // Its shim, once closed, has said whether it started one (bench/shim-daemons.ts).
      await Promise.all(clients.map((c) => c.close()));
      const pids = (await Promise.all(started)).flat();
      await stopStartedDaemons(CLI, env, join(home, 'daemon.json'), pids);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+)`, 'm'))?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

export const run = (client: Client, code: string, session?: string) =>
  client.callTool({ name: 'run_python', arguments: { code, ...(session ? { session } : {}) } }, undefined, { timeout: 600_000 }) as Promise<Result>;

async function waitForPool(client: Client): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const status = (await client.callTool({ name: 'python_status', arguments: {} })) as Result;
    const pool = (facts(status).warm_pool ?? []) as { ready: number }[];
    if (pool.some((p) => p.ready > 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the warm pool never filled');
}

export interface McpBench {
  roundtrip_ms: number[];
  /** jupyter_client's `1+1`, measured in alternation with roundtrip_ms. */
  baseline_roundtrip_ms: number[];
  /** jupyter_client's 10 MB, measured in alternation with output_10mb_s. */
  baseline_output_10mb_s: number[];
  shim_initialize_ms: number[];
  shim_cold_initialize_ms: number;
  daemon_idle_rss: number;
  new_session_cold_ms: number[];
  new_session_pooled_ms: number[];
  crash_recovery_ms: number[];
  interrupt_ms: number[];
  output_10mb_s: number[];
  daemon_peak_before_output: number;
  daemon_peak_after_output: number;
  output_reply_chars: number;
  pool_memory_bytes: number;
}

export async function runMcpBench(python: string, runs = 200, baseline?: JupyterClientBaseline): Promise<McpBench> {
  const jc = baseline ?? (await JupyterClientBaseline.start(python));
  const daemon = startDaemonHome(python);
  const cold = startDaemonHome(python, { PYTHON_MCP_POOL_SIZE: '0' });
  try {
    const first = await daemon.connect();
    const client = first.client;
    await new Promise((r) => setTimeout(r, 500));
    const idle = memoryOf(daemon.pid()).rss;
    const shim: number[] = [];
    for (let i = 0; i < 10; i++) {
      const c = await daemon.connect();
      shim.push(c.ms);
      await c.client.close();
    }
    await run(client, '1+1');
    for (let i = 0; i < 10; i++) await run(client, '1+1');
    const roundtrip = await interleaved(runs, 20, (n) => repeat(n, () => timed(() => run(client, '1+1'))), (n) => jc.roundtrips(n));

    // New session to first result: cold (no pool) against pooled.
    const coldClient = (await cold.connect()).client;
    const coldTimes: number[] = [];
    const pooledTimes: number[] = [];
    const firstResult = "import pandas as pd; pd.__version__";
    for (let i = 0; i < 5; i++) {
      let t = process.hrtime.bigint();
      await coldClient.callTool({ name: 'start_kernel', arguments: { session: `cold${i}` } });
      await run(coldClient, firstResult, `cold${i}`);
      coldTimes.push(ms(t));
      await coldClient.callTool({ name: 'shutdown_kernel', arguments: { session: `cold${i}` } });
      await waitForPool(client);
      t = process.hrtime.bigint();
      await client.callTool({ name: 'start_kernel', arguments: { session: `warm${i}` } });
      await run(client, firstResult, `warm${i}`);
      pooledTimes.push(ms(t));
      await client.callTool({ name: 'shutdown_kernel', arguments: { session: `warm${i}` } });
    }

    // Crash to working again, with the pool.
    const crash: number[] = [];
    for (let i = 0; i < 5; i++) {
      await waitForPool(client);
      const t = process.hrtime.bigint();
      await run(client, 'import os; os._exit(1)');
      await run(client, '1+1');
      crash.push(ms(t));
    }

    // Interrupt latency: interrupt_kernel call to the run's reply.
    const interrupt: number[] = [];
    for (let i = 0; i < 5; i++) {
      const running = run(client, 'while True: pass');
      await new Promise((r) => setTimeout(r, 400));
      const t = process.hrtime.bigint();
      await client.callTool({ name: 'interrupt_kernel', arguments: {} });
      await running;
      interrupt.push(ms(t));
    }

    await waitForPool(client); // its memory, once refilled after the crashes above
    const poolStatus = (await client.callTool({ name: 'python_status', arguments: {} })) as Result;
    const poolMemory = ((facts(poolStatus).warm_pool ?? []) as { memory_bytes: number }[]).reduce((n, p) => n + p.memory_bytes, 0);

    const before = memoryOf(daemon.pid()).peak;
    let big: Result | undefined;
    const output = await interleaved(5, 1, async () => [(await timed(async () => (big = await run(client, OUTPUT_10MB)))) / 1000], async () => [await jc.output()]);
    const after = memoryOf(daemon.pid()).peak;

    // A shim that has to start the daemon itself.
    const fresh = startDaemonHome(python);
    const coldShim = await fresh.connect();
    await fresh.stop();

    return {
      roundtrip_ms: roundtrip.ours,
      baseline_roundtrip_ms: roundtrip.theirs,
      baseline_output_10mb_s: output.theirs,
      shim_initialize_ms: shim,
      shim_cold_initialize_ms: coldShim.ms,
      daemon_idle_rss: idle,
      new_session_cold_ms: coldTimes,
      new_session_pooled_ms: pooledTimes,
      crash_recovery_ms: crash,
      interrupt_ms: interrupt,
      output_10mb_s: output.ours,
      daemon_peak_before_output: before,
      daemon_peak_after_output: after,
      output_reply_chars: big!.content.reduce((n, c) => n + (c.text?.length ?? 0), 0),
      pool_memory_bytes: poolMemory,
    };
  } finally {
    await daemon.stop();
    await cold.stop();
    if (!baseline) await jc.close();
  }
}

export { median };
