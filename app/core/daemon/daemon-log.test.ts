import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DaemonLog } from './daemon-log.js';

test('the daemon log is owner-only, timestamped, and rotates at its cap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-log-'));
  try {
    const path = join(dir, 'daemon.log');
    const echoed: string[] = [];
    const log = new DaemonLog({ path, maxBytes: 1000, echo: (line) => echoed.push(line) });
    log.info('first');
    assert.match(readFileSync(path, 'utf8'), /^\d{4}-\d\d-\d\dT[\d:.]+Z info  \[\d+\] first\n$/);
    if (process.platform !== 'win32') assert.equal(statSync(path).mode & 0o777, 0o600);
    for (let i = 0; i < 30; i++) log.warn(`line ${i} ${'x'.repeat(40)}`);
    log.error('boom', new Error('the cause'));
    log.close();
    assert.ok(existsSync(`${path}.1`), 'rotated');
    assert.ok(statSync(path).size <= 1000 && statSync(`${path}.1`).size <= 1000);
    assert.match(readFileSync(path, 'utf8'), /error \[\d+\] boom: Error: the cause/);
    assert.equal(echoed.length, 32);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
