/**
 * Issue #7, load: ten real MCP clients (ten shim processes) on one daemon at once, and outputs
 * far past the reply limit. Every call must be answered with exactly its own output, the session
 * logs must hold exactly the calls made, and the daemon's memory must not grow with the size of
 * what a kernel prints.
 *
 * The figures (calls/s, latency percentiles, the daemon's peak memory) are printed as test
 * diagnostics and written to e2e/artifacts/load-figures.json.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { packageRoot } from '../app/core/package-root.js';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { HAS_PROC, leftovers, memoryOf } from './support/proc.js';

const MB = 1024 * 1024;
const SKIP = HAS_PROC ? false : 'reads /proc (Linux only)';
const CLIENTS = 10;
const CALLS = 100; // per client: half in the shared session, half in the client's own

const figures: Record<string, unknown> = {};
function record(key: string, value: unknown) {
  figures[key] = value;
  const dir = join(packageRoot(), 'e2e', 'artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'load-figures.json'), JSON.stringify(figures, null, 2) + '\n');
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function withHarness(env: Record<string, string>) {
  const state = { harness: null as unknown as Harness, daemon: null as number | null };
  before(async () => {
    state.harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0', ...env });
  });
  after(async () => {
    state.daemon = await state.harness.daemonPid();
    await state.harness.close();
    assert.deepEqual(await leftovers(state.harness.home, [state.daemon]), [], 'nothing left running');
    rmSync(state.harness.home, { recursive: true, force: true });
  });
  return state;
}

describe('ten MCP clients at once', { skip: SKIP }, () => {
  const state = withHarness({});

  test(`${CLIENTS} clients × ${CALLS} calls across shared and separate sessions: every call answered with its own output; the logs hold exactly the calls made`, { timeout: 600_000 }, async (t) => {
    const { harness } = state;
    const clients: Client[] = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => harness.connect(`load-${i}`)));
    assert.equal((await call(clients[0], 'start_kernel', { session: 'shared' })).isError, undefined);
    for (const [i, client] of clients.entries()) assert.equal((await call(client, 'start_kernel', { session: `own-${i}` })).isError, undefined);
    // One untimed first run per kernel: a fresh IPython's first cell costs it a few hundred ms of
    // CPU, which would otherwise be all the p99 measures. It is in the logs, and counted there.
    const WARM_UP = '# warm-up';
    await Promise.all(['shared', ...clients.map((_, i) => `own-${i}`)].map((session, n) => call(clients[Math.max(0, n - 1)], 'run_python', { session, code: WARM_UP })));

    const latencies: number[] = [];
    const slowest: { call: string; ms: number }[] = [];
    const timed = async (client: Client, args: Record<string, unknown>, label: string) => {
      const started = performance.now();
      const result = await call(client, 'run_python', args);
      const ms = performance.now() - started;
      latencies.push(ms);
      slowest.push({ call: label, ms: Math.round(ms) });
      return result;
    };
    const started = performance.now();
    // Each client runs two lanes at once (its shared-session calls and its own-session calls), so
    // twenty calls are in flight through ten shims and one daemon at any moment.
    await Promise.all(
      clients.flatMap((client, i) => [
        (async () => {
          for (let k = 0; k < CALLS / 2; k++) {
            const result = await timed(client, { session: 'shared', code: `print('c${i} s${k}')` }, `c${i} shared #${k}`);
            // Other clients' cells ran in the shared session meanwhile: a reply may open with the one
            // line that says so (mcp/told-line.ts), naming others only, never this client.
            const [, told, own] = /^(Since your last call, [^\n]*\n)?([\s\S]*)$/.exec(text(result))!;
            if (told) assert.doesNotMatch(told, new RegExp(`\\bload-${i} ran\\b`), 'a client is never told of its own cells');
            assert.equal(own, `c${i} s${k}\n`, 'a shared-session call got exactly its own output');
          }
        })(),
        (async () => {
          for (let k = 0; k < CALLS / 2; k++) {
            // A counter kept in the client's own session: state there is this client's alone.
            const result = await timed(client, { session: `own-${i}`, code: `n = globals().get('n', 0) + 1\nprint('c${i} o${k}', n)` }, `c${i} own #${k}`);
            assert.equal(text(result), `c${i} o${k} ${k + 1}\n`, 'an own-session call got exactly its own output and state');
          }
        })(),
      ]),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const total = CLIENTS * CALLS;
    assert.equal(latencies.length, total, 'every call was answered');

    const log = (session: string) =>
      readFileSync(join(harness.home, 'sessions', session, 'log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { code: string; client: string; status: string });
    const warmUp = log('shared')[0];
    assert.equal(warmUp.code, WARM_UP);
    const shared = log('shared').slice(1);
    assert.equal(shared.length, total / 2);
    const expectedShared = clients.flatMap((_, i) => Array.from({ length: CALLS / 2 }, (_, k) => `load-${i}|print('c${i} s${k}')`)).sort();
    assert.deepEqual(shared.map((e) => `${e.client}|${e.code}`).sort(), expectedShared, 'the shared log holds each call once, under its client');
    for (const [i] of clients.entries()) {
      const [warm, ...own] = log(`own-${i}`);
      assert.equal(warm.code, WARM_UP);
      assert.deepEqual(
        own.map((e) => `${e.client}|${e.code}`),
        Array.from({ length: CALLS / 2 }, (_, k) => `load-${i}|n = globals().get('n', 0) + 1\nprint('c${i} o${k}', n)`),
        `own-${i}: exactly its client's calls, in order`,
      );
    }
    assert.ok([...log('shared'), ...clients.flatMap((_, i) => log(`own-${i}`))].every((e) => e.status === 'ok'));

    const daemon = (await harness.daemonPid())!;
    const load = {
      clients: CLIENTS,
      calls: total,
      seconds: Number(seconds.toFixed(2)),
      callsPerSecond: Number((total / seconds).toFixed(1)),
      p50Ms: Number(percentile(latencies, 50).toFixed(1)),
      p99Ms: Number(percentile(latencies, 99).toFixed(1)),
      maxMs: Number(latencies.at(-1)!.toFixed(1)),
      daemonPeakRssMb: Number((memoryOf(daemon).peak / MB).toFixed(0)),
      slowest: slowest.sort((a, b) => b.ms - a.ms).slice(0, 12),
    };
    record('load', load);
    t.diagnostic(`load: ${JSON.stringify(load)}`);
  });
});

describe('outputs far past the reply limit', { skip: SKIP }, () => {
  const state = withHarness({ PYTHON_MCP_OUTPUT_LIMIT: '20000' });
  let client: Client;
  let daemon: number;
  const run = (code: string) => call(client, 'run_python', { code }, { timeout: 300_000 });

  /** Runs `code` and reports how much the daemon's resident memory peaked above where it was. */
  async function measured(code: string) {
    const before = memoryOf(daemon);
    // Reset the peak (VmHWM) so it measures this run alone; where the kernel forbids it, the
    // peak so far only makes the figure larger, never the test weaker.
    try {
      writeFileSync(`/proc/${daemon}/clear_refs`, '5');
    } catch {
      /* kept as is */
    }
    const result = await run(code);
    const after = memoryOf(daemon);
    return { result, growth: after.peak - before.rss, peak: after.peak };
  }

  before(async () => {
    client = await state.harness.connect('big-output');
    await run('import sys');
    daemon = (await state.harness.daemonPid())!;
  });

  test('50 MB of output: the client gets the capped reply, the file has all of it, the daemon’s memory does not follow the size', { timeout: 300_000 }, async (t) => {
    const fifty = await measured('for i in range(50):\n    sys.stdout.write("x" * (1024 * 1024 - 1) + "\\n")');
    const reply = text(fifty.result);
    assert.equal(fifty.result.isError, undefined);
    assert.ok(reply.length < 21_000, `reply of ${reply.length} characters`);
    assert.match(reply, /characters of output left out; the whole output is in /);
    assert.equal(statSync(fifty.result.facts?.full_output_path as string).size, 50 * MB);

    // One write of 50 MB (not fifty of 1 MB): the kernel may not send it as one message either.
    const single = await measured('sys.stdout.write("y" * (50 * 1024 * 1024))');
    assert.ok(text(single.result).length < 21_000);
    assert.equal(statSync(single.result.facts?.full_output_path as string).size, 50 * MB);

    // Three times as much output must not take three times the memory.
    const triple = await measured('for i in range(150):\n    sys.stdout.write("z" * (1024 * 1024 - 1) + "\\n")');
    assert.equal(statSync(triple.result.facts?.full_output_path as string).size, 150 * MB);
    const figures = { growth50MbMb: Math.round(fifty.growth / MB), growthSingle50MbWriteMb: Math.round(single.growth / MB), growth150MbMb: Math.round(triple.growth / MB), peakMb: Math.round(Math.max(fifty.peak, single.peak, triple.peak) / MB) };
    record('bigOutput', figures);
    t.diagnostic(`50 MB output: ${JSON.stringify(figures)}`);
    assert.ok(fifty.growth < 200 * MB, `50 MB of output took ${Math.round(fifty.growth / MB)} MB of the daemon's memory`);
    assert.ok(single.growth < 250 * MB, `one 50 MB write took ${Math.round(single.growth / MB)} MB`);
    // Before the fixes this was about 590 MB (memory followed the output, ~4 bytes per byte printed).
    assert.ok(triple.growth < 250 * MB, `150 MB took ${Math.round(triple.growth / MB)} MB against ${Math.round(fifty.growth / MB)} MB for 50 MB: memory follows the output`);
    assert.equal(text(await run('6 * 7')), '42\n');
  });

  test('a million short lines: the capped reply, every line in the file, bounded memory', { timeout: 300_000 }, async (t) => {
    const started = Date.now();
    const lines = await measured('for i in range(1_000_000): print(i)');
    const seconds = (Date.now() - started) / 1000;
    const reply = text(lines.result);
    assert.ok(reply.startsWith('0\n1\n2\n'));
    assert.ok(reply.endsWith('999998\n999999\n'));
    assert.ok(reply.length < 21_000);
    const file = readFileSync(lines.result.facts?.full_output_path as string, 'utf8');
    assert.equal(file.split('\n').length - 1, 1_000_000);
    const figures = { seconds: Number(seconds.toFixed(1)), growthMb: Math.round(lines.growth / MB), peakMb: Math.round(lines.peak / MB) };
    record('millionLines', figures);
    t.diagnostic(`1M lines: ${JSON.stringify(figures)}`);
    assert.ok(lines.growth < 200 * MB, `a million lines took ${Math.round(lines.growth / MB)} MB of the daemon's memory`);
  });
});
