// The two forms (start a session, here or on a server; attach to a kernel) and the keyboard help.
import { post } from './api.js';
import { h, clear } from './dom.js';
import { emit, store } from './store.js';
import { placeFields } from './session-place.js';
import { updateSession } from './sessions.js';
import { toast } from './ui.js';

const NAME_PATTERN = '[A-Za-z0-9][A-Za-z0-9_.\\-]{0,63}';

function field(label, input, hint) {
  const id = input.id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null);
}

function suggestName() {
  if (!store.sessions.has('default')) return 'default';
  for (let n = 2; ; n++) if (!store.sessions.has(`session-${n}`)) return `session-${n}`;
}

/**
 * A modal form that stays open while the daemon works, shows its error in place (so nothing
 * typed is lost), and closes on success.
 */
function formDialog(dialog, { title, fields, submitLabel, busyLabel, submit }) {
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const button = h('button', { class: 'button primary', type: 'submit' }, submitLabel);
  const form = h(
    'form',
    { class: 'form', method: 'dialog' },
    h('h2', { id: `${dialog.id}-title` }, title),
    ...fields,
    error,
    h('div', { class: 'form-actions' }, h('button', { class: 'button', type: 'button', onclick: () => dialog.close() }, 'Cancel'), button),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    error.hidden = true;
    button.disabled = true;
    button.textContent = busyLabel;
    try {
      await submit(form);
      dialog.close();
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
      button.textContent = submitLabel;
    }
  });
  clear(dialog).append(form);
  dialog.setAttribute('aria-labelledby', `${dialog.id}-title`);
  dialog.showModal();
  form.querySelector('input')?.select();
}

export function openNewSession(interpreters, select, presetName) {
  const dialog = document.getElementById('dialog-new');
  const name = h('input', { id: 'new-name', name: 'name', required: true, pattern: NAME_PATTERN, value: presetName ?? suggestName(), autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'new-name-hint' });
  const cwd = h('input', { id: 'new-cwd', name: 'cwd', placeholder: 'your home folder', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'new-cwd-hint' });
  const cwdField = field('Working folder (optional)', cwd, 'Where relative paths in the code point; ~ is your home.');
  const place = placeFields({
    interpreters,
    field,
    // On a server the folder is the server's, relative to its root: the hint says so.
    onPlace(server) {
      cwd.placeholder = server ? 'the server’s root' : 'your home folder';
      cwdField.querySelector('.hint').textContent = server
        ? `A folder on ${server}, relative to its root; file paths in the code are paths there.`
        : 'Where relative paths in the code point; ~ is your home.';
    },
  });
  formDialog(dialog, {
    title: 'Start a session',
    fields: [field('Name', name, 'Letters, digits, “.”, “_” or “-”. Clients pass it as session="…".'), ...place.fields, cwdField],
    submitLabel: 'Start',
    busyLabel: 'Starting…',
    async submit() {
      const sessionName = name.value.trim();
      const previous = store.selected;
      store.pending.set(sessionName, 'starting');
      emit('sessions');
      select(sessionName);
      try {
        const { session } = await post('/api/sessions', { name: sessionName, ...place.request(), cwd: cwd.value.trim() || undefined });
        updateSession(session);
        toast(session.server ? `Started ${session.name} on ${session.server}.` : `Started ${session.name} (pid ${session.pid ?? '—'}).`);
      } catch (error) {
        // Back to what was shown before, unless the name is a session after all (a race with a client).
        if (!store.sessions.has(sessionName) && !store.past.includes(sessionName)) select(previous);
        throw error;
      } finally {
        if (store.pending.delete(sessionName)) emit('sessions');
      }
    },
  });
}

export function openConnect(select) {
  const dialog = document.getElementById('dialog-connect');
  const name = h('input', { id: 'connect-name', name: 'name', required: true, pattern: NAME_PATTERN, value: store.sessions.has('jupyter') ? '' : 'jupyter', autocomplete: 'off', spellcheck: 'false' });
  const file = h('input', {
    id: 'connect-file',
    name: 'file',
    required: true,
    placeholder: '~/.local/share/jupyter/runtime/kernel-….json',
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': 'connect-file-hint',
  });
  formDialog(dialog, {
    title: 'Connect to a running kernel',
    fields: [
      field('Session name', name),
      field('Connection file', file, 'A running Jupyter kernel writes kernel-<id>.json in the folder `jupyter --runtime-dir` prints; in a notebook, %connect_info names it. Detaching later leaves that kernel running.'),
    ],
    submitLabel: 'Connect',
    busyLabel: 'Connecting…',
    async submit() {
      const { session } = await post('/api/sessions/connect', { name: name.value.trim(), connectionFile: file.value.trim() });
      updateSession(session);
      select(session.name);
      toast(`Attached ${session.name} to ${file.value.trim()}.`);
    },
  });
}

export const SHORTCUTS = [
  ['/', 'Search the log'],
  ['i', 'Interrupt the selected session'],
  ['n', 'Start a new session'],
  ['j / k', 'Next / previous session'],
  ['l / f / v', 'Show the log / the figures / the variables'],
  ['Shift+Enter', 'Run the code in the console under the log'],
  ['g', 'Jump to the newest run'],
  ['1 2 3 4', 'Sessions / Interpreters / Clients / Servers'],
  ['t', 'Switch theme (system, light, dark)'],
  ['?', 'This help'],
  ['Esc', 'Close a dialog, clear the search'],
];

/** "j / k" → <kbd>j</kbd> / <kbd>k</kbd>; "1 2 3" → three keys. */
export function keyCaps(keys) {
  const [separator, parts] = keys.includes(' / ') ? [' / ', keys.split(' / ')] : [' ', keys.split(' ')];
  return parts.flatMap((k, i) => (i ? [separator, h('kbd', {}, k)] : [h('kbd', {}, k)]));
}

export function openHelp() {
  const dialog = document.getElementById('dialog-help');
  clear(dialog).append(
    h(
      'div',
      { class: 'form' },
      h('h2', { id: 'dialog-help-title' }, 'Keyboard shortcuts'),
      h('p', { class: 'muted' }, 'Single keys work whenever you are not typing in a field. Tab moves through every control.'),
      h('dl', { class: 'shortcut-list' }, ...SHORTCUTS.flatMap(([keys, what]) => [h('dt', {}, keyCaps(keys)), h('dd', {}, what)])),
      h('div', { class: 'form-actions' }, h('button', { class: 'button primary', onclick: () => dialog.close() }, 'Close')),
    ),
  );
  dialog.setAttribute('aria-labelledby', 'dialog-help-title');
  dialog.showModal();
}
