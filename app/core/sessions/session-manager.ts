/**
 * The daemon's sessions by name. Starting is idempotent under races (two
 * clients asking for "default" at once get one kernel); an unknown name is an
 * error that lists the sessions there are.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { expandHome } from '../home-path.js';
import { type KernelOptions, KernelSupervisor, LocalProvisioner, attachedKernelOptions } from '../kernel/kernel.js';
import { KernelStartError } from '../kernel/process/launch.js';
import type { EngineLogger } from '../kernel/logger.js';
import { findKernelSpec } from '../kernel/kernelspec.js';
import { chooseInterpreter, ipykernelInstallCommand, probeInterpreter, type Choice } from '../interpreters/index.js';
import type { SessionKernel } from '../kernel/supervision/session-kernel.js';
import { chooseEngine, EngineChoiceError, ipykernelRequired, type EngineChoice } from './engine-choice.js';
import type { RemoteKernelOptions } from '../remote/remote-kernel.js';
import { ServerRegistry, parseRemoteKernelRef } from '../remote/server-registry.js';
import type { Settings } from '../settings/settings.js';
import type { Question } from './question.js';
import { Session, type SessionInterpreter, type SessionStarter } from './session.js';
import { WarmPool } from './warm-pool.js';
import { NoSuchSessionError, SessionError } from './session-errors.js';
import { WorkerProvisioner } from '../worker/worker-provisioner.js';
import { RemoteProvisioner } from '../remote/remote-provisioner.js';
import { placeLabel } from '../kernel/supervision/provisioner.js';

export const DEFAULT_SESSION = 'default';
export const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export { NoSuchSessionError, SessionError, type SessionNext } from './session-errors.js';

export interface StartRequest {
  interpreter?: string;
  /** A local folder (default: the home folder); for a remote server, a folder relative to the server's root. */
  cwd?: string;
  /** Why `cwd`, in words, for python_status and the panel (default: "requested when the session was started"). */
  cwdReason?: string;
  /** The client (or the panel) starting it: another client reaching it is told its folder. */
  startedBy?: SessionStarter;
  kernelName?: string;
  /** A remote Jupyter server's name (see ServerRegistry): start the kernel there. */
  server?: string;
}

export interface SessionManagerOptions {
  stateDir: string;
  settings: Settings;
  env?: NodeJS.ProcessEnv;
  /** Overrides for every kernel (tests shorten heartbeats). */
  kernelOptions?: Partial<KernelOptions>;
  /** Overrides for kernels on remote servers (tests shorten backoff and waits). */
  remoteOptions?: Partial<RemoteKernelOptions>;
  /** Where every kernel (local, remote, worker) writes its events: the daemon's log. */
  logger?: EngineLogger;
}

export class SessionManager extends EventEmitter {
  private readonly sessions = new Map<string, Session>();
  private readonly starting = new Map<string, Promise<Session>>();
  private choice: Promise<Choice> | null = null;
  readonly runtimeDir: string;
  readonly pool: WarmPool;
  /** Remote Jupyter servers, read from <state>/servers.json on each use. */
  readonly servers: ServerRegistry;
  /** Whether a person is looking at a panel now; the daemon's panel sets it (see Session.presence). */
  presence: () => boolean = () => false;

  constructor(readonly options: SessionManagerOptions) {
    super();
    this.runtimeDir = join(options.stateDir, 'runtime');
    this.servers = new ServerRegistry(options.stateDir);
    this.pool = new WarmPool({ size: options.settings.warmPoolSize(this.options.env ?? process.env), logDir: join(options.stateDir, 'pool') });
  }

  get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  find(name: string): Session | undefined {
    return this.sessions.get(name);
  }

  /** The named session; an error listing the sessions when there is none. */
  get(name: string): Session {
    const session = this.sessions.get(name);
    if (session) return session;
    const names = this.list().map((s) => s.name);
    throw new NoSuchSessionError(`No session named "${name}". ${names.length ? `Sessions: ${names.join(', ')}.` : 'There are no sessions yet.'}`, name);
  }

  /** The session, starting the default one on first use (as `request` says: the client's folder). */
  async ensure(name: string, request: StartRequest = {}): Promise<Session> {
    const existing = this.sessions.get(name);
    if (existing) return existing;
    const pending = this.starting.get(name);
    if (pending) return pending;
    if (name !== DEFAULT_SESSION) this.get(name);
    return this.start(name, request);
  }

