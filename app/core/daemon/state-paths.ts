/**
 * Where the daemon's files live: the state folder, and the socket (or named pipe) clients
 * reach it on. The path logic is pure (platform, environment and home are passed in) so every
 * platform is testable anywhere; `ensurePrivateDir` is the one part that touches the disk.
 *
 * Imports only Node built-ins: the shim uses this module and must start fast.
 */
import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const STATE_DIR_ENV = 'PYTHON_MCP_HOME';

/**
 * Bytes a unix socket path may take. sun_path holds 108 bytes on Linux and 104 on macOS,
 * both counting the terminating NUL; 100 leaves room on either.
 */
export const UNIX_SOCKET_PATH_LIMIT = 100;

export interface PlatformContext {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  homedir: string;
  tmpdir: string;
  username: string;
  /** POSIX user id; null on Windows. */
  uid: number | null;
}

export function currentPlatform(): PlatformContext {
  let username = '';
  let uid: number | null = null;
  try {
    const info = os.userInfo();
    username = info.username;
    uid = info.uid >= 0 ? info.uid : null;
  } catch {
    // Containers without a passwd entry for our uid: userInfo() throws.
    username = process.env.USER ?? process.env.USERNAME ?? '';
    uid = typeof process.getuid === 'function' ? process.getuid() : null;
  }
  return { platform: process.platform, env: process.env, homedir: os.homedir(), tmpdir: os.tmpdir(), username, uid };
}

function pathModule(ctx: PlatformContext): path.PlatformPath {
  return ctx.platform === 'win32' ? path.win32 : path.posix;
}

/** The state folder: $PYTHON_MCP_HOME, else the platform's per-user state location. */
export function resolveStateDir(ctx: PlatformContext = currentPlatform()): string {
  const p = pathModule(ctx);
  const override = ctx.env[STATE_DIR_ENV];
  if (override) return p.resolve(override);
  switch (ctx.platform) {
    case 'win32': {
      const local = ctx.env.LOCALAPPDATA || p.join(ctx.homedir, 'AppData', 'Local');
      return p.join(local, 'PythonSession');
    }
    case 'darwin':
      return p.join(ctx.homedir, 'Library', 'Application Support', 'Python Session');
    default: {
      // XDG says a relative XDG_STATE_HOME is invalid and must be ignored.
      const xdg = ctx.env.XDG_STATE_HOME;
      const base = xdg && p.isAbsolute(xdg) ? xdg : p.join(ctx.homedir, '.local', 'state');
      return p.join(base, 'python-session');
    }
  }
}

/**
 * A short, stable name for a state folder (case-folded on Windows, where paths are): 64-bit
 * FNV-1a of its UTF-8 bytes. Only a name — the folder it names is checked for ownership — so it
 * needs no cryptographic hash, and loading node:crypto would cost the shim ~10 ms at every start.
 */
export function stateDirHash(stateDir: string, ctx: PlatformContext): string {
  const key = ctx.platform === 'win32' ? stateDir.toLowerCase() : stateDir;
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(key, 'utf8')) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return hash.toString(16).padStart(16, '0');
}

export interface SocketLocation {
  /** What `net.connect` / `server.listen` take. */
  path: string;
  /**
   * A folder that must exist, owner-only, before listening: set when the socket lives outside
   * the state folder because the state folder's path is too long for a unix socket.
   */
  privateDir: string | null;
}

/**
 * The socket for a state folder: `<state>/daemon.sock`, or — when that path is too long for a
 * unix socket — `daemon.sock` in an owner-only folder under the runtime folder (or tmp), named
 * by a hash of the state folder so each state folder still gets its own daemon. On Windows a
 * named pipe, named by user and the same hash.
 */
export function socketLocation(stateDir: string, ctx: PlatformContext = currentPlatform()): SocketLocation {
  const hash = stateDirHash(stateDir, ctx);
  if (ctx.platform === 'win32') {
    const user = (ctx.username || 'user').replace(/[^A-Za-z0-9_.-]/g, '_');
    return { path: `\\\\.\\pipe\\python-session-${user}-${hash}`, privateDir: null };
  }
  const p = path.posix;
  const inState = p.join(stateDir, 'daemon.sock');
  if (Buffer.byteLength(inState) <= UNIX_SOCKET_PATH_LIMIT) return { path: inState, privateDir: null };

  const runtime = ctx.env.XDG_RUNTIME_DIR;
  const bases = [runtime && p.isAbsolute(runtime) ? runtime : null, ctx.tmpdir, '/tmp'].filter((b): b is string => !!b);
  // The uid keeps two users' folders apart in a shared /tmp.
  const folder = `python-session-${ctx.uid ?? (ctx.username || 'user')}-${hash}`;
  for (const base of bases) {
    const privateDir = p.join(base, folder);
    const candidate = p.join(privateDir, 'daemon.sock');
    if (Buffer.byteLength(candidate) <= UNIX_SOCKET_PATH_LIMIT) return { path: candidate, privateDir };
  }
  const privateDir = p.join('/tmp', folder);
  return { path: p.join(privateDir, 'daemon.sock'), privateDir };
}

/** Every file the daemon keeps for one state folder. */
export interface DaemonFiles {
  stateDir: string;
  socket: SocketLocation;
  /** Held (created exclusively, holding the pid) by the one daemon of this state folder. */
  lock: string;
  /** pid, start time, socket, version — for `status` and the tray app. */
  info: string;
  log: string;
  /** What the MCP server answers to initialize and tools/list, for a shim to answer at once (app/cli/quick-answers.ts). */
  answers: string;
}

export function daemonFiles(stateDir: string, ctx: PlatformContext = currentPlatform()): DaemonFiles {
  const p = pathModule(ctx);
  return {
    stateDir,
    socket: socketLocation(stateDir, ctx),
    lock: p.join(stateDir, 'daemon.lock'),
    info: p.join(stateDir, 'daemon.json'),
    log: p.join(stateDir, 'daemon.log'),
    answers: p.join(stateDir, 'mcp-answers.json'),
  };
}

/** The files for the state folder this process's environment points at. */
export function currentDaemonFiles(): DaemonFiles {
  const ctx = currentPlatform();
  return daemonFiles(resolveStateDir(ctx), ctx);
}

export class UnsafeFolderError extends Error {
  override name = 'UnsafeFolderError';
}

/**
 * Creates `dir` (and missing parents) readable by the owner alone, and tightens it if it
 * already exists with looser permissions. Refuses a folder owned by another user — or, with
 * `refuseSymlink` (for folders in shared places like /tmp), a symlink — since someone else
 * could then read our socket or swap what it points to.
 */
export function ensurePrivateDir(dir: string, options: { refuseSymlink?: boolean } = {}): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return; // per-user profile folders are private by ACL
  const stats = options.refuseSymlink ? lstatSync(dir) : statSync(dir);
  if (!stats.isDirectory()) throw new UnsafeFolderError(`${dir} is not a folder`);
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  if (uid !== null && stats.uid !== uid) {
    throw new UnsafeFolderError(`${dir} belongs to another user (uid ${stats.uid}); refusing to keep the daemon's files there`);
  }
  if ((stats.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}
