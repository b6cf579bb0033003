/** The panel's running output: capped to its latest text, published a few times a second at most. */
import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionManager } from '../../sessions/session-manager.js';
import { LiveOutputBuffer, LiveOutputs, tailOf, type LiveOutputView } from './live-output.js';
import { PanelModel, type PanelEvent } from './model.js';

const textOf = (view: LiveOutputView) => view.chunks.map((c) => c.text).join('');

/** Timers that run only when the test moves the clock. */
function fakeClock() {
  let now = 0;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimer: (id: unknown) => void timers.delete(id as number),
    pending: () => timers.size,
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
  };
}

describe('LiveOutputBuffer', () => {
  test('keeps print order, joining consecutive text of one stream', () => {
    const buffer = new LiveOutputBuffer(1000);
    buffer.append('stdout', 'a');
    buffer.append('stdout', 'b');
    buffer.append('stderr', 'warn');
    buffer.append('stdout', 'c');
    buffer.append('stdout', '');
    assert.deepEqual(buffer.view(), {
      chunks: [
        { name: 'stdout', text: 'ab' },
        { name: 'stderr', text: 'warn' },
        { name: 'stdout', text: 'c' },
      ],
      total: 7,
      cut: 0,
      rich: 0,
    });
  });

  test('past the cap keeps only the latest text, and counts what it cut', () => {
    const buffer = new LiveOutputBuffer(100);
    let all = '';
    for (let i = 0; i < 5000; i++) {
      const line = `line ${i}\n`;
      all += line;
      buffer.append(i % 7 === 0 ? 'stderr' : 'stdout', line);
    }
    const view = buffer.view();
    assert.equal(view.total, all.length);
    assert.equal(textOf(view).length, 100);
    assert.equal(view.cut, all.length - 100);
    assert.equal(textOf(view), all.slice(-100), 'the tail, in order, across streams');
    assert.equal(view.chunks.at(-1)!.text.endsWith('line 4999\n'), true);
    assert.equal(view.chunks.find((c) => c.text.includes('line 4997'))?.name, 'stdout');
    assert.equal(view.chunks.find((c) => c.text.includes('line 4998'))?.name, 'stderr', '4998 is a multiple of 7');
  });

  test('never holds much more than twice the cap, however much is printed', () => {
    const buffer = new LiveOutputBuffer(1000);
    const held = () => (buffer as unknown as { chunks: { text: string }[] }).chunks.reduce((n, c) => n + c.text.length, 0);
    let most = 0;
    for (let i = 0; i < 200_000; i++) {
      buffer.append(i % 2 ? 'stdout' : 'stderr', 'xyz');
      most = Math.max(most, held());
    }
    assert.ok(most <= 2000 + 3, `held at most ${most} characters`);
    assert.equal(buffer.view().total, 600_000);
  });

  test('one print bigger than the cap keeps its own tail', () => {
    const buffer = new LiveOutputBuffer(10);
    buffer.append('stderr', 'before');
    buffer.append('stdout', '0123456789abcdefghij');
    const view = buffer.view();
    assert.deepEqual(view.chunks, [{ name: 'stdout', text: 'abcdefghij' }]);
    assert.equal(view.cut, 16);
    assert.equal(view.total, 26);
  });

  test('a cut never leaves half of a surrogate pair', () => {
    assert.equal(tailOf('ab😀cd', 3), 'cd', 'the 😀 half at the edge goes too');
    assert.equal(tailOf('ab😀cd', 4), '😀cd');
    assert.equal(tailOf('abc', 5), 'abc');
    assert.equal(tailOf('abc', 0), '');
    const buffer = new LiveOutputBuffer(3);
    buffer.append('stdout', 'x😀');
    buffer.append('stdout', 'ab'); // trimmed at 'x😀ab' → '😀ab' would be 4; a lone low half is dropped
    const view = buffer.view();
    assert.equal(textOf(view), 'ab');
    assert.equal(view.cut + textOf(view).length, view.total, 'cut counts the dropped half');
  });

  test('counts rich outputs', () => {
    const buffer = new LiveOutputBuffer();
    buffer.addRich();
    buffer.addRich();
    assert.equal(buffer.view().rich, 2);
  });
});