  /**
   * A client connected in `cwd`: unless the default session already runs, warm a kernel for the
   * interpreter it would get, so the client's first run is answered from the pool.
   */
  async prewarm(cwd: string): Promise<void> {
    if (this.sessions.has(DEFAULT_SESSION) || this.starting.has(DEFAULT_SESSION)) return;
    if (!this.options.settings.warmOnConnect(this.env)) return;
    const choice = await this.chosenInterpreter().catch(() => null);
    if (!choice || this.sessions.has(DEFAULT_SESSION)) return;
    // The pool holds ipykernel processes; a worker starts in a tenth of a second on its own.
    if ((await this.engineFor(choice.interpreter.path).catch(() => null))?.engine !== 'ipykernel') return;
    this.pool.prewarm(this.localLaunchOptions(choice.interpreter.path, cwd, {}));
  }

  private get probeCache(): string {
    return join(this.options.stateDir, 'interpreter-probes.json');
  }

  /** Which engine a new session in this interpreter runs on, and why (PYTHON_MCP_ENGINE forces one). */
  async engineFor(interpreter: string): Promise<EngineChoice> {
    const probe = await probeInterpreter(interpreter, { cacheFile: this.probeCache });
    return chooseEngine({ hasIpykernel: probe.packages['ipykernel'] != null, forced: this.env.PYTHON_MCP_ENGINE, installCommand: ipykernelInstallCommand(interpreter) });
  }

  /** What a local kernel is started with; the warm pool keys on it, so prewarm and launch share it. */
  private localLaunchOptions(interpreter: string, cwd: string, extra: Partial<KernelOptions>): KernelOptions {
    return {
      interpreter,
      cwd,
      runtimeDir: this.runtimeDir,
      launcher: this.pool.launch,
      memoryLimitBytes: this.options.settings.memoryLimitBytes(this.env),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...this.options.kernelOptions,
      ...extra,
    };
  }

  /** The interpreter new sessions get, and why (cached until `rescan`). */
  chosenInterpreter(): Promise<Choice> {
    const choice = (this.choice ??= chooseInterpreter({
      env: this.env,
      savedChoice: this.options.settings.get('interpreter'),
      markedEnvs: this.options.settings.get('markedEnvs'),
      // Any Python runs code: ipykernel where it is installed, the built-in worker elsewhere.
      requireIpykernel: ipykernelRequired(this.env),
      probe: { cacheFile: this.probeCache },
    }));
    choice.catch(() => {
      if (this.choice === choice) this.choice = null; // try again next time, the user may have fixed it
    });
    return choice;
  }

  rescan(): void {
    this.choice = null;
  }

  async start(name: string, request: StartRequest): Promise<Session> {
    if (!SESSION_NAME.test(name)) throw new SessionError(`"${name}" is not a valid session name: use letters, digits, '.', '_' or '-' (at most 64).`);
    const existing = this.sessions.get(name) ?? (await this.starting.get(name)?.catch(() => undefined));
    if (existing) {
      const facts = existing.facts();
      const where = placeLabel(facts.place) === 'local' ? (facts.owned ? `pid ${facts.pid}` : 'attached') : `on ${placeLabel(facts.place)}`;
      throw new SessionError(`Session "${name}" already has a kernel (${where}, ${existing.interpreter?.path ?? 'unknown interpreter'}).`, { kind: 'restart-or-rename', session: name });
    }
    const starting = this.launch(name, request);
    this.starting.set(name, starting);
    try {
      const session = await starting;
      session.startedBy = request.startedBy;
      this.add(session);
      return session;
    } finally {
      this.starting.delete(name);
    }
  }

  /** Starts a session's kernel on a remote Jupyter server (its default kernelspec unless one is named). */
  startRemote(name: string, request: { server: string; kernelName?: string; cwd?: string; startedBy?: SessionStarter }): Promise<Session> {
    return this.start(name, request);
  }

  private remoteOptions(serverName: string): RemoteKernelOptions {
    const local = this.options.kernelOptions;
    return {
      ...(local?.interruptGraceMs !== undefined ? { interruptGraceMs: local.interruptGraceMs } : {}),
      ...(local?.outputLimits ? { outputLimits: local.outputLimits } : {}),
      // Enterprise Gateway reads KERNEL_* launch settings from the start request, as Jupyter's gateway client sends them.
      kernelEnv: Object.fromEntries(Object.entries(this.env).filter((entry): entry is [string, string] => entry[0].startsWith('KERNEL_') && entry[1] !== undefined)),
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...this.options.remoteOptions,
      refreshServer: () => this.servers.find(serverName),
    };
  }

