/**
 * The daemon's sessions by name. Starting is idempotent under races (two
 * clients asking for "default" at once get one kernel); an unknown name is an
 * error that lists the sessions there are.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { Kernel, type KernelOptions } from '../kernel/kernel.js';
import { KernelStartError } from '../kernel/launch.js';
import { findKernelSpec } from '../kernel/kernelspec.js';
import { chooseInterpreter, ipykernelInstallCommand, type Choice } from '../interpreters/index.js';
import type { Settings } from '../settings/settings.js';
import { Session } from './session.js';
import { WarmPool } from './warm-pool.js';

export const DEFAULT_SESSION = 'default';
export const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export class SessionError extends Error {}

export interface StartRequest {
  interpreter?: string;
  cwd?: string;
  kernelName?: string;
}

export interface SessionManagerOptions {
  stateDir: string;
  settings: Settings;
  env?: NodeJS.ProcessEnv;
  /** Overrides for every kernel (tests shorten heartbeats). */
  kernelOptions?: Partial<KernelOptions>;
}

export class SessionManager extends EventEmitter {
  private readonly sessions = new Map<string, Session>();
  private readonly starting = new Map<string, Promise<Session>>();
  private choice: Promise<Choice> | null = null;
  readonly runtimeDir: string;
  readonly pool: WarmPool;

  constructor(readonly options: SessionManagerOptions) {
    super();
    this.runtimeDir = join(options.stateDir, 'runtime');
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
    throw new SessionError(
      `No session named "${name}". ${names.length ? `Sessions: ${names.join(', ')}.` : 'There are no sessions yet.'} Start one with start_kernel(session="${name}").`,
    );
  }

  /** The session, starting the default one on first use. */
  async ensure(name: string): Promise<Session> {
    const existing = this.sessions.get(name);
    if (existing) return existing;
    const pending = this.starting.get(name);
    if (pending) return pending;
    if (name !== DEFAULT_SESSION) this.get(name);
    return this.start(name, {});
  }

  /** The interpreter new sessions get, and why (cached until `rescan`). */
  chosenInterpreter(): Promise<Choice> {
    const choice = (this.choice ??= chooseInterpreter({
      env: this.env,
      savedChoice: this.options.settings.get('interpreter'),
      markedEnvs: this.options.settings.get('markedEnvs'),
      requireIpykernel: true,
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
      throw new SessionError(
        `Session "${name}" already has a kernel (${existing.kernel.owned ? `pid ${existing.kernel.pid}` : 'attached'}, ${existing.interpreter?.path ?? 'unknown interpreter'}). Use restart_kernel, shut it down first, or choose another session name.`,
      );
    }
    const starting = this.launch(name, request);
    this.starting.set(name, starting);
    try {
      const session = await starting;
      this.add(session);
      return session;
    } finally {
      this.starting.delete(name);
    }
  }

  private async launch(name: string, request: StartRequest): Promise<Session> {
    const cwd = request.cwd ? resolve(request.cwd.replace(/^~(?=$|[\\/])/, homedir())) : undefined;
    if (cwd) {
      let isDir = false;
      try {
        isDir = statSync(cwd).isDirectory();
      } catch {
        /* reported below */
      }
      if (!isDir) throw new SessionError(`The working folder ${cwd} does not exist or is not a folder.`);
    }
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
      interpreter = request.interpreter.replace(/^~(?=$|[\\/])/, homedir());
      reason = 'requested when the session was started';
    } else {
      const choice = await this.chosenInterpreter();
      interpreter = choice.interpreter.path;
      reason = choice.reason;
    }
    const dir = join(this.options.stateDir, 'sessions', name);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    let kernel: Kernel;
    try {
      kernel = await Kernel.start({
        interpreter,
        cwd,
        runtimeDir: this.runtimeDir,
        logPath: join(dir, 'kernel.log'),
        launcher: this.pool.launch,
        memoryLimitBytes: this.options.settings.memoryLimitBytes(this.env),
        ...this.options.kernelOptions,
        ...extra,
      });
    } catch (error) {
      if (error instanceof KernelStartError && error.missingIpykernel) {
        throw new SessionError(`${error.message} Install it with:\n  ${ipykernelInstallCommand(interpreter)}\nor choose another interpreter (list_interpreters).`);
      }
      throw error;
    }
    return new Session(name, dir, kernel, { path: interpreter, reason }, cwd);
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
    const path = resolve(file.replace(/^~(?=$|[\\/])/, homedir()));
    const kernel = await Kernel.connect(path, this.options.kernelOptions);
    const dir = join(this.options.stateDir, 'sessions', name);
    const session = new Session(name, dir, kernel, { path: String(kernel.kernelInfo?.language_info?.version ? `python ${kernel.kernelInfo.language_info.version} (attached)` : 'attached kernel'), reason: `attached by connection file ${path}` }, undefined);
    this.add(session);
    return session;
  }

  private add(session: Session): void {
    this.sessions.set(session.name, session);
    for (const event of ['changed', 'died', 'restarted', 'logged', 'run-started']) {
      session.on(event, (payload) => this.emit(event, session, payload));
    }
    this.emit('added', session);
  }

  /** Ends the session's kernel (an attached one is only disconnected) and forgets the session. */
  async close(name: string): Promise<Session> {
    const session = this.get(name);
    this.sessions.delete(name);
    await session.kernel.shutdown();
    const interpreter = session.interpreter?.path;
    if (interpreter && !this.list().some((s) => s.interpreter?.path === interpreter)) this.pool.drop(interpreter);
    this.emit('removed', session);
    return session;
  }

  async shutdownAll(): Promise<void> {
    await Promise.all([...this.list().map((s) => this.close(s.name).catch(() => undefined)), this.pool.close()]);
  }
}
