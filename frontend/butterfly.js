// The Callers / callees tab: the caller tree of a function or module above it, its callee tree below
// (WPA's View Callers / View Callees), then the one-level butterfly: every direct caller and callee.
import * as api from './api.js';
import { h, clear, fmtInt, fmt2 } from './dom.js';
import { renderCallerTree, percentTh } from './caller-tree.js';
import { cpuShareBase, baseWords } from './cpu-share.js';
import { functionSearch } from './function-search.js';

/**
 * @typedef {{traceId: string, query: () => any, kind: 'function'|'module', target: string, by: 'function'|'module',
 *   open?: string[][], onOpen?: (open: string[][]) => void,
 *   onChange: (kind: 'function'|'module', target: string, by: 'function'|'module') => void, onNotice: (m: string) => void}} ButterflyOpts
 * `open`: the expanded tree rows, each `c` (callers) or `e` (callees) then the row names from the target outwards.
 */

/** @param {HTMLElement} host @param {ButterflyOpts} o */
export async function renderButterfly(host, o) {
  clear(host);
  const kind = /** @type {HTMLSelectElement} */ (h('select', {}, [h('option', { value: 'function', text: 'Function' }), h('option', { value: 'module', text: 'Module' })]));
  kind.value = o.kind;
  const by = /** @type {HTMLSelectElement} */ (h('select', { 'data-testid': 'butterfly-by' }, [h('option', { value: 'function', text: 'by function' }), h('option', { value: 'module', text: 'by module' })]));
  by.value = o.by;
  // The box shows the target's label; the link keeps its stable identity until the text is edited.
  let shown = o.target;
  const search = functionSearch({
    traceId: o.traceId, query: o.query, value: o.target,
    onPick: (k, target) => {
      if (k) o.onChange(k, target, /** @type {any} */ (by.value));
      else go();
    },
  });
  const input = search.input;
  const go = () => {
    const v = input.value.trim();
    o.onChange(/** @type {any} */ (kind.value), v === shown && kind.value === o.kind ? o.target : v, /** @type {any} */ (by.value));
  };
  kind.addEventListener('change', go);
  by.addEventListener('change', go);
  const body = h('div', { class: 'bf-body', 'data-testid': 'butterfly' });
  host.append(h('div', { class: 'toolbar' }, [h('span', { class: 'tb-label', text: 'Callers and callees of' }), kind, search.el, by, h('button', { class: 'btn', text: 'Show', onclick: go })]), body);
  if (!o.target) {
    body.append(h('div', { class: 'state', text: 'Pick a function or module: type part of its name above and choose it, or right-click a row in a table or a flame graph box and choose "View callers/callees".' }));
    return;
  }
  body.append(h('div', { class: 'state loading', text: 'Loading…' }));
  let r;
  // The table's % Weight base, asked alongside: the same % here as there for the same weight.
  const base = cpuShareBase(o.traceId, o.query());
  try {
    r = await api.butterfly(o.traceId, { ...o.query(), kind: o.kind, target: o.target, by: o.by });
  } catch (e) {
    clear(body);
    body.append(h('div', { class: 'state error', text: `Cannot show "${o.target}": ${e.message}` }));
    return;
  }
  clear(body);
  if (document.activeElement !== input) { input.value = r.target.label; shown = r.target.label; }
  const percentOf = await base;
  const total = percentOf ? percentOf.base : r.total.weight_ms || 1;
  const ofWhat = percentOf ? baseWords(percentOf) : 'of the samples kept';
  /** @param {string} title @param {any[]} rows @param {string} cls */
  const list = (title, rows, cls) => {
    const max = rows.reduce((m, x) => Math.max(m, x.weight_ms), 0) || 1;
    const t = h('table', { class: `grid bf ${cls}`, 'data-testid': `bf-${cls}` }, [
      h('thead', {}, [h('tr', {}, [h('th', { text: title }), h('th', { class: 'num', text: 'Count' }), h('th', { class: 'num', text: 'Weight (ms)' }), percentTh(percentOf)])]),
    ]);
    const tb = h('tbody');
    if (!rows.length) tb.append(h('tr', {}, [h('td', { class: 'empty', colspan: '4', text: cls === 'callers' ? 'No callers (a root)' : 'No callees (a leaf)' })]));
    for (const x of rows) {
      const name = h('td', { class: 'label link', text: x.label, title: `Show callers and callees of ${x.label}` });
      name.addEventListener('click', () => o.onChange(o.by, x.id || x.label, o.by));
      const pc = h('td', { class: 'num', text: fmt2((100 * x.weight_ms) / total) });
      pc.style.backgroundImage = `linear-gradient(to left, var(--bar) ${((100 * x.weight_ms) / max).toFixed(1)}%, transparent 0)`;
      tb.append(h('tr', {}, [name, h('td', { class: 'num', text: fmtInt(x.count) }), h('td', { class: 'num', text: fmt2(x.weight_ms) }), pc]));
    }
    t.append(tb);
    return t;
  };
  const open = o.open || [];
  /** @param {'callers'|'callees'} direction */
  const tree = (direction) => {
    const host = h('div', { class: 'ct-host' });
    const mark = direction === 'callers' ? 'c' : 'e';
    renderCallerTree(host, {
      traceId: o.traceId, query: o.query, direction, kind: o.kind, target: o.target, by: o.by, percentOf,
      open: open.filter((p) => p[0] === mark).map((p) => p.slice(1)),
      onOpen: (mine) => o.onOpen && o.onOpen([...open.filter((p) => p[0] !== mark), ...mine.map((p) => [mark, ...p])]),
      onTarget: (k, target) => o.onChange(k, target, o.by),
    });
    return host;
  };
  body.append(
    h('div', { class: 'bf-head', text: 'View Callers' }),
    tree('callers'),
    h('div', { class: 'bf-target', 'data-testid': 'bf-center' }, [
      h('span', { class: 'bf-name', text: r.target.label }),
      h('span', { class: 'bf-num', 'data-count': String(r.inclusive.count), 'data-testid': 'bf-inclusive', text: `inclusive ${fmtInt(r.inclusive.count)} samples (${fmt2((100 * r.inclusive.weight_ms) / total)}% ${ofWhat})` }),
      h('span', { class: 'bf-num', text: `self ${fmtInt(r.self.count)}` }),
    ]),
    h('div', { class: 'bf-head', text: 'View Callees' }),
    tree('callees'),
    h('div', { class: 'bf-head', text: 'Butterfly: every direct caller and callee, each once per sample' }),
    list(o.by === 'module' ? 'Calling module' : 'Caller', r.callers, 'callers'),
    list(o.by === 'module' ? 'Called module' : 'Callee', r.callees, 'callees'),
  );
}
