// The WPA-style tree table: key columns left of the gold bar group the rows (outermost first),
// value columns right of it aggregate. Headers drag (pointer events) to reorder and across the
// gold bar to group/ungroup; rows expand lazily, one /table request per expansion.
import * as api from './api.js';
import { h, clear, fmtInt, fmt2, fmt3, copyText, toast } from './dom.js';
import { ApiError } from './api.js';
import { showMenu } from './context-menu.js';
import { splitSpec, findDef, aggregationsOf, aggLabel, specOf, formatValue, isNumericType, canonicalSpec } from './value-columns.js';
import { RowSelection, selectionSums } from './table-select.js';
import { rowsTsv } from './table-copy.js';
import { TableFind } from './table-find.js';
import { fitWidth, contentWidths, fittedWidth, spread } from './column-widths.js';
import { isPath, pathEl } from './path-text.js';
import { percentHeader } from './cpu-share.js';

/** The weight column of each table (its sum is the API's `weight_ms`). */
const WEIGHT_COLUMNS = ['Weight (ms)', 'Duration (ms)', 'Disk Service Time (ms)', 'CPU Usage (ms)'];
/** Summed value columns of the event tables (the API's `values`), sorted by their own name. */
const SUM_COLUMNS = ['Size', 'Waits (ms)', 'Ready (ms)'];
export const VALUE_COLUMNS = ['Count', ...WEIGHT_COLUMNS, ...SUM_COLUMNS, '% Weight', 'First (s)', 'Last (s)'];
/** @type {Record<string, string>} */
const SORT_KEY = { Count: 'count', '% Weight': 'percent', 'First (s)': 'first', 'Last (s)': 'last',
  ...Object.fromEntries(WEIGHT_COLUMNS.map((c) => [c, 'weight'])), ...Object.fromEntries(SUM_COLUMNS.map((c) => [c, c])) };
export const SELF_KEY = 4294967294;
/** Most rows `*` expands in one go, so a deep stack cannot flood the browser. */
const EXPAND_ALL_LIMIT = 400;
/** How many levels a find may fetch looking for a match in rows not loaded yet. */
const FIND_LOAD_LIMIT = 300;
/** ...and at most about this many new rows, so the DOM stays responsive. */
const EXPAND_ALL_ROWS = 4000;
const LIMIT = 500;

/**
 * @typedef {{key: number, label: string, count: number, weight_ms: number, percent: number,
 *   first_s: number, last_s: number, expandable: boolean, values?: Record<string, number>, column: string, depth: number, colDepth: number,
 *   labels: string[], keys: (number|string)[], children: Node[]|null, omitted: number, parent: Node|null,
 *   id?: string, refs: string[], loading?: boolean}} Node
 * `refs` names the row in links: its stable identity (`id`: process pid@start, module
 * name@timestamp:size, function by module+RVA) where the API gives one, else its label.
 */

/** @param {string} c */
const isValue = (c) => VALUE_COLUMNS.includes(c);

/** @param {string} c */
const isStack = (c) => c === 'Stack' || c === 'Stack (Inverted)' || c.endsWith(' Stack');

/** @param {string} c */
function colWidth(c) {
  if (isStack(c)) return 600;
  if (c === 'File Path' || c === 'Path Name') return 420;
  if (c === 'Image Path' || c === 'Command Line') return 340;
  if (c === 'Process' || c === 'Function' || c === 'Image Name' || c === 'Process Name' || c === 'File Version' || c === 'Description' || c === 'Product Name') return 200;
  if (c === 'Count') return 84;
  if (c === '% Weight') return 86;
  if (isValue(c)) return 122;
  return 130;
}

/** A row label as text; frames show their module muted ("module!" + function). @param {string} label */
function labelEl(label) {
  if (label === '') return h('span', { class: 'txt none', text: '(none)' });
  if (isPath(label)) return pathEl(label);
  const i = label.indexOf('!');
  if (i <= 0 || i === label.length - 1) return h('span', { class: 'txt', text: label });
  return h('span', { class: 'txt' }, [h('span', { class: 'mod', text: label.slice(0, i + 1) }), h('span', { class: 'fn', text: label.slice(i + 1) })]);
}

/** @param {Node} n @param {string} c */
function valueText(n, c) {
  switch (c) {
    case 'Count': return fmtInt(n.count);
    case '% Weight': return fmt2(n.percent);
    case 'First (s)': return fmt3(n.first_s);
    case 'Last (s)': return fmt3(n.last_s);
    case 'Size': return n.values && c in n.values ? fmtInt(n.values[c]) : '';
    default:
      if (WEIGHT_COLUMNS.includes(c)) return fmt2(n.weight_ms);
      return n.values && c in n.values ? fmt2(n.values[c]) : '';
  }
}

