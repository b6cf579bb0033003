/**
 * Starting a kernel: free ports, a random key, an owner-only connection file,
 * the process, a client, and the wait until it answers. Returns the pieces; the
 * supervising Kernel decides what to do with them.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newKey, removeConnectionFile, writeConnectionFile, type ConnectionInfo } from '../messaging/connection-info.js';
import { KernelClient, type KernelInfo } from '../messaging/kernel-client.js';
import { KernelProcess, describeExit } from './kernel-process.js';
import { allocatePorts, releasePorts } from './ports.js';

export interface LaunchKernelOptions {
  interpreter: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Folder for connection files (owner-only). */
  runtimeDir?: string;
  /** Kernel stdout/stderr log file. */
  logPath?: string;
  startTimeoutMs?: number;
  extraArgs?: string[];
  /** Cap on the kernel's memory; see kernel_startup.py. */
  memoryLimitBytes?: number;
}

export interface LaunchedKernel {
  process: KernelProcess;
  client: KernelClient;
  connectionFile: string;
  connection: ConnectionInfo;
  kernelInfo: KernelInfo;
}

export class KernelStartError extends Error {
  constructor(
    message: string,
    readonly interpreter: string,
    readonly lastLines: string[] = [],
    readonly missingIpykernel = false,
  ) {
    super(message);
  }
}

export function defaultRuntimeDir(): string {
  const base = process.env.XDG_RUNTIME_DIR || tmpdir();
  return join(base, `python-session-${process.getuid?.() ?? 'user'}`);
}

const MISSING_IPYKERNEL = /No module named ['"]?ipykernel/;
/** The kernel lost one of its ports to another process between our check and its bind. */
const PORT_TAKEN = /Address already in use/;
const PORT_ATTEMPTS = 3;

/**
 * Free ports are only free until someone binds them: between our check and the kernel's bind,
 * another process's outgoing connection can take one as its local port (ZeroMQ clients reconnect
 * to not-yet-bound kernels many times a second). The kernel then exits at once, and a fresh set
 * of ports is tried.
 */
export async function launchKernel(options: LaunchKernelOptions): Promise<LaunchedKernel> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnce(options);
    } catch (error) {
      const taken = error instanceof KernelStartError && error.lastLines.some((line) => PORT_TAKEN.test(line));
      if (!taken || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

async function launchOnce(options: LaunchKernelOptions): Promise<LaunchedKernel> {
  const [shell, iopub, stdin, control, hb] = await allocatePorts(5);
  const connection: ConnectionInfo = {
    transport: 'tcp',
    ip: '127.0.0.1',
    shell_port: shell,
    iopub_port: iopub,
    stdin_port: stdin,
    control_port: control,
    hb_port: hb,
    key: newKey(),
    signature_scheme: 'hmac-sha256',
    kernel_name: 'python3',
  };
  const connectionFile = await writeConnectionFile(options.runtimeDir ?? defaultRuntimeDir(), `kernel-${randomUUID()}`, connection);
  const proc = KernelProcess.launch({
    interpreter: options.interpreter,
    connectionFile,
    cwd: options.cwd,
    env: options.env,
    extraArgs: options.extraArgs,
    memoryLimitBytes: options.memoryLimitBytes,
    log: { path: options.logPath },
  });
  let spawnError: Error | null = null;
  proc.once('spawn-error', (error: Error) => (spawnError = error));
  const client = new KernelClient(connection);
  try {
    const kernelInfo = await client.waitForReady(options.startTimeoutMs ?? 60_000, () => proc.alive && !spawnError);
    releasePorts([shell, iopub, stdin, control, hb]);
    return { process: proc, client, connectionFile, connection, kernelInfo };
  } catch (error) {
    client.close();
    const exit = proc.alive ? null : await proc.waitForExit();
    await proc.terminate(500);
    await removeConnectionFile(connectionFile);
    releasePorts([shell, iopub, stdin, control, hb]);
    const lastLines = proc.log.lastLines(15);
    const err = spawnError as Error | null;
    if (err) {
      throw new KernelStartError(`Cannot run ${options.interpreter}: ${err.message}`, options.interpreter, lastLines);
    }
    const missing = lastLines.some((line) => MISSING_IPYKERNEL.test(line));
    if (missing) {
      throw new KernelStartError(
        `${options.interpreter} has no ipykernel, which Python Session needs to run code there.`,
        options.interpreter,
        lastLines,
        true,
      );
    }
    const why = exit ? describeExit(exit) : (error as Error).message;
    throw new KernelStartError(
      `The kernel for ${options.interpreter} failed to start: ${why}.${lastLines.length ? `\nIts last output:\n${lastLines.join('\n')}` : ''}`,
      options.interpreter,
      lastLines,
    );
  }
}
