/**
 * Issue #24, item 1: nothing on disk stops the daemon. A state folder with a half-saved
 * settings.json (and a servers.json that is a folder, an mcp-answers.json that is a symlink
 * elsewhere, a session log with garbage in it) is met by the real command: the shim starts the
 * daemon, which moves each aside with its bytes, runs on defaults, and says so in daemon.log, in
 * `status`, in the panel's snapshot and once in each client's first reply. Settings from
 * environment variables still apply.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM } from './support/panel-browser.js';

const BROKEN = '{ broken';
const LOG_BYTES = '{"id": 1, "code": "a = 1", "outputs": [], "time": "", "client": "x", "status": "ok", "executionCount": 1, "durationMs": 1}\nnot a line of a log\n';
let harness: Harness;
let elsewhere: string;

before(async () => {
  const home = mkdtempSync(join(tmpdir(), 'ps-e2e-state-'));
  writeFileSync(join(home, 'settings.json'), BROKEN);
  mkdirSync(join(home, 'servers.json'));
  elsewhere = join(mkdtempSync(join(tmpdir(), 'ps-elsewhere-')), 'answers.json');
  writeFileSync(elsewhere, '{"not": "ours"}');
  symlinkSync(elsewhere, join(home, 'mcp-answers.json'));
  mkdirSync(join(home, 'sessions', 'default'), { recursive: true });
  writeFileSync(join(home, 'sessions', 'default', 'log.jsonl'), LOG_BYTES);
  // An output limit from the environment, whose effect a reply shows.
  harness = await createHarness({ PYTHON_MCP_POOL_SIZE: '0', PYTHON_MCP_OUTPUT_LIMIT: '1000' }, { home });
});

after(async () => {
  await harness.close();
  rmSync(harness.home, { recursive: true, force: true });
});

const aside = (name: string) => readdirSync(harness.home).filter((n) => n.startsWith(`${name}.bad-`));

test('the daemon starts on a broken settings.json, says so once to each client, and the environment still applies', async () => {
  const client = await harness.connect('first');
  const first = text(await call(client, 'run_python', { code: `print('x' * 5000)` }));
  const note = first.split('\n')[0];
  assert.match(note, /^Note: a damaged file in the daemon's state folder was set aside/);
  assert.ok(note.includes(join(harness.home, 'settings.json')) && note.includes('is not JSON'), note);
  assert.ok(note.includes('servers.json') && note.includes('is a folder'), note);
  assert.ok(note.includes('mcp-answers.json') && note.includes('symlink'), note);
  assert.ok(note.includes('log.jsonl') && note.includes('1 readable entries'), note);
  assert.match(first, /characters of .* left out/, 'PYTHON_MCP_OUTPUT_LIMIT applies: the output was cut at 1000 characters');

  const second = text(await call(client, 'run_python', { code: 'print(2)' }));
  assert.doesNotMatch(second, /damaged/, 'told once per connection');

  const other = await harness.connect('second');
  assert.match(text(await call(other, 'python_status')), /^Note: a damaged file .*settings\.json/, 'each client hears it on its first reply');
});

test('the bad files are moved aside with their bytes; a symlink is removed and its target left alone', () => {
  const [settings] = aside('settings.json');
  assert.ok(settings, readdirSync(harness.home).join(' '));
  assert.equal(readFileSync(join(harness.home, settings), 'utf8'), BROKEN);
  assert.ok(lstatSync(join(harness.home, aside('servers.json')[0])).isDirectory());
  assert.equal(readFileSync(elsewhere, 'utf8'), '{"not": "ours"}');
  assert.ok(!lstatSync(join(harness.home, 'mcp-answers.json')).isSymbolicLink(), 'the daemon wrote its own answers file in place of the link');
  const logDir = join(harness.home, 'sessions', 'default');
  const logAside = readdirSync(logDir).find((n) => n.startsWith('log.jsonl.bad-'))!;
  assert.equal(readFileSync(join(logDir, logAside), 'utf8'), LOG_BYTES);
  // The readable entry is kept, and the runs above follow it.
  const codes = readFileSync(join(logDir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).code);
  assert.equal(codes[0], 'a = 1');
  assert.ok(existsSync(join(harness.home, 'settings.json')), 'a fresh settings.json was written');
});

test('status, daemon.log and the panel name the file and what was done', async () => {
  const status = await harness.cli('status');
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /Warning: .*settings\.json is not JSON \(.*\): moved it to settings\.json\.bad-\S+; the default settings are used/);

  const log = readFileSync(join(harness.home, 'daemon.log'), 'utf8');
  assert.match(log, /state file: .*settings\.json is not JSON .*moved it to settings\.json\.bad-/);
  assert.equal(log.match(/state file: .*settings\.json is not JSON/g)?.length, 1, 'logged once');

  const { panelUrl } = JSON.parse((await harness.cli('status', '--json')).stdout) as { panelUrl: string };
  const url = new URL(panelUrl);
  const snapshot = (await (await fetch(new URL('/api/state', url), { headers: { Authorization: `Bearer ${url.searchParams.get('token')}` } })).json()) as { notices: { message: string }[] };
  assert.ok(snapshot.notices.some((n) => n.message.includes('settings.json is not JSON')), JSON.stringify(snapshot.notices));
});

test('the panel page shows each notice once', { skip: NO_CHROMIUM }, async () => {
  const { panelUrl } = JSON.parse((await harness.cli('status', '--json')).stdout) as { panelUrl: string };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(panelUrl);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    const toast = page.locator('.toast', { hasText: 'settings.json is not JSON' });
    await toast.waitFor();
    assert.equal(await toast.count(), 1);
  } finally {
    await browser.close();
  }
});

test("the daemon's own files damaged — the lock and the log folders, daemon.json a symlink, panel.json and panel-token not theirs: it starts and names each", async () => {
  const home = mkdtempSync(join(tmpdir(), 'ps-e2e-state-'));
  mkdirSync(join(home, 'daemon.lock'));
  mkdirSync(join(home, 'daemon.log'));
  const target = join(mkdtempSync(join(tmpdir(), 'ps-elsewhere-')), 'daemon.json');
  writeFileSync(target, '{"pid": 1}');
  symlinkSync(target, join(home, 'daemon.json'));
  writeFileSync(join(home, 'panel.json'), '{"port": "x"');
  writeFileSync(join(home, 'panel-token'), 'not a token');
  const own = await createHarness({ PYTHON_MCP_POOL_SIZE: '0' }, { home });
  try {
    const client = await own.connect('own-files');
    const note = text(await call(client, 'python_status')).split('\n')[0];
    for (const name of ['daemon.lock is a folder', 'daemon.log is a folder', 'daemon.json is a symlink']) assert.ok(note.includes(name), `${name}: ${note}`);
    const status = (await own.cli('status')).stdout;
    for (const name of ['daemon.lock', 'daemon.log', 'daemon.json', 'panel.json', 'panel-token']) assert.match(status, new RegExp(`Warning: \\S+/${name.replace('.', '\\.')} `), status);
    assert.equal(readFileSync(target, 'utf8'), '{"pid": 1}', "the symlink's target is untouched");
    assert.match(readFileSync(join(home, 'daemon.log'), 'utf8'), /state file: \S+\/daemon\.log is a folder, not a file: moved it to daemon\.log\.bad-/);
    assert.ok((JSON.parse((await own.cli('status', '--json')).stdout) as { panelUrl: string | null }).panelUrl, 'the panel came up with fresh files');
  } finally {
    await own.close();
    rmSync(home, { recursive: true, force: true });
  }
});
