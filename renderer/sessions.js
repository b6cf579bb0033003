// The sessions: the list at the side, and the selected one's facts and controls.
import { post, sessionPath } from './api.js';
import { h } from './dom.js';
import { bytes, clock, duration } from './format.js';
import { asker } from './question.js';
import { emit, on, selectedSession, store } from './store.js';
import { confirmButton, replaceChildren, stateBadge, toast } from './ui.js';

const list = () => document.getElementById('session-list');
const header = () => document.getElementById('session-header');

export function initSessions({ select, openNewSession }) {
  on('sessions', () => {
    renderList(select);
    renderHeader(openNewSession);
  });
  on('session', (name) => {
    renderList(select);
    if (name === store.selected) renderHeader(openNewSession);
  });
  on('selected', () => {
    renderList(select);
    renderHeader(openNewSession);
  });
  on('stats', () => {
    renderList(select);
    renderHeader(openNewSession);
  });
}

/** A running timer: its text is kept current by the page's one-second tick. */
export function timer(since, className = 'timer') {
  return h('span', { class: className, dataset: { since: String(since) } }, clock(Date.now() - since));
}

function uptime(startedAt) {
  return h('span', { dataset: { uptime: String(startedAt) } }, duration(Date.now() - startedAt));
}

/** Where a session's kernel runs, from the daemon's `server` field: "on lab", or "local · <interpreter>". */
function whereLabel(s) {
  if (s.server) return `on ${s.server}`;
  return s.interpreter ? `local · ${s.interpreter}` : 'local';
}

function where(s) {
  // The full text in the tooltip: a long interpreter path is cut short in the sidebar.
  return h('span', { class: 'session-where', title: s.interpreter ?? '', dataset: { where: s.server ? 'remote' : 'local' } }, whereLabel(s));
}

/** The code running in a session asks the person something; the question is on its cell in the log. */
function waitingMarker(question) {
  return h('span', { class: 'question-waiting', title: `${asker(question)} asks “${question.prompt.trim()}”; answer it on the running cell in the log` }, 'waiting for your answer');
}

function renderList(select) {
  const items = [];
  const names = [...new Set([...store.sessions.keys(), ...store.pending.keys()])].sort((a, b) => (a === 'default' ? -1 : b === 'default' ? 1 : a.localeCompare(b)));
  for (const name of names) {
    const s = store.sessions.get(name);
    const state = s?.state ?? 'starting';
    const meta = s
      ? [s.pid ? `pid ${s.pid}` : s.owned ? null : 'attached', s.memoryBytes === null ? null : bytes(s.memoryBytes), s.startedAt ? uptime(s.startedAt) : null].filter(Boolean)
      : ['starting…'];
    items.push(
      h(
        'li',
        {},
        h(
          'button',
          {
            class: `session-item state-${state}`,
            'aria-current': name === store.selected ? 'true' : false,
            dataset: { focusKey: `session:${name}`, session: name },
            onclick: () => select(name),
          },
          h('span', { class: 'session-line' }, h('span', { class: 'session-name' }, name), stateBadge(state), s?.running ? timer(s.running.since) : null),
          s?.question ? waitingMarker(s.question) : null,
          s ? where(s) : null,
          h('span', { class: 'session-meta' }, ...meta.flatMap((m, i) => (i ? [' · ', m] : [m]))),
        ),
      ),
    );
  }
  if (items.length === 0) items.push(h('li', { class: 'empty' }, 'No sessions yet.'));
  replaceChildren(list(), items);
  const past = document.getElementById('past-sessions');
  past.hidden = store.past.length === 0;
  if (store.past.includes(store.selected)) past.open = true; // keep the shown session visible in the list
  replaceChildren(
    past.querySelector('ul'),
    store.past.map((name) =>
      h('li', {}, h('button', { class: 'link-button', 'aria-current': name === store.selected ? 'true' : false, dataset: { focusKey: `past:${name}` }, onclick: () => select(name) }, name)),
    ),
  );
}

