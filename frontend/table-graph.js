// The graph above a table (WPA's graph + table pairs), on a canvas: the rows of one table level
// (the top-level groups, or the children of the last expanded row) as stacked series over time,
// or for Processes, Threads and Images one lifetime bar per row (a Gantt chart). One /graph query
// per level not seen before (graph-cache.js keeps the answers; a table answer may carry its top
// level's graph, binned in the same pass); selecting, hiding and hovering only redraw.
import * as api from './api.js';
import { graphKey } from './graph-cache.js';
import { h, clear, fmt2, fmtInt, fmtSecs } from './dom.js';
import { OTHER, colourOf } from './palette.js';
import { clock, fmtWallClock } from './value-columns.js';
import { drawMarks } from './marks.js';

/** Tables whose rows are lifetimes: a Gantt chart, one bar per row. */
export const LIFETIME_TABLES = ['processes', 'threads', 'images', 'regions'];
/** The fill of highlighted (selected) bars and the outline of highlighted series. */
export const HIGHLIGHT = '#1e5ac8';
/** Series kept; the rest are one "other" series. */
const TOP = 10;
const AXIS_H = 16;
/** The least height of a lifetime row, in CSS px: room for its label. */
const GANTT_ROW = 13;

export { colourOf }; // where the graphs' tests and callers have always found it

/**
 * @typedef {{
 *   traceId: string, table: string, start: number, duration: number,
 *   request: (path: string[]) => any,
 *   measures: {value: string, label: string}[],
 *   onSelect: (refs: string[]) => void,
 *   labelOf: (path: string[]) => string,
 *   cache: import('./graph-cache.js').GraphCache,
 *   isStack: (column: string) => boolean,
 *   marks?: () => import('./marks.js').Mark[],
 *   lines?: boolean,
 * }} GraphOpts
 * `request` gives the table's /table body for a level; `measures` the event tables' choices;
 * `labelOf` names the expanded row (links name it by identity); `cache` the page's answers;
 * `lines`: each series its own line (a level such as a CPU's frequency), not stacked.
 */

/** The measure chosen per table, kept for the session. @type {Map<string, string>} */
const measureOf = new Map();
/** Loads so far on this page: `data-load` tells a finished graph from the one before it (perf test). */
let loads = 0;

