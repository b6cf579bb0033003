// The Variables tab: every name in the session's namespace with its type, size, dtypes, memory
// and a short preview, as the daemon last saw it. The daemon keeps the snapshot and refreshes it
// after each run while a panel looks, so this view never waits behind a running cell: it shows
// the last snapshot, "as of In [n]". Everything a kernel sent becomes text nodes, never markup.
import { get, sessionPath } from './api.js';
import { h } from './dom.js';
import { bytes, plural } from './format.js';
import { store } from './store.js';
import { replaceChildren } from './ui.js';

/** How often a shown tab tells the daemon it is still looking (the daemon forgets after 90 s). */
const RENEW_MS = 30_000;
const HIDDEN_KINDS = new Set(['module', 'function', 'class']);
/** Rows drawn at once; more follow as the table is scrolled. */
const ROW_BATCH = 200;
const COLUMNS = [
  { key: 'name', label: 'Name' },
  { key: 'type', label: 'Type' },
  { key: 'size', label: 'Size' },
  { key: 'dtypes', label: 'Dtypes' },
  { key: 'memory', label: 'Memory' },
  { key: 'preview', label: 'Value' },
];

export class VariablesView {
  constructor({ panel, openData }) {
    this.panel = panel;
    this.openData = openData;
    this.session = null;
    this.data = null;
    this.error = null;
    this.shown = false;
    this.generation = 0;
    this.sort = { key: 'name', ascending: true };
    this.filter = h('input', { type: 'search', class: 'variables-filter', placeholder: 'Filter by name', 'aria-label': 'Filter variables by name', autocomplete: 'off', spellcheck: 'false', oninput: () => this.render() });
    this.filter.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.filter.value) {
        event.stopPropagation();
        this.filter.value = '';
        this.render();
      }
    });
    this.showAll = h('input', { type: 'checkbox', id: 'variables-show-all', onchange: () => this.render() });
    this.status = h('span', { class: 'variables-status', role: 'status' });
    this.refreshButton = h('button', { class: 'button small', type: 'button', onclick: () => this.load(), title: 'Read the namespace again' }, 'Refresh');
    this.body = h('div', { class: 'variables-body' });
    panel.append(
      h(
        'div',
        { class: 'toolbar variables-toolbar' },
        this.filter,
        h('label', { class: 'variables-toggle', for: 'variables-show-all' }, this.showAll, h('span', { class: 'toggle-label' }, 'Modules, functions, classes')),
        this.status,
        this.refreshButton,
      ),
      this.body,
    );
    this.timer = null;
  }

  setSession(name) {
    if (name === this.session) return;
    this.session = name;
    this.data = null;
    this.error = null;
    this.render();
    if (this.shown) void this.load();
  }

  /** The tab became visible (true) or hidden (false). */
  setShown(shown) {
    this.shown = shown;
    clearInterval(this.timer);
    this.timer = null;
    if (!shown) return;
    void this.load();
    this.timer = setInterval(() => void this.load(), RENEW_MS);
  }

  /** The daemon took a new snapshot of some session. */
  onVariables({ session }) {
    if (this.shown && session === this.session) void this.load();
  }

  /** The session's state changed: the "as of" line says whether a run is going on. */
  onSession(name) {
    if (name === this.session) this.renderStatus();
  }

  async load() {
    const name = this.session;
    const generation = ++this.generation;
    if (!name || !store.sessions.has(name)) {
      this.data = null;
      this.error = null;
      this.render();
      return;
    }
    this.panel.setAttribute('aria-busy', 'true');
    try {
      const have = this.data?.session === name && this.data.takenAt !== null ? `?have=${encodeURIComponent(this.data.takenAt)}` : '';
      const data = await get(sessionPath(name, `/variables${have}`));
      if (generation !== this.generation) return;
      // Unchanged: the daemon left the names out; keep ours and take its news (busy, stale).
      const unchanged = data.unchanged && this.data?.session === name;
      const sameError = data.error === this.data?.error;
      this.data = { ...data, names: unchanged ? this.data.names : data.names, session: name };
      this.error = null;
      if (unchanged && sameError) return this.renderStatus();
      this.error = null;
    } catch (error) {
      if (generation !== this.generation) return;
      this.error = error.message;
    } finally {
      if (generation === this.generation) this.panel.removeAttribute('aria-busy');
    }
    this.render();
  }

  visibleRows() {
    const names = this.data?.names ?? [];
    const query = this.filter.value.trim().toLowerCase();
    const all = this.showAll.checked;
    const rows = names.filter((v) => (all || !HIDDEN_KINDS.has(v.kind)) && (!query || v.name.toLowerCase().includes(query)));
    const { key, ascending } = this.sort;
    const value = (v) => (key === 'memory' ? v.size_bytes ?? -1 : key === 'size' ? sizeNumber(v) : String(key === 'preview' ? v.preview ?? '' : v[key] ?? '').toLowerCase());
    rows.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order = x < y ? -1 : x > y ? 1 : a.name.localeCompare(b.name);
      return ascending ? order : -order;
    });
    return rows;
  }

  renderStatus() {
    const s = store.sessions.get(this.session);
    const d = this.data;
    const parts = [];
    if (d) {
      const hidden = (d.names ?? []).filter((v) => HIDDEN_KINDS.has(v.kind)).length;
      parts.push(plural(d.count ?? d.names.length, 'name'));
      if (hidden && !this.showAll.checked) parts.push(`${hidden} hidden`);
      if (d.asOf !== null && d.asOf !== undefined) parts.push(`as of In [${d.asOf}]`);
    }
    // A run (not a helper call such as this view's own read) holds the kernel: what is shown is
    // the snapshot from before it, and the next one comes when it ends.
    const running = Boolean(s?.running || d?.busy);
    const text = running ? `${parts.join(' · ')}${parts.length ? ' · ' : ''}updates when the running cell ends` : parts.join(' · ');
    this.status.textContent = text;
    this.status.dataset.running = running ? 'true' : 'false';
  }

  render() {
    this.renderStatus();
    if (!this.session) return replaceChildren(this.body, h('p', { class: 'log-empty' }, 'No session selected.'));
    if (!store.sessions.has(this.session)) return replaceChildren(this.body, h('p', { class: 'log-empty' }, 'This session has no kernel now, so it has no variables to show.'));
    if (this.error && !this.data) return replaceChildren(this.body, h('p', { class: 'log-empty error-text' }, `Could not read the variables: ${this.error}`));
    if (!this.data) return replaceChildren(this.body, h('p', { class: 'log-empty' }, 'Reading the namespace…'));
    const notes = [];
    if (this.data.error) notes.push(h('p', { class: 'variables-note error-text', role: 'alert' }, `The latest read failed: ${this.data.error}`));
    if (this.data.asOf === null && this.data.busy) notes.push(h('p', { class: 'variables-note' }, `Run ${this.data.busy.run ?? ''} is holding the kernel (${this.data.busy.code}); the variables are read as soon as it ends.`));
    const rows = this.visibleRows();
    if (rows.length === 0) {
      const query = this.filter.value.trim();
      const empty = query ? `No name matches “${query}”.` : this.data.names.length ? 'Only modules, functions and classes here; tick the box to show them.' : 'The namespace is empty: nothing has been assigned yet.';
      return replaceChildren(this.body, ...notes, h('p', { class: 'log-empty' }, empty));
    }
    const head = h(
      'tr',
      {},
      COLUMNS.map((c) =>
        h(
          'th',
          { scope: 'col', class: `col-${c.key}`, 'aria-sort': this.sort.key === c.key ? (this.sort.ascending ? 'ascending' : 'descending') : false },
          h('button', { class: 'sort-button', type: 'button', onclick: () => this.sortBy(c.key) }, c.label, h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, this.sort.key === c.key ? (this.sort.ascending ? '▲' : '▼') : '')),
        ),
      ),
    );
    // Rows are drawn a batch at a time as they scroll into view: a namespace of thousands of
    // names would otherwise cost seconds of layout on every switch to this tab.
    const tbody = h('tbody', {});
    const table = h('table', { class: 'table variables-table' }, h('caption', { class: 'visually-hidden' }, 'Variables in this session'), h('thead', {}, head), tbody);
    const more = h('p', { class: 'variables-more muted' });
    const scroll = h('div', { class: 'variables-scroll' }, table, more);
    let shown = 0;
    const drawMore = () => {
      const next = rows.slice(shown, shown + ROW_BATCH);
      tbody.append(...next.map((v) => this.row(v)));
      shown += next.length;
      more.hidden = shown >= rows.length;
      more.textContent = more.hidden ? '' : `${shown.toLocaleString()} of ${plural(rows.length, 'name')} shown; scroll for more`;
    };
    drawMore();
    this.more?.disconnect();
    this.more = new IntersectionObserver((items) => {
      if (items.some((i) => i.isIntersecting) && shown < rows.length) drawMore();
    }, { root: scroll, rootMargin: '0px 0px 600px 0px' });
    this.more.observe(more);
    replaceChildren(this.body, ...notes, scroll);
  }

  sortBy(key) {
    this.sort = this.sort.key === key ? { key, ascending: !this.sort.ascending } : { key, ascending: key !== 'memory' };
    this.render();
  }

  row(v) {
    const open = () => this.openData(this.session, v.name, v);
    const name = v.viewable
      ? h('button', { class: 'link-button variable-open', type: 'button', title: `Open ${v.name} in the data viewer`, onclick: open, dataset: { focusKey: `var:${v.name}` } }, v.name)
      : h('span', { class: 'variable-name' }, v.name);
    const preview = v.error
      ? h('span', { class: 'variable-error', title: v.error }, v.error)
      : h('span', { class: 'variable-preview', title: v.preview ?? '' }, v.preview ?? '');
    return h(
      'tr',
      { class: `variable kind-${v.kind}${v.viewable ? ' viewable' : ''}${v.error ? ' has-error' : ''}`, dataset: { name: v.name }, ondblclick: v.viewable ? open : null },
      h('td', { class: 'col-name' }, name),
      h('td', { class: 'col-type', title: [v.type, v.dtypes].filter(Boolean).join('\n') }, h('span', { class: 'variable-type' }, shortType(v.type))),
      h('td', { class: 'col-size' }, sizeText(v)),
      h('td', { class: 'col-dtypes', title: v.dtypes ?? '' }, v.dtypes ?? ''),
      h('td', { class: 'col-memory' }, v.size_bytes === null || v.size_bytes === undefined ? '' : bytes(v.size_bytes)),
      h('td', { class: 'col-preview' }, preview),
    );
  }
}

/** "pandas.DataFrame" → "DataFrame": the module is in the tooltip. */
function shortType(type) {
  return (type ?? '').split('.').pop();
}

function sizeText(v) {
  if (Array.isArray(v.shape) && v.shape.length) return v.shape.map((n) => Number(n).toLocaleString()).join(' × ');
  if (v.length !== null && v.length !== undefined) return Number(v.length).toLocaleString();
  return '';
}

function sizeNumber(v) {
  if (Array.isArray(v.shape) && v.shape.length) return v.shape.reduce((a, b) => a * Number(b), 1);
  return v.length ?? -1;
}
