/**
 * The first seam under the KernelSupervisor: how messages reach one kernel and come back.
 * Implemented by the ZeroMQ KernelClient (a kernel on this machine), the Jupyter Server
 * WebSocket KernelChannel (a kernel on a server), and anything else that carries Jupyter-shaped
 * messages (the built-in worker's signed JSON lines). A transport knows nothing of runs, deaths
 * or restarts: it sends requests, matches replies by msg_id, routes iopub by parent msg_id
 * (MessageRouter, shared), and says once when it went by itself ('dropped').
 */
import type { EventEmitter } from 'node:events';
import { unansweredReply } from './input-replies.js';
import type { JsonObject, JupyterMessage } from '../../wire/index.js';

export type RequestChannel = 'shell' | 'control';
export type IopubHandler = (message: JupyterMessage) => void;

export interface SentRequest {
  msgId: string;
  /** Settles with the reply, or rejects when the transport closes or drops first. */
  reply: Promise<JupyterMessage>;
}

export interface KernelInfo {
  protocol_version?: string;
  implementation?: string;
  language_info?: { name?: string; version?: string };
  banner?: string;
  [key: string]: unknown;
}

/**
 * A question the code asked on the stdin channel (input(), getpass, the debugger's prompt), for
 * the request whose msg_id is `parent`. `reply` sends the kernel its line once; a question
 * nobody listens for is answered at once as unanswered, so a kernel never hangs on one.
 */
export interface InputRequest {
  parent: string;
  prompt: string;
  password: boolean;
  reply(value: string): void;
}

export type TransportEvents = {
  /** Every iopub message once routed; `routed` says whether a request claimed it by its parent. */
  iopub: [message: JupyterMessage, routed: boolean];
  /** The connection went by itself (never after close()); pending replies are failed after this. */
  dropped: [reason: string];
  /** The kernel asks for a line (only for requests sent with allow_stdin). */
  input: [request: InputRequest];
};

/** Hands a question to whoever listens; with nobody listening, the kernel is told no one can answer. */
export function askOrRefuse(transport: EventEmitter<TransportEvents>, request: InputRequest): void {
  if (transport.listenerCount('input') > 0) transport.emit('input', request);
  else request.reply(unansweredReply('nobody here can answer input for this request'));
}

/** The InputRequest of an `input_request` message; `send` carries the reply's content. */
export function inputRequestOf(message: JupyterMessage, send: (value: string) => void): InputRequest {
  const content = message.content as { prompt?: unknown; password?: unknown };
  let replied = false;
  return {
    parent: message.parent_header.msg_id ?? '',
    prompt: typeof content.prompt === 'string' ? content.prompt : '',
    password: content.password === true,
    reply(value: string) {
      if (replied) return;
      replied = true;
      send(value);
    },
  };
}

export interface KernelTransport extends EventEmitter<TransportEvents> {
  readonly isOpen: boolean;
  /** The session id our requests carry in their headers: iopub under another is another client's. */
  readonly session: string;
  /** Messages refused for a bad signature so far (0 where nothing is signed). */
  readonly badSignatures: number;
  /**
   * Every request is bracketed by busy and idle on iopub. Where a relay can keep passing replies
   * while losing output (a Jupyter server's WebSocket), a reply with none of its iopub this long
   * after it means the output is lost; undefined where that cannot happen.
   */
  readonly outputWatchdogMs?: number;
  /** Sends a request; `beforeSend` runs with its msg_id first, so iopub routing is in place before any reply. */
  request(channel: RequestChannel, msgType: string, content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest;
  /** Routes iopub messages whose parent is `msgId` to `handler` until removed or abandoned. */
  onParent(msgId: string, handler: IopubHandler): () => void;
  /** Stops waiting for a request's reply and output; with `error`, its reply promise rejects with it. */
  abandon(msgId: string, error?: Error): void;
  /** Closes it from our side: no 'dropped'. Pending replies reject. Idempotent. */
  close(reason?: string): void;
}

interface PendingReply {
  resolve: (message: JupyterMessage) => void;
  reject: (error: Error) => void;
}

/**
 * Replies matched to requests by msg_id, iopub routed by parent msg_id: the bookkeeping every
 * transport shares, so that late output of one request can never be attributed to another.
 */
export class MessageRouter {
  private readonly pending = new Map<string, PendingReply>();
  private readonly iopubHandlers = new Map<string, IopubHandler>();

  /** A reply promise for `msgId`; `send` runs inside it and may throw or reject to fail it. */
  expectReply(msgId: string, send: (fail: (error: Error) => void) => void): Promise<JupyterMessage> {
    return new Promise((resolve, reject) => {
      this.pending.set(msgId, { resolve, reject });
      send((error) => {
        this.pending.delete(msgId);
        reject(error);
      });
    });
  }

  /** Hands a reply to its request; false for a reply to a request nobody waits for any more. */
  reply(message: JupyterMessage): boolean {
    const id = message.parent_header.msg_id;
    const waiter = id ? this.pending.get(id) : undefined;
    if (!waiter) return false;
    this.pending.delete(id!);
    waiter.resolve(message);
    return true;
  }

  /** Hands an iopub message to whoever registered its parent; true if someone did. */
  iopub(message: JupyterMessage): boolean {
    const parent = message.parent_header.msg_id;
    const handler = parent ? this.iopubHandlers.get(parent) : undefined;
    handler?.(message);
    return handler !== undefined;
  }

  onParent(msgId: string, handler: IopubHandler): () => void {
    this.iopubHandlers.set(msgId, handler);
    return () => this.iopubHandlers.delete(msgId);
  }

  abandon(msgId: string, error?: Error): void {
    const waiter = this.pending.get(msgId);
    this.pending.delete(msgId);
    this.iopubHandlers.delete(msgId);
    if (error) waiter?.reject(error);
  }

  /** Stops waiting for the reply only; its iopub routing stays. */
  forgetReply(msgId: string): void {
    this.pending.delete(msgId);
  }

  failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    this.iopubHandlers.clear();
  }
}