export class TableGraph {
  /** @param {HTMLElement} host @param {GraphOpts} o */
  constructor(host, o) {
    this.o = o;
    this.gantt = LIFETIME_TABLES.includes(o.table);
    this.el = h('section', { class: `table-graph ${this.gantt ? 'gantt' : ''}`, 'data-testid': 'table-graph', 'data-state': 'loading' });
    this.title = h('span', { class: 'tg-title' });
    this.info = h('span', { class: 'tg-info' });
    const bar = h('div', { class: 'tg-bar' }, [this.title, this.info]);
    if (!this.gantt && o.measures.length > 1) {
      const sel = /** @type {HTMLSelectElement} */ (h('select', { class: 'tg-measure', 'data-testid': 'graph-measure', title: 'What the graph plots per time bin' },
        o.measures.map((m) => h('option', { value: m.value, text: m.label }))));
      sel.value = measureOf.get(o.table) || o.measures[0].value;
      sel.addEventListener('change', () => { measureOf.set(o.table, sel.value); this.load(this.path); });
      bar.append(sel);
    }
    this.canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'tg-canvas', 'data-testid': 'graph-canvas' }));
    this.legend = h('div', { class: 'legend tg-legend', 'data-testid': 'graph-legend' });
    this.tip = h('div', { class: 'tip', 'data-testid': 'graph-tip', style: { display: 'none' } });
    this.el.append(bar, h('div', { class: 'tl-body' }, this.gantt ? [this.canvas] : [this.canvas, this.legend]));
    host.append(this.el);
    document.body.append(this.tip);
    /** @type {any} */
    this.data = null;
    /** @type {any} the data the graph was last drawn from (highlight() skips a redraw of the same) */
    this.drawn = null;
    /** @type {string[]} the expanded row whose children are drawn */
    this.path = [];
    /** @type {Set<string>} hidden series (by row identity) */
    this.hidden = new Set();
    /** @type {string|null} the highlighted row at this level */
    this.lit = null;
    this.gen = 0;
    /** @type {AbortController|null} the load under way */
    this.aborts = null;
    /** @type {string|null} the level whose graph a table answer is to carry (`wants`) */
    this.offered = null;
    /** @type {any} */ (this.el).__cache = o.cache;
    this.bind();
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  /** Remove what lives outside the host (the tooltip), and drop a load under way: nobody will see it. */
  destroy() {
    this.tip.remove();
    this.gen++;
    if (this.aborts) this.aborts.abort();
  }

  /** A series' or bar's row identity at this level (null for "other"). @param {any} s */
  static ref(s) { return s.id ?? s.label; }

  /** The /graph body of the level under `path`. @param {string[]} path */
  query(path) {
    const q = this.o.request(path);
    if (this.gantt) {
      q.limit = Math.min(q.limit || 500, 2000);
    } else {
      delete q.limit;
      q.bins = Math.max(50, Math.min(600, Math.floor((this.canvas.clientWidth || 900) / 3)));
      q.top = TOP;
      // Without a time selection: from the first event, as the timeline.
      if (!q.range) q.range = { start_s: this.o.start, end_s: this.o.duration };
      const m = measureOf.get(this.o.table) || (this.o.measures[0] && this.o.measures[0].value);
      if (m) q.measure = m;
    }
    return q;
  }

  /** @param {any} q */
  key(q) { return this.gantt ? null : graphKey(this.o.traceId, q, api.stackTags(), this.o.isStack); }

  /** Draw the level under `path` now if the page has its answer (no request). @param {string[]} path */
  showCached(path) {
    const d = this.o.cache.get(this.key(this.query(path)));
    if (!d) return false;
    this.gen++;
    this.path = path;
    this.el.dataset.load = String(++loads);
    this.show(d, path);
    return true;
  }

  /**
   * The graph fields a /table body of the level under `path` may carry so that its answer brings
   * this graph (`offer`), or null (a lifetime table, or another level than this graph's).
   * @param {string[]} path
   */
  wants(path) {
    if (this.gantt || this.data || JSON.stringify(path) !== JSON.stringify(this.path)) return null;
    const q = this.query(path);
    // Only event tables' graphs come with the table (and are kept).
    this.offered = this.key(q);
    if (this.offered === null) return null;
    this.el.dataset.state = 'loading';
    this.el.dataset.load = String(++loads);
    return { bins: q.bins, top: q.top, range: q.range, ...(q.measure ? { measure: q.measure } : {}) };
  }

  /** A table answer's graph of the level `wants` asked for. @param {any} d */
  offer(d) {
    if (this.data || this.offered === null) return;
    this.o.cache.set(this.offered, d);
    this.offered = null;
    this.gen++;
    this.show(d, this.path);
  }

  /** Load the level under `path` (identities or labels, as the table's links name rows). @param {string[]} path */
  async load(path = []) {
    const gen = ++this.gen;
    this.path = path;
    this.offered = null;
    this.el.dataset.state = 'loading';
    this.el.dataset.load = String(++loads);
    this.info.textContent = 'loading…';
    const q = this.query(path);
    const key = this.key(q);
    const cached = this.o.cache.get(key);
    if (cached) { this.show(cached, path); return; }
    let d;
    // A newer load replaces this one's request (the server stops computing it).
    if (this.aborts) this.aborts.abort();
    const aborts = new AbortController();
    this.aborts = aborts;
    try {
      d = await api.graph(this.o.traceId, q, aborts.signal);
    } catch (e) {
      if (gen !== this.gen) return;
      this.data = null;
      this.info.textContent = `graph unavailable: ${e.message}`;
      this.el.dataset.state = 'error';
      this.draw();
      return;
    }
    if (gen !== this.gen) return;
    // Without a time selection the bars are drawn from the first event, as the timeline.
    if (this.gantt && !q.range) d.range = { start_s: this.o.start, end_s: this.o.duration };
    this.o.cache.set(key, d);
    this.show(d, path);
  }

  /** Draw the answer `d` of the level under `path`. @param {any} d @param {string[]} path */
  show(d, path) {
    this.data = d;
    const what = path.length ? `under ${this.o.labelOf(path) || '(none)'}` : '';
    const by = d.column ? `by ${d.column}` : '';
    const measure = this.gantt ? 'Lifetimes' : d.measure === 'count' ? 'Count' : d.measure === 'weight' ? 'Weight' : d.measure;
    this.title.textContent = [measure, by, what].filter(Boolean).join(' ');
    const n = this.gantt ? d.spans.length : d.series.length;
    this.info.textContent = this.gantt ? `${fmtInt(n)} rows${d.omitted ? ` (+${fmtInt(d.omitted)} not drawn)` : ''}` : (d.unit ? `per bin of ${fmtSecs(d.bin_s)}, ${d.unit}` : `per bin of ${fmtSecs(d.bin_s)}`);
    this.el.dataset.columns = d.column || '';
    this.renderLegend();
    this.draw();
    this.el.dataset.state = 'ready';
  }

  /** Highlight the row `refs` (a full table path) names, if it is at or under this level. @param {string[]|null} refs */
  highlight(refs) {
    const p = this.path;
    const under = refs && refs.length > p.length && p.every((x, i) => refs[i] === x);
    const lit = under && refs ? refs[p.length] : null;
    // The same highlight on a drawn graph: nothing to redraw (a graph just shown is drawn).
    if (lit === this.lit && this.model && this.drawn === this.data) return;
    this.lit = lit;
    this.draw();
  }

  /** Series in drawing order (bottom first), "other" last. */
  allSeries() {
    const d = this.data;
    if (!d || this.gantt) return [];
    return [...d.series.map((/** @type {any} */ s) => ({ s, ref: TableGraph.ref(s), colour: colourOf(TableGraph.ref(s)) })),
      ...(d.other ? [{ s: d.other, ref: '\u0000other', colour: OTHER }] : [])];
  }

  /** A value of the graph's measure as the table shows it: counts whole, others with their unit. @param {number} v */
  valueText(v) {
    const d = this.data;
    if (!d || d.measure === 'count') return fmtInt(v);
    return d.unit ? `${fmt2(v)} ${d.unit}` : fmt2(v);
  }

  /** A line's mean over the bins it has a point in (its total sums levels, which means nothing). @param {number[]} v */
  static mean(v) {
    const on = v.filter((x) => x > 0);
    return on.length ? on.reduce((a, b) => a + b, 0) / on.length : 0;
  }

  /** A series' figure in the legend: lines their mean level, shares of the bin (%) their mean over the range, others their total. @param {number[]} v @param {number} total */
  legendValue(v, total) {
    if (this.o.lines) return TableGraph.mean(v);
    if (this.data && this.data.unit === '%') return v.length ? v.reduce((a, b) => a + b, 0) / v.length : 0;
    return total;
  }

  renderLegend() {
    clear(this.legend);
    if (this.gantt || !this.data) return;
    for (const { s, ref, colour } of this.allSeries()) {
      const e = h('div', { class: `lg ${this.hidden.has(ref) ? 'off' : ''}`, title: `${s.label}\nClick: hide or show; Alt/Ctrl-click: show only this one`, 'data-ref': ref }, [
        h('span', { class: 'sw', style: { background: colour } }), h('span', { class: 'lg-t', text: s.label }), h('span', { class: 'lg-v', text: this.valueText(this.legendValue(s.values, s.total)) })]);
      e.addEventListener('click', (ev) => this.legendClick(ref, ev.altKey || ev.ctrlKey || ev.metaKey));
      this.legend.append(e);
    }
  }

  /** Hide/show one series, or (isolate) show only it; isolating the only one shown shows all again. @param {string} ref @param {boolean} isolate */
  legendClick(ref, isolate) {
    const refs = this.allSeries().map((x) => x.ref);
    if (isolate) {
      const alone = !this.hidden.has(ref) && refs.every((r) => r === ref || this.hidden.has(r));
      this.hidden = new Set(alone ? [] : refs.filter((r) => r !== ref));
    } else if (this.hidden.has(ref)) this.hidden.delete(ref);
    else this.hidden.add(ref);
    this.renderLegend();
    this.draw();
  }

  /** The binned (or spanned) time window. @returns {[number, number]} */
  view() {
    const r = this.data && this.data.range;
    return r && r.end_s > r.start_s ? [r.start_s, r.end_s] : [this.o.start, this.o.duration];
  }

  /** @param {number} t */
  tToX(t) { const [a, b] = this.view(); return ((t - a) / (b - a)) * this.canvas.clientWidth; }

  draw() {
    const c = this.canvas;
    // Lifetimes keep a readable row each: past the box's height the canvas grows and its box scrolls.
    if (this.gantt) {
      const rows = this.data ? this.data.spans.length : 0;
      const want = rows * GANTT_ROW + 4 + AXIS_H;
      const box = c.parentElement ? c.parentElement.clientHeight : 0;
      const height = box && want > box ? `${want}px` : '';
      if (c.style.height !== height) c.style.height = height;
    }
    const W = c.clientWidth;
    const H = c.clientHeight;
    if (!W || !H) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = W * dpr;
    c.height = H * dpr;
    const g = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
    g.scale(dpr, dpr);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, W, H);
    const bottom = H - AXIS_H;
    this.axis(g, W, H, bottom);
    /** @type {any} */
    const model = { kind: this.gantt ? 'spans' : 'series', view: this.view(), lit: this.lit, bars: [], series: [] };
    this.drawn = this.data;
    if (this.data && this.gantt) this.drawGantt(g, W, bottom, model);
    else if (this.data && this.o.lines) this.drawLines(g, bottom, model);
    else if (this.data) this.drawSeries(g, bottom, model);
    if (this.o.marks) drawMarks(g, c, this.o.marks(), (t) => this.tToX(t), 0, bottom);
    this.model = model;
    /** @type {any} */ (this.el).__graph = model;
    this.el.dataset.highlight = this.lit ?? '';
  }

  /** Time ticks (seconds from the trace start, or dates in the clock's mode). */
  axis(/** @type {CanvasRenderingContext2D} */ g, /** @type {number} */ W, /** @type {number} */ H, /** @type {number} */ bottom) {
    const [a, b] = this.view();
    const step = niceStep((b - a) / 8);
    g.strokeStyle = '#eceef1';
    g.fillStyle = '#8a9099';
    g.font = '10px system-ui, sans-serif';
    for (let t = Math.ceil(a / step) * step; t <= b; t += step) {
      const x = this.tToX(t);
      g.textAlign = x < 30 ? 'left' : x > W - 30 ? 'right' : 'center';
      g.fillText(clock.mode === 'trace' ? `${+t.toFixed(6)} s` : fmtWallClock(t).slice(11, 23), x, H - 4);
      g.beginPath(); g.moveTo(x + 0.5, 0); g.lineTo(x + 0.5, bottom); g.stroke();
    }
    g.textAlign = 'left';
  }

  /** Stacked bins; a highlighted series stays opaque (the others fade) and its time span is outlined. */
  drawSeries(/** @type {CanvasRenderingContext2D} */ g, /** @type {number} */ bottom, /** @type {any} */ model) {
    const d = this.data;
    const shown = this.allSeries().filter((x) => !this.hidden.has(x.ref));
    const n = d.series.length ? d.series[0].values.length : d.other ? d.other.values.length : 0;
    const acc = new Float64Array(n);
    for (const x of shown) x.s.values.forEach((/** @type {number} */ v, /** @type {number} */ k) => { acc[k] += Math.max(0, v); });
    const max = Math.max(...acc, 0) || 1;
    const ph = bottom - 4;
    acc.fill(0);
    // The bins' edges in canvas x, once (as tToX: `view()` and the width are read once, not per
    // bar and series: thousands of reads of a layout property made the draw the page's largest cost).
    const [a, b] = this.view();
    const W = this.canvas.clientWidth;
    const edges = new Float64Array(n + 1);
    for (let k = 0; k <= n; k++) edges[k] = ((d.start_s + k * d.bin_s - a) / (b - a)) * W;
    const x0 = (/** @type {number} */ k) => edges[k];
    for (const { s, ref, colour } of shown) {
      const lit = this.lit === ref;
      g.globalAlpha = this.lit && !lit ? 0.3 : 1;
      g.fillStyle = colour;
      let first = -1;
      let last = -1;
      for (let k = 0; k < n; k++) {
        const v = Math.max(0, s.values[k]);
        if (v <= 0) continue;
        if (first < 0) first = k;
        last = k;
        const y0 = bottom - (acc[k] / max) * ph;
        acc[k] += v;
        const y1 = bottom - (acc[k] / max) * ph;
        g.fillRect(x0(k), y1, Math.max(1, x0(k + 1) - x0(k) - 0.3), y0 - y1);
      }
      g.globalAlpha = 1;
      if (lit && first >= 0) {
        g.strokeStyle = HIGHLIGHT;
        g.lineWidth = 2;
        g.strokeRect(x0(first) + 1, 1, x0(last + 1) - x0(first) - 2, bottom - 2);
        g.lineWidth = 1;
      }
    }
    model.series = this.allSeries().map((x) => ({ ref: x.ref, label: x.s.label, colour: x.colour, hidden: this.hidden.has(x.ref), total: x.s.total, values: x.s.values }));
    model.max = max;
    model.bin = { start_s: d.start_s, bin_s: d.bin_s, n };
    g.fillStyle = '#5b6472';
    g.fillText(this.valueText(max), 3, 12);
    if (!shown.length) this.empty(g, bottom, d.series.length || d.other ? 'Every series is hidden (click the legend)' : 'No rows in this range / with these filters');
  }

  /** One line per series over the bins' middles (a level, not an amount: nothing stacks); a bin no row covers breaks it. */
  drawLines(/** @type {CanvasRenderingContext2D} */ g, /** @type {number} */ bottom, /** @type {any} */ model) {
    const d = this.data;
    const shown = this.allSeries().filter((x) => !this.hidden.has(x.ref));
    const n = d.series.length ? d.series[0].values.length : d.other ? d.other.values.length : 0;
    let max = 0;
    for (const x of shown) for (const v of x.s.values) max = Math.max(max, v);
    max = max || 1;
    const ph = bottom - 4;
    const [a, b] = this.view();
    const W = this.canvas.clientWidth;
    const mid = (/** @type {number} */ k) => ((d.start_s + (k + 0.5) * d.bin_s - a) / (b - a)) * W;
    for (const { s, ref, colour } of shown) {
      g.globalAlpha = this.lit && this.lit !== ref ? 0.3 : 1;
      g.strokeStyle = colour;
      g.lineWidth = this.lit === ref ? 3 : 1.5;
      g.beginPath();
      let open = false;
      for (let k = 0; k < n; k++) {
        const v = s.values[k];
        if (!(v > 0)) { open = false; continue; }
        const y = bottom - (v / max) * ph;
        if (open) g.lineTo(mid(k), y); else g.moveTo(mid(k), y);
        open = true;
      }
      g.stroke();
    }
    g.globalAlpha = 1;
    g.lineWidth = 1;
    model.series = this.allSeries().map((x) => ({ ref: x.ref, label: x.s.label, colour: x.colour, hidden: this.hidden.has(x.ref), total: x.s.total, values: x.s.values }));
    model.max = max;
    model.lines = true;
    model.bin = { start_s: d.start_s, bin_s: d.bin_s, n };
    g.fillStyle = '#5b6472';
    g.fillText(this.valueText(max), 3, 12);
    if (!shown.length) this.empty(g, bottom, d.series.length || d.other ? 'Every series is hidden (click the legend)' : 'No rows in this range / with these filters');
  }

  /** One bar per row, in table order; an open end runs to the edge of the window. */
  drawGantt(/** @type {CanvasRenderingContext2D} */ g, /** @type {number} */ W, /** @type {number} */ bottom, /** @type {any} */ model) {
    const spans = this.data.spans;
    const [a, b] = this.view();
    const rowH = spans.length ? Math.max(GANTT_ROW, Math.min(18, (bottom - 4) / spans.length)) : 0;
    g.font = '10px system-ui, sans-serif';
    g.textBaseline = 'middle';
    spans.forEach((/** @type {any} */ s, /** @type {number} */ i) => {
      const ref = TableGraph.ref(s);
      const start = s.start_s ?? a;
      const end = s.end_s ?? b;
      const bx0 = Math.max(0, this.tToX(start));
      const bx1 = Math.min(W, Math.max(bx0 + 2, this.tToX(end)));
      const y0 = 2 + i * rowH;
      const y1 = y0 + Math.max(1, rowH - (rowH > 4 ? 1 : 0));
      const lit = this.lit === ref;
      g.fillStyle = lit ? HIGHLIGHT : colourOf(ref);
      g.fillRect(bx0, y0, bx1 - bx0, y1 - y0);
      // Its row's name beside it (inside when the bar reaches the right edge).
      const label = s.label || '(none)';
      const tw = g.measureText(label).width;
      const inside = bx1 + 4 + tw > W;
      g.fillStyle = inside ? '#fff' : '#374151';
      g.fillText(label, inside ? Math.max(bx0 + 3, 3) : bx1 + 4, (y0 + y1) / 2, inside ? Math.max(0, bx1 - bx0 - 6) : W - bx1 - 4);
      model.bars.push({ ref, label: s.label, start_s: s.start_s, end_s: s.end_s, x0: bx0, x1: bx1, y0, y1, lit });
    });
    g.textBaseline = 'alphabetic';
    if (!spans.length) this.empty(g, bottom, 'No rows in this range / with these filters');
  }

  empty(/** @type {CanvasRenderingContext2D} */ g, /** @type {number} */ bottom, /** @type {string} */ msg) {
    g.fillStyle = '#6b7280';
    g.font = '12px system-ui, sans-serif';
    g.textAlign = 'center';
    g.fillText(msg, this.canvas.clientWidth / 2, bottom / 2);
    g.textAlign = 'left';
  }

  /** What is under canvas point (x, y): a bar, or a series and bin. @param {number} x @param {number} y */
  hit(x, y) {
    const m = this.model;
    if (!m || !this.data) return null;
    if (m.kind === 'spans') {
      const bar = m.bars.find((/** @type {any} */ b) => y >= b.y0 && y < Math.max(b.y1, b.y0 + 1) && x >= b.x0 - 1 && x <= b.x1 + 1);
      return bar ? { ref: bar.ref, bar } : null;
    }
    if (!m.bin || !m.bin.n) return null;
    const t = m.view[0] + (x / this.canvas.clientWidth) * (m.view[1] - m.view[0]);
    const k = Math.floor((t - m.bin.start_s) / m.bin.bin_s);
    if (k < 0 || k >= m.bin.n) return null;
    const bottom = this.canvas.clientHeight - AXIS_H;
    const v = ((bottom - y) / (bottom - 4)) * m.max;
    if (m.lines) {
      // The shown line nearest the pointer in this bin.
      let best = null;
      for (const s of m.series) {
        if (s.hidden || !(s.values[k] > 0)) continue;
        if (!best || Math.abs(s.values[k] - v) < Math.abs(best.values[k] - v)) best = s;
      }
      return best ? { ref: best.ref, series: best, k, t0: m.bin.start_s + k * m.bin.bin_s } : { ref: null, k, t0: m.bin.start_s + k * m.bin.bin_s };
    }
    let acc = 0;
    for (const s of m.series) {
      if (s.hidden) continue;
      acc += Math.max(0, s.values[k]);
      if (v <= acc && s.values[k] > 0) return { ref: s.ref, series: s, k, t0: m.bin.start_s + k * m.bin.bin_s };
    }
    return { ref: null, k, t0: m.bin.start_s + k * m.bin.bin_s };
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('mousemove', (e) => this.showTip(this.hit(e.offsetX, e.offsetY), e));
    c.addEventListener('mouseleave', () => { this.tip.style.display = 'none'; });
    c.addEventListener('click', (e) => {
      const x = this.hit(e.offsetX, e.offsetY);
      if (x && x.ref && !x.ref.startsWith('\u0000')) this.o.onSelect([...this.path, x.ref]);
    });
  }

  /** The tooltip: time and value (text only: trace strings are never parsed as HTML). @param {any} x @param {MouseEvent} e */
  showTip(x, e) {
    const tip = this.tip;
    if (!x || (!x.bar && !x.series && x.k === undefined)) { tip.style.display = 'none'; return; }
    const t = (/** @type {number} */ s) => (clock.mode === 'trace' ? `${s.toFixed(6)} s` : fmtWallClock(s));
    /** @type {string[]} */
    let lines;
    if (x.bar) {
      const b = x.bar;
      const dur = b.start_s !== null && b.end_s !== null ? ` (${fmtSecs(b.end_s - b.start_s)})` : '';
      lines = [b.label, `${b.start_s === null ? 'before the trace' : t(b.start_s)} – ${b.end_s === null ? 'still alive at its end' : t(b.end_s)}${dur}`];
    } else {
      const d = this.data;
      const range = `${t(x.t0)} – ${t(x.t0 + d.bin_s)}`;
      lines = x.series ? [x.series.label, range, this.valueText(x.series.values[x.k])] : [range];
    }
    clear(tip);
    tip.append(h('div', { class: 'tip-title', text: lines[0] }), ...lines.slice(1).map((l) => h('div', { text: l })));
    tip.style.display = 'block';
    tip.style.left = `${e.clientX + 12}px`;
    tip.style.top = `${e.clientY + 12}px`;
  }
}

/** @param {number} raw */
function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}
