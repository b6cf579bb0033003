/**
 * The panel's "Install ipykernel" action: the plan (the exact command, or why not), the run the
 * person confirmed, its output told live over the panel's event stream, and the outcome. After
 * a success the interpreter is probed afresh (the probe cache on disk too), so new sessions
 * there start on ipykernel; sessions already running keep their engine until restarted.
 *
 *   POST /api/interpreters/install-plan  {path}   → {path, plan}
 *   POST /api/interpreters/install       {path}   → {id, path, command}     then `install` events
 *   GET  /api/interpreters/install/:id            → the job: command, output (bounded), outcome
 *
 * Only a person clicking in the panel gets here; no MCP tool installs packages.
 */
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describeInterpreter, listInterpreters, probeInterpreter } from '../../interpreters/index.js';
import type { Interpreter } from '../../interpreters/types.js';
import { planForInterpreter, type InstallPlan } from '../../interpreters/install-ipykernel.js';
import { runInstall, type InstallOutcome } from '../../interpreters/install-run.js';
import type { SessionManager } from '../../sessions/session-manager.js';

export type InstallEvent =
  | { id: string; path: string; phase: 'output'; stream: 'stdout' | 'stderr'; text: string }
  | { id: string; path: string; phase: 'done'; job: InstallJobView };

export interface InstallJobView {
  id: string;
  path: string;
  command: string;
  state: 'running' | 'succeeded' | 'failed';
  startedAt: string;
  output: string;
  outcome: (Omit<InstallOutcome, 'output'> & { ipykernel: string | null; message: string; runningSessions: string[] }) | null;
}

export class InstallRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly plan?: InstallPlan,
  ) {
    super(message);
  }
}

export interface PanelInstallsOptions {
  sessions: SessionManager;
  stateDir: string;
  /** Tells open panels (an `install` event, and `interpreters` after a success). */
  publish: (event: { type: 'install'; install: InstallEvent } | { type: 'interpreters' }) => void;
}

/** Finished jobs kept for a panel that asks after the fact. */
const KEPT_JOBS = 20;

export class PanelInstalls {
  private readonly jobs = new Map<string, InstallJobView>();
  private readonly runningFor = new Map<string, string>();

  constructor(private readonly options: PanelInstallsOptions) {}

  async plan(path: unknown): Promise<{ path: string; plan: InstallPlan }> {
    const interp = await this.interpreter(path);
    return { path: interp.path, plan: await planForInterpreter(interp, { env: this.options.sessions.env }) };
  }

  async start(path: unknown): Promise<{ id: string; path: string; command: string }> {
    const interp = await this.interpreter(path);
    const busy = this.runningFor.get(interp.path);
    if (busy) throw new InstallRefused(409, `ipykernel is already being installed into ${interp.path}.`);
    const plan = await planForInterpreter(interp, { env: this.options.sessions.env });
    if (plan.kind === 'externally-managed') throw new InstallRefused(409, plan.explanation, plan);
    if (plan.kind === 'unavailable') throw new InstallRefused(409, plan.reason, plan);

    const id = randomUUID();
    const view: InstallJobView = { id, path: interp.path, command: plan.command, state: 'running', startedAt: new Date().toISOString(), output: '', outcome: null };
    this.keep(view);
    this.runningFor.set(interp.path, id);
    const job = runInstall(plan.argv, {
      env: this.options.sessions.env,
      onOutput: (stream, text) => this.options.publish({ type: 'install', install: { id, path: interp.path, phase: 'output', stream, text } }),
    });
    void job.done.then(async (outcome) => {
      try {
        const { output, ...rest } = outcome;
        view.output = output;
        const ipykernel = outcome.ok ? await this.refreshProbe(interp.path) : null;
        const runningSessions = this.options.sessions
          .list()
          .filter((s) => s.interpreter?.path === interp.path)
          .map((s) => s.name);
        view.outcome = { ...rest, ipykernel, runningSessions, message: describeOutcome(outcome, ipykernel, runningSessions) };
        view.state = outcome.ok ? 'succeeded' : 'failed';
      } finally {
        this.runningFor.delete(interp.path);
        this.options.publish({ type: 'install', install: { id, path: interp.path, phase: 'done', job: view } });
        if (outcome.ok) {
          this.options.sessions.rescan();
          this.options.publish({ type: 'interpreters' });
        }
      }
    });
    return { id, path: interp.path, command: plan.command };
  }

  job(id: string): InstallJobView {
    const view = this.jobs.get(id);
    if (!view) throw new InstallRefused(404, `No install ${id} is known (the daemon keeps the last ${KEPT_JOBS}).`);
    return view;
  }

  /** The interpreter the panel named: one discovery lists, or one described by its path. */
  private async interpreter(given: unknown): Promise<Interpreter> {
    if (typeof given !== 'string' || !given.trim()) throw new InstallRefused(400, 'Give the path of the interpreter to install ipykernel into.');
    const env = this.options.sessions.env;
    const listed = (await listInterpreters({ env })).find((i) => i.path === given || i.aliases.includes(given));
    return listed ?? describeInterpreter(given, { env, source: 'interpreter to install into' });
  }

  /** Probes again (memory and <state>/interpreter-probes.json), so new sessions see ipykernel. */
  private async refreshProbe(path: string): Promise<string | null> {
    try {
      const probe = await probeInterpreter(path, { cacheFile: join(this.options.stateDir, 'interpreter-probes.json'), refresh: true });
      return probe.packages.ipykernel ?? null;
    } catch {
      return null;
    }
  }

  private keep(view: InstallJobView): void {
    this.jobs.set(view.id, view);
    for (const id of this.jobs.keys()) {
      if (this.jobs.size <= KEPT_JOBS) break;
      if (this.jobs.get(id)?.state !== 'running') this.jobs.delete(id);
    }
  }
}

function describeOutcome(outcome: InstallOutcome, ipykernel: string | null, running: string[]): string {
  if (!outcome.ok) {
    if (outcome.spawnError) return `The command could not be started (${outcome.spawnError}).`;
    if (outcome.timedOut) return 'The command did not finish in time and was stopped.';
    return outcome.signal ? `The command was stopped by ${outcome.signal}.` : `The command failed (exit code ${outcome.exitCode}). Its output says why.`;
  }
  const found = ipykernel ? `ipykernel ${ipykernel === 'unknown' ? '' : `${ipykernel} `}is installed. New sessions on this interpreter start on ipykernel.` : 'The command succeeded, but the interpreter still does not report ipykernel; new sessions keep using the built-in worker.';
  const keep = running.length
    ? ` Running sessions on it (${running.join(', ')}) keep their engine until restarted.`
    : ' Sessions already running keep their engine until restarted.';
  return found + keep;
}
