/**
 * `npm run bench`: every benchmark of issues #2, #3, #4, #8 and #13 in one run,
 * against Python's jupyter_client on the same interpreter. Prints a table and
 * writes bench/results/bench.json.
 */
import { cpus, totalmem } from 'node:os';
import { JupyterClientBaseline } from './baseline.js';
import { writeBenchResult } from './results-file.js';
import { runEngineBench } from './kernel-engine.js';
import { runFirstCallBench } from './first-call.js';
import { runInterpreterBench } from './interpreters.js';
import { runMcpBench } from './mcp-path.js';
import { remoteTable, runRemoteBench } from './remote-roundtrip.js';
import { coldHandshakeTable, runColdHandshakeBench } from './cold-handshake.js';
import { runWorkerBench, workerTable } from './worker-engine.js';
import { runWorkerMcpBench, workerMcpTable } from './worker-mcp.js';
import { median, quantile } from './stats.js';

// `npm run bench -- soak [calls] [--minutes M]`: the soak alone (bench/soak.ts), not the table.
if (process.argv[2] === 'soak') {
  const { runSoak, parseSoakOptions } = await import('./soak.js');
  const { ok, report } = await runSoak(parseSoakOptions(process.argv.slice(3)));
  console.log(report);
  process.exit(ok ? 0 : 1);
}

const python = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3';
const runs = Number(process.env.BENCH_RUNS ?? 200);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const s = (values: number[], digits = 1) => `${median(values).toFixed(digits)} (${quantile(values, 0.1).toFixed(digits)}–${quantile(values, 0.9).toFixed(digits)})`;

const baseline = await JupyterClientBaseline.start(python);
process.stderr.write('kernel engine against jupyter_client…\n');
const engine = await runEngineBench(python, runs, baseline);
process.stderr.write('full MCP path against jupyter_client…\n');
const mcp = await runMcpBench(python, runs, baseline);
await baseline.close();
process.stderr.write('interpreter listing…\n');
const listing = await runInterpreterBench({ outFile: null, log: () => undefined });
process.stderr.write('first call after a client connects…\n');
const firstCall = await runFirstCallBench(python, Number(process.env.BENCH_FIRST_CALL_RUNS ?? 5));
process.stderr.write('remote kernel over loopback…\n');
const remote = await runRemoteBench(python, runs).catch((error: Error) => {
  process.stderr.write(`remote benchmark skipped: ${error.message}\n`);
  return null;
});

process.stderr.write('built-in worker against ipykernel (engine, then MCP)…\n');
const workerEngine = await runWorkerBench(python, runs);
const workerMcp = await runWorkerMcpBench(python, runs);

process.stderr.write('cold handshake, both MCP revisions…\n');
// BENCH_HANDSHAKE_BASELINE: another build's main.js (say the previous release's), timed in the same loop.
const coldHandshake = await runColdHandshakeBench(python, runs, process.env.BENCH_HANDSHAKE_BASELINE || undefined);

