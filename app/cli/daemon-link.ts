/**
 * The shim's line to the daemon: connect to the socket, say hello as an MCP client, and wait
 * for the daemon's ack. When nothing listens, start a daemon in the background and keep
 * trying, with backoff, until it answers or the deadline passes.
 *
 * Node built-ins only: this runs in every client's start-up path.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { LineSplitter } from '../core/daemon/json-lines.js';
import { handshakeLine, type McpAck } from '../core/daemon/protocol.js';
import { ensurePrivateDir } from '../core/daemon/state-paths.js';

export interface LinkHandlers {
  onLine(line: string): void;
  onClose(): void;
}

export interface DaemonLink {
  /** The daemon's pid, from its ack: a different pid after a reconnect means a new daemon. */
  readonly pid: number;
  /** Starts delivering the daemon's lines (anything that arrived earlier is delivered first). */
  start(handlers: LinkHandlers): void;
  send(line: string): void;
  close(): void;
}

export interface DaemonConnector {
  /** `signal` aborts the attempt (the client left): no daemon is started after that. */
  connect(clientName: string, signal?: AbortSignal): Promise<DaemonLink>;
}

export class DaemonUnreachableError extends Error {
  override name = 'DaemonUnreachableError';
}

type Attempt =
  | { kind: 'linked'; link: DaemonLink }
  | { kind: 'absent' }
  | { kind: 'refused'; error: string; retry: boolean }
  /** Connected, then closed before any answer. */
  | { kind: 'dropped' };

const ABSENT_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK']);

/** One connection attempt: handshake (with the client's folder, when known), then the ack line (or a refusal). */
export function attemptLink(socketPath: string, clientName: string, ackTimeoutMs: number, cwd?: string): Promise<Attempt> {
  return new Promise((resolve) => {
    const socket = net.connect(socketPath);
    const lines = new LineSplitter();
    let connected = false;
    let link: SocketLink | null = null;
    const settle = (attempt: Attempt) => {
      clearTimeout(timer);
      if (attempt.kind !== 'linked') socket.destroy();
      resolve(attempt);
    };
    const timer = setTimeout(
      () => settle({ kind: 'refused', error: `the daemon accepted the connection but did not answer within ${ackTimeoutMs / 1000} s`, retry: false }),
      ackTimeoutMs,
    ).unref(); // the shim's timers never hold it up once the client has gone (stdin is what keeps it alive)
    socket.on('connect', () => {
      connected = true;
      socket.write(handshakeLine({ hello: 'mcp', client: clientName, ...(cwd ? { cwd } : {}) }));
    });
    socket.on('data', (chunk: Buffer) => {
      const received = lines.push(chunk);
      if (link) return link.deliver(received);
      const first = received.shift();
      if (first === undefined) return;
      let ack: Partial<McpAck> & { error?: string; retry?: boolean };
      try {
        ack = JSON.parse(first) as typeof ack;
      } catch {
        return settle({ kind: 'refused', error: `${socketPath} is not a Python Session daemon (it said: ${first.slice(0, 120)})`, retry: false });
      }
      if (ack.ok !== true || typeof ack.pid !== 'number') {
        return settle({ kind: 'refused', error: String(ack.error ?? 'the daemon refused the connection'), retry: ack.retry === true });
      }
      link = new SocketLink(socket, ack.pid);
      link.deliver(received);
      settle({ kind: 'linked', link });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (link) return; // the 'close' that follows tells the link
      if (!connected && ABSENT_CODES.has(error.code ?? '')) settle({ kind: 'absent' });
      else if (!connected) settle({ kind: 'refused', error: `cannot connect to ${socketPath}: ${error.message}`, retry: false });
    });
    socket.on('close', () => {
      if (link) link.closed();
      else settle(connected ? { kind: 'dropped' } : { kind: 'absent' });
    });
  });
}

class SocketLink implements DaemonLink {
  private handlers: LinkHandlers | null = null;
  private early: string[] = [];
  private closedEarly = false;
  private closeReported = false;

  constructor(
    private readonly socket: net.Socket,
    readonly pid: number,
  ) {}

  start(handlers: LinkHandlers): void {
    this.handlers = handlers;
    for (const line of this.early.splice(0)) handlers.onLine(line);
    if (this.closedEarly) this.reportClose();
  }

  send(line: string): void {
    if (!this.socket.destroyed) this.socket.write(line + '\n');
  }

  close(): void {
    this.socket.end();
    // A daemon that does not close its side must not keep the shim alive.
    this.socket.setTimeout(1000, () => this.socket.destroy());
  }

  deliver(lines: string[]): void {
    if (!this.handlers) this.early.push(...lines);
    else for (const line of lines) this.handlers.onLine(line);
  }

  closed(): void {
    if (this.handlers) this.reportClose();
    else this.closedEarly = true;
  }

