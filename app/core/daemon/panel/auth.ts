/**
 * Who may use the panel. It drives kernels that run code with the user's permissions, so every
 * request must prove three things:
 *
 * 1. It carries the token — 32 random bytes kept owner-only in `<state>/panel-token`, so only
 *    this user (the tray, `status`, a browser they opened the link in) can know it. Accepted as
 *    `Authorization: Bearer`, as the panel's cookie, or once as `?token=` on the page load.
 * 2. Its Host is ours (`127.0.0.1:PORT` or `localhost:PORT`). A web page can point a name it
 *    controls at 127.0.0.1 (DNS rebinding); the browser then sends that name as Host, and the
 *    page would count as same-origin with us. Checking Host defeats that.
 * 3. It was not sent by another origin: Origin, when present, is ours, and Sec-Fetch-Site (sent
 *    by current browsers) is `same-origin` or `none` for anything but a top-level navigation.
 *    Cookies are not separated by port, so a page on another local port is "same-site" with us
 *    and its requests would carry our cookie; these two headers are what tell them apart.
 *
 * The token is compared in constant time (over SHA-256 digests, so its length leaks nothing
 * either). All checks are pure functions of the request's headers, tested without a server.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { writePrivateFile } from '../../private-file.js';

export const TOKEN_FILE = 'panel-token';
export const TOKEN_BYTES = 32;
/** base64url of 32 bytes. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Paths where `?token=` is accepted: the page itself, which then drops it from the address. */
export const PAGE_PATHS: ReadonlySet<string> = new Set(['/', '/index.html']);

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Makes a fresh token and stores it owner-only. A new one on every daemon start: a link that was
 * copied somewhere stops working when the daemon it opened does, and the tray and `status` read
 * the file anew each time anyway.
 */
export function createPanelToken(stateDir: string): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const token = newToken();
  // Never readable by others, not even for the moment between creating the file and tightening its mode.
  writePrivateFile(join(stateDir, TOKEN_FILE), `${token}\n`);
  return token;
}

/** The stored token, or null when there is none or it is not one of ours (or others could read it). */
export function readPanelToken(stateDir: string): string | null {
  const file = join(stateDir, TOKEN_FILE);
  try {
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) return null;
    const token = readFileSync(file, 'utf8').trim();
    return TOKEN_SHAPE.test(token) ? token : null;
  } catch {
    return null;
  }
}

export function tokensMatch(given: string | undefined | null, expected: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** One cookie per port: two daemons (two state folders) on one machine keep separate cookies. */
export function cookieName(port: number): string {
  return `python-session-panel-${port}`;
}

export function sessionCookie(port: number, token: string): string {
  // No Max-Age: it lasts as long as the browser session, and the token dies with the daemon anyway.
  return `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** Host names the panel answers to; 127.0.0.1 is what it listens on, localhost what people type. */
export function allowedHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

export function hostAllowed(host: string | undefined, port: number): boolean {
  return host !== undefined && allowedHosts(port).includes(host.toLowerCase());
}

export function originAllowed(origin: string | undefined, port: number): boolean {
  if (origin === undefined) return true; // same-origin GETs and non-browser clients send none
  return allowedHosts(port).some((host) => origin.toLowerCase() === `http://${host}`);
}

/**
 * Sec-Fetch-Site is set by the browser and cannot be forged by a page. `none` is the user
 * opening the address themselves; a top-level navigation from elsewhere is let through to the
 * page itself (the other site reads nothing back), but no other kind of request is.
 */
export function fetchSiteAllowed(headers: IncomingHttpHeaders, path: string): boolean {
  const site = header(headers, 'sec-fetch-site');
  if (site === undefined || site === 'same-origin' || site === 'none') return true;
  return PAGE_PATHS.has(path) && header(headers, 'sec-fetch-mode') === 'navigate' && header(headers, 'sec-fetch-dest') === 'document';
}

export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = header(headers, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header(headers, 'authorization') ?? '');
  return match?.[1];
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export type AuthVerdict =
  | { ok: true; via: 'bearer' | 'cookie' }
  /** The token came in the address of the page load: set the cookie and redirect to drop it. */
  | { ok: true; via: 'query' }
  | { ok: false; status: 401 | 403; reason: string };

export interface AuthRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** `?token=` when present. */
  queryToken: string | null;
  headers: IncomingHttpHeaders;
}

/** The whole decision for one request (HTTP, or an event stream). */
export function authorize(request: AuthRequest, port: number, token: string): AuthVerdict {
  const { headers } = request;
  if (!hostAllowed(header(headers, 'host'), port)) return { ok: false, status: 403, reason: 'foreign Host' };
  if (!originAllowed(header(headers, 'origin'), port)) return { ok: false, status: 403, reason: 'foreign Origin' };
  if (!fetchSiteAllowed(headers, request.path)) return { ok: false, status: 403, reason: 'cross-site request' };
  if (tokensMatch(bearerToken(headers), token)) return { ok: true, via: 'bearer' };
  if (tokensMatch(readCookie(headers, cookieName(port)), token)) return { ok: true, via: 'cookie' };
  if (request.queryToken !== null && request.method === 'GET' && PAGE_PATHS.has(request.path) && tokensMatch(request.queryToken, token)) {
    return { ok: true, via: 'query' };
  }
  return { ok: false, status: 401, reason: request.queryToken !== null || bearerToken(headers) ? 'wrong token' : 'no token' };
}
