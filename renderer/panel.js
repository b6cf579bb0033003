// The control panel: wires the views to the daemon's event stream, the address bar and the
// keyboard. Each view lives in its own module; this one only decides what is shown.
import { connectEvents, whenUnauthorized } from './api.js';
import { $, $$, isEditing } from './dom.js';
import { clock, duration } from './format.js';
import { ClientsView } from './clients.js';
import { openConnect, openHelp, openNewSession } from './dialogs.js';
import { Gallery } from './figures.js';
import { InterpretersView } from './interpreters.js';
import { LogView } from './log.js';
import { ServersView } from './servers.js';
import { initSessions, interrupt, removeSession, updateSession } from './sessions.js';
import { emit, store } from './store.js';
import { toast } from './ui.js';
import { VariablesView } from './variables.js';
import { dataChanged, openDataViewer } from './data-viewer.js';
import { ConsoleView } from './console.js';
import { asker } from './question.js';
import { openAttach } from './attach.js';

const VIEWS = ['sessions', 'interpreters', 'clients', 'servers'];
const TABS = ['log', 'figures', 'variables'];

const announcer = $('#announcer');
const gallery = new Gallery({ grid: $('#gallery'), count: $('#figure-count'), dialog: $('#dialog-figure') });
const log = new LogView({
  log: $('#log'),
  search: $('#log-search'),
  count: $('#log-count'),
  exportLinks: { group: $('#export-group'), notebook: $('#export'), script: $('#export-py') },
  newRuns: $('#new-runs'),
  announce: (text) => (announcer.textContent = text),
  openFigure: (figure) => gallery.openFromEntry(figure),
});
const variables = new VariablesView({ panel: $('#panel-variables'), openData: (session, name, info) => openDataViewer(session, name, info) });
const consoleView = new ConsoleView({ form: $('#console') });
const interpreters = new InterpretersView({ summary: $('#interp-summary'), rows: $('#interp-rows'), rescan: $('#rescan'), count: $('#interp-count') });
const clients = new ClientsView({ list: $('#client-list') });
const servers = new ServersView({ rows: $('#server-rows'), count: $('#servers-count'), form: $('#server-form'), error: $('#server-form-error'), note: $('#server-form-note') });

// ---- what is shown -------------------------------------------------------------------------

