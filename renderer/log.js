// The session log: every run as it happens — who sent it, the code, what it printed, errors in
// red, how long it took. Newest at the bottom, following live while you are at the bottom;
// older runs load in pages as you scroll up; long code and outputs are folded.
import { get, sessionPath } from './api.js';
import { h, clear } from './dom.js';
import { clientLabel, duration, plural, when } from './format.js';
import { highlight } from './highlight.js';
import { store } from './store.js';
import { dismiss, showQuestion } from './question.js';
import { interrupt, timer } from './sessions.js';
import { collapsible, toast } from './ui.js';

const PAGE = 50;
/** How long a run that ended waits for its log entry to take its place before it goes anyway. */
const ENDING_MS = 10_000;
/** The live output box follows new text while its bottom is within this many pixels. */
const STICK_PX = 24;
const STATUS_LABEL = { error: 'error', aborted: 'aborted', died: 'kernel died', timeout: 'timed out' };

export class LogView {
  constructor({ log, search, count, exportLinks, newRuns, announce, openFigure }) {
    Object.assign(this, { log, search, count, exportLinks, newRuns, announce, openFigure });
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
    this.exportLinks.group.hidden = !name;
    if (!name) {
      this.generation++;
      this.loaded = false;
      this.count.textContent = '';
      clear(this.feed).append(h('p', { class: 'log-empty' }, 'Runs appear here as soon as a client starts a session.'));
      return;
    }
    this.exportLinks.notebook.href = sessionPath(name, '/notebook');
    this.exportLinks.script.href = sessionPath(name, '/script');
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
    for (const pre of this.feed.querySelectorAll('.live-text[data-follow="true"]')) pre.scrollTop = pre.scrollHeight;
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
    // The run that just ended is still on screen with what it printed so far: the finished
    // entry takes its place, so the log does not jump.
    // A tool entry ends no run: it goes before a run in progress (one that started after the
    // tool) instead of taking its place.
    const running = this.feed.querySelector('.entry-running.entry-ending') ?? this.feed.querySelector('.entry-running');
    const ended = entry.tool ? null : running;
    const matches = !this.query || this.matches(entry);
    const status = STATUS_LABEL[entry.status];
    if (entry.clears) this.announce(`${entry.tool} from ${entry.client}: the namespace was emptied.`);
    else if (entry.tool) this.announce(`${entry.tool} from ${entry.client} ran; its code is in the log.`);
    else this.announce(`Run ${entry.executionCount ?? ''} from ${entry.client} finished${status ? `: ${status}` : ''}${entry.error ? `, ${entry.error.ename}` : ''}.`);
    if (!matches || this.entries.has(entry.id)) {
      ended?.remove();
      this.showRunning();
      return;
    }
    const follow = this.follow;
    if (this.entries.size === 0) this.feed.querySelector('.log-top')?.replaceWith(h('p', { class: 'log-top log-start' }, 'Start of the session log.'));
    const rendered = this.renderEntry(entry);
    if (ended) ended.replaceWith(rendered);
    else if (entry.tool && running) running.before(rendered);
    else this.feed.append(rendered);
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
    const current = this.feed.querySelector('.entry-running:not(.entry-ending)');
    if (!s?.running) {
      // The session is idle again and the run's log entry is on its way: keep what it printed
      // in view until the entry replaces it. A session that went away takes its run with it.
      if (current && s) this.ending(current);
      else current?.remove();
      return;
    }
    if (current && Number(current.dataset.since) === s.running.since) {
      if (current !== this.feed.lastElementChild) this.feed.append(current); // a page arrived after it
      this.showOutput(current, s.running.output);
      showQuestion(current, this.session, s.question ?? null);
      return;
    }
    current?.remove();
    const article = this.feed.appendChild(
      h(
        'article',
        { class: 'entry entry-running', dataset: { since: String(s.running.since) }, 'aria-label': 'Running now' },
        h(
          'header',
          { class: 'entry-head' },
          h('span', { class: 'entry-count' }, 'In [*]'),
          h('span', { class: 'entry-client' }, s.running.client ? clientLabel(s.running.client) : 'a client'),
          h('span', { class: 'badge state-busy' }, h('span', { class: 'dot', 'aria-hidden': 'true' }), 'running'),
          timer(s.running.since, 'timer entry-duration'),
          h('button', { class: 'button small', onclick: () => interrupt(this.session), title: 'Stop this run (i)' }, 'Interrupt'),
        ),
        this.codeBlock(s.running.code),
      ),
    );
    this.showOutput(article, s.running.output);
    showQuestion(article, this.session, s.question ?? null);
  }

  /** A run entry whose run has ended: frozen, and gone if its log entry does not come. */
  ending(article) {
    article.classList.add('entry-ending');
    article.setAttribute('aria-label', 'Finishing');
    article.querySelector('.entry-head .timer')?.classList.remove('timer'); // the page's tick stops it
    article.querySelector('.entry-head button')?.remove();
    const question = article.querySelector('.question');
    if (question) dismiss(question);
    setTimeout(() => article.remove(), ENDING_MS);
  }

