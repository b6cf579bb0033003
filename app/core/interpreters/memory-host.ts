/**
 * An in-memory HostPort (Windows or Unix semantics, symlinks, loops, faults) and a fault
 * injector for the real one. Tests use them to lay out a Windows machine on Linux and to make
 * folders unreadable even when running as root, where chmod 000 changes nothing.
 */
import path from 'node:path';
import type { FileInfo, HostPort } from './fs-port.js';
import type { RegistryPython } from './registry-reader.js';

/** path → file text, `{ dir: true }`, or `{ link: target }` (relative targets resolve from the link's folder). */
export type MemoryTree = Record<string, string | { dir: true } | { link: string }>;

export type FsOp = 'stat' | 'lstat' | 'readdir' | 'readFile' | 'realpath' | 'readlink';

export interface Fault {
  path: string;
  /** errno code to fail with: EACCES, EIO, ... */
  code: string;
  /** Ops that fail on the path itself (default: readdir and readFile). */
  ops?: FsOp[];
  /** Also fail every op on paths below it (a folder that cannot be traversed). */
  subtree?: boolean;
}

function errno(code: string, op: string, p: string): NodeJS.ErrnoException {
  const e = new Error(`${code}: simulated failure, ${op} '${p}'`) as NodeJS.ErrnoException;
  e.code = code;
  e.syscall = op;
  e.path = p;
  return e;
}

function faultCheck(faults: readonly Fault[], pm: path.PlatformPath, fold: (s: string) => string) {
  const keyed = faults.map((f) => ({ ...f, key: fold(pm.normalize(f.path)) }));
  return (op: FsOp, p: string): void => {
    const k = fold(pm.normalize(p));
    for (const f of keyed) {
      const self = k === f.key && (f.ops ?? ['readdir', 'readFile']).includes(op);
      const below = f.subtree === true && k.startsWith(f.key + pm.sep);
      if (self || below) throw errno(f.code, op, p);
    }
  };
}

/** Wraps a host so the given paths fail with the given errors. */
export function withFaults(host: HostPort, faults: readonly Fault[]): HostPort {
  const check = faultCheck(faults, host.path, host.platform === 'win32' ? (s) => s.toLowerCase() : (s) => s);
  const wrap =
    <T>(op: FsOp, fn: (p: string) => Promise<T>) =>
    async (p: string): Promise<T> => {
      check(op, p);
      return fn(p);
    };
  return {
    ...host,
    stat: wrap('stat', (p) => host.stat(p)),
    lstat: wrap('lstat', (p) => host.lstat(p)),
    readdir: wrap('readdir', (p) => host.readdir(p)),
    readFile: wrap('readFile', (p) => host.readFile(p)),
    realpath: wrap('realpath', (p) => host.realpath(p)),
    readlink: wrap('readlink', (p) => host.readlink(p)),
    readRegistry: () => host.readRegistry(),
  };
}

interface Node {
  path: string;
  type: 'file' | 'dir' | 'link';
  content?: string;
  target?: string;
}

export interface MemoryHostOptions {
  platform: NodeJS.Platform;
  home: string;
  env?: Record<string, string | undefined>;
  tree: MemoryTree;
  registry?: RegistryPython[];
  faults?: Fault[];
}

export function createMemoryHost(opts: MemoryHostOptions): HostPort {
  const pm = opts.platform === 'win32' ? path.win32 : path.posix;
  const fold = opts.platform === 'win32' ? (s: string) => s.toLowerCase() : (s: string) => s;
  const key = (p: string) => fold(pm.normalize(p).replace(/(.)[\\/]+$/, '$1'));
  const nodes = new Map<string, Node>();
  const children = new Map<string, Map<string, string>>();
  const mtime = Date.now();

  const ensureDir = (p: string): void => {
    const n = pm.normalize(p);
    const k = key(n);
    if (nodes.has(k)) return;
    nodes.set(k, { path: n, type: 'dir' });
    const parent = pm.dirname(n);
    if (parent !== n) {
      ensureDir(parent);
      link(parent, n);
    }
  };
  const link = (parent: string, child: string) => {
    const pk = key(parent);
    const m = children.get(pk) ?? new Map<string, string>();
    m.set(fold(pm.basename(child)), pm.basename(child));
    children.set(pk, m);
  };
  for (const [p, v] of Object.entries(opts.tree)) {
    const n = pm.normalize(p);
    if (typeof v === 'object' && 'dir' in v) {
      ensureDir(n);
      continue;
    }
    ensureDir(pm.dirname(n));
    link(pm.dirname(n), n);
    nodes.set(key(n), typeof v === 'string' ? { path: n, type: 'file', content: v } : { path: n, type: 'link', target: v.link });
  }

  /** Real path of `p`, following links in every component (and the last one when `followLast`). */
  const resolve = (p: string, followLast: boolean, op: string, depth = 0): string => {
    if (depth > 40) throw errno('ELOOP', op, p);
    const n = pm.normalize(p);
    const { root } = pm.parse(n);
    const parts = n.slice(root.length).split(pm.sep).filter(Boolean);
    let cur = root;
    for (let i = 0; i < parts.length; i++) {
      const next = pm.join(cur, parts[i] as string);
      const node = nodes.get(key(next));
      if (!node) throw errno('ENOENT', op, p);
      const last = i === parts.length - 1;
      if (node.type === 'link' && (!last || followLast)) {
        const target = pm.isAbsolute(node.target as string) ? (node.target as string) : pm.join(cur, node.target as string);
        cur = resolve(target, true, op, depth + 1);
        if (!last && nodes.get(key(cur))?.type !== 'dir') throw errno('ENOTDIR', op, p);
      } else {
        if (!last && node.type !== 'dir') throw errno('ENOTDIR', op, p);
        cur = node.path;
      }
    }
    return cur;
  };
  const info = (node: Node): FileInfo => ({
    isFile: node.type === 'file',
    isDirectory: node.type === 'dir',
    isSymbolicLink: node.type === 'link',
    mtimeMs: mtime,
    size: node.content?.length ?? 0,
  });
  const at = (real: string, op: string, p: string): Node => {
    const node = nodes.get(key(real));
    if (!node) throw errno('ENOENT', op, p);
    return node;
  };
  const check = faultCheck(opts.faults ?? [], pm, fold);

  return {
    platform: opts.platform,
    env: opts.env ?? {},
    home: opts.home,
    path: pm,
    async stat(p) {
      check('stat', p);
      return info(at(resolve(p, true, 'stat'), 'stat', p));
    },
    async lstat(p) {
      check('lstat', p);
      return info(at(resolve(p, false, 'lstat'), 'lstat', p));
    },
    async readdir(p) {
      check('readdir', p);
      const real = resolve(p, true, 'scandir');
      if (at(real, 'scandir', p).type !== 'dir') throw errno('ENOTDIR', 'scandir', p);
      return [...(children.get(key(real))?.values() ?? [])];
    },
    async readFile(p) {
      check('readFile', p);
      const node = at(resolve(p, true, 'open'), 'open', p);
      if (node.type === 'dir') throw errno('EISDIR', 'read', p);
      return node.content ?? '';
    },
    async realpath(p) {
      check('realpath', p);
      const real = resolve(p, true, 'realpath');
      at(real, 'realpath', p);
      return real;
    },
    async readlink(p) {
      check('readlink', p);
      const node = at(resolve(p, false, 'readlink'), 'readlink', p);
      if (node.type !== 'link') throw errno('EINVAL', 'readlink', p);
      return node.target as string;
    },
    async readRegistry() {
      return opts.registry ?? [];
    },
  };
}
