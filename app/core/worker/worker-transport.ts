/**
 * The built-in worker's transport: one loopback TCP connection carrying signed JSON lines
 * (worker-lines.ts). WorkerListener waits for the worker to connect and takes the first
 * connection whose first line is a correctly signed `worker_hello`; anything else that connects
 * is dropped and counted, and the listener closes once the worker is in. WorkerTransport then
 * implements the KernelTransport seam: replies matched by msg_id, iopub routed by parent msg_id
 * (the shared MessageRouter), the shared readiness handshake, and a heartbeat ping.
 *
 * When the worker's side closes (it exited, or it is about to: the connection is its lifeline),
 * 'dropped' is emitted and pending replies are left for close() to fail: the provisioner closes
 * the transport once it knows how the process ended, so a run fails with that account (exit
 * code, signal, what was lost) rather than with "connection closed".
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { createMessage, Signer, type JsonObject, type JupyterMessage } from '../wire/index.js';
import { reasonOf, silentLogger, type EngineLogger } from '../kernel/logger.js';
import { awaitReady } from '../kernel/messaging/readiness.js';
import { askOrRefuse, inputRequestOf, MessageRouter, type IopubHandler, type KernelInfo, type KernelTransport, type RequestChannel, type SentRequest, type TransportEvents } from '../kernel/messaging/transport.js';
import { decodeWorkerLine, encodeWorkerLine, LineSplitter, type DecodedLine } from './worker-lines.js';

export class WorkerTransportClosedError extends Error {
  constructor(reason = 'the connection to the worker was closed') {
    super(reason);
  }
}

/** A connection that has not said hello within this long is closed. */
const HELLO_WITHIN_MS = 10_000;

export class WorkerListener {
  /** Connections refused because their first line did not verify (someone else on loopback). */
  badSignatures = 0;
  private accepted = false;
  private closed = false;
  private readonly strangers = new Set<Socket>();
  private settle: { resolve: (transport: WorkerTransport) => void; reject: (error: Error) => void } | null = null;
  private readonly arrived: Promise<WorkerTransport>;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly signer: Signer,
    private readonly logger: EngineLogger,
  ) {
    this.arrived = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.arrived.catch(() => undefined);
    server.on('connection', (socket) => this.onConnection(socket));
  }

  /** Listens on 127.0.0.1, on a port the system picks; `key` signs every line. */
  static open(key: string, logger: EngineLogger = silentLogger): Promise<WorkerListener> {
    return new Promise((resolve, reject) => {
      const server = createServer({ noDelay: true });
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => {
        server.off('error', reject);
        server.on('error', (error) => logger.write('warn', `worker listener: ${reasonOf(error)}`));
        const address = server.address();
        const port = typeof address === 'object' && address ? address.port : 0;
        resolve(new WorkerListener(server, port, new Signer(Buffer.from(key, 'utf8')), logger));
      });
    });
  }

  /** The transport once the worker has connected and said hello. */
  connection(): Promise<WorkerTransport> {
    return this.arrived;
  }

  /** Gives up waiting (the process exited, the start timed out); the promise rejects with `error`. */
  abort(error: Error): void {
    this.settle?.reject(error);
    this.settle = null;
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.close();
    for (const socket of this.strangers) socket.destroy();
    this.strangers.clear();
  }

  private onConnection(socket: Socket): void {
    if (this.accepted || this.closed) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    this.strangers.add(socket);
    const timer = setTimeout(() => socket.destroy(), HELLO_WITHIN_MS);
    timer.unref();
    let transport: WorkerTransport | null = null;
    const splitter = new LineSplitter(
      (line) => {
        if (transport) return transport.receive(line);
        const decoded = decodeWorkerLine(line, this.signer);
        if (!decoded.ok || decoded.message.header.msg_type !== 'worker_hello' || this.accepted) {
          if (!decoded.ok && decoded.reason === 'bad-signature') this.badSignatures++;
          this.logger.write('warn', `worker listener: refused a connection (${decoded.ok ? 'no hello' : decoded.detail})`);
          socket.destroy();
          return;
        }
        clearTimeout(timer);
        this.accepted = true;
        this.strangers.delete(socket);
        transport = new WorkerTransport(socket, this.signer, decoded.message, this.logger);
        this.close();
        this.settle?.resolve(transport);
        this.settle = null;
      },
      (bytes) => {
        if (transport) transport.overflow(bytes);
        else socket.destroy();
      },
    );
    socket.on('data', (chunk: Buffer) => splitter.push(chunk));
    socket.on('error', () => undefined); // 'close' follows; a stranger's errors are not ours to report
    socket.once('close', () => {
      clearTimeout(timer);
      this.strangers.delete(socket);
    });
  }
}

