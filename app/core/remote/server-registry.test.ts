/** The server list: owner-only file, tokens never shown, names and URLs checked, "<server>:<id>" parsed. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { backoffDelay } from './backoff.js';
import { JupyterApi } from './jupyter-api.js';
import { RemoteServer, ServerRegistry, normalizeServerUrl, parseRemoteKernelRef } from './server-registry.js';
import { stateFileNotices } from '../state-file.js';

const TOKEN = 'tok-3f9a0c1d2e4b5a6978';

async function registry(): Promise<ServerRegistry> {
  return new ServerRegistry(await mkdtemp(join(tmpdir(), 'ps-servers-')));
}

describe('ServerRegistry', () => {
  test('adds, lists, finds and removes servers; the file is owner-only', async () => {
    const r = await registry();
    assert.deepEqual(r.list(), []);
    const { server, replaced } = r.add({ name: 'lab', url: 'https://lab.example.org:8888', token: TOKEN });
    assert.equal(replaced, false);
    assert.equal(server.url, 'https://lab.example.org:8888/');
    assert.equal(server.label, 'lab (https://lab.example.org:8888/)');
    if (process.platform !== 'win32') assert.equal(statSync(r.file).mode & 0o777, 0o600);
    r.add({ name: 'gpu-box', url: 'http://10.0.0.5:8888/user/me/' });
    assert.deepEqual(
      r.list().map((s) => [s.name, s.url, s.hasToken]),
      [['gpu-box', 'http://10.0.0.5:8888/user/me/', false], ['lab', 'https://lab.example.org:8888/', true]],
    );
    assert.equal(r.get('lab').revealToken(), TOKEN);
    assert.equal(r.remove('gpu-box'), true);
    assert.equal(r.remove('gpu-box'), false);
    assert.throws(() => r.get('nope'), /No remote Jupyter server named "nope"\. Servers: lab\. Add one with `python-session-mcp servers add nope <url> --token <token>`/);
  });

  test('the token never shows: not in list(), JSON, inspect, labels or redacted text', async () => {
    const r = await registry();
    const { server } = r.add({ name: 'lab', url: 'http://127.0.0.1:8888/', token: TOKEN });
    for (const shown of [JSON.stringify(r.list()), JSON.stringify(server), inspect(server, { depth: 5, showHidden: true }), server.label, String(server)]) {
      assert.ok(!shown.includes(TOKEN), `token leaked in: ${shown}`);
    }
    assert.equal(server.redact(`GET /api?token=${TOKEN} failed`), 'GET /api?token=[token] failed');
    assert.ok(readFileSync(r.file, 'utf8').includes(TOKEN), 'it is stored');
  });

  test('a token pasted in the URL is taken out of it; UI paths are reduced to the base URL', () => {
    assert.deepEqual(normalizeServerUrl('http://127.0.0.1:8888/lab?token=abc'), { url: 'http://127.0.0.1:8888/', token: 'abc' });
    assert.deepEqual(normalizeServerUrl('https://hub.example.org/user/ann/lab/tree/work/a.ipynb'), { url: 'https://hub.example.org/user/ann/', token: undefined });
    assert.deepEqual(normalizeServerUrl('https://hub.example.org/user/lab/lab'), { url: 'https://hub.example.org/user/lab/', token: undefined });
    assert.deepEqual(normalizeServerUrl('http://gw:8888/gateway'), { url: 'http://gw:8888/gateway/', token: undefined });
    assert.throws(() => normalizeServerUrl('ftp://x/'), /starts with http:\/\/ or https:\/\//);
    assert.throws(() => normalizeServerUrl('http://me:secret@x/'), /not in the URL as user:password@/);
    assert.throws(() => normalizeServerUrl('lab.example.org'), /is not a URL/);
    // The bad input is echoed, but a token in it is not: the message reaches the terminal and the panel.
    assert.throws(() => normalizeServerUrl(`http://[lab/?a=1&token=${TOKEN}`), (e: Error) => !e.message.includes(TOKEN) && /&token=\[token\]" is not a URL/.test(e.message));
  });

  test('names are checked; replacing a server keeps its token unless the URL changes', async () => {
    const r = await registry();
    for (const bad of ['C', 'local', '1lab', 'a b', 'x'.repeat(65)]) assert.throws(() => r.add({ name: bad, url: 'http://h/' }), /cannot name a server/, bad);
    r.add({ name: 'lab', url: 'http://h:1/', token: TOKEN });
    assert.equal(r.add({ name: 'lab', url: 'http://h:1/' }).server.revealToken(), TOKEN);
    assert.equal(r.add({ name: 'lab', url: 'http://h:2/' }).server.hasToken, false);
    assert.throws(() => r.add({ name: 'lab', url: 'http://h:2/', token: 'a b' }), /spaces or line breaks/);
  });

  test('a file made readable by others is made owner-only again when read', { skip: process.platform === 'win32' }, async () => {
    const r = await registry();
    r.add({ name: 'lab', url: 'http://h/', token: TOKEN });
    chmodSync(r.file, 0o644);
    r.list();
    assert.equal(statSync(r.file).mode & 0o777, 0o600);
  });

  test('a damaged file is moved aside with its bytes and reported, and the list starts empty', async () => {
    const r = await registry();
    r.add({ name: 'lab', url: 'http://h/' });
    writeFileSync(r.file, '{ not json');
    assert.deepEqual(r.list(), []);
    const notice = stateFileNotices().find((n) => n.file === r.file);
    assert.ok(notice?.movedTo, 'the notice says where the file went');
    assert.equal(readFileSync(notice.movedTo, 'utf8'), '{ not json');
    assert.match(notice.message, /is not JSON/);
    r.add({ name: 'lab', url: 'http://h/' });
    assert.equal(r.list().length, 1, 'adding works again');
  });
});

describe('"<server>:<kernel id>"', () => {
  const known = (name: string) => name === 'lab';
  test('names a remote kernel only for a registered server', () => {
    assert.deepEqual(parseRemoteKernelRef('lab:6f1c2d3e-0000-4a5b-9c8d-1234567890ab', known), { server: 'lab', kernelId: '6f1c2d3e-0000-4a5b-9c8d-1234567890ab' });
    assert.equal(parseRemoteKernelRef('other:6f1c2d3e', known), null);
    assert.equal(parseRemoteKernelRef('C:\\Users\\me\\kernel-1.json', () => true), null);
    assert.equal(parseRemoteKernelRef('lab:/tmp/kernel-1.json', known), null);
    assert.equal(parseRemoteKernelRef('/run/user/1000/jupyter/kernel-1.json', () => true), null);
  });
});

describe('JupyterApi URLs and errors', () => {
  const api = new JupyterApi(new RemoteServer('hub', 'https://hub.example.org/user/ann/', TOKEN));
  test('the WebSocket URL keeps the base path and carries no token', () => {
    const url = api.channelsUrl('k-1', 's-1');
    assert.equal(url, 'wss://hub.example.org/user/ann/api/kernels/k-1/channels?session_id=s-1');
    assert.deepEqual(api.authHeaders(), { Authorization: `token ${TOKEN}` });
  });
  test('a refused token reads as such and says how to fix it, without the token', () => {
    const message = api.httpError(403, 'GET /api/kernels').message;
    assert.match(message, /refused the token \(HTTP 403\)\. Set the right one with `python-session-mcp servers add hub https:\/\/hub\.example\.org\/user\/ann\/ --token <token>`/);
    assert.ok(!message.includes(TOKEN));
  });
  test('a server that is down reads as such', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    assert.match(api.networkError(refused, 'GET /api/status').message, /Cannot reach the Jupyter server hub .*connection refused\)\. Is the server running/);
  });
});

test('backoff doubles up to its ceiling, with jitter in the upper half', () => {
  assert.equal(backoffDelay(1, { initialMs: 100, maxMs: 1000 }, () => 0), 50);
  assert.equal(backoffDelay(1, { initialMs: 100, maxMs: 1000 }, () => 1), 100);
  assert.equal(backoffDelay(3, { initialMs: 100, maxMs: 1000 }, () => 1), 400);
  assert.equal(backoffDelay(30, { initialMs: 100, maxMs: 1000 }, () => 1), 1000);
  assert.equal(backoffDelay(30, { initialMs: 100, maxMs: 1000 }, () => 0), 500);
});
