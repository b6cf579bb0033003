/**
 * The panel's JSON API. Reads are GETs; everything that changes something is a POST with a JSON
 * body (a cross-origin page cannot send one without a preflight, which is never granted).
 * Errors are `{ error }` with a status that says whose fault it was: 400 a bad request, 404 no
 * such session, 409 not now (busy) or taken, 502 a remote Jupyter server failed or did not answer,
 * 500 a failure on our side. No answer and no event ever carries a remote server's token.
 *
 *   GET  /api/health                          {ok, pid, version}
 *   GET  /api/state                           the snapshot a panel starts from
 *   GET  /api/sessions                        {sessions, past}
 *   POST /api/sessions                        {name, interpreter?, cwd?}      start a session here, or
 *                                             {name, server, kernelName?, cwd?}  on a remote server
 *   POST /api/sessions/connect                {name, connectionFile}          attach to a kernel
 *   POST /api/sessions/interrupt-all                                         interrupt every busy session
 *   POST /api/sessions/:name/interrupt | restart | kill | reset
 *   POST /api/sessions/:name/question         {id, action: 'accept', value} | {id, action: 'decline'}
 *                                             the person's answer to what the running code asks (input(), getpass):
 *                                             {outcome}, or 409 when it was answered elsewhere or its run ended
 *   GET  /api/sessions/:name/log?before=&limit=&q=
 *   GET  /api/sessions/:name/figures
 *   GET  /api/sessions/:name/notebook         the record as a notebook that re-runs (.ipynb, a download)
 *   GET  /api/sessions/:name/script           the same as a percent-format script (.py, a download)
 *   GET  /api/file?path=                      a figure or saved output under <state>/sessions
 *   GET  /api/interpreters                    discovered, chosen and why
 *   POST /api/interpreters/choose             {path | null}                   for new sessions
 *   POST /api/interpreters/rescan
 *   POST /api/interpreters/install-plan       {path}                          the ipykernel install command, or why not
 *   POST /api/interpreters/install            {path}                          run it (a person's click); output as `install` events
 *   GET  /api/interpreters/install/:id        that install: output (bounded) and outcome
 *   GET  /api/servers                         remote Jupyter servers {name, url, hasToken, addedAt}
 *   POST /api/servers                         {name, url, token?}             add one, then check it answers
 *   GET  /api/servers/:name/check             does it answer, and with which kernelspecs
 *   GET  /api/servers/:name/kernelspecs       {defaultKernel, kernelspecs: [{name, displayName, language, python}]}
 *   POST /api/servers/:name/remove
 *   GET  /api/sessions/:name/variables | attach, POST …/data | data/summary | run: see workspace-api.ts
 *   GET  /api/clients                         registration with each MCP client
 *   POST /api/clients/:id/register | unregister
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { packageVersion } from '../../package-root.js';
import type { DaemonServices } from '../../services.js';
import { clearProbeCache, describeInterpreter, ipykernelInstallCommand, listInterpreters, probeInterpreter, InterpreterError } from '../../interpreters/index.js';
import { renderRecord, type RecordFormat } from '../../sessions/notebook-export.js';
import { liveRecordMeta, loggedRecordMeta } from '../../sessions/record-meta.js';
import { DEFAULT_SESSION, NoSuchSessionError, SESSION_NAME, SessionError } from '../../sessions/session-manager.js';
import { panelBusyText, panelQuestionGoneText, panelSessionErrorText } from './error-words.js';
import type { QuestionReply } from '../../sessions/question.js';
import type { Session } from '../../sessions/session.js';
import { ToolCallError } from '../../sessions/helper-bridge.js';
import { ServerRegistryError } from '../../remote/server-registry.js';
import { RemoteServerError } from '../../remote/jupyter-api.js';
import {
  CLIENT_IDS,
  getClient,
  isClientId,
  registerClient,
  registrationStatus,
  thisInstallEntry,
  unregisterClient,
  type ClientStatus,
  type PlatformContext,
} from '../../registration/index.js';
import { FileRefused, sendSessionFile } from './files.js';
import { listFigures, LogReader } from './log.js';
import type { PanelLooks } from './looks.js';
import type { PanelModel } from './model.js';
import { PanelServers, ServerRequestRefused } from './servers.js';
import { InstallRefused, PanelInstalls } from './install.js';
import { stateFileNotices } from '../../state-file.js';
import { PanelWorkspace, WorkspaceRequestError } from './workspace-api.js';
import { PANEL_CLIENT } from '../../sessions/parties.js';

export const MAX_BODY_BYTES = 64 * 1024;

export { PANEL_CLIENT };
/** How long a panel action waits for a run that holds the kernel before it answers busy (409) naming that run. */
export const PANEL_WAIT_S = 2;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface PanelApiOptions {
  services: DaemonServices;
  model: PanelModel;
  /** When a panel last looked, and at what (the Variables view's refreshes go by it). */
  looks: PanelLooks;
  /** Where client configs are looked for; tests point it at a temporary home. */
  registration?: Partial<PlatformContext>;
}

