/**
 * Issue #3 benchmark: listing 60 environments from files (listInterpreters) against the naive
 * way (starting every interpreter to ask its version), in one run, with the processes each
 * starts. `node dist/bench/interpreters.js [runs] [python]`; writes bench/results/interpreters.json.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, promises as fsp, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { discoverInterpreters, type DiscoveryOptions } from '../app/core/interpreters/index.js';
import { countSpawns } from '../app/core/interpreters/spawn-counter.js';
import { makeCondaPrefix, makePyenvVersion, makeUvPython, makeVenv, REAL_PYTHON } from '../app/core/interpreters/synthetic-tree.js';
import { median, quantile } from './stats.js';

export interface Timing {
  median_ms: number;
  p10_ms: number;
  p90_ms: number;
  /** Processes started per run. */
  spawns: number;
}

export interface InterpreterBench {
  environments: number;
  found: number;
  runs: number;
  python: string;
  listing: Timing;
  naive_sequential: Timing;
  naive_parallel: Timing & { concurrency: number };
  speedup_vs_sequential: number;
  speedup_vs_parallel: number;
  this_machine: Timing & { found: number };
  node: string;
  platform: string;
  date: string;
}

export interface InterpreterBenchOptions {
  runs?: number;
  python?: string;
  /** Where to write the JSON; null for nowhere. */
  outFile?: string | null;
  log?: (s: string) => void;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const defaultOut = path.join(here, '..', '..', 'bench', 'results', 'interpreters.json');

/** 60 environments: anaconda3 (base + 34 envs), miniforge3 (base + 9), 8 venvs, 4 pyenv, 3 uv. */
async function buildTree(home: string, python: string): Promise<number> {
  const jobs: Array<Promise<void>> = [];
  const ana = path.join(home, 'anaconda3');
  jobs.push(makeCondaPrefix(ana, { python: '3.11.5', base: true, packages: ['ipykernel-6.28.0'], target: python }));
  for (let i = 0; i < 34; i++) {
    jobs.push(makeCondaPrefix(path.join(ana, 'envs', `env${i}`), { python: `3.${8 + (i % 5)}.${i}`, packages: i % 2 ? ['ipykernel-6.29.5'] : [], sitePackages: true, target: python }));
  }
  const mf = path.join(home, 'miniforge3');
  jobs.push(makeCondaPrefix(mf, { python: '3.12.2', base: true, target: python }));
  for (let i = 0; i < 9; i++) jobs.push(makeCondaPrefix(path.join(mf, 'envs', `forge${i}`), { python: `3.12.${i}`, target: python }));
  for (let i = 0; i < 8; i++) {
    jobs.push(makeVenv(path.join(home, '.virtualenvs', `venv${i}`), { cfg: `home = /usr/bin\nversion = 3.11.${i}\n`, target: python, sitePackagesOf: '3.11' }));
  }
  for (const v of ['3.9.18', '3.10.13', '3.11.7', '3.12.1']) {
    jobs.push(makePyenvVersion(path.join(home, '.pyenv', 'versions', v), { patchlevel: v, target: python }));
  }
  for (const v of ['3.11.9', '3.12.4', '3.13.1']) {
    jobs.push(makeUvPython(path.join(home, '.local', 'share', 'uv', 'python', `cpython-${v}-linux-x86_64-gnu`), { target: python }));
  }
  await Promise.all(jobs);
  return jobs.length;
}

function timing(samples: number[], spawnsPerRun: number): Timing {
  const r = (x: number) => Math.round(x * 100) / 100;
  return { median_ms: r(median(samples)), p10_ms: r(quantile(samples, 0.1)), p90_ms: r(quantile(samples, 0.9)), spawns: spawnsPerRun };
}

function askVersion(python: string): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(python, ['-c', 'import sys;print(sys.version)'], (err, stdout) => (err ? reject(err) : resolve(stdout.trim()))),
  );
}

async function timeRuns(runs: number, fn: () => Promise<unknown>): Promise<{ samples: number[]; spawnsPerRun: number }> {
  await fn(); // warm the page cache and the JIT, as a second listing in a daemon would be
  const samples: number[] = [];
  const { spawns } = await countSpawns(async () => {
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await fn();
      samples.push(performance.now() - t);
    }
  });
  return { samples, spawnsPerRun: spawns / runs };
}

