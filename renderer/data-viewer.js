// The data viewer: a DataFrame, Series, array, list or dict from the session as a grid that
// fetches only the rows in view (a block at a time, as you scroll), sorts when a column header
// is clicked, filters on text, summarises each column and copies what is in view as CSV.
// Column names and cells are data from the kernel: they only ever become text nodes.
import { post, sessionPath } from './api.js';
import { h, clear } from './dom.js';
import { plural } from './format.js';
import { toast } from './ui.js';

const ROW_PX = 28;
const BLOCK = 100;
const COLUMN_PAGE = 50;
/** Blocks kept in the page; the oldest go first. */
const KEEP_BLOCKS = 24;
/** Browsers stop scrolling a box somewhere past 16 million pixels; a long frame is mapped onto this. */
const MAX_SCROLL_PX = 8_000_000;

let current = null;

/** Opens `expression` of session `session` in the viewer dialog. */
export function openDataViewer(session, expression, info = null) {
  current?.close();
  current = new DataViewer(document.getElementById('dialog-data'), session, expression, info);
  return current;
}

/** A run ended in `session`: an open viewer on it reads its rows again (the value may have changed). */
export function dataChanged(session) {
  if (current?.session === session && current.dialog.open) current.refresh();
}

class DataViewer {
  constructor(dialog, session, expression, info) {
    Object.assign(this, { dialog, session, expression, info });
    this.blocks = new Map();
    this.loading = new Map();
    this.sort = null;
    this.filterText = '';
    this.filterColumn = null;
    this.columnStart = 0;
    this.meta = null;
    this.generation = 0;
    this.first = 0;
    this.visible = 0;
    this.viewPx = undefined; // the scroll box's height at the last layout
    this.rangePx = 0; // its scroll range then
    this.mode = 'rows';
    this.build();
    dialog.addEventListener('close', () => this.closed(), { once: true });
    dialog.showModal();
    void this.reset();
  }

