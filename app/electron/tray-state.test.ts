/** The tray's icon, tooltip and menu, as pure functions of the daemon's state: no Electron needed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claudeDesktopState, MAX_LISTED_SESSIONS, stopwatch, trayIconState, trayMenu, trayTooltip, type MenuItemSpec, type TrayModel } from './tray-state.js';

const NOW = 1_000_000;
const model = (sessions: TrayModel['sessions'], extra: Partial<TrayModel> = {}): TrayModel => ({ connected: true, sessions, claudeDesktop: 'not-registered', ...extra });
const find = (items: MenuItemSpec[], label: RegExp) => items.find((i) => i.label !== undefined && label.test(i.label));

test('the icon follows the sessions: dead over busy over idle, offline without a daemon', () => {
  assert.equal(trayIconState(model([])), 'idle');
  assert.equal(trayIconState(model([{ name: 'a', state: 'idle' }])), 'idle');
  assert.equal(trayIconState(model([{ name: 'a', state: 'idle' }, { name: 'b', state: 'busy' }])), 'busy');
  assert.equal(trayIconState(model([{ name: 'a', state: 'starting' }])), 'busy');
  assert.equal(trayIconState(model([{ name: 'a', state: 'restarting' }])), 'busy');
  assert.equal(trayIconState(model([{ name: 'a', state: 'busy' }, { name: 'b', state: 'dead' }])), 'dead');
  assert.equal(trayIconState(model([{ name: 'a', state: 'busy' }], { connected: false })), 'offline');
});

test('the tooltip says what runs and for how long', () => {
  assert.equal(trayTooltip(model([], { connected: false }), NOW), 'Python Session — not running');
  assert.equal(trayTooltip(model([]), NOW), 'Python Session — no sessions');
  const one = model([
    { name: 'default', state: 'busy', running: { since: NOW - 75_000, client: 'claude-code' } },
    { name: 'b', state: 'idle' },
  ]);
  assert.equal(trayTooltip(one, NOW), 'Python Session — 2 sessions, default — running 1:15 (claude-code)');
  const two = model([
    { name: 'a', state: 'busy', running: { since: NOW, client: null } },
    { name: 'b', state: 'busy', running: { since: NOW, client: null } },
    { name: 'c', state: 'dead' },
  ]);
  assert.equal(trayTooltip(two, NOW), 'Python Session — 3 sessions, 2 running, 1 dead');
});

test('stopwatch', () => {
  assert.equal(stopwatch(0), '0:00');
  assert.equal(stopwatch(7_900), '0:07');
  assert.equal(stopwatch(3_723_000), '1:02:03');
});

test('the menu: open, interrupt all only when something runs, restart per session, register, quit two ways', () => {
  const idle = trayMenu(model([{ name: 'x', state: 'idle' }, { name: 'default', state: 'idle' }]), NOW);
  assert.deepEqual(idle.slice(0, 2).map((i) => i.label), ['default — idle', 'x — idle'], 'default first, then by name');
  assert.ok(idle.slice(0, 2).every((i) => i.enabled === false), 'session lines are information');
  assert.deepEqual(find(idle, /^Open Panel$/)?.action, { kind: 'open-panel' });
  assert.equal(find(idle, /^Interrupt All/)?.enabled, false);
  const restart = find(idle, /^Restart$/)!;
  assert.deepEqual(restart.submenu?.filter((i) => i.action).map((i) => i.action), [
    { kind: 'restart', session: 'default' },
    { kind: 'restart', session: 'x' },
    { kind: 'restart-all' },
  ]);
  assert.deepEqual(find(idle, /^Register with Claude Desktop$/)?.action, { kind: 'register-claude-desktop' });
  assert.deepEqual(find(idle, /^Quit \(Sessions Keep Running\)$/)?.action, { kind: 'quit' });
  assert.deepEqual(find(idle, /^Quit and Stop/)?.action, { kind: 'quit-and-stop' });

  const busy = trayMenu(model([{ name: 'a', state: 'busy', running: { since: NOW - 3000, client: 'cursor' } }, { name: 'b', state: 'busy', running: null }]), NOW);
  assert.equal(busy[0].label, 'a — running 0:03 (cursor)');
  const interrupt = find(busy, /^Interrupt All/)!;
  assert.equal(interrupt.enabled, true);
  assert.equal(interrupt.label, 'Interrupt All (2 running)');
  assert.deepEqual(interrupt.action, { kind: 'interrupt-all' });
});

test('attached kernels are not offered for restart', () => {
  const menu = trayMenu(model([{ name: 'mine', state: 'idle' }, { name: 'jupyter', state: 'idle', owned: false }]), NOW);
  const names = find(menu, /^Restart$/)!.submenu!.filter((i) => i.action?.kind === 'restart').map((i) => i.label);
  assert.deepEqual(names, ['mine']);
  const none = trayMenu(model([{ name: 'jupyter', state: 'idle', owned: false }]), NOW);
  assert.equal(find(none, /^Restart$/)!.enabled, false);
});

test('registration shows where it stands and what a click does', () => {
  const registered = find(trayMenu(model([], { claudeDesktop: 'registered' }), NOW), /Claude Desktop/)!;
  assert.equal(registered.type, 'checkbox');
  assert.equal(registered.checked, true);
  assert.deepEqual(registered.action, { kind: 'unregister-claude-desktop' });
  assert.deepEqual(find(trayMenu(model([], { claudeDesktop: 'stale' }), NOW), /Claude Desktop/)!.action, { kind: 'register-claude-desktop' });
  assert.equal(claudeDesktopState([{ id: 'claude-desktop', state: 'current' }]), 'registered');
  assert.equal(claudeDesktopState([{ id: 'claude-desktop', state: 'stale' }]), 'stale');
  assert.equal(claudeDesktopState([{ id: 'claude-desktop', state: 'not-installed' }]), 'not-registered');
  assert.equal(claudeDesktopState([{ id: 'claude-desktop', state: 'unreadable' }]), 'unknown');
  assert.equal(claudeDesktopState(null), 'unknown');
});

test('without a daemon the menu offers to start it, and to quit', () => {
  const menu = trayMenu(model([], { connected: false }), NOW);
  assert.deepEqual(
    menu.filter((i) => i.action).map((i) => i.action),
    [{ kind: 'start-daemon' }, { kind: 'quit' }],
  );
});

test('a long list of sessions is cut short', () => {
  const sessions = Array.from({ length: MAX_LISTED_SESSIONS + 3 }, (_, i) => ({ name: `s${String(i).padStart(2, '0')}`, state: 'idle' }));
  const menu = trayMenu(model(sessions), NOW);
  assert.equal(menu.filter((i) => /— idle$/.test(i.label ?? '')).length, MAX_LISTED_SESSIONS);
  assert.ok(find(menu, /^and 3 more/));
});
