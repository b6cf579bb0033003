/**
 * "Install ipykernel" in the panel's Interpreters view, in Debian's Chromium against a real
 * daemon (services + panel server in this process), with fake installers in a temporary HOME:
 * venvs whose python is Debian's (linked, as synthetic-tree does) and whose `pip` is a stand-in
 * module in their site-packages, and a conda install whose `condabin/conda` is a stand-in script.
 * The command is shown before anything runs; its output appears while it runs (the fake waits
 * for the test to let it finish); success refreshes the listing and the probe cache; a failure
 * shows its output; an externally managed Python (PEP 668) is explained and nothing is run.
 *
 * Then once for real: a fresh venv of a pyenv Python, the action (pip fetching ipykernel from
 * this machine's configured index), and a session there that python_status says runs on ipykernel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Browser, Page } from 'playwright-core';
import { createMcpServer } from '../app/core/mcp/server.js';
import { createServices, type DaemonServices } from '../app/core/services.js';
import { startPanelServer, type PanelServer } from '../app/core/daemon/panel/server.js';
import { makeCondaPrefix, makePyenvVersion, makeVenv, REAL_PYTHON } from '../app/core/interpreters/synthetic-tree.js';
import { ARTIFACTS, NO_CHROMIUM, openRecordingPage } from './support/panel-browser.js';

const PY_MINOR = execFileSync(REAL_PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).trim();

/** A stand-in for `python -m pip`: checks its arguments, prints, waits for `release`, then "installs". */
const FAKE_PIP = (fail: boolean) => `import os, sys, time
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
venv = os.path.abspath(os.path.join(here, '..', '..', '..'))
if sys.argv[1:] != ['install', 'ipykernel']:
    sys.stderr.write('fake pip: unexpected arguments %r\\n' % (sys.argv[1:],)); sys.exit(2)
print('Looking in indexes: fake-index', flush=True)
print('Collecting ipykernel', flush=True)
${
  fail
    ? `sys.stderr.write('ERROR: Could not find a version that satisfies the requirement ipykernel (from versions: none)\\n')
sys.stderr.write('ERROR: No matching distribution found for ipykernel\\n')
sys.exit(1)`
    : `release = os.path.join(venv, 'release')
for _ in range(1200):
    if os.path.exists(release): break
    time.sleep(0.05)
os.makedirs(os.path.join(here, 'ipykernel'), exist_ok=True)
open(os.path.join(here, 'ipykernel', '__init__.py'), 'w').write("__version__ = '6.99.0'\\n")
os.makedirs(os.path.join(here, 'ipykernel-6.99.0.dist-info'), exist_ok=True)
open(os.path.join(here, 'ipykernel-6.99.0.dist-info', 'METADATA'), 'w').write('Metadata-Version: 2.1\\nName: ipykernel\\nVersion: 6.99.0\\n')
print('Successfully installed ipykernel-6.99.0', flush=True)`
}
`;

/** A stand-in for conda: `install -n <env> --yes ipykernel` records ipykernel in that env. */
const FAKE_CONDA = `#!${REAL_PYTHON}
import os, sys
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
if len(args) != 5 or args[0] != 'install' or args[1] != '-n' or args[3:] != ['--yes', 'ipykernel']:
    sys.stderr.write('fake conda: unexpected arguments %r\\n' % (args,)); sys.exit(2)
prefix = os.path.join(root, 'envs', args[2])
print('Collecting package metadata (repodata.json): done', flush=True)
print('Solving environment: done', flush=True)
print('## Package Plan ##\\n  environment location: %s' % prefix, flush=True)
open(os.path.join(prefix, 'conda-meta', 'ipykernel-6.29.5-pyh3099207_0.json'), 'w').write('{}')
site = os.path.join(prefix, 'lib', 'python${PY_MINOR}', 'site-packages', 'ipykernel')
os.makedirs(site, exist_ok=True)
open(os.path.join(site, '__init__.py'), 'w').write('')
print('Executing transaction: done', flush=True)
`;

async function fakeVenv(dir: string, fail: boolean): Promise<void> {
  await makeVenv(dir, { cfg: `home = /usr/bin\ninclude-system-site-packages = false\nversion = ${PY_MINOR}.0\n`, sitePackagesOf: PY_MINOR });
  const pip = join(dir, 'lib', `python${PY_MINOR}`, 'site-packages', 'pip');
  mkdirSync(pip, { recursive: true });
  writeFileSync(join(pip, '__init__.py'), '');
  writeFileSync(join(pip, '__main__.py'), FAKE_PIP(fail));
}

