/**
 * What installing ipykernel into one interpreter takes, for the panel's "Install ipykernel"
 * action, which a person starts (no MCP tool installs anything; tools only tell the command).
 *
 *   const plan = await planForInterpreter(interp, { env });
 *   plan.kind === 'run'                 → plan.argv is run as it is (no shell), plan.command shown first
 *   plan.kind === 'externally-managed'  → PEP 668: explained, with the system's own command or a venv
 *   plan.kind === 'unavailable'         → why not (no conda executable found, say)
 *
 * The argv mirrors ipykernelInstallCommand's text, through the conda that owns the env, plus
 * `--yes` for conda/micromamba: the person has confirmed in the panel and a child without a
 * terminal cannot answer conda's prompt. PEP 668's --break-system-packages is never used.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { shellQuote } from './install-hint.js';
import type { Interpreter } from './types.js';

export type InstallPlan =
  | { kind: 'run'; tool: 'pip' | 'conda' | 'micromamba' | 'uv'; argv: string[]; command: string }
  | { kind: 'externally-managed'; marker: string; message: string | null; explanation: string; alternatives: { label: string; command: string }[] }
  | { kind: 'unavailable'; reason: string };

/** Facts found on disk (or by asking the interpreter) that the pure planner needs. */
export interface PlanFacts {
  /** The PEP 668 marker that applies to this interpreter, with its own message; absent when none. */
  externallyManaged?: { marker: string; message: string | null };
  /** The conda (or micromamba) executable that owns the environment. */
  condaExe?: string;
  /** uv, for venvs uv made (they have no pip). */
  uvExe?: string;
  platform?: NodeJS.Platform;
}

/** A command line as a person would type it (the argv itself is what runs). */
export function commandLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/**
 * Which PEP 668 marker applies: `EXTERNALLY-MANAGED` in the stdlib folder, ignored inside a
 * virtual environment (sys.prefix != sys.base_prefix), as the PEP says installers must.
 */
export function pep668MarkerPath(layout: { stdlib: string; prefix: string; basePrefix: string }, p: path.PlatformPath = path): string | null {
  if (p.resolve(layout.prefix) !== p.resolve(layout.basePrefix)) return null;
  return p.join(layout.stdlib, 'EXTERNALLY-MANAGED');
}

/**
 * The marker's own explanation: the `Error` key of its `[externally-managed]` section, with
 * continuation lines (indented) joined as configparser does. Null when there is none.
 */
export function externallyManagedMessage(text: string): string | null {
  let inSection = false;
  let value: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*\[/.test(line)) {
      if (value) break;
      inSection = /^\s*\[externally-managed\]\s*$/i.test(line);
      continue;
    }
    if (!inSection) continue;
    if (value && /^\s+\S/.test(line)) {
      value.push(line.trim());
      continue;
    }
    if (value && line.trim() === '') {
      value.push('');
      continue;
    }
    if (value) break;
    const m = /^Error\s*[=:]\s*(.*)$/.exec(line);
    if (m) value = m[1] ? [m[1].trim()] : [];
  }
  const joined = value?.join('\n').trim();
  return joined ? joined : null;
}

