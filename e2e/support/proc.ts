/**
 * What the fault, load and security suites read about processes from Linux's /proc: memory
 * (VmRSS, VmHWM), limits, listening sockets and who owns them, and "is anything of this test
 * still running". Linux only; the suites that need it skip elsewhere.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { processesMatching, processesWithEnv } from '../../app/core/testing/test-python.js';
import { waitFor } from '../../app/core/testing/wait-for.js';

export const HAS_PROC = (() => {
  try {
    readFileSync('/proc/self/status', 'utf8');
    return true;
  } catch {
    return false;
  }
})();

/** Alive and not a zombie (a dead child nobody reaped yet is not running anything). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Resident memory now and its peak (high-water mark), in bytes. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** The soft limit on a process's data segment (RLIMIT_DATA) in bytes; Infinity when unlimited. */
export function dataLimitOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max data size'));
  const soft = line?.slice('Max data size'.length).trim().split(/\s+/)[0];
  return soft === 'unlimited' || soft === undefined ? Infinity : Number(soft);
}

/** Pids of `pid`'s descendants (children, grandchildren, …). */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}

export interface ListeningSocket {
  pid: number;
  address: string;
  port: number;
}

/** `0100007F:1F90` (little-endian IPv4) or a 32-hex-digit IPv6 address, as text. */
function decodeAddress(hex: string): string {
  if (hex.length === 8) return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  const words: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const bytes = [3, 2, 1, 0].map((i) => word.slice(i * 2, i * 2 + 2)).join('');
    words.push(bytes.slice(0, 4), bytes.slice(4, 8));
  }
  return words.map((x) => x.replace(/^0+(?=.)/, '')).join(':').toLowerCase();
}

/** The TCP sockets in LISTEN state (in /proc/net/tcp and tcp6) held open by any of `pids`. */
export function listeningSocketsOf(pids: number[]): ListeningSocket[] {
  const byInode = new Map<string, { address: string; port: number }>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A = LISTEN
      const [addr, port] = cols[1].split(':');
      byInode.set(cols[9], { address: decodeAddress(addr), port: parseInt(port, 16) });
    }
  }
  const found: ListeningSocket[] = [];
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        const socket = inode ? byInode.get(inode) : undefined;
        if (socket) found.push({ pid, ...socket });
      } catch {
        /* closed meanwhile */
      }
    }
  }
  return found;
}

export const isLoopback = (address: string) => address.startsWith('127.') || address === '0:0:0:0:0:0:0:1' || address === '::1' || address === '0:0:0:0:0:ffff:7f00:1';

/**
 * Every process started for the state folder `home`: the daemon and everything it started
 * (kernels, pooled kernels, children of user code, wherever their files are) inherit
 * PYTHON_MCP_HOME from it; the command lines that name the folder are counted too.
 */
export function processesOf(home: string): number[] {
  return [...new Set([...processesWithEnv('PYTHON_MCP_HOME', home), ...processesMatching(home)])];
}

/**
 * Waits until nothing of a test is left: the daemon pid gone, no process of the state folder
 * (see `processesOf`), none carrying one of `markers` (children of user code that were given a
 * fresh environment). Returns what is still alive, for the assertion message.
 */
export async function leftovers(home: string, daemonPids: (number | null)[], markers: string[] = [], timeoutMs = 10_000): Promise<string[]> {
  const alive = () => [
    ...new Set([
      ...daemonPids.filter((p): p is number => p !== null && running(p)).map((p) => `daemon ${p}`),
      ...processesOf(home).map((p) => `process ${p} of ${home}`),
      ...markers.flatMap((m) => processesMatching(m).map((p) => `process ${p} carrying ${m}`)),
    ]),
  ];
  await waitFor('nothing of the test to be left running', () => alive().length === 0, { timeoutMs, stepMs: 100 }).catch(() => undefined); // the caller asserts on what is left
  return alive();
}
