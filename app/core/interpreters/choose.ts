/**
 * Which interpreter new kernels use, and why. PYTHON_MCP_INTERPRETER wins (and is an error
 * when it is not a working Python); then the user's saved choice; then conda (marked envs,
 * then the base of an Anaconda/Miniconda/Miniforge install); then the rest, PATH order first.
 * Among those, the first that has ipykernel — settled from files where possible, so usually
 * exactly one interpreter is ever started, to confirm.
 */
import { describeInterpreter, listInterpreters } from './discover.js';
import { InterpreterError } from './errors.js';
import { ipykernelInstallCommand } from './install-hint.js';
import { ENV_VAR } from './locators/env-var.js';
import { probeInterpreter, type ProbeOptions } from './probe.js';
import type { Choice, DiscoveryOptions, Interpreter, InterpreterKind, PassedOver, Probe } from './types.js';
import { compareVersions } from './version-from-files.js';

/** ipykernel 6 needs 3.8; older Pythons are listed but never chosen. */
export const MIN_PYTHON = '3.8';

export interface ChooseOptions {
  env?: NodeJS.ProcessEnv;
  /** Executable or environment folder the user picked before. */
  savedChoice?: string;
  /** Environments the user marked as preferred: prefixes, executables, or conda env names. */
  markedEnvs?: string[];
  discovery?: DiscoveryOptions;
  /** An already-made listing (saves scanning twice when the caller has just listed). */
  interpreters?: Interpreter[];
  /** Default true: a choice without ipykernel is an error carrying the install command. */
  requireIpykernel?: boolean;
  probe?: ProbeOptions;
  /** How many interpreters whose ipykernel status files could not settle may be probed (default 3). */
  maxUncertainProbes?: number;
}

export interface Ranked {
  interpreter: Interpreter;
  /** 0 marked, 1 conda base, 2 the rest, 3 too old. */
  tier: number;
  /** "conda base environment of anaconda3 at /home/u/anaconda3" */
  label: string;
}

const REST_KIND_ORDER: InterpreterKind[] = ['conda-env', 'pyenv', 'uv', 'windows-registry', 'system', 'venv', 'env-var', 'conda-base'];

function family(manager: string | undefined): number {
  const m = (manager ?? '').toLowerCase();
  if (m.startsWith('anaconda')) return 0;
  if (m.startsWith('miniconda')) return 1;
  if (m.startsWith('miniforge') || m.startsWith('mambaforge')) return 2;
  return 3;
}

export function describeForHumans(i: Interpreter): string {
  const v = i.version ? ` ${i.version}` : '';
  switch (i.kind) {
    case 'conda-base':
      return `conda base environment of ${i.manager ?? 'conda'} at ${i.prefix}`;
    case 'conda-env':
      return `conda environment "${i.name}"${i.manager ? ` (${i.manager})` : ''} at ${i.prefix}`;
    case 'venv':
      return `${i.manager ?? 'venv'} environment "${i.name}"${i.version ? ` (Python ${i.version})` : ''} at ${i.prefix}`;
    case 'pyenv':
      return `pyenv Python${v || ` ${i.name}`} at ${i.path}`;
    case 'uv':
      return `uv-managed Python${v} at ${i.path}`;
    case 'system':
      return `system Python${v} at ${i.path}`;
    case 'windows-registry':
      return `Python${v} registered in Windows at ${i.path}`;
    case 'env-var':
      return `Python${v} at ${i.path}`;
  }
}

function tooOld(version: string | undefined): boolean {
  return version !== undefined && compareVersions(version, MIN_PYTHON) < 0;
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string) => {
    const n = p.replace(/[\\/]+$/, '');
    return process.platform === 'win32' || /^[A-Za-z]:[\\/]/.test(n) ? n.toLowerCase().replace(/\//g, '\\') : n;
  };
  return norm(a) === norm(b);
}

function isMarked(i: Interpreter, marks: readonly string[]): number {
  return marks.findIndex((m) => {
    if (!/[\\/]/.test(m)) return (i.kind === 'conda-env' || i.kind === 'conda-base') && i.condaEnvName === m;
    return [i.path, i.prefix, i.realPath, ...i.aliases].some((p) => samePath(p, m));
  });
}

