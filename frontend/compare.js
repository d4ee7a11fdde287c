// The comparison view (/compare/{base}/{new}?...): one table grouped the same way on two traces, from POST /api/compare,
// with baseline / comparison / delta / delta % per value column, largest loss first; or the differential flame graph.
// Every control writes the link (compare-url.js), so reload, back/forward and copy link give the same view.
import * as api from './api.js';
import { h, clear, fmtInt, fmt2, copyText, toast } from './dom.js';
import { TABLE_NAMES } from './table-names.js';
import { TABLES, defaultGroup, parseRange, rangeText, toCompareUrl } from './compare-url.js';
import { mergeStacks, renderDiffFlame } from './compare-flame.js';
import { shortLink } from './short-link.js';

/** @typedef {import('./compare-url.js').CompareState} CompareState */

/** A number as the tables show it: integers grouped, fractions to 3 places. @param {number|null} x */
const num = (x) => (x === null || x === undefined ? '' : Number.isInteger(x) ? fmtInt(x) : x.toFixed(3));

/**
 * How a value column reads here, as on the trace page: durations in ms with their unit in the
 * header, counts and sizes whole, shares with two decimals. @param {string} name @param {string} type
 * @returns {{header: string, scale: number, text: (x: number) => string}}
 */
function valueFormat(name, type) {
  if (name.startsWith('%')) return { header: name, scale: 1, text: fmt2 };
  if (type === 'duration') return { header: `${name.replace(/ \(s\)$/, '')} (ms)`, scale: 1000, text: fmt2 };
  if (type === 'count' || type === 'size') return { header: type === 'size' ? `${name} (bytes)` : name, scale: 1, text: fmtInt };
  if (type === 'time') return { header: `${name} (s)`, scale: 1, text: (x) => x.toFixed(6) };
  return { header: name, scale: 1, text: num };
}

export class ComparePage {
  /** @param {HTMLElement} root @param {CompareState} s @param {(url: string, mode: 'push'|'replace') => void} write @param {(url: string) => void} navigate */
  constructor(root, s, write, navigate) {
    this.root = root;
    this.s = s;
    this.write = write;
    this.navigate = navigate;
    this.seq = 0;
  }

  /** Same pair of traces: re-render from a new state (back/forward). @param {CompareState} s */
  apply(s) {
    this.s = s;
    this.mount();
  }

  /** @param {Partial<CompareState>} change */
  set(change) {
    this.s = { ...this.s, ...change };
    this.write(toCompareUrl(this.s), 'push');
    this.mount();
  }