const jc = engine.jupyter_client;
const rows: [string, string, string, string][] = [
  ['1. `1+1` round trip, PythonRunner (ms)', s(engine.node.roundtrip_ms, 2), s(jc.roundtrip_ms, 2), `${(median(engine.node.roundtrip_ms) / median(jc.roundtrip_ms)).toFixed(2)}× (goal ≤ 1.1×)`],
  ['1. `1+1` round trip, MCP client → shim → daemon → kernel (ms)', s(mcp.roundtrip_ms, 2), s(mcp.baseline_roundtrip_ms, 2), `${(median(mcp.roundtrip_ms) / median(mcp.baseline_roundtrip_ms)).toFixed(2)}× (goal ≤ 1.3×)`],
  ['2. new session to first `import pandas` result, cold (ms)', s(mcp.new_session_cold_ms, 0), '', ''],
  ['2. new session to first `import pandas` result, pooled (ms)', s(mcp.new_session_pooled_ms, 0), '', `${(median(mcp.new_session_cold_ms) / median(mcp.new_session_pooled_ms)).toFixed(1)}× faster (goal ≥ 20×)`],
  ['3. crash (`os._exit`) to a working `1+1`, pooled (ms)', s(mcp.crash_recovery_ms, 0), '', 'goal < 200 ms'],
  ['4. interrupt of `while True: pass`, PythonRunner (ms)', s(engine.node.interrupt_ms), s(jc.interrupt_ms), 'goal < 50 ms'],
  ['4. interrupt of `while True: pass`, MCP interrupt_kernel (ms)', s(mcp.interrupt_ms), '', ''],
  ['5. 10 MB printed, PythonRunner (s)', s(engine.node.output_10mb_s, 2), s(jc.output_10mb_s, 2), `${(median(jc.output_10mb_s) / median(engine.node.output_10mb_s)).toFixed(2)}× jupyter_client's throughput (goal ≥ 1×)`],
  ['5. 10 MB printed, MCP (s); daemon peak RSS before → after', `${s(mcp.output_10mb_s, 2)}; ${mb(mcp.daemon_peak_before_output)} → ${mb(mcp.daemon_peak_after_output)}`, s(mcp.baseline_output_10mb_s, 2), `${(median(mcp.baseline_output_10mb_s) / median(mcp.output_10mb_s)).toFixed(2)}× jupyter_client's throughput; reply ${mcp.output_reply_chars} characters`],
  ['6. shim start to `initialize` answered, daemon running (ms)', s(mcp.shim_initialize_ms, 0), '', `cold (starts the daemon): ${mcp.shim_cold_initialize_ms.toFixed(0)} ms`],
  ['6. daemon idle memory (RSS)', mb(mcp.daemon_idle_rss), '', `warm pool: ${mb(mcp.pool_memory_bytes)}`],
  ['7. interpreter listing, 60 environments (ms)', `${listing.listing.median_ms.toFixed(1)} (${listing.listing.spawns} processes)`, '', `naive: ${listing.naive_sequential.median_ms.toFixed(0)} ms (${listing.naive_sequential.spawns} processes)`],
  [`first call (#13): shim spawned (no daemon) to first \`import pandas\` result, ${firstCall.pause_ms / 1000} s pause before the call (ms)`, s(firstCall.warm_on_connect_ms, 0), '', `without warm on connect: ${s(firstCall.cold_ms, 0)}; the call alone ${median(firstCall.warm_on_connect_call_ms).toFixed(0)} vs ${median(firstCall.cold_call_ms).toFixed(0)} ms`],
  ['kernel start to ready, PythonRunner (ms)', s(engine.node.start_ms, 0), jc.start_ms.toFixed(0), ''],
];
const table = [
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${mb(totalmem())}, Node ${process.version}, Python ${python}; medians (p10–p90), ${runs} runs for round trips, each side measured in alternation with jupyter_client's.`,
  '',
  '| measure | Python Session | jupyter_client | ratio / goal |',
  '| --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
].join('\n');
console.log(table);
console.log(`\nBuilt-in worker (issue 16) against ipykernel, engine alone then through MCP (goals: start ≤ 150 ms, \`1+1\` through MCP no slower):\n\n${workerTable(workerEngine)}\n\n${workerMcpTable(workerMcp)}`);
console.log(`\nCold start to the first MCP answer and to the tools, per revision (issue 23):\n\n${coldHandshakeTable(coldHandshake)}`);
if (remote) console.log(`\nRemote kernel (Jupyter Server on loopback) against a local kernel:\n\n${remoteTable(remote)}`);
writeBenchResult('bench', { date: new Date().toISOString(), python, engine, mcp, listing, first_call: firstCall, remote, worker_engine: workerEngine, worker_mcp: workerMcp, cold_handshake: coldHandshake, table });
