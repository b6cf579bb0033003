/**
 * The only door discovery has to the machine: file system, environment, platform and the
 * Windows registry. Injecting it lets Windows layouts be tested on Linux (with `path.win32`)
 * and faults (permission denied, loops) be simulated even when tests run as root.
 */
import { promises as fsp, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readRegistryWithRegExe, type RegistryPython } from './registry-reader.js';

export type { RegistryPython };

export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
  mtimeMs: number;
  size: number;
}

export interface HostPort {
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  /** `path.win32` on Windows, `path.posix` elsewhere, whatever the machine running the code. */
  readonly path: path.PlatformPath;
  /** Follows symlinks. Rejects with a Node-style error carrying `code` (ENOENT, EACCES, ELOOP, ...). */
  stat(p: string): Promise<FileInfo>;
  lstat(p: string): Promise<FileInfo>;
  readdir(p: string): Promise<string[]>;
  readFile(p: string): Promise<string>;
  realpath(p: string): Promise<string>;
  readlink(p: string): Promise<string>;
  /** PEP 514 entries (HKCU/HKLM Software\Python). Empty off Windows. */
  readRegistry(): Promise<RegistryPython[]>;
}

function info(s: Stats): FileInfo {
  return {
    isFile: s.isFile(),
    isDirectory: s.isDirectory(),
    isSymbolicLink: s.isSymbolicLink(),
    mtimeMs: s.mtimeMs,
    size: s.size,
  };
}

export interface NodeHostOverrides {
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** This machine. `reg query` runs only when the process really is on Windows. */
export function nodeHost(overrides: NodeHostOverrides = {}): HostPort {
  const platform = process.platform;
  const env = overrides.env ?? process.env;
  const home =
    overrides.home ??
    (platform === 'win32' ? env.USERPROFILE : env.HOME) ??
    os.homedir();
  return {
    platform,
    env,
    home,
    path: platform === 'win32' ? path.win32 : path.posix,
    stat: async (p) => info(await fsp.stat(p)),
    lstat: async (p) => info(await fsp.lstat(p)),
    readdir: (p) => fsp.readdir(p),
    readFile: (p) => fsp.readFile(p, 'utf8'),
    realpath: (p) => fsp.realpath(p),
    readlink: (p) => fsp.readlink(p),
    readRegistry: () =>
      process.platform === 'win32' ? readRegistryWithRegExe() : Promise.resolve([]),
  };
}

/** Reads an environment variable the way the platform does (case-insensitive on Windows). */
export function getEnv(host: HostPort, name: string): string | undefined {
  const direct = host.env[name];
  if (direct !== undefined || host.platform !== 'win32') return direct === '' ? undefined : direct;
  const upper = name.toUpperCase();
  for (const [k, v] of Object.entries(host.env)) {
    if (k.toUpperCase() === upper) return v === '' ? undefined : v;
  }
  return undefined;
}
