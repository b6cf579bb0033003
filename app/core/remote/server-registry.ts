/**
 * The remote Jupyter servers the user added: a name, a base URL and a token, kept in
 * <state>/servers.json, readable by the owner alone. The tokens are kept out of settings.json
 * (which the panel shows and people paste into bug reports) and out of every value this module
 * hands out for display: a RemoteServer holds its token in a private field, which neither
 * JSON.stringify nor util.inspect can reach, so logging one never leaks it.
 *
 * The file is read on every lookup, so a `servers add` in a terminal reaches a running daemon
 * (and a session reconnecting after a token change) without a restart.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writePrivateFile } from '../private-file.js';
import { isRecord, kindOf, readJsonStateFile } from '../state-file.js';
import { serverLabel } from '../kernel/supervision/provisioner.js';

/** Server names: at least two characters, so "C:\\kernel.json" never reads as server "C". */
export const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_.-]{1,63}$/;
/** Names that would make "<name> (<url>)" ambiguous next to local sessions. */
const RESERVED = new Set(['local', 'localhost']);

export class ServerRegistryError extends Error {}

export class RemoteServer {
  readonly #token: string | undefined;

  constructor(
    readonly name: string,
    /** Base URL, always ending in '/', without credentials or token. */
    readonly url: string,
    token: string | undefined,
    readonly addedAt?: string,
  ) {
    this.#token = token || undefined;
  }

  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /** The token itself: for the Authorization header only. */
  revealToken(): string | undefined {
    return this.#token;
  }

  /** For people: "lab (https://lab.example.org:8888/)". */
  get label(): string {
    return serverLabel(this);
  }

  /** Replaces every occurrence of the token in `text` (a server's error page may echo a URL carrying it). */
  redact(text: string): string {
    return this.#token ? text.split(this.#token).join('[token]') : text;
  }

  toJSON(): RemoteServerView {
    return { name: this.name, url: this.url, hasToken: this.hasToken, addedAt: this.addedAt ?? null };
  }
}

export interface RemoteServerView {
  name: string;
  url: string;
  hasToken: boolean;
  addedAt: string | null;
}

interface StoredServer {
  url: string;
  token?: string;
  addedAt?: string;
}

interface StoredFile {
  version: 1;
  servers: Record<string, StoredServer>;
}

/**
 * Checks and normalises a server URL. A token pasted as part of it (Jupyter prints
 * "http://host:8888/?token=…" when it starts) is taken out and returned separately, so it
 * is stored like any token and never shown as part of the URL.
 */