/** The plan for an interpreter, from facts already gathered. Pure. */
export function planIpykernelInstall(interp: Interpreter, facts: PlanFacts = {}): InstallPlan {
  const py = interp.path;
  switch (interp.kind) {
    case 'conda-base':
    case 'conda-env': {
      const tool = interp.manager === 'micromamba' ? 'micromamba' : 'conda';
      if (!facts.condaExe) {
        return { kind: 'unavailable', reason: `No ${tool} executable was found for ${interp.prefix} (looked in its conda install, its conda-meta/history, ${tool === 'conda' ? 'CONDA_EXE' : 'MAMBA_EXE'} and PATH). Run \`${tool} install -p ${shellQuote(interp.prefix)} ipykernel\` where ${tool} works.` };
      }
      const target = interp.condaEnvName ? ['-n', interp.condaEnvName] : ['-p', interp.prefix];
      // micromamba has no default channel configured.
      const channel = tool === 'micromamba' ? ['-c', 'conda-forge'] : [];
      const argv = [facts.condaExe, 'install', ...target, ...channel, '--yes', 'ipykernel'];
      return { kind: 'run', tool, argv, command: commandLine(argv) };
    }
    case 'venv':
      if (interp.manager === 'uv') {
        if (!facts.uvExe) return { kind: 'unavailable', reason: `${py} is a uv venv, which has no pip, and uv was not found on PATH. Run \`uv pip install --python ${shellQuote(py)} ipykernel\` where uv works.` };
        return run('uv', [facts.uvExe, 'pip', 'install', '--python', py, 'ipykernel']);
      }
      return run('pip', [py, '-m', 'pip', 'install', 'ipykernel']);
    default: {
      if (facts.externallyManaged) return externallyManaged(interp, facts.externallyManaged);
      if (interp.kind === 'uv' && facts.uvExe) return run('uv', [facts.uvExe, 'pip', 'install', '--python', py, 'ipykernel']);
      return run('pip', [py, '-m', 'pip', 'install', 'ipykernel']);
    }
  }
}

function run(tool: 'pip' | 'uv', argv: string[]): InstallPlan {
  return { kind: 'run', tool, argv, command: commandLine(argv) };
}

function externallyManaged(interp: Interpreter, marker: { marker: string; message: string | null }): InstallPlan {
  const venv = interp.path.includes('\\') ? '%USERPROFILE%\\.venvs\\analysis' : '~/.venvs/analysis';
  const venvPython = interp.path.includes('\\') ? `${venv}\\Scripts\\python` : `${venv}/bin/python`;
  const alternatives: { label: string; command: string }[] = [];
  if (interp.debianPackaging) alternatives.push({ label: "Install it with the system's package manager (needs an administrator)", command: 'sudo apt install python3-ipykernel' });
  alternatives.push({
    label: 'Or make a virtual environment of this Python, install ipykernel there, and choose it here',
    command: `${shellQuote(interp.path)} -m venv ${venv} && ${venvPython} -m pip install ipykernel`,
  });
  return {
    kind: 'externally-managed',
    marker: marker.marker,
    message: marker.message,
    explanation:
      `${interp.path} is managed by the operating system (PEP 668: its standard library folder has an EXTERNALLY-MANAGED file). ` +
      "pip refuses to install into it, because packages installed that way could break the system's own Python programs. " +
      'Python Session does not force it (no --break-system-packages). The built-in worker already runs code in this Python without installing anything.',
    alternatives,
  };
}

// --- Gathering the facts -------------------------------------------------------------------

export interface GatherOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** How long asking the interpreter for its layout may take. */
  timeoutMs?: number;
}

/** Finds what the plan needs, then plans. */
export async function planForInterpreter(interp: Interpreter, options: GatherOptions = {}): Promise<InstallPlan> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const facts: PlanFacts = { platform };
  if (interp.kind === 'conda-base' || interp.kind === 'conda-env') {
    facts.condaExe = await findCondaExecutable(interp, env, platform);
  } else {
    if (interp.manager === 'uv' || interp.kind === 'uv') facts.uvExe = await findOnPath('uv', env, platform);
    if (interp.kind !== 'venv') facts.externallyManaged = await externallyManagedMarker(interp, options);
  }
  return planIpykernelInstall(interp, facts);
}

const SEP = (platform: NodeJS.Platform) => (platform === 'win32' ? ';' : ':');

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    await fsp.access(file, 1 /* X_OK */);
    return true;
  } catch {
    return false;
  }
}

export async function findOnPath(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const names = platform === 'win32' ? [`${name}.exe`] : [name];
  for (const dir of (env.PATH ?? env.Path ?? '').split(SEP(platform))) {
    if (!dir) continue;
    for (const n of names) if (await isExecutableFile(p.join(dir, n))) return p.join(dir, n);
  }
  return undefined;
}