type Handler = (request: ApiRequest) => Promise<unknown> | unknown;

interface ApiRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
  body: () => Promise<Record<string, unknown>>;
}

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handler: Handler;
}

/** Marks a handler's result as already sent (files, downloads). */
const SENT = Symbol('sent');

export class PanelApi {
  private readonly routes: Route[] = [];
  private readonly logs = new LogReader();
  private readonly services: DaemonServices;
  private readonly model: PanelModel;
  private readonly registration: Partial<PlatformContext>;
  private readonly servers: PanelServers;
  private readonly installs: PanelInstalls;
  private readonly workspace: PanelWorkspace;

  constructor(options: PanelApiOptions) {
    this.services = options.services;
    this.model = options.model;
    this.registration = options.registration ?? {};
    this.servers = new PanelServers({ registry: this.services.sessions.servers, sessions: () => this.services.sessions.list() });
    // Install events are not session events; they go out on the same stream as the model's.
    this.installs = new PanelInstalls({ sessions: this.services.sessions, stateDir: this.services.stateDir, publish: (event) => this.model.emit('event', event) });
    const name = '([^/]+)';
    this.route('GET', /^\/api\/health$/, () => ({ ok: true, pid: process.pid, version: packageVersion() }));
    this.route('GET', /^\/api\/state$/, () => this.snapshot());
    this.route('GET', /^\/api\/sessions$/, () => ({ sessions: this.model.views(), past: this.model.pastSessions() }));
    this.route('POST', /^\/api\/sessions$/, (r) => this.startSession(r));
    this.route('POST', /^\/api\/sessions\/connect$/, (r) => this.connect(r));
    this.route('POST', /^\/api\/sessions\/interrupt-all$/, () => this.interruptAll());
    this.route('POST', new RegExp(`^/api/sessions/${name}/(interrupt|restart|kill|reset)$`), (r) => this.act(r.params[0], r.params[1]));
    this.route('POST', new RegExp(`^/api/sessions/${name}/question$`), async (r) => this.answerQuestion(r.params[0], await r.body()));
    this.route('GET', new RegExp(`^/api/sessions/${name}/log$`), (r) => this.logPage(r));
    this.route('GET', new RegExp(`^/api/sessions/${name}/figures$`), (r) => this.figures(r.params[0]));
    this.route('GET', new RegExp(`^/api/sessions/${name}/notebook$`), (r) => this.record(r, 'ipynb'));
    this.route('GET', new RegExp(`^/api/sessions/${name}/script$`), (r) => this.record(r, 'py'));
    this.route('GET', /^\/api\/file$/, (r) => this.file(r));
    this.route('GET', /^\/api\/interpreters$/, () => this.interpreters());
    this.route('POST', /^\/api\/interpreters\/choose$/, (r) => this.choose(r));
    this.route('POST', /^\/api\/interpreters\/rescan$/, () => this.rescan());
    this.route('POST', /^\/api\/interpreters\/install-plan$/, async (r) => this.installs.plan((await r.body()).path));
    this.route('POST', /^\/api\/interpreters\/install$/, async (r) => this.installs.start((await r.body()).path));
    this.route('GET', new RegExp(`^/api/interpreters/install/${name}$`), (r) => this.installs.job(r.params[0]));
    this.route('GET', /^\/api\/servers$/, () => this.servers.list());
    this.route('POST', /^\/api\/servers$/, (r) => this.addServer(r));
    this.route('GET', new RegExp(`^/api/servers/${name}/check$`), (r) => this.servers.checkByName(r.params[0]));
    this.route('GET', new RegExp(`^/api/servers/${name}/kernelspecs$`), (r) => this.servers.kernelspecs(r.params[0]));
    this.route('POST', new RegExp(`^/api/servers/${name}/remove$`), (r) => this.removeServer(r.params[0]));
    this.workspace = new PanelWorkspace(this.services, this.model, options.looks);
    this.workspace.register((method, pattern, handler) => this.route(method, pattern, handler));
    this.route('GET', /^\/api\/clients$/, () => this.clients());
    this.route('POST', /^\/api\/clients\/([^/]+)\/(register|unregister)$/, (r) => this.register(r.params[0], r.params[1] === 'register'));
  }

