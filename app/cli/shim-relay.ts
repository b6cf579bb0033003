/**
 * The shim's relay between an MCP client (lines on stdio) and the daemon (lines on a socket).
 * It passes newline-delimited JSON-RPC through untouched, reading only enough to keep the
 * session whole across a daemon that goes away:
 *
 * - the client's `initialize` (kept, to replay to a new daemon) and `notifications/initialized`
 *   (a 2026-07-28 client sends neither: each of its requests stands alone, so there is nothing
 *   to replay, and its name comes from the `_meta` of its requests);
 * - the ids of the client's requests in flight — when the daemon drops, each gets an error at
 *   once, so no call hangs;
 * - the ids of the daemon's requests to the client — a reply to a request from a daemon that is
 *   gone is dropped, not sent to its successor.
 *
 * The link is re-established when the client next sends something; messages that arrive
 * meanwhile wait in a queue. The new daemon is initialized with the kept `initialize` (its
 * answer is swallowed: the client already has one), and the next `tools/call` result starts
 * with a note that sessions were lost, so the model knows its variables are gone.
 *
 * It also keeps both ends of the connection alive against what would end them: a line that is
 * not JSON-RPC is answered with a JSON-RPC error instead of being passed on (the daemon would
 * drop it silently, and a request would never be answered), a message past MESSAGE_LIMIT_BYTES
 * is answered with an error instead of reaching the daemon's transport (which hangs up past its
 * limit), and a reply past it is replaced by an error (the client's transport would hang up).
 *
 * Node built-ins only: the shim starts with every client.
 */
import type { OversizedLine } from '../core/daemon/json-lines.js';
import { initializeResult, type QuickAnswers } from './quick-answers.js';
import { completeResult, declaredClientName, declaredVersion, DISCOVER_METHOD, LISTEN_METHOD, listensForTools, STATELESS_REVISION, toolsChangedOn } from '../core/mcp/revisions.js';
import type { DaemonConnector, DaemonLink } from './daemon-link.js';

/**
 * Bytes one JSON-RPC message may take, either way. MCP's stdio transports (the SDK's, which the
 * daemon uses on its socket and most clients use on theirs) give up on the whole connection once
 * more than 10 MiB of input is unread; this leaves room for what follows in the same read.
 */
export const MESSAGE_LIMIT_BYTES = 8 * 1024 * 1024;

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export const DAEMON_STOPPED_MESSAGE =
  'The Python Session daemon stopped while this call ran; its sessions and variables were lost. Run the call again.';

export const SESSIONS_LOST_NOTICE =
  'Note: the Python Session daemon restarted since the last call, so every Python session was lost with its variables, ' +
  'imports and loaded data. Run any setup code again before relying on earlier state.';

/** JSON-RPC code the MCP SDK uses for a closed connection. */
export const CONNECTION_CLOSED_CODE = -32000;

type Id = string | number;

interface Message {
  jsonrpc?: unknown;
  id?: Id | null;
  method?: unknown;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message?: unknown };
}

export interface RelayOptions {
  connector: DaemonConnector;
  /** One JSON-RPC message (no newline) for the client. */
  writeToClient: (line: string) => void;
  diagnostics?: (message: string) => void;
  /** How long the new daemon may take to answer the replayed initialize. */
  replayTimeoutMs?: number;
  /**
   * Called when the client's own `initialize`, or a 2026-07-28 client's first `server/discover`,
   * has been answered (the shim reports its start-up time).
   */
  onInitializeAnswered?: () => void;
  /**
   * What this version's server answers to initialize and tools/list (quick-answers.ts),
   * for answering them while no daemon is linked yet; null when there is nothing to go by.
   */
  quickAnswers?: () => QuickAnswers | null;
}

const isObject = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasId = (m: Message): m is Message & { id: Id } => typeof m.id === 'string' || typeof m.id === 'number';
const isRequest = (m: Message) => hasId(m) && typeof m.method === 'string';
const isNotification = (m: Message) => m.id === undefined && typeof m.method === 'string';
const isResponse = (m: Message) => m.method === undefined && (m.result !== undefined || m.error !== undefined);
/** JSON keeps 1 and "1" apart; so must we. */
const key = (id: unknown) => JSON.stringify(id);

const isPlainObject = (value: unknown): value is Record<string, unknown> => isObject(value);
const isRequestId = (value: unknown) => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
const KEYS = {
  request: new Set(['jsonrpc', 'id', 'method', 'params']),
  notification: new Set(['jsonrpc', 'method', 'params']),
  result: new Set(['jsonrpc', 'id', 'result']),
  error: new Set(['jsonrpc', 'id', 'error']),
};

