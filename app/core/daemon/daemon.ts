/**
 * The daemon: one per state folder, owning the services (interpreters, kernels, sessions) and
 * serving them on a local socket. Each connection opens with a one-line handshake (see
 * protocol.ts): an MCP connection gets its own McpServer over the shared services; a control
 * connection gets one answer. Stopping — by the `stop` command or a signal — closes the
 * connections, shuts the services down (kernels), and removes the socket, daemon.json and lock.
 *
 * Nothing a client sends can end the daemon: a bad handshake gets an error line and a close,
 * and socket errors are logged.
 */
import { chmodSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DaemonLog } from './daemon-log.js';
import { removeDaemonInfo, writeDaemonInfo, type DaemonInfo } from './daemon-info.js';
import { clearDaemonInfo, clearQuickAnswers } from './start-files.js';
import { acquireInstanceLock, type InstanceLock } from './instance-lock.js';
import { readFirstLine } from './json-lines.js';
import { serveMcpConnection, type McpConnection } from './mcp-connection.js';
import {
  HANDSHAKE_MAX_BYTES,
  parseHandshake,
  type ConnectionSummary,
  type ControlCommand,
  type McpAck,
  type PingAnswer,
  type Refusal,
  type StatusAnswer,
  type StopAnswer,
} from './protocol.js';
import { currentPlatform, daemonFiles, ensurePrivateDir, type DaemonFiles, type PlatformContext } from './state-paths.js';
import { packageVersion } from '../package-root.js';
import { clearStateFile, onStateFileNotice, stateFileNotices } from '../state-file.js';

/** What the daemon needs of its services; app/core/services.ts' DaemonServices has this shape. */
export interface DaemonServicesLike {
  shutdown(): Promise<void>;
  describe(): Promise<Record<string, unknown>>;
}

/** Builds one connection's MCP server; `client` and `cwd` are the name and folder the shim reported in its handshake. */
export type McpServerFactory<S> = (services: S, connection: { id: string; client: string; cwd?: string }) => McpServer;

export interface StartDaemonOptions<S extends DaemonServicesLike> {
  stateDir: string;
  /**
   * The services, or a function creating them — called only once this process holds the lock,
   * with the daemon's log so the engine's events (a kernel died, a reconnection) reach daemon.log.
   */
  services: S | ((context: { log: DaemonLog }) => Promise<S>);
  createMcpServer: McpServerFactory<S>;
  /** Added to daemon.json and to `status` (the panel URL, ...). */
  extraInfo?: Record<string, unknown>;
  /** Echo the log to stderr as well (a daemon in the foreground). */
  logToStderr?: boolean;
  /**
   * Stop on SIGTERM/SIGINT/SIGHUP, and log uncaught errors instead of dying with every session.
   * For the process that is the daemon; leave off when embedding one in another program.
   */
  handleProcessEvents?: boolean;
  /** How long services.shutdown() may take before the daemon exits without it. */
  shutdownTimeoutMs?: number;
  /** Mostly for tests. */
  handshakeTimeoutMs?: number;
  platform?: PlatformContext;
}

export type StartOutcome<S extends DaemonServicesLike> =
  | { status: 'started'; daemon: RunningDaemon<S> }
  /** Another daemon holds this state folder. */
  | { status: 'already-running'; pid: number; socket: string; answering: boolean };

export interface RunningDaemon<S extends DaemonServicesLike> {
  readonly pid: number;
  readonly files: DaemonFiles;
  readonly socketPath: string;
  readonly services: S;
  readonly log: DaemonLog;
  readonly started: Date;
  /** Resolves once the daemon has stopped and cleaned up. */
  readonly stopped: Promise<void>;
  stop(reason?: string): Promise<void>;
  /** Merges into daemon.json and `status` (for facts known after start, like the panel URL). */
  updateInfo(extra: Record<string, unknown>): void;
  connections(): ConnectionSummary[];
}

class StartupError extends Error {
  override name = 'DaemonStartError';
}

