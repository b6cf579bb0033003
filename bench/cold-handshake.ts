/**
 * How soon a client starting the shim with no daemon running has its answers to `initialize`
 * and `tools/list` (Codex builds a turn without a server's tools after about a second). In one
 * state folder where a daemon has run before, alternating between the shim answering from the
 * answers that daemon wrote (mcp-answers.json) and the same folder with that file removed, so
 * the shim waits for the daemon it starts. The daemon is stopped after every run.
 *
 * `node dist/bench/cold-handshake.js [runs] [python]`; writes bench/results/cold-handshake.json.
 */
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { daemonFiles } from '../app/core/daemon/state-paths.js';
import { writeBenchResult } from './results-file.js';
import { ms, spread } from './stats.js';

const CLI = fileURLToPath(new URL('../app/cli/main.js', import.meta.url));

interface Handshake {
  initialize: number;
  tools: number;
}

/** Spawns the shim, sends initialize, initialized and tools/list; times both answers. */
function handshake(env: NodeJS.ProcessEnv): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const shim = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    const times: Partial<Handshake> = {};
    let pending = '';
    const send = (message: object) => shim.stdin.write(JSON.stringify(message) + '\n');
    shim.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (message.id === 0) {
          times.initialize = ms(started);
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
        } else if (message.id === 1) {
          times.tools = ms(started);
          if (!message.result?.tools?.length) reject(new Error(`tools/list came back empty: ${line.slice(0, 300)}`));
          shim.stdin.end();
        }
      }
    });
    shim.once('exit', () => (times.tools === undefined ? reject(new Error('the shim exited before answering')) : resolve(times as Handshake)));
    send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-cold-handshake', version: '1' } } });
  });
}

export interface ColdHandshakeBench {
  runs: number;
  with_answers: Handshake[];
  without_answers: Handshake[];
}

export async function runColdHandshakeBench(python: string, runs = 5): Promise<ColdHandshakeBench> {
  const root = mkdtempSync(join(tmpdir(), 'ps-bench-handshake-'));
  const state = join(root, 'state');
  const env = { ...process.env, PYTHON_MCP_HOME: state, PYTHON_MCP_INTERPRETER: python };
  const files = daemonFiles(state);
  // The shim may answer from the file and exit before the daemon it started is up: wait for that
  // daemon to say where it is, or `stop` finds nothing and it outlives the benchmark.
  const stop = async () => {
    const until = Date.now() + 30_000;
    while (!existsSync(files.info) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    execFileSync(process.execPath, [CLI, 'stop'], { env, stdio: 'ignore' });
  };
  const out: ColdHandshakeBench = { runs, with_answers: [], without_answers: [] };
  try {
    await handshake(env); // the first daemon writes the answers, and warms the file caches for both sides
    await stop();
    const kept = join(root, 'answers.json');
    copyFileSync(files.answers, kept);
    for (let i = 0; i < runs; i++) {
      for (const withAnswers of i % 2 ? [false, true] : [true, false]) {
        if (withAnswers) copyFileSync(kept, files.answers);
        else rmSync(files.answers, { force: true });
        (withAnswers ? out.with_answers : out.without_answers).push(await handshake(env));
        await stop();
      }
    }
  } finally {
    execFileSync(process.execPath, [CLI, 'stop'], { env, stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  }
  return out;
}

export function coldHandshakeTable(b: ColdHandshakeBench): string {
  const col = (rows: Handshake[], k: keyof Handshake) => spread(rows.map((r) => r[k]), 0);
  return [
    `| shim spawned, no daemon running → answer (ms, median (p10–p90), ${b.runs} runs each) | from the daemon's answers file | waiting for the daemon it starts |`,
    '| --- | --- | --- |',
    `| initialize | ${col(b.with_answers, 'initialize')} | ${col(b.without_answers, 'initialize')} |`,
    `| tools/list | ${col(b.with_answers, 'tools')} | ${col(b.without_answers, 'tools')} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runColdHandshakeBench(process.argv[3] || process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', Number(process.argv[2] ?? 5));
  console.log(coldHandshakeTable(result));
  writeBenchResult('cold-handshake', { date: new Date().toISOString(), ...result });
}
