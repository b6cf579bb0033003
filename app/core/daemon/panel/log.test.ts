/** Reading the session log for the panel: incremental, paged from the newest, searchable. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionLog, type LogEntry } from '../../sessions/session-log.js';
import { entryView, fileUrl, listFigures, LogReader } from './log.js';

function entry(i: number, extra: Partial<LogEntry> = {}): Omit<LogEntry, 'id'> {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    client: i % 2 ? 'cursor' : 'claude-code',
    code: `x${i} = ${i}`,
    status: 'ok',
    executionCount: i,
    durationMs: 5,
    outputs: [{ type: 'stream', name: 'stdout', text: `value ${i}\n` }],
    ...extra,
  };
}

test('pages from the newest run backwards', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-panel-log-'));
  try {
    const log = new SessionLog(dir);
    for (let i = 1; i <= 120; i++) log.append(entry(i));
    const reader = new LogReader();
    const first = reader.page(log.path, { limit: 50 });
    assert.equal(first.total, 120);
    assert.equal(first.entries.length, 50);
    assert.deepEqual([first.entries[0].id, first.entries.at(-1)!.id], [71, 120]);
    assert.ok(first.hasMore);
    const second = reader.page(log.path, { limit: 50, before: first.entries[0].id });
    assert.deepEqual([second.entries[0].id, second.entries.at(-1)!.id], [21, 70]);
    const third = reader.page(log.path, { limit: 50, before: second.entries[0].id });
    assert.equal(third.entries.length, 20);
    assert.equal(third.hasMore, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reads only what was appended, and survives a torn last line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-panel-log-'));
  try {
    const log = new SessionLog(dir);
    log.append(entry(1));
    const reader = new LogReader();
    const before = reader.entries(log.path);
    assert.equal(before.length, 1);
    appendFileSync(log.path, '{"id": 2, "time": "2026-01-01T00:00:02.000Z", "cli'); // a write in progress
    assert.equal(reader.entries(log.path).length, 1);
    appendFileSync(log.path, 'ent": "x", "code": "late", "status": "ok", "executionCount": 2, "durationMs": 1, "outputs": []}\n');
    const after = reader.entries(log.path);
    assert.equal(after.length, 2, 'the line completed by a later write is read whole');
    assert.equal(after[1].code, 'late');
    assert.equal(after[0], before[0], 'earlier entries are not parsed again');
    writeFileSync(log.path, `${JSON.stringify({ id: 9, ...entry(9) })}\n`); // replaced by a shorter file
    assert.deepEqual(reader.entries(log.path).map((e) => e.id), [9]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('search looks through code, output, client and errors, case-insensitively', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-panel-log-'));
  try {
    const log = new SessionLog(dir);
    for (let i = 1; i <= 30; i++) log.append(entry(i));
    log.append(entry(31, { status: 'error', error: { ename: 'ZeroDivisionError', evalue: 'division by zero', message: '', traceback: [] } }));
    const reader = new LogReader();
    assert.equal(reader.page(log.path, { query: 'VALUE 1' }).total, 11); // value 1, 10..19
    assert.equal(reader.page(log.path, { query: 'zerodivision' }).entries[0].id, 31);
    assert.equal(reader.page(log.path, { query: 'cursor' }).total, 16);
    const paged = reader.page(log.path, { query: 'value 1', limit: 5 });
    assert.deepEqual(paged.entries.map((e) => e.id), [15, 16, 17, 18, 19]);
    assert.deepEqual(reader.page(log.path, { query: 'value 1', limit: 5, before: 15 }).entries.map((e) => e.id), [10, 11, 12, 13, 14]);
    assert.equal(reader.page(log.path, { query: 'nothing like this' }).total, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('entry views keep text and links, not markup', () => {
  const view = entryView({
    id: 1,
    ...entry(1, {
      outputs: [
        { type: 'display', text: '<Figure>', figures: ['/s/default/figures/a.png'], data: { 'text/html': '<script>alert(1)</script>' } },
        { type: 'omitted', text: '5000 characters of output left out', name: '/s/default/outputs/o.txt' },
      ],
      spillPath: '/s/default/outputs/o.txt',
    }),
  });
  assert.deepEqual(view.outputs[0], { type: 'display', text: '<Figure>', figures: [fileUrl('/s/default/figures/a.png')] });
  assert.ok(!JSON.stringify(view).includes('<script>'));
  assert.equal(view.outputs[1].file, fileUrl('/s/default/outputs/o.txt'));
  assert.equal(view.spill, fileUrl('/s/default/outputs/o.txt'));
});

test('figures come newest first, with the code that drew them, plus files no run names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-panel-figs-'));
  try {
    const figures = join(dir, 'figures');
    mkdirSync(figures);
    for (const name of ['one.png', 'two.png', 'three.png', 'loose.svg', 'notes.txt']) writeFileSync(join(figures, name), 'x');
    utimesSync(join(figures, 'loose.svg'), new Date('2025-06-01'), new Date('2025-06-01'));
    const entries: LogEntry[] = [
      { id: 1, ...entry(1, { outputs: [{ type: 'display', figures: [join(figures, 'one.png')] }] }) },
      { id: 2, ...entry(2, { outputs: [{ type: 'display', figures: [join(figures, 'two.png'), join(figures, 'three.png')] }, { type: 'display', figures: [join(figures, 'gone.png')] }] }) },
    ];
    const list = listFigures(entries, figures);
    assert.deepEqual(list.map((f) => f.name), ['three.png', 'two.png', 'one.png', 'loose.svg']);
    assert.equal(list[0].code, 'x2 = 2');
    assert.equal(list[0].client, 'claude-code');
    assert.equal(list[3].code, null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a log that is a folder, or has lines that are not entries, is shown with what can be read, never an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ps-panel-log-'));
  try {
    const reader = new LogReader();
    mkdirSync(join(dir, 'folder.jsonl'));
    assert.deepEqual(reader.entries(join(dir, 'folder.jsonl')), []);
    const path = join(dir, 'log.jsonl');
    writeFileSync(path, '{"id": 1, "code": "a", "outputs": []}\n[1, 2]\nnot json\n{"id": 2, "code": "b", "outputs": []}\n');
    assert.deepEqual(reader.entries(path).map((e) => e.code), ['a', 'b']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
