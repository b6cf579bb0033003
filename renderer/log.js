// The session log: every run as it happens — who sent it, the code, what it printed, errors in
// red, how long it took. Newest at the bottom, following live while you are at the bottom;
// older runs load in pages as you scroll up; long code and outputs are folded.
import { get, sessionPath } from './api.js';
import { h, clear } from './dom.js';
import { duration, plural, when } from './format.js';
import { highlight } from './highlight.js';
import { store } from './store.js';
import { interrupt, timer } from './sessions.js';
import { collapsible, toast } from './ui.js';

const PAGE = 50;
const STATUS_LABEL = { error: 'error', aborted: 'aborted', died: 'kernel died', timeout: 'timed out' };

export class LogView {
  constructor({ log, search, count, exportLink, newRuns, announce, openFigure }) {
    Object.assign(this, { log, search, count, exportLink, newRuns, announce, openFigure });
    this.session = null;
    this.query = '';
    this.oldest = null;
    this.hasMore = false;
    this.total = 0;
    this.loading = false;
    this.generation = 0;
    this.unseen = 0;
    this.entries = new Map();
    this.held = null;
    this.loaded = false;
    // Entries live in a feed inside the scrolling box, so its growth can be observed: while the
    // view follows the log, any growth (a new run, an image that finished loading, a folded
    // entry laid out at its real height) keeps the newest run in view.
    this.feed = h('div', { class: 'log-feed' });
    log.append(this.feed);
    this.follow = true;
    new ResizeObserver(() => {
      if (this.follow) this.log.scrollTop = this.log.scrollHeight;
    }).observe(this.feed);

    let debounce = null;
    search.addEventListener('input', () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => this.setQuery(search.value), 220);
    });
    // Escape leaves the search: cleared, and the keyboard back on the log, where the single-key
    // shortcuts work again.
    search.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      if (search.value) {
        search.value = '';
        void this.setQuery('');
      }
      log.focus();
    });
    // Following stops only when the person scrolls away. The log also scrolls by itself — an
    // entry laid out at its real height, an image arriving, the panel hidden and shown — and
    // those scroll events must not count as leaving the bottom.
    let lastInput = 0;
    const input = () => (lastInput = Date.now());
    const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);
    log.addEventListener('wheel', input, { passive: true });
    log.addEventListener('touchmove', input, { passive: true });
    log.addEventListener('pointerdown', (event) => event.target === log && input()); // the scrollbar
    log.addEventListener('keydown', (event) => SCROLL_KEYS.has(event.key) && input());
    log.addEventListener('scroll', () => {
      if (!log.clientHeight) return; // hidden
      if (this.atBottom()) {
        this.follow = true;
        this.clearUnseen();
      } else if (Date.now() - lastInput < 1000) {
        this.follow = false;
      }
    });
    newRuns.addEventListener('click', () => {
      this.scrollToBottom();
      this.clearUnseen();
      log.focus();
    });
    this.observer = new IntersectionObserver((items) => {
      if (items.some((i) => i.isIntersecting)) void this.loadEarlier();
    }, { root: log, rootMargin: '400px 0px 0px 0px' });
  }

  /** Shows a session's log from its newest run (null: there is no session to show). */
  async show(name) {
    if (this.session === name && this.loaded) return;
    this.session = name;
    this.exportLink.hidden = !name;
    if (!name) {
      this.generation++;
      this.loaded = false;
      this.count.textContent = '';
      clear(this.feed).append(h('p', { class: 'log-empty' }, 'Runs appear here as soon as a client starts a session.'));
      return;
    }
    this.exportLink.href = sessionPath(name, '/notebook');
    await this.reload();
  }

  async setQuery(query) {
    if (query.trim() === this.query) return;
    this.query = query.trim();
    await this.reload();
  }

  async reload() {
    const generation = ++this.generation;
    // Runs that finish while the page is on its way are held back and added after it, so a run
    // is never shown twice (in the page and from the event) nor lost between the two.
    this.held = [];
    this.log.setAttribute('aria-busy', 'true');
    try {
      const page = await this.fetchPage();
      if (generation !== this.generation) return;
      this.entries.clear();
      this.oldest = page.entries[0]?.id ?? null;
      this.total = page.total;
      this.hasMore = page.hasMore;
      clear(this.feed);
      const late = this.held.filter((e) => !page.entries.some((p) => p.id === e.id) && (!this.query || this.matches(e)));
      this.held = null;
      const rendered = [...page.entries, ...late].map((e) => this.renderEntry(e));
      this.total += late.length;
      this.feed.append(this.topMarker(), ...rendered);
      this.clearUnseen();
      this.showRunning();
      this.updateCount();
      this.scrollToBottom();
      this.loaded = true;
    } catch (error) {
      if (generation !== this.generation) return;
      this.held = null;
      this.loaded = false;
      // A session being started has no folder yet: that is an empty log, not a failure.
      clear(this.feed).append(
        error.status === 404
          ? h('p', { class: 'log-top log-empty' }, 'No runs yet. Code that a client runs in this session appears here as it runs.')
          : h('p', { class: 'log-empty error-text' }, `Could not read the log: ${error.message}`),
      );
    } finally {
      if (generation === this.generation) this.log.removeAttribute('aria-busy');
    }
  }

  fetchPage(before) {
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (before !== undefined && before !== null) params.set('before', String(before));
    if (this.query) params.set('q', this.query);
    return get(sessionPath(this.session, `/log?${params}`));
  }

  async loadEarlier() {
    if (this.loading || !this.hasMore || this.oldest === null) return;
    this.loading = true;
    const generation = this.generation;
    try {
      const page = await this.fetchPage(this.oldest);
      if (generation !== this.generation) return;
      // Keep what is on screen where it is while older runs appear above it.
      const fromBottom = this.log.scrollHeight - this.log.scrollTop;
      this.hasMore = page.hasMore;
      this.oldest = page.entries[0]?.id ?? this.oldest;
      const marker = this.feed.querySelector('.log-top');
      marker.after(...page.entries.map((e) => this.renderEntry(e)));
      marker.replaceWith(this.topMarker());
      this.log.scrollTop = this.log.scrollHeight - fromBottom;
    } catch (error) {
      toast(`Could not load earlier runs: ${error.message}`, 'error');
    } finally {
      this.loading = false;
    }
  }

  topMarker() {
    this.observer.disconnect();
    let marker;
    if (this.hasMore) {
      const earlier = this.total - this.entries.size;
      marker = h('div', { class: 'log-top' }, h('button', { class: 'link-button', onclick: () => this.loadEarlier() }, `Load earlier runs (${earlier.toLocaleString()} more)`));
      this.observer.observe(marker);
    } else if (this.entries.size === 0) {
      marker = h(
        'p',
        { class: 'log-top log-empty' },
        this.query ? `No run matches “${this.query}”.` : 'No runs yet. Code that a client runs in this session appears here as it runs.',
      );
    } else {
      marker = h('p', { class: 'log-top log-start' }, this.query ? 'No earlier matches.' : 'Start of the session log.');
    }
    return marker;
  }

  updateCount() {
    this.count.textContent = this.query ? `${plural(this.total, 'matching run')}` : plural(this.total, 'run');
  }

  /** The log is visible again (tab or view switched back): keep following if it was. */
  onShown() {
    if (this.follow) this.log.scrollTop = this.log.scrollHeight;
  }

  atBottom() {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 48;
  }

  scrollToBottom() {
    this.follow = true;
    this.log.scrollTop = this.log.scrollHeight;
  }

  clearUnseen() {
    this.unseen = 0;
    this.newRuns.hidden = true;
  }

  /** A run finished (in any session). */
  onLogged({ session, entry }) {
    if (session !== this.session) return;
    if (this.held) {
      this.held.push(entry);
      return;
    }
    this.feed.querySelector('.entry-running')?.remove();
    const matches = !this.query || this.matches(entry);
    const status = STATUS_LABEL[entry.status];
    this.announce(`Run ${entry.executionCount ?? ''} from ${entry.client} finished${status ? `: ${status}` : ''}${entry.error ? `, ${entry.error.ename}` : ''}.`);
    if (!matches || this.entries.has(entry.id)) return;
    const follow = this.follow;
    if (this.entries.size === 0) this.feed.querySelector('.log-top')?.replaceWith(h('p', { class: 'log-top log-start' }, 'Start of the session log.'));
    this.feed.append(this.renderEntry(entry));
    this.total++;
    this.updateCount();
    this.showRunning();
    if (follow) this.scrollToBottom();
    else {
      this.unseen++;
      this.newRuns.textContent = `↓ ${plural(this.unseen, 'new run')}`;
      this.newRuns.hidden = false;
    }
  }

  /** The session's state changed: show or drop the run in progress. */
  onSession(name) {
    if (name === this.session) this.showRunning();
  }

  showRunning() {
    const s = store.sessions.get(this.session);
    const current = this.feed.querySelector('.entry-running');
    if (!s?.running) {
      current?.remove();
      return;
    }
    if (current && Number(current.dataset.since) === s.running.since) {
      if (current !== this.feed.lastElementChild) this.feed.append(current); // a page arrived after it
      return;
    }
    current?.remove();
    this.feed.append(
      h(
        'article',
        { class: 'entry entry-running', dataset: { since: String(s.running.since) }, 'aria-label': 'Running now' },
        h(
          'header',
          { class: 'entry-head' },
          h('span', { class: 'entry-count' }, 'In [*]'),
          h('span', { class: 'entry-client' }, s.running.client ?? 'a client'),
          h('span', { class: 'badge state-busy' }, h('span', { class: 'dot', 'aria-hidden': 'true' }), 'running'),
          timer(s.running.since, 'timer entry-duration'),
          h('button', { class: 'button small', onclick: () => interrupt(this.session), title: 'Stop this run (i)' }, 'Interrupt'),
        ),
        this.codeBlock(s.running.code),
      ),
    );
  }

  matches(entry) {
    const q = this.query.toLowerCase();
    const texts = [entry.code, entry.client, ...entry.outputs.map((o) => o.text ?? ''), entry.error?.ename ?? '', entry.error?.evalue ?? ''];
    return texts.some((t) => t.toLowerCase().includes(q));
  }

  codeBlock(code) {
    return h('div', { class: 'entry-code' }, collapsible(h('pre', { class: 'code' }, highlight(code)), code));
  }

  renderEntry(entry) {
    this.entries.set(entry.id, entry);
    const status = STATUS_LABEL[entry.status];
    const label = `Run ${entry.executionCount ?? ''} from ${entry.client}, ${status ?? 'ok'}, ${duration(entry.durationMs)}`;
    return h(
      'article',
      { class: `entry status-${entry.status}`, dataset: { id: String(entry.id) }, 'aria-label': label },
      h(
        'header',
        { class: 'entry-head' },
        h('span', { class: 'entry-count' }, entry.executionCount !== null ? `In [${entry.executionCount}]` : 'In [ ]'),
        h('span', { class: 'entry-client', title: 'The client that sent this code' }, entry.client),
        h('time', { class: 'entry-time', datetime: entry.time, title: new Date(entry.time).toLocaleString() }, when(entry.time)),
        h('span', { class: 'entry-duration', title: 'How long it ran' }, duration(entry.durationMs)),
        status ? h('span', { class: `entry-status status-${entry.status}` }, status) : null,
      ),
      this.codeBlock(entry.code),
      this.renderOutputs(entry),
    );
  }

  renderOutputs(entry) {
    const items = [];
    for (const output of entry.outputs) {
      const node = this.renderOutput(entry, output);
      if (node) items.push(node);
    }
    // A death or an internal failure may come with no error output; the entry's error says it.
    if (entry.error && !entry.outputs.some((o) => o.type === 'error')) items.push(this.renderError(entry));
    if (entry.spill && !entry.outputs.some((o) => o.type === 'omitted')) {
      items.push(h('p', { class: 'out omitted' }, 'The output was long. ', h('a', { href: entry.spill, target: '_blank', rel: 'noopener' }, 'Open the whole output')));
    }
    return items.length ? h('div', { class: 'outputs' }, items) : null;
  }

  renderOutput(entry, output) {
    switch (output.type) {
      case 'stream': {
        const text = output.text ?? '';
        if (!text) return null;
        const cls = output.name === 'stderr' ? 'out stderr' : 'out stdout';
        return collapsible(h('pre', { class: cls }, text), text);
      }
      case 'result':
      case 'display': {
        const parts = [];
        if (output.figures?.length) {
          parts.push(
            h(
              'div',
              { class: 'out-figures' },
              output.figures.map((url, i) =>
                h(
                  'button',
                  { class: 'figure-thumb', 'aria-label': `Open figure ${i + 1} of run ${entry.executionCount ?? ''} full size`, onclick: () => this.openFigure({ url, entry }) },
                  h('img', { src: url, alt: `Figure ${i + 1} from run ${entry.executionCount ?? ''}`, loading: 'lazy', decoding: 'async' }),
                ),
              ),
            ),
          );
        } else if (output.text) {
          parts.push(collapsible(h('pre', { class: `out ${output.type}` }, output.text), output.text));
        }
        return parts.length ? h('div', { class: 'out-display' }, parts) : null;
      }
      case 'error':
        return this.renderError(entry, output);
      case 'omitted':
        return h(
          'p',
          { class: 'out omitted' },
          `${output.text ?? 'Some output was left out'}. `,
          output.file ? h('a', { href: output.file, target: '_blank', rel: 'noopener' }, 'Open the whole output') : null,
        );
      default:
        return null;
    }
  }

  renderError(entry, output) {
    const ename = output?.name ?? entry.error?.ename ?? 'Error';
    const evalue = output?.text ?? entry.error?.evalue ?? '';
    const traceback = (entry.error?.traceback ?? []).join('\n').trim();
    return h(
      'div',
      { class: 'out error', role: 'group', 'aria-label': 'Error' },
      h('p', { class: 'error-line' }, h('strong', {}, ename), evalue ? `: ${evalue}` : ''),
      traceback ? h('details', { class: 'traceback' }, h('summary', {}, 'Traceback'), h('pre', {}, traceback)) : null,
    );
  }
}
