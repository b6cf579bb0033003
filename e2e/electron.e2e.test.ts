/**
 * The tray app in Electron, end to end: the panel window on the daemon's page, the preload's
 * bridge, the tray icon following the sessions, single instance, and quitting without stopping
 * the daemon. Runs where an Electron binary and a display exist; skips with the reason elsewhere
 * (the binary cannot be downloaded on every machine: see `npm start`'s message).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { createServices, type DaemonServices } from '../app/core/services.js';
import { startPanelServer, type PanelServer } from '../app/core/daemon/panel/server.js';
import { trayAvailability } from '../app/electron/electron-binary.js';
import { cellGate } from '../app/core/testing/cell-gate.js';
import { TEST_PYTHON } from '../app/core/testing/test-python.js';
import { waitFor } from '../app/core/testing/wait-for.js';

const availability = trayAvailability();
const MAIN = fileURLToPath(new URL('../app/electron/main.js', import.meta.url));

type Shown = { state: string; tooltip: string; menu: { label?: string }[] };

if (!availability.ok) {
  // A skipped test (not a skipped suite) so the run's summary counts it and shows the reason.
  test('the tray app in Electron', { skip: `${availability.reason}: the tray's end-to-end test needs the Electron binary and a display` }, () => {});
} else describe('the tray app in Electron', () => {
  let stateDir: string;
  let services: DaemonServices;
  let panel: PanelServer;
  let app: ElectronApplication;
  let window: Page;
  let env: NodeJS.ProcessEnv;
  const binary = availability.ok ? availability.binary : '';

  const shown = () => app.evaluate(() => (globalThis as unknown as { pythonSessionTrayShown?: Shown }).pythonSessionTrayShown ?? null);

  before(async () => {
    // The daemon runs in this process (services + panel), so the tray finds it instead of starting one.
    stateDir = mkdtempSync(join(tmpdir(), 'ps-electron-e2e-'));
    services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON } });
    panel = await startPanelServer({ services, registration: { home: join(stateDir, 'home'), env: {} } });
    env = { ...process.env, PYTHON_MCP_HOME: stateDir, PYTHON_SESSION_E2E: '1' } as NodeJS.ProcessEnv;
    app = await _electron.launch({ executablePath: binary, args: [MAIN], env: env as Record<string, string> });
    window = await app.firstWindow();
  });

  after(async () => {
    await app?.close().catch(() => undefined);
    await panel?.close();
    await services?.shutdown();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  test('the window shows the daemon’s panel, opened with its key', async () => {
    await window.waitForURL(`${panel.baseUrl}**`);
    assert.equal(new URL(window.url()).search, '', 'the key was traded for a cookie');
    await window.waitForFunction(() => document.querySelector('#connection')?.textContent === 'Live');
    assert.equal(await window.title(), 'Python Session');
  });

  test('the preload exposes one function and nothing of Node or Electron', async () => {
    const reach = await window.evaluate(() => ({
      bridge: Object.keys((window as unknown as { pythonSessionTray: object }).pythonSessionTray),
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
    }));
    assert.deepEqual(reach, { bridge: ['reopen'], require: 'undefined', process: 'undefined' });
  });

  test('the tray icon follows the sessions', async () => {
    await waitFor('the tray to show idle', async () => (await shown())?.state === 'idle');
    const session = await services.sessions.start('default', {});
    const gate = cellGate(); // the code runs until the tray has been seen busy
    const run = session.run({ code: gate.waitCode, client: 'e2e', outputLimit: 10_000 });
    await waitFor('the tray to show busy while code runs', async () => (await shown())?.state === 'busy');
    assert.match((await shown())!.tooltip, /default — running/);
    gate.open();
    await run;
    await waitFor('the tray to show idle again', async () => (await shown())?.state === 'idle');
  });

  test('a second launch leaves at once and shows the first one’s window', () => {
    const second = spawnSync(binary, [MAIN], { env, timeout: 20_000 });
    assert.equal(second.status, 0);
  });

  test('closing the window keeps the tray; quitting leaves the daemon serving', async () => {
    await window.close();
    assert.equal(await app.evaluate(({ app: electronApp }) => electronApp.isReady()), true);
    await app.close();
    const health = await fetch(new URL('api/health', panel.baseUrl), { headers: { Authorization: `Bearer ${panel.token}` } });
    assert.equal(health.status, 200);
  });
});
