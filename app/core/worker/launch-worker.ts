/**
 * Starting a built-in worker: a loopback listener with a fresh random key, the process in its
 * own group (KernelProcess), the start line on its stdin (the port and the key: argv and the
 * environment are readable by other users, a pipe is not), then its signed hello and the
 * readiness handshake. Returns the pieces; the provisioner decides what to do with them.
 */
import { join } from 'node:path';
import { newKey } from '../kernel/messaging/connection-info.js';
import { describeExit, KernelProcess } from '../kernel/process/kernel-process.js';
import { KernelStartError } from '../kernel/process/launch.js';
import { silentLogger, type EngineLogger } from '../kernel/logger.js';
import type { KernelInfo } from '../kernel/messaging/transport.js';
import { pythonHelpersDir } from '../package-root.js';
import { TIMED_OUT, upTo } from '../timers.js';
import { WorkerListener, type WorkerTransport } from './worker-transport.js';

export interface WorkerLaunchOptions {
  interpreter: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The worker's own stdout/stderr log file. */
  logPath?: string;
  startTimeoutMs?: number;
  /** Cap on the worker's memory (Linux: RLIMIT_DATA), so runaway allocation is a MemoryError. */
  memoryLimitBytes?: number;
  logger?: EngineLogger;
}

export interface LaunchedWorker {
  process: KernelProcess;
  transport: WorkerTransport;
  kernelInfo: KernelInfo;
}

export function workerScript(): string {
  return join(pythonHelpersDir(), 'worker', 'start.py');
}

/** What resources/python/worker/start.py prints when the Python is too old to run the worker. */
const UNSUPPORTED = /python-session-worker: (unsupported Python .*)/;

export async function launchWorker(options: WorkerLaunchOptions): Promise<LaunchedWorker> {
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const key = newKey();
  const listener = await WorkerListener.open(key, logger);
  const proc = KernelProcess.spawn(options.interpreter, [workerScript()], {
    cwd: options.cwd,
    env: options.env,
    memoryLimitBytes: options.memoryLimitBytes,
    log: { path: options.logPath },
    stdin: 'pipe',
    lifeline: false, // the connection itself is the lifeline
  });
  let spawnError: Error | null = null;
  proc.once('spawn-error', (error: Error) => {
    spawnError = error;
    listener.abort(error);
  });
  proc.child.stdin?.on('error', () => undefined); // a Python that exits at once closes it first
  proc.child.stdin?.end(`${JSON.stringify({ port: listener.port, key })}\n`);
  const exited = proc.waitForExit().then((exit) => listener.abort(new Error(describeExit(exit))));
  let transport: WorkerTransport | null = null;
  try {
    const connected = await upTo(listener.connection(), timeoutMs);
    if (connected === TIMED_OUT) throw new Error(`the worker did not connect within ${Math.round(timeoutMs / 1000)} s`);
    transport = connected;
    const kernelInfo = await transport.waitForReady(timeoutMs, () => (proc.alive ? null : 'the worker exited while starting'));
    return { process: proc, transport, kernelInfo };
  } catch (error) {
    listener.abort(error as Error);
    transport?.close('the worker failed to start');
    const exit = proc.alive ? null : await proc.waitForExit();
    await proc.terminate(500);
    await exited;
    const lastLines = proc.log.lastLines(15);
    const spawned = spawnError as Error | null;
    if (spawned) throw new KernelStartError(`Cannot run ${options.interpreter}: ${spawned.message}`, options.interpreter, lastLines);
    const unsupported = lastLines.map((line) => line.match(UNSUPPORTED)).find(Boolean);
    if (unsupported) throw new KernelStartError(`${unsupported[1].replace(/^unsupported/, 'Unsupported')}`, options.interpreter, lastLines);
    const why = exit ? describeExit(exit) : (error as Error).message;
    throw new KernelStartError(
      `The built-in worker for ${options.interpreter} failed to start: ${why}.${lastLines.length ? `\nIts last output:\n${lastLines.join('\n')}` : ''}`,
      options.interpreter,
      lastLines,
    );
  }
}
