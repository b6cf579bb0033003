// MCP clients: one click adds Python Session to a client's own config, another takes it out.
import { get, post } from './api.js';
import { h, clear } from './dom.js';
import { toast } from './ui.js';

const STATE = {
  current: ['Registered', 'ok'],
  registered: ['Registered', 'ok'],
  stale: ['Registered, out of date', 'warn'],
  'not-registered': ['Not registered', 'off'],
  'not-installed': ['Not installed here', 'off'],
  unreadable: ['Config cannot be read', 'bad'],
};

export class ClientsView {
  constructor({ list }) {
    this.list = list;
    this.data = null;
  }

  async load(force = false) {
    if (this.data && !force) return;
    try {
      this.render(await get('/api/clients'));
    } catch (error) {
      clear(this.list).append(h('p', { class: 'error-text' }, `Could not read the clients' configs: ${error.message}`));
    }
  }

  async act(client, register, button) {
    button.disabled = true;
    try {
      const result = await post(`/api/clients/${encodeURIComponent(client.id)}/${register ? 'register' : 'unregister'}`);
      toast(result.message);
      await this.load(true);
    } catch (error) {
      toast(`${client.name}: ${error.message}`, 'error');
      button.disabled = false;
    }
  }

  render(data) {
    this.data = data;
    clear(this.list).append(
      ...data.clients.map((c) => {
        const [label, tone] = STATE[c.state] ?? [c.state, 'off'];
        const buttons = [];
        const button = (text, register, primary) => {
          const b = h('button', { class: `button${primary ? ' primary' : ''}`, 'aria-label': `${text} — ${c.name}`, dataset: { focusKey: `${c.id}:${text}` } }, text);
          b.addEventListener('click', () => this.act(c, register, b));
          return b;
        };
        if (c.state === 'stale') buttons.push(button('Update', true, true));
        if (c.registered) buttons.push(button('Remove', false, false));
        // Registering a client that is not installed is allowed (it may be installed later), but it is not the obvious next step.
        else if (c.state !== 'unreadable') buttons.push(button('Register', true, c.installed));
        return h(
          'li',
          { class: 'client-card', dataset: { client: c.id } },
          h('div', { class: 'client-main' }, h('h3', {}, c.name), h('span', { class: `client-state tone-${tone}` }, label)),
          h('div', { class: 'client-paths' }, c.paths.map((p) => h('code', { class: 'path' }, p))),
          c.interpreters.length ? h('p', { class: 'muted' }, 'Interpreter in its config: ', c.interpreters.join(', ')) : null,
          c.problems.length ? h('ul', { class: 'problems' }, c.problems.map((p) => h('li', {}, p))) : null,
          c.registered && c.restartHint ? h('p', { class: 'muted client-hint' }, c.restartHint) : null,
          // What the client itself does with the entry: Gemini CLI starts it only in folders it trusts.
          c.notes?.length ? h('div', { class: 'notice client-notes', role: 'note' }, c.notes.map((n) => h('p', {}, n))) : null,
          h('div', { class: 'client-actions' }, buttons),
        );
      }),
    );
  }
}
