/**
 * Issue #2 benchmark: PythonRunner against Python's jupyter_client on the same interpreter,
 * measured in alternation. `node dist/bench/kernel-engine.js [python] [runs]`.
 */
import { fileURLToPath } from 'node:url';
import { PythonRunner } from '../app/core/index.js';
import { JupyterClientBaseline, interleaved } from './baseline.js';
import { writeBenchResult } from './results-file.js';
import { median, repeat, spread, timed } from './stats.js';

/** The same code as bench/jupyter_client_baseline.py: 100,000 lines of 100 characters. */
export const OUTPUT_10MB = "import sys\nline = 'x' * 99 + '\\n'\nfor _ in range(100_000): sys.stdout.write(line)";

interface Side {
  roundtrip_ms: number[];
  interrupt_ms: number[];
  output_10mb_s: number[];
}

export interface EngineBench {
  python: string;
  runs: number;
  node: Side & { start_ms: number[] };
  jupyter_client: Side & { start_ms: number };
  ratio_roundtrip: number;
}

export async function runEngineBench(python = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', runs = 200, baseline?: JupyterClientBaseline): Promise<EngineBench> {
  const jc = baseline ?? (await JupyterClientBaseline.start(python));
  const startMs = await repeat(3, async () => {
    let runner: PythonRunner | undefined;
    const elapsed = await timed(async () => (runner = await PythonRunner.start({ interpreter: python })));
    await runner!.close();
    return elapsed;
  });
  const py = await PythonRunner.start({ interpreter: python });
  try {
    for (let i = 0; i < 10; i++) await py.execute('1+1');
    const roundtrip = await interleaved(runs, 20, (n) => repeat(n, () => timed(() => py.execute('1+1'))), (n) => jc.roundtrips(n));
    const interrupt = await interleaved(5, 1, (n) =>
      repeat(n, async () => {
        const running = py.execute('while True: pass');
        await new Promise((r) => setTimeout(r, 300));
        return timed(async () => {
          await py.interrupt();
          await running;
        });
      }),
      async () => [await jc.interrupt()],
    );
    const output = await interleaved(5, 1, (n) => repeat(n, async () => (await timed(() => py.execute(OUTPUT_10MB, { limits: { maxChars: 20_000 } }))) / 1000), async () => [await jc.output()]);
    return {
      python,
      runs,
      node: { roundtrip_ms: roundtrip.ours, start_ms: startMs, interrupt_ms: interrupt.ours, output_10mb_s: output.ours },
      jupyter_client: { roundtrip_ms: roundtrip.theirs, start_ms: jc.startMs, interrupt_ms: interrupt.theirs, output_10mb_s: output.theirs },
      ratio_roundtrip: median(roundtrip.ours) / median(roundtrip.theirs),
    };
  } finally {
    await py.close();
    if (!baseline) await jc.close();
  }
}

export function engineTable(b: EngineBench): string {
  return [
    `| measure (ms, median (p10–p90)) | PythonRunner | jupyter_client | ratio |`,
    `| --- | --- | --- | --- |`,
    `| \`1+1\` round trip, ${b.runs} runs | ${spread(b.node.roundtrip_ms)} | ${spread(b.jupyter_client.roundtrip_ms)} | ${b.ratio_roundtrip.toFixed(2)}× |`,
    `| kernel start to ready | ${spread(b.node.start_ms, 0)} | ${b.jupyter_client.start_ms.toFixed(0)} | ${(median(b.node.start_ms) / b.jupyter_client.start_ms).toFixed(2)}× |`,
    `| interrupt of \`while True: pass\` | ${spread(b.node.interrupt_ms, 1)} | ${spread(b.jupyter_client.interrupt_ms, 1)} | ${(median(b.node.interrupt_ms) / median(b.jupyter_client.interrupt_ms)).toFixed(2)}× |`,
    `| 10 MB printed (s), 5 runs | ${spread(b.node.output_10mb_s)} | ${spread(b.jupyter_client.output_10mb_s)} | ${(median(b.node.output_10mb_s) / median(b.jupyter_client.output_10mb_s)).toFixed(2)}× |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runEngineBench(process.argv[2], Number(process.argv[3] ?? 200));
  console.log(engineTable(result));
  writeBenchResult('kernel-engine', result);
}
