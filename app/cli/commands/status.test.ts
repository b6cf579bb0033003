import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { capture, useTestHome } from '../testing/command-harness.js';
import { EXIT_NOT_RUNNING, describeTree, formatDuration, formatStatus, statusCommand } from './status.js';


describe('status', () => {
  const homes = useTestHome();

  test('with no daemon: says so, exit 3, and JSON says running: false', async () => {
    const { out, io } = capture();
    assert.equal(await statusCommand([], io), EXIT_NOT_RUNNING);
    assert.match(out.stdout, /^Python Session daemon: not running\n\s+state folder\s+\S+/);
    const json = capture();
    assert.equal(await statusCommand(['--json'], json.io), EXIT_NOT_RUNNING);
    assert.deepEqual(JSON.parse(json.out.stdout).running, false);
  });

  test('with a daemon: pid, uptime, socket and what its services describe', async () => {
    homes.current().spawnDaemon(['--background']);
    const pid = await homes.current().waitForDaemon();
    const { out, io } = capture();
    assert.equal(await statusCommand([], io), 0);
    assert.match(out.stdout, new RegExp(`pid\\s+${pid}\\n`));
    assert.match(out.stdout, /uptime\s+\d+ s\n/);
    assert.match(out.stdout, new RegExp(`socket\\s+${homes.current().files.socket.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`));
    assert.match(out.stdout, /sessions:\n\s+- name: default\n\s+state: idle/);
    assert.match(out.stdout, /interpreter: \/usr\/bin\/python3/);

    const json = capture();
    assert.equal(await statusCommand(['--json'], json.io), 0);
    const parsed = JSON.parse(json.out.stdout);
    assert.equal(parsed.running, true);
    assert.equal(parsed.pid, pid);
    assert.equal(parsed.services.interpreter, '/usr/bin/python3');
  });

  test('bad arguments print usage and exit 2', async () => {
    const { out, io } = capture();
    assert.equal(await statusCommand(['--bogus'], io), 2);
    assert.match(out.stderr, /Usage: python-session-mcp status/);
  });
});

describe('status formatting', () => {
  test('durations read naturally', () => {
    assert.equal(formatDuration(42), '42 s');
    assert.equal(formatDuration(125), '2 min 5 s');
    assert.equal(formatDuration(3 * 3600 + 60 * 4), '3 h 4 min');
    assert.equal(formatDuration(2 * 86_400 + 3600), '2 d 1 h');
  });

  test('nested descriptions become indented lines', () => {
    assert.deepEqual(
      describeTree({ interpreter: { path: '/opt/conda/bin/python', version: '3.12.4' }, sessions: [{ name: 'default', pid: 12 }, { name: 'b', pid: null }], tags: ['a', 'b'], none: [] }),
      [
        'interpreter:',
        '  path: /opt/conda/bin/python',
        '  version: 3.12.4',
        'sessions:',
        '  - name: default',
        '    pid: 12',
        '  - name: b',
        '    pid: -',
        'tags: a, b',
        'none: none',
      ],
    );
  });

  test('connected clients are listed', () => {
    const text = formatStatus({
      ok: true,
      pid: 1,
      version: '0.1.0',
      started: new Date().toISOString(),
      uptimeSeconds: 5,
      stateDir: '/s',
      socket: '/s/daemon.sock',
      log: '/s/daemon.log',
      connections: [{ id: 'c1', client: 'claude-code', since: new Date().toISOString() }],
      services: {},
      extra: { panelUrl: 'http://127.0.0.1:4321/' },
    });
    assert.match(text, /clients\s+1 connected\n\s+claude-code \(c1, since /);
    assert.match(text, /panelUrl\s+http:\/\/127\.0\.0\.1:4321\//);
  });

  test('state files the daemon set aside are each a warning line', () => {
    const text = formatStatus({
      ok: true,
      pid: 1,
      version: '0.1.0',
      started: new Date().toISOString(),
      uptimeSeconds: 5,
      stateDir: '/s',
      socket: '/s/daemon.sock',
      log: '/s/daemon.log',
      connections: [],
      services: {},
      extra: {},
      stateFiles: ['/s/settings.json is not JSON (…): moved it to settings.json.bad-20261202T040000.000Z; the default settings are used.'],
    });
    assert.match(text, /\n  Warning: \/s\/settings\.json is not JSON \(…\): moved it to settings\.json\.bad-20261202T040000\.000Z; the default settings are used\.\n/);
  });
});