  /** The state a panel starts from (and gets again each time its event stream reconnects). */
  snapshot(): Record<string, unknown> {
    return {
      version: packageVersion(),
      pid: process.pid,
      startedAt: this.services.startedAt,
      stateDir: this.services.stateDir,
      now: Date.now(),
      sessions: this.model.views(),
      past: this.model.pastSessions(),
      // Damaged state files the daemon set aside: the page shows each once.
      notices: stateFileNotices(this.services.stateDir).map((n) => ({ id: n.id, message: n.message })),
    };
  }

  /** Answers the request if it is an API path; false when it is not one. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (!url.pathname.startsWith('/api/')) return false;
    const pathMatches = this.routes.filter((r) => r.pattern.test(url.pathname));
    if (pathMatches.length === 0) {
      sendJson(res, 404, { error: `No such API: ${url.pathname}` });
      return true;
    }
    const route = pathMatches.find((r) => r.method === req.method);
    if (!route) {
      res.setHeader('Allow', [...new Set(pathMatches.map((r) => r.method))].join(', '));
      sendJson(res, 405, { error: `${req.method} is not allowed here.` });
      return true;
    }
    const params = (route.pattern.exec(url.pathname) ?? []).slice(1).map((p) => decodeURIComponent(p));
    try {
      // Every change, with a body or not, must say it is JSON: an HTML form on another site can
      // only send form or text types, so this refuses it even before the Origin check would.
      if (req.method === 'POST' && !isJson(req)) throw new ApiError(415, 'Send a JSON body (Content-Type: application/json).');
      const result = await route.handler({ req, res, url, params, body: () => readJsonBody(req) });
      if (result !== SENT) sendJson(res, 200, result ?? { ok: true });
    } catch (error) {
      const [status, message] = describeFailure(error);
      if (!res.headersSent) sendJson(res, status, { error: message });
      else res.destroy();
    }
    return true;
  }

  private route(method: Route['method'], pattern: RegExp, handler: Handler): void {
    this.routes.push({ method, pattern, handler });
  }

  private live(name: string): Session {
    const session = this.services.sessions.find(name);
    if (!session) throw new ApiError(404, `There is no running session named "${name}".`);
    return session;
  }

  private async startSession(r: ApiRequest) {
    const body = await r.body();
    const name = optionalString(body, 'name') ?? DEFAULT_SESSION;
    // One start path for both places: the session manager sends a request with a server to that
    // server (and refuses an interpreter beside it), as it does for start_kernel.
    const session = await this.services.sessions.start(name, {
      interpreter: optionalString(body, 'interpreter'),
      cwd: optionalString(body, 'cwd'),
      server: optionalString(body, 'server'),
      kernelName: optionalString(body, 'kernelName'),
      startedBy: { connection: 'panel', client: 'the control panel' },
    });
    return { session: this.model.view(session) };
  }

  private async connect(r: ApiRequest) {
    const body = await r.body();
    const name = optionalString(body, 'name') ?? DEFAULT_SESSION;
    const file = optionalString(body, 'connectionFile');
    const session = await this.services.sessions.connect(name, file);
    return { session: this.model.view(session) };
  }

  private async interruptAll() {
    const busy = this.services.sessions.list().filter((s) => s.state === 'busy');
    const results = await Promise.all(busy.map(async (s) => ({ name: s.name, restarted: (await s.interrupt(PANEL_CLIENT)).restarted })));
    return { interrupted: results };
  }

  private async act(name: string, action: string) {
    const session = this.live(name);
    switch (action) {
      case 'interrupt': {
        const { restarted, wasBusy } = await session.interrupt(PANEL_CLIENT);
        return {
          restarted,
          wasBusy,
          message: restarted ? 'The code ignored the interrupt, so the kernel was restarted.' : wasBusy ? 'Interrupted.' : 'Nothing was running.',
        };
      }
      case 'restart': {
        if (!session.facts().owned) throw new ApiError(400, 'This kernel was started elsewhere; restart it there.');
        const { lostNames, warning } = await session.restart(PANEL_CLIENT);
        return { lostNames, message: `Restarted${lostNames.length ? `; lost ${lostNames.length} names` : ''}.${warning ? ` ${warning}` : ''}` };
      }
      case 'kill': {
        const owned = session.facts().owned;
        await this.services.sessions.close(name);
        return { detached: !owned, message: owned ? 'The kernel was stopped.' : 'Detached; the kernel keeps running.' };
      }
      case 'reset': {
        const outcome = await session.reset(PANEL_CLIENT, { waitS: PANEL_WAIT_S, timeoutMs: 30_000 });
        if (outcome.kind === 'busy') throw new ApiError(409, panelBusyText(outcome.busy));
        this.workspace.invalidate(name);
        return { message: outcome.answer.text };
      }
    }
    throw new ApiError(404, `Unknown action ${action}.`);
  }

  /** The person answers (or will not answer) the question the session's running code asks. */
  private answerQuestion(name: string, body: Record<string, unknown>) {
    const session = this.live(name);
    const { id, reply } = questionReply(body);
    const outcome = session.answerQuestion(id, reply, PANEL_CLIENT);
    if (outcome === 'gone') throw new ApiError(409, panelQuestionGoneText());
    return { outcome };
  }

