/**
 * `python-session-mcp interpreters [--json]`: every Python found (kind, name, version, path,
 * ipykernel yes/no/unknown), the one new sessions will use and why, and what was skipped and
 * why. Listing starts no Python; choosing starts at most the few it must confirm.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { currentPlatform, resolveStateDir } from '../../core/daemon/state-paths.js';
import { chooseEngine, engineLabel, ipykernelRequired } from '../../core/sessions/engine-choice.js';
import {
  chooseInterpreter,
  discoverInterpreters,
  InterpreterError,
  ipykernelInstallCommand,
  PROBE_PACKAGES,
  type Choice,
  type Discovery,
  type DiscoveryOptions,
  type Interpreter,
  type ProbeOptions,
} from '../../core/interpreters/index.js';

export interface InterpretersCommandIo {
  stdout: (s: string) => void;
  stderr?: (s: string) => void;
}

/** What the daemon would use; read from the settings file when not given. */
export interface InterpretersCommandContext {
  env?: NodeJS.ProcessEnv;
  savedChoice?: string;
  markedEnvs?: string[];
  discovery?: DiscoveryOptions;
  probe?: ProbeOptions;
}

const USAGE = `Usage: python-session-mcp interpreters [--json] [--no-choose]

Lists the Python interpreters on this machine (conda, venv, pyenv, uv, system, Windows
registry) without starting any of them, then the one new sessions will use and why.

  --json        the same as JSON, for programs
  --no-choose   list only: start no Python at all
`;

const defaultIo: InterpretersCommandIo = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

interface Outcome {
  env: NodeJS.ProcessEnv;
  discovery: Discovery;
  choice?: Choice;
  error?: InterpreterError | Error;
}

/** Saved choice, marked envs and the probe cache from the state folder, touching nothing that is not there. */
async function stateContext(env: NodeJS.ProcessEnv): Promise<Pick<InterpretersCommandContext, 'savedChoice' | 'markedEnvs' | 'probe'>> {
  try {
    const dir = resolveStateDir({ ...currentPlatform(), env });
    if (!existsSync(dir)) return {};
    const out: Pick<InterpretersCommandContext, 'savedChoice' | 'markedEnvs' | 'probe'> = {
      probe: { cacheFile: path.join(dir, 'interpreter-probes.json') },
    };
    if (existsSync(path.join(dir, 'settings.json'))) {
      const { Settings } = await import('../../core/settings/settings.js');
      const settings = new Settings(dir);
      // A damaged settings.json is moved aside by the reader; say so here too.
      const { stateFileNotices } = await import('../../core/state-file.js');
      for (const notice of stateFileNotices(dir)) process.stderr.write(`Warning: ${notice.message}\n`);
      out.savedChoice = settings.get('interpreter');
      out.markedEnvs = settings.get('markedEnvs');
    }
    return out;
  } catch {
    // Unreadable settings must not stop a diagnostic command.
    return {};
  }
}

function isChosen(i: Interpreter, c: Interpreter | undefined): boolean {
  if (!c) return false;
  return i.path === c.path || i.aliases.includes(c.path) || (i.prefix === c.prefix && i.realPath === c.realPath);
}

function ipykernelCell(i: Interpreter, choice: Choice | undefined): string {
  if (choice && isChosen(i, choice.interpreter) && choice.probe) return choice.probe.packages['ipykernel'] != null ? 'yes' : 'no';
  return i.hasIpykernel === undefined ? 'unknown' : i.hasIpykernel ? 'yes' : 'no';
}

function engineCell(i: Interpreter, o: Outcome): string {
  const cell = ipykernelCell(i, o.choice);
  return engineLabel(cell === 'unknown' ? undefined : cell === 'yes', o.env.PYTHON_MCP_ENGINE);
}

function displayName(i: Interpreter): string {
  if ((i.kind === 'conda-base' || i.kind === 'conda-env') && i.manager) return `${i.name} (${i.manager})`;
  if (i.kind === 'venv' && i.manager && i.manager !== 'venv') return `${i.name} (${i.manager})`;
  return i.name;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows
    .map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ').trimEnd())
    .join('\n');
}

