// Several views on one analysis page: the main view (the tabs above it drive it) and more views
// below or beside it, each with its own table, grouping, values, sort and expanded rows, all
// sharing the page's time selection and filters. A View is one unit on the page: a head, a slot
// for a graph of that view, and the body its table renders into. In the link, each extra view is
// one `pane` parameter (a nested query string) and `lay=side` places them side by side.
import { h } from './dom.js';

/** At most this many views on a page (the main one included). */
export const MAX_VIEWS = 4;

/**
 * @typedef {{table: string, groups: string[], cols: string[], sort: string, desc: boolean,
 *   open: string[][], sel: string[]|null}} PaneState
 */

/** A pane as a nested query string. @param {PaneState} p */
export function encodePane(p) {
  const q = new URLSearchParams();
  q.set('t', p.table);
  q.set('g', p.groups.join(','));
  q.set('c', p.cols.join(','));
  q.set('s', p.sort);
  if (!p.desc) q.set('asc', '1');
  if (p.open.length) q.set('o', JSON.stringify(p.open));
  if (p.sel) q.set('sel', JSON.stringify(p.sel));
  return q.toString();
}

/** @param {any} v */
const strings = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * A pane from its nested query string; null when it names no table.
 * @param {string} s @param {(table: string) => {groups: string[], cols: string[], sort: string}|undefined} defaults
 * @returns {PaneState|null}
 */
export function decodePane(s, defaults) {
  const q = new URLSearchParams(s);
  const table = q.get('t') || '';
  const d = defaults(table);
  if (!d) return null;
  /** @param {string} k */
  const json = (k) => { try { return JSON.parse(q.get(k) || 'null'); } catch { return null; } };
  const open = json('o');
  const sel = json('sel');
  return {
    table,
    groups: q.has('g') ? q.get('g').split(',').filter(Boolean) : [...d.groups],
    cols: q.has('c') ? q.get('c').split(',').filter(Boolean) : [...d.cols],
    sort: q.get('s') || d.sort,
    desc: q.get('asc') !== '1',
    open: Array.isArray(open) ? open.filter(strings) : [],
    sel: strings(sel) ? sel : null,
  };
}

/** One view on the page: `graphSlot` takes a graph of the view, `body` its table. */
export class View {
  /** @param {number} index 0 for the main view @param {HTMLElement[]} [head] controls of the view */
  constructor(index, head = []) {
    this.index = index;
    this.head = h('div', { class: 'pane-head' }, head);
    this.head.hidden = head.length === 0;
    this.graphSlot = h('div', { class: 'pane-graph' });
    /** @type {import('./table-graph.js').TableGraph|null} the graph in `graphSlot` (extra views) */
    this.graph = null;
    /** @type {string[]} the level that graph draws */
    this.graphPath = [];
    this.body = h('div', { class: 'view-body' });
    this.el = h('section', { class: 'view-pane', 'data-testid': `pane-${index}` }, [this.head, this.graphSlot, this.body]);
  }
}

/** The container of the views. @param {'stack'|'side'} layout */
export const viewsEl = (layout) => h('div', { class: `views ${layout}`, 'data-testid': 'views', 'data-layout': layout });
