/**
 * The client's project folder (issue #13, item 5), through the built command: the real shim,
 * started in a given folder, relaying to a real daemon and real kernels, driven by the MCP SDK's
 * client. Each suite has its own state folder and its own home folder.
 *
 * - A client that offers MCP roots gets a session in its root: relative paths of run_python,
 *   load_data, save_data, save_figure and export_notebook resolve there; a roots change moves
 *   the next session.
 * - A client that offers none, started in its project, gets a session there; its first run is
 *   answered by the kernel warmed when it connected (item 8).
 * - A second client from another folder is told the shared session's folder once, and how to
 *   start its own; the panel shows the folder.
 * - A client started in `/` works in the home folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { chromium } from 'playwright-core';
import { readPanelAddress } from '../app/core/daemon/panel/address.js';
import { FACTS_KEY } from '../app/core/tools/tool-context.js';
import { waitFor } from '../app/core/testing/wait-for.js';
import { CLI, call, createHarness, text, type CallResult, type Harness } from './support/mcp-harness.js';
import { leftovers } from './support/proc.js';
import { CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM } from './support/panel-browser.js';

const facts = (result: CallResult) => ((result as { _meta?: Record<string, Record<string, any>> })._meta?.[FACTS_KEY] ?? {}) as Record<string, any>;

/** A home folder with projects in it, each holding data/sales.csv. */
function makeHome(): { root: string; home: string; project: (name: string) => string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ps-folder-e2e-')));
  const home = join(root, 'home');
  mkdirSync(home);
  const project = (name: string) => {
    const dir = join(home, 'code', name);
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'data', 'sales.csv'), `region,amount\nnorth,${name.length}\nsouth,2\neast,3\n`);
    return dir;
  };
  return { root, home, project };
}

interface FolderClient {
  client: Client;
  /** Changes the roots it answers with and tells the server they changed. */
  setRoots(dirs: string[]): Promise<void>;
}

/** An MCP client whose shim runs in `cwd`; with `roots`, it offers MCP roots and answers roots/list. */
async function connectIn(harness: Harness, cwd: string, name: string, roots?: string[]): Promise<FolderClient> {
  let current = roots ?? [];
  const client = new Client({ name, version: '1.0.0' }, roots ? { capabilities: { roots: { listChanged: true } } } : {});
  if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: current.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })) }));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI], env: harness.env, cwd, stderr: 'pipe' }));
  return {
    client,
    async setRoots(dirs) {
      current = dirs;
      await client.sendRootsListChanged();
    },
  };
}

/** Runs code and returns what it printed; fails the test on an error reply. */
async function printed(client: Client, code: string, session?: string): Promise<string> {
  const result = await call(client, 'run_python', { code, ...(session ? { session } : {}) });
  assert.ok(!result.isError, text(result));
  return text(result);
}

