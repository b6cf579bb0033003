/**
 * Issue #9 benchmark: what a remote kernel costs over a local one when the network is no
 * object — a Jupyter Server on loopback (REST + one WebSocket) against our ZeroMQ engine, the
 * same interpreter on both sides, the runs interleaved so drift hits both alike.
 *
 *   node dist/bench/remote-roundtrip.js [python] [runs]
 *
 * Writes bench/results/remote-roundtrip.json and prints a Markdown table.
 */
import { fileURLToPath } from 'node:url';
import { KernelSupervisor, LocalProvisioner } from '../app/core/kernel/kernel.js';
import { writeBenchResult } from './results-file.js';
import type { SessionKernel } from '../app/core/kernel/supervision/session-kernel.js';
import { RemoteServer } from '../app/core/remote/server-registry.js';
import { startJupyterServer } from '../app/core/remote/testing/jupyter-server.js';
import { callHelper } from '../app/core/sessions/helper-bridge.js';
import { median, ms, spread } from './stats.js';
import { OUTPUT_10MB } from './kernel-engine.js';
import { RemoteProvisioner } from '../app/core/remote/remote-provisioner.js';

interface Side {
  start_ms: number[];
  roundtrip_ms: number[];
  helper_first_ms: number;
  helper_ms: number[];
  output_10mb_s: number;
}

export interface RemoteBench {
  python: string;
  runs: number;
  server: string;
  local: Side;
  remote: Side;
  /** `1+1` on a remote kernel without the prompt ACKs (KernelChannel's promptAcks: false). */
  remote_without_prompt_acks_ms: number[];
  overhead_ms: number;
  ratio_roundtrip: number;
}


async function time<T>(run: () => Promise<T>): Promise<[number, T]> {
  const t = process.hrtime.bigint();
  const value = await run();
  return [ms(t), value];
}

export async function runRemoteBench(python = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', runs = 200): Promise<RemoteBench> {
  const server = await startJupyterServer({ python });
  const remoteServer = new RemoteServer('bench', server.url, server.token);
  const startLocal = () => KernelSupervisor.start(new LocalProvisioner({ interpreter: python }));
  const startRemote = () => KernelSupervisor.start(new RemoteProvisioner(remoteServer, { kind: 'start' }));
  const sides = { local: emptySide(), remote: emptySide() };
  const withoutAcks: number[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      for (const [name, start] of [['local', startLocal], ['remote', startRemote]] as const) {
        const [elapsed, kernel] = await time<SessionKernel>(start);
        sides[name].start_ms.push(elapsed);
        await kernel.shutdown();
      }
    }
    const kernels = { local: await startLocal(), remote: await startRemote() };
    const plain = await KernelSupervisor.start(new RemoteProvisioner(remoteServer, { kind: 'start' }, { promptAcks: false }));
    try {
      for (let i = 0; i < 10; i++) await plain.execute('1+1');
      for (let i = 0; i < Math.min(runs, 100); i++) withoutAcks.push((await time(() => plain.execute('1+1')))[0]);
      await plain.shutdown();
      for (const name of ['local', 'remote'] as const) {
        const kernel = kernels[name];
        for (let i = 0; i < 10; i++) await kernel.execute('1+1');
        // The first helper call is where the remote kernel gets the helpers' source.
        [sides[name].helper_first_ms] = await time(() => callHelper(kernel, 'value', { expression: '1 + 1' }));
      }
      for (let i = 0; i < runs; i++) {
        const order: ('local' | 'remote')[] = i % 2 ? ['remote', 'local'] : ['local', 'remote'];
        for (const name of order) {
          const [elapsed] = await time(() => kernels[name].execute('1+1'));
          sides[name].roundtrip_ms.push(elapsed);
        }
      }
      for (let i = 0; i < Math.min(runs, 50); i++) {
        for (const name of ['local', 'remote'] as const) {
          const [elapsed] = await time(() => callHelper(kernels[name], 'value', { expression: '1 + 1' }));
          sides[name].helper_ms.push(elapsed);
        }
      }
      for (const name of ['local', 'remote'] as const) {
        const [elapsed] = await time(() => kernels[name].execute(OUTPUT_10MB, { limits: { maxChars: 20_000 } }));
        sides[name].output_10mb_s = elapsed / 1000;
      }
    } finally {
      await Promise.all([kernels.local.shutdown(), kernels.remote.shutdown(), plain.shutdown()]);
    }
  } finally {
    await server.close();
  }
  const local = median(sides.local.roundtrip_ms);
  const remote = median(sides.remote.roundtrip_ms);
  return {
    python,
    runs,
    server: 'Jupyter Server on 127.0.0.1, token auth',
    ...sides,
    remote_without_prompt_acks_ms: withoutAcks,
    overhead_ms: remote - local,
    ratio_roundtrip: remote / local,
  };
}

function emptySide(): Side {
  return { start_ms: [], roundtrip_ms: [], helper_first_ms: 0, helper_ms: [], output_10mb_s: 0 };
}

export function remoteTable(b: RemoteBench): string {
  const ratio = (a: number, c: number) => `${(a / c).toFixed(2)}×`;
  return [
    `| measure (ms, median (p10–p90)) | local kernel (ZeroMQ) | remote kernel (Jupyter Server, loopback) | remote / local |`,
    `| --- | --- | --- | --- |`,
    `| \`1+1\` round trip, ${b.runs} runs | ${spread(b.local.roundtrip_ms)} | ${spread(b.remote.roundtrip_ms)} | ${b.ratio_roundtrip.toFixed(2)}× (+${b.overhead_ms.toFixed(2)} ms) |`,
    `| \`1+1\`, remote without prompt ACKs (Nagle + delayed ACK) | | ${spread(b.remote_without_prompt_acks_ms)} | ${ratio(median(b.remote_without_prompt_acks_ms), median(b.local.roundtrip_ms))} |`,
    `| kernel start to ready | ${spread(b.local.start_ms, 0)} | ${spread(b.remote.start_ms, 0)} | ${ratio(median(b.remote.start_ms), median(b.local.start_ms))} |`,
    `| first helper call (get_value) | ${b.local.helper_first_ms.toFixed(1)} | ${b.remote.helper_first_ms.toFixed(1)} (sends the helpers' source) | ${ratio(b.remote.helper_first_ms, b.local.helper_first_ms)} |`,
    `| later helper calls | ${spread(b.local.helper_ms)} | ${spread(b.remote.helper_ms)} | ${ratio(median(b.remote.helper_ms), median(b.local.helper_ms))} |`,
    `| 10 MB printed (s) | ${b.local.output_10mb_s.toFixed(2)} | ${b.remote.output_10mb_s.toFixed(2)} | ${ratio(b.remote.output_10mb_s, b.local.output_10mb_s)} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runRemoteBench(process.argv[2], Number(process.argv[3] ?? 200));
  console.log(remoteTable(result));
  writeBenchResult('remote-roundtrip', result);
}