/** The executable a conda-meta/history `# cmd:` line names (the conda that made or changed the env). */
export function condaFromHistory(history: string): string | undefined {
  for (const line of history.split(/\r?\n/)) {
    const m = /^#\s*cmd:\s*(\S+)/.exec(line);
    // `conda` here may be a bare name or the entry point; only a full path helps.
    if (m && /(?:^|[\\/])(conda|mamba|micromamba)(?:\.exe)?$/i.test(m[1]) && /[\\/]/.test(m[1])) return m[1];
  }
  return undefined;
}

/**
 * The conda that owns an environment: its install's condabin/bin (Scripts on Windows), then the
 * one its history names, then CONDA_EXE / MAMBA_EXE, then PATH.
 */
export async function findCondaExecutable(interp: Interpreter, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const micromamba = interp.manager === 'micromamba';
  const tool = micromamba ? 'micromamba' : 'conda';
  const candidates: string[] = [];
  const root = interp.condaRoot ?? (interp.kind === 'conda-base' ? interp.prefix : undefined);
  if (root) {
    candidates.push(
      ...(platform === 'win32'
        ? [p.join(root, 'Scripts', `${tool}.exe`), p.join(root, 'Library', 'bin', `${tool}.exe`)]
        : [p.join(root, 'condabin', tool), p.join(root, 'bin', tool)]),
    );
  }
  try {
    const fromHistory = condaFromHistory(await fsp.readFile(p.join(interp.prefix, 'conda-meta', 'history'), 'utf8'));
    if (fromHistory) candidates.push(fromHistory);
  } catch {
    // No history: a copied env; the rest may still find conda.
  }
  const fromEnv = micromamba ? env.MAMBA_EXE : env.CONDA_EXE;
  if (fromEnv) candidates.push(fromEnv);
  for (const c of candidates) if (await isExecutableFile(c)) return c;
  return findOnPath(tool, env, platform);
}

/**
 * The PEP 668 marker that applies, by asking the interpreter where its stdlib is and whether it
 * is a venv (what pip itself checks), falling back to discovery's file-based answer.
 */
export async function externallyManagedMarker(interp: Interpreter, options: GatherOptions = {}): Promise<{ marker: string; message: string | null } | undefined> {
  const layout = await askLayout(interp.path, options.timeoutMs ?? 15_000);
  const candidates: string[] = [];
  const fromLayout = layout && pep668MarkerPath(layout);
  if (fromLayout) candidates.push(fromLayout);
  if (interp.externallyManaged && interp.version) {
    const minor = interp.version.split('.').slice(0, 2).join('.');
    candidates.push(process.platform === 'win32' ? path.join(interp.prefix, 'Lib', 'EXTERNALLY-MANAGED') : path.join(interp.prefix, 'lib', `python${minor}`, 'EXTERNALLY-MANAGED'));
  }
  if (layout && !fromLayout) return undefined; // a venv: the marker does not apply
  for (const marker of candidates) {
    try {
      return { marker, message: externallyManagedMessage(await fsp.readFile(marker, 'utf8')) };
    } catch {
      // not this one
    }
  }
  return undefined;
}

const LAYOUT_SCRIPT = 'import json,sys,sysconfig;print(json.dumps({"stdlib":sysconfig.get_path("stdlib"),"prefix":sys.prefix,"basePrefix":getattr(sys,"base_prefix",sys.prefix)}))';

function askLayout(python: string, timeoutMs: number): Promise<{ stdlib: string; prefix: string; basePrefix: string } | undefined> {
  return new Promise((resolve) => {
    execFile(python, ['-I', '-c', LAYOUT_SCRIPT], { timeout: timeoutMs, windowsHide: true, encoding: 'utf8', cwd: path.dirname(python) }, (error, stdout) => {
      if (error) return resolve(undefined);
      try {
        const data = JSON.parse(stdout.trim().split(/\r?\n/).pop() ?? '') as Record<string, unknown>;
        if (typeof data.stdlib === 'string' && typeof data.prefix === 'string' && typeof data.basePrefix === 'string') return resolve(data as { stdlib: string; prefix: string; basePrefix: string });
      } catch {
        // not JSON
      }
      resolve(undefined);
    });
  });
}
