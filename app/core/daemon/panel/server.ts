/**
 * The control panel's server: the page (renderer/), its JSON API and its live event stream, on
 * loopback only, behind a token (see panel-auth.ts for what every request must prove).
 *
 *   const panel = await startPanelServer({ services });
 *   console.log(panel.url);   // http://127.0.0.1:PORT/?token=…  — open this
 *   await panel.close();
 *
 * Starting writes `<state>/panel-token` (a new token each time) and `<state>/panel.json` (port
 * and pid), both owner-only, so the tray and `status` can build the link; closing removes the
 * address.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';
import type { DaemonServices } from '../../services.js';
import type { PlatformContext } from '../../registration/index.js';
import { PanelApi } from './api.js';
import { clearPanelFiles, panelBaseUrl, panelUrl, removePanelAddress, writePanelAddress } from './address.js';
import { authorize, createPanelToken, sessionCookie } from './auth.js';
import { EventHub } from './events.js';
import { PanelLooks } from './looks.js';
import { PanelModel } from './model.js';
import { sendStatic } from './static.js';

export const PANEL_PORT_ENV = 'PYTHON_MCP_PANEL_PORT';

export interface PanelServerOptions {
  services: DaemonServices;
  /** Loopback only; the option exists to make that explicit at the call site. */
  host?: '127.0.0.1';
  /** A fixed port; default PYTHON_MCP_PANEL_PORT, else any free port. */
  port?: number;
  /** Where the token and address are written; default the services' state folder. */
  stateDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Where MCP client configs are looked for (tests use a temporary home). */
  registration?: Partial<PlatformContext>;
  /** The page's files; default the package's renderer/ folder. */
  rendererDir?: string;
}

export interface PanelServer {
  /** The page with its token: what to open. */
  url: string;
  /** Without the token: safe to print in logs. */
  baseUrl: string;
  port: number;
  token: string;
  /** Things worth a line in the daemon's log (a configured port that was taken). */
  warnings: string[];
  close(): Promise<void>;
}

