/**
 * How soon a client starting the shim with no daemon running has its first answer and its
 * tools (Codex builds a turn without a server's tools after about a second), for both revisions
 * a client may open with:
 *
 * - the handshake: `initialize`, then `tools/list`;
 * - 2026-07-28: `server/discover`, then `tools/list` (as Claude Code 2.1.332 and Codex with
 *   mcp_2026_07_28 do). A build that refuses it (Method not found) is timed as Claude Code
 *   meets it: it then falls back to `initialize`.
 *
 * In one state folder where a daemon has run before, alternating between the shim answering
 * from that daemon's file (mcp-answers.json) and the same folder without it (this build then
 * answers from the package's own answers; a build before them waits for the daemon it starts).
 * The daemon is stopped after every run. With `--baseline <main.js>` (another build's command,
 * say the previous commit's) both builds run in the same loop, so their figures sit side by side.
 *
 * `node dist/bench/cold-handshake.js [runs] [python] [--baseline <main.js>]`; writes
 * bench/results/cold-handshake.json.
 */
import { spawn, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnBackgroundDaemon } from '../app/cli/daemon-link.js';
import { daemonFiles } from '../app/core/daemon/state-paths.js';
import { writeBenchResult } from './results-file.js';
import { startedDaemons, stopStartedDaemons } from './shim-daemons.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { ms, spread } from './stats.js';

const CLI = fileURLToPath(new URL('../app/cli/main.js', import.meta.url));
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench-cold-handshake', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Revision = 'handshake' | 'discover';

interface Handshake {
  /** Milliseconds from spawn to the first successful answer (initialize's, or server/discover's). */
  first: number;
  tools: number;
  /** server/discover was refused and the client fell back to initialize. */
  fellBack: boolean;
}

/** A handshake's times, and the daemons its shim started (stopped after the run, not timed). */
interface Handshaken {
  times: Handshake;
  daemons: number[];
}

/** Spawns the shim and opens the session as a client of `revision` does; times the answers. */
function handshake(cli: string, env: NodeJS.ProcessEnv, revision: Revision): Promise<Handshaken> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const shim = spawn(process.execPath, [cli], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const daemons = startedDaemons(shim.stderr);
    const times: Partial<Handshake> = { fellBack: false };
    let pending = '';
    const send = (message: object) => shim.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
    const initialize = () => send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-cold-handshake', version: '1' } } });
    const listTools = (stateless: boolean) => send({ id: 1, method: 'tools/list', params: stateless ? { _meta: META } : {} });
    shim.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line) as { id?: number | string; result?: { tools?: unknown[] }; error?: { code: number } };
        if (message.id === 'discover') {
          if (message.error) {
            times.fellBack = true; // as Claude Code does with a server that does not know the method
            initialize();
          } else {
            times.first = ms(started);
            listTools(true);
          }
        } else if (message.id === 0) {
          times.first = ms(started);
          send({ method: 'notifications/initialized' });
          listTools(false);
        } else if (message.id === 1) {
          times.tools = ms(started);
          if (!message.result?.tools?.length) reject(new Error(`tools/list came back empty: ${line.slice(0, 300)}`));
          shim.stdin.end();
        }
      }
    });
    shim.once('close', () => (times.tools === undefined ? reject(new Error('the shim exited before answering')) : daemons.then((pids) => resolve({ times: times as Handshake, daemons: pids }), reject)));
    if (revision === 'discover') send({ id: 'discover', method: 'server/discover', params: { _meta: META } });
    else initialize();
  });
}

type Condition = 'state_file' | 'no_state_file';
const CONDITIONS: Condition[] = ['state_file', 'no_state_file'];
const REVISIONS: Revision[] = ['handshake', 'discover'];

export interface ColdHandshakeBench {
  runs: number;
  /** build ("this" or "baseline") → condition → revision → runs */
  builds: Record<string, Record<Condition, Record<Revision, Handshake[]>>>;
}

