/** The session log on a real file system: order, ids, torn lines, and a file that goes away. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionLog, type LogEntry } from './session-log.js';
import { stateFileNotices } from '../state-file.js';

const run = (code: string): Omit<LogEntry, 'id'> => ({ time: new Date(0).toISOString(), client: 'test', code, status: 'ok', executionCount: 1, durationMs: 1, outputs: [] });

test('entries come back in order with increasing ids, and a new log on the folder continues the ids', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-log-'));
  const log = new SessionLog(dir);
  log.append(run('a = 1'));
  log.append(run('a + 1'));
  assert.deepEqual(log.read().map((e) => [e.id, e.code]), [[1, 'a = 1'], [2, 'a + 1']]);
  log.close();
  assert.equal(new SessionLog(dir).append(run('b')).id, 3);
  assert.equal(statSync(log.path).mode & 0o777, 0o600);
  rmSync(dir, { recursive: true, force: true });
});

test('a log deleted while the session runs is started again with the next run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-log-'));
  const log = new SessionLog(dir);
  log.append(run('first'));
  rmSync(log.path);
  log.append(run('second'));
  assert.deepEqual(log.read().map((e) => e.code), ['second']);
  rmSync(dir, { recursive: true, force: true });
});

test('a torn last line (a crash mid-write) is skipped, and the next entry still reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-log-'));
  const log = new SessionLog(dir);
  log.append(run('kept'));
  appendFileSync(log.path, '{"id": 2, "code": "tor');
  const reopened = new SessionLog(dir);
  assert.deepEqual(reopened.read().map((e) => e.code), ['kept']);
  reopened.append(run('after'));
  assert.deepEqual(reopened.read().map((e) => e.code), ['kept', 'after']);
  rmSync(dir, { recursive: true, force: true });
});

test('a run that ends after the session closed is still logged', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-log-'));
  const log = new SessionLog(dir);
  log.append(run('before'));
  log.close();
  log.append(run('late'));
  assert.deepEqual(log.read().map((e) => e.code), ['before', 'late']);
  rmSync(dir, { recursive: true, force: true });
});

test('a torn line that later runs were appended after is still skipped silently, not taken for damage', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-log-'));
  const log = new SessionLog(dir);
  log.append(run('kept'));
  appendFileSync(log.path, '{"id": 2, "code": "tor');
  const reopened = new SessionLog(dir);
  reopened.append(run('after'));
  reopened.close();
  const before = stateFileNotices().length;
  const third = new SessionLog(dir);
  assert.deepEqual(third.read().map((e) => e.code), ['kept', 'after']);
  assert.deepEqual(stateFileNotices().slice(before), [], 'no notice, and the log stays where it is');
  third.close();
  rmSync(dir, { recursive: true, force: true });
});
