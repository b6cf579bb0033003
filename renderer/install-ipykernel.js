// "Install ipykernel" for one interpreter: the exact command first (the person confirms), then
// what it prints as it runs, then the outcome. An externally managed Python (PEP 668) is
// explained with the commands that do work, and nothing is run.
import { ApiError, get, post } from './api.js';
import { h, clear } from './dom.js';

/** What the page keeps of the live output; the daemon keeps its own bounded copy. */
const MAX_SHOWN_CHARS = 256 * 1024;

function dialogElement() {
  let dialog = document.getElementById('dialog-install');
  if (!dialog) {
    dialog = h('dialog', { id: 'dialog-install', class: 'dialog dialog-wide', 'aria-labelledby': 'dialog-install-title' });
    document.body.append(dialog);
  }
  return dialog;
}

/**
 * The daemon's event stream, open until `close`: resolves once it has said hello (its first
 * message is a snapshot), so nothing the install prints can be sent before we listen.
 */
function listen(onInstall) {
  const source = new EventSource('/api/events');
  source.addEventListener('install', (event) => {
    try {
      onInstall(JSON.parse(event.data).install);
    } catch (error) {
      console.error('panel: an install event could not be read', error);
    }
  });
  const ready = new Promise((resolve, reject) => {
    source.addEventListener('snapshot', () => resolve(), { once: true });
    source.addEventListener('error', () => source.readyState === EventSource.CLOSED && reject(new ApiError(0, 'The live output could not be opened.')), { once: true });
  });
  return { ready, close: () => source.close() };
}

/** Opens the dialog for `interp` ({path, name}); `onChanged` runs after a successful install. */
export async function openInstallDialog(interp, onChanged) {
  const dialog = dialogElement();
  const title = h('h2', { id: 'dialog-install-title' }, `Install ipykernel into ${interp.name}`);
  const body = h('div', { class: 'install-body' }, h('p', { class: 'muted' }, 'Working out the command…'));
  const actions = h('div', { class: 'form-actions' });
  const closeButton = h('button', { class: 'button', type: 'button', onclick: () => dialog.close() }, 'Cancel');
  actions.append(closeButton);
  clear(dialog).append(h('div', { class: 'form install-dialog' }, title, h('p', { class: 'muted' }, h('code', { class: 'path' }, interp.path)), body, actions));
  if (!dialog.open) dialog.showModal();

  let answer;
  try {
    answer = await post('/api/interpreters/install-plan', { path: interp.path });
  } catch (error) {
    clear(body).append(h('p', { class: 'error-text', role: 'alert' }, error.message));
    closeButton.textContent = 'Close';
    return;
  }
  const { plan } = answer;
  if (plan.kind === 'externally-managed') return showExternallyManaged(body, plan, closeButton);
  if (plan.kind === 'unavailable') {
    clear(body).append(h('p', { class: 'install-refused', role: 'alert' }, plan.reason));
    closeButton.textContent = 'Close';
    return;
  }

  const run = h('button', { class: 'button primary', type: 'button' }, 'Run this command');
  actions.append(run);
  clear(body).append(
    h('p', {}, 'This runs exactly this command, as you would in a terminal:'),
    h('pre', { class: 'install-command' }, plan.command),
    h('p', { class: 'muted' }, 'It downloads and installs ipykernel and what it needs into this interpreter only. Nothing runs until you click the button.'),
  );
  run.focus();
  run.addEventListener('click', () => runInstall(interp, plan, { body, run, closeButton, onChanged }), { once: true });
}

function showExternallyManaged(body, plan, closeButton) {
  clear(body).append(
    h('p', { class: 'install-pep668' }, plan.explanation),
    plan.message ? h('details', {}, h('summary', {}, 'What the system says (', h('code', {}, plan.marker), ')'), h('pre', { class: 'install-marker' }, plan.message)) : null,
    h('p', {}, 'What works instead:'),
    h('ul', { class: 'install-alternatives' }, ...plan.alternatives.map((a) => h('li', {}, a.label, ':', h('pre', { class: 'install-command' }, a.command)))),
  );
  closeButton.textContent = 'Close';
  closeButton.focus();
}

async function runInstall(interp, plan, { body, run, closeButton, onChanged }) {
  run.disabled = true;
  run.textContent = 'Installing…';
  closeButton.textContent = 'Hide';
  const output = h('pre', { class: 'install-output', 'aria-live': 'polite', 'aria-label': 'Output of the install' });
  const status = h('p', { class: 'install-status muted', role: 'status' }, 'Running…');
  body.append(output, status);

  let id = null;
  const early = [];
  let finished = false;
  const show = (text) => {
    output.textContent = (output.textContent + text).slice(-MAX_SHOWN_CHARS);
    output.scrollTop = output.scrollHeight;
  };
  const finish = (job) => {
    if (finished) return;
    finished = true;
    stream.close();
    // The daemon's copy is the record: it has every byte the stream may have dropped.
    output.textContent = job.output;
    const outcome = job.outcome;
    const ok = job.state === 'succeeded';
    status.className = `install-status ${ok ? 'install-ok' : 'install-failed'}`;
    status.textContent = outcome?.message ?? (ok ? 'Done.' : 'It failed.');
    run.hidden = true;
    closeButton.textContent = 'Close';
    closeButton.focus();
    if (ok) onChanged?.();
  };
  const stream = listen((event) => {
    if (id === null) return void early.push(event);
    if (event.id !== id) return;
    if (event.phase === 'output') show(event.text);
    else if (event.phase === 'done') finish(event.job);
  });
  try {
    await stream.ready;
    ({ id } = await post('/api/interpreters/install', { path: interp.path }));
  } catch (error) {
    stream.close();
    status.className = 'install-status install-failed';
    status.textContent = error.message;
    run.hidden = true;
    closeButton.textContent = 'Close';
    return;
  }
  for (const event of early.splice(0)) {
    if (event.id !== id) continue;
    if (event.phase === 'output') show(event.text);
    else finish(event.job);
  }
  // A stream that dropped while it ran: the job's record still says how it ended.
  if (!finished) {
    const job = await get(`/api/interpreters/install/${encodeURIComponent(id)}`).catch(() => null);
    if (job && job.state !== 'running') finish(job);
  }
}