  mount() {
    const s = this.s;
    clear(this.root);
    const names = h('span', { class: 'trace-name', 'data-testid': 'compare-names', text: 'Comparing…' });
    Promise.all([api.getTrace(s.base), api.getTrace(s.new)]).then(([b, n]) => {
      names.textContent = `${b.name} → ${n.name}`;
      document.title = `${b.name} vs ${n.name} - etlscope`;
    }).catch((e) => { names.textContent = `Cannot read the traces: ${e.message}`; });
    const tableSel = /** @type {HTMLSelectElement} */ (h('select', { 'data-testid': 'compare-table' }, TABLES.map((t) => h('option', { value: t, text: TABLE_NAMES[t] || t }))));
    tableSel.value = s.table;
    tableSel.addEventListener('change', () => this.set({ table: tableSel.value, group: defaultGroup(tableSel.value), values: [] }));
    const input = (/** @type {string} */ testid, /** @type {string} */ value, /** @type {string} */ ph, /** @type {(v: string) => void} */ on) => {
      const e = /** @type {HTMLInputElement} */ (h('input', { type: 'text', class: 'search', 'data-testid': testid, value, placeholder: ph }));
      // Enter commits through blur -> change, so one edit re-renders once (the re-render removes the box).
      e.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') e.blur(); });
      e.addEventListener('change', () => on(e.value));
      return e;
    };
    const split = (/** @type {string} */ v) => v.split(',').map((x) => x.trim()).filter(Boolean);
    const group = input('compare-group', s.group.join(', '), 'Group by, e.g. Process, Module', (v) => { const g = split(v); if (g.join() !== s.group.join()) this.set({ group: g.length ? g : defaultGroup(s.table) }); });
    const values = input('compare-values', s.values.join(', '), 'Values (default: the table\'s)', (v) => { if (split(v).join() !== s.values.join()) this.set({ values: split(v) }); });
    const range = (/** @type {'rangeBase'|'rangeNew'} */ k, /** @type {string} */ testid) => input(testid, rangeText(s[k]), 'whole trace, or 7-23', (v) => {
      const r = parseRange(v);
      if (rangeText(r) !== rangeText(s[k])) this.set({ [k]: r });
    });
    const norm = /** @type {HTMLSelectElement} */ (h('select', { 'data-testid': 'compare-normalize' }, [
      h('option', { value: 'none', text: 'Not normalised' }),
      h('option', { value: 'time', text: 'Normalised by time range' }),
      h('option', { value: 'samples', text: 'Normalised by total samples' }),
    ]));
    norm.value = s.normalize;
    norm.addEventListener('change', () => this.set({ normalize: norm.value }));
    const tab = (/** @type {'table'|'flame'} */ v, /** @type {string} */ text) => h('button', {
      class: `btn${s.view === v ? ' primary' : ''}`, 'data-testid': `compare-view-${v}`, text, onclick: () => { if (s.view !== v) this.set({ view: v }); },
    });
    const swap = h('button', { class: 'btn', text: 'Swap', title: 'Make the comparison the baseline', onclick: () => this.navigate(toCompareUrl({ ...s, base: s.new, new: s.base, rangeBase: s.rangeNew, rangeNew: s.rangeBase })) });
    this.root.append(
      h('header', { class: 'trace-head' }, [
        h('a', { class: 'home', href: '/', text: 'etlscope', onclick: (/** @type {MouseEvent} */ ev) => { ev.preventDefault(); this.navigate('/'); } }),
        h('span', { class: 'sep', text: '/' }), names, h('span', { class: 'spacer' }),
        h('button', { class: 'btn primary', text: 'Copy link', 'data-testid': 'copy-link', onclick: async () => { const l = await shortLink(); await copyText(l.url); toast(l.short ? 'Link to this comparison copied' : 'Link to this comparison copied (the long form)'); } }),
      ]),
      h('div', { class: 'toolbar compare-bar' }, [
        h('label', {}, ['Table ', tableSel]), h('label', {}, ['Group ', group]), h('label', {}, ['Values ', values]),
        h('label', {}, ['Baseline range ', range('rangeBase', 'compare-range-base')]), h('label', {}, ['Comparison range ', range('rangeNew', 'compare-range-new')]),
        norm, swap, tab('table', 'Table'), tab('flame', 'Differential flame graph'),
      ]),
    );
    const body = h('section', { class: 'panel analysis compare-body' });
    const status = h('div', { class: 'state loading', 'data-testid': 'compare-status', text: 'Comparing…' });
    this.root.append(h('div', { class: 'page compare-page' }, [status, body]));
    this.load(status, body);
  }