  build() {
    this.title = h('h2', { id: 'data-title', class: 'data-title' }, this.expression);
    this.shape = h('span', { class: 'data-shape muted' }, this.info?.type ?? '');
    this.filterInput = h('input', { type: 'search', class: 'data-filter', placeholder: 'Filter rows (text in any column)', 'aria-label': 'Filter rows', autocomplete: 'off', spellcheck: 'false' });
    let debounce = null;
    this.filterInput.addEventListener('input', () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => this.setFilter(this.filterInput.value, this.filterColumn), 300);
    });
    this.filterInput.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.filterInput.value) {
        event.preventDefault();
        this.filterInput.value = '';
        this.setFilter('', this.filterColumn);
      }
    });
    this.columnSelect = h('select', { class: 'data-filter-column', 'aria-label': 'Filter in column', hidden: true, onchange: () => this.setFilter(this.filterText, this.columnSelect.value === '' ? null : this.columnSelect.value) });
    this.summaryButton = h('button', { class: 'button small', type: 'button', 'aria-pressed': 'false', onclick: () => this.toggleSummary() }, 'Summary');
    this.copyButton = h('button', { class: 'button small', type: 'button', title: 'Copy the rows in view, with the header, as CSV', onclick: () => this.copy() }, 'Copy as CSV');
    this.prevColumns = h('button', { class: 'button small', type: 'button', 'aria-label': 'Previous columns', onclick: () => this.moveColumns(-1) }, '◀');
    this.nextColumns = h('button', { class: 'button small', type: 'button', 'aria-label': 'Next columns', onclick: () => this.moveColumns(1) }, '▶');
    this.columnsLabel = h('span', { class: 'data-columns-label muted' });
    this.columnPager = h('div', { class: 'data-column-pager', role: 'group', 'aria-label': 'Columns shown', hidden: true }, this.prevColumns, this.columnsLabel, this.nextColumns);
    this.table = h('table', { class: 'data-table' });
    this.window = h('div', { class: 'data-window' }, this.table);
    this.spacer = h('div', { class: 'data-spacer' });
    this.scroller = h('div', { class: 'data-scroll', tabindex: '0', 'aria-label': `Rows of ${this.expression}` }, this.window, this.spacer);
    this.summary = h('div', { class: 'data-summary', hidden: true });
    this.status = h('p', { class: 'data-status muted', role: 'status' });
    this.problem = h('div', { class: 'data-problem', role: 'alert', hidden: true });
    let frame = 0;
    this.scroller.addEventListener('scroll', () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => this.renderRows());
    });
    this.resize = new ResizeObserver(() => this.layout());
    this.resize.observe(this.scroller);
    clear(this.dialog).append(
      h(
        'div',
        { class: 'data-viewer' },
        h(
          'header',
          { class: 'viewer-head data-head' },
          h('div', { class: 'data-heading' }, this.title, this.shape),
          h('div', { class: 'viewer-actions' }, h('button', { class: 'button', type: 'button', onclick: () => this.dialog.close() }, 'Close')),
        ),
        h('div', { class: 'toolbar data-toolbar' }, this.filterInput, this.columnSelect, this.columnPager, h('div', { class: 'data-tools' }, this.summaryButton, this.copyButton)),
        this.problem,
        this.scroller,
        this.summary,
        this.status,
      ),
    );
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }

  refresh() {
    this.meta = null;
    void this.reset({ keepScroll: true });
  }

  closed() {
    this.generation++;
    this.resize.disconnect();
    if (current === this) current = null;
  }

  request() {
    return {
      expression: this.expression,
      sort: this.sort ? [this.sort] : [],
      filter: this.filterText ? { text: this.filterText, column: this.filterColumn } : null,
      columns: { start: this.columnStart, count: COLUMN_PAGE },
    };
  }

  /** Forgets every row fetched and starts again from the top (a new sort, filter or column page). */
  async reset({ keepScroll = false } = {}) {
    this.generation++;
    this.blocks.clear();
    this.loading.clear();
    if (!keepScroll) {
      this.scroller.scrollTop = 0;
      this.first = 0;
      this.tbody?.replaceChildren(); // rows of the old order, filter or columns
    }
    await this.fetchBlock(Math.floor(this.first / BLOCK));
    if (this.mode === 'summary') void this.loadSummary();
  }

  fetchBlock(index) {
    if (this.blocks.has(index)) return Promise.resolve(this.blocks.get(index));
    if (this.loading.has(index)) return this.loading.get(index);
    const generation = this.generation;
    const promise = (async () => {
      try {
        const page = await post(sessionPath(this.session, '/data'), { ...this.request(), offset: index * BLOCK, limit: BLOCK });
        if (generation !== this.generation) return null;
        this.problem.hidden = true;
        this.blocks.set(index, page);
        while (this.blocks.size > KEEP_BLOCKS) this.blocks.delete(this.blocks.keys().next().value);
        const first = this.meta === null;
        this.meta = page;
        if (first) this.renderFrame();
        else this.renderChrome();
        this.layout();
        return page;
      } catch (error) {
        if (generation !== this.generation) return null;
        this.showProblem(error.message);
        return null;
      } finally {
        if (generation === this.generation) this.loading.delete(index);
      }
    })();
    this.loading.set(index, promise);
    return promise;
  }

  showProblem(message) {
    this.problem.hidden = false;
    clear(this.problem).append(h('p', {}, message), h('button', { class: 'button small', type: 'button', onclick: () => void this.reset({ keepScroll: true }) }, 'Try again'));
  }

  get totalRows() {
    return this.meta?.filtered_rows ?? this.meta?.total_rows ?? 0;
  }

  /** The header, the column pager and the filter's column list: once per frame of columns. */
  renderFrame() {
    this.renderChrome();
    const m = this.meta;
    const current = this.filterColumn;
    clear(this.columnSelect).append(
      h('option', { value: '' }, 'All columns'),
      ...(m.columns ?? []).map((c) => h('option', { value: String(c.name), selected: String(c.name) === current }, String(c.name))),
    );
    this.columnSelect.hidden = (m.columns ?? []).length < 2;
  }

  renderChrome() {
    const m = this.meta;
    if (!m) return;
    const shape = Array.isArray(m.shape) ? m.shape.map((n) => Number(n).toLocaleString()).join(' × ') : '';
    this.shape.textContent = [m.kind, shape].filter(Boolean).join(' · ');
    const totalColumns = m.total_columns ?? (m.columns ?? []).length;
    this.columnPager.hidden = totalColumns <= COLUMN_PAGE;
    const shown = (m.columns ?? []).length;
    this.columnsLabel.textContent = `Columns ${(this.columnStart + 1).toLocaleString()}–${(this.columnStart + shown).toLocaleString()} of ${totalColumns.toLocaleString()}`;
    this.prevColumns.disabled = this.columnStart === 0;
    this.nextColumns.disabled = this.columnStart + shown >= totalColumns;
    const head = h(
      'tr',
      {},
      ...(m.index_names ?? []).map((n, i) => h('th', { scope: 'col', class: 'data-index-head' }, n === null || n === undefined || n === '' ? (i === 0 ? '' : '') : String(n))),
      ...(m.columns ?? []).map((c) => {
        const sorted = this.sort && String(this.sort.column) === String(c.name) ? (this.sort.ascending ? 'ascending' : 'descending') : false;
        return h(
          'th',
          { scope: 'col', 'aria-sort': sorted, title: `${c.name} (${c.dtype ?? ''})` },
          h(
            'button',
            { class: 'sort-button data-sort', type: 'button', onclick: () => this.sortBy(c.name) },
            h('span', { class: 'data-col-name' }, String(c.name)),
            h('span', { class: 'data-col-dtype' }, c.dtype ?? ''),
            h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : ''),
          ),
        );
      }),
    );
    const thead = h('thead', {}, head);
    // The rows stay until the next ones are drawn: an empty body for a moment would shorten the
    // scroll range, and the browser would pull the scroll place back from the end.
    if (this.thead?.parentNode === this.table) this.thead.replaceWith(thead);
    else {
      this.tbody = h('tbody', {});
      clear(this.table).append(thead, this.tbody);
    }
    this.thead = thead;
  }

  /** Sizes the scroll range for the frame's rows and draws the ones in view. */
  layout() {
    if (!this.meta || this.mode !== 'rows') return;
    const view = this.scroller.clientHeight;
    const headPx = this.thead?.offsetHeight || ROW_PX;
    const wasAtEnd = this.visible > 0 && this.first > 0 && this.first >= this.totalRows - this.visible;
    const resized = this.viewPx !== undefined && this.viewPx !== view;
    this.viewPx = view;
    this.visible = Math.max(1, Math.ceil((view - headPx) / ROW_PX));
    const want = Math.min(this.totalRows * ROW_PX + headPx, MAX_SCROLL_PX);
    // The box's content is the window (the box's height) and the spacer: the range is the spacer.
    this.rangePx = Math.max(0, want - view);
    this.window.style.height = `${view}px`;
    this.spacer.style.height = `${this.rangePx}px`;
    // A new height changes the scroll range under a scroll place that maps rows by proportion:
    // keep the first row in view (or the end) where it was, not the pixel offset.
    if (resized) this.scrollToRow(wasAtEnd ? Infinity : this.first);
    this.renderRows();
  }

  /**
   * The scroll place's span in pixels and in first rows, the two ends of the proportional map, as
   * the last layout set them: between a resize and its layout the box's live range is already
   * new while the spacer is not, and rows drawn then (a block arriving) would move the place.
   */
  scrollSpan() {
    return { range: this.rangePx, maxFirst: Math.max(0, this.totalRows - this.visible) };
  }

  /** Puts row `row` (Infinity: the end) at the top of the view. */
  scrollToRow(row) {
    const { range, maxFirst } = this.scrollSpan();
    if (range <= 0 || maxFirst === 0) return;
    this.scroller.scrollTop = row >= maxFirst ? range : Math.round((row / maxFirst) * range);
  }

  /** The row the scroll place points at: scrollToRow's inverse. */
  firstRow() {
    const { range, maxFirst } = this.scrollSpan();
    if (range <= 0) return 0;
    // Scrolled to the bottom is the end, whatever the box's height did since the last layout.
    const live = this.scroller.scrollHeight - this.scroller.clientHeight;
    if (live > 0 && this.scroller.scrollTop >= live - 1) return maxFirst;
    return Math.min(maxFirst, Math.round((this.scroller.scrollTop / range) * maxFirst));
  }

  renderRows() {
    if (!this.meta || !this.tbody) return;
    const first = this.firstRow();
    this.first = first;
    const last = Math.min(this.totalRows, first + this.visible);
    const rows = [];
    const missing = new Set();
    const width = (this.meta.index_names ?? []).length + (this.meta.columns ?? []).length;
    const numeric = (this.meta.columns ?? []).map((c) => /^(u?int|float|complex|Int|UInt|Float)/.test(c.dtype ?? ''));
    for (let r = first; r < last; r++) {
      const block = this.blocks.get(Math.floor(r / BLOCK));
      if (!block) {
        missing.add(Math.floor(r / BLOCK));
        rows.push(h('tr', { class: 'data-pending' }, h('td', { colspan: String(width) }, '…')));
        continue;
      }
      const i = r - block.offset;
      const cells = block.rows[i] ?? [];
      const index = block.index?.[i] ?? [];
      const marks = missingMarks(block);
      rows.push(
        h(
          'tr',
          { dataset: { row: String(r) } },
          ...index.map((v) => h('th', { scope: 'row', class: 'data-index' }, v === null ? '' : String(v))),
          ...cells.map((v, j) => (v === null ? h('td', { class: 'data-missing' }, marks.get(`${i},${j}`) ?? 'null') : h('td', { class: numeric[j] ? 'num' : null, title: String(v).length > 40 ? String(v) : null }, String(v)))),
        ),
      );
    }
    this.tbody.replaceChildren(...rows);
    for (const index of missing) void this.fetchBlock(index).then((page) => page && this.renderRows());
    const total = this.meta.total_rows ?? 0;
    const filtered = this.filterText ? ` (filtered from ${total.toLocaleString()})` : '';
    this.status.textContent =
      this.totalRows === 0
        ? this.filterText
          ? `No row has “${this.filterText}”${filtered}.`
          : 'No rows.'
        : `Rows ${(first + 1).toLocaleString()}–${last.toLocaleString()} of ${plural(this.totalRows, 'row')}${filtered}`;
  }

  sortBy(column) {
    const same = this.sort && String(this.sort.column) === String(column);
    this.sort = !same ? { column, ascending: true } : this.sort.ascending ? { column, ascending: false } : null;
    this.renderChrome();
    void this.reset();
  }

  setFilter(text, column) {
    if (text === this.filterText && column === this.filterColumn) return;
    this.filterText = text;
    this.filterColumn = column;
    void this.reset();
  }

  moveColumns(direction) {
    const total = this.meta?.total_columns ?? 0;
    const next = Math.max(0, Math.min(total - 1, this.columnStart + direction * COLUMN_PAGE));
    if (next === this.columnStart) return;
    this.columnStart = next;
    this.meta = null;
    void this.reset({ keepScroll: true });
  }

  toggleSummary() {
    this.mode = this.mode === 'rows' ? 'summary' : 'rows';
    const summary = this.mode === 'summary';
    this.summaryButton.setAttribute('aria-pressed', String(summary));
    this.summaryButton.textContent = summary ? 'Rows' : 'Summary';
    this.scroller.hidden = summary;
    this.summary.hidden = !summary;
    this.copyButton.disabled = summary;
    this.filterInput.disabled = summary;
    this.columnSelect.disabled = summary;
    if (summary) {
      this.status.textContent = `Each column over all ${plural(this.meta?.total_rows ?? 0, 'row')}; the filter and sort do not apply here.`;
      void this.loadSummary();
    } else this.layout();
  }

  async loadSummary() {
    const generation = this.generation;
    clear(this.summary).append(h('p', { class: 'log-empty' }, 'Summarising…'));
    const columns = (this.meta?.columns ?? []).map((c) => c.name);
    try {
      const result = await post(sessionPath(this.session, '/data/summary'), { expression: this.expression, columns: columns.length ? columns : null });
      if (generation !== this.generation) return;
      const head = ['Column', 'Dtype', 'Missing', 'Min', 'Max', 'Mean', 'Distinct', ''];
      const text = (v) => (v === null || v === undefined ? '' : typeof v === 'number' ? v.toLocaleString(undefined, { maximumFractionDigits: 6 }) : String(v));
      clear(this.summary).append(
        h(
          'table',
          { class: 'table data-summary-table' },
          h('caption', { class: 'visually-hidden' }, `Summary of each column of ${this.expression}`),
          h('thead', {}, h('tr', {}, head.map((label) => h('th', { scope: 'col', class: ['Missing', 'Mean', 'Distinct'].includes(label) ? 'num' : null }, label)))),
          h(
            'tbody',
            {},
            (result.columns ?? []).map((c) =>
              h('tr', {}, h('th', { scope: 'row' }, String(c.name)), h('td', {}, c.dtype ?? ''), h('td', { class: 'num' }, text(c.missing)), h('td', {}, text(c.min)), h('td', {}, text(c.max)), h('td', { class: 'num' }, text(c.mean)), h('td', { class: 'num' }, text(c.distinct)), h('td', { class: 'error-text' }, c.error ?? '')),
            ),
          ),
        ),
      );
    } catch (error) {
      if (generation !== this.generation) return;
      clear(this.summary).append(h('p', { class: 'log-empty error-text' }, error.message), h('button', { class: 'button small', type: 'button', onclick: () => this.loadSummary() }, 'Try again'));
    }
  }

  /** The rows in view, with the header, as CSV. */
  csv() {
    const m = this.meta;
    if (!m) return { text: '', rows: 0 };
    const lines = [[...(m.index_names ?? []).map((n) => (n === null ? '' : String(n))), ...(m.columns ?? []).map((c) => String(c.name))]];
    const last = Math.min(this.totalRows, this.first + this.visible);
    for (let r = this.first; r < last; r++) {
      const block = this.blocks.get(Math.floor(r / BLOCK));
      if (!block) continue;
      const i = r - block.offset;
      lines.push([...(block.index?.[i] ?? []), ...(block.rows[i] ?? [])].map((v) => (v === null ? '' : String(v))));
    }
    return { text: lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n', rows: lines.length - 1 };
  }

  async copy() {
    const { text, rows } = this.csv();
    try {
      await navigator.clipboard.writeText(text);
      toast(`Copied ${plural(rows, 'row')} as CSV.`);
    } catch (error) {
      toast(`Could not copy: ${error.message}`, 'error');
    }
  }
}

/** "row,column" → NaN / NaT / None / NA for the missing cells of a page, kept with the page. */
function missingMarks(block) {
  if (!block.marksByCell) block.marksByCell = new Map((block.missing ?? []).map(([r, c, kind]) => [`${r},${c}`, kind]));
  return block.marksByCell;
}

function csvCell(value) {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