function setView(view, { updateHash = true } = {}) {
  if (!VIEWS.includes(view)) view = 'sessions';
  store.view = view;
  for (const name of VIEWS) {
    $(`#view-${name}`).hidden = name !== view;
    const link = $(`#nav-${name}`);
    if (name === view) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (view === 'sessions' && store.tab === 'log') log.onShown();
  variables.setShown(view === 'sessions' && store.tab === 'variables');
  if (view === 'interpreters') void interpreters.load();
  if (view === 'clients') void clients.load();
  if (view === 'servers') void servers.load();
  if (updateHash) writeHash();
}

function select(name, { updateHash = true } = {}) {
  if (!name) {
    store.selected = null;
    emit('selected');
    void log.show(null);
    variables.setSession(null);
    consoleView.setSession(null);
    return;
  }
  store.selected = name;
  emit('selected');
  void log.show(name);
  gallery.setSession(name);
  variables.setSession(name);
  consoleView.setSession(name);
  if (store.tab === 'figures') void gallery.show();
  if (updateHash) writeHash();
}

function setTab(tab, { focus = false, updateHash = true } = {}) {
  store.tab = TABS.includes(tab) ? tab : 'log';
  for (const name of TABS) {
    const selected = name === store.tab;
    const button = $(`#tab-${name}`);
    button.setAttribute('aria-selected', String(selected));
    button.tabIndex = selected ? 0 : -1;
    $(`#panel-${name}`).hidden = !selected;
    if (selected && focus) button.focus();
  }
  if (store.tab === 'figures') void gallery.show();
  else if (store.tab === 'log') log.onShown();
  variables.setShown(store.view === 'sessions' && store.tab === 'variables');
  if (updateHash) writeHash();
}

function writeHash() {
  const hash = store.view === 'sessions' && store.selected ? `#/sessions/${encodeURIComponent(store.selected)}/${store.tab}` : `#/${store.view}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

function readHash() {
  const [, view, name, tab] = location.hash.split('/');
  return { view: view || 'sessions', name: name ? decodeURIComponent(name) : null, tab: tab || 'log' };
}

/** The session to show when none is chosen: the one in the address, "default", or the first. */
function pickSession() {
  const wanted = readHash().name;
  if (wanted && (store.sessions.has(wanted) || store.past.includes(wanted))) return wanted;
  if (store.sessions.has('default')) return 'default';
  return [...store.sessions.keys()][0] ?? store.past[0] ?? null;
}

function stepSession(delta) {
  const buttons = $$('#session-list .session-item');
  if (buttons.length === 0) return;
  const index = buttons.findIndex((b) => b.dataset.session === store.selected);
  const next = buttons[(index + delta + buttons.length) % buttons.length];
  select(next.dataset.session);
  next.focus();
}

// ---- live state from the daemon ------------------------------------------------------------

let firstSnapshot = true;
/** Ids of the daemon's state-file notices this page has shown. */
const noticesShown = new Set();

connectEvents(
  {
    snapshot(data) {
      store.daemon = { version: data.version, pid: data.pid, startedAt: data.startedAt, stateDir: data.stateDir };
      store.sessions = new Map(data.sessions.map((s) => [s.name, s]));
      store.past = data.past;
      $('#daemon-info').textContent = `daemon pid ${data.pid} · v${data.version}`;
      for (const n of data.notices ?? []) {
        if (noticesShown.has(n.id)) continue;
        noticesShown.add(n.id);
        toast(n.message, 'error'); // stays until dismissed
      }
      emit('sessions');
      if (!store.selected || (!store.sessions.has(store.selected) && !store.past.includes(store.selected) && !store.pending.has(store.selected))) {
        select(pickSession(), { updateHash: !firstSnapshot || store.view === 'sessions' });
      } else if (!firstSnapshot) {
        // Runs may have finished while we were disconnected.
        void log.reload();
      }
      log.onSession(store.selected);
      firstSnapshot = false;
    },
    session({ session }) {
      const isNew = !store.sessions.has(session.name);
      const asked = session.question && store.sessions.get(session.name)?.question?.id !== session.question.id;
      if (asked) announcer.textContent = `${session.name}: ${asker(session.question)} asks “${session.question.prompt.trim()}” and is waiting for your answer.`;
      updateSession(session);
      if (isNew) emit('sessions');
      if (!store.selected) select(session.name);
      else if (isNew && session.name === store.selected) void log.reload(); // it had no log until now
      log.onSession(session.name);
      variables.onSession(session.name);
      if (session.name === store.selected) consoleView.update();
    },
    variables(event) {
      variables.onVariables(event);
    },
    'session-removed'({ name }) {
      removeSession(name);
      log.onSession(name);
      if (name === store.selected) (consoleView.update(), variables.render());
    },
    logged(event) {
      log.onLogged(event);
      dataChanged(event.session);
      gallery.onLogged(event, store.tab === 'figures' && store.view === 'sessions');
    },
    died({ session, message }) {
      toast(`${session}: ${message.split('\n')[0]}`, 'warning');
    },
    stats({ memory }) {
      for (const [name, bytes] of Object.entries(memory)) {
        const s = store.sessions.get(name);
        if (s) s.memoryBytes = bytes;
      }
      emit('stats');
    },
    interpreters() {
      if (interpreters.data) void interpreters.load(true);
    },
    clients() {
      if (clients.data) void clients.load(true);
    },
    servers() {
      if (servers.data) void servers.load(true);
    },
  },
  (status) => {
    store.status = status;
    const el = $('#connection');
    el.dataset.status = status;
    el.textContent = { live: 'Live', reconnecting: 'Reconnecting…', locked: 'Key out of date', connecting: 'Connecting…' }[status];
    if (status === 'locked') locked();
  },
);

/** The daemon restarted with a new key: this page can do nothing until it is opened again. */
function locked() {
  const tray = window.pythonSessionTray;
  if (tray?.reopen) {
    void tray.reopen(); // the tray reloads the window with the new key
    return;
  }
  const banner = $('#banner');
  banner.hidden = false;
  banner.textContent = 'This panel’s key is out of date: the daemon has restarted. Open the panel again from the tray, or run “python-session-mcp status” and open the link it prints.';
}
whenUnauthorized(() => locked());

// ---- controls ------------------------------------------------------------------------------

initSessions({ select, openNewSession: (name) => openNewSession(interpreters, select, name) });

$('#new-session').addEventListener('click', () => openNewSession(interpreters, select));
$('#connect-kernel').addEventListener('click', () => openConnect(select));
$('#help-button').addEventListener('click', openHelp);
$('#theme-toggle').addEventListener('click', cycleTheme);
for (const view of VIEWS) {
  $(`#nav-${view}`).addEventListener('click', (event) => {
    event.preventDefault();
    setView(view);
  });
}
for (const tab of TABS) $(`#tab-${tab}`).addEventListener('click', () => setTab(tab));
$('#open-elsewhere').addEventListener('click', () => store.selected && store.sessions.has(store.selected) ? openAttach(store.selected) : toast('Select a running session first.'));
// Arrow keys move between the tabs, as the tabs pattern expects.
$('#session-tabs').addEventListener('keydown', (event) => {
  if ((event.key === 'ArrowRight' || event.key === 'ArrowLeft') && event.target.getAttribute('role') === 'tab') {
    event.preventDefault();
    const step = event.key === 'ArrowRight' ? 1 : -1;
    setTab(TABS[(TABS.indexOf(store.tab) + step + TABS.length) % TABS.length], { focus: true });
  }
});