export async function startPanelServer(options: PanelServerOptions): Promise<PanelServer> {
  const host = options.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new Error('The panel listens on 127.0.0.1 only.');
  const stateDir = options.stateDir ?? options.services.stateDir;
  const rendererDir = options.rendererDir ?? join(packageRoot(), 'renderer');
  const warnings: string[] = [];
  const wanted = options.port ?? portFromEnv(options.env ?? process.env, warnings);

  const model = new PanelModel(options.services.sessions, stateDir);
  const looks = new PanelLooks();
  // The sessions ask whether a person is at a panel now: code's question waits for an answer here, or fails at once.
  const sessions = options.services.sessions;
  const presenceBefore = sessions.presence;
  const presence = () => looks.present();
  sessions.presence = presence;
  const api = new PanelApi({ services: options.services, model, looks, registration: options.registration });
  const hub = new EventHub(model, () => api.snapshot());
  let port = 0;
  let token = '';

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`The panel failed: ${error.message}`);
      } else {
        res.destroy();
      }
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setCommonHeaders(res);
    const target = req.url ?? '';
    // Origin-form only ("/path?query"); an absolute URL or "*" here is not a browser talking to us,
    // and "//host/path" would be read by URL() as another host.
    if (!target.startsWith('/') || target.startsWith('//')) return refuse(res, 400, 'Bad request target.', false);
    const url = new URL(target, `http://127.0.0.1:${port}`);
    const verdict = authorize({ method: req.method ?? 'GET', path: url.pathname, queryToken: url.searchParams.get('token'), headers: req.headers }, port, token);
    if (!verdict.ok) return refuse(res, verdict.status, verdict.reason, wantsPage(req, url));
    if (verdict.via === 'query') {
      // The token has done its job in the address; keep it out of history, bookmarks and screenshots.
      res.writeHead(303, { Location: '/', 'Set-Cookie': sessionCookie(port, token), 'Cache-Control': 'no-store' });
      return void res.end();
    }
    if (req.method !== 'GET' && req.method !== 'POST') return refuse(res, 405, `${req.method} is not allowed.`, false);
    // The page proves itself with its cookie; the tray and scripts send the token as a header and are no one looking.
    const fromPage = verdict.via === 'cookie' && url.pathname.startsWith('/api/');
    if (url.pathname === '/api/events') {
      if (req.method !== 'GET') return refuse(res, 405, 'GET only.', false);
      if (fromPage) looks.follow(req);
      return hub.open(req, res);
    }
    if (fromPage) looks.saw();
    if (await api.handle(req, res, url)) return;
    if (req.method === 'GET' && (await sendStatic(res, rendererDir, url.pathname))) return;
    refuse(res, 404, 'Not found.', false);
  }

  port = await listen(server, host, wanted).catch(async (error: NodeJS.ErrnoException) => {
    if (wanted === 0 || (error.code !== 'EADDRINUSE' && error.code !== 'EACCES')) throw error;
    // The daemon's first job is serving MCP clients; a taken panel port must not stop it.
    warnings.push(`The panel's port ${wanted} is not available (${error.code}); using a free port instead.`);
    return listen(server, host, 0);
  });
  clearPanelFiles(stateDir);
  token = createPanelToken(stateDir);
  writePanelAddress(stateDir, { port, pid: process.pid, started: new Date().toISOString() });

  let closed: Promise<void> | null = null;
  return {
    url: panelUrl(port, token),
    baseUrl: panelBaseUrl(port),
    port,
    token,
    warnings,
    close() {
      closed ??= (async () => {
        hub.close();
        model.dispose();
        if (sessions.presence === presence) sessions.presence = presenceBefore;
        removePanelAddress(stateDir);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closed;
    },
  };
}

function portFromEnv(env: NodeJS.ProcessEnv, warnings: string[]): number {
  const raw = env[PANEL_PORT_ENV]?.trim();
  if (!raw) return 0;
  const port = Number(raw);
  if (Number.isInteger(port) && port > 0 && port <= 65535) return port;
  warnings.push(`${PANEL_PORT_ENV}="${raw}" is not a port number; using a free port.`);
  return 0;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  // Even a request that carries our cookie (an <img> on another local port) gets nothing it can use.
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

function wantsPage(req: IncomingMessage, url: URL): boolean {
  return req.method === 'GET' && !url.pathname.startsWith('/api/') && /text\/html/.test(req.headers.accept ?? '');
}

const REASONS: Record<number, string> = { 400: 'Bad request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not found', 405: 'Method not allowed' };

function refuse(res: ServerResponse, status: number, reason: string, page: boolean): void {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="python-session-panel"');
  if (page && (status === 401 || status === 403)) {
    const body = Buffer.from(lockedPage(status === 401 ? reason : 'foreign'));
    res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" });
    return void res.end(body);
  }
  const body = Buffer.from(JSON.stringify({ error: `${REASONS[status] ?? 'Refused'}: ${reason}.` }));
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  res.end(body);
}

/** What a person sees when they open the panel's address without its key. */
function lockedPage(reason: string): string {
  const why =
    reason === 'wrong token'
      ? 'The key in this link is not the current one: the daemon has restarted since the link was made.'
      : reason === 'foreign'
        ? 'This page can only be opened as http://127.0.0.1 (or localhost) on the port the daemon chose.'
        : 'This panel controls Python sessions on your computer, so it opens only with its key.';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Python Session — needs its key</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:15vh auto;padding:0 1.5rem;color:#1f2328;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}code{background:#161b22}}
code{background:#f0f2f4;padding:.1em .35em;border-radius:4px}</style></head>
<body><h1>Python Session</h1><p>${why}</p>
<p>Open the panel from the tray icon, or run <code>python-session-mcp status</code> and open the link it prints.</p></body></html>`;
}
