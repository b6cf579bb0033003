/**
 * Issue #13, item 8: how long a person waits for the first answer. From spawning the shim in a
 * project folder, with no daemon running (the shim starts one), to the result of the first
 * `run_python`, sent after a 2 s pause that stands for the person typing the request. Measured
 * with the kernel warmed when the client connects, and without (PYTHON_MCP_WARM_ON_CONNECT=0:
 * the kernel starts at the first call), in alternation so both meet the same load.
 *
 * `node dist/bench/first-call.js [runs] [python]`; writes bench/results/first-call.json.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBenchResult } from './results-file.js';
import { ms, spread } from './stats.js';

const CLI = fileURLToPath(new URL('../app/cli/main.js', import.meta.url));

/** What a model's first call typically is: the usual import, and a look at the data. */
export const FIRST_CODE = "import pandas as pd\npd.read_csv('data/sales.csv').shape";
export const TYPING_PAUSE_MS = 2000;

export interface FirstCallBench {
  runs: number;
  pause_ms: number;
  code: string;
  /** Spawn to first result, pause included. */
  warm_on_connect_ms: number[];
  cold_ms: number[];
  /** The call alone: sent to answered. */
  warm_on_connect_call_ms: number[];
  cold_call_ms: number[];
}

/** One person's first call, in a fresh state folder with no daemon. */
async function firstCall(python: string, warmOnConnect: boolean): Promise<{ total: number; call: number }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ps-bench-first-')));
  const project = join(root, 'project');
  mkdirSync(join(project, 'data'), { recursive: true });
  writeFileSync(join(project, 'data', 'sales.csv'), 'region,amount\nnorth,1\nsouth,2\n');
  const env = {
    ...(process.env as Record<string, string>),
    PYTHON_MCP_HOME: join(root, 'state'),
    PYTHON_MCP_INTERPRETER: python,
    PYTHON_MCP_WARM_ON_CONNECT: warmOnConnect ? '1' : '0',
  };
  const client = new Client({ name: 'bench-first-call', version: '1' });
  try {
    const started = process.hrtime.bigint();
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env, cwd: project, stderr: 'ignore' }));
    await new Promise((resolve) => setTimeout(resolve, TYPING_PAUSE_MS));
    const sent = process.hrtime.bigint();
    const result = (await client.callTool({ name: 'run_python', arguments: { code: FIRST_CODE } }, undefined, { timeout: 120_000 })) as { isError?: boolean; content: { text?: string }[] };
    const call = ms(sent);
    const total = ms(started);
    if (result.isError || !result.content.some((c) => c.text?.includes('(2, 2)'))) throw new Error(`the first call failed: ${JSON.stringify(result).slice(0, 500)}`);
    return { total, call };
  } finally {
    await client.close().catch(() => undefined);
    execFileSync(process.execPath, [CLI, 'stop'], { env, stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  }
}

export async function runFirstCallBench(python: string, runs = 5): Promise<FirstCallBench> {
  const out: FirstCallBench = { runs, pause_ms: TYPING_PAUSE_MS, code: FIRST_CODE, warm_on_connect_ms: [], cold_ms: [], warm_on_connect_call_ms: [], cold_call_ms: [] };
  await firstCall(python, true); // file caches (Python, pandas) warm for both sides alike
  for (let i = 0; i < runs; i++) {
    const [a, b] = i % 2 ? [false, true] : [true, false];
    for (const warm of [a, b]) {
      const { total, call } = await firstCall(python, warm);
      (warm ? out.warm_on_connect_ms : out.cold_ms).push(total);
      (warm ? out.warm_on_connect_call_ms : out.cold_call_ms).push(call);
    }
  }
  return out;
}

export function firstCallTable(b: FirstCallBench): string {
  return [
    `| measure (ms, median (p10–p90), ${b.runs} runs each) | kernel warmed on connect | kernel started at the first call |`,
    '| --- | --- | --- |',
    `| shim spawned (no daemon) → first \`run_python\` result, ${b.pause_ms / 1000} s pause included | ${spread(b.warm_on_connect_ms, 0)} | ${spread(b.cold_ms, 0)} |`,
    `| the call alone (sent → result) | ${spread(b.warm_on_connect_call_ms, 0)} | ${spread(b.cold_call_ms, 0)} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runFirstCallBench(process.argv[3] || process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', Number(process.argv[2] ?? 5));
  console.log(firstCallTable(result));
  writeBenchResult('first-call', { date: new Date().toISOString(), ...result });
}
