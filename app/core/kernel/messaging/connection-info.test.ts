import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConnectionFile } from './connection-info.js';

const WHOLE = JSON.stringify({ shell_port: 5001, iopub_port: 5002, stdin_port: 5003, control_port: 5004, hb_port: 5005, ip: '127.0.0.1', key: 'k', transport: 'tcp', signature_scheme: 'hmac-sha256' });

async function folder(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(join(tmpdir(), 'ps-connection-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('a connection file a starting kernel is still writing is read once it is whole', async (t) => {
  // Seen in a fresh-clone CI run on ipykernel 7: the file existed, cut off, when it was read.
  const file = join(await folder(t), 'kernel-new.json');
  await writeFile(file, WHOLE.slice(0, 30));
  const reading = readConnectionFile(file);
  await appendFile(file, WHOLE.slice(30));
  const info = await reading;
  assert.equal(info.shell_port, 5001);
  assert.equal(info.hb_port, 5005);
});

test('an old connection file that is not JSON is said to be damaged at once', async (t) => {
  const file = join(await folder(t), 'kernel-old.json');
  await writeFile(file, '{ broken');
  const old = new Date(Date.now() - 60_000);
  await utimes(file, old, old);
  const started = Date.now();
  await assert.rejects(readConnectionFile(file), /is not valid JSON/);
  assert.ok(Date.now() - started < 1000, 'no wait for a file nobody is writing');
});

test('a missing connection file names where Jupyter keeps them; one without ports names the port', async (t) => {
  const dir = await folder(t);
  await assert.rejects(readConnectionFile(join(dir, 'nope.json')), /not found.*jupyter --runtime-dir/);
  await writeFile(join(dir, 'no-ports.json'), '{"ip": "127.0.0.1"}');
  await assert.rejects(readConnectionFile(join(dir, 'no-ports.json')), /has no shell_port/);
});