export async function startDaemon<S extends DaemonServicesLike>(options: StartDaemonOptions<S>): Promise<StartOutcome<S>> {
  const platform = options.platform ?? currentPlatform();
  const files = daemonFiles(options.stateDir, platform);
  ensurePrivateDir(files.stateDir);
  // The log is any text, but it must be a file of its own to be written to (said in it once it is).
  clearStateFile(files.log, 'a fresh daemon.log is started');
  const log = new DaemonLog({ path: files.log, echo: options.logToStderr ? (line) => process.stderr.write(line) : undefined });

  const outcome = await acquireInstanceLock({ lockPath: files.lock, socketPath: files.socket.path, log: (m) => log.info(m) });
  if (!outcome.acquired) {
    log.info(`not starting: the daemon with pid ${outcome.ownerPid} already serves ${files.stateDir}`);
    log.close();
    return { status: 'already-running', pid: outcome.ownerPid, socket: files.socket.path, answering: outcome.answering };
  }
  const daemon = new Daemon(options, files, log, outcome.lock);
  try {
    await daemon.start();
  } catch (error) {
    log.error('the daemon could not start', error);
    await daemon.stop('start-up failed');
    throw error instanceof StartupError ? error : new StartupError(`the daemon could not start: ${(error as Error).message ?? error}`, { cause: error });
  }
  return { status: 'started', daemon };
}

class Daemon<S extends DaemonServicesLike> implements RunningDaemon<S> {
  readonly pid = process.pid;
  readonly socketPath: string;
  readonly started = new Date();
  readonly stopped: Promise<void>;
  private resolveStopped!: () => void;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly mcp = new Map<string, McpConnection>();
  /** Settles when start() has created the services (or failed to). */
  private readonly servicesReady: Promise<S>;
  private settleServices!: { resolve: (services: S) => void; reject: (error: unknown) => void };
  private createdServices: S | null = null;
  private extra: Record<string, unknown>;
  private nextConnection = 1;
  private stopping: Promise<void> | null = null;
  private listening = false;
  private removeProcessHandlers: () => void = () => {};
  private stopLoggingNotices: () => void = () => {};
  private readonly version = packageVersion();

  constructor(
    private readonly options: StartDaemonOptions<S>,
    readonly files: DaemonFiles,
    readonly log: DaemonLog,
    private readonly lock: InstanceLock,
  ) {
    this.socketPath = files.socket.path;
    this.extra = { ...options.extraInfo };
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    this.servicesReady = new Promise<S>((resolve, reject) => (this.settleServices = { resolve, reject }));
    this.servicesReady.catch(() => {}); // failures are reported by start(); waiters handle their own
    this.server = net.createServer((socket) => this.accept(socket));
    this.server.on('error', (error) => this.log.error('socket server error', error));
  }

  get services(): S {
    if (!this.createdServices) throw new Error('the daemon services are not ready');
    return this.createdServices;
  }

  async start(): Promise<void> {
    if (this.options.handleProcessEvents) this.installProcessHandlers();
    // A damaged file of this state folder, found now or later (a session's log), is told in daemon.log.
    const stateDir = this.files.stateDir;
    for (const notice of stateFileNotices(stateDir)) this.log.warn(`state file: ${notice.message}`);
    this.stopLoggingNotices = onStateFileNotice((notice) => {
      if (stateFileNotices(stateDir).includes(notice)) this.log.warn(`state file: ${notice.message}`);
    });
    clearDaemonInfo(this.files.info);
    // The shims' answers are rewritten once the services are up (app/cli/commands/serve.ts); a damaged copy goes first.
    clearQuickAnswers(this.files.answers);
    if (this.files.socket.privateDir) ensurePrivateDir(this.files.socket.privateDir, { refuseSymlink: true });
    removeStaleSocket(this.socketPath);
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.socketPath, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.listening = true;
    // The folder is already owner-only; the mode is a second fence should it ever be loosened.
    if (process.platform !== 'win32') chmodSync(this.socketPath, 0o600);
    this.log.info(`listening on ${this.socketPath} (state folder ${this.files.stateDir}, version ${this.version})`);

    // Listening before the services exist lets pings (and a racing second start) see this
    // daemon at once; MCP connections wait for the services below.
    const services = this.options.services;
    try {
      this.createdServices = typeof services === 'function' ? await (services as (context: { log: DaemonLog }) => Promise<S>)({ log: this.log }) : services;
    } catch (error) {
      this.settleServices.reject(error);
      throw error;
    }
    this.settleServices.resolve(this.createdServices);
    this.writeInfo();
    this.log.info('ready');
  }

