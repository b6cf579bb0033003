/**
 * The soak (issue 24): N mixed calls through ONE shim — the built command over stdio, one MCP
 * client — against one daemon and its default session's kernel. The mix: runs that print, that
 * end in a value, that fail; `list_names`; `get_value`; a figure now and then; a long run that
 * comes back at `wait_s` and is picked up with `wait_for_run`; a runaway loop stopped with
 * `interrupt_kernel`. Every few thousand calls it prints the daemon's and the kernel's resident
 * memory; at the end it checks that every run is in the session log exactly once, and that the
 * daemon stands within +50 MB of where it stood after its first 2 000 calls.
 *
 *   node dist/bench/soak.js [calls] [--minutes M] [--every K]     (or: npm run bench -- soak …)
 *
 * Bounded in count and in time (default 60 minutes: it stops early and says so); loopback only
 * (a private state folder, the shim's own socket). Exit 1 when a check fails. The table and the
 * figures go to stdout and to bench/results/soak.json.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FACTS_KEY } from '../app/core/tools/tool-context.js';
import { memoryOf } from './mcp-path.js';
import { writeBenchResult } from './results-file.js';
import { quantile } from './stats.js';

const CLI = fileURLToPath(new URL('../app/cli/main.js', import.meta.url));
const MB = 1024 * 1024;
/** The daemon's allowance over its size after the first BASELINE_CALLS calls (issue 24). */
const BASELINE_CALLS = 2000;
const ALLOWANCE_MB = 50;

type Result = { content: { type: string; text?: string; mimeType?: string }[]; structuredContent?: Record<string, any>; _meta?: Record<string, any>; isError?: boolean };

interface Options {
  calls: number;
  minutes: number;
  every: number;
  python: string;
}

function parseOptions(argv: string[]): Options {
  const options: Options = { calls: 10_000, minutes: 60, every: 5000, python: process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--minutes') options.minutes = Number(argv[++i]);
    else if (arg === '--every') options.every = Number(argv[++i]);
    else if (/^\d+$/.test(arg)) options.calls = Number(arg);
    else if (arg !== 'soak') throw new Error(`soak: unknown argument ${arg} (usage: soak [calls] [--minutes M] [--every K])`);
  }
  if (!(options.calls > 0 && options.minutes > 0 && options.every > 0)) throw new Error('soak: calls, --minutes and --every must be positive numbers');
  return options;
}

const textOf = (result: Result) =>
  result.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');

export interface SoakSample {
  calls: number;
  seconds: number;
  daemon_rss_mb: number;
  kernel_rss_mb: number;
  /** Latency of the calls since the previous sample. */
  p50_ms: number;
  p99_ms: number;
}