  /**
   * What the running cell has printed so far (the daemon sends the latest part of it, a few times
   * a second): new text is appended, text the daemon no longer sends is dropped from the front,
   * and the box stays scrolled to the newest line unless the person scrolled up in it. Output is
   * untrusted: it only ever becomes text nodes.
   */
  showOutput(article, output) {
    let box = article.querySelector('.live-output');
    if (!output || (output.total === 0 && output.rich === 0)) {
      box?.remove();
      return;
    }
    if (!box) {
      box = h(
        'div',
        { class: 'outputs live-output' },
        h('p', { class: 'out omitted live-cut', hidden: true }),
        h('pre', { class: 'live-text', dataset: { start: '0', end: '0', follow: 'true' } }),
        h('p', { class: 'out omitted live-rich', hidden: true }),
      );
      const text = box.querySelector('.live-text');
      // Follows new text until the person scrolls up in it, and again once they are back at the
      // bottom. Decided on scrolling, not on each update: a hidden box (the Figures tab) has no
      // height to measure.
      text.addEventListener('scroll', () => {
        if (text.clientHeight) text.dataset.follow = String(text.scrollHeight - text.scrollTop - text.clientHeight < STICK_PX);
      });
      // Output goes above a question the code asks, as a terminal shows it.
      const question = article.querySelector('.question');
      if (question) question.before(box);
      else article.append(box);
    }
    const pre = box.querySelector('.live-text');
    const start = Number(pre.dataset.start);
    const end = Number(pre.dataset.end);
    if (output.cut <= end && output.total >= end && output.cut >= start) {
      // What is shown continues into what was sent: add the new part, drop what fell off the front.
      trimFront(pre, output.cut - start);
      let at = output.cut;
      for (const chunk of output.chunks) {
        const from = Math.max(0, end - at);
        if (from < chunk.text.length) appendText(pre, chunk.name, chunk.text.slice(from));
        at += chunk.text.length;
      }
    } else {
      pre.replaceChildren(...output.chunks.map((c) => h('span', { class: `out ${c.name}` }, c.text)));
    }
    pre.dataset.start = String(output.cut);
    pre.dataset.end = String(output.total);
    pre.hidden = output.total === 0;
    const cut = box.querySelector('.live-cut');
    cut.hidden = output.cut === 0;
    cut.textContent = output.cut ? `${plural(output.cut, 'earlier character')} not shown while it runs; the finished run keeps all of its output.` : '';
    const rich = box.querySelector('.live-rich');
    rich.hidden = output.rich === 0;
    rich.textContent = output.rich ? `${plural(output.rich, 'figure or displayed value', 'figures or displayed values')} so far, shown when the run ends.` : '';
    if (pre.dataset.follow === 'true') pre.scrollTop = pre.scrollHeight;
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
    // A tool entry's code is the plain pandas/statsmodels/matplotlib equivalent of what the tool did.
    const label = entry.clears
      ? `${entry.tool} from ${entry.client}: the namespace was emptied here`
      : entry.tool
      ? `${entry.tool} from ${entry.client}, as the code that does the same, ${duration(entry.durationMs)}`
      : `Run ${entry.executionCount ?? ''} from ${entry.client}, ${status ?? 'ok'}, ${duration(entry.durationMs)}`;
    return h(
      'article',
      { class: `entry status-${entry.status}${entry.tool ? ' entry-tool' : ''}`, dataset: { id: String(entry.id), ...(entry.tool ? { tool: entry.tool } : {}) }, 'aria-label': label },
      h(
        'header',
        { class: 'entry-head' },
        entry.tool
          ? h('span', { class: 'entry-tool-name', title: entry.clears ? 'Every variable and import was gone from here on; an exported notebook clears them at this point' : 'A tool ran; below is the plain Python that does the same' }, entry.tool)
          : h('span', { class: 'entry-count' }, entry.executionCount !== null ? `In [${entry.executionCount}]` : 'In [ ]'),
        h('span', { class: 'entry-client', title: 'The client that sent this code' }, clientLabel(entry.client)),
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

/** Adds text from one stream at the end, joined to the last piece when it is the same stream. */
function appendText(pre, name, text) {
  const last = pre.lastElementChild;
  if (last?.classList.contains(name)) last.append(text);
  else pre.append(h('span', { class: `out ${name}` }, text));
}

/** Drops the first n characters of the shown output. */
function trimFront(pre, n) {
  while (n > 0 && pre.firstChild) {
    const node = pre.firstChild;
    const length = node.textContent.length;
    if (length <= n) {
      node.remove();
      n -= length;
    } else {
      node.textContent = node.textContent.slice(n);
      n = 0;
    }
  }
}