  updateInfo(extra: Record<string, unknown>): void {
    Object.assign(this.extra, extra);
    if (this.createdServices && !this.stopping) this.writeInfo();
  }

  connections(): ConnectionSummary[] {
    return [...this.mcp.values()].map((c) => ({ id: c.id, client: c.client, since: c.since.toISOString() }));
  }

  stop(reason = 'asked to stop'): Promise<void> {
    this.stopping ??= this.shutdown(reason);
    return this.stopping;
  }

  private writeInfo(): void {
    const info: DaemonInfo = {
      ...this.extra,
      pid: this.pid,
      started: this.started.toISOString(),
      socket: this.socketPath,
      stateDir: this.files.stateDir,
      log: this.files.log,
      version: this.version,
    };
    try {
      writeDaemonInfo(this.files.info, info);
    } catch (error) {
      this.log.error(`could not write ${this.files.info}`, error);
    }
  }

  private async shutdown(reason: string): Promise<void> {
    this.log.info(`stopping: ${reason}`);
    if (this.listening) this.server.close();
    await Promise.allSettled([...this.mcp.values()].map((c) => c.close()));
    for (const socket of this.sockets) socket.destroy();
    const services = this.listening ? await this.servicesReady.catch(() => null) : null;
    if (services) {
      const timeoutMs = this.options.shutdownTimeoutMs ?? 15_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      const result = await Promise.race([services.shutdown().then(() => 'done' as const), timedOut]).catch((error: unknown) => {
        this.log.error('shutting the services down failed', error);
        return 'failed' as const;
      });
      clearTimeout(timer);
      if (result === 'timeout') this.log.warn(`the services did not shut down within ${timeoutMs} ms; exiting without them`);
    }
    // Each step on its own: one failing must not leave the lock (and so the folder) held.
    this.attempt('remove daemon.json', () => removeDaemonInfo(this.files.info, this.pid));
    if (this.listening) this.attempt('remove the socket', () => removeStaleSocket(this.socketPath));
    this.attempt('release the lock', () => this.lock.release());
    this.removeProcessHandlers();
    this.stopLoggingNotices();
    this.log.info('stopped');
    this.log.close();
    this.resolveStopped();
  }

  private attempt(what: string, step: () => void): void {
    try {
      step();
    } catch (error) {
      this.log.error(`could not ${what}`, error);
    }
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', (error) => this.log.warn(`connection error: ${error.message}`));
    readFirstLine(socket, { maxBytes: HANDSHAKE_MAX_BYTES, timeoutMs: this.options.handshakeTimeoutMs ?? 10_000 })
      .then((line) => this.dispatch(socket, line))
      .catch((error: unknown) => {
        this.log.warn(`bad handshake: ${(error as Error).message}`);
        this.refuse(socket, { ok: false, error: `bad handshake: ${(error as Error).message}` });
      });
  }

