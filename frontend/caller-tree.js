// WPA's View Callers / View Callees: a tree of a target's callers (each level one frame further up the
// stack) or callees (one frame further down), expanded a level at a time. Each sample follows one path
// from the target's innermost occurrence, so a row's children sum to it (the server's /callers, /callees).
import * as api from './api.js';
import { h, clear, fmtInt, fmt2 } from './dom.js';
import { percentHeader } from './cpu-share.js';

/** Key of an expanded path in the open set: the row names joined as the link writes them. @param {string[]} p */
const pathKey = (p) => JSON.stringify(p);

/**
 * @typedef {{traceId: string, query: () => any, direction: 'callers'|'callees', kind: 'function'|'module', target: string,
 *   by: 'function'|'module', open: string[][], onOpen: (open: string[][]) => void,
 *   onTarget: (kind: 'function'|'module', target: string) => void, percentOf?: import('./cpu-share.js').PercentOf|null}} CallerTreeOpts
 * `open`: the expanded rows, each the path of row names (stable identity, else label) from the target outwards.
 * `percentOf`: the table's % Weight base (range x CPUs); without it the % is of every sample the filters keep.
 */

/**
 * The % column's header, naming its base. @param {import('./cpu-share.js').PercentOf|null|undefined} p
 * @returns {HTMLElement}
 */
export function percentTh(p) {
  return p ? h('th', { class: 'num', text: percentHeader(p), title: `${p.label}: ${p.description}` })
    : h('th', { class: 'num', text: '% Weight (of the samples kept)', title: 'share of the weight of every sample the range and filters keep' });
}

/** Render one tree into `host`. @param {HTMLElement} host @param {CallerTreeOpts} o */
export async function renderCallerTree(host, o) {
  clear(host);
  const up = o.direction === 'callers';
  const title = up ? (o.by === 'module' ? 'Calling module (expand: further up the stack)' : 'Caller (expand: further up the stack)')
    : (o.by === 'module' ? 'Called module (expand: further down the stack)' : 'Callee (expand: further down the stack)');
  const tbody = h('tbody');
  host.append(h('table', { class: 'grid bf ct', 'data-testid': `ct-${o.direction}` }, [
    h('thead', {}, [h('tr', {}, [h('th', { text: title }), h('th', { class: 'num', text: 'Count' }), h('th', { class: 'num', text: 'Weight (ms)' }), percentTh(o.percentOf)])]),
    tbody,
  ]));
  const open = new Set(o.open.map(pathKey));
  /** @param {string[]} path */
  const fetchLevel = (path) => api[o.direction](o.traceId, { ...o.query(), kind: o.kind, target: o.target, by: o.by, path, limit: 200 });
  /** Rows of `path` (already fetched `r`) after `after`, then the open ones' children, depth first. */
  const addLevel = async (/** @type {string[]} */ path, /** @type {any} */ r, /** @type {Element|null} */ after) => {
    let last = after;
    for (const x of r.rows) {
      const name = x.id || x.label;
      const p = [...path, name];
      const isOpen = x.expandable && open.has(pathKey(p));
      const tr = rowEl(x, path.length, isOpen, p);
      if (last) last.after(tr); else tbody.append(tr);
      last = tr;
      if (isOpen) {
        try {
          last = await addLevel(p, await fetchLevel(p), last);
        } catch (e) {
          const err = h('tr', {}, [h('td', { class: 'state error', colspan: '4', text: `Cannot expand: ${e.message}` })]);
          last.after(err);
          last = err;
        }
      }
    }
    if (r.omitted) {
      const more = h('tr', {}, [h('td', { class: 'empty', colspan: '4', text: `${fmtInt(r.omitted)} more rows not shown` })]);
      if (last) last.after(more); else tbody.append(more);
      last = more;
    }
    return last;
  };
  /** @param {any} x @param {number} depth @param {boolean} isOpen @param {string[]} p */
  const rowEl = (x, depth, isOpen, p) => {
    const tog = h('span', { class: `tog ${x.expandable ? '' : 'leaf'}`, text: x.expandable ? (isOpen ? '▾' : '▸') : '' });
    const end = x.label === '[root]' || x.label === '[self]';
    const name = h('span', { class: end ? 'self' : 'link', text: x.label, title: end ? x.label : `Callers and callees of ${x.label}` });
    if (!end) name.addEventListener('click', (e) => { e.stopPropagation(); o.onTarget(o.by, x.id || x.label); });
    const td = h('td', { class: 'label' }, [tog, name]);
    td.style.paddingLeft = `${4 + Math.min(depth, 60) * 14}px`;
    // The table's base when known (the same % for the same weight), else the API's: of every sample kept.
    const pct = o.percentOf ? (100 * x.weight_ms) / o.percentOf.base : x.percent;
    const pc = h('td', { class: 'num', text: fmt2(pct) });
    pc.style.backgroundImage = `linear-gradient(to left, var(--bar) ${Math.min(100, pct).toFixed(1)}%, transparent 0)`;
    const tr = h('tr', { 'data-depth': String(depth), 'data-label': x.label, 'data-count': String(x.count) }, [
      td, h('td', { class: 'num', text: fmtInt(x.count) }), h('td', { class: 'num', text: fmt2(x.weight_ms) }), pc,
    ]);
    if (x.expandable) {
      const flip = () => {
        const k = pathKey(p);
        // Collapsing a row forgets what was open under it, as the table does.
        const under = (/** @type {string[]} */ q) => q.length >= p.length && pathKey(q.slice(0, p.length)) === k;
        o.onOpen(isOpen ? o.open.filter((q) => !under(q)) : [...o.open, p]);
      };
      tog.addEventListener('click', (e) => { e.stopPropagation(); flip(); });
      tr.addEventListener('dblclick', flip);
    }
    return tr;
  };
  let r;
  try {
    r = await fetchLevel([]);
  } catch (e) {
    tbody.append(h('tr', {}, [h('td', { class: 'state error', colspan: '4', text: `Cannot show the ${o.direction}: ${e.message}` })]));
    return;
  }
  if (!r.rows.length) tbody.append(h('tr', {}, [h('td', { class: 'empty', colspan: '4', text: up ? 'No callers' : 'No callees' })]));
  await addLevel([], r, null);
}
