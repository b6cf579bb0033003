// A question the running code asks (input(), getpass.getpass(), the debugger's prompt), answered
// on its cell in the log: the prompt, a box for the answer (a password box for getpass), Send
// (Enter) and Don't answer, which the code gets as KeyboardInterrupt. What the person types goes
// to the daemon in the request and nowhere else on the page: never into the DOM, a toast or the
// announcer, and the box is emptied once it is sent.
import { post, sessionPath } from './api.js';
import { h, isEditing } from './dom.js';
import { clientLabel } from './format.js';
import { toast } from './ui.js';

/** Questions this page has answered or declined: a view sent before the daemon heard does not bring one back. */
const settled = new Set();
let boxes = 0;

/** Who asks, for the note under the prompt. */
export function asker(question) {
  return question.client === 'panel' ? 'Your own cell' : `Code run by ${clientLabel(question.client)}`;
}

/**
 * Shows `question` (the session view's, or null) at the foot of the running cell's article,
 * keeping the form (and what is typed in it) while it is the same question.
 */
export function showQuestion(article, session, question) {
  const current = article.querySelector('.question');
  if (!question || settled.has(question.id)) return void (current && dismiss(current));
  if (current?.dataset.question === question.id) return;
  if (current) dismiss(current);
  const form = questionForm(session, question);
  article.append(form);
  // The box takes the keyboard, unless the person is typing somewhere else or has a dialog open.
  if (!document.querySelector('dialog[open]') && !typingElsewhere() && form.offsetParent !== null) {
    form.querySelector('input').focus();
  }
}

/** A field other than an answer box has the keyboard, unless it is the console just emptied by running the cell that now asks. */
function typingElsewhere() {
  const active = document.activeElement;
  if (!isEditing(active)) return false;
  return !(active.classList.contains('console-input') && active.value === '');
}

/** Takes a form away; the keyboard, if it was in it, goes back to the log rather than the top of the page. */
export function dismiss(form) {
  const hadFocus = form.contains(document.activeElement);
  const log = form.closest('.log');
  const input = form.querySelector('input');
  if (input) input.value = '';
  form.remove();
  if (hadFocus) log?.focus({ preventScroll: true });
}

function questionForm(session, question) {
  const inputId = `question-answer-${++boxes}`;
  const input = h('input', {
    id: inputId,
    class: 'question-input',
    type: question.password ? 'password' : 'text',
    autocomplete: 'off',
    spellcheck: 'false',
    autocapitalize: 'off',
    'aria-describedby': `${inputId}-note`,
  });
  const send = h('button', { class: 'button small primary', type: 'submit', title: 'Send this answer to the code (Enter)' }, 'Send');
  const decline = h('button', { class: 'button small', type: 'button', title: 'The code gets KeyboardInterrupt, as with Ctrl-C at a prompt; the session goes on' }, 'Don’t answer');
  const status = h('p', { class: 'question-status', role: 'status' });
  const prompt = question.prompt.trim() ? question.prompt : question.password ? 'The code asks for a password.' : 'The code asks for a line of text.';
  const form = h(
    'form',
    { class: 'question', dataset: { question: question.id }, 'aria-label': 'The code asks you a question' },
    h('label', { class: 'question-prompt', for: inputId }, prompt),
    h('div', { class: 'question-row' }, input, send, decline),
    h(
      'p',
      { class: 'question-note', id: `${inputId}-note` },
      `${asker(question)} is waiting for your answer; Don’t answer stops it with KeyboardInterrupt.`,
      question.password ? ' A password goes to the code only: it is not shown, logged or given to any client.' : '',
    ),
    status,
  );
  const reply = async (body) => {
    for (const button of [send, decline]) button.disabled = true;
    input.readOnly = true;
    status.textContent = '';
    try {
      const { outcome } = await post(sessionPath(session, '/question'), { id: question.id, ...body });
      settled.add(question.id);
      dismiss(form);
      toast(outcome === 'declined' ? `${session}: not answered; the code gets KeyboardInterrupt.` : `${session}: answer sent.`);
    } catch (error) {
      if (error.status === 409 || error.status === 404) {
        settled.add(question.id);
        dismiss(form);
        toast(`${session}: ${error.message}`, 'warning');
        return;
      }
      // Nothing is lost: the answer stays in its box to send again.
      for (const button of [send, decline]) button.disabled = false;
      input.readOnly = false;
      status.textContent = `Not sent: ${error.message}`;
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void reply({ action: 'accept', value: input.value });
  });
  decline.addEventListener('click', () => void reply({ action: 'decline' }));
  // Escape leaves the box without answering (the question stays); the single-key shortcuts work again.
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    input.blur();
  });
  return form;
}