export function normalizeServerUrl(input: string): { url: string; token?: string } {
  let parsed: URL;
  try {
    parsed = new URL(input.trim());
  } catch {
    // The input is echoed so the user sees what was read, with any "token=…" in it masked.
    const shown = input.replace(/([?&#]token=)[^&#\s]*/gi, '$1[token]');
    throw new ServerRegistryError(`"${shown}" is not a URL. Give the Jupyter server's address, e.g. http://127.0.0.1:8888/ or https://hub.example.org/user/me/.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ServerRegistryError(`A Jupyter server URL starts with http:// or https://, not ${parsed.protocol}//.`);
  }
  if (parsed.username || parsed.password) {
    throw new ServerRegistryError('Give the token on its own (the panel\'s token field, or --token / PYTHON_MCP_SERVER_TOKEN), not in the URL as user:password@.');
  }
  const token = parsed.searchParams.get('token') ?? undefined;
  parsed.search = '';
  parsed.hash = '';
  // A URL copied from the browser points at JupyterLab's page under the server's base URL
  // ("…/lab", "…/lab/tree/x.ipynb"); the API lives at the base.
  let path = parsed.pathname.replace(/\/lab(?:\/(?:tree|workspaces)\/.*)?$|\/tree$/, '/');
  if (!path.endsWith('/')) path += '/';
  parsed.pathname = path;
  return { url: parsed.toString(), token: token || undefined };
}

export function checkServerName(name: string): void {
  if (!SERVER_NAME.test(name) || RESERVED.has(name.toLowerCase())) {
    throw new ServerRegistryError(
      `"${name}" cannot name a server: use 2 to 64 letters, digits, '.', '_' or '-', starting with a letter${RESERVED.has(name.toLowerCase()) ? `, and not "${name}"` : ''}.`,
    );
  }
}

export class ServerRegistry {
  readonly file: string;

  constructor(readonly stateDir: string) {
    this.file = join(stateDir, 'servers.json');
  }

  /** Every server, as it may be shown (no tokens). */
  list(): RemoteServerView[] {
    return this.servers().map((s) => s.toJSON());
  }

  servers(): RemoteServer[] {
    const stored = this.read();
    return Object.entries(stored.servers)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, s]) => new RemoteServer(name, s.url, s.token, s.addedAt));
  }

  find(name: string): RemoteServer | undefined {
    return this.servers().find((s) => s.name === name);
  }

  /** The named server, or an error that lists the ones there are and says how to add one. */
  get(name: string): RemoteServer {
    const server = this.find(name);
    if (server) return server;
    const names = this.servers().map((s) => s.name);
    throw new ServerRegistryError(
      `No remote Jupyter server named "${name}". ${names.length ? `Servers: ${names.join(', ')}.` : 'None has been added yet.'} ` +
        `Add one with \`python-session-mcp servers add ${SERVER_NAME.test(name) ? name : '<name>'} <url> --token <token>\`.`,
    );
  }

  /** Adds or replaces a server. Without a token, a replaced server keeps the token it had for the same URL. */
  add(input: { name: string; url: string; token?: string }): { server: RemoteServer; replaced: boolean } {
    checkServerName(input.name);
    const { url, token: tokenInUrl } = normalizeServerUrl(input.url);
    if (input.token !== undefined && /\s/.test(input.token)) throw new ServerRegistryError('The token contains spaces or line breaks; check what was pasted.');
    const stored = this.read();
    const previous = stored.servers[input.name];
    const token = input.token || tokenInUrl || (previous?.url === url ? previous.token : undefined);
    const addedAt = new Date().toISOString();
    stored.servers[input.name] = { url, ...(token ? { token } : {}), addedAt };
    this.write(stored);
    return { server: new RemoteServer(input.name, url, token, addedAt), replaced: previous !== undefined };
  }

  remove(name: string): boolean {
    const stored = this.read();
    if (!(name in stored.servers)) return false;
    delete stored.servers[name];
    this.write(stored);
    return true;
  }

  private read(): StoredFile {
    // A damaged file is moved aside with a notice; the list starts empty (../state-file.ts).
    const parsed = readJsonStateFile<{ servers?: unknown }>(this.file, {
      shape: (value) => (!isRecord(value) ? `${kindOf(value)}, not an object` : value.servers !== undefined && !isRecord(value.servers) ? `"servers" is ${kindOf(value.servers)}, not an object` : null),
      instead: 'no remote servers are known until one is added again',
    });
    if (!parsed) return { version: 1, servers: {} };
    this.tightenMode();
    const servers = parsed.servers;
    if (!isRecord(servers)) return { version: 1, servers: {} };
    const clean: Record<string, StoredServer> = {};
    for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
      const entry = value as Partial<StoredServer> | null;
      if (!SERVER_NAME.test(name) || typeof entry?.url !== 'string') continue;
      clean[name] = { url: entry.url, ...(typeof entry.token === 'string' && entry.token ? { token: entry.token } : {}), ...(typeof entry.addedAt === 'string' ? { addedAt: entry.addedAt } : {}) };
    }
    return { version: 1, servers: clean };
  }

  /** Atomic and private from the first byte: a temp file created 0600 in the same folder, then renamed. */
  private write(data: StoredFile): void {
    mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
    try {
      writePrivateFile(this.file, `${JSON.stringify(data, null, 2)}\n`);
    } catch (error) {
      throw new ServerRegistryError(`Cannot write ${this.file}: ${(error as Error).message}`);
    }
    this.tightenMode();
  }

  /** A copy restored from a backup or edited by hand may be group-readable: make it owner-only again. */
  private tightenMode(): void {
    if (process.platform === 'win32') return; // the state folder's ACL (per-user LOCALAPPDATA) protects it there
    try {
      if ((statSync(this.file).mode & 0o077) !== 0) chmodSync(this.file, 0o600);
    } catch {
      /* reported by the read or write itself */
    }
  }
}

/**
 * "<server>:<kernel id>", the form connect_to_kernel takes for a kernel on a remote server.
 * Only a registered server's name counts, so a Windows path ("C:\\…") or a relative file name
 * with a colon is never mistaken for one.
 */
export function parseRemoteKernelRef(text: string, isServer: (name: string) => boolean): { server: string; kernelId: string } | null {
  const match = /^([A-Za-z][A-Za-z0-9_.-]{1,63}):([A-Za-z0-9][A-Za-z0-9-]{0,127})$/.exec(text.trim());
  if (!match || !isServer(match[1])) return null;
  return { server: match[1], kernelId: match[2] };
}