/** A pyenv Python 3.11 (else any 3.8+) from the real pyenv root, or why there is none. */
function pyenvPython(): { python: string } | { skip: string } {
  const r = spawnSync('pyenv', ['root'], { encoding: 'utf8' });
  const root = r.status === 0 ? r.stdout.trim() : join(process.env.HOME ?? '', '.pyenv');
  const versions = join(root, 'versions');
  if (!existsSync(versions)) return { skip: `no pyenv Pythons (${versions} does not exist)` };
  const usable = readdirSync(versions).filter((v) => /^3\.(8|9|1\d)\.\d+$/.test(v) && existsSync(join(versions, v, 'bin', 'python')));
  const pick = usable.find((v) => v.startsWith('3.11.')) ?? usable[0];
  return pick ? { python: join(versions, pick, 'bin', 'python') } : { skip: `no pyenv Python 3.8 or newer in ${versions}` };
}

describe('Install ipykernel from the Interpreters view, in Chromium', { skip: NO_CHROMIUM }, () => {
  let tmp: string;
  let home: string;
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let client: Client;

  const good = () => join(home, '.venvs', 'good');
  const broken = () => join(home, '.venvs', 'broken');
  const condaRoot = () => join(home, 'miniconda3');
  const row = (path: string) => page.locator('#interp-rows tr', { has: page.locator('code.path', { hasText: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }) });
  const dialog = () => page.locator('#dialog-install');
  const openInterpreters = async () => {
    if (!page.url().startsWith(panel.baseUrl)) await page.goto(panel.url);
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    await page.click('#nav-interpreters');
    await page.locator('#interp-rows tr').first().waitFor();
  };
  const clickInstall = async (path: string) => {
    await row(path).getByRole('button', { name: /^Install ipykernel into/ }).click();
    await dialog().locator('.install-command, .install-pep668, .install-refused').first().waitFor();
  };
  const closeDialog = async () => {
    await dialog().getByRole('button', { name: 'Close' }).click();
    await page.waitForFunction(() => !(document.getElementById('dialog-install') as HTMLDialogElement | null)?.open);
  };

  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'ps-panel-install-e2e-'));
    home = join(tmp, 'home');
    stateDir = join(tmp, 'state');
    mkdirSync(stateDir, { recursive: true });
    await fakeVenv(good(), false);
    await fakeVenv(broken(), true);
    await makeCondaPrefix(condaRoot(), { python: `${PY_MINOR}.0`, base: true, sitePackages: true });
    writeFileSync(join(condaRoot(), 'condabin', 'conda'), FAKE_CONDA);
    chmodSync(join(condaRoot(), 'condabin', 'conda'), 0o755);
    await makeCondaPrefix(join(condaRoot(), 'envs', 'analysis'), { python: `${PY_MINOR}.0`, sitePackages: true });
    // A Python whose stdlib carries PEP 668's marker (as Debian's does).
    const managed = join(home, '.pyenv', 'versions', `${PY_MINOR}.0`);
    await makePyenvVersion(managed, { patchlevel: `${PY_MINOR}.0` });
    mkdirSync(join(managed, 'lib', `python${PY_MINOR}`, 'site-packages'), { recursive: true });
    writeFileSync(join(managed, 'lib', `python${PY_MINOR}`, 'EXTERNALLY-MANAGED'), '[externally-managed]\nError=This Python is managed by the test system.\n Use its package manager.\n');

    // The person's own pip settings (this machine's local index) come with them into the temporary home.
    for (const rel of [join('.config', 'pip', 'pip.conf'), join('.pip', 'pip.conf')]) {
      const mine = join(process.env.HOME ?? '', rel);
      if (existsSync(mine)) {
        mkdirSync(join(home, rel, '..'), { recursive: true });
        copyFileSync(mine, join(home, rel));
      }
    }
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PYENV_ROOT: join(home, '.pyenv'), PATH: '/usr/bin:/bin', PYTHON_MCP_INTERPRETER: REAL_PYTHON, PYTHON_MCP_POOL_SIZE: '0' };
    for (const name of ['CONDA_EXE', '_CONDA_EXE', 'CONDA_PREFIX', 'CONDA_PREFIX_1', 'CONDA_PYTHON_EXE', 'CONDA_ROOT', 'MAMBA_ROOT_PREFIX', 'MAMBA_EXE', 'VIRTUAL_ENV', 'WORKON_HOME']) delete env[name];
    services = await createServices({ stateDir, env });
    panel = await startPanelServer({ services, host: '127.0.0.1', port: 0, registration: { home, env: {} } });
    const server = createMcpServer(services, { id: 'e2e' });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    client = new Client({ name: 'e2e-client', version: '1.0.0' });
    await client.connect(clientTransport);
    ({ browser, page, pageErrors } = await openRecordingPage());
  });

  after(async () => {
    await browser?.close();
    await client?.close();
    await panel?.close();
    await services?.shutdown();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'the page threw no errors');
  });

  test('pip: the command is shown first, its output appears while it runs, and success refreshes the listing and the probe', async () => {
    await openInterpreters();
    const python = join(good(), 'bin', 'python');
    assert.equal(await row(python).locator('.yesno').innerText(), 'no');
    await clickInstall(python);
    assert.equal(await dialog().locator('.install-command').innerText(), `${python} -m pip install ipykernel`);
    assert.equal(await dialog().locator('.install-output').count(), 0, 'nothing has run yet');
    assert.ok(!existsSync(join(good(), 'lib', `python${PY_MINOR}`, 'site-packages', 'ipykernel')));

    await dialog().getByRole('button', { name: 'Run this command' }).click();
    // The fake pip is still waiting for `release`: what is on screen came while it ran.
    await dialog().locator('.install-output', { hasText: 'Collecting ipykernel' }).waitFor();
    assert.match(await dialog().locator('.install-status').innerText(), /^Running/);
    await page.screenshot({ path: join(ARTIFACTS, 'panel-install-running.png') });
    writeFileSync(join(good(), 'release'), '');

    await dialog().locator('.install-ok').waitFor({ timeout: 60_000 });
    const status = await dialog().locator('.install-status').innerText();
    assert.match(status, /ipykernel 6\.99\.0 is installed\. New sessions on this interpreter start on ipykernel\./);
    assert.match(status, /keep their engine until restarted/);
    assert.match(await dialog().locator('.install-output').innerText(), /Successfully installed ipykernel-6\.99\.0/);
    await page.screenshot({ path: join(ARTIFACTS, 'panel-install-done.png') });
    await closeDialog();
    await page.waitForFunction((p) => Array.from(document.querySelectorAll("#interp-rows tr")).some((tr) => tr.querySelector('code.path')?.textContent === p && tr.querySelector('.yesno')?.textContent === 'yes'), python);
    assert.equal(await row(python).getByRole('button', { name: /^Install ipykernel/ }).count(), 0, 'no action once it has ipykernel');

    const cache = JSON.parse(readFileSync(join(stateDir, 'interpreter-probes.json'), 'utf8')) as { entries: Record<string, { probe: { packages: Record<string, string | null> } }> };
    assert.equal(cache.entries[python]?.probe.packages.ipykernel, '6.99.0', 'the probe on disk was refreshed');
    assert.equal((await services.sessions.engineFor(python)).engine, 'ipykernel', 'new sessions there would use ipykernel');
  });

  test("a failure is shown with the installer's output, and the interpreter still lacks ipykernel", async () => {
    await openInterpreters();
    const python = join(broken(), 'bin', 'python');
    await clickInstall(python);
    await dialog().getByRole('button', { name: 'Run this command' }).click();
    await dialog().locator('.install-failed').waitFor({ timeout: 60_000 });
    assert.match(await dialog().locator('.install-status').innerText(), /The command failed \(exit code 1\)/);
    assert.match(await dialog().locator('.install-output').innerText(), /ERROR: No matching distribution found for ipykernel/);
    await closeDialog();
    assert.equal(await row(python).locator('.yesno').innerText(), 'no');
  });

  test('conda: the env is installed into by the conda that owns it, by name', async () => {
    await openInterpreters();
    const python = join(condaRoot(), 'envs', 'analysis', 'bin', 'python');
    await clickInstall(python);
    assert.equal(await dialog().locator('.install-command').innerText(), `${join(condaRoot(), 'condabin', 'conda')} install -n analysis --yes ipykernel`);
    await dialog().getByRole('button', { name: 'Run this command' }).click();
    await dialog().locator('.install-ok').waitFor({ timeout: 60_000 });
    assert.match(await dialog().locator('.install-output').innerText(), /Solving environment: done[\s\S]*Executing transaction: done/);
    await closeDialog();
    await page.waitForFunction((p) => Array.from(document.querySelectorAll("#interp-rows tr")).some((tr) => tr.querySelector('code.path')?.textContent === p && tr.querySelector('.yesno')?.textContent === 'yes'), python);
  });

  test('an externally managed Python (PEP 668) is explained with what works instead, and nothing is run', async () => {
    await openInterpreters();
    const python = join(home, '.pyenv', 'versions', `${PY_MINOR}.0`, 'bin', 'python');
    await clickInstall(python);
    const text = await dialog().innerText();
    assert.match(text, /managed by the operating system \(PEP 668/);
    assert.match(text, /does not force it \(no --break-system-packages\)/);
    assert.match(await dialog().locator('.install-alternatives').innerText(), / -m venv ~\/\.venvs\/analysis && ~\/\.venvs\/analysis\/bin\/python -m pip install ipykernel/);
    assert.equal(await dialog().getByRole('button', { name: 'Run this command' }).count(), 0);
    await page.screenshot({ path: join(ARTIFACTS, 'panel-install-pep668.png') });
    await closeDialog();
    // Asking the daemon to run it anyway is refused.
    const forced = await page.evaluate(async (path) => {
      const r = await fetch('/api/interpreters/install', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path }) });
      return { status: r.status, body: await r.json() };
    }, python);
    assert.equal(forced.status, 409);
    assert.match(forced.body.error, /PEP 668/);
    // Debian's own Python: the system package manager's command.
    const debian = await page.evaluate(async () => {
      const r = await fetch('/api/interpreters/install-plan', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: '/usr/bin/python3' }) });
      return r.json();
    });
    assert.equal(debian.plan.kind, 'externally-managed');
    assert.equal(debian.plan.alternatives[0].command, 'sudo apt install python3-ipykernel');
    assert.match(debian.plan.message, /apt install/);
  });

  test('no MCP tool installs packages', async () => {
    const { tools } = await client.listTools();
    const installing = tools.filter((t) => /install/i.test(t.name));
    assert.deepEqual(installing.map((t) => t.name), []);
  });

  describe('once for real: a fresh pyenv venv, the action, then a session on ipykernel', () => {
    const found = pyenvPython();
    let venv = '';
    let skip: string | false = 'skip' in found ? found.skip : false;
    if (!skip && 'python' in found) {
      venv = join(mkdtempSync(join(tmpdir(), 'ps-install-real-')), 'probe');
      const made = spawnSync(found.python, ['-m', 'venv', venv], { encoding: 'utf8' });
      const fetched = made.status === 0 ? spawnSync(join(venv, 'bin', 'python'), ['-m', 'pip', 'download', '--no-deps', '-q', '-d', join(venv, 'wheels'), 'ipykernel'], { encoding: 'utf8' }) : made;
      if (fetched.status !== 0) skip = `pip cannot fetch ipykernel here: ${(fetched.stderr || fetched.stdout).trim().split('\n').pop()}`;
      rmSync(join(venv, '..'), { recursive: true, force: true });
    }

    test('pip installs ipykernel from the index, and a new session runs on it', { skip, timeout: 600_000 }, async () => {
      const python = (found as { python: string }).python;
      const real = join(home, '.venvs', 'real');
      execFileSync(python, ['-m', 'venv', real]);
      const venvPython = join(real, 'bin', 'python');
      await openInterpreters();
      await page.click('#rescan');
      await page.locator('#rescan', { hasText: 'Rescan' }).waitFor();
      await row(venvPython).waitFor();
      await clickInstall(venvPython);
      assert.equal(await dialog().locator('.install-command').innerText(), `${venvPython} -m pip install ipykernel`);
      await dialog().getByRole('button', { name: 'Run this command' }).click();
      await dialog().locator('.install-ok, .install-failed').waitFor({ timeout: 540_000 });
      const output = await dialog().locator('.install-output').innerText();
      assert.equal(await dialog().locator('.install-ok').count(), 1, output);
      assert.match(output, /Successfully installed[^\n]*ipykernel-/);
      await closeDialog();

      const result = (await client.callTool({ name: 'start_kernel', arguments: { session: 'real', interpreter: venvPython } }, undefined, { timeout: 120_000 })) as { isError?: boolean; content: { text?: string }[] };
      assert.ok(!result.isError, JSON.stringify(result));
      const status = (await client.callTool({ name: 'python_status', arguments: { session: 'real' } })) as { content: { text?: string }[] };
      const said = status.content.map((c) => c.text ?? '').join('\n');
      assert.match(said, /engine ipykernel — /, said);
      assert.ok(said.includes(venvPython), said);
    });
  });
});
