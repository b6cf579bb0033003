/**
 * The shim's relay between an MCP client (lines on stdio) and the daemon (lines on a socket).
 * It passes newline-delimited JSON-RPC through untouched, reading only enough to keep the
 * session whole across a daemon that goes away:
 *
 * - the client's `initialize` (kept, to replay to a new daemon) and `notifications/initialized`;
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
 * Node built-ins only: the shim starts with every client.
 */
import type { DaemonConnector, DaemonLink } from './daemon-link.js';

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
  /** Called when the client's own `initialize` has been answered (the shim reports its start-up time). */
  onInitializeAnswered?: () => void;
}

const isObject = (value: unknown): value is Message => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasId = (m: Message): m is Message & { id: Id } => typeof m.id === 'string' || typeof m.id === 'number';
const isRequest = (m: Message) => hasId(m) && typeof m.method === 'string';
const isNotification = (m: Message) => m.id === undefined && typeof m.method === 'string';
const isResponse = (m: Message) => m.method === undefined && (m.result !== undefined || m.error !== undefined);
/** JSON keeps 1 and "1" apart; so must we. */
const key = (id: unknown) => JSON.stringify(id);

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
  /** The daemon's requests to the client on the current link. */
  private readonly daemonRequests = new Set<string>();
  private lastDaemonPid: number | null = null;
  private noticePending = false;
  private replay: { key: string; resolve: (m: Message) => void; reject: (e: Error) => void } | null = null;
  private replays = 0;
  private closed = false;
  /** Aborts a connection attempt when the client leaves. */
  private readonly leaving = new AbortController();
  private readonly diagnostics: (message: string) => void;

  constructor(private readonly options: RelayOptions) {
    this.diagnostics = options.diagnostics ?? (() => {});
  }

  /** A line from the client. */
  fromClient(line: string): void {
    if (this.closed || !line.trim()) return;
    const messages = parse(line);
    if (messages) {
      for (const message of messages) this.trackFromClient(message);
      const [only] = messages.length === 1 ? messages : [];
      // A reply to a request from a daemon that is gone means nothing to its successor.
      if (only && isResponse(only) && hasId(only) && !this.daemonRequests.delete(key(only.id))) return;
      // Cancelling a call that died with the daemon (and was answered with an error) is no reason to start one.
      if (only?.method === 'notifications/cancelled' && !this.link && !this.connectingNow) return;
    }
    if (this.link) this.link.send(line);
    else {
      this.queue.push(line);
      void this.ensureLink();
    }
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
      }
    } else if (isNotification(message)) {
      if (message.method === 'notifications/initialized') this.initialized = true;
      // A cancelled request may never be answered; it is no longer ours to answer either.
      if (message.method === 'notifications/cancelled') this.inflight.delete(key(message.params?.requestId));
    }
  }

  private fromDaemon(link: DaemonLink, line: string): void {
    const messages = parse(line);
    if (!messages) {
      this.diagnostics(`dropped a line from the daemon that is not JSON-RPC: ${line.slice(0, 200)}`);
      return;
    }
    if (messages.length === 1) {
      const message = messages[0];
      if (isResponse(message) && this.replay && key(message.id) === this.replay.key) return this.replay.resolve(message);
      if (isResponse(message) && hasId(message)) {
        const method = this.inflight.get(key(message.id));
        this.inflight.delete(key(message.id));
        if (method === 'initialize') queueMicrotask(() => this.options.onInitializeAnswered?.());
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

  private onLinkClosed(link: DaemonLink): void {
    if (link !== this.link) return;
    this.link = null;
    this.daemonRequests.clear();
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
          this.replay?.reject(lostError());
        },
      });
      if (this.closed) return current.close();
      const reconnect = this.lastDaemonPid !== null;
      if (reconnect && this.initialize && !lostDuringSetup) await this.replayInitialize(current);
      if (lostDuringSetup) throw lostError();
      if (reconnect && current.pid !== this.lastDaemonPid) {
        this.noticePending = true;
        this.diagnostics(`reconnected to a new daemon (pid ${current.pid}); the previous one (pid ${this.lastDaemonPid}) is gone`);
      }
      this.lastDaemonPid = current.pid;
      this.connecting = null;
      this.link = current;
      for (const line of this.queue.splice(0)) current.send(line);
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

  private async replayInitialize(link: DaemonLink): Promise<void> {
    const id = `python-session-shim-replay-${++this.replays}`;
    const timeoutMs = this.options.replayTimeoutMs ?? 30_000;
    const answer = new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the new daemon did not answer initialize within ${timeoutMs / 1000} s`)), timeoutMs).unref();
      this.replay = {
        key: key(id),
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
    });
    link.send(JSON.stringify({ ...this.initialize, id }));
    try {
      const response = await answer;
      if (response.error) throw new Error(`the new daemon refused initialize: ${String(response.error.message ?? 'no reason given')}`);
    } finally {
      this.replay = null;
    }
    if (this.initialized) link.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
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
