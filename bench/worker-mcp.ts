/**
 * Issue #16 through the full path (MCP client → shim → daemon → kernel), on one interpreter:
 *
 * - `1+1` round trip on the built-in worker (PYTHON_MCP_ENGINE=worker) against ipykernel, two
 *   daemons measured in alternation so both meet the same load;
 * - a new session to its first result, as a client sees it (start_kernel, then run_python): the
 *   worker started on demand against ipykernel handed out by the warm pool and ipykernel cold.
 *   This is the measure that decides whether workers are worth pooling (ARCHITECTURE.md).
 *
 * `node dist/bench/worker-mcp.js [python] [runs]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FACTS_KEY } from '../app/core/tools/tool-context.js';
import { interleaved } from './baseline.js';
import { run, startDaemonHome } from './mcp-path.js';
import { median, ms, repeat, spread, timed } from './stats.js';

export interface WorkerMcpBench {
  python: string;
  runs: number;
  roundtrip_ms: { worker: number[]; ipykernel: number[] };
  /** start_kernel + run_python('1+1') in a new session. */
  first_result_ms: { worker: number[]; ipykernel_pooled: number[]; ipykernel_cold: number[] };
  /** The same with `import pandas` as the first code (the pool has it imported already). */
  first_pandas_ms: { worker: number[]; ipykernel_pooled: number[] };
}

async function poolReady(client: Client): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const status = (await client.callTool({ name: 'python_status', arguments: {} })) as { _meta?: Record<string, any> };
    const pool = (status._meta?.[FACTS_KEY]?.warm_pool ?? []) as { ready: number }[];
    if (pool.some((p) => p.ready > 0)) return;
    await new Promise((r) => setTimeout(r, 100)); // a benchmark may poll; tests may not
  }
  throw new Error('the warm pool never filled');
}

let sessions = 0;
/** A new session to its first result; the pool (when there is one) is full before the clock starts. */
async function firstResult(client: Client, code: string, pooled: boolean): Promise<number> {
  if (pooled) await poolReady(client);
  const session = `first${++sessions}`;
  const t = process.hrtime.bigint();
  await client.callTool({ name: 'start_kernel', arguments: { session } });
  const result = (await run(client, code, session)) as { isError?: boolean; content: { text?: string }[] };
  const elapsed = ms(t);
  if (result.isError) throw new Error(`first result failed: ${result.content.map((c) => c.text).join('')}`);
  await client.callTool({ name: 'shutdown_kernel', arguments: { session } });
  return elapsed;
}

export async function runWorkerMcpBench(python = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', runs = 200, starts = 5): Promise<WorkerMcpBench> {
  const worker = startDaemonHome(python, { PYTHON_MCP_ENGINE: 'worker', PYTHON_MCP_POOL_SIZE: '0' });
  const pooled = startDaemonHome(python, { PYTHON_MCP_ENGINE: 'ipykernel', PYTHON_MCP_POOL_SIZE: '1' });
  const cold = startDaemonHome(python, { PYTHON_MCP_ENGINE: 'ipykernel', PYTHON_MCP_POOL_SIZE: '0' });
  try {
    const w = (await worker.connect()).client;
    const k = (await pooled.connect()).client;
    const c = (await cold.connect()).client;
    for (let i = 0; i < 10; i++) {
      await run(w, '1+1');
      await run(k, '1+1');
    }
    const roundtrip = await interleaved(runs, 20, (n) => repeat(n, () => timed(() => run(w, '1+1'))), (n) => repeat(n, () => timed(() => run(k, '1+1'))));
    const first = await interleaved(starts, 1, (n) => repeat(n, () => firstResult(w, '1+1', false)), (n) => repeat(n, () => firstResult(k, '1+1', true)));
    const firstCold = await repeat(starts, () => firstResult(c, '1+1', false));
    const pandas = 'import pandas as pd; pd.__version__';
    const firstPandas = await interleaved(starts, 1, (n) => repeat(n, () => firstResult(w, pandas, false)), (n) => repeat(n, () => firstResult(k, pandas, true)));
    return {
      python,
      runs,
      roundtrip_ms: { worker: roundtrip.ours, ipykernel: roundtrip.theirs },
      first_result_ms: { worker: first.ours, ipykernel_pooled: first.theirs, ipykernel_cold: firstCold },
      first_pandas_ms: { worker: firstPandas.ours, ipykernel_pooled: firstPandas.theirs },
    };
  } finally {
    await worker.stop();
    await pooled.stop();
    await cold.stop();
  }
}

export function workerMcpTable(b: WorkerMcpBench): string {
  const ratio = (a: number[], c: number[]) => `${(median(a) / median(c)).toFixed(2)}×`;
  const n = b.first_result_ms.worker.length;
  return [
    `| ${b.python}, through MCP: median (p10–p90) | built-in worker | ipykernel | ratio |`,
    `| --- | --- | --- | --- |`,
    `| \`1+1\` round trip (ms), ${b.runs} each | ${spread(b.roundtrip_ms.worker)} | ${spread(b.roundtrip_ms.ipykernel)} | ${ratio(b.roundtrip_ms.worker, b.roundtrip_ms.ipykernel)} (goal ≤ 1×) |`,
    `| new session to first \`1+1\` (ms), ${n} each | ${spread(b.first_result_ms.worker, 0)} (started on demand) | pooled ${spread(b.first_result_ms.ipykernel_pooled, 0)}; cold ${spread(b.first_result_ms.ipykernel_cold, 0)} | ${ratio(b.first_result_ms.worker, b.first_result_ms.ipykernel_pooled)} of pooled |`,
    `| new session to first \`import pandas\` (ms), ${n} each | ${spread(b.first_pandas_ms.worker, 0)} (started on demand) | pooled ${spread(b.first_pandas_ms.ipykernel_pooled, 0)} (pandas preimported) | ${ratio(b.first_pandas_ms.worker, b.first_pandas_ms.ipykernel_pooled)} of pooled |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runWorkerMcpBench(process.argv[2], Number(process.argv[3] ?? 200));
  console.log(workerMcpTable(result));
  const out = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'worker-mcp.json'), JSON.stringify(result, null, 1));
}
