/**
 * The person's side of a session in the panel: its variables, a data viewer over one of them,
 * cells of their own, and how to attach another Jupyter client to its kernel.
 *
 *   GET  /api/sessions/:name/variables?have=  the latest snapshot of the namespace (never waits on a run);
 *                                           `have` (the takenAt the page holds) leaves the names out when unchanged
 *   POST /api/sessions/:name/data           {expression, offset, limit, sort, filter, columns}  one page of a value
 *   POST /api/sessions/:name/data/summary   {expression, columns}                               per-column summary
 *   POST /api/sessions/:name/run            {code}                                              a cell of the person's own
 *   GET  /api/sessions/:name/attach         how to open this session's kernel elsewhere
 *
 * The variables are a snapshot kept here, not a call per look: a panel that looks while a cell
 * runs gets the last one with the run it was taken after ("as of In [n]"), and nothing waits in
 * the kernel's queue. A snapshot is refreshed when a run (or a tool, a restart) has left it
 * stale, the session is idle again, and some panel has looked at the variables lately; when no
 * panel looks, nothing is added to the kernel's work. The data routes evaluate an expression in
 * the kernel, so they are POSTs, guarded like every action; on a busy session they wait a
 * little and then say which run holds the kernel.
 */
import { cutLine } from '../../format.js';
import type { DaemonServices } from '../../services.js';
import type { HelperOutcome, Session } from '../../sessions/session.js';
import { PANEL_CLIENT } from '../../sessions/parties.js';
import { panelBusyText } from './error-words.js';
import type { PanelLooks } from './looks.js';
import type { PanelEvent, PanelModel } from './model.js';

/** How long a data request waits for a busy session before it says which run holds it. */
export const DATA_WAIT_S = 3;
/** Bounds on one helper call for the workspace; the helpers bound each repr themselves. */
const VARIABLES_TIMEOUT_MS = 20_000;
const DATA_TIMEOUT_MS = 60_000;
export const MAX_PAGE_ROWS = 500;
/** The helpers send at most this many columns a page; a summary takes up to 500 names. */
export const MAX_PAGE_COLUMNS = 200;
const MAX_SUMMARY_COLUMNS = 500;
const MAX_EXPRESSION_CHARS = 2000;

export class WorkspaceRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What one variable looks like, as the helpers describe it. */
export interface VariableRow {
  name: string;
  type: string;
  kind: 'data' | 'module' | 'function' | 'class' | 'other';
  shape: number[] | null;
  length: number | null;
  dtypes: string | null;
  size_bytes: number | null;
  preview: string | null;
  viewable: boolean;
  error: string | null;
}

export interface VariablesAnswer {
  names: VariableRow[];
  count: number;
  /** The execution count the snapshot was taken after; null when there is none yet. */
  asOf: number | null;
  takenAt: number | null;
  /** A run (or a restart, a tool) has happened since it was taken. */
  stale: boolean;
  /** The run holding the kernel now, when the snapshot could not be refreshed because of it. */
  busy: { run: string | null; since: number | null; code: string } | null;
  /** Why the latest attempt to take a snapshot failed (pandas missing, a timeout). */
  error: string | null;
}

interface Snapshot {
  names: VariableRow[];
  count: number;
  asOf: number;
  takenAt: number;
  kernelStart: number | undefined;
}

interface Watch {
  snapshot: Snapshot | null;
  dirty: boolean;
  refreshing: Promise<void> | null;
  error: string | null;
}

type Route = (method: 'GET' | 'POST', pattern: RegExp, handler: (request: WorkspaceRequest) => unknown) => void;

export interface WorkspaceRequest {
  params: string[];
  url: URL;
  body: () => Promise<Record<string, unknown>>;
}