export async function runInterpreterBench(opts: InterpreterBenchOptions = {}): Promise<InterpreterBench> {
  const runs = opts.runs ?? 15;
  const python = opts.python ?? REAL_PYTHON;
  const log = opts.log ?? ((s: string) => process.stdout.write(s));
  const tmp = realpathSync(await fsp.mkdtemp(path.join(os.tmpdir(), 'interp-bench-')));
  try {
    const home = path.join(tmp, 'home');
    const environments = await buildTree(home, python);
    const env = { HOME: home, PATH: '' };
    const discovery: DiscoveryOptions = { env, home, systemDirs: [] };

    const first = await discoverInterpreters(discovery);
    const paths = first.interpreters.map((i) => i.path);
    const listing = await timeRuns(runs, () => discoverInterpreters(discovery));

    const naiveRuns = Math.max(1, Math.min(3, runs));
    const sequential = await timeRuns(naiveRuns, async () => {
      for (const p of paths) await askVersion(p);
    });
    const concurrency = Math.max(1, os.cpus().length);
    const parallel = await timeRuns(naiveRuns, async () => {
      const queue = [...paths];
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let p = queue.shift(); p; p = queue.shift()) await askVersion(p);
        }),
      );
    });

    let machineFound = 0;
    const machine = await timeRuns(Math.min(runs, 5), async () => {
      machineFound = (await discoverInterpreters()).interpreters.length;
    });

    const result: InterpreterBench = {
      environments,
      found: first.interpreters.length,
      runs,
      python,
      listing: timing(listing.samples, listing.spawnsPerRun),
      naive_sequential: timing(sequential.samples, sequential.spawnsPerRun),
      naive_parallel: { ...timing(parallel.samples, parallel.spawnsPerRun), concurrency },
      speedup_vs_sequential: Math.round(median(sequential.samples) / median(listing.samples)),
      speedup_vs_parallel: Math.round(median(parallel.samples) / median(listing.samples)),
      this_machine: { ...timing(machine.samples, machine.spawnsPerRun), found: machineFound },
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      date: new Date().toISOString(),
    };
    log(report(result));
    const out = opts.outFile === undefined ? defaultOut : opts.outFile;
    if (out) {
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
      log(`\nwrote ${out}\n`);
    }
    return result;
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}

export function report(r: InterpreterBench): string {
  const t = (x: Timing) => `${x.median_ms.toFixed(2)} ms (${x.p10_ms.toFixed(2)}–${x.p90_ms.toFixed(2)})`;
  const rows: Array<[string, string, string]> = [
    ['method', 'time per listing, median (p10–p90)', 'processes'],
    ['listInterpreters (files only)', t(r.listing), String(r.listing.spawns)],
    ['naive: spawn each, one at a time', t(r.naive_sequential), String(r.naive_sequential.spawns)],
    [`naive: spawn each, ${r.naive_parallel.concurrency} at a time`, t(r.naive_parallel), String(r.naive_parallel.spawns)],
  ];
  const w0 = Math.max(...rows.map((x) => x[0].length));
  const w1 = Math.max(...rows.map((x) => x[1].length));
  const lines = rows.map(([a, b, c]) => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
  return [
    `Interpreter discovery: ${r.environments} synthetic environments (python -> ${r.python}), ${r.found} found, ${r.runs} runs`,
    '',
    ...lines,
    '',
    `listing is ${r.speedup_vs_sequential}x faster than spawning one at a time, ${r.speedup_vs_parallel}x faster than ${r.naive_parallel.concurrency} at a time`,
    `this machine: ${r.this_machine.found} interpreters in ${t(r.this_machine)}, ${r.this_machine.spawns} processes`,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv[2]) || undefined;
  runInterpreterBench({ runs, python: process.argv[3] }).catch((err: Error) => {
    process.stderr.write(`${err.stack ?? err.message}\n`);
    process.exitCode = 1;
  });
}
