/**
 * One WebSocket to one kernel on a Jupyter server (/api/kernels/<id>/channels): the four
 * Jupyter channels multiplexed on it, in either framing the server picks (the
 * v1.kernel.websocket.jupyter.org binary protocol or the older JSON one), encoded and decoded
 * by @jupyterlab/services' serializer. Like the local KernelClient, replies are matched to
 * requests by msg_id and iopub messages are routed by their parent's msg_id.
 *
 * It never reconnects by itself: when the socket goes, it says so once ('dropped') and fails
 * every pending request, and the RemoteKernel decides what comes next. A socket can die without
 * a close frame (a laptop sleeping, a NAT forgetting the flow), so it also pings the server and
 * counts a missing pong as a drop.
 *
 * It also answers every burst of incoming data with an unsolicited pong frame. Jupyter Server
 * (Tornado) leaves Nagle's algorithm on for kernel WebSockets: after the "busy" status it holds
 * the rest of a reply until that first packet is acknowledged, and this side's TCP delays its
 * acknowledgement by up to 40 ms. Sending a few bytes at once carries the ACK immediately, and an
 * unsolicited pong (RFC 6455 §5.5.3) asks for no answer, so it cannot start the same wait the
 * other way. Measured on loopback: `1+1` in 48 ms without it, under 10 ms with it.
 */
import { EventEmitter } from 'node:events';
import { KernelMessage } from '@jupyterlab/services';
import { deserialize, serialize } from '@jupyterlab/services/lib/kernel/serialize.js';
import WebSocket from 'ws';
import type { JsonObject, JupyterMessage } from '../wire/index.js';
import { reasonOf, silentLogger, type EngineLogger } from '../kernel/logger.js';
import { askOrRefuse, inputRequestOf, MessageRouter, type IopubHandler, type KernelTransport, type RequestChannel, type SentRequest, type TransportEvents } from '../kernel/messaging/transport.js';
import { JupyterApi, RemoteServerError } from './jupyter-api.js';

export type RemoteChannelName = RequestChannel;

export interface ChannelOptions {
  /** Time allowed for the WebSocket handshake. */
  openTimeoutMs?: number;
  /** How often the server is pinged; 0 turns it off. */
  pingIntervalMs?: number;
  /** A pong missing this long after its ping counts as a dropped connection. */
  pingTimeoutMs?: number;
  /** Answer incoming data at once with an unsolicited pong (see above; default true). */
  promptAcks?: boolean;
  logger?: EngineLogger;
}

export class ChannelClosedError extends Error {}

const PROTOCOLS = Object.values(KernelMessage.supportedKernelWebSocketProtocols) as string[];
/** Outputs can be large (a figure, a wide table); ws's default 100 MiB would close the socket on one. */
const MAX_PAYLOAD = 1024 * 1024 * 1024;

/** A reply with none of its output this long after it: the server stopped relaying the kernel's output. */
const OUTPUT_WATCHDOG_MS = 5000;

export class KernelChannel extends EventEmitter<TransportEvents> implements KernelTransport {
  /** Nothing here is signed by us: the server verifies the kernel's messages. */
  readonly badSignatures = 0;
  readonly outputWatchdogMs = OUTPUT_WATCHDOG_MS;
  private readonly router = new MessageRouter();
  private pingTimer: NodeJS.Timeout | undefined;
  private pongDeadline: NodeJS.Timeout | undefined;
  private closedReason: string | null = null;
  private ackPending = false;

  /** The session id in our requests' headers (KernelTransport). */
  get session(): string {
    return this.clientSession;
  }

  private constructor(
    private readonly ws: WebSocket,
    readonly kernelId: string,
    readonly clientSession: string,
    private readonly options: ChannelOptions,
  ) {
    super();
    ws.on('message', (data: ArrayBuffer | Buffer, isBinary: boolean) => this.onData(data, isBinary));
    ws.on('close', (code: number, reason: Buffer) => this.end(describeClose(code, reason.toString()), false));
    ws.on('error', (error: Error) => this.end(`connection error: ${error.message}`, false));
    ws.on('pong', () => clearTimeout(this.pongDeadline));
    const every = options.pingIntervalMs ?? 15_000;
    if (every > 0) {
      this.pingTimer = setInterval(() => this.ping(), every);
      this.pingTimer.unref();
    }
  }

