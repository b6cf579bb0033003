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
import { createMessage, decodeMessage, encodeMessage, Signer, type JsonObject, type JupyterMessage } from '../wire/index.js';
import { channelUrl, type ConnectionInfo } from './connection-info.js';

export type RequestChannel = 'shell' | 'control';
export type IopubHandler = (message: JupyterMessage) => void;

/** How long a receive loop may run without letting the rest of the event loop in. */
const YIELD_AFTER_MS = 20;

export interface KernelInfo {
  protocol_version?: string;
  implementation?: string;
  language_info?: { name?: string; version?: string };
  banner?: string;
  [key: string]: unknown;
}

interface PendingReply {
  resolve: (message: JupyterMessage) => void;
  reject: (error: Error) => void;
}

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

export class KernelClient extends EventEmitter {
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
  private readonly pending = new Map<string, PendingReply>();
  private readonly iopubHandlers = new Map<string, IopubHandler>();
  private closed = false;

  constructor(readonly info: ConnectionInfo) {
    super();
    this.signer = new Signer(Buffer.from(info.key, 'utf8'), info.signature_scheme);
    const routingId = this.session;
    // The same routing id on shell and stdin lets the kernel address input requests to us.
    this.shell = new zmq.Dealer({ linger: 0, routingId });
    this.control = new zmq.Dealer({ linger: 0 });
    this.stdin = new zmq.Dealer({ linger: 0, routingId });
    this.iopub = new zmq.Subscriber({ linger: 0 });
    this.iopub.subscribe();
    this.shell.connect(channelUrl(info, 'shell'));
    this.control.connect(channelUrl(info, 'control'));
    this.stdin.connect(channelUrl(info, 'stdin'));
    this.iopub.connect(channelUrl(info, 'iopub'));
    this.sendQueues = { shell: new SendQueue(this.shell), control: new SendQueue(this.control) };
    void this.receiveLoop(this.shell, (message) => this.onReply(message));
    void this.receiveLoop(this.control, (message) => this.onReply(message));
    void this.receiveLoop(this.stdin, (message) => this.onStdin(message));
    void this.receiveLoop(this.iopub, (message) => this.onIopub(message));
  }

  get isClosed(): boolean {
    return this.closed;
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
        this.emit('socket-error', error);
        continue;
      }
      const decoded = decodeMessage(frames, this.signer);
      if (!decoded.ok) {
        if (decoded.reason === 'bad-signature') this.badSignatures++;
        else this.malformed++;
        this.emit('dropped', decoded);
        continue;
      }
      try {
        handle(decoded.message);
      } catch (error) {
        this.emit('handler-error', error);
      }
    }
  }

  private onReply(message: JupyterMessage): void {
    const id = message.parent_header.msg_id;
    const waiter = id ? this.pending.get(id) : undefined;
    if (!waiter) return; // a reply to a request we gave up on
    this.pending.delete(id!);
    waiter.resolve(message);
  }

  private onIopub(message: JupyterMessage): void {
    const parent = message.parent_header.msg_id;
    const handler = parent ? this.iopubHandlers.get(parent) : undefined;
    if (handler) handler(message);
    this.emit('iopub', message, handler !== undefined);
  }

  private onStdin(message: JupyterMessage): void {
    // We always send allow_stdin=false; a kernel that asks anyway gets an empty line, not a hang.
    if (message.header.msg_type === 'input_request') {
      const reply = createMessage('input_reply', this.session, { value: '' }, message.header);
      void this.stdin.send(encodeMessage(reply, this.signer)).catch(() => undefined);
    }
  }

  /** Routes iopub messages whose parent is `msgId` to `handler` until removed. */
  onParent(msgId: string, handler: IopubHandler): () => void {
    this.iopubHandlers.set(msgId, handler);
    return () => this.iopubHandlers.delete(msgId);
  }

  /** Sends a request; `reply` resolves with the kernel's reply message. */
  request(channel: RequestChannel, msgType: string, content: JsonObject, beforeSend?: (msgId: string) => void) {
    const message = createMessage(msgType, this.session, content);
    const msgId = message.header.msg_id;
    beforeSend?.(msgId);
    const reply = new Promise<JupyterMessage>((resolve, reject) => {
      if (this.closed) return reject(new KernelClientClosedError());
      this.pending.set(msgId, { resolve, reject });
      this.sendQueues[channel].send(encodeMessage(message, this.signer)).catch((error) => {
        this.pending.delete(msgId);
        reject(error);
      });
    });
    return { msgId, reply };
  }

  /** Stops waiting for a reply (e.g. the kernel died); the promise rejects with `error`. */
  abandon(msgId: string, error: Error): void {
    const waiter = this.pending.get(msgId);
    this.pending.delete(msgId);
    this.iopubHandlers.delete(msgId);
    waiter?.reject(error);
  }

  /**
   * Sends kernel_info_request until both a reply and an iopub status for one of
   * them arrive. A SUB socket connects asynchronously: the first idle can be
   * published before our subscription lands, and waiting for it would hang.
   */
  async waitForReady(timeoutMs: number, isAlive: () => boolean = () => true): Promise<KernelInfo> {
    const deadline = Date.now() + timeoutMs;
    const ids = new Set<string>();
    let info: KernelInfo | null = null;
    let sawStatus = false;
    const statusSeen = (message: JupyterMessage) => {
      if (message.header.msg_type === 'status' && ids.has(message.parent_header.msg_id ?? '')) sawStatus = true;
    };
    this.on('iopub', statusSeen);
    try {
      let interval = 50;
      while (!(info && sawStatus)) {
        if (this.closed) throw new KernelClientClosedError();
        if (!isAlive()) throw new Error('the kernel process exited while starting');
        if (Date.now() > deadline) throw new Error(`the kernel did not answer kernel_info_request within ${Math.round(timeoutMs / 1000)} s`);
        const { msgId, reply } = this.request('shell', 'kernel_info_request', {}, (id) => ids.add(id));
        const got = await Promise.race([reply, delay(interval).then(() => null)]);
        if (got) info = got.content as KernelInfo;
        else this.abandonQuietly(msgId);
        if (info && !sawStatus) await delay(Math.min(interval, 100));
        interval = Math.min(interval * 2, 500);
      }
      return info;
    } finally {
      this.off('iopub', statusSeen);
    }
  }

  private abandonQuietly(msgId: string): void {
    this.pending.delete(msgId);
  }

  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    const error = new KernelClientClosedError(reason);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    this.iopubHandlers.clear();
    for (const socket of [this.shell, this.control, this.stdin, this.iopub]) socket.close();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