  private async launchRemote(name: string, request: StartRequest & { server: string }): Promise<Session> {
    if (request.interpreter) {
      throw new SessionError('"interpreter" names a Python on this machine', { kind: 'choose-kernelspec', server: request.server });
    }
    const server = this.servers.get(request.server);
    const dir = join(this.options.stateDir, 'sessions', name);
    const path = request.cwd?.replace(/^\/+/, '') || undefined; // Jupyter's `path` is relative to the server's root
    const options = this.remoteOptions(server.name);
    const kernel = await KernelSupervisor.start(new RemoteProvisioner(server, { kind: 'start', kernelName: request.kernelName, path }, options), options);
    // The folder is made once the server has said yes, so a refused start leaves nothing behind;
    // a folder that cannot be made ends the kernel it would have belonged to.
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const spec = kernel.provisioner.kernelName;
      return new Session(name, dir, kernel, { path: `kernelspec "${spec}" on ${server.label}`, reason: `started on remote server "${server.name}"${request.kernelName ? '' : " with the server's default kernelspec"}` }, path);
    } catch (error) {
      await kernel.shutdown().catch(() => undefined);
      throw error;
    }
  }

  /** Binds a session to a kernel already running on a remote server; detaching leaves it running. */
  async attachRemote(name: string, request: { server: string; kernelId: string }): Promise<Session> {
    if (!SESSION_NAME.test(name)) throw new SessionError(`"${name}" is not a valid session name.`);
    if (this.sessions.has(name) || this.starting.has(name)) {
      throw new SessionError(`Session "${name}" already has a kernel. Disconnect or shut it down first, or attach under another session name.`);
    }
    const server = this.servers.get(request.server);
    const options = this.remoteOptions(server.name);
    const attaching = KernelSupervisor.start(new RemoteProvisioner(server, { kind: 'attach', kernelId: request.kernelId }, options), options).then(
      (kernel) =>
        new Session(name, join(this.options.stateDir, 'sessions', name), kernel, {
          path: `kernel ${kernel.provisioner.kernelId} ("${kernel.provisioner.kernelName}") on ${server.label}`,
          reason: `attached by id (${server.name}:${kernel.provisioner.kernelId})`,
        }, undefined),
    );
    this.starting.set(name, attaching);
    try {
      const session = await attaching;
      this.add(session);
      return session;
    } finally {
      this.starting.delete(name);
    }
  }

  private async launch(name: string, request: StartRequest): Promise<Session> {
    if (request.server) return this.launchRemote(name, { ...request, server: request.server });
    // Never the daemon's own folder: that is wherever it happened to start.
    const cwd = request.cwd ? resolve(expandHome(request.cwd)) : homedir();
    const cwdReason = request.cwd ? (request.cwdReason ?? 'requested when the session was started') : 'the home folder (no folder was given)';
    let isDir = false;
    try {
      isDir = statSync(cwd).isDirectory();
    } catch {
      /* reported below */
    }
    if (!isDir) throw new SessionError(`The working folder ${cwd} does not exist or is not a folder.`);
    let interpreter: string;
    let reason: string;
    const extra: Partial<KernelOptions> = {};
    if (request.kernelName) {
      const spec = await findKernelSpec(request.kernelName, this.env);
      interpreter = spec.interpreter;
      reason = `kernelspec "${spec.name}" (${spec.file})`;
      extra.interruptMode = spec.interruptMode;
      extra.env = spec.env;
    } else if (request.interpreter) {
      interpreter = expandHome(request.interpreter);
      reason = 'requested when the session was started';
    } else {
      const choice = await this.chosenInterpreter();
      interpreter = choice.interpreter.path;
      reason = choice.reason;
    }
    const dir = join(this.options.stateDir, 'sessions', name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A kernelspec is a Jupyter kernel by definition; otherwise the interpreter decides.
    let engine: EngineChoice;
    try {
      engine = request.kernelName ? { engine: 'ipykernel', reason: 'a Jupyter kernelspec was asked for' } : await this.engineFor(interpreter);
    } catch (error) {
      if (error instanceof EngineChoiceError) throw new SessionError(error.message);
      throw error;
    }
    let kernel: SessionKernel;
    try {
      const options = { ...this.localLaunchOptions(interpreter, cwd, extra), logPath: join(dir, 'kernel.log') };
      kernel = engine.engine === 'worker' ? await KernelSupervisor.start(new WorkerProvisioner({ ...options, launcher: undefined }), options) : await KernelSupervisor.start(new LocalProvisioner(options), options);
    } catch (error) {
      if (error instanceof KernelStartError && error.missingIpykernel) {
        throw new SessionError(error.message, { kind: 'install-ipykernel', command: ipykernelInstallCommand(interpreter) });
      }
      throw error;
    }
    return new Session(name, dir, kernel, { path: interpreter, reason, engine }, cwd, cwdReason);
  }

  /** Binds a session to a kernel started elsewhere, by its connection file. */
  async connect(name: string, connectionFile: string | undefined): Promise<Session> {
    if (!SESSION_NAME.test(name)) throw new SessionError(`"${name}" is not a valid session name.`);
    const file = connectionFile || this.env.IPYTHON_MCP_CONNECTION;
    if (!file) {
      throw new SessionError(
        'No connection file given and IPYTHON_MCP_CONNECTION is not set. A running Jupyter kernel writes one (kernel-<id>.json) in the folder `jupyter --runtime-dir` prints; in a notebook, `%connect_info` shows its name.',
      );
    }
    if (this.sessions.has(name)) {
      throw new SessionError(`Session "${name}" already has a kernel. Disconnect or shut it down first, or connect under another session name.`);
    }
    const remote = parseRemoteKernelRef(file, (server) => this.servers.find(server) !== undefined);
    if (remote) return this.attachRemote(name, remote);
    const path = resolve(expandHome(file));
    const attached = attachedKernelOptions({ ...(this.options.logger ? { logger: this.options.logger } : {}), ...this.options.kernelOptions });
    const kernel = await KernelSupervisor.start(new LocalProvisioner(attached, path), attached);
    const dir = join(this.options.stateDir, 'sessions', name);
    const session = new Session(name, dir, kernel, { path: String(kernel.kernelInfo?.language_info?.version ? `python ${kernel.kernelInfo.language_info.version} (attached)` : 'attached kernel'), reason: `attached by connection file ${path}` }, undefined);
    this.add(session);
    return session;
  }

  /**
   * A session over a kernel the caller built and started (an embedding with its own kind of
   * kernel; the tests' scripted one), in the state folder like any other.
   */
  adopt(name: string, kernel: SessionKernel, interpreter?: SessionInterpreter, cwd?: string): Session {
    if (!SESSION_NAME.test(name)) throw new SessionError(`"${name}" is not a valid session name.`);
    if (this.sessions.has(name) || this.starting.has(name)) throw new SessionError(`Session "${name}" already has a kernel.`, { kind: 'restart-or-rename', session: name });
    const session = new Session(name, join(this.options.stateDir, 'sessions', name), kernel, interpreter, cwd);
    this.add(session);
    return session;
  }

  /** The open question `id`, in whichever session asks it. */
  findQuestion(id: string): { session: Session; question: Question } | undefined {
    for (const session of this.sessions.values()) {
      const question = session.openQuestion();
      if (question?.id === id) return { session, question };
    }
    return undefined;
  }

  private add(session: Session): void {
    this.sessions.set(session.name, session);
    session.presence = () => this.presence();
    session.recordOtherClients(() => this.options.settings.outputLimit());
    for (const event of ['changed', 'died', 'restarted', 'logged', 'run-started', 'run-output']) {
      session.on(event, (payload) => this.emit(event, session, payload));
    }
    this.emit('added', session);
  }

  /** Ends the session's kernel (an attached one is only disconnected) and forgets the session. */
  async close(name: string): Promise<Session> {
    const session = this.get(name);
    this.sessions.delete(name);
    await session.shutdown();
    const interpreter = session.interpreter?.path;
    if (interpreter && !this.list().some((s) => s.interpreter?.path === interpreter)) this.pool.drop(interpreter);
    this.emit('removed', session);
    return session;
  }

  async shutdownAll(): Promise<void> {
    await Promise.all([...this.list().map((s) => this.close(s.name).catch(() => undefined)), this.pool.close()]);
  }
}