  /** Opens the kernel's WebSocket; errors say whether the server is down, the token wrong or the kernel gone. */
  static open(api: JupyterApi, kernelId: string, clientSession: string, options: ChannelOptions = {}): Promise<KernelChannel> {
    const timeoutMs = options.openTimeoutMs ?? 20_000;
    const what = `opening kernel ${kernelId}'s connection`;
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(api.channelsUrl(kernelId, clientSession), PROTOCOLS, {
        headers: api.authHeaders(),
        handshakeTimeout: timeoutMs,
        maxPayload: MAX_PAYLOAD,
        followRedirects: false,
      });
      ws.binaryType = 'arraybuffer';
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        ws.on('error', () => undefined); // a late socket error after we gave up must not crash the process
        ws.terminate();
        reject(error);
      };
      ws.once('unexpected-response', (_request, response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body = (body + chunk).slice(0, 2000)));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const detail = api.server.redact(jsonMessage(body));
          if (status === 404) return fail(new RemoteServerError(`Kernel ${kernelId} does not exist on ${api.server.label}.`, 'not-found', 404));
          // A hub or proxy sends an unauthenticated client to its login page.
          fail(status >= 300 && status < 400 ? api.httpError(403, what, 'redirected to a login page') : api.httpError(status, what, detail));
        });
        response.on('error', () => fail(api.httpError(response.statusCode ?? 0, what)));
      });
      ws.once('error', (error) => fail(error.message.includes('Opening handshake has timed out') ? api.networkError(Object.assign(new Error('timeout'), { name: 'TimeoutError' }), what, timeoutMs) : api.networkError(error, what)));
      ws.once('open', () => {
        if (settled) return;
        settled = true;
        ws.removeAllListeners();
        resolve(new KernelChannel(ws, kernelId, clientSession, options));
      });
    });
  }

  get isOpen(): boolean {
    return this.closedReason === null;
  }

  /** The framing the server chose: the v1 binary protocol, or '' for the JSON one. */
  get protocol(): string {
    return this.ws.protocol;
  }

  /** Sends a request; `reply` settles with its reply, or rejects when the connection goes first. */
  request(channel: RemoteChannelName, msgType: string, content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest {
    const message = KernelMessage.createMessage({ msgType: msgType as never, channel: channel as 'shell', session: this.clientSession, content: content as never });
    const msgId = message.header.msg_id;
    beforeSend?.(msgId);
    if (this.closedReason !== null) return { msgId, reply: Promise.reject(new ChannelClosedError(this.closedReason)) };
    const reply = this.router.expectReply(msgId, (fail) => this.sendMessage(message, (error) => fail(new ChannelClosedError(`sending failed: ${error.message}`))));
    return { msgId, reply };
  }

  onParent(msgId: string, handler: IopubHandler): () => void {
    return this.router.onParent(msgId, handler);
  }

  abandon(msgId: string, error?: Error): void {
    this.router.abandon(msgId, error);
  }

  /** Closes the socket on our side: no 'dropped' event. */
  close(reason = 'closed'): void {
    if (this.closedReason !== null) return;
    this.end(reason, true);
    this.ws.close(1000);
    // A server that never answers the close frame must not keep the process alive.
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }

  private sendMessage(message: KernelMessage.IMessage, onError: (error: Error) => void): void {
    try {
      this.ws.send(serialize(message, this.ws.protocol), (error) => error && onError(error));
    } catch (error) {
      onError(error as Error);
    }
  }

  private ping(): void {
    if (this.closedReason !== null || this.ws.readyState !== WebSocket.OPEN) return;
    clearTimeout(this.pongDeadline);
    this.pongDeadline = setTimeout(() => {
      this.end(`no answer to a ping within ${Math.round((this.options.pingTimeoutMs ?? 10_000) / 1000)} s`, false);
      this.ws.terminate();
    }, this.options.pingTimeoutMs ?? 10_000);
    this.pongDeadline.unref();
    this.ws.ping();
  }

  /** One pong per burst of messages read together, sent once they are handled. */
  private acknowledge(): void {
    if (this.ackPending || this.options.promptAcks === false) return;
    this.ackPending = true;
    setImmediate(() => {
      this.ackPending = false;
      if (this.closedReason === null && this.ws.readyState === WebSocket.OPEN) this.ws.pong();
    });
  }

  private onData(data: ArrayBuffer | Buffer, isBinary: boolean): void {
    this.acknowledge();
    let decoded: KernelMessage.IMessage;
    try {
      const raw = data instanceof ArrayBuffer ? data : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
      // The JSON framing sends text frames as strings; the v1 protocol is always binary.
      decoded = deserialize(isBinary ? (raw as ArrayBuffer) : (Buffer.from(raw as ArrayBuffer).toString('utf8') as unknown as ArrayBuffer), this.ws.protocol);
    } catch (error) {
      (this.options.logger ?? silentLogger).write('warn', `a malformed message from kernel ${this.kernelId} was dropped: ${reasonOf(error)}`);
      return;
    }
    const message = toJupyterMessage(decoded);
    switch (decoded.channel) {
      case 'iopub':
        this.emit('iopub', message, this.router.iopub(message));
        return;
      case 'stdin':
        if (message.header.msg_type === 'input_request') {
          askOrRefuse(
            this,
            inputRequestOf(message, (value) => {
              const reply = KernelMessage.createMessage({ msgType: 'input_reply', channel: 'stdin', session: this.clientSession, content: { status: 'ok', value }, parentHeader: decoded.header as never });
              this.sendMessage(reply, () => undefined);
            }),
          );
        }
        return;
      default:
        this.router.reply(message); // false for a reply to a request we gave up on
    }
  }

  /** Once: stops the timers, tells the owner (unless we closed it), then fails what was pending. */
  private end(reason: string, byUs: boolean): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    clearInterval(this.pingTimer);
    clearTimeout(this.pongDeadline);
    this.ws.on('error', () => undefined);
    // 'dropped' first, so the kernel can fail its running call with the whole story before the
    // bare "connection closed" of the pending reply reaches it.
    if (!byUs) this.emit('dropped', reason);
    this.router.failAll(new ChannelClosedError(reason));
  }
}

function toJupyterMessage(message: KernelMessage.IMessage): JupyterMessage {
  const buffers = (message.buffers ?? []).map((b) =>
    ArrayBuffer.isView(b) ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : Buffer.from(b as ArrayBuffer),
  );
  return {
    identities: [],
    header: message.header as unknown as JupyterMessage['header'],
    parent_header: (message.parent_header ?? {}) as JupyterMessage['parent_header'],
    metadata: (message.metadata ?? {}) as JsonObject,
    content: (message.content ?? {}) as JsonObject,
    buffers,
  };
}

function describeClose(code: number, reason: string): string {
  const what =
    code === 1001 ? 'the server is going away (stopped or restarting)'
    : code === 1006 ? 'the connection was cut without a goodbye'
    : code === 1011 ? 'the server hit an error'
    : `closed with code ${code}`;
  return reason ? `${what}: ${reason}` : what;
}

function jsonMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; reason?: unknown };
    return String(parsed.message ?? parsed.reason ?? '').slice(0, 300);
  } catch {
    return body.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
  }
}
