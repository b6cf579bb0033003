/**
 * Heartbeat monitor. ipykernel echoes on a separate thread, so a kernel busy in
 * a long computation still answers; one that is SIGSTOPped or wedged does not.
 */
import { EventEmitter } from 'node:events';
import * as zmq from 'zeromq';
import { channelUrl, type ConnectionInfo } from './connection-info.js';

export interface HeartbeatOptions {
  intervalMs?: number;
  /** Silence for this long makes the kernel "unresponsive". */
  timeoutMs?: number;
}

export class Heartbeat extends EventEmitter {
  private socket: zmq.Request | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastAnswer = Date.now();
  private stopped = false;
  private paused = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly info: ConnectionInfo,
    options: HeartbeatOptions = {},
  ) {
    super();
    this.intervalMs = options.intervalMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 4000;
  }

  start(): void {
    this.lastAnswer = Date.now();
    this.schedule();
  }

  /** Suspends judgement (e.g. while we deliberately stop the kernel). */
  pause(paused: boolean): void {
    this.paused = paused;
    if (!paused) this.lastAnswer = Date.now();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  private openSocket(): zmq.Request {
    // relaxed + correlate: a missed reply does not wedge the REQ state machine.
    const socket = new zmq.Request({ linger: 0, relaxed: true, correlate: true, receiveTimeout: this.intervalMs });
    socket.connect(channelUrl(this.info, 'hb'));
    return socket;
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    this.socket ??= this.openSocket();
    try {
      await this.socket.send('ping');
      await this.socket.receive();
      this.lastAnswer = Date.now();
    } catch {
      // Timed out: silence is judged below by elapsed time, not by one miss.
    }
    if (this.stopped) return;
    const silentFor = Date.now() - this.lastAnswer;
    if (!this.paused && silentFor >= this.timeoutMs) {
      this.emit('unresponsive', silentFor);
      return; // the owner decides what happens next; no further beats
    }
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
    this.socket = null;
  }
}
