// Small pieces shared by the views: notices, state badges, two-step buttons, collapsed text.
import { h, clear } from './dom.js';
import { lineCount, plural } from './format.js';

const STATE_LABELS = {
  starting: 'starting',
  idle: 'idle',
  busy: 'busy',
  restarting: 'restarting',
  dead: 'dead',
  closed: 'stopped',
  ended: 'ended',
};

/** The state as a word with a coloured dot: the word carries the meaning, the colour helps. */
export function stateBadge(state) {
  return h('span', { class: `badge state-${state}` }, h('span', { class: 'dot', 'aria-hidden': 'true' }), STATE_LABELS[state] ?? state);
}

/** A notice in the corner; errors are announced at once, the rest politely. */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toasts');
  const item = h(
    'div',
    { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status' },
    h('p', {}, message),
    h('button', { class: 'toast-close', 'aria-label': 'Dismiss', onclick: () => item.remove() }, '×'),
  );
  box.append(item);
  if (kind !== 'error') setTimeout(() => item.remove(), 5000);
  while (box.children.length > 4) box.firstElementChild.remove();
}

/**
 * A button for something that cannot be undone (restart, reset, kill): the first press arms it
 * ("Confirm kill"), a second press within a few seconds does it. One place, no modal, no
 * surprise. Interrupt never goes through this: stopping must take one click.
 */
export function confirmButton({ label, confirmLabel, title, className = '', onConfirm, shortcut, focusKey }) {
  let armed = null;
  const button = h('button', { class: `button ${className}`, title, 'aria-keyshortcuts': shortcut, dataset: focusKey ? { focusKey } : undefined }, label);
  const disarm = () => {
    clearTimeout(armed);
    armed = null;
    button.classList.remove('armed');
    button.textContent = label;
  };
  button.addEventListener('click', async () => {
    if (!armed) {
      button.classList.add('armed');
      button.textContent = confirmLabel;
      armed = setTimeout(disarm, 4000);
      return;
    }
    disarm();
    button.disabled = true;
    try {
      await onConfirm();
    } finally {
      button.disabled = false;
    }
  });
  button.addEventListener('blur', () => setTimeout(() => armed && document.activeElement !== button && disarm(), 150));
  return button;
}

export const COLLAPSE_LINES = 16;
const COLLAPSE_CHARS = 3000;

/**
 * Long text shown folded to its first lines, with a button for the rest. Folding keeps a log
 * with huge outputs scannable; the full text is there, one click (or Enter) away.
 */
export function collapsible(content, text, kind = 'lines') {
  const lines = lineCount(text);
  const tooLong = lines > COLLAPSE_LINES || text.length > COLLAPSE_CHARS;
  if (!tooLong) return content;
  const wrap = h('div', { class: 'collapsible collapsed' }, content);
  const more = h('button', { class: 'link-button show-all', 'aria-expanded': 'false' }, `Show all ${kind === 'lines' ? plural(lines, 'line') : plural(text.length, 'character')}`);
  more.addEventListener('click', () => {
    const collapsed = wrap.classList.toggle('collapsed');
    more.setAttribute('aria-expanded', String(!collapsed));
    more.textContent = collapsed ? `Show all ${plural(lines, 'line')}` : 'Show less';
    if (collapsed) wrap.scrollIntoView({ block: 'nearest' });
  });
  return h('div', { class: 'collapsible-wrap' }, wrap, more);
}

/** Replaces an element's children, keeping focus on an equivalent control when it was inside. */
export function replaceChildren(el, ...children) {
  const focusedKey = el.contains(document.activeElement) ? document.activeElement?.dataset?.focusKey : undefined;
  clear(el);
  el.append(...children.flat().filter(Boolean));
  if (focusedKey) el.querySelector(`[data-focus-key="${CSS.escape(focusedKey)}"]`)?.focus();
}