/**
 * @typedef {{
 *   traceId: string,
 *   table: string,
 *   groups: string[], cols: string[], sort: string, desc: boolean,
 *   open: string[][], sel: string[]|null,
 *   allColumns: string[],
 *   defs: import('./value-columns.js').ColumnDef[],
 *   query: () => any,
 *   onLayout: (groups: string[], cols: string[], sort?: string) => void,
 *   onSort: (col: string, desc: boolean) => void,
 *   onTreeState: (open: string[][], sel: string[]|null, push: boolean) => void,
 *   onContext: (node: Node, ev: MouseEvent) => void,
 *   onNotice: (msg: string) => void,
 *   emptyText?: string|null,
 *   graph?: {wants: (path: any[]) => any, got: (graph: any) => void},
 * }} TableOpts
 * `emptyText`: what an empty table says when the trace has none of its events (table-lacks.js).
 * `graph`: the graph above; the top level's request carries what it `wants` (/table's `graph`),
 * and an answer with it goes to `got`.
 */

export class TreeTable {
  /** @param {HTMLElement} host @param {TableOpts} o */
  constructor(host, o) {
    this.host = host;
    this.o = o;
    /** @type {Node|null} */
    this.root = null;
    /** @type {Set<string>} label paths joined with \u0001 */
    this.expanded = new Set();
    /** @type {Node|null} */
    this.selected = null;
    this.total = { count: 0, weight_ms: 0 };
    /** What % Weight is a share of (the API's percent_of). @type {import('./cpu-share.js').PercentOf|null} */
    this.percentOf = null;
    this.status = h('div', { class: 'table-status', 'data-testid': 'table-status' });
    this.scroller = h('div', { class: 'table-scroll', tabindex: '0', 'data-testid': 'table' });
    /** The rows selected together (Shift/Ctrl), their sums in a line under the table. @type {RowSelection<Node>} */
    this.sel = new RowSelection();
    this.sumLine = h('div', { class: 'table-selection', 'data-testid': 'selection-sum' });
    this.find = new TableFind({
      roots: () => (this.root ? this.root.children : []), current: () => this.selected,
      reveal: (n) => this.reveal(n), focus: () => this.scroller.focus(),
      loadUntil: (match) => this.loadUntil(match),
    });
    host.append(this.status, this.find.bar, this.scroller, this.sumLine);
    this.scroller.addEventListener('keydown', (e) => this.onKey(e));
    this.generation = 0;
    /** @type {() => void} */
    this.answer = () => {};
    /** Settles when the first load's top level has answered (or failed): the graph above asks after it. @type {Promise<void>} */
    this.answered = new Promise((resolve) => { this.answer = () => resolve(); });
    /** What the API said about each value column (spec -> header, type, unit). @type {Map<string, import('./value-columns.js').ValueInfo>} */
    this.valueInfo = new Map();
    /** Widths fitted to the content shown (columns whose width the user has not set). @type {Map<string, number>} */
    this.fitted = new Map();
  }

  /** Whether a column right of the gold bar is a column of the rows with an aggregation. @param {string} c */
  isData(c) { return !isValue(c) && this.o.cols.includes(c) && canonicalSpec(this.o.defs, c) === c; }

  /** The value columns the API aggregates for this view. */
  dataValues() { return this.o.cols.filter((c) => this.isData(c)); }

  /** Column widths the user dragged, kept for the session (not part of the link). */
  static widths = new Map();

  /** @param {Node} n */
  static pathKey(n) { return n.refs.join('\u0001'); }

  /** The /table body of the level under `path` (the graph above the table asks the same). @param {any[]} path */
  request(path) {
    /** @type {any} */
    const q = { ...this.o.query(), table: this.o.table, columns: this.o.groups, path, limit: LIMIT };
    const values = this.dataValues();
    if (values.length) q.values = values;
    const sk = values.includes(this.o.sort) ? this.o.sort : SORT_KEY[this.o.sort];
    q.sort = { by: sk || 'label', descending: this.o.desc };
    return q;
  }

  /** @param {any[]} path @param {boolean} [withGraph] the graph above may come with it (`o.graph`) */
  async fetch(path, withGraph = false) {
    const q = this.request(path);
    const values = this.dataValues();
    const g = withGraph && this.o.graph ? this.o.graph.wants(path) : null;
    if (g) q.graph = g;
    const r = await api.table(this.o.traceId, q);
    if (g && r.graph && this.o.graph) this.o.graph.got(r.graph);
    (r.value_columns || []).forEach((/** @type {any} */ info, /** @type {number} */ i) => this.valueInfo.set(values[i], info));
    return r;
  }