document.addEventListener('keydown', (event) => {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.querySelector('dialog[open]') || isEditing(event.target)) return;
  const go = (fn) => {
    event.preventDefault();
    fn();
  };
  switch (event.key) {
    case '/':
      return go(() => {
        setView('sessions');
        setTab('log');
        $('#log-search').focus();
      });
    case 'i':
      return go(() => store.selected && interrupt(store.selected));
    case 'n':
      return go(() => openNewSession(interpreters, select));
    case 'j':
      return go(() => stepSession(1));
    case 'k':
      return go(() => stepSession(-1));
    case 'l':
      return go(() => (setView('sessions'), setTab('log', { focus: true })));
    case 'f':
      return go(() => (setView('sessions'), setTab('figures', { focus: true })));
    case 'v':
      return go(() => (setView('sessions'), setTab('variables', { focus: true })));
    case 'g':
      return go(() => (setView('sessions'), setTab('log'), log.scrollToBottom(), log.clearUnseen()));
    case '1':
    case '2':
    case '3':
    case '4':
      return go(() => setView(VIEWS[Number(event.key) - 1]));
    case 't':
      return go(cycleTheme);
    case '?':
      return go(openHelp);
  }
});

// ---- theme ---------------------------------------------------------------------------------

const THEMES = ['system', 'light', 'dark'];

function applyTheme(theme) {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  const button = $('#theme-toggle');
  button.setAttribute('aria-label', `Theme: ${theme}. Switch theme`);
  button.title = `Theme: ${theme} (t)`;
  button.dataset.theme = theme;
}

function cycleTheme() {
  const current = localStorage.getItem('python-session-theme') ?? 'system';
  const next = THEMES[(THEMES.indexOf(current) + 1) % THEMES.length];
  localStorage.setItem('python-session-theme', next);
  applyTheme(next);
  toast(`Theme: ${next}`);
}

applyTheme(localStorage.getItem('python-session-theme') ?? 'system');

// ---- clocks --------------------------------------------------------------------------------

// One tick for every running timer and uptime on the page, rather than one timer each. Four a
// second, so the seconds shown change within a quarter second of the real ones; text is written
// only when it changes.
setInterval(() => {
  const now = Date.now();
  const set = (el, text) => {
    if (el.textContent !== text) el.textContent = text;
  };
  for (const el of document.querySelectorAll('.timer[data-since]')) set(el, clock(now - Number(el.dataset.since)));
  for (const el of document.querySelectorAll('[data-uptime]')) set(el, duration(now - Number(el.dataset.uptime)));
}, 250);

// ---- start ---------------------------------------------------------------------------------

const initial = readHash();
setView(initial.view, { updateHash: false });
setTab(initial.tab, { updateHash: false });
window.addEventListener('hashchange', () => {
  const { view, name, tab } = readHash();
  setView(view, { updateHash: false });
  if (name && name !== store.selected) select(name, { updateHash: false });
  setTab(tab, { updateHash: false });
});
