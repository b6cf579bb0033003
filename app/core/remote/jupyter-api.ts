/**
 * The Jupyter Server REST API for kernels and kernelspecs (the same on Jupyter Server,
 * JupyterHub's single-user servers and Enterprise Gateway), with token auth in the
 * Authorization header (never in a URL, where proxies and server logs would keep it), a time
 * limit on every request, and failures turned into sentences a person can act on.
 */
import { RemoteServer } from './server-registry.js';

export type RemoteErrorKind = 'unreachable' | 'timeout' | 'auth' | 'not-found' | 'unsupported' | 'server';

export class RemoteServerError extends Error {
  constructor(
    message: string,
    readonly kind: RemoteErrorKind,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** /api/kernels/<id>: what the server says about one kernel. */
export interface RemoteKernelModel {
  id: string;
  name: string;
  execution_state?: string;
  last_activity?: string;
  connections?: number;
}

export interface RemoteKernelSpec {
  name: string;
  displayName: string;
  language: string;
  interruptMode: 'signal' | 'message';
}

/** How long a kernel may take to start: a gateway may schedule a pod or a YARN job first. */
export const DEFAULT_START_TIMEOUT_MS = 300_000;

export interface JupyterApiOptions {
  /** Each REST request's time limit (default 30 s; a cluster behind a gateway can be slow). */
  requestTimeoutMs?: number;
  /** Starting a kernel may take much longer (Enterprise Gateway schedules a pod or a YARN job). */
  startTimeoutMs?: number;
}

export class JupyterApi {
  private readonly requestTimeoutMs: number;
  private readonly startTimeoutMs: number;

  constructor(
    readonly server: RemoteServer,
    options: JupyterApiOptions = {},
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  /** GET /api/status: checks the URL and the token in one request. */
  status(): Promise<{ started?: string; kernels?: number; connections?: number; last_activity?: string }> {
    return this.request('GET', 'api/status');
  }

  async kernelSpecs(): Promise<{ defaultName: string | null; specs: RemoteKernelSpec[] }> {
    const body = await this.request<{ default?: string; kernelspecs?: Record<string, { name?: string; spec?: Record<string, unknown> }> }>('GET', 'api/kernelspecs');
    const specs = Object.entries(body.kernelspecs ?? {})
      .map(([name, entry]) => ({
        name: entry.name ?? name,
        displayName: String(entry.spec?.display_name ?? name),
        language: String(entry.spec?.language ?? 'unknown'),
        interruptMode: (entry.spec?.interrupt_mode === 'message' ? 'message' : 'signal') as 'signal' | 'message',
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { defaultName: body.default ?? null, specs };
  }

  kernels(): Promise<RemoteKernelModel[]> {
    return this.request('GET', 'api/kernels');
  }

  /** The kernel's model, or undefined when the server does not have it (any more). */
  async kernel(id: string): Promise<RemoteKernelModel | undefined> {
    try {
      return await this.request<RemoteKernelModel>('GET', `api/kernels/${encodeURIComponent(id)}`);
    } catch (error) {
      if (error instanceof RemoteServerError && error.kind === 'not-found') return undefined;
      throw error;
    }
  }

  /**
   * POST /api/kernels. `path` is the kernel's working folder relative to the server's root
   * (Jupyter Server's own `path` field); the server picks its default kernelspec without `name`.
   * `env` is Enterprise Gateway's: KERNEL_* variables for the launch (KERNEL_USERNAME,
   * KERNEL_NAMESPACE…), as Jupyter's own gateway client sends them; Jupyter Server ignores it.
   * KERNEL_LAUNCH_TIMEOUT defaults to our own start time limit, so a gateway scheduling a pod or
   * a YARN job is not cut off at its 30 s default while we still wait.
   */
  startKernel(name?: string, path?: string, env: Record<string, string> = {}): Promise<RemoteKernelModel> {
    const launchEnv = { KERNEL_LAUNCH_TIMEOUT: String(Math.round(this.startTimeoutMs / 1000)), ...env };
    return this.request('POST', 'api/kernels', { ...(name ? { name } : {}), ...(path ? { path } : {}), env: launchEnv }, this.startTimeoutMs);
  }

  async interrupt(id: string): Promise<void> {
    await this.request('POST', `api/kernels/${encodeURIComponent(id)}/interrupt`, {});
  }

  async restart(id: string): Promise<void> {
    await this.request('POST', `api/kernels/${encodeURIComponent(id)}/restart`, {}, this.startTimeoutMs);
  }

  /** DELETE /api/kernels/<id>; a kernel already gone is not an error. */
  async shutdown(id: string): Promise<void> {
    try {
      await this.request('DELETE', `api/kernels/${encodeURIComponent(id)}`);
    } catch (error) {
      if (!(error instanceof RemoteServerError && error.kind === 'not-found')) throw error;
    }
  }

  /** The kernel's WebSocket URL; the client session id lets the server buffer for us across a drop. */
  channelsUrl(kernelId: string, clientSession: string): string {
    const url = new URL(`api/kernels/${encodeURIComponent(kernelId)}/channels`, this.server.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('session_id', clientSession);
    return url.toString();
  }

  authHeaders(): Record<string, string> {
    const token = this.server.revealToken();
    return token ? { Authorization: `token ${token}` } : {};
  }

  /** Turns a WebSocket handshake's HTTP status into the same errors as a REST call's. */
  httpError(status: number, what: string, detail = ''): RemoteServerError {
    const s = this.server;
    if (status === 401 || status === 403) {
      return new RemoteServerError(
        `The Jupyter server ${s.label} refused ${s.hasToken ? 'the token' : 'the request: it needs a token'} (HTTP ${status}). ` +
          `Set the right one with \`python-session-mcp servers add ${s.name} ${s.url} --token <token>\`.`,
        'auth',
        status,
      );
    }
    if (status === 404) return new RemoteServerError(`${what}: not found on ${s.label}${detail ? ` (${detail})` : ''}.`, 'not-found', status);
    return new RemoteServerError(`${what} failed on ${s.label}: HTTP ${status}${detail ? ` — ${detail}` : ''}.`, 'server', status);
  }

  /** A failed connection (fetch's TypeError, a socket error) as a sentence. */
  networkError(error: unknown, what: string, timeoutMs?: number): RemoteServerError {
    const s = this.server;
    const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
      return new RemoteServerError(`The Jupyter server ${s.label} did not answer ${what} within ${Math.round((timeoutMs ?? this.requestTimeoutMs) / 1000)} s.`, 'timeout');
    }
    const code = err?.cause?.code ?? (error as NodeJS.ErrnoException)?.code;
    const why =
      code === 'ECONNREFUSED'
        ? 'nothing is listening there (connection refused). Is the server running, and is the port right?'
        : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
          ? 'the host name does not resolve.'
          : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
            ? 'the connection was reset.'
            : `${s.redact(err?.cause?.message ?? err?.message ?? String(error))}.`;
    return new RemoteServerError(`Cannot reach the Jupyter server ${s.label}: ${why}`, 'unreachable');
  }

  private async request<T>(method: string, path: string, body?: unknown, timeoutMs = this.requestTimeoutMs): Promise<T> {
    const url = new URL(path, this.server.url);
    const what = `${method} /${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { ...this.authHeaders(), Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'manual', // a login page redirect means the token was not accepted; following it would hide that
      });
    } catch (error) {
      throw this.networkError(error, what, timeoutMs);
    }
    const text = await response.text().catch(() => '');
    if (response.status >= 300 && response.status < 400) {
      throw this.httpError(403, what, 'redirected to a login page');
    }
    if (!response.ok) throw this.httpError(response.status, what, this.server.redact(serverMessage(text)));
    if (response.status === 204 || !text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RemoteServerError(`${what} on ${this.server.label} did not answer with JSON; is ${this.server.url} a Jupyter server's base URL?`, 'server', response.status);
    }
  }
}

/** The "message" (or "reason") of a Jupyter error body, else a short piece of the text. */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; reason?: unknown };
    const message = body.message ?? body.reason;
    if (typeof message === 'string' && message) return message.slice(0, 500);
  } catch {
    /* not JSON: an HTML error page or a proxy's text */
  }
  return text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200);
}