  /** @param {any} r @param {Node|null} parent */
  adopt(r, parent) {
    const col = r.column || '';
    return r.rows.map((/** @type {any} */ row) => /** @type {Node} */ ({
      ...row, column: col, parent,
      depth: parent ? parent.depth + 1 : 0,
      colDepth: parent && parent.column === col ? parent.colDepth + 1 : 0,
      labels: parent ? [...parent.labels, row.label] : [row.label],
      refs: parent ? [...parent.refs, row.id ?? row.label] : [row.id ?? row.label],
      keys: parent ? [...parent.keys, row.key] : [row.key],
      children: null, omitted: 0,
    }));
  }

  /** Load the top level, then re-open the paths from the URL (longest part that resolves). */
  async load() {
    const gen = ++this.generation;
    this.status.textContent = 'Loading…';
    this.status.className = 'table-status loading';
    let r;
    try {
      r = await this.fetch([], true);
    } catch (e) {
      this.answer();
      if (gen !== this.generation) return;
      this.status.className = 'table-status error';
      this.status.textContent = `Query failed: ${e.message}`;
      clear(this.scroller);
      return;
    }
    this.answer();
    if (gen !== this.generation) return;
    this.total = r.total;
    this.percentOf = r.percent_of || null;
    this.root = /** @type {Node} */ ({ key: -1, label: '', count: r.parent.count, weight_ms: r.parent.weight_ms, percent: 100, first_s: 0, last_s: 0,
      expandable: true, column: '', depth: -1, colDepth: 0, labels: [], refs: [], keys: [], children: null, omitted: r.omitted, parent: null });
    this.root.children = this.adopt(r, null);
    this.root.children.forEach((c) => { c.parent = null; });
    this.expanded.clear();
    this.sel.clear();
    for (const p of this.o.open) await this.openPath(p, gen);
    if (gen !== this.generation) return;
    if (this.o.sel) {
      const n = this.findLoaded(this.o.sel);
      if (n) { this.selected = n; this.sel.only(n); }
      else this.o.onNotice(`Selected row ${this.o.sel.join(' › ')} is not in this view any more`);
    }
    this.render();
    if (this.selected) this.scrollToSelected();
  }

  /** A path segment from a link names a row by its stable identity or, readable, by its label. */
  static names(/** @type {Node} */ c, /** @type {string} */ seg) { return c.refs[c.refs.length - 1] === seg || c.label === seg; }

  /** @param {string[]} labels identities or labels @returns {Node|null} */
  findLoaded(labels) {
    let list = this.root ? this.root.children : null;
    let n = null;
    for (const l of labels) {
      if (!list) return null;
      n = list.find((c) => TreeTable.names(c, l)) || null;
      if (!n) return null;
      list = n.children;
    }
    return n;
  }

  /** @param {string[]} labels @param {number} gen */
  async openPath(labels, gen) {
    let list = this.root.children;
    /** @type {Node|null} */
    let parent = null;
    for (let i = 0; i < labels.length; i++) {
      if (gen !== this.generation) return;
      let n = list.find((c) => TreeTable.names(c, labels[i]));
      if (!n) {
        // Not among the loaded siblings (cut by the limit, or gone): ask the API, which
        // resolves labels and says how deep the path still resolves.
        try {
          const r = await this.fetch(labels.slice(0, i + 1));
          n = /** @type {Node} */ ({ key: r.path[i], label: labels[i], count: r.parent.count, weight_ms: r.parent.weight_ms,
            percent: this.total.count ? (100 * r.parent.weight_ms) / (this.total.weight_ms || 1) : 0, first_s: 0, last_s: 0,
            expandable: true, column: list.length ? list[0].column : this.o.groups[Math.min(i, this.o.groups.length - 1)], depth: i, colDepth: 0,
            labels: [...(parent ? parent.labels : []), labels[i]], refs: [...(parent ? parent.refs : []), labels[i]], keys: r.path, children: null, omitted: 0, parent });
          n.children = this.adopt(r, n);
          n.omitted = r.omitted;
          list.push(n);
        } catch (e) {
          if (e instanceof ApiError && e.code === 'bad_path') {
            const d = e.resolvedDepth ?? i;
            this.o.onNotice(`Link path opened to depth ${d} of ${labels.length}: "${labels[d] ?? labels[i]}" does not resolve in this trace`);
          } else {
            this.o.onNotice(`Could not open ${labels.join(' › ')}: ${e.message}`);
          }
          return;
        }
      }
      if (!n.expandable) return;
      if (!n.children) {
        try { await this.loadChildren(n); } catch (e) { this.o.onNotice(`Could not expand ${n.label}: ${e.message}`); return; }
      }
      this.expanded.add(TreeTable.pathKey(n));
      parent = n;
      list = n.children;
    }
  }

