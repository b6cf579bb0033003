/**
 * Runs one scripted client session (scripted-session.ts) from a test: a temporary folder for the
 * client's home, the Python Session state and the project, the session program started inside
 * `unshare -rn` where that works, and afterwards what the model read, what the client printed,
 * and any process of the session still alive (killed, and reported so a test can fail on it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { daemonFiles } from '../../app/core/daemon/state-paths.js';
import { TEST_PYTHON, processesMatching, processesWithEnv } from '../../app/core/testing/test-python.js';
import { waitFor } from '../../app/core/testing/wait-for.js';
import { CLI } from '../support/mcp-harness.js';
import type { ForwardedResult, RecordLine, Step } from './model-script.js';
import { loopbackNamespaceWorks } from './network-namespace.js';
import type { SessionSpec } from './session-spec.js';

const SESSION_PROGRAM = fileURLToPath(new URL('./scripted-session.js', import.meta.url));
const WIRE_TEE = fileURLToPath(new URL('./wire-tee.js', import.meta.url));

/** The folders of one run; the client's configuration is written into them before it starts. */
export interface RunFolders {
  root: string;
  /** HOME of the client. */
  home: string;
  /** PYTHON_MCP_HOME of the MCP server and its daemon. */
  state: string;
  /** The client's working folder (the project). */
  project: string;
}

export interface ClientRun {
  folders: RunFolders;
  /** Whether the client ran in a network namespace with loopback only. */
  isolated: boolean;
  /** What the model read, in step order (steps whose result never came back are missing). */
  results: ForwardedResult[];
  lines: RecordLine[];
  exit: Extract<RecordLine, { kind: 'client-exit' }> | undefined;
  stdout: string;
  stderr: string;
  /** Processes of the run's daemon (itself, kernels, their children) alive after it was stopped; killed since. */
  leftovers: number[];
  /** The result of script step `index`; throws with the client's output when it is missing. */
  result(index: number): ForwardedResult;
  /** What the client and the MCP server said to each other, where the server ran through wire-tee.ts. */
  wire: WireLine[];
}

export function makeFolders(prefix: string): RunFolders {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const folders = { root, home: join(root, 'home'), state: join(root, 'state'), project: join(root, 'project') };
  for (const dir of [folders.home, folders.state, folders.project]) mkdirSync(dir, { recursive: true });
  return folders;
}

/** The environment of the MCP server (and so of the daemon it starts). */
export function serverEnv(folders: RunFolders): Record<string, string> {
  return { PYTHON_MCP_HOME: folders.state, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: folders.home };
}

export const SERVER_COMMAND = { command: process.execPath, args: [CLI] };

/** One JSON-RPC message between the client and the MCP server, as wire-tee.ts logged it. */
export interface WireLine {
  from: 'client' | 'server';
  message: { id?: string | number; method?: string; params?: Record<string, any>; result?: Record<string, any>; error?: { code: number; message: string } };
}

/** Where a run's wire log is. */
export const wireLog = (folders: RunFolders) => join(folders.root, 'mcp-wire.jsonl');

/** `command` and `args` of an MCP server entry, run through wire-tee.ts into the run's wire log. */
export function teed(command: { command: string; args: string[] }, folders: RunFolders): { command: string; args: string[] } {
  return { command: process.execPath, args: [WIRE_TEE, wireLog(folders), command.command, ...command.args] };
}

export interface ScriptedRunOptions {
  api: SessionSpec['api'];
  script: Step[];
  folders: RunFolders;
  files?: SessionSpec['files'];
  command: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs?: number;
}

export async function runScripted(options: ScriptedRunOptions): Promise<ClientRun> {
  const { folders } = options;
  const isolated = loopbackNamespaceWorks();
  const spec: SessionSpec = {
    api: options.api,
    script: options.script,
    recordingPath: join(folders.root, 'recording.jsonl'),
    loopbackUp: isolated,
    files: options.files ?? [],
    client: {
      command: options.command,
      args: options.args,
      env: options.env,
      cwd: folders.project,
      stdoutPath: join(folders.root, 'client.stdout'),
      stderrPath: join(folders.root, 'client.stderr'),
      timeoutMs: options.timeoutMs ?? 120_000,
    },
    cleanup: { ...SERVER_COMMAND, args: [...SERVER_COMMAND.args, 'stop'], env: serverEnv(folders) },
  };
  const specPath = join(folders.root, 'spec.json');
  writeFileSync(specPath, JSON.stringify(spec));
  const [command, args] = isolated ? ['unshare', ['-rn', process.execPath, SESSION_PROGRAM, specPath]] : [process.execPath, [SESSION_PROGRAM, specPath]];
  // Its stdout stays out of the test's (node --test reads that as the test report).
  const session = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let sessionErr = '';
  session.stderr.on('data', (chunk: Buffer) => (sessionErr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => session.on('exit', resolve));
  if (code !== 0) throw new Error(`the scripted session failed (exit ${code}): ${sessionErr}`);

  // The session stopped the daemon from inside; stopping again from here is harmless and covers a
  // session that died before it could.
  spawnSync(SERVER_COMMAND.command, [...SERVER_COMMAND.args, 'stop'], { env: serverEnv(folders), stdio: 'ignore', timeout: 30_000 });
  const leftovers = await stillRunning(folders.state, 10_000);
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }

  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  const lines = read(spec.recordingPath)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordLine);
  const results = lines.flatMap((l) => (l.kind === 'result' ? [l.result] : [])).sort((a, b) => a.step - b.step);
  const wire = read(wireLog(folders))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WireLine);
  const stdout = read(spec.client.stdoutPath);
  const stderr = read(spec.client.stderrPath);
  const exit = lines.find((l): l is Extract<RecordLine, { kind: 'client-exit' }> => l.kind === 'client-exit');
  return {
    folders,
    isolated,
    results,
    lines,
    exit,
    stdout,
    stderr,
    leftovers,
    wire,
    result(index: number) {
      const found = results.find((r) => r.step === index);
      if (found) return found;
      const notes = lines.filter((l) => l.kind === 'note' || l.kind === 'client-exit').map((l) => JSON.stringify(l));
      throw new Error(`step ${index} (${JSON.stringify(options.script[index])}) never came back to the model.\n${notes.join('\n')}\nclient stdout (tail): ${stdout.slice(-3000)}\nclient stderr (tail): ${stderr.slice(-2000)}`);
    },
  };
}

/**
 * Processes of a run (naming its state folder, or started with it as PYTHON_MCP_HOME, which the
 * daemon's kernels and their children inherit) once none are left or `timeoutMs` has passed.
 */
async function stillRunning(folder: string, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = [...new Set([...processesMatching(folder), ...processesWithEnv('PYTHON_MCP_HOME', folder)])];
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Removes a run's folders (after the test read what it needed). */
export function removeFolders(folders: RunFolders): void {
  rmSync(folders.root, { recursive: true, force: true });
}
