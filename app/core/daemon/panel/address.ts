/**
 * Where the running daemon's panel is: `<state>/panel.json` holds its port and the daemon's
 * pid, `<state>/panel-token` its key. The tray and `python-session-mcp status` read both to
 * build the link; neither needs to talk to the daemon first.
 *
 * Imports only Node built-ins, so the CLI can use it without loading the daemon.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '../../private-file.js';
import { readPanelToken, TOKEN_FILE, TOKEN_SHAPE } from './auth.js';
import { isRecord, readJsonStateFile, readTextStateFile } from '../../state-file.js';

export const ADDRESS_FILE = 'panel.json';

export interface PanelAddressFile {
  port: number;
  pid: number;
  /** ISO time the panel started listening. */
  started: string;
}

export interface PanelAddress extends PanelAddressFile {
  /** The page's address with its token: what to open. */
  url: string;
  /** The address without the token: safe to print where others may read it. */
  baseUrl: string;
  token: string;
}

export function panelBaseUrl(port: number): string {
  return `http://127.0.0.1:${port}/`;
}

export function panelUrl(port: number, token: string): string {
  return `${panelBaseUrl(port)}?token=${encodeURIComponent(token)}`;
}

export function writePanelAddress(stateDir: string, address: PanelAddressFile): void {
  writePrivateFile(join(stateDir, ADDRESS_FILE), `${JSON.stringify(address)}\n`);
}

/**
 * Before the panel writes its own: a damaged panel.json or panel-token (not ours in shape, a
 * folder, a symlink, unreadable) is moved aside with a notice, so the writes that follow work.
 */
export function clearPanelFiles(stateDir: string): void {
  const instead = 'the panel writes a fresh one';
  readJsonStateFile(join(stateDir, ADDRESS_FILE), { shape: (value) => (isRecord(value) && Number.isInteger(value.port) && Number.isInteger(value.pid) ? null : 'no port and pid'), instead });
  readTextStateFile(join(stateDir, TOKEN_FILE), { shape: (text) => (TOKEN_SHAPE.test(text.trim()) ? null : 'not a panel token'), instead });
}

/** Removes the address, unless another daemon has written its own since. */
export function removePanelAddress(stateDir: string, pid = process.pid): void {
  const file = join(stateDir, ADDRESS_FILE);
  if (readAddressFile(file)?.pid === pid) rmSync(file, { force: true });
}

/**
 * The panel of the daemon for this state folder, or null when there is none: no file, no token,
 * or the daemon that wrote them is gone (a crash leaves the files behind).
 */
export function readPanelAddress(stateDir: string, isAlive: (pid: number) => boolean = pidAlive): PanelAddress | null {
  const address = readAddressFile(join(stateDir, ADDRESS_FILE));
  if (!address || !isAlive(address.pid)) return null;
  const token = readPanelToken(stateDir);
  if (!token) return null;
  return { ...address, token, url: panelUrl(address.port, token), baseUrl: panelBaseUrl(address.port) };
}

function readAddressFile(file: string): PanelAddressFile | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<PanelAddressFile>;
    const { port, pid, started } = value;
    if (!Number.isInteger(port) || port! <= 0 || port! > 65535 || !Number.isInteger(pid) || pid! <= 0) return null;
    return { port: port!, pid: pid!, started: typeof started === 'string' ? started : '' };
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, just not ours to signal
  }
}
