// The figures a session drew, newest first; each opens full size with the code that drew it.
import { get, sessionPath } from './api.js';
import { h, clear } from './dom.js';
import { when } from './format.js';
import { highlight } from './highlight.js';

export class Gallery {
  constructor({ grid, count, dialog }) {
    Object.assign(this, { grid, count, dialog });
    this.session = null;
    this.figures = [];
    this.stale = true;
    this.index = -1;
    dialog.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowRight') this.step(1);
      else if (event.key === 'ArrowLeft') this.step(-1);
    });
    dialog.addEventListener('click', (event) => {
      if (event.target === dialog) dialog.close(); // a click on the backdrop
    });
  }

  /** Called when the session changes; the grid loads when it is shown. */
  setSession(name) {
    if (name !== this.session) {
      this.session = name;
      this.figures = [];
      this.stale = true;
    }
  }

  async show() {
    if (!this.session || !this.stale) return;
    this.stale = false;
    const name = this.session;
    try {
      const { figures } = await get(sessionPath(name, '/figures'));
      if (name !== this.session) return;
      this.figures = figures;
      this.render();
    } catch (error) {
      this.stale = true;
      clear(this.grid).append(h('p', { class: 'log-empty error-text' }, `Could not list the figures: ${error.message}`));
    }
  }

  /** A run finished; if it drew something, the gallery is out of date. */
  onLogged({ session, entry }, visible) {
    if (session !== this.session || !entry.outputs.some((o) => o.figures?.length)) return;
    this.stale = true;
    if (visible) void this.show();
  }

  render() {
    this.count.textContent = this.figures.length ? `${this.figures.length.toLocaleString()} figure${this.figures.length === 1 ? '' : 's'}, newest first` : '';
    if (this.figures.length === 0) {
      clear(this.grid).append(h('p', { class: 'log-empty' }, 'No figures yet. Plots and images a run shows (matplotlib, PIL, display()) are kept here.'));
      return;
    }
    clear(this.grid).append(
      ...this.figures.map((f, i) =>
        h(
          'button',
          { class: 'figure-card', dataset: { focusKey: `figure:${f.name}` }, onclick: () => this.open(i), 'aria-label': `${label(f)}, open full size` },
          h('span', { class: 'figure-frame' }, h('img', { src: f.url, alt: label(f), loading: 'lazy', decoding: 'async' })),
          h('span', { class: 'figure-caption' }, h('span', {}, f.executionCount !== null ? `In [${f.executionCount}]` : 'saved'), h('time', { datetime: f.time }, when(f.time))),
        ),
      ),
    );
  }

  open(index) {
    this.index = index;
    const f = this.figures[index];
    if (!f) return;
    this.fill({ url: f.url, code: f.code, title: label(f), client: f.client, time: f.time });
  }

  /** Opens a figure straight from the log (it may not be in the loaded gallery yet). */
  openFromEntry({ url, entry }) {
    this.index = this.figures.findIndex((f) => f.url === url);
    this.fill({ url, code: entry.code, title: `Figure from In [${entry.executionCount ?? ' '}]`, client: entry.client, time: entry.time });
  }

  step(delta) {
    if (this.index < 0 || this.figures.length < 2) return;
    this.open((this.index + delta + this.figures.length) % this.figures.length);
  }

  fill({ url, code, title, client, time }) {
    const d = this.dialog;
    const nav = this.index >= 0 && this.figures.length > 1;
    clear(d).append(
      h(
        'div',
        { class: 'viewer' },
        h(
          'header',
          { class: 'viewer-head' },
          h('h2', { id: 'viewer-title' }, title),
          h('span', { class: 'muted' }, [client, time ? when(time) : null].filter(Boolean).join(' · ')),
          h(
            'div',
            { class: 'viewer-actions' },
            // The gallery runs newest first, left to right, so "older" is to the right.
            nav ? h('button', { class: 'button', onclick: () => this.step(-1), 'aria-label': 'Newer figure', 'aria-keyshortcuts': 'ArrowLeft' }, '← Newer') : null,
            nav ? h('button', { class: 'button', onclick: () => this.step(1), 'aria-label': 'Older figure', 'aria-keyshortcuts': 'ArrowRight' }, 'Older →') : null,
            h('a', { class: 'button', href: url, target: '_blank', rel: 'noopener' }, 'Open image'),
            h('button', { class: 'button', onclick: () => d.close(), 'aria-keyshortcuts': 'Escape' }, 'Close'),
          ),
        ),
        h(
          'div',
          { class: 'viewer-body' },
          h('div', { class: 'viewer-image' }, h('img', { src: url, alt: title })),
          h(
            'section',
            { class: 'viewer-code', 'aria-label': 'The code that drew it' },
            h('h3', {}, 'Code'),
            code ? h('pre', { class: 'code' }, highlight(code)) : h('p', { class: 'muted' }, 'No run in the log drew this file (it was saved another way).'),
          ),
        ),
      ),
    );
    d.setAttribute('aria-labelledby', 'viewer-title');
    if (!d.open) d.showModal();
  }
}

function label(f) {
  return f.executionCount !== null ? `Figure from In [${f.executionCount}]` : `Figure ${f.name}`;
}
