/** Connection files: how a client finds a kernel's five sockets and its signing key. */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
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

export class ConnectionFileError extends Error {}

export async function readConnectionFile(path: string): Promise<ConnectionInfo> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConnectionFileError(
      code === 'ENOENT'
        ? `Connection file not found: ${path}. Kernels started by Jupyter keep theirs in the folder printed by \`jupyter --runtime-dir\` (kernel-*.json).`
        : `Cannot read connection file ${path}: ${(error as Error).message}`,
    );
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConnectionFileError(`Connection file ${path} is not valid JSON.`);
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