  /** @param {Node} n */
  async loadChildren(n) {
    const r = await this.fetch(n.keys);
    n.children = this.adopt(r, n);
    n.omitted = r.omitted;
  }

  /**
   * Fetch rows not loaded yet, heaviest first (the largest count among every loaded row whose
   * children were never fetched), until one's label matches; at most FIND_LOAD_LIMIT levels.
   * Nothing is expanded: the find reveals the match. @param {(label: string) => boolean} match
   */
  async loadUntil(match) {
    /** @type {Node[]} */
    const frontier = [];
    const walk = (/** @type {Node[]} */ ns) => { for (const n of ns) { if (n.children) walk(n.children); else if (n.expandable) frontier.push(n); } };
    walk(this.root ? this.root.children || [] : []);
    for (let loads = 0; frontier.length && loads < FIND_LOAD_LIMIT; loads++) {
      let best = 0;
      for (let i = 1; i < frontier.length; i++) if (frontier[i].count > frontier[best].count) best = i;
      const x = frontier.splice(best, 1)[0];
      try { await this.loadChildren(x); } catch { break; }
      for (const c of x.children || []) {
        if (match(c.label)) return { found: true, exhausted: false };
        if (c.expandable) frontier.push(c);
      }
    }
    return { found: false, exhausted: frontier.length === 0 };
  }

  /** @param {Node} n @param {boolean} [push] */
  async toggle(n, push = true) {
    if (!n.expandable) return;
    const k = TreeTable.pathKey(n);
    if (this.expanded.has(k)) {
      this.expanded.delete(k);
    } else {
      if (!n.children) {
        n.loading = true;
        this.render();
        try { await this.loadChildren(n); } catch (e) { n.loading = false; this.o.onNotice(`Could not expand: ${e.message}`); this.render(); return; }
        n.loading = false;
      }
      this.expanded.add(k);
    }
    this.render();
    this.emitTree(push);
  }

  /** Expand everything under n, heaviest first, up to a bound. @param {Node} n */
  async expandAll(n) {
    let budget = EXPAND_ALL_LIMIT;
    let rowsAdded = 0;
    /** @type {Node[]} */
    const queue = [n];
    this.status.textContent = 'Expanding…';
    while (queue.length && budget > 0) {
      const x = queue.shift();
      if (!x.expandable) continue;
      if (!x.children) {
        try { await this.loadChildren(x); } catch { break; }
      }
      this.expanded.add(TreeTable.pathKey(x));
      budget--;
      rowsAdded += x.children.length;
      if (rowsAdded > EXPAND_ALL_ROWS) budget = 0;
      for (const c of x.children) queue.push(c);
    }
    if (budget <= 0) this.o.onNotice(`Expanded the first ${EXPAND_ALL_LIMIT} rows under ${n.label}`);
    this.render();
    this.emitTree(true);
  }

  /** @param {boolean} push */
  emitTree(push) {
    const open = [...this.expanded].map((k) => k.split('\u0001'));
    this.o.onTreeState(open, this.selected ? this.selected.refs : null, push);
  }

  /** @returns {Node[]} visible rows in order */
  visible() {
    const out = [];
    const walk = (/** @type {Node[]} */ list) => {
      for (const n of list) {
        out.push(n);
        if (n.children && this.expanded.has(TreeTable.pathKey(n))) walk(n.children);
      }
    };
    if (this.root) walk(this.root.children);
    return out;
  }

