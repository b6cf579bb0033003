/** Whether `npm start` can open the tray: the binary is found without downloading it, and a display is needed on Linux. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { displayProblem, findElectronBinary, trayAvailability, type AvailabilityContext } from './electron-binary.js';

function ctx(files: Record<string, string>, overrides: Partial<AvailabilityContext> = {}): AvailabilityContext {
  return {
    platform: 'linux',
    env: { DISPLAY: ':0' },
    electronDir: '/app/node_modules/electron',
    exists: (p) => p in files,
    readText: (p) => files[p] ?? null,
    ...overrides,
  };
}

const installed = { '/app/node_modules/electron/path.txt': 'electron', '/app/node_modules/electron/dist/electron': '' };

test('finds the binary the electron package names in path.txt', () => {
  assert.deepEqual(findElectronBinary(ctx(installed)), { ok: true, binary: join('/app/node_modules/electron/dist', 'electron') });
});

test('says how to install the binary when only the package is there', () => {
  for (const files of [{}, { '/app/node_modules/electron/path.txt': 'electron' }] as Record<string, string>[]) {
    const result = findElectronBinary(ctx(files));
    assert.equal(result.ok, false);
    assert.match((result as { reason: string }).reason, /^Electron binary not installed \(run `node node_modules\/electron\/install\.js` where the network allows\)$/);
  }
  assert.deepEqual(findElectronBinary(ctx({}, { electronDir: null })), { ok: false, reason: 'Electron is not installed (npm install)' });
});

test('honours ELECTRON_OVERRIDE_DIST_PATH as the electron package does', () => {
  const files = { '/opt/electron/electron': '' };
  assert.deepEqual(findElectronBinary(ctx(files, { env: { DISPLAY: ':0', ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' } })), { ok: true, binary: '/opt/electron/electron' });
});

test('a display is needed on Linux, never asked for on macOS and Windows', () => {
  assert.equal(displayProblem('linux', {}), 'No display (neither DISPLAY nor WAYLAND_DISPLAY is set)');
  assert.equal(displayProblem('linux', { WAYLAND_DISPLAY: 'wayland-0' }), null);
  assert.equal(displayProblem('darwin', {}), null);
  assert.equal(displayProblem('win32', {}), null);
  assert.deepEqual(trayAvailability(ctx(installed, { env: {} })), { ok: false, reason: 'No display (neither DISPLAY nor WAYLAND_DISPLAY is set)' });
  assert.equal(trayAvailability(ctx(installed)).ok, true);
});