export async function runSoak(options: Options): Promise<{ ok: boolean; report: string }> {
  const home = mkdtempSync(join(tmpdir(), 'ps-soak-'));
  const env = { ...(process.env as Record<string, string>), PYTHON_MCP_HOME: home, PYTHON_MCP_INTERPRETER: options.python };
  const client = new Client({ name: 'soak', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env, stderr: 'inherit' }));
  const deadline = Date.now() + options.minutes * 60_000;
  const problems: string[] = [];
  /** Every run_python code sent, each unique: what the log must hold once each. */
  const runsSent: string[] = [];
  let calls = 0;
  let window: number[] = [];

  const tool = async (name: string, args: Record<string, unknown>): Promise<Result> => {
    const started = performance.now();
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as Result;
    window.push(performance.now() - started);
    calls++;
    return result;
  };
  const run = (code: string, extra: Record<string, unknown> = {}) => {
    runsSent.push(code);
    return tool('run_python', { code, ...extra });
  };
  const expect = (what: string, ok: boolean, result: Result) => {
    if (!ok && problems.length < 20) problems.push(`call ${calls} (${what}): ${JSON.stringify(textOf(result)).slice(0, 300)}`);
  };

  const started = performance.now();
  const daemonPid = (): number => JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')).pid;
  const kernelPid = async (): Promise<number> => ((await client.callTool({ name: 'kernel_status', arguments: {} })) as Result)._meta?.[FACTS_KEY]?.pid;
  const samples: SoakSample[] = [];
  const sample = async () => {
    const kernel = await kernelPid();
    window.sort((a, b) => a - b);
    samples.push({
      calls,
      seconds: Math.round((performance.now() - started) / 1000),
      daemon_rss_mb: Number((memoryOf(daemonPid()).rss / MB).toFixed(1)),
      kernel_rss_mb: Number((memoryOf(kernel).rss / MB).toFixed(1)),
      p50_ms: Number(quantile(window, 0.5).toFixed(1)),
      p99_ms: Number(quantile(window, 0.99).toFixed(1)),
    });
    window = [];
    const s = samples.at(-1)!;
    process.stdout.write(`| ${s.calls} | ${s.seconds} | ${s.daemon_rss_mb} | ${s.kernel_rss_mb} | ${s.p50_ms} | ${s.p99_ms} |\n`);
  };

  process.stdout.write(
    `soak: ${options.calls} calls through one shim (at most ${options.minutes} min), Node ${process.version}, Python ${options.python}, state ${home}\n\n` +
      '| calls | s | daemon RSS (MB) | kernel RSS (MB) | p50 (ms) | p99 (ms) |\n| --- | --- | --- | --- | --- | --- |\n',
  );
  // The kernel's own matplotlib backend, as a user's session has it (a forced "agg" keeps every
  // figure open, and the kernel's memory would measure that instead).
  await run('import matplotlib.pyplot as plt\nimport time\nx = 0  # soak setup');
  let stoppedEarly = false;
  let nextSample = options.every;
  let baselineTaken = false;
  for (let i = 0; calls < options.calls; i++) {
    if (Date.now() > deadline) {
      stoppedEarly = true;
      break;
    }
    const tag = `# soak ${i}`;
    if (i % 1000 === 500) {
      // A long run: back at wait_s while it goes on, then picked up with wait_for_run.
      const first = await run(`print('long ${i} start', flush=True)\ntime.sleep(1.2)\nprint('long ${i} end')  ${tag}`, { wait_s: 0.3 });
      expect('long run comes back running', /Still running/.test(textOf(first)), first);
      const rest = await tool('wait_for_run', { wait_s: 30 });
      expect('wait_for_run picks it up', textOf(rest).includes(`long ${i} end`), rest);
    } else if (i % 1000 === 999) {
      // A runaway loop, stopped by interrupt_kernel; its end read with wait_for_run.
      const first = await run(`print('loop ${i}', flush=True)\nwhile True:\n    time.sleep(0.01)  ${tag}`, { wait_s: 0.3 });
      expect('loop comes back running', /Still running/.test(textOf(first)), first);
      const stop = await tool('interrupt_kernel', {});
      expect('interrupt', /Interrupted/.test(textOf(stop)), stop);
      const end = await tool('wait_for_run', { wait_s: 30 });
      expect('the loop ended in KeyboardInterrupt', /KeyboardInterrupt/.test(textOf(end)), end);
    } else if (i % 250 === 125) {
      const figure = await run(`plt.figure(figsize=(3, 2))\nplt.plot([${i % 7}, 2, 1])\nplt.show()  ${tag}`);
      expect('figure', figure.content.some((c) => c.type === 'image'), figure);
    } else {
      switch (i % 8) {
        case 0: {
          const r = await run(`print('p', ${i})  ${tag}`);
          expect('print', textOf(r) === `p ${i}\n`, r);
          break;
        }
        case 1: {
          const r = await run(`x = ${i}\nx * 2  ${tag}`);
          expect('value', textOf(r).includes(String(i * 2)), r);
          break;
        }
        case 2: {
          const r = await run(`raise ValueError('soak ${i}')  ${tag}`);
          expect('error', !!r.isError || /ValueError/.test(textOf(r)), r);
          break;
        }
        case 3: {
          const r = await tool('list_names', {});
          expect('list_names', /\bx\b/.test(textOf(r)), r);
          break;
        }
        case 4: {
          const r = await tool('get_value', { expression: 'x' });
          expect('get_value', typeof r.structuredContent?.value === 'number', r);
          break;
        }
        case 5: {
          const r = await run(`for k in range(3): print('line', k, ${i})  ${tag}`);
          expect('three lines', textOf(r).split('\n').length === 4, r);
          break;
        }
        case 6: {
          const r = await run(`y = [k * k for k in range(100)]\nsum(y) + ${i}  ${tag}`);
          expect('sum', textOf(r).includes(String(328350 + i)), r);
          break;
        }
        default: {
          const r = await run(`undefined_name_${i % 5}  ${tag}`);
          expect('NameError', /NameError/.test(textOf(r)), r);
        }
      }
    }
    if (!baselineTaken && calls >= BASELINE_CALLS) {
      baselineTaken = true;
      await sample();
    } else if (calls >= nextSample) {
      await sample();
    }
    while (nextSample <= calls) nextSample += options.every;
  }
  if (samples.at(-1)?.calls !== calls) await sample();
  // What the kernel holds that grows with every cell (IPython's own bookkeeping): the figures
  // left open and the names in its namespace (IPython adds `_i<N>` for every cell).
  const held = await client.callTool({ name: 'get_value', arguments: { expression: '[len(plt.get_fignums()), len(get_ipython().user_ns)]' } }, undefined, { timeout: 120_000 });
  const [openFigures, namespaceSize] = ((held as Result).structuredContent?.value as [number, number] | undefined) ?? [NaN, NaN];

  // Every run in the log exactly once (the log is appended before each reply leaves).
  const entries = readFileSync(join(home, 'sessions', 'default', 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind?: string; code: string });
  const runCodes = entries.filter((e) => e.kind !== 'tool').map((e) => e.code);
  const counts = new Map<string, number>();
  for (const code of runCodes) counts.set(code, (counts.get(code) ?? 0) + 1);
  const missing = runsSent.filter((code) => !counts.has(code));
  const twice = [...counts].filter(([, n]) => n > 1).map(([code]) => code);
  const sent = new Set(runsSent);
  const unexpected = runCodes.filter((code) => !sent.has(code));
  const logOk = missing.length === 0 && twice.length === 0 && unexpected.length === 0;

  const baseline = samples.find((s) => s.calls >= BASELINE_CALLS);
  const last = samples.at(-1)!;
  const growth = baseline ? last.daemon_rss_mb - baseline.daemon_rss_mb : null;
  const memoryOk = growth === null || growth <= ALLOWANCE_MB;
  const seconds = (performance.now() - started) / 1000;

  await client.close();
  try {
    execFileSync(process.execPath, [CLI, 'stop'], { env, stdio: 'ignore', timeout: 60_000 });
  } catch {
    /* the daemon may already be gone; the state folder goes anyway */
  }
  rmSync(home, { recursive: true, force: true });

  const lines = [
    '',
    `${calls} calls (${runsSent.length} runs) in ${seconds.toFixed(0)} s, ${(calls / seconds).toFixed(0)} calls/s${stoppedEarly ? `; stopped at the ${options.minutes}-minute limit before ${options.calls}` : ''}.`,
    `log: ${runCodes.length} run entries; ${logOk ? 'every run exactly once' : `${missing.length} missing, ${twice.length} more than once, ${unexpected.length} not sent`}.`,
    baseline
      ? `daemon: ${baseline.daemon_rss_mb} MB after ${baseline.calls} calls → ${last.daemon_rss_mb} MB after ${last.calls} (${growth! >= 0 ? '+' : ''}${growth!.toFixed(1)} MB; allowance +${ALLOWANCE_MB} MB): ${memoryOk ? 'ok' : 'OVER'}.`
      : `daemon: fewer than ${BASELINE_CALLS} calls, no growth check.`,
    `kernel: ${samples[0].kernel_rss_mb} → ${last.kernel_rss_mb} MB; ${openFigures} figures open, ${namespaceSize} names in its namespace.`,
    ...(problems.length ? ['wrong answers:', ...problems.map((p) => `  ${p}`)] : ['every answer was the expected one.']),
  ];
  const ok = logOk && memoryOk && problems.length === 0;
  writeBenchResult('soak', { date: new Date().toISOString(), node: process.version, python: options.python, calls, runs: runsSent.length, seconds, stopped_early: stoppedEarly, samples, log_ok: logOk, missing: missing.slice(0, 5), twice: twice.slice(0, 5), unexpected: unexpected.slice(0, 5), daemon_growth_mb: growth, open_figures: openFigures, namespace_size: namespaceSize, problems, ok });
  return { ok, report: lines.join('\n') };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ok, report } = await runSoak(parseOptions(process.argv.slice(2)));
  console.log(report);
  process.exit(ok ? 0 : 1);
}

export { parseOptions as parseSoakOptions };