  render() {
    const o = this.o;
    const rows = this.visible();
    this.status.className = 'table-status';
    const top = this.root ? this.root.children.length : 0;
    this.status.textContent = `${o.groups.length ? o.groups.join(' › ') : '(no grouping)'}  ·  ${top} rows${this.root && this.root.omitted ? ` (+${this.root.omitted} not shown)` : ''}  ·  total ${fmtInt(this.total.count)} ${o.table === 'cpu-sampled' ? 'samples' : 'rows'}`;
    this.status.dataset.total = String(this.total.count);
    const table = h('table', { class: 'tree' });
    const colgroup = h('colgroup');
    const all = [...o.groups, '|', ...o.cols];
    for (const c of all) colgroup.append(h('col', { 'data-col': c, style: { width: c === '|' ? '6px' : `${TreeTable.widths.get(c) || colWidth(c)}px` } }));
    // A filler column takes the slack, so the real columns keep their widths.
    colgroup.append(h('col'));
    const head = h('tr');
    all.forEach((c, i) => {
      if (c === '|') { head.append(h('th', { class: 'gold', 'data-col': '|', title: 'Gold bar: columns to its left group the rows' })); return; }
      const sorted = o.sort === c;
      const data = i > o.groups.length && this.isData(c);
      const info = data ? this.valueInfo.get(c) : undefined;
      const numeric = isValue(c) || (info ? isNumericType(info.type) : false);
      const pct = c === '% Weight' && this.percentOf;
      const th = h('th', { class: `${numeric ? 'num' : ''} ${i < o.groups.length ? 'key' : ''} ${data ? 'value' : ''}`, 'data-col': c,
        title: data ? this.valueTitle(c) : pct ? `${pct.label}: ${pct.description}. Click to sort; drag to move` : 'Click to sort; drag to move (across the gold bar to group or ungroup)' },
        [h('span', { text: data ? this.valueHeader(c) : pct ? percentHeader(pct) : c }), sorted ? h('span', { class: 'sort', text: o.desc ? ' ▼' : ' ▲' }) : null, data ? this.aggButton(c) : null]);
      this.headerDrag(th, c);
      th.addEventListener('dblclick', (e) => { if (e.clientX > th.getBoundingClientRect().right - 6) this.fit(c); });
      if (data) th.addEventListener('contextmenu', (e) => { e.preventDefault(); this.aggMenu(c, e); });
      head.append(th);
    });
    head.append(h('th', { class: 'filler' }));
    const tbody = h('tbody');
    if (!rows.length) {
      tbody.append(h('tr', {}, [h('td', { class: 'empty', colspan: String(all.length + 1), 'data-testid': 'table-empty', text: this.total.count ? 'No rows' : (this.o.emptyText || 'No data in this range / with these filters') })]));
    }
    /** @type {Map<Node, HTMLElement>} */
    this.trOf = new Map();
    // Rows depth-first; after an expanded row's children, how many siblings the limit left out.
    const walk = (/** @type {Node[]} */ list, /** @type {Node|null} */ parent) => {
      for (const n of list) {
        const tr = this.rowEl(n, all);
        this.trOf.set(n, tr);
        tbody.append(tr);
        if (n.children && this.expanded.has(TreeTable.pathKey(n))) walk(n.children, n);
      }
      if (parent && parent.omitted > 0) {
        tbody.append(h('tr', { class: 'more' }, [h('td', { colspan: String(all.length + 1), text: `… ${parent.omitted} more rows under ${parent.label} not shown (the largest ${LIMIT} are listed)` })]));
      }
    };
    if (this.root) walk(this.root.children, null);
    table.append(colgroup, h('thead', {}, [head]), tbody);
    const st = this.scroller.scrollTop;
    clear(this.scroller);
    this.scroller.append(table);
    this.autoFit(/** @type {HTMLTableElement} */ (table), all);
    this.scroller.scrollTop = st;
    this.showSums();
  }

  /** @param {Node} n @param {string[]} all */
  rowEl(n, all) {
    const open = this.expanded.has(TreeTable.pathKey(n));
    const tr = h('tr', { class: n === this.selected || this.sel.has(n) ? 'sel' : '', 'data-path': n.labels.join(' › '), 'data-depth': String(n.depth) });
    let right = false;
    for (const c of all) {
      if (c === '|') { right = true; tr.append(h('td', { class: 'gold' })); continue; }
      if (!right && c === n.column) {
        const tog = h('span', { class: `tog ${n.expandable ? '' : 'leaf'}`, text: n.loading ? '…' : n.expandable ? (open ? '▾' : '▸') : '' });
        tog.addEventListener('click', (e) => { e.stopPropagation(); this.select(n); this.toggle(n); });
        const td = h('td', { class: `label ${n.key === SELF_KEY ? 'self' : ''}`, title: n.label }, [tog, labelEl(n.label)]);
        td.style.paddingLeft = `${4 + Math.min(n.colDepth, 60) * 11}px`;
        tr.append(td);
      } else if (right && this.isData(c)) {
        const info = this.valueInfo.get(c);
        const v = info && n.values ? n.values[info.name] : undefined;
        const text = info ? formatValue(v, info.type) : '';
        const path = isPath(text);
        tr.append(h('td', { class: info && isNumericType(info.type) ? 'num' : 'val', text: path ? null : text, title: text, 'data-value': v === null || v === undefined ? '' : String(v) }, path ? [pathEl(text)] : []));
      } else if (isValue(c)) {
        const td = h('td', { class: 'num', text: valueText(n, c) });
        if (c === '% Weight') td.style.backgroundImage = `linear-gradient(to left, var(--bar) ${Math.min(100, n.percent).toFixed(1)}%, transparent 0)`;
        tr.append(td);
      } else {
        tr.append(h('td'));
      }
    }
    tr.append(h('td', { class: 'filler' }));
    tr.addEventListener('click', (e) => { this.select(n, e); this.emitTree(false); });
    tr.addEventListener('dblclick', () => this.toggle(n));
    tr.addEventListener('contextmenu', (e) => { e.preventDefault(); if (!this.sel.has(n)) this.select(n); this.emitTree(false); this.o.onContext(n, e); });
    return tr;
  }

