/**
 * The tray's view of the daemon: finds it (or starts it), follows its event stream for the
 * sessions' states, and sends it the few commands the tray menu has. The tray never owns
 * kernels; when the daemon restarts, the link finds the new address and key and carries on.
 *
 * No `electron` import: it uses Node's fetch and the panel API, like any other client.
 */
import { EventEmitter } from 'node:events';
import { readPanelAddress, SseParser, type PanelAddress } from '../core/tray-api.js';
import { claudeDesktopState, type Registration, type TraySession } from './tray-state.js';

export interface DaemonLinkOptions {
  stateDir: string;
  /** Starts a daemon in the background (the link then waits for its panel address). */
  spawnDaemon: () => void;
  /** How long to wait for a started daemon to answer. */
  startTimeoutMs?: number;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DaemonLink extends EventEmitter {
  sessions: TraySession[] = [];
  connected = false;
  claudeDesktop: Registration = 'unknown';
  private stopped = false;
  private abort: AbortController | null = null;

  constructor(readonly options: DaemonLinkOptions) {
    super();
  }

  /** The running daemon's panel address, if one answers. */
  async find(): Promise<PanelAddress | null> {
    const address = readPanelAddress(this.options.stateDir);
    if (!address) return null;
    try {
      const res = await fetch(new URL('api/health', address.baseUrl), { headers: { Authorization: `Bearer ${address.token}` }, signal: AbortSignal.timeout(2000) });
      return res.ok ? address : null;
    } catch {
      return null;
    }
  }

  /** The daemon's address, starting one when none answers. */
  async ensureDaemon(): Promise<PanelAddress> {
    const found = await this.find();
    if (found) return found;
    this.options.spawnDaemon();
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 20_000);
    while (Date.now() < deadline) {
      await delay(250);
      const address = await this.find();
      if (address) return address;
    }
    throw new Error('Python Session did not start within 20 s. Run `python-session-mcp serve` in a terminal to see why.');
  }

  /** An API call with the current key; throws with the daemon's message when it fails. */
  async request<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const address = await this.find();
    if (!address) throw new Error('Python Session is not running.');
    const res = await fetch(new URL(path.replace(/^\//, ''), address.baseUrl), {
      method,
      headers: { Authorization: `Bearer ${address.token}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
    const data = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (!res.ok) throw new Error(data.error ?? `The daemon answered ${res.status}.`);
    return data;
  }

  /** Follows the daemon's events until stop(), reconnecting (to a new daemon, too) as needed. */
  start(): void {
    void this.follow();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  async refreshRegistration(): Promise<void> {
    try {
      const { clients } = await this.request<{ clients: { id: string; state: string }[] }>('GET', '/api/clients');
      this.claudeDesktop = claudeDesktopState(clients);
    } catch {
      this.claudeDesktop = 'unknown';
    }
    this.emit('change');
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    if (!connected) this.sessions = [];
    this.emit('change');
  }

  private async follow(): Promise<void> {
    let backoff = 500;
    while (!this.stopped) {
      const address = await this.find();
      if (address) {
        try {
          await this.stream(address);
          backoff = 500;
        } catch {
          /* dropped: reconnect below */
        }
      }
      this.setConnected(false);
      if (this.stopped) return;
      await delay(backoff);
      backoff = Math.min(backoff * 2, 5000);
    }
  }

  private async stream(address: PanelAddress): Promise<void> {
    this.abort = new AbortController();
    const res = await fetch(new URL('api/events', address.baseUrl), {
      headers: { Authorization: `Bearer ${address.token}`, Accept: 'text/event-stream' },
      signal: this.abort.signal,
    });
    if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
    this.setConnected(true);
    void this.refreshRegistration();
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (const event of parser.push(decoder.decode(chunk, { stream: true }))) this.handle(event.event, event.data);
    }
  }

  private handle(name: string, data: string): void {
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    switch (name) {
      case 'snapshot':
        this.sessions = (payload.sessions as TraySession[]) ?? [];
        break;
      case 'session': {
        const view = payload.session as TraySession;
        this.sessions = [...this.sessions.filter((s) => s.name !== view.name), view];
        break;
      }
      case 'session-removed':
        this.sessions = this.sessions.filter((s) => s.name !== payload.name);
        break;
      case 'clients':
        void this.refreshRegistration();
        return;
      default:
        return;
    }
    this.emit('change');
  }
}
