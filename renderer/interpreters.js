// Interpreters: what was found on this machine, which one new sessions use and why, and a way
// to choose another.
import { get, post } from './api.js';
import { h, append, clear } from './dom.js';
import { toast } from './ui.js';
import { openInstallDialog } from './install-ipykernel.js';

const KIND_LABEL = {
  'conda-base': 'conda base',
  'conda-env': 'conda env',
  venv: 'venv',
  pyenv: 'pyenv',
  uv: 'uv',
  system: 'system',
  'windows-registry': 'Windows',
  'env-var': 'variable',
};

export class InterpretersView {
  constructor({ summary, rows, rescan, count }) {
    Object.assign(this, { summary, rows, count });
    this.data = null;
    this.loading = null;
    rescan.addEventListener('click', async () => {
      rescan.disabled = true;
      rescan.textContent = 'Scanning…';
      try {
        this.render(await post('/api/interpreters/rescan'));
        toast('Rescanned the interpreters.');
      } catch (error) {
        toast(`Rescan failed: ${error.message}`, 'error');
      } finally {
        rescan.disabled = false;
        rescan.textContent = 'Rescan';
      }
    });
  }

  /** Loads the list (once at a time); `force` after the daemon says it changed. */
  async load(force = false) {
    if (this.data && !force) return this.data;
    this.loading ??= get('/api/interpreters')
      .then((data) => {
        this.render(data);
        return data;
      })
      .catch((error) => {
        clear(this.summary).append(h('p', { class: 'error-text' }, `Could not list the interpreters: ${error.message}`));
        return null;
      })
      .finally(() => (this.loading = null));
    return this.loading;
  }

  async choose(path) {
    try {
      this.render(await post('/api/interpreters/choose', { path }));
      toast(path ? `New sessions will use ${path}.` : 'Python Session chooses the interpreter again.');
    } catch (error) {
      toast(error.message, 'error');
    }
  }

  render(data) {
    this.data = data;
    const { chosen, error, saved, envOverride } = data;
    append(clear(this.summary), [
      h('h3', {}, 'New sessions use'),
      chosen
        ? h('p', { class: 'chosen-path' }, h('code', {}, chosen.path), chosen.version ? ` — Python ${chosen.version}` : '')
        : h('p', { class: 'error-text' }, error ?? 'No interpreter can be used.'),
      chosen ? h('p', { class: 'muted' }, 'Why: ', chosen.reason) : null,
      envOverride
        ? h('p', { class: 'notice' }, 'PYTHON_MCP_INTERPRETER is set to ', h('code', {}, envOverride), ', so it decides for every new session while the daemon runs. A choice made here is saved for when it is not set.')
        : null,
      saved
        ? h('p', {}, 'This is your saved choice. ', h('button', { class: 'link-button', onclick: () => this.choose(null) }, 'Let Python Session choose instead'))
        : null,
      h('p', { class: 'muted' }, 'Running sessions keep their interpreter; a choice applies to sessions started after it.'),
    ]);
    this.count.textContent = `${data.interpreters.length} found`;
    if (data.interpreters.length === 0) {
      clear(this.rows).append(h('tr', {}, h('td', { colspan: '6', class: 'log-empty' }, 'No Python interpreters were found. Install Anaconda or Python, or set PYTHON_MCP_INTERPRETER.')));
      return;
    }
    // The one in use first, then those that can run kernels; otherwise the order discovery found.
    const rank = (i) => (i.chosen ? 0 : { yes: 1, unknown: 2, no: 3 }[i.ipykernel] ?? 3);
    const sorted = data.interpreters.map((i, n) => [i, n]).sort(([a, x], [b, y]) => rank(a) - rank(b) || x - y).map(([i]) => i);
    clear(this.rows).append(
      ...sorted.map((i) =>
        h(
          'tr',
          { class: i.chosen ? 'chosen' : '' },
          h('td', {}, h('span', { class: 'interp-name' }, i.name), i.manager && i.manager !== i.name && i.manager !== KIND_LABEL[i.kind] ? h('span', { class: 'muted' }, ` ${i.manager}`) : null, i.active ? h('span', { class: 'tag' }, 'active') : null),
          h('td', {}, KIND_LABEL[i.kind] ?? i.kind),
          h('td', {}, i.version ?? '?'),
          h('td', {}, h('span', { class: `yesno yesno-${i.ipykernel}` }, i.ipykernel)),
          h('td', { class: 'path-cell' }, h('code', { class: 'path' }, i.path), i.installCommand ? h('div', { class: 'install-hint' }, 'To use it: ', h('code', {}, i.installCommand)) : null),
          h(
            'td',
            { class: 'row-action' },
            i.ipykernel === 'no'
              ? h(
                  'button',
                  {
                    class: 'button small install-button',
                    'aria-label': `Install ipykernel into ${i.name} (${i.path})`,
                    title: 'Shows the command first; nothing runs until you confirm',
                    onclick: () => openInstallDialog(i, () => this.load(true)),
                  },
                  'Install ipykernel',
                )
              : null,
            i.chosen
              ? h('span', { class: 'badge state-idle' }, h('span', { class: 'dot', 'aria-hidden': 'true' }), 'in use')
              : h(
                  'button',
                  {
                    class: 'button small',
                    'aria-label': `Use ${i.name} (${i.path}) for new sessions`,
                    'aria-disabled': i.ipykernel === 'no' ? 'true' : false,
                    title: i.ipykernel === 'no' ? 'It has no ipykernel; install it first' : 'Use this interpreter for new sessions',
                    onclick: () => (i.ipykernel === 'no' ? toast(`${i.path} has no ipykernel. Install it with: ${i.installCommand}`, 'warning') : this.choose(i.path)),
                  },
                  'Use',
                ),
          ),
        ),
      ),
    );
  }
}
