/**
 * The remote Jupyter servers as the panel sees them: list, add (then check that it answers),
 * check, remove. Every change goes through ServerRegistry, the code `python-session-mcp servers`
 * uses, so names, URLs and the owner-only file are handled in one place. What leaves this
 * module is a RemoteServerView (no token) or a check whose error text is redacted.
 */
import { describeServer } from '../../remote/kernelspecs.js';
import type { RemoteServer, RemoteServerView, ServerRegistry } from '../../remote/server-registry.js';
import type { Session } from '../../sessions/session.js';

/** A request the panel cannot honour, with the HTTP status that says why. */
export class ServerRequestRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a check found, without the server's kernels' details (ids are for attaching, elsewhere). */
export interface ServerCheck {
  reachable: boolean;
  error: string | null;
  defaultKernel: string | null;
  kernelspecs: string[];
  kernels: number;
  kernelsHidden: string | null;
}

/** One kernelspec as the New-session dialog lists it. */
export interface KernelspecChoice {
  name: string;
  displayName: string;
  language: string;
  /** Only Python kernelspecs can run a session; the others are shown, but not offered. */
  python: boolean;
}

export interface PanelServersOptions {
  registry: ServerRegistry;
  /** The live sessions, to say which of them run on a server. */
  sessions: () => Session[];
}

export class PanelServers {
  private readonly registry: ServerRegistry;
  private readonly sessions: () => Session[];

  constructor(options: PanelServersOptions) {
    this.registry = options.registry;
    this.sessions = options.sessions;
  }

  list(): { servers: RemoteServerView[] } {
    return { servers: this.registry.list() };
  }

  /**
   * Saves a new server, then asks it what it offers. A name already taken is refused rather than
   * replaced: from a form, a typo should not silently overwrite another server's URL and token.
   * An unreachable server is saved all the same (it is often added before it is started), and
   * the answer says so.
   */
  async add(body: Record<string, unknown>): Promise<{ server: RemoteServerView; check: ServerCheck; message: string }> {
    const name = text(body, 'name', 'Give the server a name, e.g. "lab".');
    const url = text(body, 'url', "Give the server's URL, e.g. http://127.0.0.1:8888/.");
    const token = body.token === undefined || body.token === null || body.token === '' ? undefined : body.token;
    if (token !== undefined && typeof token !== 'string') throw new ServerRequestRefused(400, 'token must be a string.');
    const existing = this.registry.find(name);
    if (existing) {
      throw new ServerRequestRefused(409, `A server named "${name}" already exists (${existing.url}). Choose another name, or remove that one first to change its URL or token.`);
    }
    const { server } = this.registry.add({ name, url, token: token?.trim() || undefined });
    const check = await this.check(server);
    const tokenNote = server.hasToken ? 'token saved, owner-only' : 'no token';
    const message = check.reachable
      ? `Added "${server.name}" (${tokenNote}). It answers: kernelspecs ${check.kernelspecs.join(', ') || 'none'}.`
      : `Added "${server.name}" (${tokenNote}), but it does not answer yet: ${check.error}`;
    return { server: server.toJSON(), check, message };
  }

  async checkByName(name: string): Promise<{ server: RemoteServerView; check: ServerCheck }> {
    const server = this.known(name);
    return { server: server.toJSON(), check: await this.check(server) };
  }

  /**
   * What the New-session dialog offers for a server: its kernelspecs, which of them can run a
   * session (Python only, as the start path checks again), and its default. A server that does
   * not answer is a 502 with the reason, redacted, since there is nothing to choose from.
   */
  async kernelspecs(name: string): Promise<{ server: RemoteServerView; defaultKernel: string | null; kernelspecs: KernelspecChoice[] }> {
    const server = this.known(name);
    const offer = await describeServer(server);
    if (!offer.reachable) throw new ServerRequestRefused(502, server.redact(offer.error ?? `The Jupyter server ${server.label} did not answer.`));
    return {
      server: server.toJSON(),
      defaultKernel: offer.defaultKernel,
      kernelspecs: offer.kernelspecs.map((s) => ({ name: s.name, displayName: s.displayName, language: s.language, python: s.language.toLowerCase() === 'python' })),
    };
  }

  /** Forgets a server. Its kernels are not touched, and a session on it keeps the connection it has. */
  remove(name: string): { removed: string; sessions: string[]; message: string } {
    this.known(name);
    this.registry.remove(name);
    const using = this.sessions()
      .filter((s) => { const place = s.facts().place; return place.kind === 'remote' && place.serverName === name; })
      .map((s) => s.name);
    const note = using.length
      ? ` ${using.length === 1 ? 'Session' : 'Sessions'} ${using.map((n) => `"${n}"`).join(', ')} still ${using.length === 1 ? 'runs' : 'run'} there until ${using.length === 1 ? 'it ends' : 'they end'}.`
      : '';
    return { removed: name, sessions: using, message: `Removed server "${name}". Kernels running there were not touched.${note}` };
  }

  private known(name: string): RemoteServer {
    const server = this.registry.find(name);
    if (!server) throw new ServerRequestRefused(404, `There is no server named "${name}".`);
    return server;
  }

  private async check(server: RemoteServer): Promise<ServerCheck> {
    const offer = await describeServer(server);
    return {
      reachable: offer.reachable,
      // Error texts from the server are redacted where they are made; redacted again here, as
      // this is where they leave for the page.
      error: offer.error === null ? null : server.redact(offer.error),
      defaultKernel: offer.defaultKernel,
      kernelspecs: offer.kernelspecs.map((s) => s.name),
      kernels: offer.kernels.length,
      kernelsHidden: offer.kernelsHidden,
    };
  }
}

function text(body: Record<string, unknown>, key: string, missing: string): string {
  const value = body[key];
  if (value === undefined || value === null || (typeof value === 'string' && !value.trim())) throw new ServerRequestRefused(400, missing);
  if (typeof value !== 'string') throw new ServerRequestRefused(400, `${key} must be a string.`);
  return value.trim();
}