export class PanelWorkspace {
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly services: DaemonServices,
    private readonly model: PanelModel,
    /** The panel's record of looks: a look at the variables keeps them refreshed after each run for WATCH_MS. */
    private readonly looks: PanelLooks,
    private readonly now: () => number = Date.now,
  ) {
    // The model's events say when a run ended, a kernel restarted or a session went idle; the
    // model drops its listeners when the panel closes.
    model.on('event', (event: PanelEvent) => this.onEvent(event));
  }

  register(route: Route): void {
    const name = '([^/]+)';
    route('GET', new RegExp(`^/api/sessions/${name}/variables$`), (r) => this.variables(r.params[0], r.url.searchParams.get('have')));
    route('POST', new RegExp(`^/api/sessions/${name}/data$`), async (r) => this.dataPage(r.params[0], await r.body()));
    route('POST', new RegExp(`^/api/sessions/${name}/data/summary$`), async (r) => this.dataSummary(r.params[0], await r.body()));
    route('POST', new RegExp(`^/api/sessions/${name}/run$`), async (r) => this.run(r.params[0], await r.body()));
    route('GET', new RegExp(`^/api/sessions/${name}/attach$`), (r) => this.attach(r.params[0]));
  }

  /** The namespace changed outside a logged run (the panel's Reset). */
  invalidate(name: string): void {
    const watch = this.watches.get(name);
    if (watch) watch.dirty = true;
    this.maybeRefresh(name);
  }

  // ---- variables ---------------------------------------------------------------------------

  async variables(name: string, have: string | null = null): Promise<VariablesAnswer & { unchanged?: boolean }> {
    const session = this.live(name);
    const watch = this.watch(name);
    this.looks.saw(variablesLook(name));
    const current = watch.snapshot !== null && !watch.dirty && watch.snapshot.kernelStart === session.facts().startedAt;
    if (!current) {
      if (isFree(session)) await this.refresh(session, watch);
      else if (watch.refreshing) await watch.refreshing;
    }
    const answer = this.answer(session, watch);
    // A page that holds this very snapshot is told so, without the names again (a few
    // thousand of them are a megabyte of JSON).
    if (have !== null && answer.takenAt !== null && have === String(answer.takenAt)) return { ...answer, names: [], unchanged: true };
    return answer;
  }

  private answer(session: Session, watch: Watch): VariablesAnswer {
    const snap = watch.snapshot;
    const stale = snap === null || watch.dirty || snap.kernelStart !== session.facts().startedAt;
    const running = session.facts().running;
    const front = session.runs.lastUnfinished();
    const busy = stale && !isFree(session) ? { run: running?.run ?? front?.id ?? null, since: running?.since ?? null, code: cutLine(running?.code ?? front?.code ?? '', 80) } : null;
    return {
      names: snap?.names ?? [],
      count: snap?.count ?? 0,
      asOf: snap?.asOf ?? null,
      takenAt: snap?.takenAt ?? null,
      stale,
      busy,
      error: watch.error,
    };
  }

  private watch(name: string): Watch {
    let watch = this.watches.get(name);
    if (!watch) {
      watch = { snapshot: null, dirty: true, refreshing: null, error: null };
      this.watches.set(name, watch);
    }
    return watch;
  }

  private refresh(session: Session, watch: Watch): Promise<void> {
    if (watch.refreshing) return watch.refreshing;
    watch.dirty = false;
    const { startedAt: kernelStart, executionCount: asOf } = session.facts();
    watch.refreshing = (async () => {
      try {
        // Taken only when the kernel is free: a run that slipped in first leaves it stale for the next idle.
        const outcome = await session.helper<{ names: VariableRow[]; count: number }>('variables', {}, { client: PANEL_CLIENT, waitS: 0, timeoutMs: VARIABLES_TIMEOUT_MS });
        if (outcome.kind === 'busy') {
          watch.dirty = true;
          return;
        }
        const structured = outcome.answer.structured ?? { names: [], count: 0 };
        watch.snapshot = { names: structured.names ?? [], count: structured.count ?? structured.names?.length ?? 0, asOf, takenAt: this.now(), kernelStart };
        watch.error = null;
      } catch (error) {
        watch.error = (error as Error).message;
        // Kept stale: the next run, or the next look when idle, tries again.
        watch.dirty = true;
      } finally {
        watch.refreshing = null;
      }
      if (this.services.sessions.find(session.name) === session) this.model.publish({ type: 'variables', session: session.name, asOf: watch.snapshot?.asOf ?? null, error: watch.error });
      // A run that ended while this was being taken left it stale again.
      if (watch.dirty && !watch.error) this.maybeRefresh(session.name);
    })();
    return watch.refreshing;
  }

  private onEvent(event: PanelEvent): void {
    switch (event.type) {
      case 'logged':
      case 'restarted':
      case 'died': {
        const watch = this.watches.get(event.session);
        if (watch) {
          watch.dirty = true;
          watch.error = null;
        }
        return this.maybeRefresh(event.session);
      }
      case 'session':
        return this.maybeRefresh(event.session.name);
      case 'session-removed':
        this.watches.delete(event.name);
        this.looks.forget(variablesLook(event.name));
        return;
    }
  }

  /** Refreshes a stale snapshot someone looks at, once the session is idle (never behind a run). */
  private maybeRefresh(name: string): void {
    const watch = this.watches.get(name);
    if (!watch || !watch.dirty || watch.refreshing || !this.looks.recently(variablesLook(name)) || watch.error) return;
    // The run that was just logged still counts as unfinished until its handle settles; look
    // again once the events of this turn have gone out.
    setImmediate(() => {
      const session = this.services.sessions.find(name);
      if (!session || !watch.dirty || watch.refreshing || !isFree(session)) return;
      void this.refresh(session, watch);
    });
  }

  // ---- the data viewer ---------------------------------------------------------------------

  async dataPage(name: string, body: Record<string, unknown>) {
    const session = this.live(name);
    const args = {
      expression: expressionArg(body),
      offset: integerArg(body, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
      limit: integerArg(body, 'limit', 100, 1, MAX_PAGE_ROWS),
      sort: sortArg(body.sort),
      filter: filterArg(body.filter),
      columns: columnsArg(body.columns),
    };
    return answered(await session.helper('data_page', args, { client: PANEL_CLIENT, waitS: DATA_WAIT_S, timeoutMs: DATA_TIMEOUT_MS }));
  }

  async dataSummary(name: string, body: Record<string, unknown>) {
    const session = this.live(name);
    let columns: string[] | null = null;
    if (body.columns !== undefined && body.columns !== null) {
      if (!Array.isArray(body.columns) || body.columns.length > MAX_SUMMARY_COLUMNS || !body.columns.every((c) => typeof c === 'string')) {
        throw new WorkspaceRequestError(400, `columns must be null or a list of at most ${MAX_SUMMARY_COLUMNS} column names.`);
      }
      columns = body.columns as string[];
    }
    return answered(await session.helper('data_summary', { expression: expressionArg(body), columns }, { client: PANEL_CLIENT, waitS: DATA_WAIT_S, timeoutMs: DATA_TIMEOUT_MS }));
  }

  // ---- cells of the person's own -----------------------------------------------------------

  run(name: string, body: Record<string, unknown>) {
    const session = this.live(name);
    const code = body.code;
    if (typeof code !== 'string' || code.trim() === '') throw new WorkspaceRequestError(400, 'code must be the Python to run, as a non-empty string.');
    const settings = this.services.settings;
    const handle = session.submit({ code, client: PANEL_CLIENT, timeoutS: settings.timeoutS(), outputLimit: settings.outputLimit() });
    // Nobody waits on the handle here: its output reaches the page as the session's live view,
    // and its log entry as a 'logged' event.
    handle.done.catch(() => undefined);
    return { run: handle.id, queuedBehind: handle.queuedBehind?.id ?? null };
  }

  // ---- open elsewhere ----------------------------------------------------------------------

  attach(name: string) {
    const session = this.live(name);
    const facts = session.facts();
    const place = facts.place;
    if (place.kind === 'remote') {
      return {
        kind: 'remote',
        server: place.serverName,
        url: place.serverUrl,
        kernelId: place.kernelId,
        reason: `This kernel runs on the Jupyter server "${place.serverName}". Open that server's own page (JupyterLab or Notebook) and choose the running kernel ${place.kernelId} there.`,
      };
    }
    if (place.kind === 'worker') {
      return {
        kind: 'worker',
        interpreter: session.interpreter?.path ?? null,
        reason:
          'This session runs on the built-in worker, which is not a Jupyter kernel: it has no connection file, so Jupyter, Spyder and other clients cannot attach to it. Install ipykernel in this interpreter and start a new session to get one they can attach to.',
      };
    }
    const file = facts.attachAs ?? null;
    if (!file) return { kind: 'none', reason: 'This kernel has no connection file now (it is starting or has stopped).' };
    return {
      kind: 'ipykernel',
      owned: facts.owned,
      connectionFile: file,
      commands: {
        console: `jupyter console --existing ${shellQuote(file)}`,
        spyder: 'In Spyder: Consoles ▸ Connect to an existing kernel, then pick the connection file above.',
        python: [
          'from jupyter_client import BlockingKernelClient',
          `client = BlockingKernelClient(connection_file=${JSON.stringify(file)})`,
          'client.load_connection_file()',
          'client.start_channels()',
          "client.execute_interactive('print(sorted(n for n in globals() if not n.startswith(\"_\")))')",
        ].join('\n'),
      },
      note: facts.owned
        ? 'The kernel stays this session’s: closing the other client leaves it running; Kill here stops it for everyone.'
        : 'This kernel was started elsewhere; the session is attached to it, as another client would be.',
    };
  }

  private live(name: string): Session {
    const session = this.services.sessions.find(name);
    if (!session) throw new WorkspaceRequestError(404, `There is no running session named "${name}".`);
    return session;
  }
}

