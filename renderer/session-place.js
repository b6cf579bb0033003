// Where a new session runs, for the New-session dialog: this machine with one of its
// interpreters, or a registered Jupyter server with one of its kernelspecs. The kernelspecs are
// asked of the daemon when a server is picked, so the list is the server's as it is now.
import { get } from './api.js';
import { h, clear } from './dom.js';

const HERE = '';

/**
 * The dialog's "Runs on" and the fields that depend on it. `field(label, input, hint)` builds a
 * labelled field; `onPlace(serverName | null)` hears each change (the folder's hint differs).
 * `request()` gives what POST /api/sessions takes besides the name and folder.
 */
export function placeFields({ interpreters, field, onPlace = () => {} }) {
  const where = h('select', { id: 'new-where', name: 'where', 'aria-describedby': 'new-where-hint' }, h('option', { value: HERE }, 'This machine'));
  const interpreter = h('select', { id: 'new-interpreter', name: 'interpreter' }, h('option', { value: '' }, 'Loading…'));
  const kernelspec = h('select', { id: 'new-kernelspec', name: 'kernelspec', 'aria-describedby': 'new-kernelspec-hint' });
  const specError = h('p', { class: 'form-error field-error', id: 'new-kernelspec-error', role: 'alert', hidden: true });

  const whereField = field('Runs on', where, 'This machine, or a Jupyter server added in the Servers view (4).');
  const interpreterField = field('Interpreter', interpreter);
  const kernelspecField = field('Kernelspec', kernelspec, 'What the server can start; only Python kernelspecs run a session.');
  kernelspecField.append(specError);
  kernelspecField.hidden = true;

  interpreters.load().then((data) => {
    if (!data) return;
    clear(interpreter).append(
      h('option', { value: '' }, data.chosen ? `Automatic — ${data.chosen.path}` : 'Automatic'),
      ...data.interpreters.filter((i) => i.ipykernel !== 'no').map((i) => h('option', { value: i.path }, `${i.name} · ${i.version ?? '?'} · ${i.path}`)),
    );
  });

  get('/api/servers')
    .then(({ servers }) => where.append(...servers.map((s) => h('option', { value: s.name }, `${s.name} · ${s.url}`))))
    .catch((error) => {
      const hint = whereField.querySelector('.hint');
      if (hint) hint.textContent = `Could not list the servers: ${error.message}`;
    });

  // Answers to an earlier pick are dropped: only the server shown may fill the list.
  let asked = 0;
  async function loadKernelspecs(server) {
    const ticket = ++asked;
    specError.hidden = true;
    kernelspec.disabled = true;
    clear(kernelspec).append(h('option', { value: '' }, 'Asking the server…'));
    try {
      const data = await get(`/api/servers/${encodeURIComponent(server)}/kernelspecs`);
      if (ticket !== asked) return;
      const options = data.kernelspecs.map((s) =>
        h(
          'option',
          { value: s.name, disabled: !s.python, selected: s.python && s.name === data.defaultKernel },
          `${s.displayName} (${s.name})${s.name === data.defaultKernel ? ' · default' : ''}${s.python ? '' : ` · ${s.language}, not Python`}`,
        ),
      );
      clear(kernelspec).append(...options);
      if (!data.kernelspecs.some((s) => s.python)) showSpecError(`${server} offers no Python kernelspec, so no session can run there.`);
    } catch (error) {
      if (ticket !== asked) return;
      // Starting may still work once the server is up; it then uses the server's default.
      clear(kernelspec).append(h('option', { value: '' }, 'The server’s default'));
      showSpecError(error.message);
    } finally {
      if (ticket === asked) kernelspec.disabled = false;
    }
  }

  function showSpecError(message) {
    specError.textContent = message;
    specError.hidden = false;
  }

  where.addEventListener('change', () => {
    const server = where.value || null;
    interpreterField.hidden = server !== null;
    kernelspecField.hidden = server === null;
    if (server === null) asked++;
    else void loadKernelspecs(server);
    onPlace(server);
  });

  return {
    fields: [whereField, interpreterField, kernelspecField],
    request() {
      if (!where.value) return { interpreter: interpreter.value || undefined };
      return { server: where.value, kernelName: kernelspec.value || undefined };
    },
  };
}
