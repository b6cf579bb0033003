/**
 * Issue #16 benchmark: the built-in worker against ipykernel on the same interpreter, measured in
 * alternation so both meet the same load. `node dist/bench/worker-engine.js [python] [runs]`.
 *
 * - start to ready: launchWorker (spawn, start line, signed hello, kernel_info and idle) against
 *   launchKernel (ports, connection file, ipykernel, kernel_info and idle), and against
 *   PythonRunner.start, the whole engine on ipykernel, for reference;
 * - `1+1` round trip: the same execute_request collected to its reply and idle over each transport
 *   (WorkerTransport, the ZeroMQ KernelClient), and through PythonRunner.execute for reference;
 * - 10 MB printed (100,000 lines of 100 characters), over each transport.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PythonRunner } from '../app/core/index.js';
import { launchKernel } from '../app/core/kernel/process/launch.js';
import type { KernelTransport } from '../app/core/kernel/messaging/transport.js';
import { launchWorker } from '../app/core/worker/launch-worker.js';
import { interleaved } from './baseline.js';
import { OUTPUT_10MB } from './kernel-engine.js';
import { median, repeat, spread, timed } from './stats.js';

export interface WorkerBench {
  python: string;
  runs: number;
  start_ms: { worker: number[]; ipykernel: number[]; kernel_start: number[] };
  roundtrip_ms: { worker: number[]; ipykernel: number[]; kernel_execute: number[] };
  output_10mb_s: { worker: number[]; ipykernel: number[] };
}

/** One execute_request, to its reply and its idle status: the least any engine must wait for. */
async function roundTrip(transport: KernelTransport, code: string): Promise<void> {
  let idle!: () => void;
  const idleSeen = new Promise<void>((resolve) => (idle = resolve));
  const { msgId, reply } = transport.request(
    'shell',
    'execute_request',
    { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: false },
    (id) => transport.onParent(id, (m) => void (m.header.msg_type === 'status' && m.content.execution_state === 'idle' && idle())),
  );
  await Promise.all([reply, idleSeen]);
  transport.abandon(msgId);
}

export async function runWorkerBench(python = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', runs = 200): Promise<WorkerBench> {
  const starts = await interleaved(
    10,
    1,
    (n) =>
      repeat(n, async () => {
        let launched: Awaited<ReturnType<typeof launchWorker>> | undefined;
        const elapsed = await timed(async () => (launched = await launchWorker({ interpreter: python })));
        launched!.transport.close();
        await launched!.process.terminate(1000);
        return elapsed;
      }),
    (n) =>
      repeat(n, async () => {
        let launched: Awaited<ReturnType<typeof launchKernel>> | undefined;
        const elapsed = await timed(async () => (launched = await launchKernel({ interpreter: python })));
        launched!.client.close();
        await launched!.process.terminate(1000);
        return elapsed;
      }),
  );
  const kernelStart = await repeat(3, async () => {
    let runner: PythonRunner | undefined;
    const elapsed = await timed(async () => (runner = await PythonRunner.start({ interpreter: python })));
    await runner!.close();
    return elapsed;
  });

  const worker = await launchWorker({ interpreter: python });
  const ipykernel = await launchKernel({ interpreter: python });
  const kernel = await PythonRunner.start({ interpreter: python });
  try {
    for (let i = 0; i < 10; i++) {
      await roundTrip(worker.transport, '1+1');
      await roundTrip(ipykernel.client, '1+1');
      await kernel.execute('1+1');
    }
    const transports = await interleaved(
      runs,
      20,
      (n) => repeat(n, () => timed(() => roundTrip(worker.transport, '1+1'))),
      (n) => repeat(n, () => timed(() => roundTrip(ipykernel.client, '1+1'))),
    );
    const engine = await repeat(Math.min(runs, 100), () => timed(() => kernel.execute('1+1')));
    const output = await interleaved(
      5,
      1,
      (n) => repeat(n, async () => (await timed(() => roundTrip(worker.transport, OUTPUT_10MB))) / 1000),
      (n) => repeat(n, async () => (await timed(() => roundTrip(ipykernel.client, OUTPUT_10MB))) / 1000),
    );
    return {
      python,
      runs,
      start_ms: { worker: starts.ours, ipykernel: starts.theirs, kernel_start: kernelStart },
      roundtrip_ms: { worker: transports.ours, ipykernel: transports.theirs, kernel_execute: engine },
      output_10mb_s: { worker: output.ours, ipykernel: output.theirs },
    };
  } finally {
    worker.transport.close();
    await worker.process.terminate(1000);
    ipykernel.client.close();
    await ipykernel.process.terminate(1000);
    await kernel.close();
  }
}

export function workerTable(b: WorkerBench): string {
  const ratio = (a: number[], c: number[]) => `${(median(a) / median(c)).toFixed(2)}×`;
  return [
    `| ${b.python}: median (p10–p90) | built-in worker | ipykernel | ratio |`,
    `| --- | --- | --- | --- |`,
    `| start to ready (ms), 10 each | ${spread(b.start_ms.worker, 0)} | ${spread(b.start_ms.ipykernel, 0)} (PythonRunner.start: ${spread(b.start_ms.kernel_start, 0)}) | ${ratio(b.start_ms.worker, b.start_ms.ipykernel)} |`,
    `| \`1+1\` round trip over the transport (ms), ${b.runs} each | ${spread(b.roundtrip_ms.worker)} | ${spread(b.roundtrip_ms.ipykernel)} (PythonRunner.execute: ${spread(b.roundtrip_ms.kernel_execute)}) | ${ratio(b.roundtrip_ms.worker, b.roundtrip_ms.ipykernel)} |`,
    `| 10 MB printed (s), 5 each | ${spread(b.output_10mb_s.worker)} | ${spread(b.output_10mb_s.ipykernel)} | ${ratio(b.output_10mb_s.worker, b.output_10mb_s.ipykernel)} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runWorkerBench(process.argv[2], Number(process.argv[3] ?? 200));
  console.log(workerTable(result));
  const out = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bench', 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'worker-engine.json'), JSON.stringify(result, null, 1));
}