/** Why `value` is not one JSON-RPC 2.0 message as MCP's SDK accepts it (null when it is). */
function invalidMessage(value: Record<string, unknown>): string | null {
  if (value.jsonrpc !== '2.0') return 'not JSON-RPC 2.0 ("jsonrpc": "2.0" is missing)';
  const only = (keys: Set<string>) => Object.keys(value).every((k) => keys.has(k));
  if (typeof value.method === 'string') {
    if (value.params !== undefined && !isPlainObject(value.params)) return '"params" must be an object';
    if (value.id === undefined) return only(KEYS.notification) ? null : 'unexpected members in a notification';
    if (!isRequestId(value.id)) return '"id" must be a string or an integer';
    return only(KEYS.request) ? null : 'unexpected members in a request';
  }
  if (value.method !== undefined) return '"method" must be a string';
  if (value.result !== undefined) return isRequestId(value.id) && isPlainObject(value.result) && only(KEYS.result) ? null : 'a malformed result';
  if (value.error !== undefined) {
    const error = value.error as Record<string, unknown>;
    const ok = isPlainObject(error) && Number.isInteger(error.code) && typeof error.message === 'string' && (value.id === undefined || isRequestId(value.id));
    return ok && only(KEYS.error) ? null : 'a malformed error';
  }
  return 'neither a request, a notification nor a response';
}

type ClientLine =
  | { ok: true; message: Message }
  /** Each error to answer: JSON-RPC says an id that cannot be read is answered as null. */
  | { ok: false; errors: { id: Id | null; code: number; message: string }[] };

/** One line from the client, checked as the daemon's transport would check it. */
function checkClientLine(line: string): ClientLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, errors: [{ id: null, code: PARSE_ERROR, message: 'Parse error: the message is not valid JSON.' }] };
  }
  if (Array.isArray(value)) {
    // The daemon's transport takes one message per line; a batch would be dropped whole and its requests never answered.
    const ids = value.filter((m) => isObject(m) && typeof m.method === 'string' && isRequestId(m.id)).map((m) => (m as Message).id as Id);
    const message = 'Invalid Request: JSON-RPC batches are not supported; send one message per line.';
    return { ok: false, errors: ids.length ? ids.map((id) => ({ id, code: INVALID_REQUEST, message })) : [{ id: null, code: INVALID_REQUEST, message }] };
  }
  if (!isObject(value)) return { ok: false, errors: [{ id: null, code: INVALID_REQUEST, message: 'Invalid Request: a JSON-RPC message is an object.' }] };
  const why = invalidMessage(value as Record<string, unknown>);
  if (why === null) return { ok: true, message: value };
  const id = isRequestId(value.id) ? (value.id as Id) : null;
  return { ok: false, errors: [{ id, code: INVALID_REQUEST, message: `Invalid Request: ${why}.` }] };
}

