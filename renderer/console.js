// The console at the foot of a session's log: the person's own cells, run in the same session.
// Shift+Enter sends the code; it queues like any client's run, streams into the log as it runs,
// Interrupt stops it, and the log shows it as "You". Up and Down walk this session's history,
// which the page keeps in its own storage.
import { post, sessionPath } from './api.js';
import { h, clear } from './dom.js';
import { store } from './store.js';
import { toast } from './ui.js';

const HISTORY_LIMIT = 200;
const MAX_LINES = 12;

const historyKey = (session) => `python-session-history:${session}`;

function readHistory(session) {
  try {
    const list = JSON.parse(localStorage.getItem(historyKey(session)) ?? '[]');
    return Array.isArray(list) ? list.filter((c) => typeof c === 'string') : [];
  } catch {
    return [];
  }
}

function writeHistory(session, list) {
  try {
    localStorage.setItem(historyKey(session), JSON.stringify(list.slice(-HISTORY_LIMIT)));
  } catch {
    /* storage full or off: the history lives only in this page */
  }
}

export class ConsoleView {
  constructor({ form }) {
    this.form = form;
    this.session = null;
    this.position = null; // index into history while walking it; null = the draft
    this.draft = '';
    this.input = h('textarea', {
      class: 'console-input',
      rows: '1',
      spellcheck: 'false',
      autocomplete: 'off',
      autocapitalize: 'off',
      'aria-label': 'Python to run in this session',
      'aria-keyshortcuts': 'Shift+Enter',
      placeholder: 'Python here · Shift+Enter runs · ↑↓ history',
    });
    this.prompt = h('span', { class: 'console-prompt', 'aria-hidden': 'true' }, 'In [ ]:');
    this.runButton = h('button', { class: 'button small primary console-run', type: 'submit', title: 'Run (Shift+Enter)' }, 'Run');
    this.note = h('p', { class: 'console-note', role: 'status' });
    clear(form).append(h('div', { class: 'console-row' }, this.prompt, this.input, this.runButton), this.note);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.run();
    });
    this.input.addEventListener('input', () => this.fit());
    this.input.addEventListener('keydown', (event) => this.onKey(event));
  }

  setSession(name) {
    if (name === this.session) return this.update();
    this.session = name;
    this.position = null;
    this.draft = '';
    this.input.value = '';
    this.fit();
    this.update();
  }

  /** Whether the session can take code now, and what happens to it if it is busy. */
  update() {
    const s = this.session ? store.sessions.get(this.session) : null;
    this.form.hidden = !this.session;
    const live = s && s.state !== 'dead' && s.state !== 'closed';
    this.input.disabled = !live;
    this.runButton.disabled = !live;
    if (!live) this.note.textContent = this.session ? 'This session has no kernel now; start one to run code in it.' : '';
    else if (s.state === 'busy') this.note.textContent = 'A cell is running: yours waits for it, then runs. Interrupt stops the one running.';
    else this.note.textContent = '';
    this.prompt.textContent = `In [${live && s.state === 'busy' ? '*' : ' '}]:`;
  }

  fit() {
    const lines = Math.min(MAX_LINES, this.input.value.split('\n').length);
    this.input.rows = Math.max(1, lines);
  }

  onKey(event) {
    if (event.key === 'Enter' && event.shiftKey) {
      event.preventDefault();
      void this.run();
      return;
    }
    if (event.key === 'Escape') {
      event.stopPropagation();
      this.input.blur();
      return;
    }
    const { selectionStart, selectionEnd, value } = this.input;
    if (selectionStart !== selectionEnd || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    // The arrows walk the history only from the first line (up) or the last (down), so moving
    // within a cell of several lines still works.
    if (event.key === 'ArrowUp' && !value.slice(0, selectionStart).includes('\n')) {
      if (this.step(-1)) event.preventDefault();
    } else if (event.key === 'ArrowDown' && !value.slice(selectionEnd).includes('\n')) {
      if (this.step(1)) event.preventDefault();
    }
  }

  step(delta) {
    const history = readHistory(this.session);
    if (history.length === 0) return false;
    if (this.position === null) {
      if (delta > 0) return false;
      this.draft = this.input.value;
      this.position = history.length;
    }
    const next = this.position + delta;
    if (next < 0) return true;
    if (next >= history.length) {
      this.position = null;
      this.input.value = this.draft;
    } else {
      this.position = next;
      this.input.value = history[next];
    }
    this.fit();
    const end = delta < 0 ? this.input.value.indexOf('\n') : this.input.value.length;
    const at = end < 0 ? this.input.value.length : end;
    this.input.setSelectionRange(at, at);
    return true;
  }

  async run() {
    const code = this.input.value;
    const session = this.session;
    if (!session || !code.trim()) return;
    const history = readHistory(session);
    if (history.at(-1) !== code) writeHistory(session, [...history, code]);
    this.position = null;
    this.draft = '';
    this.input.value = '';
    this.fit();
    try {
      const result = await post(sessionPath(session, '/run'), { code });
      if (result.queuedBehind) toast(`Queued behind run ${result.queuedBehind}; yours runs when it ends.`);
    } catch (error) {
      // Nothing is lost: the code goes back into the box.
      if (!this.input.value) this.input.value = code;
      this.fit();
      toast(`${session}: ${error.message}`, 'error');
    }
  }
}
