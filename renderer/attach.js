// "Open elsewhere": how another Jupyter client attaches to this session's kernel. A local
// ipykernel has a connection file (Jupyter console, Spyder, jupyter_client all take it); the
// built-in worker is not a Jupyter kernel and says so, with the one-click ipykernel install;
// a kernel on a Jupyter server is opened from that server's own page.
import { get, sessionPath } from './api.js';
import { h, clear } from './dom.js';
import { openInstallDialog } from './install-ipykernel.js';
import { toast } from './ui.js';

export async function openAttach(session) {
  const dialog = document.getElementById('dialog-attach');
  const close = h('button', { class: 'button', type: 'button', onclick: () => dialog.close() }, 'Close');
  const body = h('div', { class: 'attach-body' }, h('p', { class: 'muted' }, 'Reading the kernel’s connection…'));
  clear(dialog).append(
    h('div', { class: 'form attach' }, h('h2', { id: 'attach-title' }, `Open “${session}” elsewhere`), body, h('div', { class: 'form-actions' }, close)),
  );
  dialog.showModal();
  try {
    const info = await get(sessionPath(session, '/attach'));
    clear(body).append(...render(info, dialog));
  } catch (error) {
    clear(body).append(h('p', { class: 'form-error' }, error.message));
  }
}

function copyable(label, text, { multiline = false, id } = {}) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast(`${label}: copied.`);
    } catch (error) {
      toast(`Could not copy: ${error.message}`, 'error');
    }
  };
  return h(
    'div',
    { class: 'attach-item' },
    h('div', { class: 'attach-label' }, h('h3', {}, label), h('button', { class: 'button small', type: 'button', 'aria-label': `Copy ${label}`, onclick: copy }, 'Copy')),
    h(multiline ? 'pre' : 'code', { class: `attach-text${multiline ? ' code' : ''}`, id }, text),
  );
}

function render(info, dialog) {
  switch (info.kind) {
    case 'ipykernel':
      return [
        h('p', {}, 'This session’s kernel is a local ipykernel. Any Jupyter client can attach to it and share its variables; what the model and you run here stays in the same namespace.'),
        copyable('Connection file', info.connectionFile, { id: 'attach-file' }),
        copyable('Jupyter console', info.commands.console, { id: 'attach-console' }),
        h('div', { class: 'attach-item' }, h('div', { class: 'attach-label' }, h('h3', {}, 'Spyder')), h('p', { id: 'attach-spyder' }, info.commands.spyder)),
        copyable('Python (jupyter_client)', info.commands.python, { multiline: true, id: 'attach-python' }),
        h('p', { class: 'hint' }, info.note),
      ];
    case 'worker':
      return [
        h('p', { id: 'attach-reason' }, info.reason),
        info.interpreter
          ? h(
              'div',
              { class: 'form-actions attach-actions' },
              h(
                'button',
                {
                  class: 'button primary',
                  type: 'button',
                  onclick: () => {
                    dialog.close();
                    void openInstallDialog({ path: info.interpreter, name: info.interpreter }, () => toast('ipykernel is installed: start a new session to use it.'));
                  },
                },
                'Install ipykernel…',
              ),
            )
          : null,
      ];
    case 'remote':
      return [h('p', { id: 'attach-reason' }, info.reason), copyable('Server', info.url), copyable('Kernel id', info.kernelId)];
    default:
      return [h('p', { id: 'attach-reason' }, info.reason)];
  }
}