  /**
   * Make `n` the current row; with Ctrl/Cmd or Shift (a click's or a key's) add to the selection.
   * @param {Node} n @param {{ctrlKey: boolean, metaKey: boolean, shiftKey: boolean}} [mods]
   */
  select(n, mods) {
    this.selected = n;
    if (mods) this.sel.click(this.visible(), n, mods); else this.sel.only(n);
    this.paintSelection();
  }

  paintSelection() {
    for (const tr of this.scroller.querySelectorAll('tr.sel')) tr.classList.remove('sel');
    for (const n of this.sel.rows) {
      const tr = this.trOf && this.trOf.get(n);
      if (tr) tr.classList.add('sel');
    }
    this.showSums();
  }

  /** The columns right of the gold bar with each row's raw value (API units), for copying and sums. */
  valueColumns() {
    return this.o.cols.filter((c) => isValue(c) || this.isData(c)).map((c) => {
      const info = this.valueInfo.get(c);
      /** @param {Node} n */
      const value = (n) => {
        if (this.isData(c)) return info && n.values ? n.values[info.name] : undefined;
        switch (c) {
          case 'Count': return n.count;
          case '% Weight': return n.percent;
          case 'First (s)': return n.first_s;
          case 'Last (s)': return n.last_s;
          default: return WEIGHT_COLUMNS.includes(c) ? n.weight_ms : n.values ? n.values[c] : undefined;
        }
      };
      // Times (first, last, load...) do not add up; counts, sizes and durations do.
      const sums = this.isData(c) ? !!info && ['count', 'size', 'duration'].includes(info.type) : c !== 'First (s)' && c !== 'Last (s)';
      return { col: c, name: this.isData(c) ? this.valueHeader(c) : c, value, sums };
    });
  }

  /** The selection's size and sums, under the table. */
  showSums() {
    const rows = this.sel.ordered(this.visible());
    if (rows.length < 2) { this.sumLine.textContent = ''; this.sumLine.hidden = true; return; }
    const sums = selectionSums(rows, this.valueColumns().filter((c) => c.sums));
    this.sumLine.hidden = false;
    this.sumLine.textContent = [`${rows.length} rows selected`, ...sums.map((x) => `${x.name} Σ ${Number.isInteger(x.sum) ? fmtInt(x.sum) : fmt2(x.sum)}`)].join('  ·  ');
    this.sumLine.dataset.rows = String(rows.length);
    this.sumLine.dataset.sums = JSON.stringify(Object.fromEntries(sums.map((x) => [x.name, x.sum])));
  }

  /** The selected rows (or the current one) as TSV with a header row. */
  selectionTsv() {
    let rows = this.sel.ordered(this.visible());
    if (!rows.length && this.selected) rows = [this.selected];
    return rowsTsv(rows, this.o.groups, this.valueColumns());
  }

  /** Show `n` (a loaded row): expand the rows above it, select it and scroll to it. @param {Node} n */
  reveal(n) {
    for (let x = n.parent; x; x = x.parent) this.expanded.add(TreeTable.pathKey(x));
    this.selected = n;
    this.sel.only(n);
    this.render();
    this.scrollToSelected();
    this.emitTree(true);
  }

  /**
   * Widths fitted to what the rows shown need, for the columns whose width the user has not set:
   * each within its share of the pane, the spare width to the columns that share cut. A column
   * only grows as rows are expanded (the table does not jump back under the pointer).
   * @param {HTMLTableElement} table @param {string[]} all
   */
  autoFit(table, all) {
    const pane = this.scroller.clientWidth;
    if (!pane) return; // not laid out (a hidden view): the defaults stay
    const fitted = this.fitted;
    const cols = /** @type {HTMLElement[]} */ ([...table.querySelectorAll('colgroup col')]);
    const free = all.map((c, i) => i).filter((i) => all[i] !== '|' && !TreeTable.widths.has(all[i]));
    if (!free.length) return;
    const needs = contentWidths(table, free, free.map((i) => cols[i]));
    /** @param {string} c @returns {import('./column-widths.js').ColumnKind} */
    const kind = (c) => {
      if (isStack(c)) return 'stack';
      if (/Path|Command Line/.test(c)) return 'path';
      const info = this.valueInfo.get(c);
      return isValue(c) || (this.isData(c) && info && isNumericType(info.type)) ? 'number' : 'text';
    };
    let widths = free.map((i, k) => Math.max(fitted.get(all[i]) || 0, fittedWidth(needs[k], kind(all[i]), pane)));
    const used = all.reduce((a, c, i) => a + (c === '|' ? 6 : TreeTable.widths.get(c) || 0), 0) + widths.reduce((a, w) => a + w, 0);
    widths = spread(widths, needs, pane - used - 2);
    free.forEach((i, k) => { fitted.set(all[i], widths[k]); cols[i].style.width = `${widths[k]}px`; });
  }

