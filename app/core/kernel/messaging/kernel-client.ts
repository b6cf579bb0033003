/**
 * The kernel client: owns the ZeroMQ sockets and the messages on them. Requests
 * are matched to replies by msg_id; iopub messages are routed to whoever
 * registered their parent's msg_id, so late output of one request can never be
 * attributed to another. Every incoming message is verified before it is read;
 * forged ones are dropped and counted.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import * as zmq from 'zeromq';
import { createMessage, decodeMessage, encodeMessage, Signer, type JsonObject, type JupyterMessage } from '../../wire/index.js';
import { channelUrl, type ConnectionInfo } from './connection-info.js';
import { reasonOf, silentLogger, type EngineLogger } from '../logger.js';
import { awaitReady, ReadinessError } from './readiness.js';
import { TIMED_OUT, upTo } from '../../timers.js';
import { askOrRefuse, inputRequestOf, MessageRouter, type IopubHandler, type KernelInfo, type KernelTransport, type RequestChannel, type SentRequest, type TransportEvents } from './transport.js';

export type { IopubHandler, KernelInfo, RequestChannel } from './transport.js';

/** How long a receive loop may run without letting the rest of the event loop in. */
const YIELD_AFTER_MS = 20;

export class KernelClientClosedError extends Error {
  constructor(reason = 'the kernel connection was closed') {
    super(reason);
  }
}