function render(o: Outcome): string {
  const { interpreters, skipped, elapsedMs } = o.discovery;
  const out: string[] = [];
  const n = interpreters.length;
  out.push(`Found ${n} Python interpreter${n === 1 ? '' : 's'} in ${Math.round(elapsedMs)} ms, without starting any of them.`, '');
  if (n > 0) {
    const rows = [[' ', 'KIND', 'NAME', 'VERSION', 'IPYKERNEL', 'ENGINE', 'PATH']];
    for (const i of interpreters) {
      rows.push([
        isChosen(i, o.choice?.interpreter) ? '*' : ' ',
        i.kind,
        displayName(i),
        i.version ?? '?',
        ipykernelCell(i, o.choice),
        engineCell(i, o),
        i.path,
      ]);
    }
    out.push(table(rows), '');
  }
  if (o.choice) {
    const c = o.choice;
    out.push(`Chosen: ${c.interpreter.path}`, `Why:    ${c.reason}`);
    if (c.probe) {
      const have = PROBE_PACKAGES.filter((p) => c.probe!.packages[p] != null).map((p) => `${p} ${c.probe!.packages[p]}`);
      const missing = PROBE_PACKAGES.filter((p) => c.probe!.packages[p] == null);
      out.push(
        `Python: ${c.probe.version} (${c.probe.implementation}, ${c.probe.platform})`,
        `Has:    ${have.join(', ') || 'none of the usual packages'}${missing.length ? `\nLacks:  ${missing.join(', ')}` : ''}`,
      );
      try {
        const engine = chooseEngine({ hasIpykernel: c.probe.packages['ipykernel'] != null, forced: o.env.PYTHON_MCP_ENGINE, installCommand: ipykernelInstallCommand(c.interpreter) });
        out.push(`Engine: ${engine.engine === 'worker' ? 'the built-in worker' : 'ipykernel'} — ${engine.reason}${engine.upgrade ? `\n        ${engine.upgrade}` : ''}`);
      } catch (err) {
        out.push(`Engine: ${(err as Error).message}`);
      }
    }
  } else if (o.error) {
    out.push(`No interpreter can be used: ${o.error.message}`);
  }
  if (skipped.length) {
    out.push('', `Skipped ${skipped.length}:`);
    for (const s of skipped) out.push(`  ${s.path} — ${s.reason}${s.source ? ` (from ${s.source})` : ''}`);
  }
  return out.join('\n') + '\n';
}

function toJson(o: Outcome): unknown {
  const err = o.error;
  return {
    interpreters: o.discovery.interpreters.map((i) => ({ ...i, ipykernel: ipykernelCell(i, o.choice), engine: engineCell(i, o), chosen: isChosen(i, o.choice?.interpreter) })),
    chosen: o.choice ? { path: o.choice.interpreter.path, reason: o.choice.reason, interpreter: o.choice.interpreter, probe: o.choice.probe ?? null, passedOver: o.choice.passedOver ?? [] } : null,
    error: err
      ? {
          message: err.message,
          reason: err instanceof InterpreterError ? err.reason : err.message,
          code: err instanceof InterpreterError ? err.code : 'error',
          installCommand: err instanceof InterpreterError ? (err.installCommand ?? null) : null,
          interpreter: err instanceof InterpreterError ? (err.interpreter ?? null) : null,
        }
      : null,
    skipped: o.discovery.skipped,
    elapsedMs: Math.round(o.discovery.elapsedMs * 10) / 10,
  };
}

/** Exit code: 0 listed (and chosen, unless --no-choose); 1 no interpreter can be used; 2 bad arguments. */
export async function interpretersCommand(
  argv: string[],
  io: InterpretersCommandIo = defaultIo,
  context: InterpretersCommandContext = {},
): Promise<number> {
  let json = false;
  let choose = true;
  for (const a of argv) {
    if (a === '--json') json = true;
    else if (a === '--no-choose') choose = false;
    else if (a === '--help' || a === '-h') {
      io.stdout(USAGE);
      return 0;
    } else {
      (io.stderr ?? io.stdout)(`Unknown option "${a}".\n\n${USAGE}`);
      return 2;
    }
  }
  const env = context.env ?? process.env;
  const state = context.savedChoice !== undefined || context.markedEnvs !== undefined ? {} : await stateContext(env);
  const discoveryOpts: DiscoveryOptions = { ...context.discovery, env: context.discovery?.env ?? env };
  const discovery = await discoverInterpreters(discoveryOpts);
  const outcome: Outcome = { env, discovery };
  if (choose) {
    try {
      outcome.choice = await chooseInterpreter({
        env,
        savedChoice: context.savedChoice ?? state.savedChoice,
        markedEnvs: context.markedEnvs ?? state.markedEnvs,
        discovery: discoveryOpts,
        interpreters: discovery.interpreters,
        probe: context.probe ?? state.probe,
        // The same rule as the daemon's: any Python runs code, on ipykernel or the built-in worker.
        requireIpykernel: ipykernelRequired(env),
      });
    } catch (err) {
      outcome.error = err instanceof Error ? err : new Error(String(err));
    }
  }
  io.stdout(json ? JSON.stringify(toJson(outcome), null, 2) + '\n' : render(outcome));
  return outcome.error ? 1 : 0;
}