  private dirOf(name: string): string {
    const dir = this.model.sessionDir(name);
    if (!dir) throw new ApiError(404, `There is no session named "${name}".`);
    return dir;
  }

  private logPage(r: ApiRequest) {
    const dir = this.dirOf(r.params[0]);
    const before = integerParam(r.url, 'before');
    const limit = integerParam(r.url, 'limit');
    const query = r.url.searchParams.get('q') ?? undefined;
    return this.logs.page(join(dir, 'log.jsonl'), { before, limit, query });
  }

  private figures(name: string) {
    const dir = this.dirOf(name);
    return { figures: listFigures(this.logs.entries(join(dir, 'log.jsonl')), join(dir, 'figures')) };
  }

  /** The session's record as a download: a notebook, or the percent-format script. */
  private async record(r: ApiRequest, format: RecordFormat) {
    const name = r.params[0];
    const dir = this.dirOf(name);
    const live = this.services.sessions.find(name);
    const entries = this.logs.entries(join(dir, 'log.jsonl'));
    const meta = live ? await liveRecordMeta(live, entries) : loggedRecordMeta(name, entries);
    const body = Buffer.from((await renderRecord(entries, format, meta)).text);
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
    r.res.writeHead(200, {
      'Content-Type': format === 'py' ? 'text/x-python; charset=utf-8' : 'application/x-ipynb+json',
      'Content-Length': body.length,
      'Content-Disposition': `attachment; filename="${name}-${stamp}.${format}"`,
      'Cache-Control': 'no-store',
    });
    r.res.end(body);
    return SENT;
  }

