/**
 * The heartbeat monitor for any kernel: a ping every interval, and "unresponsive" once pings have
 * gone unanswered for the timeout and the kernel's own check agrees. What a ping is belongs to the
 * kind of kernel: ipykernel echoes on its hb socket from a C thread, so a kernel busy in a long
 * computation still answers and one that is SIGSTOPped or wedged does not (HeartbeatSocket); the
 * built-in worker answers from a Python thread (see app/core/worker/worker-heartbeat.ts).
 */
import { EventEmitter } from 'node:events';
import * as zmq from 'zeromq';
import { channelUrl, type ConnectionInfo } from '../messaging/connection-info.js';

export interface HeartbeatOptions {
  intervalMs?: number;
  /** Silence for this long makes the kernel "unresponsive". */
  timeoutMs?: number;
}

/** One way of asking a kernel whether it is there. */
export interface PingTarget {
  /** True when the kernel answered within `timeoutMs`; never throws. */
  ping(timeoutMs: number): Promise<boolean>;
  /** Frees what pinging holds (a socket of its own), once the heartbeat stops. */
  release?(): void;
}

export class Heartbeat extends EventEmitter<{ unresponsive: [silentMs: number] }> {
  private timer: NodeJS.Timeout | null = null;
  private lastAnswer = Date.now();
  private stopped = false;
  private paused = false;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;

  /** `silenceCondemns` is asked once the silence is long enough: false keeps the kernel alive. */
  constructor(
    private readonly target: PingTarget,
    options: HeartbeatOptions = {},
    private readonly silenceCondemns: () => boolean = () => true,
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

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.target.release?.();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), this.intervalMs);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    if (await this.target.ping(this.intervalMs)) this.lastAnswer = Date.now();
    if (this.stopped) return;
    // Silence is judged by elapsed time, not by one missed ping.
    const silentFor = Date.now() - this.lastAnswer;
    if (!this.paused && silentFor >= this.timeoutMs && this.silenceCondemns()) {
      this.emit('unresponsive', silentFor);
      return; // the owner decides what happens next; no further beats
    }
    this.schedule();
  }
}

/** ipykernel's heartbeat channel: a REQ socket whose 'ping' the kernel echoes. */
export class HeartbeatSocket implements PingTarget {
  private socket: zmq.Request | null = null;

  constructor(private readonly info: ConnectionInfo) {}

  async ping(timeoutMs: number): Promise<boolean> {
    try {
      this.socket ??= this.open();
      this.socket.receiveTimeout = timeoutMs;
      await this.socket.send('ping');
      await this.socket.receive();
      return true;
    } catch {
      return false;
    }
  }

  release(): void {
    this.socket?.close();
    this.socket = null;
  }

  private open(): zmq.Request {
    // relaxed + correlate: a missed reply does not wedge the REQ state machine.
    const socket = new zmq.Request({ linger: 0, relaxed: true, correlate: true });
    socket.connect(channelUrl(this.info, 'hb'));
    return socket;
  }
}
