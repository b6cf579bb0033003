/** `npm start` where no tray can run: one line saying why, then the daemon in the foreground. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { trayAvailability } from '../electron/electron-binary.js';

const START = fileURLToPath(new URL('./start.js', import.meta.url));

test('says in one line why there is no tray, then runs `serve`', { skip: trayAvailability().ok ? 'a tray can run here' : false }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'ps-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHON_MCP_HOME: home, PYTHON_MCP_INTERPRETER: '/usr/bin/python3' };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const child = spawn(process.execPath, [START], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.split('\n')[0]);
      });
      child.on('exit', () => resolve(out.split('\n')[0]));
      setTimeout(() => reject(new Error('no output within 30 s')), 30_000).unref();
    });
    assert.match(firstLine, /^(Electron binary not installed \(run `node node_modules\/electron\/install\.js` where the network allows\)|Electron is not installed \(npm install\)|No display \(neither DISPLAY nor WAYLAND_DISPLAY is set\)); starting the daemon without the tray\.$/);
  } finally {
    const exited = new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    child.kill('SIGTERM'); // passed on to `serve`
    await exited;
    rmSync(home, { recursive: true, force: true });
  }
});
