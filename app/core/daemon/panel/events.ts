/**
 * Live updates for open panels, as server-sent events: a plain HTTP response that stays open,
 * so it passes through the same token, Host and Origin checks as every other request, and the
 * browser reconnects by itself. Everything the panel does goes the other way as ordinary POSTs,
 * so a one-way stream is all it needs (and no WebSocket dependency).
 *
 * Each connection starts with a snapshot, so a panel that reconnects after a gap never shows
 * stale state; after that it gets every PanelEvent as it happens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PanelEvent, PanelModel } from './model.js';

/** A comment line this often keeps proxies and idle timers from closing the stream. */
export const KEEPALIVE_MS = 15_000;
/** Unsent bytes one stream may hold before it is dropped. */
export const MAX_BACKLOG_BYTES = 4 * 1024 * 1024;

export class EventHub {
  private readonly streams = new Set<ServerResponse>();
  private readonly keepalive: NodeJS.Timeout;
  private readonly onEvent = (event: PanelEvent) => this.broadcast(event);

  constructor(
    private readonly model: PanelModel,
    private readonly snapshot: () => Record<string, unknown>,
  ) {
    model.on('event', this.onEvent);
    this.keepalive = setInterval(() => {
      for (const res of this.streams) res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  get size(): number {
    return this.streams.size;
  }

  open(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    req.socket.setNoDelay(true);
    req.socket.setTimeout(0);
    // How long the browser waits before reconnecting after the stream drops (a daemon restart).
    res.write('retry: 1500\n\n');
    send(res, 'snapshot', this.snapshot());
    this.streams.add(res);
    const drop = () => this.streams.delete(res);
    req.on('close', drop);
    res.on('error', drop);
  }

  broadcast(event: PanelEvent): void {
    for (const res of this.streams) {
      // A reader that stopped reading would make us buffer without end; drop it instead. Its
      // browser reconnects and starts again from a snapshot, so nothing is lost but the backlog.
      if (res.writableLength > MAX_BACKLOG_BYTES) {
        this.streams.delete(res);
        res.destroy();
        continue;
      }
      send(res, event.type, event);
    }
  }

  close(): void {
    clearInterval(this.keepalive);
    this.model.off('event', this.onEvent);
    for (const res of this.streams) res.end();
    this.streams.clear();
  }
}

function send(res: ServerResponse, name: string, data: unknown): void {
  // JSON never contains a raw newline, so one `data:` line carries the whole message.
  res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}