/** Serialises sends on one socket: zeromq.js allows a single pending send. */
class SendQueue {
  private tail: Promise<void> = Promise.resolve();
  constructor(private readonly socket: zmq.Dealer) {}
  send(frames: Buffer[]): Promise<void> {
    const next = this.tail.then(() => this.socket.send(frames));
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export class KernelClient extends EventEmitter<TransportEvents> implements KernelTransport {
  readonly session = randomUUID();
  /** Messages dropped because their signature did not verify. */
  badSignatures = 0;
  /** Messages dropped because they could not be parsed. */
  malformed = 0;

  private readonly signer: Signer;
  private readonly shell: zmq.Dealer;
  private readonly control: zmq.Dealer;
  private readonly stdin: zmq.Dealer;
  private readonly iopub: zmq.Subscriber;
  private readonly sendQueues: Record<RequestChannel, SendQueue>;
  private readonly router = new MessageRouter();
  private closed = false;
  /** Settles when the stdin socket's ZMTP handshake with the kernel is done (see waitForReady). */
  private readonly stdinConnected: Promise<void>;

  constructor(
    readonly info: ConnectionInfo,
    private readonly logger: EngineLogger = silentLogger,
  ) {
    super();
    this.signer = new Signer(Buffer.from(info.key, 'utf8'), info.signature_scheme);
    const routingId = this.session;
    // The same routing id on shell and stdin lets the kernel address input requests to us.
    this.shell = new zmq.Dealer({ linger: 0, routingId });
    this.control = new zmq.Dealer({ linger: 0 });
    this.stdin = new zmq.Dealer({ linger: 0, routingId });
    this.iopub = new zmq.Subscriber({ linger: 0 });
    this.iopub.subscribe();
    // Watched before connecting, so the handshake cannot be missed (the watch ends with the socket).
    const stdinEvents = this.stdin.events;
    this.stdinConnected = new Promise((resolve) => stdinEvents.on('handshake', () => resolve()));
    this.shell.connect(channelUrl(info, 'shell'));
    this.control.connect(channelUrl(info, 'control'));
    this.stdin.connect(channelUrl(info, 'stdin'));
    this.iopub.connect(channelUrl(info, 'iopub'));
    this.sendQueues = { shell: new SendQueue(this.shell), control: new SendQueue(this.control) };
    void this.receiveLoop(this.shell, (message) => this.router.reply(message));
    void this.receiveLoop(this.control, (message) => this.router.reply(message));
    void this.receiveLoop(this.stdin, (message) => this.onStdin(message));
    void this.receiveLoop(this.iopub, (message) => this.emit('iopub', message, this.router.iopub(message)));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  private async receiveLoop(socket: zmq.Dealer | zmq.Subscriber, handle: (message: JupyterMessage) => void): Promise<void> {
    let busySince = Date.now();
    while (!this.closed) {
      // While messages keep arriving, receive() resolves at once and this loop would run on
      // microtasks alone: a kernel printing fast would starve everything else in the daemon
      // (other clients, timers, the spill file's writes, which then pile up in memory).
      if (Date.now() - busySince > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        busySince = Date.now();
      }
      let frames: Buffer[];
      try {
        frames = await socket.receive();
      } catch (error) {
        if (this.closed || socket.closed) return;
        this.logger.write('warn', `kernel socket error: ${reasonOf(error)}`);
        continue;
      }
      const decoded = decodeMessage(frames, this.signer);
      if (!decoded.ok) {
        if (decoded.reason === 'bad-signature') this.badSignatures++;
        else this.malformed++;
        this.logger.write('warn', `kernel message dropped: ${decoded.reason}`);
        continue;
      }
      try {
        handle(decoded.message);
      } catch (error) {
        this.logger.write('error', `handling a ${decoded.message.header.msg_type} message failed: ${reasonOf(error)}`);
      }
    }
  }

  private onStdin(message: JupyterMessage): void {
    if (message.header.msg_type !== 'input_request') return;
    const request = inputRequestOf(message, (value) => {
      const reply = createMessage('input_reply', this.session, { status: 'ok', value }, message.header);
      void this.stdin.send(encodeMessage(reply, this.signer)).catch(() => undefined);
    });
    askOrRefuse(this, request);
  }

  onParent(msgId: string, handler: IopubHandler): () => void {
    return this.router.onParent(msgId, handler);
  }

  request(channel: RequestChannel, msgType: string, content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest {
    const message = createMessage(msgType, this.session, content);
    const msgId = message.header.msg_id;
    beforeSend?.(msgId);
    if (this.closed) return { msgId, reply: Promise.reject(new KernelClientClosedError()) };
    const reply = this.router.expectReply(msgId, (fail) => {
      this.sendQueues[channel].send(encodeMessage(message, this.signer)).catch(fail);
    });
    return { msgId, reply };
  }

  abandon(msgId: string, error?: Error): void {
    this.router.abandon(msgId, error);
  }

  /** The shared readiness handshake, with the intervals a kernel on this machine answers in. */
  async waitForReady(timeoutMs: number, isAlive: () => boolean = () => true): Promise<KernelInfo> {
    const deadline = Date.now() + timeoutMs;
    const ready = () => awaitReady(this, { timeoutMs: Math.max(1, deadline - Date.now()), firstIntervalMs: 50, maxIntervalMs: 500, stopped: () => (isAlive() ? null : 'the kernel process exited while starting') });
    try {
      await ready();
      // The kernel sends input_request to our routing id on its stdin ROUTER, which drops what it
      // cannot route: a question asked before our stdin socket is connected would be lost and the
      // code would wait forever. The sockets connect on their own (each retries every ~100 ms while
      // the kernel is not yet listening), so shell answering does not mean stdin is connected.
      if ((await upTo(this.stdinConnected, Math.max(0, deadline - Date.now()))) === TIMED_OUT) {
        throw new ReadinessError(`the kernel did not accept a connection on its stdin channel within ${Math.round(timeoutMs / 1000)} s`, 'timeout');
      }
      // The handshake is done on our side once the kernel's half has reached us, but ours (our
      // routing id) may still be unread by the kernel's I/O thread, and its ROUTER would drop a
      // question until then. One more round trip on shell, sent after ours, comes back only once
      // that thread has read what reached it before the request.
      return await ready();
    } catch (error) {
      if (error instanceof ReadinessError && error.kind === 'closed') throw new KernelClientClosedError();
      throw error;
    }
  }

  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.router.failAll(new KernelClientClosedError(reason));
    for (const socket of [this.shell, this.control, this.stdin, this.iopub]) socket.close();
  }
}
