/** Connection files: how a client finds a kernel's five sockets and its signing key. */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';

export interface ConnectionInfo {
  transport: 'tcp' | 'ipc';
  ip: string;
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
  key: string;
  signature_scheme: string;
  kernel_name?: string;
}

export type Channel = 'shell' | 'iopub' | 'stdin' | 'control' | 'hb';

export function channelUrl(info: ConnectionInfo, channel: Channel): string {
  const port = info[`${channel}_port`];
  // ipc endpoints are paths named "<ip>-<port>", as jupyter_client writes them.
  return info.transport === 'ipc' ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}

/** A fresh random signing key: 32 bytes of entropy, hex as jupyter_client uses. */
export function newKey(): string {
  return randomBytes(32).toString('hex');
}

/** Writes the file readable by the owner alone, inside an owner-only folder. */
export async function writeConnectionFile(dir: string, name: string, info: ConnectionInfo): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify(info, null, 1), { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600); // the umask cannot widen it, but an existing inode could
  return path;
}

export async function removeConnectionFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

export class ConnectionFileError extends Error {
  /** True where the file may still be being written (empty, or JSON cut off). */
  constructor(message: string, readonly mayBeUnfinished = false) {
    super(message);
  }
}

/** How long a connection file written a moment ago may take to be whole (its writer's next write). */
const BEING_WRITTEN_MS = 2000;

export async function readConnectionFile(path: string): Promise<ConnectionInfo> {
  // A kernel starting by hand writes its file in more than one write (jupyter_client's json.dump),
  // and a file that has just appeared may be empty or cut off: a new one is read again until it
  // parses or stops being new. An old file that does not parse is damaged, and is said so at once.
  const asked = Date.now();
  for (;;) {
    try {
      return parseConnectionFile(path, await readText(path));
    } catch (error) {
      const modified = (await stat(path).catch(() => null))?.mtimeMs ?? 0;
      const fresh = Date.now() - modified < BEING_WRITTEN_MS && Date.now() - asked < BEING_WRITTEN_MS;
      if (!(error instanceof ConnectionFileError) || !error.mayBeUnfinished || !fresh) throw error;
      // A plain, referenced pause, not timers.ts's unref'd sleep: whoever awaits this read (a
      // script using the library) may have nothing else keeping its process alive.
      await delay(25);
    }
  }
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConnectionFileError(
      code === 'ENOENT'
        ? `Connection file not found: ${path}. Kernels started by Jupyter keep theirs in the folder printed by \`jupyter --runtime-dir\` (kernel-*.json).`
        : `Cannot read connection file ${path}: ${(error as Error).message}`,
    );
  }
}

function parseConnectionFile(path: string, text: string): ConnectionInfo {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConnectionFileError(`Connection file ${path} is not valid JSON.`, true);
  }
  const ports = ['shell_port', 'iopub_port', 'stdin_port', 'control_port', 'hb_port'] as const;
  for (const port of ports) {
    if (typeof raw[port] !== 'number') throw new ConnectionFileError(`Connection file ${path} has no ${port}.`);
  }
  return {
    transport: raw.transport === 'ipc' ? 'ipc' : 'tcp',
    ip: typeof raw.ip === 'string' ? raw.ip : '127.0.0.1',
    shell_port: raw.shell_port as number,
    iopub_port: raw.iopub_port as number,
    stdin_port: raw.stdin_port as number,
    control_port: raw.control_port as number,
    hb_port: raw.hb_port as number,
    key: typeof raw.key === 'string' ? raw.key : '',
    signature_scheme: typeof raw.signature_scheme === 'string' ? raw.signature_scheme : 'hmac-sha256',
    kernel_name: typeof raw.kernel_name === 'string' ? raw.kernel_name : undefined,
  };
}