  /** @param {HTMLElement} status @param {HTMLElement} body */
  async load(status, body) {
    const s = this.s;
    const seq = ++this.seq;
    const flame = s.view === 'flame';
    const q = {
      base: s.base, new: s.new, table: flame ? 'cpu-sampled' : s.table,
      columns: flame ? ['Process', 'Stack'] : s.group, normalize: s.normalize, limit: flame ? 100000 : 500,
      ...(s.values.length && !flame ? { values: s.values } : {}),
      ...(s.rangeBase ? { base_range: { start_s: s.rangeBase[0], end_s: s.rangeBase[1] } } : {}),
      ...(s.rangeNew ? { new_range: { start_s: s.rangeNew[0], end_s: s.rangeNew[1] } } : {}),
    };
    try {
      const r = await api.compare(q);
      if (seq !== this.seq) return;
      status.className = 'state';
      const scale = r.factor !== 1 ? ` · baseline ×${r.factor.toFixed(4)}` : '';
      status.textContent = `${fmtInt(r.total_rows)} rows${r.omitted ? ` (${fmtInt(r.omitted)} with the smallest change left out)` : ''}${scale}`;
      if (flame) {
        const w = /** @type {HTMLSelectElement} */ (h('select', { 'data-testid': 'compare-width' }, [h('option', { value: 'base', text: 'Width: baseline' }), h('option', { value: 'new', text: 'Width: comparison' })]));
        w.value = s.width;
        w.addEventListener('change', () => this.set({ width: w.value === 'new' ? 'new' : 'base' }));
        const host = h('div');
        body.append(h('div', { class: 'toolbar' }, [w]), host);
        renderDiffFlame(host, mergeStacks(r.rows), s.width);
      } else {
        body.append(compareTable(r));
      }
    } catch (e) {
      if (seq !== this.seq) return;
      status.className = 'state error';
      status.textContent = `Cannot compare: ${/** @type {Error} */ (e).message}`;
    }
  }
}

/** The table: keys, then per value column baseline / comparison / delta / delta %. @param {any} r */
function compareTable(r) {
  const formats = r.values.map((/** @type {string} */ v, /** @type {number} */ i) => valueFormat(v, (r.value_types || [])[i] || ''));
  const head1 = h('tr', {}, [...r.keys.map((/** @type {string} */ k) => h('th', { rowspan: '2', text: k })),
    ...formats.map((/** @type {any} */ f) => h('th', { colspan: '4', class: 'num', text: f.header }))]);
  const head2 = h('tr', {}, r.values.flatMap(() => ['baseline', 'comparison', 'delta', 'delta %'].map((t) => h('th', { class: 'num', text: t }))));
  const rows = r.rows.map((/** @type {any} */ row) => h('tr', { 'data-testid': 'compare-row' }, [
    ...row.keys.map((/** @type {string} */ k) => h('td', { class: 'label', text: k })),
    ...row.values.flatMap((/** @type {(number|null)[]} */ v, /** @type {number} */ j) => v.map((x, i) => {
      const f = formats[j];
      const shown = x === null ? '' : f.text(x * f.scale);
      return h('td', {
        class: `num${i >= 2 && x !== null && x !== 0 ? (x < 0 ? ' loss' : ' gain') : ''}`,
        'data-value': x === null ? '' : String(x),
        text: i === 3 ? (x === null ? '' : `${x > 0 ? '+' : ''}${x.toFixed(1)}%`) : i === 2 && x !== null && x > 0 ? `+${shown}` : shown,
      });
    })),
  ]));
  return h('table', { class: 'grid compare-table', 'data-testid': 'compare-table-grid' }, [h('thead', {}, [head1, head2]), h('tbody', {}, rows)]);
}

/**
 * "Compare with…" for a trace page or a library row: lists the other ready traces; picking one opens the comparison with
 * this trace as the baseline. @param {string} id @param {(url: string) => void} navigate
 */
export function compareWith(id, navigate) {
  const sel = /** @type {HTMLSelectElement} */ (h('select', { class: 'compare-with', 'data-testid': 'compare-with', title: 'Compare this trace (the baseline) with another' }, [h('option', { value: '', text: 'Compare with…' })]));
  api.listTraces().then(({ traces }) => {
    for (const t of traces) if (t.id !== id && t.status === 'ready') sel.append(h('option', { value: t.id, text: t.name || t.id }));
  }).catch(() => { /* the list stays empty */ });
  sel.addEventListener('change', () => {
    if (sel.value) navigate(toCompareUrl({ base: id, new: sel.value, table: 'cpu-sampled', group: defaultGroup('cpu-sampled'), values: [], rangeBase: null, rangeNew: null, normalize: 'none', view: 'table', width: 'base' }));
  });
  return sel;
}
