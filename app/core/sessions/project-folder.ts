/**
 * Which folder a client's session works in. In order:
 *
 * 1. The client's MCP roots, when it offers them: the first `file:` root that is a folder. Roots
 *    are the client saying where the project is, so any existing folder counts.
 * 2. The folder the client started the shim in, when that is a project folder (below). Claude
 *    Code, Codex and Gemini CLI start their servers in the project they were opened in.
 * 3. The home folder. Desktop apps start their servers in `/`, in the home folder, or in their
 *    own application folder; none of those is where the person's files are.
 *
 * A started-in folder is a project folder unless it is:
 * - the filesystem root (a drive root on Windows);
 * - the home folder itself, or a folder that holds home folders (`/home`, `/Users`, `C:\Users`);
 * - an application folder just under home: a hidden one (`~/.config`, `~/.vscode`, `~/.claude`…),
 *   `~/Library` (macOS) or `~/AppData` (Windows);
 * - a system folder or anything inside one (`/usr`, `/etc`, `/var`, `/System`, `C:\Windows`,
 *   `C:\Program Files`…);
 * - the temporary folder itself (`/tmp`). Folders inside it are projects like any other.
 *
 * Pure functions only: the caller supplies home, temp folder and platform.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export type FolderSource = 'roots' | 'client-folder' | 'home';

export interface FolderChoice {
  path: string;
  source: FolderSource;
  /** Why this folder, in words ("Claude Code's MCP root", …). */
  reason: string;
}

export interface FolderContext {
  home: string;
  /** The temporary folder, under each name it goes by (os.tmpdir() and its real path). */
  tmp: string[];
  platform: NodeJS.Platform;
}

/** Top-level folders that belong to the system, not to a person's projects. */
const POSIX_SYSTEM = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/snap', '/sys', '/usr', '/var', '/private', '/System', '/Library', '/Applications', '/cores', '/nix'];
/** Exactly these, not what is inside them. */
const POSIX_SHARED = ['/home', '/Users', '/opt', '/srv', '/mnt', '/media', '/Volumes'];
/** Temporary folders: rejected themselves, accepted inside (a test's project, a scratch clone). */
const POSIX_TEMP = ['/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp', '/dev/shm'];
const WINDOWS_SYSTEM = ['Windows', 'Program Files', 'Program Files (x86)', 'ProgramData', '$Recycle.Bin', 'System Volume Information'];
const HOME_APP_FOLDERS = ['Library', 'AppData'];

/** Null when `folder` is a project folder; otherwise why it is not, as a phrase. */
export function notAProjectFolder(folder: string, context: FolderContext): string | null {
  const p = context.platform === 'win32' ? path.win32 : path.posix;
  const same = (a: string, b: string) => (context.platform === 'win32' || context.platform === 'darwin' ? a.toLowerCase() === b.toLowerCase() : a === b);
  const inside = (child: string, parent: string) => {
    const rel = p.relative(parent, child);
    return rel !== '' && !rel.startsWith('..') && !p.isAbsolute(rel);
  };
  if (!p.isAbsolute(folder)) return 'not an absolute path';
  const dir = p.resolve(folder);
  const home = p.resolve(context.home);
  const temps = [...context.tmp.map((t) => p.resolve(t)), ...(context.platform === 'win32' ? [] : POSIX_TEMP)];
  if (same(dir, p.parse(dir).root)) return 'the filesystem root';
  if (same(dir, home)) return 'the home folder itself';
  if (inside(home, dir)) return 'a folder that holds home folders';
  if (temps.some((t) => same(dir, t))) return 'the temporary folder';
  if (inside(dir, home)) {
    const first = p.relative(home, dir).split(p.sep)[0];
    if (first.startsWith('.') || HOME_APP_FOLDERS.some((name) => same(first, name))) return 'an application folder';
    return null;
  }
  // The temporary folder may itself sit inside a system folder (/var/folders/… on macOS).
  if (temps.some((t) => inside(dir, t))) return null;
  if (context.platform === 'win32') {
    const first = p.relative(p.parse(dir).root, dir).split(p.sep)[0];
    return WINDOWS_SYSTEM.some((name) => same(first, name)) ? 'a system folder' : null;
  }
  if (POSIX_SHARED.some((shared) => same(dir, shared))) return 'a shared system folder';
  if (POSIX_SYSTEM.some((system) => same(dir, system) || inside(dir, system))) return 'a system folder';
  return null;
}

/** The first root that is a local folder (`exists` checks it), as a path. */
export function folderFromRoots(roots: readonly { uri: string; name?: string }[], exists: (dir: string) => boolean): string | null {
  for (const root of roots) {
    if (!root.uri.startsWith('file:')) continue;
    let dir: string;
    try {
      dir = fileURLToPath(root.uri);
    } catch {
      continue;
    }
    if (exists(dir)) return dir;
  }
  return null;
}

export interface FolderInputs {
  /** The client's name, for the reason ("claude-code"). */
  client: string;
  /** From the client's roots/list answer; null when it offers no roots or none is a folder. */
  rootFolder: string | null;
  /** The shim's working folder, from its handshake. */
  clientCwd: string | null;
}

/** The folder rule above, applied. */
export function chooseFolder(inputs: FolderInputs, context: FolderContext): FolderChoice {
  if (inputs.rootFolder) return { path: inputs.rootFolder, source: 'roots', reason: `${inputs.client}'s project (its MCP root)` };
  if (inputs.clientCwd) {
    const why = notAProjectFolder(inputs.clientCwd, context);
    if (!why) return { path: inputs.clientCwd, source: 'client-folder', reason: `the folder ${inputs.client} was started in` };
    return { path: context.home, source: 'home', reason: `the home folder: ${inputs.client} offers no MCP roots and was started in ${inputs.clientCwd}, ${why}` };
  }
  return { path: context.home, source: 'home', reason: `the home folder: ${inputs.client} said neither its MCP roots nor its folder` };
}