function renderHeader(openNewSession) {
  const el = header();
  const name = store.selected;
  if (!name) {
    replaceChildren(el, h('div', { class: 'session-title' }, h('h2', {}, 'No session yet')), h('p', { class: 'muted' }, 'A client starts the “default” session with its first run, or start one here with New session.'));
    return;
  }
  const s = selectedSession();
  if (!s) {
    const starting = store.pending.has(name);
    replaceChildren(
      el,
      h('div', { class: 'session-title' }, h('div', { class: 'session-info' }, h('h2', {}, name), stateBadge(starting ? 'starting' : 'ended'))),
      h('p', { class: 'muted' }, starting ? 'Starting the kernel…' : 'This session has no kernel now. Its log and figures are kept.'),
      starting
        ? null
        : h('div', { class: 'actions' }, h('button', { class: 'button', onclick: () => openNewSession(name) }, 'Start a new kernel under this name')),
    );
    return;
  }
  const rows = [
    [
      'Interpreter',
      [h('span', { class: 'path' }, s.interpreter ?? 'unknown'), s.pythonVersion ? ` · Python ${s.pythonVersion}` : '', s.interpreterReason ? h('span', { class: 'fact-note' }, s.interpreterReason) : null],
      'wide',
    ],
    ['Where', s.server ? `on ${s.server}` : 'local'],
    s.engine
      ? ['Engine', [s.engine.name === 'worker' ? 'built-in worker' : 'ipykernel', h('span', { class: 'fact-note' }, s.engine.upgrade ?? s.engine.reason)], s.engine.upgrade ? 'wide' : undefined]
      : null,
    ['PID', s.pid ?? (s.owned ? '—' : 'attached')],
    ['Memory', bytes(s.memoryBytes)],
    ['Up', s.startedAt ? uptime(s.startedAt) : '—'],
    ['Runs', `${s.executionCount}${s.restarts ? ` · ${s.restarts} restart${s.restarts === 1 ? '' : 's'}` : ''}`],
    s.cwd ? ['Folder', [h('span', { class: 'path' }, s.cwd), s.cwdReason ? h('span', { class: 'fact-note' }, s.cwdReason) : null], 'wide'] : null,
    s.connectionFile ? ['Connection file', h('span', { class: 'path' }, s.connectionFile), 'wide'] : null,
  ].filter(Boolean);
  // Only the parts that change are replaced: the controls are rebuilt only when what they act
  // on changes, so a memory update every few seconds never disarms a half-confirmed Kill or
  // takes focus away from a button.
  const key = `${s.name}|${s.state}|${s.owned}`;
  let title = el.querySelector('.session-title');
  let info = title?.querySelector('.session-info');
  let factList = el.querySelector('.facts');
  if (!title || !info || !factList) {
    info = h('div', { class: 'session-info' });
    title = h('div', { class: 'session-title' }, info);
    factList = h('dl', { class: 'facts' });
    replaceChildren(el, title, factList);
  }
  info.replaceChildren(
    h('h2', {}, s.name),
    stateBadge(s.state),
    s.running ? h('span', { class: 'running-for' }, 'for ', timer(s.running.since)) : '',
    // A call came back at its wait_s and the run went on: nobody is waiting for it, but it runs.
    // The person's own cells are watched here, in the log, not by a waiting call.
    s.question ? waitingMarker(s.question) : '',
    s.running?.callersWaiting === 0 && s.running.client !== 'panel' ? h('span', { class: 'unattended', title: `Run ${s.running.run} goes on after the call that started it came back; a client can pick it up with wait_for_run, or Stop ends it` }, 'no caller waiting') : '',
  );
  const actions = title.querySelector('.actions');
  if (!actions || actions.dataset.key !== key) {
    const fresh = h('div', { class: 'actions', role: 'group', 'aria-label': 'Session controls', dataset: { key } }, ...controls(s));
    const hadFocus = actions?.contains(document.activeElement) ? document.activeElement.dataset.focusKey : undefined;
    if (actions) actions.replaceWith(fresh);
    else title.append(fresh);
    if (hadFocus) fresh.querySelector(`[data-focus-key="${hadFocus}"]`)?.focus();
  }
  // <div> groups inside a <dl> keep each term with its value, for layout and for screen readers.
  factList.replaceChildren(...rows.map(([k, v, wide]) => h('div', { class: `fact${wide ? ' fact-wide' : ''}` }, h('dt', {}, k), h('dd', {}, v))));
}

function controls(s) {
  const act = async (action, done) => {
    try {
      const result = await post(sessionPath(s.name, `/${action}`));
      toast(done(result));
    } catch (error) {
      toast(`${s.name}: ${error.message}`, 'error');
    }
  };
  const busy = s.state === 'busy';
  return [
    h(
      'button',
      {
        // aria-disabled, not disabled: the button keeps focus when the run ends under it, so
        // the keyboard user is not thrown back to the top of the page.
        class: 'button primary interrupt',
        'aria-disabled': busy ? false : 'true',
        title: busy ? 'Stop the running code (like Ctrl-C); variables are kept' : 'Nothing is running',
        'aria-keyshortcuts': 'i',
        dataset: { focusKey: 'interrupt' },
        onclick: () => interrupt(s.name),
      },
      'Interrupt',
    ),
    s.owned
      ? confirmButton({
          label: 'Restart',
          focusKey: 'restart',
          confirmLabel: 'Confirm restart',
          title: 'A fresh kernel in the same interpreter; every variable is lost',
          onConfirm: () => act('restart', (r) => r.message),
        })
      : h(
          'button',
          {
            class: 'button',
            'aria-disabled': 'true',
            title: 'This kernel was started elsewhere; restart it there',
            dataset: { focusKey: 'restart' },
            onclick: () => toast(`${s.name} is attached to a kernel started elsewhere; restart it there.`),
          },
          'Restart',
        ),
    confirmButton({
      label: 'Reset',
      focusKey: 'reset',
      confirmLabel: 'Confirm reset',
      title: 'Delete every variable and import, keeping the kernel',
      onConfirm: () => act('reset', (r) => r.message ?? 'Variables cleared.'),
    }),
    confirmButton({
      label: s.owned ? 'Kill' : 'Detach',
      focusKey: 'kill',
      confirmLabel: s.owned ? 'Confirm kill' : 'Confirm detach',
      className: 'danger',
      title: s.owned ? 'Stop the kernel process now; the log and figures are kept' : 'Stop using this kernel; it keeps running for its owner',
      onConfirm: () => act('kill', (r) => r.message),
    }),
  ];
}

export async function interrupt(name) {
  const s = store.sessions.get(name);
  if (!s) return;
  if (s.state !== 'busy') {
    toast(`${name} is not running anything.`);
    return;
  }
  try {
    const result = await post(sessionPath(name, '/interrupt'));
    toast(`${name}: ${result.message}`, result.restarted ? 'warning' : 'info');
  } catch (error) {
    toast(`${name}: ${error.message}`, 'error');
  }
}

/** Applies a SessionView pushed by the daemon. */
export function updateSession(view) {
  store.pending.delete(view.name);
  store.sessions.set(view.name, view);
  store.past = store.past.filter((n) => n !== view.name);
  emit('session', view.name);
}

export function removeSession(name) {
  if (!store.sessions.delete(name)) return;
  if (!store.past.includes(name)) store.past = [...store.past, name].sort();
  emit('sessions');
}