  /** Fit a column to its content (double-click on its header's right edge). @param {string} col */
  fit(col) {
    const table = /** @type {HTMLTableElement|null} */ (this.scroller.querySelector('table.tree'));
    const colEl = /** @type {HTMLElement|null} */ (this.scroller.querySelector(`col[data-col="${CSS.escape(col)}"]`));
    if (!table || !colEl) return;
    const index = [...this.o.groups, '|', ...this.o.cols].indexOf(col);
    const w = fitWidth(table, index, colEl);
    TreeTable.widths.set(col, w);
    colEl.style.width = `${w}px`;
  }

  scrollToSelected() {
    const el = this.scroller.querySelector('tr.sel');
    if (el) el.scrollIntoView({ block: 'nearest' });
  }

  /** @param {KeyboardEvent} e */
  onKey(e) {
    const rows = this.visible();
    if (!rows.length) return;
    let i = this.selected ? rows.indexOf(this.selected) : -1;
    const n = i >= 0 ? rows[i] : null;
    // Shift with a move extends the selection from its anchor.
    const go = (/** @type {number} */ j) => {
      j = Math.max(0, Math.min(rows.length - 1, j));
      this.select(rows[j], e.shiftKey ? { ctrlKey: false, metaKey: false, shiftKey: true } : undefined);
      this.scrollToSelected();
      this.emitTree(false);
    };
    const mod = e.ctrlKey || e.metaKey;
    if (mod && (e.key === 'c' || e.key === 'C')) { this.copySelection(); e.preventDefault(); return; }
    if (mod && (e.key === 'a' || e.key === 'A')) { this.sel.all(rows); this.paintSelection(); e.preventDefault(); return; }
    if ((mod && (e.key === 'f' || e.key === 'F')) || e.key === 'F3') { this.find.open(); if (e.key === 'F3' && this.find.input.value) this.find.go(e.shiftKey ? -1 : 1); e.preventDefault(); return; }
    switch (e.key) {
      case 'ArrowDown': go(i + 1); break;
      case 'ArrowUp': go(i - 1); break;
      case 'PageDown': go(i + 20); break;
      case 'PageUp': go(i - 20); break;
      case 'Home': go(0); break;
      case 'End': go(rows.length - 1); break;
      case 'ArrowRight':
        if (!n) { go(0); break; }
        if (n.expandable && !this.expanded.has(TreeTable.pathKey(n))) this.toggle(n);
        else if (n.children && n.children.length && this.expanded.has(TreeTable.pathKey(n))) go(i + 1);
        break;
      case 'ArrowLeft':
        if (!n) break;
        if (this.expanded.has(TreeTable.pathKey(n))) this.toggle(n);
        else if (n.parent) go(rows.indexOf(n.parent));
        break;
      case '*': if (n) this.expandAll(n); break;
      case 'Enter': if (n) this.toggle(n); break;
      default: return;
    }
    e.preventDefault();
  }

  /** Ctrl+C: the selection as tab-separated text with a header row. */
  copySelection() {
    const text = this.selectionTsv();
    copyText(text).then(() => toast(`${Math.max(0, text.split('\n').length - 2)} rows copied`));
  }