export class WorkerTransport extends EventEmitter<TransportEvents> implements KernelTransport {
  readonly session = randomUUID();
  /** Lines dropped because their signature did not verify. */
  badSignatures = 0;
  /** Lines dropped because they were not a worker message (or too long). */
  malformed = 0;
  private readonly router = new MessageRouter();
  private readonly pings = new Map<string, (answered: boolean) => void>();
  private closed = false;
  private dropped = false;

  constructor(
    private readonly socket: Socket,
    private readonly signer: Signer,
    /** The worker's first message: its pid and Python version. */
    readonly hello: JupyterMessage,
    private readonly logger: EngineLogger = silentLogger,
  ) {
    super();
    socket.on('error', (error) => this.logger.write('warn', `worker connection: ${reasonOf(error)}`));
    socket.once('close', () => this.onClose());
  }

  get isOpen(): boolean {
    return !this.closed && !this.dropped;
  }

  /** One line from the worker (the listener's splitter hands them over). */
  receive(line: Buffer): void {
    if (this.closed) return;
    const decoded: DecodedLine = decodeWorkerLine(line, this.signer);
    if (!decoded.ok) {
      if (decoded.reason === 'bad-signature') this.badSignatures++;
      else this.malformed++;
      this.logger.write('warn', `worker message dropped: ${decoded.detail}`);
      return;
    }
    const { channel, message } = decoded;
    try {
      if (channel === 'iopub') this.emit('iopub', message, this.router.iopub(message));
      else if (channel === 'hb') this.pings.get(message.parent_header.msg_id ?? '')?.(true);
      else if (channel === 'stdin') this.onStdin(message);
      else this.router.reply(message);
    } catch (error) {
      this.logger.write('error', `handling a ${message.header.msg_type} message failed: ${reasonOf(error)}`);
    }
  }

  /** The code asks a question: whoever listens answers it, on the worker's stdin channel. */
  private onStdin(message: JupyterMessage): void {
    if (message.header.msg_type !== 'input_request') return;
    askOrRefuse(
      this,
      inputRequestOf(message, (value) => {
        if (this.isOpen) this.socket.write(encodeWorkerLine('stdin', createMessage('input_reply', this.session, { status: 'ok', value }, message.header), this.signer));
      }),
    );
  }

  overflow(bytes: number): void {
    this.malformed++;
    this.logger.write('warn', `worker message dropped: a line of more than ${bytes} bytes`);
  }

  request(channel: RequestChannel, msgType: string, content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest {
    const message = createMessage(msgType, this.session, content);
    const msgId = message.header.msg_id;
    beforeSend?.(msgId);
    const reply = this.router.expectReply(msgId, (fail) => {
      if (!this.isOpen) return fail(new WorkerTransportClosedError());
      this.socket.write(encodeWorkerLine(channel, message, this.signer));
    });
    return { msgId, reply };
  }

  onParent(msgId: string, handler: IopubHandler): () => void {
    return this.router.onParent(msgId, handler);
  }

  abandon(msgId: string, error?: Error): void {
    this.router.abandon(msgId, error);
  }

  /** kernel_info_request until a reply and its status have come (the shared handshake). */
  waitForReady(timeoutMs: number, stopped?: () => string | null): Promise<KernelInfo> {
    // One TCP connection: nothing is lost on the way, so the first request is normally the one answered.
    return awaitReady(this, { timeoutMs, firstIntervalMs: 1000, maxIntervalMs: 2000, stopped });
  }

  /** True when the worker's reader thread answers within `timeoutMs`. */
  ping(timeoutMs: number): Promise<boolean> {
    if (!this.isOpen) return Promise.resolve(false);
    const message = createMessage('ping', this.session, {});
    const id = message.header.msg_id;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (answered: boolean) => {
        clearTimeout(timer);
        this.pings.delete(id);
        resolve(answered);
      };
      this.pings.set(id, done);
      this.socket.write(encodeWorkerLine('hb', message, this.signer));
    });
  }

  /** Closes the connection, which ends the worker (its lifeline); pending replies reject. */
  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    this.router.failAll(new WorkerTransportClosedError(reason));
    for (const answer of [...this.pings.values()]) answer(false);
    this.pings.clear();
    this.socket.destroy();
  }

  private onClose(): void {
    if (this.closed || this.dropped) return;
    this.dropped = true;
    this.emit('dropped', 'the worker closed its connection');
  }
}