  private async dispatch(socket: net.Socket, line: string): Promise<void> {
    const parsed = parseHandshake(line);
    if (!parsed.ok) {
      this.log.warn(`bad handshake (${parsed.error}): ${line.slice(0, 200)}`);
      return this.refuse(socket, { ok: false, error: parsed.error });
    }
    const { handshake } = parsed;
    if (handshake.hello === 'control') return this.answerControl(socket, handshake.command);
    if (this.stopping) return this.refuse(socket, { ok: false, error: 'the daemon is stopping', retry: true });

    let services: S;
    try {
      services = await this.servicesReady;
    } catch (error) {
      return this.refuse(socket, { ok: false, error: `the daemon could not start its services: ${(error as Error).message}` });
    }
    if (this.stopping) return this.refuse(socket, { ok: false, error: 'the daemon is stopping', retry: true });
    if (socket.destroyed) return;

    const id = `c${this.nextConnection++}`;
    try {
      const ack: McpAck = { ok: true, hello: 'mcp', pid: this.pid, version: this.version, connection: id };
      socket.write(JSON.stringify(ack) + '\n');
      const connection = await serveMcpConnection({
        id,
        client: handshake.client,
        socket,
        server: this.options.createMcpServer(services, { id, client: handshake.client, cwd: handshake.cwd }),
        onError: (error) => this.log.warn(`${id} (${handshake.client}): ${(error as Error)?.message ?? error}`),
      });
      this.mcp.set(id, connection);
      this.log.info(`${id} connected: ${handshake.client}${handshake.cwd ? ` (started in ${handshake.cwd})` : ''}`);
      void connection.closed.then(() => {
        this.mcp.delete(id);
        this.log.info(`${id} disconnected: ${handshake.client}`);
      });
    } catch (error) {
      this.log.error(`${id} (${handshake.client}) could not start its MCP session`, error);
      socket.destroy();
    }
  }

  private async answerControl(socket: net.Socket, command: ControlCommand): Promise<void> {
    if (command === 'stop') {
      const answer: StopAnswer = { ok: true, pid: this.pid, stopping: true };
      this.reply(socket, answer);
      void this.stop('the stop command');
      return;
    }
    // While stopping, say so: a starting daemon then waits for this one instead of deferring to it.
    if (this.stopping) return this.refuse(socket, { ok: false, error: 'the daemon is stopping', retry: true });
    if (command === 'ping') {
      const answer: PingAnswer = { ok: true, pid: this.pid, version: this.version };
      return this.reply(socket, answer);
    }
    this.reply(socket, await this.status());
  }

  private async status(): Promise<StatusAnswer> {
    const services = await withTimeout(this.describeServices(), 5000, { error: 'the services did not answer within 5 s' });
    return {
      ok: true,
      pid: this.pid,
      version: this.version,
      started: this.started.toISOString(),
      uptimeSeconds: Math.round((Date.now() - this.started.getTime()) / 1000),
      stateDir: this.files.stateDir,
      socket: this.socketPath,
      log: this.files.log,
      connections: this.connections(),
      services,
      extra: { ...this.extra },
      stateFiles: stateFileNotices(this.files.stateDir).map((n) => n.message),
    };
  }

  private async describeServices(): Promise<Record<string, unknown>> {
    try {
      const services = await this.servicesReady;
      return await services.describe();
    } catch (error) {
      return { error: (error as Error)?.message ?? String(error) };
    }
  }

  private reply(socket: net.Socket, answer: object): void {
    // Answered: no longer ours to destroy at shutdown, or `stop` could cut its own answer off.
    this.sockets.delete(socket);
    if (socket.destroyed) return;
    socket.end(JSON.stringify(answer) + '\n');
    // Read on (and discard) so the peer's close is seen at once; the handshake reader left it paused.
    socket.resume();
    // A peer that never closes its side must not keep the socket forever.
    socket.setTimeout(5000, () => socket.destroy());
  }

  private refuse(socket: net.Socket, refusal: Refusal): void {
    this.reply(socket, refusal);
  }

  private installProcessHandlers(): void {
    let signalled = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signalled += 1;
      if (signalled > 1) {
        this.log.warn(`${signal} again while stopping; exiting now`);
        process.exit(1);
      }
      void this.stop(signal);
    };
    // A daemon holds everyone's sessions: one bug in one request should not end them all.
    const onUncaught = (error: unknown) => this.log.error('uncaught exception (the daemon keeps running)', error);
    const onRejection = (reason: unknown) => this.log.error('unhandled promise rejection', reason);
    const signals: NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, onSignal);
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onRejection);
    this.removeProcessHandlers = () => {
      for (const signal of signals) process.off(signal, onSignal);
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onRejection);
    };
  }
}

/** A socket file left by a daemon that died without cleaning up (no-op for Windows pipes). */
function removeStaleSocket(socketPath: string): void {
  if (process.platform === 'win32') return;
  try {
    unlinkSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