  /**
   * Header drag with pointer events: a click sorts, a drag moves the column; dropping it on
   * the other side of the gold bar groups or ungroups it.
   * @param {HTMLElement} th @param {string} col
   */
  headerDrag(th, col) {
    th.addEventListener('pointerdown', (down) => {
      if (down.button !== 0) return;
      const box = th.getBoundingClientRect();
      if (down.clientX > box.right - 6) { this.resize(th, col, down); return; }
      const x0 = down.clientX;
      const y0 = down.clientY;
      let ghost = null;
      let marker = null;
      /** @type {{index: number}|null} */
      let target = null;
      const cells = () => /** @type {HTMLElement[]} */ ([...th.parentElement.children]);
      const move = (/** @type {PointerEvent} */ e) => {
        if (!ghost && Math.abs(e.clientX - x0) + Math.abs(e.clientY - y0) < 5) return;
        if (!ghost) {
          ghost = h('div', { class: 'drag-ghost', text: col });
          marker = h('div', { class: 'drop-marker' });
          document.body.append(ghost, marker);
          th.classList.add('dragging');
        }
        ghost.style.left = `${e.clientX + 8}px`;
        ghost.style.top = `${e.clientY + 8}px`;
        // Drop slot: before the first header whose centre is right of the pointer.
        const cs = cells();
        let idx = cs.length;
        for (let k = 0; k < cs.length; k++) {
          const r = cs[k].getBoundingClientRect();
          if (e.clientX < r.left + r.width / 2) { idx = k; break; }
        }
        target = { index: idx };
        const ref = cs[Math.min(idx, cs.length - 1)].getBoundingClientRect();
        const x = idx >= cs.length ? ref.right : ref.left;
        Object.assign(marker.style, { left: `${x - 1}px`, top: `${ref.top}px`, height: `${ref.height}px` });
      };
      const up = () => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', up);
        if (!ghost) {
          // A click sorts by this column: values largest first, labels A-Z; again flips it.
          this.o.onSort(col, this.o.sort === col ? !this.o.desc : isValue(col));
          return;
        }
        ghost.remove();
        marker.remove();
        th.classList.remove('dragging');
        if (target) this.drop(col, target.index);
      };
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
    });
  }

  /** A value column's header: its name, and its aggregation when not the default. @param {string} c */
  valueHeader(c) {
    const { name, agg } = splitSpec(c);
    return agg ? `${name} (${aggLabel(agg)})` : name;
  }

  /** @param {string} c */
  valueTitle(c) {
    const { name, agg } = splitSpec(c);
    const def = findDef(this.o.defs, name);
    const a = agg || (def ? def.aggregation : '');
    const unit = def && def.unit ? `, ${def.unit}` : '';
    return `${name}: ${aggLabel(a)} of its rows (${def ? def.type : ''}${unit}). Click to sort; drag to move; ▾ or right-click to change the aggregation`;
  }

  /** The ▾ that opens a value column's aggregation menu. @param {string} c */
  aggButton(c) {
    const b = h('span', { class: 'agg-btn', 'data-testid': 'agg-menu', text: ' ▾', title: 'Aggregation' });
    // Not a sort click or the start of a drag.
    b.addEventListener('pointerdown', (e) => e.stopPropagation());
    b.addEventListener('click', (e) => { e.stopPropagation(); this.aggMenu(c, e); });
    return b;
  }

  /** The aggregations `c` can take; choosing one regroups the values. @param {string} c @param {MouseEvent} ev */
  aggMenu(c, ev) {
    const { name, agg } = splitSpec(c);
    const def = findDef(this.o.defs, name);
    if (!def) return;
    const current = agg || def.aggregation;
    showMenu(ev, aggregationsOf(def).map((a) => ({
      label: `${a === current ? '✓ ' : ''}${aggLabel(a)}`,
      action: () => {
        const spec = specOf(def, a);
        if (spec === c) return;
        const cols = this.o.cols.map((x) => (x === c ? spec : x));
        this.o.onLayout(this.o.groups, cols, this.o.sort === c ? spec : undefined);
      },
    })));
  }

  /** Drag the right edge of a header to resize its column. @param {HTMLElement} th @param {string} col @param {PointerEvent} down */
  resize(th, col, down) {
    const colEl = /** @type {HTMLElement} */ (this.scroller.querySelector(`col[data-col="${CSS.escape(col)}"]`));
    const w0 = th.getBoundingClientRect().width;
    const move = (/** @type {PointerEvent} */ e) => {
      const w = Math.max(40, Math.round(w0 + e.clientX - down.clientX));
      TreeTable.widths.set(col, w);
      if (colEl) colEl.style.width = `${w}px`;
    };
    const up = () => { window.removeEventListener('pointermove', move); window.removeEventListener('pointerup', up); };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  /** Apply a header drop at slot `index` of [groups, '|', cols]. @param {string} col @param {number} index */
  drop(col, index) {
    const all = [...this.o.groups, '|', ...this.o.cols];
    const from = all.indexOf(col);
    if (from < 0) return;
    all.splice(from, 1);
    const at = index > from ? index - 1 : index;
    all.splice(at, 0, col);
    const bar = all.indexOf('|');
    // A value column dropped left of the gold bar groups by its column (without the aggregation).
    const groups = all.slice(0, bar).map((g) => (!isValue(g) ? splitSpec(g).name : g));
    const cols = all.slice(bar + 1);
    if (groups.some(isValue)) { this.o.onNotice(`${col} is a value column: it cannot group rows`); return; }
    if (groups.join() === this.o.groups.join() && cols.join() === this.o.cols.join()) return;
    this.o.onLayout(groups, cols);
  }
}