  private reportClose(): void {
    if (this.closeReported) return;
    this.closeReported = true;
    this.handlers!.onClose();
  }
}

export interface SpawningConnectorOptions {
  socketPath: string;
  /** Starts a daemon in the background. */
  spawnDaemon: () => Promise<ChildProcess>;
  /** Where the daemon logs, for the error message when it never comes. */
  logPath: string;
  /** How long to keep trying, from the first attempt. */
  deadlineMs?: number;
  /** How long a daemon that accepted the connection may take to ack (it creates its services first). */
  ackTimeoutMs?: number;
  /** The folder the client started us in, told to the daemon: a session started for it works there. */
  cwd?: string;
  diagnostics?: (message: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Connects to the daemon, starting one when none listens. */
export class SpawningConnector implements DaemonConnector {
  constructor(private readonly options: SpawningConnectorOptions) {}

  async connect(clientName: string, signal?: AbortSignal): Promise<DaemonLink> {
    const { socketPath } = this.options;
    const deadlineMs = this.options.deadlineMs ?? 15_000;
    const diagnostics = this.options.diagnostics ?? (() => {});
    const start = Date.now();
    let delay = 20;
    let spawns = 0;
    let child: { exited: boolean; code: number | null } | null = null;
    let last = '';
    for (;;) {
      signal?.throwIfAborted();
      const attempt = await attemptLink(socketPath, clientName, this.options.ackTimeoutMs ?? 60_000, this.options.cwd);
      if (attempt.kind === 'linked') {
        if (!signal?.aborted) return attempt.link;
        attempt.link.close();
        signal.throwIfAborted();
      }
      if (attempt.kind === 'refused' && !attempt.retry) throw new DaemonUnreachableError(attempt.error);
      last = attempt.kind === 'refused' ? attempt.error : attempt.kind === 'dropped' ? 'the daemon closed the connection' : `nothing listens on ${socketPath}`;

      // Start one when none listens; again only if ours exited without leaving one behind
      // (it found another daemon that was just stopping, say).
      if (attempt.kind === 'absent' && (spawns === 0 || (child?.exited && spawns < 3)) && !signal?.aborted) {
        spawns += 1;
        const state = { exited: false, code: null as number | null };
        child = state;
        try {
          const spawned = await this.options.spawnDaemon();
          diagnostics(`no daemon listened on ${socketPath}; started one (pid ${spawned.pid})`);
          spawned.once('exit', (code) => Object.assign(state, { exited: true, code }));
          spawned.once('error', (error) => {
            state.exited = true;
            diagnostics(`could not start the daemon: ${error.message}`);
          });
        } catch (error) {
          // Say why now: waiting out the deadline would only hide it.
          throw new DaemonUnreachableError(`could not start the daemon: ${(error as Error).message}`);
        }
      }
      const elapsed = Date.now() - start;
      if (elapsed >= deadlineMs) {
        const started = spawns ? ` A daemon was started in the background${child?.exited ? ` and exited (code ${child.code})` : ''}; its log is ${this.options.logPath}.` : '';
        throw new DaemonUnreachableError(`no Python Session daemon answered within ${Math.round(deadlineMs / 1000)} s (${last}).${started}`);
      }
      await sleep(Math.min(delay, deadlineMs - elapsed));
      delay = Math.min(delay * 2, 500);
    }
  }
}

export interface SpawnDaemonOptions {
  /** The CLI script whose `serve --background` runs the daemon. */
  entry: string;
  stateDir: string;
  logPath: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * `node <entry> serve --background`, detached from us and from the client: it must outlive
 * this shim, and a client killing its process group must not take everyone's sessions with it.
 * Its stdout and stderr go to the daemon log, so even a crash before the daemon's own logging
 * starts leaves a trace.
 */
export async function spawnBackgroundDaemon(options: SpawnDaemonOptions): Promise<ChildProcess> {
  // Loaded here, not at the top: most shim starts find a daemon running and never spawn.
  const { spawn } = await import('node:child_process');
  ensurePrivateDir(options.stateDir);
  let log: number | 'ignore';
  try {
    log = openSync(options.logPath, 'a', 0o600);
  } catch {
    log = 'ignore'; // a daemon.log that is no file (a folder, unreadable): the daemon sets it aside and says so
  }
  try {
    const child = spawn(process.execPath, [options.entry, 'serve', '--background'], {
      detached: true,
      stdio: ['ignore', log, log],
      // The same state folder whatever the daemon's environment would have picked.
      env: { ...(options.env ?? process.env), PYTHON_MCP_HOME: options.stateDir },
      // Not the client's working folder: that may be a project the user deletes or unmounts.
      cwd: os.homedir(),
      windowsHide: true,
    });
    child.unref();
    return child;
  } finally {
    if (log !== 'ignore') closeSync(log);
  }
}