/** The id of an oversized message, from its start (`{"jsonrpc":"2.0","id":…`) or its end (`…,"id":7}`). */
function oversizedId(line: OversizedLine): Id | undefined {
  const literal = '(-?\\d+|"(?:[^"\\\\]|\\\\.)*")';
  const match =
    new RegExp(`"id"\\s*:\\s*${literal}\\s*\\}\\s*$`).exec(line.tail) ??
    new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${literal}`).exec(line.head);
  if (!match) return undefined;
  try {
    const id: unknown = JSON.parse(match[1]);
    return isRequestId(id) ? (id as Id) : undefined;
  } catch {
    return undefined;
  }
}

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

function parse(line: string): Message[] | null {
  try {
    const value: unknown = JSON.parse(line);
    if (Array.isArray(value)) return value.filter(isObject); // a JSON-RPC batch (older MCP versions)
    return isObject(value) ? [value] : null;
  } catch {
    return null;
  }
}

export class ShimRelay {
  private link: DaemonLink | null = null;
  private connecting: DaemonLink | null = null;
  private connectingNow = false;
  private readonly queue: string[] = [];
  private initialize: Message | null = null;
  private initialized = false;
  private clientName = 'unknown';
  /** The client's requests awaiting an answer: id key → method. */
  private readonly inflight = new Map<string, string>();
  /** A 2026-07-28 client's `subscriptions/listen` streams that asked for tools/list_changed, by id key. */
  private readonly toolSubscriptions = new Map<string, Id>();
  /** The daemon's requests to the client on the current link. */
  private readonly daemonRequests = new Set<string>();
  private lastDaemonPid: number | null = null;
  private noticePending = false;
  /** The shim's own requests to the daemon (a replayed initialize, a tools check), by id key. */
  private readonly asked = new Map<string, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  private asks = 0;
  private quick: QuickAnswers | null | undefined;
  /** The client's initialize was answered here; the daemon is initialized by replaying it. */
  private initializeAnsweredHere = false;
  /** The tools/list result the client was given here, to check against the daemon's. */
  private toolsServedHere: string | null = null;
  private closed = false;
  /** A 2026-07-28 client's server/discover was answered (it may ask again: told once). */
  private discoverAnswered = false;
  /** Aborts a connection attempt when the client leaves. */
  private readonly leaving = new AbortController();
  private readonly diagnostics: (message: string) => void;

  constructor(private readonly options: RelayOptions) {
    this.diagnostics = options.diagnostics ?? (() => {});
  }

  /** A line from the client. */
  fromClient(line: string): void {
    if (this.closed || !line.trim()) return;
    const checked = checkClientLine(line);
    if (!checked.ok) {
      this.diagnostics(`answered a message that is not JSON-RPC with an error: ${line.slice(0, 200)}`);
      for (const error of checked.errors) this.answer(error.id, error.code, error.message);
      return;
    }
    const only = checked.message;
    this.trackFromClient(only);
    if (!this.link && this.answeredHere(only)) return;
    // A reply to a request from a daemon that is gone means nothing to its successor.
    if (isResponse(only) && hasId(only) && !this.daemonRequests.delete(key(only.id))) return;
    // Cancelling a call that died with the daemon (and was answered with an error) is no reason to start one.
    if (only.method === 'notifications/cancelled' && !this.link && !this.connectingNow) return;
    if (this.link) this.link.send(line);
    else {
      this.queue.push(line);
      void this.ensureLink();
    }
  }

  /** A message from the client too long to pass on (see MESSAGE_LIMIT_BYTES): answered here. */
  fromClientOversized(line: OversizedLine): void {
    if (this.closed) return;
    const id = oversizedId(line);
    const method = /"method"\s*:\s*"([^"\\]{1,100})"/.exec(line.head)?.[1] ?? /"method"\s*:\s*"([^"\\]{1,100})"/.exec(line.tail)?.[1];
    this.diagnostics(`refused a ${megabytes(line.bytes)} message from the client (${method ?? 'method unknown'}, id ${id ?? 'unknown'}); the limit is ${megabytes(MESSAGE_LIMIT_BYTES)}`);
    if (id === undefined) return; // a notification (or an id we cannot read): nothing to answer
    const text =
      `This request is ${megabytes(line.bytes)}, more than the ${megabytes(MESSAGE_LIMIT_BYTES)} Python Session accepts in one message, so it was not run. ` +
      'Write large code or data to a file and load it from there (exec(open(path).read()), or load_data); the session is unchanged.';
    if (method === 'tools/call') this.options.writeToClient(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }));
    else this.answer(id, INVALID_REQUEST, text);
  }

  private answers(): QuickAnswers | null {
    if (this.quick === undefined) this.quick = this.options.quickAnswers?.() ?? null;
    return this.quick;
  }

  /**
   * While no daemon is linked: initialize, tools/list and server/discover answered from the
   * quick answers (a client that gives a new server a second, as Codex does, then has our tools),
   * and the client's `notifications/initialized` held for the replay that initializes the daemon.
   */
  private answeredHere(message: Message): boolean {
    if (message.method === 'notifications/initialized') return this.initializeAnsweredHere;
    if (!hasId(message) || (message.method !== 'initialize' && message.method !== 'tools/list' && message.method !== DISCOVER_METHOD)) return false;
    const answers = this.answers();
    if (!answers) return false;
    const version = declaredVersion(message.params);
    // A version the daemon would refuse is the daemon's to refuse (server/discover answers any).
    if (version !== undefined && version !== STATELESS_REVISION && message.method !== DISCOVER_METHOD) return false;
    let result: Record<string, unknown>;
    if (message.method === DISCOVER_METHOD) {
      result = answers.discover;
      this.discoverWasAnswered();
    } else if (message.method === 'initialize') {
      if (this.initializeAnsweredHere || this.lastDaemonPid !== null) return false;
      this.initializeAnsweredHere = true;
      result = initializeResult(answers, message.params?.protocolVersion);
      queueMicrotask(() => this.options.onInitializeAnswered?.());
    } else {
      if (message.params?.cursor !== undefined) return false; // one page is all the answers hold
      result = answers.tools;
      this.toolsServedHere = JSON.stringify(result);
      if (version === STATELESS_REVISION) result = completeResult(result);
    }
    this.inflight.delete(key(message.id));
    this.options.writeToClient(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    void this.ensureLink();
    return true;
  }

  private discoverWasAnswered(): void {
    if (this.discoverAnswered) return;
    this.discoverAnswered = true;
    queueMicrotask(() => this.options.onInitializeAnswered?.());
  }

  private answer(id: Id | null, code: number, message: string): void {
    this.options.writeToClient(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  /** The client went away (stdin ended). */
  close(): void {
    this.closed = true;
    this.leaving.abort();
    this.link?.close();
    this.connecting?.close();
    this.link = null;
  }

  private trackFromClient(message: Message): void {
    if (isRequest(message)) {
      this.inflight.set(key(message.id), message.method as string);
      if (message.method === 'initialize') {
        this.initialize = message;
        const name = (message.params?.clientInfo as { name?: unknown } | undefined)?.name;
        if (typeof name === 'string' && name.trim()) this.clientName = name.trim();
      } else if (!this.initialize) {
        this.clientName = declaredClientName(message.params) ?? this.clientName;
      }
      if (message.method === LISTEN_METHOD && listensForTools(message.params)) this.toolSubscriptions.set(key(message.id), message.id as Id);
    } else if (isNotification(message)) {
      if (message.method === 'notifications/initialized') this.initialized = true;
      // A cancelled request may never be answered; it is no longer ours to answer either.
      if (message.method === 'notifications/cancelled') {
        this.inflight.delete(key(message.params?.requestId));
        this.toolSubscriptions.delete(key(message.params?.requestId));
      }
    }
  }

  private fromDaemon(link: DaemonLink, line: string): void {
    if (line.length > MESSAGE_LIMIT_BYTES / 4 && Buffer.byteLength(line) > MESSAGE_LIMIT_BYTES) {
      line = this.replaceOversizedReply(line);
      if (!line) return;
    }
    const messages = parse(line);
    if (!messages) {
      this.diagnostics(`dropped a line from the daemon that is not JSON-RPC: ${line.slice(0, 200)}`);
      return;
    }
    if (messages.length === 1) {
      const message = messages[0];
      const asked = isResponse(message) ? this.asked.get(key(message.id)) : undefined;
      if (asked) return asked.resolve(message);
      if (isResponse(message) && hasId(message)) {
        const method = this.inflight.get(key(message.id));
        this.inflight.delete(key(message.id));
        if (method === 'initialize') queueMicrotask(() => this.options.onInitializeAnswered?.());
        if (method === DISCOVER_METHOD && message.result) this.discoverWasAnswered();
        if (method === 'tools/call' && this.noticePending && Array.isArray(message.result?.content)) {
          this.noticePending = false;
          (message.result.content as unknown[]).unshift({ type: 'text', text: SESSIONS_LOST_NOTICE });
          return this.options.writeToClient(JSON.stringify(message));
        }
      }
    }
    for (const message of messages) {
      if (isRequest(message)) this.daemonRequests.add(key(message.id));
      else if (isResponse(message)) this.inflight.delete(key(message.id));
      else if (message.method === 'notifications/cancelled') this.daemonRequests.delete(key(message.params?.requestId));
    }
    if (link === this.link || link === this.connecting) this.options.writeToClient(line);
  }

  /**
   * A reply too long for the client's transport, which would hang up on it (and with it every
   * later call): the client gets an error for that one call instead.
   */
  private replaceOversizedReply(line: string): string {
    const bytes = Buffer.byteLength(line);
    const [message] = parse(line) ?? [];
    const id = message && hasId(message) ? message.id : undefined;
    this.diagnostics(`the daemon's reply ${id === undefined ? '' : `to ${JSON.stringify(id)} `}was ${megabytes(bytes)}, past the ${megabytes(MESSAGE_LIMIT_BYTES)} limit; the client gets an error instead`);
    if (!message || !isResponse(message) || id === undefined) return ''; // not a reply: dropped
    const text = `The reply was ${megabytes(bytes)}, more than an MCP client accepts in one message (${megabytes(MESSAGE_LIMIT_BYTES)}), so it was not sent. Ask for less at a time (a slice, a summary, or write it to a file).`;
    const method = this.inflight.get(key(id));
    if (method === 'tools/call') return JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } });
    return JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: text } });
  }

  private onLinkClosed(link: DaemonLink): void {
    if (link !== this.link) return;
    this.link = null;
    this.daemonRequests.clear();
    this.toolSubscriptions.clear(); // their requests are answered with an error below: the streams ended
    if (this.closed) return;
    const lost = this.failInflight(DAEMON_STOPPED_MESSAGE);
    this.diagnostics(`the daemon connection closed${lost ? `; ${lost} call(s) in flight were answered with an error` : ''}`);
    if (this.queue.length) void this.ensureLink();
  }

  private async ensureLink(): Promise<void> {
    if (this.link || this.connectingNow || this.closed) return;
    this.connectingNow = true;
    let link: DaemonLink | null = null;
    try {
      link = await this.options.connector.connect(this.clientName, this.leaving.signal);
      const current = link;
      this.connecting = current;
      let lostDuringSetup = false;
      const lostError = () => new Error('the daemon closed the connection while it was being set up');
      current.start({
        onLine: (line) => this.fromDaemon(current, line),
        onClose: () => {
          if (current === this.link) return this.onLinkClosed(current);
          lostDuringSetup = true;
          for (const ask of [...this.asked.values()]) ask.reject(lostError());
        },
      });
      if (this.closed) return current.close();
      const reconnect = this.lastDaemonPid !== null;
      if ((reconnect || this.initializeAnsweredHere) && this.initialize && !lostDuringSetup) await this.replayInitialize(current);
      if (lostDuringSetup) throw lostError();
      if (reconnect && current.pid !== this.lastDaemonPid) {
        this.noticePending = true;
        this.diagnostics(`reconnected to a new daemon (pid ${current.pid}); the previous one (pid ${this.lastDaemonPid}) is gone`);
      }
      this.lastDaemonPid = current.pid;
      this.connecting = null;
      this.link = current;
      for (const line of this.queue.splice(0)) current.send(line);
      if (this.toolsServedHere !== null) void this.checkToolsServedHere(current);
    } catch (error) {
      this.connecting = null;
      link?.close();
      this.queue.length = 0;
      if (this.closed) return;
      const message = `Python Session could not reach its daemon: ${(error as Error).message}`;
      this.diagnostics(message);
      this.failInflight(message);
    } finally {
      this.connectingNow = false;
    }
  }

  /** Sends the shim's own request to the daemon; its answer never reaches the client. */
  private ask(link: DaemonLink, request: Message, what: string): Promise<Message> {
    const id = `python-session-shim-${++this.asks}`;
    const timeoutMs = this.options.replayTimeoutMs ?? 30_000;
    const answer = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the daemon did not answer ${what} within ${timeoutMs / 1000} s`)), timeoutMs).unref();
      this.asked.set(key(id), {
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
    link.send(JSON.stringify({ ...request, id }));
    return answer.finally(() => this.asked.delete(key(id)));
  }

  private async replayInitialize(link: DaemonLink): Promise<void> {
    const response = await this.ask(link, this.initialize!, 'initialize');
    if (response.error) throw new Error(`the daemon refused initialize: ${String(response.error.message ?? 'no reason given')}`);
    if (this.initialized) link.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }

  /** The tools the client was given here, against the daemon's own: a difference is announced. */
  private async checkToolsServedHere(link: DaemonLink): Promise<void> {
    const served = this.toolsServedHere;
    this.toolsServedHere = null;
    try {
      const response = await this.ask(link, { jsonrpc: '2.0', method: 'tools/list', params: {} }, 'tools/list');
      if (response.result && JSON.stringify(response.result) === served) return;
    } catch {
      if (this.closed || link !== this.link) return;
    }
    this.diagnostics('the tools given from the quick answers differ from the daemon\'s; the client is told to list them again');
    // A 2026-07-28 client hears of it only on the streams it opened for it (the daemon acknowledged them first).
    if (this.initialize) this.options.writeToClient(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }));
    else for (const id of this.toolSubscriptions.values()) this.options.writeToClient(JSON.stringify(toolsChangedOn(id)));
  }

  /** Answers every request in flight with an error; returns how many there were. */
  private failInflight(message: string): number {
    const ids = [...this.inflight.keys()];
    this.inflight.clear();
    for (const id of ids) {
      this.options.writeToClient(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(id) as Id, error: { code: CONNECTION_CLOSED_CODE, message } }));
    }
    return ids.length;
  }
}
