// Remote Jupyter servers: the ones registered, whether each answers, which sessions run there,
// and a form to add one. The daemon never sends a token back; the one typed here leaves the
// page with the request and is cleared from its field once the server is saved.
import { get, post } from './api.js';
import { h, clear } from './dom.js';
import { on, store } from './store.js';
import { confirmButton, replaceChildren, toast } from './ui.js';

const serverPath = (name, rest) => `/api/servers/${encodeURIComponent(name)}${rest}`;

export class ServersView {
  constructor({ rows, count, form, error, note }) {
    Object.assign(this, { rows, count, form, error, note });
    this.data = null;
    this.loading = null;
    /** rowKey → the check's result, or 'checking': each server as saved is checked once, not on every redraw. */
    this.checks = new Map();
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.add();
    });
    // The sessions column follows the sessions as they start and end.
    const redraw = () => this.data && this.render(this.data);
    on('sessions', redraw);
    on('session', redraw);
  }

  /** Loads the list (once at a time); `force` after the daemon says it changed. */
  async load(force = false) {
    if (this.data && !force) return this.data;
    this.loading ??= get('/api/servers')
      .then((data) => {
        this.render(data);
        this.checkAll(data.servers);
        return data;
      })
      .catch((error) => {
        clear(this.rows).append(h('tr', {}, h('td', { colspan: '6', class: 'error-text' }, `Could not list the servers: ${error.message}`)));
        return null;
      })
      .finally(() => (this.loading = null));
    return this.loading;
  }

  async add() {
    if (!this.form.reportValidity()) return;
    const field = (name) => this.form.elements.namedItem(name);
    const button = this.form.querySelector('button[type="submit"]');
    this.error.hidden = true;
    this.note.hidden = true;
    button.disabled = true;
    button.textContent = 'Adding…';
    try {
      const result = await post('/api/servers', { name: field('name').value.trim(), url: field('url').value.trim(), token: field('token').value || undefined });
      this.form.reset(); // the token is not kept in the field once it is saved
      this.checks.set(rowKey(result.server), result.check);
      // Saved either way; a server that does not answer yet is worth a word next to the form.
      this.note.textContent = result.message;
      this.note.className = result.check.reachable ? 'form-note' : 'form-note warning';
      this.note.hidden = false;
      await this.load(true);
    } catch (e) {
      this.error.textContent = e.message;
      this.error.hidden = false;
    } finally {
      button.disabled = false;
      button.textContent = 'Add server';
    }
  }

  async remove(server) {
    try {
      const result = await post(serverPath(server.name, '/remove'));
      this.checks.delete(rowKey(server));
      toast(result.message);
      await this.load(true);
    } catch (error) {
      toast(`${server.name}: ${error.message}`, 'error');
    }
  }

  checkAll(servers) {
    for (const server of servers) {
      const key = rowKey(server);
      if (this.checks.has(key)) continue;
      this.checks.set(key, 'checking');
      get(serverPath(server.name, '/check'))
        .then(({ check }) => this.checks.set(key, check))
        .catch((error) => this.checks.set(key, { reachable: false, error: error.message, kernelspecs: [] }))
        .finally(() => this.data && this.render(this.data));
    }
  }

  render(data) {
    this.data = data;
    const { servers } = data;
    this.count.textContent = servers.length === 1 ? '1 server' : `${servers.length} servers`;
    if (servers.length === 0) {
      replaceChildren(this.rows, h('tr', {}, h('td', { colspan: '6', class: 'log-empty' }, 'No servers yet. Add one below, or with `python-session-mcp servers add`.')));
      return;
    }
    // The same servers as shown: refresh the cells that change and leave the rest, so a check or
    // a session event landing between the two clicks of Remove does not disarm it.
    const keys = servers.map(rowKey);
    const shown = [...this.rows.children].map((tr) => tr.dataset.key);
    if (keys.join('\n') !== shown.join('\n')) replaceChildren(this.rows, servers.map((s) => this.row(s)));
    for (const s of servers) {
      const tr = this.rows.querySelector(`tr[data-key="${CSS.escape(rowKey(s))}"]`);
      replaceChildren(tr.querySelector('.server-status'), status(this.checks.get(rowKey(s))));
      replaceChildren(tr.querySelector('.server-sessions'), sessionsOn(s.name));
    }
  }

  row(s) {
    return h(
      'tr',
      { dataset: { server: s.name, key: rowKey(s) } },
      h('td', {}, h('span', { class: 'interp-name' }, s.name)),
      h('td', { class: 'path-cell' }, h('code', { class: 'path' }, s.url)),
      h('td', { class: 'server-token' }, s.hasToken ? 'stored' : h('span', { class: 'muted' }, 'none')),
      h('td', { class: 'server-status' }),
      h('td', { class: 'server-sessions' }),
      h(
        'td',
        { class: 'row-action' },
        confirmButton({
          label: 'Remove',
          confirmLabel: 'Confirm remove',
          className: 'small danger',
          focusKey: `remove:${s.name}`,
          title: 'Forget this server; kernels running there are not touched',
          onConfirm: () => this.remove(s),
        }),
      ),
    );
  }
}

/** What a row shows that only a reload can change. */
function rowKey(s) {
  return `${s.name} ${s.url} ${s.hasToken}`;
}

function status(check) {
  if (!check || check === 'checking') return h('span', { class: 'muted' }, 'checking…');
  if (!check.reachable) return [h('span', { class: 'yesno yesno-no' }, 'not answering'), h('div', { class: 'install-hint' }, check.error ?? '')];
  const specs = check.kernelspecs.map((k) => (k === check.defaultKernel ? `${k} (default)` : k)).join(', ');
  return [h('span', { class: 'yesno yesno-yes' }, 'answers'), h('div', { class: 'install-hint' }, `kernelspecs: ${specs || 'none'}`)];
}

function sessionsOn(server) {
  const names = [...store.sessions.values()].filter((s) => s.server === server).map((s) => s.name);
  return names.length ? names.join(', ') : h('span', { class: 'muted' }, '—');
}