describe('LiveOutputs', () => {
  const setup = (intervalMs = 250, maxChars = 100) => {
    const clock = fakeClock();
    const published: { session: string; at: number; view: LiveOutputView | null }[] = [];
    const live: LiveOutputs = new LiveOutputs((session) => published.push({ session, at: clock.now(), view: live.view(session) }), { intervalMs, maxChars, ...clock });
    return { clock, published, live };
  };

  test('the first print goes out on the next turn; a burst after it waits for the interval and goes as one', () => {
    const { clock, published, live } = setup();
    live.begin('s');
    live.stream('s', 'stdout', 'step 0\n');
    assert.equal(published.length, 0, 'not inside the call');
    clock.advance(0);
    assert.equal(published.length, 1);
    assert.equal(textOf(published[0].view!), 'step 0\n');
    for (let i = 1; i <= 1000; i++) live.stream('s', 'stdout', `step ${i}\n`);
    clock.advance(249);
    assert.equal(published.length, 1, 'nothing more before the interval is up');
    clock.advance(1);
    assert.equal(published.length, 2);
    assert.equal(published[1].at, 250);
    assert.ok(textOf(published[1].view!).endsWith('step 1000\n'));
    clock.advance(10_000);
    assert.equal(published.length, 2, 'nothing new printed, nothing published');
  });

  test('a steady flood is published once per interval, never more', () => {
    const { clock, published, live } = setup();
    live.begin('s');
    for (let ms = 0; ms < 5000; ms += 5) {
      live.stream('s', 'stdout', 'x'.repeat(50));
      clock.advance(5);
    }
    clock.advance(1000);
    assert.ok(published.length <= 5000 / 250 + 1, `${published.length} publications`);
    assert.ok(published.length >= 5000 / 250 - 1, `${published.length} publications`);
    for (let i = 1; i < published.length; i++) assert.ok(published[i].at - published[i - 1].at >= 250);
    for (const p of published) assert.ok(textOf(p.view!).length <= 100, 'each is capped');
    assert.equal(published.at(-1)!.view!.total, 50 * 1000);
  });

  test('end cancels what was pending, and later prints of that session are ignored', () => {
    const { clock, published, live } = setup();
    live.begin('s');
    live.stream('s', 'stdout', 'a');
    live.end('s');
    live.stream('s', 'stdout', 'late');
    live.rich('s');
    clock.advance(1000);
    assert.deepEqual(published, []);
    assert.equal(live.view('s'), null);
    assert.equal(clock.pending(), 0);
  });

  test('begin starts a new run empty', () => {
    const { clock, published, live } = setup();
    live.begin('s');
    live.stream('s', 'stdout', 'first run');
    live.begin('s');
    clock.advance(1000);
    assert.equal(published.length, 0, "the first run's pending text went with it");
    live.stream('s', 'stderr', 'second');
    clock.advance(0);
    assert.deepEqual(published[0].view, { chunks: [{ name: 'stderr', text: 'second' }], total: 6, cut: 0, rich: 0 });
  });

  test('published() counts as a publication: the pending one is dropped and the interval restarts', () => {
    const { clock, published, live } = setup();
    live.begin('s');
    live.stream('s', 'stdout', 'a');
    live.published('s');
    clock.advance(0);
    assert.equal(published.length, 0);
    live.stream('s', 'stdout', 'b');
    clock.advance(249);
    assert.equal(published.length, 0);
    clock.advance(1);
    assert.equal(published.length, 1);
  });

  test('sessions are independent', () => {
    const { clock, published, live } = setup();
    live.begin('a');
    live.begin('b');
    live.stream('a', 'stdout', 'from a');
    live.stream('b', 'stdout', 'from b');
    live.rich('b');
    clock.advance(0);
    assert.deepEqual(
      published.map((p) => [p.session, textOf(p.view!), p.view!.rich]),
      [
        ['a', 'from a', 0],
        ['b', 'from b', 1],
      ],
    );
    live.dispose();
    assert.equal(clock.pending(), 0);
  });
});