describe('a client that offers MCP roots', () => {
  const place = makeHome();
  const project = place.project('sales');
  const startedIn = place.project('elsewhere');
  const later = place.project('later');
  let harness: Harness;
  let daemon: number | null = null;
  let folderClient: FolderClient;

  before(async () => {
    harness = await createHarness({ HOME: place.home }, { home: join(place.root, 'state') });
    folderClient = await connectIn(harness, startedIn, 'roots-client', [project]);
  });

  after(async () => {
    await folderClient?.client.close();
    await harness?.close();
    if (harness) assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(place.root, { recursive: true, force: true });
  });

  test('works in its root, not in the folder it was started in; every tool resolves relative paths there', { timeout: 180_000 }, async () => {
    const { client } = folderClient;
    const status = text(await call(client, 'python_status'));
    assert.match(status, new RegExp(`Working folder for new sessions: ${project} — roots-client's project \\(its MCP root\\)`));

    assert.equal(await printed(client, "import os, pandas as pd\nprint(os.getcwd())\nprint(pd.read_csv('data/sales.csv').shape)"), `${project}\n(3, 2)\n`);
    daemon = await harness.daemonPid();

    const loaded = await call(client, 'load_data', { path: 'data/sales.csv', name: 'sales' });
    assert.ok(!loaded.isError, text(loaded));
    const saved = await call(client, 'save_data', { name: 'sales', path: 'out/sales.csv' });
    assert.ok(!saved.isError, text(saved));
    assert.ok(existsSync(join(project, 'out', 'sales.csv')), 'save_data wrote into the project');

    await printed(client, 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()');
    const figure = await call(client, 'save_figure', { path: 'figures/line.png' });
    assert.ok(!figure.isError, text(figure));
    assert.ok(existsSync(join(project, 'figures', 'line.png')), 'save_figure wrote into the project');

    const notebook = await call(client, 'export_notebook', { path: 'notebooks/analysis.ipynb' });
    assert.ok(!notebook.isError, text(notebook));
    assert.ok(existsSync(join(project, 'notebooks', 'analysis.ipynb')), 'export_notebook wrote into the project');
    for (const name of ['out', 'figures', 'notebooks']) assert.ok(!existsSync(join(startedIn, name)), `nothing went to the started-in folder (${name})`);

    const after = await call(client, 'python_status');
    assert.match(text(after), new RegExp(`working folder ${project} — roots-client's project \\(its MCP root\\)`));
    assert.equal(facts(after).cwd, project);
  });

  test('a roots change moves the next session, not the running one', { timeout: 120_000 }, async () => {
    const { client } = folderClient;
    await folderClient.setRoots([later]);
    const started = await call(client, 'start_kernel', { session: 'second' });
    assert.ok(!started.isError, text(started));
    assert.equal(await printed(client, 'import os; print(os.getcwd())', 'second'), `${later}\n`);
    assert.equal(await printed(client, 'import os; print(os.getcwd())'), `${project}\n`, 'the default session stays where it started');
  });
});

describe('a client without roots, started in its project, and a second client from elsewhere', () => {
  const place = makeHome();
  const project = place.project('sales');
  const other = place.project('other');
  let harness: Harness;
  let daemon: number | null = null;
  let first: Client;
  let second: Client;

  before(async () => {
    harness = await createHarness({ HOME: place.home }, { home: join(place.root, 'state') });
    first = (await connectIn(harness, project, 'first-client')).client;
  });

  after(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await harness?.close();
    if (harness) assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(place.root, { recursive: true, force: true });
  });

  test("pd.read_csv('data/sales.csv') works, in the kernel warmed when the client connected", { timeout: 180_000 }, async () => {
    // Connecting warmed a kernel: the first run must be answered by it, not by a new one.
    const pooled = await waitFor('the kernel warmed on connect', async () => {
      const pool = (facts(await call(first, 'python_status')).warm_pool ?? []) as { ready: number; pids: number[] }[];
      return pool.find((p) => p.ready > 0)?.pids[0];
    }, { timeoutMs: 60_000 });
    assert.equal(await printed(first, "import os, pandas as pd\nprint(os.getcwd())\nprint(pd.read_csv('data/sales.csv').amount.sum())"), `${project}\n10\n`);
    daemon = await harness.daemonPid();
    const status = await call(first, 'kernel_status');
    assert.equal(facts(status).pid, pooled, 'the first run went to the warmed kernel');
    assert.match(text(status), new RegExp(`working folder ${project} — the folder first-client was started in`));
  });

  test("a second client from another folder is told the session's folder once, and how to start its own", { timeout: 120_000 }, async () => {
    second = (await connectIn(harness, other, 'second-client')).client;
    const told = text(await call(second, 'run_python', { code: "import os; print(os.path.exists('data/sales.csv'), os.getcwd())" }));
    const note = told.slice(0, told.indexOf('\n\n'));
    assert.match(note, /^Note: session "default" \(started by first-client, shared\) works in /);
    assert.ok(note.includes(`works in ${project}, not in your folder ${other}`), note);
    assert.ok(note.includes(`start_kernel(session="other", cwd="${other}")`), note);
    assert.ok(told.endsWith(`True ${project}\n`), told);

    const again = text(await call(second, 'run_python', { code: '1 + 1' }));
    assert.equal(again, '2\n', 'told once, not on every call');
    const listed = text(await call(second, 'list_names'));
    assert.doesNotMatch(listed, /^Note:/, 'nor in the next tool that touches the session');
    assert.doesNotMatch(text(await call(first, 'run_python', { code: '3' })), /Note:/, 'the client that started it is never told');

    // As the note says: a session of its own, in its folder.
    const own = await call(second, 'start_kernel', { session: 'other', cwd: other });
    assert.ok(!own.isError, text(own));
    assert.doesNotMatch(text(own), /^Note:/);
    assert.equal(await printed(second, 'import os; print(os.getcwd())', 'other'), `${other}\n`);
    assert.match(text(await call(first, 'kernel_status', { session: 'other' })), /^Note: session "other" \(started by second-client, shared\)/, 'and the first client, reaching it, is told in turn');
  });

  test('the panel shows each session\'s folder and why', { timeout: 120_000 }, async (t) => {
    const panel = await waitFor('the daemon to start its panel', () => readPanelAddress(harness.home), { timeoutMs: 15_000 });
    const state = (await (await fetch(`${panel.baseUrl}api/state`, { headers: { authorization: `Bearer ${panel.token}` } })).json()) as { sessions: { name: string; cwd: string; cwdReason: string }[] };
    const byName = Object.fromEntries(state.sessions.map((s) => [s.name, s]));
    assert.equal(byName.default.cwd, project);
    assert.equal(byName.default.cwdReason, 'the folder first-client was started in');
    assert.equal(byName.other.cwd, other);
    if (NO_CHROMIUM) return t.diagnostic(`page not checked: ${NO_CHROMIUM}`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      assert.equal((await page.goto(panel.url))?.status(), 200);
      const folder = page.locator('.facts', { hasText: 'Folder' });
      await folder.waitFor({ timeout: 30_000 });
      const shown = await folder.innerText();
      assert.ok(shown.includes(project) && shown.includes('the folder first-client was started in'), shown);
    } finally {
      await browser.close();
    }
  });
});

describe('a client started in / without roots (a desktop app)', () => {
  const place = makeHome();
  let harness: Harness;
  let daemon: number | null = null;
  let client: Client;

  before(async () => {
    harness = await createHarness({ HOME: place.home, PYTHON_MCP_POOL_SIZE: '0' }, { home: join(place.root, 'state') });
    client = (await connectIn(harness, '/', 'desktop-client')).client;
  });

  after(async () => {
    await client?.close();
    await harness?.close();
    if (harness) assert.deepEqual(await leftovers(harness.home, [daemon]), []);
    rmSync(place.root, { recursive: true, force: true });
  });

  test('works in the home folder, and says why', { timeout: 120_000 }, async () => {
    const status = text(await call(client, 'python_status'));
    assert.match(status, new RegExp(`Working folder for new sessions: ${place.home} — the home folder: desktop-client offers no MCP roots and was started in /, the filesystem root`));
    assert.equal(await printed(client, 'import os; print(os.getcwd())'), `${place.home}\n`);
    daemon = await harness.daemonPid();
  });
});
