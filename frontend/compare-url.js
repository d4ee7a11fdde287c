// The comparison view's link: /compare/{base}/{new}?t=TABLE&g=COL,COL&v=VAL,VAL&rb=S-E&rn=S-E&n=none|time|samples&view=table|flame&w=base|new.
// Its own module (url-state.js is the trace page's), so either can change without the other.

export const TABLES = ['cpu-sampled', 'processes', 'threads', 'images', 'file-io', 'disk-io', 'cpu-precise', 'generic', 'hard-faults', 'network', 'page-faults', 'registry', 'virtual-alloc', 'heap', 'dpc-isr', 'processor-frequency', 'cpu-idle-states', 'window-in-focus', 'ui-delays', 'gpu-utilization', 'frame-times', 'regions', 'marks'];
const NORMALIZE = ['none', 'time', 'samples'];

/**
 * @typedef {{base: string, new: string, table: string, group: string[], values: string[], rangeBase: [number, number]|null,
 *   rangeNew: [number, number]|null, normalize: string, view: 'table'|'flame', width: 'base'|'new'}} CompareState
 */

/** `/compare/{base}/{new}` -> the two ids, or null. @param {string} pathname */
export function compareIds(pathname) {
  const m = /^\/compare\/([0-9a-f]{32})\/([0-9a-f]{32})\/?$/.exec(pathname);
  return m ? { base: m[1], new: m[2] } : null;
}

/** "7-23" -> [7, 23]; anything else null. @param {string|null} s @returns {[number, number]|null} */
export function parseRange(s) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/.exec(s || '');
  if (!m) return null;
  const a = Number(m[1]);
  const b = Number(m[2]);
  return a <= b ? [a, b] : null;
}

/** @param {[number, number]|null} r */
export const rangeText = (r) => (r ? `${r[0]}-${r[1]}` : '');

/** @param {string|null} s */
const list = (s) => (s || '').split(',').map((x) => x.trim()).filter(Boolean);

/** @param {string} pathname @param {string} search @returns {CompareState|null} */
export function fromCompareUrl(pathname, search) {
  const ids = compareIds(pathname);
  if (!ids) return null;
  const q = new URLSearchParams(search);
  const table = TABLES.includes(q.get('t') || '') ? /** @type {string} */ (q.get('t')) : 'cpu-sampled';
  const group = list(q.get('g'));
  return {
    ...ids,
    table,
    group: group.length ? group : defaultGroup(table),
    values: list(q.get('v')),
    rangeBase: parseRange(q.get('rb')),
    rangeNew: parseRange(q.get('rn')),
    normalize: NORMALIZE.includes(q.get('n') || '') ? /** @type {string} */ (q.get('n')) : 'none',
    view: q.get('view') === 'flame' ? 'flame' : 'table',
    width: q.get('w') === 'new' ? 'new' : 'base',
  };
}

/** The grouping a table opens with. @param {string} table */
export const defaultGroup = (table) => (table === 'cpu-sampled' ? ['Process'] : table === 'images' ? ['Image Name'] : table === 'file-io' ? ['File Path'] : ['Process']);

/** @param {CompareState} s */
export function toCompareUrl(s) {
  const q = new URLSearchParams();
  q.set('t', s.table);
  q.set('g', s.group.join(','));
  if (s.values.length) q.set('v', s.values.join(','));
  if (s.rangeBase) q.set('rb', rangeText(s.rangeBase));
  if (s.rangeNew) q.set('rn', rangeText(s.rangeNew));
  if (s.normalize !== 'none') q.set('n', s.normalize);
  if (s.view === 'flame') q.set('view', 'flame');
  if (s.width === 'new') q.set('w', 'new');
  return `/compare/${s.base}/${s.new}?${q.toString()}`;
}