  private async file(r: ApiRequest) {
    await sendSessionFile(r.res, this.services.stateDir, r.url.searchParams.get('path') ?? '');
    return SENT;
  }

  private async interpreters() {
    const sessions = this.services.sessions;
    const [found, choice] = await Promise.all([listInterpreters({ env: sessions.env }), sessions.chosenInterpreter().catch((e: Error) => e)]);
    const chosen = choice instanceof Error ? null : choice;
    const isChosen = (path: string, aliases: string[]) => chosen !== null && (path === chosen.interpreter.path || aliases.includes(chosen.interpreter.path));
    return {
      interpreters: found.map((i) => ({
        path: i.path,
        kind: i.kind,
        name: i.name,
        version: i.version ?? null,
        manager: i.manager ?? null,
        prefix: i.prefix,
        ipykernel: i.hasIpykernel === undefined ? 'unknown' : i.hasIpykernel ? 'yes' : 'no',
        installCommand: i.hasIpykernel === false ? ipykernelInstallCommand(i) : null,
        active: Boolean(i.active),
        chosen: isChosen(i.path, i.aliases),
      })),
      chosen: chosen && { path: chosen.interpreter.path, reason: chosen.reason, version: chosen.probe?.version ?? chosen.interpreter.version ?? null },
      error: choice instanceof Error ? choice.message : null,
      saved: this.services.settings.get('interpreter') ?? null,
      // While the variable is set it wins over anything chosen here; the panel says so.
      envOverride: sessions.env.PYTHON_MCP_INTERPRETER?.trim() || null,
    };
  }

  private async choose(r: ApiRequest) {
    const body = await r.body();
    const path = body.path;
    if (path !== null && (typeof path !== 'string' || !path.trim())) throw new ApiError(400, 'Give the path of an interpreter, or null to let Python Session choose.');
    if (typeof path === 'string') {
      // Checked before it is saved: a choice that cannot start kernels would break every new session.
      const env = this.services.sessions.env;
      let interpreter;
      try {
        interpreter = await describeInterpreter(path, { env, source: 'chosen interpreter' });
      } catch (error) {
        if (error instanceof InterpreterError) throw new ApiError(400, error.message);
        throw error;
      }
      const probe = await probeInterpreter(interpreter.path);
      if (probe.packages.ipykernel == null) {
        throw new ApiError(400, `${interpreter.path} (Python ${probe.version}) does not have ipykernel, which kernels need. Install it with:\n  ${ipykernelInstallCommand(interpreter)}`);
      }
      this.services.settings.set('interpreter', interpreter.path);
    } else {
      this.services.settings.set('interpreter', undefined);
    }
    this.services.sessions.rescan();
    this.model.publish({ type: 'interpreters' });
    return this.interpreters();
  }

  private async rescan() {
    clearProbeCache();
    this.services.sessions.rescan();
    const result = await this.interpreters();
    this.model.publish({ type: 'interpreters' });
    return result;
  }

  private async addServer(r: ApiRequest) {
    const result = await this.servers.add(await r.body());
    // Other open panels reload the list; the event says only that it changed.
    this.model.publish({ type: 'servers' });
    return result;
  }

  private removeServer(name: string) {
    const result = this.servers.remove(name);
    this.model.publish({ type: 'servers' });
    return result;
  }

  private async clients() {
    const statuses = await registrationStatus({ ...this.registration, expected: thisInstallEntry() });
    return { clients: statuses.map(clientView) };
  }

