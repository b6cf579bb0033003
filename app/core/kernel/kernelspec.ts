/**
 * Local Jupyter kernelspecs (`kernel_name` in start_kernel): kernel.json in the
 * usual Jupyter data folders. Only Python (ipykernel) specs can be launched by
 * this engine; their interpreter, env and interrupt mode are honoured.
 */
import { readFile, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface KernelSpec {
  name: string;
  displayName: string;
  interpreter: string;
  interruptMode: 'signal' | 'message';
  env: Record<string, string>;
  file: string;
}

export function kernelspecDirs(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string[] {
  const dirs: string[] = [];
  for (const path of (env.JUPYTER_PATH ?? '').split(delimiter).filter(Boolean)) dirs.push(join(path, 'kernels'));
  if (env.JUPYTER_DATA_DIR) dirs.push(join(env.JUPYTER_DATA_DIR, 'kernels'));
  const home = homedir();
  if (platform === 'darwin') dirs.push(join(home, 'Library', 'Jupyter', 'kernels'));
  else if (platform === 'win32') dirs.push(join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'jupyter', 'kernels'));
  else dirs.push(join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'jupyter', 'kernels'));
  for (const prefix of [env.CONDA_PREFIX, env.VIRTUAL_ENV].filter(Boolean) as string[]) dirs.push(join(prefix, 'share', 'jupyter', 'kernels'));
  if (platform === 'win32') dirs.push(join(env.PROGRAMDATA ?? 'C:\\ProgramData', 'jupyter', 'kernels'));
  else dirs.push('/usr/local/share/jupyter/kernels', '/usr/share/jupyter/kernels');
  return dirs;
}

export async function findKernelSpec(name: string, env: NodeJS.ProcessEnv = process.env): Promise<KernelSpec> {
  const searched = kernelspecDirs(env);
  for (const dir of searched) {
    const file = join(dir, name, 'kernel.json');
    let raw: { argv?: unknown; display_name?: unknown; interrupt_mode?: unknown; env?: unknown; language?: unknown };
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      continue;
    }
    const argv = Array.isArray(raw.argv) ? raw.argv.map(String) : [];
    const launchesIpykernel = argv.some((arg) => arg === 'ipykernel_launcher' || arg === 'ipykernel');
    if (!launchesIpykernel || argv.length === 0) {
      throw new Error(`Kernel "${name}" (${file}) is not an ipykernel (language ${String(raw.language ?? 'unknown')}); Python Session runs Python kernels only.`);
    }
    return {
      name,
      displayName: String(raw.display_name ?? name),
      interpreter: argv[0],
      interruptMode: raw.interrupt_mode === 'message' ? 'message' : 'signal',
      env: raw.env && typeof raw.env === 'object' ? (raw.env as Record<string, string>) : {},
      file,
    };
  }
  const available = await listKernelSpecNames(searched);
  throw new Error(`No kernelspec named "${name}". ${available.length ? `Available: ${available.join(', ')}.` : 'None are installed.'} Searched: ${searched.join(', ')}`);
}

async function listKernelSpecNames(dirs: string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const dir of dirs) {
    try {
      for (const entry of await readdir(dir)) names.add(entry);
    } catch {
      /* missing folder */
    }
  }
  return [...names].sort();
}
