/** The panel's gate: pure checks, then the same rules through real HTTP requests. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type DaemonServices } from '../../services.js';
import { readPanelAddress } from './address.js';
import { authorize, cookieName, fetchSiteAllowed, hostAllowed, originAllowed, readCookie, readPanelToken, tokensMatch, TOKEN_FILE } from './auth.js';
import { startPanelServer, type PanelServer } from './server.js';

describe('panel auth rules', () => {
  const token = 'A'.repeat(43);
  const base = { method: 'GET', path: '/api/state', queryToken: null, headers: { host: '127.0.0.1:4000' } };

  test('tokens compare by value, whatever their length', () => {
    assert.ok(tokensMatch(token, token));
    assert.ok(!tokensMatch(`${token}x`, token));
    assert.ok(!tokensMatch('', token));
    assert.ok(!tokensMatch(undefined, token));
  });

  test('only our own host names, on our port', () => {
    assert.ok(hostAllowed('127.0.0.1:4000', 4000));
    assert.ok(hostAllowed('LOCALHOST:4000', 4000));
    assert.ok(!hostAllowed('127.0.0.1:4001', 4000));
    assert.ok(!hostAllowed('evil.example:4000', 4000), 'a rebound DNS name is refused');
    assert.ok(!hostAllowed('127.0.0.1', 4000));
    assert.ok(!hostAllowed(undefined, 4000));
  });

  test('Origin must be the panel itself when present', () => {
    assert.ok(originAllowed(undefined, 4000));
    assert.ok(originAllowed('http://127.0.0.1:4000', 4000));
    assert.ok(originAllowed('http://localhost:4000', 4000));
    assert.ok(!originAllowed('http://127.0.0.1:8080', 4000), 'another local port is another origin');
    assert.ok(!originAllowed('https://127.0.0.1:4000', 4000));
    assert.ok(!originAllowed('null', 4000));
  });

  test('Sec-Fetch-Site lets in same-origin and typed addresses, and cross-site only to open the page', () => {
    assert.ok(fetchSiteAllowed({}, '/api/state'));
    assert.ok(fetchSiteAllowed({ 'sec-fetch-site': 'same-origin' }, '/api/state'));
    assert.ok(fetchSiteAllowed({ 'sec-fetch-site': 'none' }, '/'));
    assert.ok(!fetchSiteAllowed({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }, '/api/file'));
    assert.ok(!fetchSiteAllowed({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, '/api/state'));
    assert.ok(fetchSiteAllowed({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, '/'));
  });

  test('cookies are read by exact name', () => {
    const headers = { cookie: `other=1; ${cookieName(4000)}=abc; ${cookieName(4000)}x=zzz` };
    assert.equal(readCookie(headers, cookieName(4000)), 'abc');
    assert.equal(readCookie({}, 'x'), undefined);
  });

  test('the whole decision', () => {
    assert.deepEqual(authorize(base, 4000, token), { ok: false, status: 401, reason: 'no token' });
    assert.deepEqual(authorize({ ...base, headers: { ...base.headers, authorization: `Bearer ${token}` } }, 4000, token), { ok: true, via: 'bearer' });
    assert.deepEqual(authorize({ ...base, headers: { ...base.headers, cookie: `${cookieName(4000)}=${token}` } }, 4000, token), { ok: true, via: 'cookie' });
    assert.equal(authorize({ ...base, headers: { ...base.headers, cookie: `${cookieName(4001)}=${token}` } }, 4000, token).ok, false, "another port's cookie");
    assert.deepEqual(authorize({ ...base, path: '/', queryToken: token }, 4000, token), { ok: true, via: 'query' });
    assert.equal(authorize({ ...base, queryToken: token }, 4000, token).ok, false, 'the address token opens the page only');
    assert.equal(authorize({ ...base, method: 'POST', path: '/', queryToken: token }, 4000, token).ok, false);
    const withToken = { ...base.headers, authorization: `Bearer ${token}` };
    assert.deepEqual(authorize({ ...base, headers: { ...withToken, host: 'evil.example:4000' } }, 4000, token), { ok: false, status: 403, reason: 'foreign Host' });
    assert.deepEqual(authorize({ ...base, headers: { ...withToken, origin: 'http://evil.example' } }, 4000, token), { ok: false, status: 403, reason: 'foreign Origin' });
  });
});

/** One request with full control of the headers (fetch will not let a caller set Host). */
function send(port: number, path: string, options: { method?: string; headers?: OutgoingHttpHeaders; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('panel server over HTTP', () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let auth: OutgoingHttpHeaders;

  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'ps-panel-auth-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: '/usr/bin/python3' } });
    panel = await startPanelServer({ services, port: 0, registration: { home: join(stateDir, 'home'), env: {} } });
    auth = { authorization: `Bearer ${panel.token}` };
  });
  after(async () => {
    await panel.close();
    await services.shutdown();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('stores the token owner-only and the address for the tray', () => {
    const file = join(stateDir, TOKEN_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readPanelToken(stateDir), panel.token);
    assert.equal(Buffer.from(panel.token, 'base64url').length, 32);
    const address = readPanelAddress(stateDir);
    assert.equal(address?.port, panel.port);
    assert.equal(address?.url, panel.url);
    assert.match(panel.url, new RegExp(`^http://127\\.0\\.0\\.1:${panel.port}/\\?token=`));
  });

  test('refuses every request without the token', async () => {
    for (const path of ['/', '/index.html', '/panel.js', '/api/state', '/api/events', '/api/sessions', '/nonexistent']) {
      const res = await send(panel.port, path);
      assert.equal(res.status, 401, path);
      assert.ok(!res.body.includes('panel.js'), `${path} must not leak the page`);
    }
    assert.equal((await send(panel.port, '/api/state', { headers: { authorization: 'Bearer wrong' } })).status, 401);
    assert.equal((await send(panel.port, '/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401);
    const page = await send(panel.port, '/', { headers: { accept: 'text/html' } });
    assert.equal(page.status, 401);
    assert.match(page.body, /opens only with its key/);
  });

  test('answers with the token, from either of our host names', async () => {
    const res = await send(panel.port, '/api/health', { headers: auth });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).pid, process.pid);
    assert.equal((await send(panel.port, '/api/health', { headers: { ...auth, host: `localhost:${panel.port}` } })).status, 200);
    const page = await send(panel.port, '/', { headers: auth });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.match(page.body, /panel\.js/);
  });

  test('trades the address token for a cookie and drops it from the address', async () => {
    const res = await send(panel.port, `/?token=${encodeURIComponent(panel.token)}`);
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, '/');
    const cookie = String(res.headers['set-cookie']);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const pair = cookie.split(';')[0];
    assert.equal((await send(panel.port, '/api/state', { headers: { cookie: pair } })).status, 200);
    assert.equal((await send(panel.port, `/api/state?token=${encodeURIComponent(panel.token)}`)).status, 401, 'not on API paths');
  });

  test('refuses a foreign Host or Origin even with the token', async () => {
    for (const host of ['evil.example', `evil.example:${panel.port}`, `127.0.0.1:${panel.port + 1}`, `[::1]:${panel.port}`]) {
      assert.equal((await send(panel.port, '/api/state', { headers: { ...auth, host } })).status, 403, host);
    }
    for (const origin of ['http://evil.example', `http://127.0.0.1:${panel.port + 1}`, 'null']) {
      const res = await send(panel.port, '/api/sessions/default/interrupt', { method: 'POST', headers: { ...auth, origin, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 403, origin);
    }
    const ownOrigin = await send(panel.port, '/api/health', { headers: { ...auth, origin: `http://127.0.0.1:${panel.port}` } });
    assert.equal(ownOrigin.status, 200);
    const crossSite = await send(panel.port, '/api/state', { headers: { ...auth, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' } });
    assert.equal(crossSite.status, 403);
  });

  test('refuses the event stream the same way', async () => {
    assert.equal((await send(panel.port, '/api/events')).status, 401);
    assert.equal((await send(panel.port, '/api/events', { headers: { ...auth, host: 'evil.example' } })).status, 403);
  });

  test('changes need a JSON body, and only GET and POST exist', async () => {
    const form = await send(panel.port, '/api/interpreters/rescan', { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    assert.equal(form.status, 415);
    assert.equal((await send(panel.port, '/api/state', { method: 'OPTIONS', headers: auth })).status, 405);
    assert.equal((await send(panel.port, '/api/state', { method: 'DELETE', headers: auth })).status, 405);
  });

  test('serves files only from the sessions folder', async () => {
    const sessions = join(stateDir, 'sessions', 'default', 'figures');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, 'a.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(join(stateDir, 'secret.png'), 'outside');
    symlinkSync(join(stateDir, 'secret.png'), join(sessions, 'link.png'));
    const file = (p: string) => send(panel.port, `/api/file?path=${encodeURIComponent(p)}`, { headers: auth });

    const ok = await file(join(sessions, 'a.png'));
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['content-type'], 'image/png');
    assert.match(String(ok.headers['content-security-policy']), /sandbox/);
    assert.equal((await file(join(stateDir, TOKEN_FILE))).status, 403);
    assert.equal((await file(join(sessions, '..', '..', '..', 'secret.png'))).status, 403);
    assert.equal((await file(join(sessions, 'link.png'))).status, 403, 'a symlink out of the folder');
    assert.equal((await file('relative/a.png')).status, 400);
    assert.equal((await file(join(sessions, 'missing.png'))).status, 404);
  });

  test('rejects a request target that is not a path', async () => {
    assert.equal((await send(panel.port, 'http://evil.example/api/state', { headers: auth })).status, 400);
    assert.equal((await send(panel.port, '//evil.example/api/state', { headers: auth })).status, 400);
  });

  test('a new start makes a new token, and the old one stops working', async () => {
    const second = await startPanelServer({ services, port: 0 });
    try {
      assert.notEqual(second.token, panel.token);
      assert.equal(readFileSync(join(stateDir, TOKEN_FILE), 'utf8').trim(), second.token);
      assert.equal((await send(second.port, '/api/health', { headers: auth })).status, 401);
    } finally {
      await second.close();
    }
    // The first panel still holds its own token in memory; put the file back for the other tests.
    writeFileSync(join(stateDir, TOKEN_FILE), `${panel.token}\n`, { mode: 0o600 });
  });

  test('close() removes the address the tray reads', async () => {
    const other = mkdtempSync(join(tmpdir(), 'ps-panel-close-'));
    const third = await startPanelServer({ services, port: 0, stateDir: other });
    assert.ok(existsSync(join(other, 'panel.json')));
    await third.close();
    assert.ok(!existsSync(join(other, 'panel.json')));
    assert.equal(readPanelAddress(other), null);
    rmSync(other, { recursive: true, force: true });
  });
});