/** The preference order, best first, with a human label for each. */
export function rankInterpreters(list: readonly Interpreter[], opts: { markedEnvs?: string[] } = {}): Ranked[] {
  const marks = opts.markedEnvs ?? [];
  const ranked = list.map((interpreter) => {
    const mark = isMarked(interpreter, marks);
    const tier = tooOld(interpreter.version) ? 3 : mark >= 0 ? 0 : interpreter.kind === 'conda-base' ? 1 : 2;
    return { interpreter, tier, mark, label: describeForHumans(interpreter) };
  });
  ranked.sort((a, b) => {
    const x = a.interpreter;
    const y = b.interpreter;
    return (
      a.tier - b.tier ||
      (a.tier === 0 ? a.mark - b.mark : 0) ||
      (a.tier === 1 ? family(x.manager) - family(y.manager) : 0) ||
      Number(Boolean(y.active)) - Number(Boolean(x.active)) ||
      (x.pathOrder ?? Infinity) - (y.pathOrder ?? Infinity) ||
      REST_KIND_ORDER.indexOf(x.kind) - REST_KIND_ORDER.indexOf(y.kind) ||
      -compareVersions(x.version, y.version) ||
      x.path.localeCompare(y.path)
    );
  });
  return ranked.map(({ interpreter, tier, label }) => ({ interpreter, tier, label }));
}

function missingIpykernel(who: string, interp: Interpreter, probe: Probe): InterpreterError {
  const cmd = ipykernelInstallCommand(interp);
  return new InterpreterError(
    `${who}: ${interp.path} (Python ${probe.version}) does not have ipykernel, which kernels need. Install it there with:\n  ${cmd}`,
    { reason: 'ipykernel is not installed', code: 'no-ipykernel', interpreter: interp.path, installCommand: cmd },
  );
}

function assertRecentEnough(who: string, interp: Interpreter, probe: Probe): void {
  if (tooOld(probe.version)) {
    const reason = `Python ${probe.version} is too old: Python Session runs code in CPython ${MIN_PYTHON} to 3.13 (on ipykernel, or on its built-in worker where ipykernel is missing); choose one of those`;
    throw new InterpreterError(`${who}: ${interp.path}: ${reason}`, { reason, code: 'too-old', interpreter: interp.path });
  }
}

/** A path the user named (variable or saved choice): described, probed, checked; errors say who named it. */
async function namedChoice(
  who: string,
  given: string,
  opts: ChooseOptions,
  requireIpykernel: boolean,
): Promise<Choice> {
  const interp = await describeInterpreter(given, {
    ...opts.discovery,
    env: opts.discovery?.env ?? opts.env,
    source: who,
    fallbackKind: who === ENV_VAR ? 'env-var' : 'system',
  });
  let probe: Probe;
  try {
    probe = await probeInterpreter(interp.path, opts.probe);
  } catch (err) {
    if (err instanceof InterpreterError) err.message = `${who}: ${err.message}`;
    throw err;
  }
  assertRecentEnough(who, interp, probe);
  const has = probe.packages['ipykernel'] != null;
  if (requireIpykernel && !has) throw missingIpykernel(who, interp, probe);
  return { interpreter: interp, probe, reason: `${who}: ${describeForHumans(interp)} (${has ? 'has' : 'no'} ipykernel)` };
}

function summarise(passed: PassedOver[], labels: Map<string, string>): string {
  if (passed.length === 0) return '';
  const shown = passed.slice(0, 2).map((p) => `${labels.get(p.path) ?? p.path} (${p.reason})`);
  const more = passed.length > 2 ? ` and ${passed.length - 2} more` : '';
  return `; passed over: ${shown.join(', ')}${more}`;
}

