/**
 * Issue #2 benchmark: PythonRunner against Python's jupyter_client on the same
 * interpreter, in one run. `node dist/bench/kernel-engine.js [python] [runs]`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PythonRunner } from '../app/core/index.js';
import { median, ms, spread } from './stats.js';

export interface EngineBench {
  python: string;
  runs: number;
  node: { roundtrip_ms: number[]; start_ms: number[]; interrupt_ms: number[]; output_10mb_s: number };
  jupyter_client: { roundtrip_ms: number[]; start_ms: number; interrupt_ms: number[]; output_10mb_s: number };
  ratio_roundtrip: number;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const baselineScript = join(here, '..', '..', 'bench', 'jupyter_client_baseline.py');

function baseline(python: string, runs: number): Promise<EngineBench['jupyter_client']> {
  return new Promise((resolve, reject) =>
    execFile(python, [baselineScript, String(runs)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').at(-1)!)),
    ),
  );
}

async function nodeSide(python: string, runs: number): Promise<EngineBench['node']> {
  const startMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    const py = await PythonRunner.start({ interpreter: python });
    startMs.push(ms(t));
    await py.close();
  }
  const py = await PythonRunner.start({ interpreter: python });
  try {
    for (let i = 0; i < 10; i++) await py.execute('1+1');
    const roundtrip: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = process.hrtime.bigint();
      await py.execute('1+1');
      roundtrip.push(ms(t));
    }
    const interrupt: number[] = [];
    for (let i = 0; i < 5; i++) {
      const running = py.execute('while True: pass');
      await new Promise((r) => setTimeout(r, 300));
      const t = process.hrtime.bigint();
      await py.interrupt();
      await running;
      interrupt.push(ms(t));
    }
    const t = process.hrtime.bigint();
    await py.execute("import sys\nline = 'x' * 99 + '\\n'\nfor _ in range(100_000): sys.stdout.write(line)", { limits: { maxChars: 20_000 } });
    const output = ms(t) / 1000;
    return { roundtrip_ms: roundtrip, start_ms: startMs, interrupt_ms: interrupt, output_10mb_s: output };
  } finally {
    await py.close();
  }
}

export async function runEngineBench(python = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', runs = 200): Promise<EngineBench> {
  const jc = await baseline(python, runs);
  const node = await nodeSide(python, runs);
  return { python, runs, node, jupyter_client: jc, ratio_roundtrip: median(node.roundtrip_ms) / median(jc.roundtrip_ms) };
}

export function engineTable(b: EngineBench): string {
  return [
    `| measure (ms, median (p10–p90)) | PythonRunner | jupyter_client | ratio |`,
    `| --- | --- | --- | --- |`,
    `| \`1+1\` round trip, ${b.runs} runs | ${spread(b.node.roundtrip_ms)} | ${spread(b.jupyter_client.roundtrip_ms)} | ${b.ratio_roundtrip.toFixed(2)}× |`,
    `| kernel start to ready | ${spread(b.node.start_ms, 0)} | ${b.jupyter_client.start_ms.toFixed(0)} | ${(median(b.node.start_ms) / b.jupyter_client.start_ms).toFixed(2)}× |`,
    `| interrupt of \`while True: pass\` | ${spread(b.node.interrupt_ms, 1)} | ${spread(b.jupyter_client.interrupt_ms, 1)} | ${(median(b.node.interrupt_ms) / median(b.jupyter_client.interrupt_ms)).toFixed(2)}× |`,
    `| 10 MB printed (s) | ${b.node.output_10mb_s.toFixed(2)} | ${b.jupyter_client.output_10mb_s.toFixed(2)} | ${(b.node.output_10mb_s / b.jupyter_client.output_10mb_s).toFixed(2)}× |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runEngineBench(process.argv[2], Number(process.argv[3] ?? 200));
  console.log(engineTable(result));
  const out = join(here, '..', '..', 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'kernel-engine.json'), JSON.stringify(result, null, 1));
}