/** A session as the panel model sees it, without a kernel. */
class FakeSession extends EventEmitter {
  state = 'idle';
  runningSince: number | undefined;
  constructor(readonly name: string) {
    super();
  }
  facts() {
    const running = this.runningSince === undefined ? undefined : { run: `${this.name}-1`, code: 'code', client: 'c', since: this.runningSince, callersWaiting: 1 };
    return { name: this.name, state: this.state, owned: true, executionCount: 0, restarts: 0, variables: 0, queued: 0, place: { kind: 'local' }, running };
  }
}

class FakeManager extends EventEmitter {
  readonly sessions = new Map<string, FakeSession>();
  list() {
    return [...this.sessions.values()];
  }
  find(name: string) {
    return this.sessions.get(name);
  }
}

describe('PanelModel with running output', () => {
  // The model's own timers on a fake clock: `tick` moves it, so nothing waits on real time.
  const setup = () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
    const stateDir = mkdtempSync(join(tmpdir(), 'ps-live-'));
    const manager = new FakeManager();
    const model = new PanelModel(manager as unknown as SessionManager, stateDir);
    const events: PanelEvent[] = [];
    model.on('event', (e: PanelEvent) => events.push(e));
    const session = new FakeSession('s');
    manager.sessions.set('s', session);
    const start = () => {
      session.state = 'busy';
      session.runningSince = Date.now();
      manager.emit('changed', session, { state: 'busy' });
      manager.emit('run-started', session, { code: 'code', client: 'c', time: new Date().toISOString() });
    };
    const print = (text: string, name = 'stdout') => manager.emit('run-output', session, { type: 'stream', name, text });
    const figure = () => manager.emit('run-output', session, { type: 'display_data', data: { 'image/png': 'x' }, metadata: {} });
    // As Session does it: the kernel goes idle, the run lets go of it, then its entry is logged.
    const finish = () => {
      session.state = 'idle';
      manager.emit('changed', session, { state: 'idle' });
      session.runningSince = undefined;
      manager.emit('logged', session, { id: 1, time: new Date().toISOString(), client: 'c', code: 'code', status: 'ok', executionCount: 1, durationMs: 1, outputs: [] });
    };
    /** The running output of each session view published, leaving out the empty one a run starts with. */
    const outputs = () => events.flatMap((e) => (e.type === 'session' && e.session.running?.output && (e.session.running.output.total || e.session.running.output.rich) ? [e.session.running.output] : []));
    const close = () => {
      model.dispose();
      mock.timers.reset();
      rmSync(stateDir, { recursive: true, force: true });
    };
    return { model, events, session, start, print, figure, finish, outputs, close };
  };
  const tick = (ms: number) => mock.timers.tick(ms);

  test('a burst of prints reaches the panel as one capped update in its session view, and the snapshot has it', async () => {
    const t = setup();
    try {
      t.start();
      for (let i = 0; i < 20_000; i++) t.print(`step ${i}\n`, i % 10 ? 'stdout' : 'stderr');
      tick(600);
      const outputs = t.outputs();
      assert.equal(outputs.length, 1, 'printed in one go, published once');
      const [output] = outputs;
      assert.ok(textOf(output).endsWith('step 19999\n'));
      assert.ok(textOf(output).length <= 32 * 1024);
      assert.ok(output.cut > 0);
      assert.ok(output.chunks.some((c) => c.name === 'stderr'));
      const snapshot = t.model.views()[0];
      assert.deepEqual(snapshot.running?.output, output, 'a panel that connects now sees the same text');
    } finally {
      t.close();
    }
  });

  test('nothing of a run is published after its log entry, and the next run starts empty', async () => {
    const t = setup();
    try {
      t.start();
      t.print('step 0\n');
      tick(400);
      t.print('step 1\n'); // pending when the run ends
      t.finish();
      const logged = t.events.findIndex((e) => e.type === 'logged');
      assert.ok(logged >= 0);
      tick(600);
      assert.deepEqual(
        t.events.slice(logged).filter((e) => e.type === 'session' && e.session.running),
        [],
        'no running view after the entry',
      );
      assert.equal(t.model.views()[0].running, null);
      t.start();
      assert.deepEqual(t.model.views()[0].running?.output, { chunks: [], total: 0, cut: 0, rich: 0 });
      t.figure();
      tick(400);
      assert.equal(t.outputs().at(-1)?.rich, 1);
    } finally {
      t.close();
    }
  });
});