export async function chooseInterpreter(opts: ChooseOptions = {}): Promise<Choice> {
  const env = opts.env ?? opts.discovery?.env ?? process.env;
  const requireIpykernel = opts.requireIpykernel ?? true;

  const forced = env[ENV_VAR]?.trim();
  if (forced) return namedChoice(ENV_VAR, forced, { ...opts, env }, requireIpykernel);

  let savedNote = '';
  if (opts.savedChoice) {
    try {
      return await namedChoice('your saved choice', opts.savedChoice, { ...opts, env }, requireIpykernel);
    } catch (err) {
      // A saved env that lacks ipykernel is the user's pick: say how to fix it. One that is gone
      // (deleted env, uninstalled Python) should not stop them working: fall back, and say so.
      if (!(err instanceof InterpreterError) || err.code === 'no-ipykernel') throw err;
      savedNote = `your saved choice ${opts.savedChoice} is not usable (${err.reason}); `;
    }
  }

  const list = opts.interpreters ?? (await listInterpreters({ ...opts.discovery, env: opts.discovery?.env ?? env }));
  const ranked = rankInterpreters(list, { markedEnvs: opts.markedEnvs });
  const labels = new Map(ranked.map((r) => [r.interpreter.path, r.label]));
  const passed: PassedOver[] = [];
  let uncertainBudget = opts.maxUncertainProbes ?? 3;

  for (const r of ranked) {
    const i = r.interpreter;
    if (r.tier === 3) {
      passed.push({ path: i.path, reason: `Python ${i.version} is too old` });
      continue;
    }
    if (requireIpykernel && i.hasIpykernel === false) {
      passed.push({ path: i.path, reason: 'lacks ipykernel', installCommand: ipykernelInstallCommand(i) });
      continue;
    }
    if (requireIpykernel && i.hasIpykernel === undefined) {
      if (uncertainBudget <= 0) continue;
      uncertainBudget--;
    }
    let probe: Probe;
    try {
      probe = await probeInterpreter(i.path, opts.probe);
    } catch (err) {
      passed.push({ path: i.path, reason: err instanceof InterpreterError ? err.reason : String(err) });
      continue;
    }
    if (tooOld(probe.version)) {
      passed.push({ path: i.path, reason: `Python ${probe.version} is too old` });
      continue;
    }
    const has = probe.packages['ipykernel'] != null;
    if (requireIpykernel && !has) {
      passed.push({ path: i.path, reason: 'lacks ipykernel', installCommand: ipykernelInstallCommand(i) });
      continue;
    }
    // Files may have guessed the version; the probe knows.
    const interpreter = { ...i, version: probe.version };
    const reason = `${savedNote}${r.label} (${has ? 'has' : 'no'} ipykernel)${summarise(passed, labels)}`;
    return passed.length ? { interpreter, reason, probe, passedOver: passed } : { interpreter, reason, probe };
  }

  throw noneFound(ranked, passed, savedNote);
}

function noneFound(ranked: Ranked[], passed: PassedOver[], savedNote: string): InterpreterError {
  const best = ranked.find((r) => r.tier < 3 && passed.find((p) => p.path === r.interpreter.path)?.installCommand);
  if (!best) {
    const tried = passed.length ? ` Tried: ${passed.map((p) => `${p.path} (${p.reason})`).join('; ')}.` : '';
    const reason = ranked.length ? 'no working Python 3.8+ was found' : 'no Python interpreter was found';
    return new InterpreterError(
      `${savedNote}${reason[0]!.toUpperCase()}${reason.slice(1)}.${tried} Install Anaconda, Miniconda or Miniforge, or set ${ENV_VAR} to a Python that has ipykernel.`,
      { reason, code: 'none-found' },
    );
  }
  const cmd = ipykernelInstallCommand(best.interpreter);
  const v = best.interpreter.version ? ` (Python ${best.interpreter.version})` : '';
  return new InterpreterError(
    `${savedNote}No Python with ipykernel was found. The best candidate is the ${best.label}${v}. Install ipykernel there with:\n  ${cmd}\nor set ${ENV_VAR} to a Python that has it.`,
    { reason: 'no interpreter has ipykernel', code: 'no-ipykernel', interpreter: best.interpreter.path, installCommand: cmd },
  );
}