async function benchBuild(cli: string, python: string, runs: number, into: Record<Condition, Record<Revision, Handshake[]>>, order: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'ps-bench-handshake-'));
  const state = join(root, 'state');
  const env = { ...process.env, PYTHON_MCP_HOME: state, PYTHON_MCP_INTERPRETER: python };
  const files = daemonFiles(state);
  // The shim answers from its answers and may exit before the daemon it started is up, or before
  // it started one: stop what it says it started, once that is up (bench/shim-daemons.ts).
  const stop = (run: Handshaken) => stopStartedDaemons(cli, env, files.info, run.daemons);
  try {
    // The first daemon writes its answers (once it is up, after its daemon.json), and warms the
    // file caches for both sides.
    // A client that left before its shim started a daemon (rare) gets one started as the shim would.
    const first = await handshake(cli, env, 'handshake');
    const daemons = first.daemons.length ? first.daemons : [(await spawnBackgroundDaemon({ entry: cli, stateDir: state, logPath: files.log, env })).pid as number];
    await waitFor(`the daemon to write ${files.answers}`, () => existsSync(files.answers), { timeoutMs: 60_000, stepMs: 20 });
    await stop({ ...first, daemons });
    const kept = join(root, 'answers.json');
    copyFileSync(files.answers, kept);
    for (let i = 0; i < runs; i++) {
      const conditions = (i + order) % 2 ? [...CONDITIONS].reverse() : CONDITIONS;
      for (const condition of conditions) {
        for (const revision of i % 2 ? [...REVISIONS].reverse() : REVISIONS) {
          if (condition === 'state_file') copyFileSync(kept, files.answers);
          else rmSync(files.answers, { force: true });
          const run = await handshake(cli, env, revision);
          into[condition][revision].push(run.times);
          await stop(run);
        }
      }
    }
  } finally {
    execFileSync(process.execPath, [cli, 'stop'], { env, stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  }
}

export async function runColdHandshakeBench(python: string, runs = 5, baseline?: string): Promise<ColdHandshakeBench> {
  const builds: Record<string, string> = { this: CLI, ...(baseline ? { baseline } : {}) };
  const out: ColdHandshakeBench = { runs, builds: {} };
  for (const name of Object.keys(builds)) out.builds[name] = { state_file: { handshake: [], discover: [] }, no_state_file: { handshake: [], discover: [] } };
  // Interleaved a run at a time, so both builds meet the same machine load.
  for (let i = 0; i < runs; i++) {
    for (const [index, [name, cli]] of Object.entries(builds).entries()) await benchBuild(cli, python, 1, out.builds[name], i + index);
  }
  return out;
}

export function coldHandshakeTable(b: ColdHandshakeBench): string {
  const col = (rows: Handshake[], k: 'first' | 'tools') => spread(rows.map((r) => r[k]), 0) + (rows.some((r) => r.fellBack) ? ' (discover refused, then initialize)' : '');
  const lines = [
    `| shim spawned, no daemon running → answer (ms, median (p10–p90), ${b.runs} runs each) | build | from the state folder's answers file | without that file |`,
    '| --- | --- | --- | --- |',
  ];
  for (const [name, build] of Object.entries(b.builds)) {
    lines.push(`| initialize | ${name} | ${col(build.state_file.handshake, 'first')} | ${col(build.no_state_file.handshake, 'first')} |`);
    lines.push(`| tools/list after initialize | ${name} | ${col(build.state_file.handshake, 'tools')} | ${col(build.no_state_file.handshake, 'tools')} |`);
    lines.push(`| server/discover | ${name} | ${col(build.state_file.discover, 'first')} | ${col(build.no_state_file.discover, 'first')} |`);
    lines.push(`| tools/list after server/discover | ${name} | ${col(build.state_file.discover, 'tools')} | ${col(build.no_state_file.discover, 'tools')} |`);
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--baseline');
  const baseline = at >= 0 ? args.splice(at, 2)[1] : undefined;
  const result = await runColdHandshakeBench(args[1] || process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3', Number(args[0] ?? 5), baseline);
  console.log(coldHandshakeTable(result));
  writeBenchResult('cold-handshake', { date: new Date().toISOString(), ...result });
}