  private async register(id: string, add: boolean) {
    if (!isClientId(id)) throw new ApiError(404, `Unknown client "${id}"; one of ${CLIENT_IDS.join(', ')}.`);
    const result = add
      ? await registerClient(id, thisInstallEntry(), { ...this.registration, keepInterpreter: true })
      : await unregisterClient(id, this.registration);
    this.model.publish({ type: 'clients' });
    const [status] = await registrationStatus({ ...this.registration, expected: thisInstallEntry(), clients: [id] });
    return { message: result.message, changed: result.changed, backup: result.backup ?? null, client: clientView(status) };
  }
}

function clientView(s: ClientStatus) {
  const interpreters = [...new Set(s.files.map((f) => f.entry?.interpreter).filter((i): i is string => i !== undefined))];
  return {
    id: s.client,
    name: s.name,
    installed: s.installed,
    state: s.state,
    registered: s.state === 'current' || s.state === 'stale' || s.state === 'registered',
    paths: s.paths,
    problems: s.problems,
    interpreters,
    // Each client picks up a change its own way: a restart for the apps, a new session for the CLIs.
    restartHint: getClient(s.client).restartHint,
    // What the client does with the entry (Gemini CLI's folder trust), in general: the panel has no one folder in view.
    notes: s.notes,
  };
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  res.end(body);
}

function describeFailure(error: unknown): [number, string] {
  if (error instanceof ApiError) return [error.status, error.message];
  if (error instanceof FileRefused) return [error.status, error.message];
  if (error instanceof ServerRequestRefused) return [error.status, error.message];
  if (error instanceof InstallRefused) return [error.status, error.message];
  if (error instanceof WorkspaceRequestError) return [error.status, error.message];
  if (error instanceof ServerRegistryError) return [400, error.message];
  // A kernelspec the server lacks or that is not Python is the request's fault; the rest
  // (unreachable, timed out, token refused, a server error) is the remote server's.
  if (error instanceof RemoteServerError) return [error.kind === 'not-found' || error.kind === 'unsupported' ? 400 : 502, error.message];
  if (error instanceof SessionError) return [error instanceof NoSuchSessionError ? 404 : 400, panelSessionErrorText(error)];
  if (error instanceof ToolCallError) return [400, error.message];
  if (error instanceof InterpreterError) return [400, error.message];
  const message = error instanceof Error ? error.message : String(error);
  return [500, message || 'Something went wrong in the daemon.'];
}

function isJson(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === 'application/json';
}

async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!isJson(req)) throw new ApiError(415, 'Send a JSON body (Content-Type: application/json).');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'The request body is too large.');
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError(400, 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ApiError(400, `${key} must be a string.`);
  const trimmed = value.trim();
  if (key === 'name' && !SESSION_NAME.test(trimmed)) {
    throw new ApiError(400, `"${trimmed}" is not a valid session name: use letters, digits, '.', '_' or '-' (at most 64).`);
  }
  return trimmed || undefined;
}

/** The longest question id taken: the session's are UUIDs. */
const MAX_QUESTION_ID = 200;

/** A question's answer as the page sends it, checked: which question, and answered or declined. */
function questionReply(body: Record<string, unknown>): { id: string; reply: QuestionReply } {
  const { id, action, value } = body;
  if (typeof id !== 'string' || id === '' || id.length > MAX_QUESTION_ID) throw new ApiError(400, "id must be the question's id, as the session's view gives it.");
  if (action === 'accept') {
    if (typeof value !== 'string') throw new ApiError(400, 'value must be the answer, as a string (it may be empty).');
    return { id, reply: { action: 'accept', value } };
  }
  if (action === 'decline') {
    if (value !== undefined) throw new ApiError(400, 'A declined question takes no value.');
    return { id, reply: { action: 'decline' } };
  }
  throw new ApiError(400, 'action must be "accept" (with a value) or "decline".');
}

function integerParam(url: URL, key: string): number | undefined {
  const raw = url.searchParams.get(key);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new ApiError(400, `${key} must be a whole number.`);
  return value;
}