function variablesLook(session: string): string {
  return `variables:${session}`;
}

function isFree(session: Session): boolean {
  return session.state === 'idle' && !session.runs.lastUnfinished();
}

/** A helper's answer, or the panel's words for the run that holds the kernel (409). */
function answered(outcome: HelperOutcome<Record<string, unknown>>): Record<string, unknown> {
  if (outcome.kind === 'busy') throw new WorkspaceRequestError(409, panelBusyText(outcome.busy));
  return outcome.answer.structured ?? {};
}

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

// ---- arguments ----

function expressionArg(body: Record<string, unknown>): string {
  const value = body.expression;
  if (typeof value !== 'string' || value.trim() === '') throw new WorkspaceRequestError(400, 'expression must be a non-empty string: the name (or expression) of the value to show.');
  if (value.length > MAX_EXPRESSION_CHARS) throw new WorkspaceRequestError(400, `expression is longer than ${MAX_EXPRESSION_CHARS} characters.`);
  return value;
}

function integerArg(body: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new WorkspaceRequestError(400, `${key} must be a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'any size' : max}.`);
  }
  return value;
}

function sortArg(value: unknown): { column: string; ascending: boolean }[] {
  if (value === undefined || value === null) return [];
  const bad = () => new WorkspaceRequestError(400, 'sort must be a list of {column, ascending}: column a column name, ascending true or false.');
  if (!Array.isArray(value) || value.length > 16) throw bad();
  return value.map((item) => {
    if (typeof item !== 'object' || item === null) throw bad();
    const { column, ascending } = item as Record<string, unknown>;
    if (typeof column !== 'string' || (ascending !== undefined && typeof ascending !== 'boolean')) throw bad();
    return { column, ascending: ascending !== false };
  });
}

function filterArg(value: unknown): { text: string; column: string | null } | null {
  if (value === undefined || value === null) return null;
  const bad = () => new WorkspaceRequestError(400, 'filter must be null or {text, column}: text a string, column a column name or null for every column in view.');
  if (typeof value !== 'object' || Array.isArray(value)) throw bad();
  const { text, column } = value as Record<string, unknown>;
  if (typeof text !== 'string' || text.length > 1000) throw bad();
  if (!(column === undefined || column === null || typeof column === 'string')) throw bad();
  if (text === '') return null;
  return { text, column: column ?? null };
}

function columnsArg(value: unknown): { start: number; count: number } | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new WorkspaceRequestError(400, 'columns must be null or {start, count}.');
  const body = value as Record<string, unknown>;
  return { start: integerArg(body, 'start', 0, 0, Number.MAX_SAFE_INTEGER), count: integerArg(body, 'count', 50, 1, MAX_PAGE_COLUMNS) };
}
