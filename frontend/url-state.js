// The view state <-> the URL query string (format version 2). The URL is the source of truth:
// every change pushes a history entry, back/forward re-render from it. Tree paths name rows by
// stable identities where the API gives them (v2: process `pid:PID@START`, module
// `mod:NAME@TIMESTAMP:SIZE`, frame `fn:MODULE+RVA`) and by labels otherwise; readable labels
// (process "name (pid)", frame "module!function") are accepted in every segment, as v1 wrote them.

import { encodePane, decodePane, MAX_VIEWS } from './views-layout.js';
import { encodeTrie, decodeTrie } from './path-trie.js';

export const URL_VERSION = 2;
/** Versions this code reads without loss. */
const READS = ['1', '2'];

/**
 * @typedef {{column: string, value: string, exclude: boolean, label?: string}} Filter
 * `value` is what the link stores (a stable identity or a label); `label` is only shown.
 * @typedef {{
 *   view: 'table'|'flame'|'butterfly'|'sysconfig'|'sql',
 *   table: string,
 *   groups: string[],
 *   cols: string[],
 *   sort: string,
 *   desc: boolean,
 *   filters: Filter[],
 *   range: [number, number] | null,
 *   zoom: [number, number] | null,
 *   open: string[][],
 *   sel: string[] | null,
 *   flameZoom: string[],
 *   flameSearch: string,
 *   icicle: boolean,
 *   perProcess: boolean,
 *   noStack: boolean,
 *   bfKind: 'function'|'module',
 *   bfTarget: string,
 *   bfBy: 'function'|'module',
 *   bfOpen: string[][],
 *   clock: 'trace'|'utc'|'local',
 *   scPage?: string,
 *   panes: import('./views-layout.js').PaneState[],
 *   layout: 'stack'|'side',
 *   tags: string,
 *   regions: string,
 *   schemas: string,
 *   flameByTag: boolean,
 *   note?: string,
 *   sql?: string,
 *   sqlSort?: number,
 *   sqlAsc?: boolean,
 *   sqlChart?: string,
 * }} ViewState
 * `clock`: times as seconds since the trace's start (WPA's default), or as wall-clock dates in
 * UTC or in the recording machine's time zone. `panes`: the views below (`stack`) or beside
 * (`side`) the main one, sharing its range and filters. `tags`: the stack tag set the Stack Tag
 * column shows ('' the built-in one); `flameByTag`: the flame graph's roots are stack tags. `schemas`: the library's schema packs
 * that named the trace's providers (docs/schema-packs.md), comma-separated. `note`: the note
 * (notes.js) this view was opened from, highlighted; never part of a note's own view. `regions`: the
 * library's regions file the view's queries use ('' the trace's own, from `--regions`). `sql`: the
 * Query tab's statement (run when the view opens), `sqlSort` the result column sorted by (index)
 * and `sqlAsc` its direction, `sqlChart` the result column charted.
 */

/** Default columns per table: [grouped key columns, columns right of the gold bar], the sort and its
 * direction (descending unless `desc: false`). The lifetime tables open as WPA's lifetime views: one row
 * per instance with its times right of the gold bar, earliest first. */
export const TABLE_DEFAULTS = {
  'cpu-sampled': { groups: ['Process', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)' },
  processes: { groups: ['Process'], cols: ['Start Time', 'End Time', 'Duration', 'Exit Code', 'Command Line'], sort: 'Start Time', desc: false },
  threads: { groups: ['Process', 'Thread ID'], cols: ['Start Time', 'End Time', 'Duration', 'Thread Name'], sort: 'Start Time', desc: false },
  images: { groups: ['Process', 'Image Name'], cols: ['Load Time', 'Unload Time', 'Image Size', 'File Version', 'Image Path'], sort: 'Load Time', desc: false },
  'file-io': { groups: ['Type', 'File Path'], cols: ['Count', 'Size', 'Duration (ms)', '% Weight'], sort: 'Count' },
  'disk-io': { groups: ['IO Type', 'Path Name'], cols: ['Count', 'Size', 'Disk Service Time (ms)', '% Weight'], sort: 'Count' },
  'cpu-precise': { groups: ['New Process', 'New Thread Id', 'New Thread Stack'], cols: ['Count', 'CPU Usage (ms)', 'Waits (ms)', 'Ready (ms)', '% Weight'], sort: 'CPU Usage (ms)' },
  generic: { groups: ['Provider', 'Event Name', 'Process', 'Fields'], cols: ['Count', 'First (s)', 'Last (s)'], sort: 'Count' },
  'hard-faults': { groups: ['Process', 'File Path'], cols: ['Count', 'Size', 'I/O Time (ms)', '% Weight'], sort: 'Count' },
  network: { groups: ['Process', 'Protocol', 'Remote Address'], cols: ['Count', 'Size', '% Weight'], sort: 'Size' },
  'page-faults': { groups: ['Process', 'Type'], cols: ['Count', '% Weight'], sort: 'Count' },
  registry: { groups: ['Process', 'Operation', 'Key Path'], cols: ['Count', 'Duration (ms)', '% Weight'], sort: 'Count' },
  'virtual-alloc': { groups: ['Process', 'Commit Type'], cols: ['Count', 'Size', 'Impacting Size'], sort: 'Impacting Size' },
  heap: { groups: ['Process', 'Type'], cols: ['Count', 'Size', 'Impacting Size'], sort: 'Size' },
  // Regions of Interest: the Region tree ending in its instances, earliest first (selecting one selects its time range).
  regions: { groups: ['Region', 'Instance'], cols: ['Start Time', 'Stop Time', 'Duration', 'Count'], sort: 'Start Time', desc: false },
  marks: { groups: ['Label'], cols: ['First (s)', 'Count'], sort: 'First (s)', desc: false },
  'dpc-isr': { groups: ['CPU', 'Type', 'Module', 'Function'], cols: ['Count', 'Exclusive Duration', 'Inclusive Duration', '% Weight'], sort: 'Exclusive Duration' },
  'processor-frequency': { groups: ['CPU', 'Frequency (MHz)'], cols: ['Count', 'Duration', '% Weight'], sort: 'Duration' },
  'cpu-idle-states': { groups: ['CPU', 'C-State'], cols: ['Count', 'Duration', '% Weight'], sort: 'Duration' },
  'window-in-focus': { groups: ['Process', 'Thread Id'], cols: ['Count', 'Duration', '% Weight'], sort: 'Duration' },
  'ui-delays': { groups: ['Process', 'Thread Id'], cols: ['Count', 'Duration', 'Duration:max', '% Weight'], sort: 'Duration' },
  'gpu-utilization': { groups: ['Engine', 'Process'], cols: ['Count', 'Duration', 'Queue Wait', '% Weight'], sort: 'Duration' },
  'frame-times': { groups: ['Process', 'Window'], cols: ['Count', 'Frame Time', 'Frame Time:max', 'Frame Rate (fps)'], sort: 'Count' },
};

/** @param {string} table @returns {ViewState} */
export function defaultState(table = 'cpu-sampled') {
  const d = /** @type {{groups: string[], cols: string[], sort: string, desc?: boolean}} */ (TABLE_DEFAULTS[table] || TABLE_DEFAULTS['cpu-sampled']);
  return {
    view: 'table', table, groups: [...d.groups], cols: [...d.cols], sort: d.sort, desc: d.desc ?? true,
    filters: [], range: null, zoom: null, open: [], sel: null,
    flameZoom: [], flameSearch: '', icicle: false, perProcess: false, noStack: false,
    bfKind: 'function', bfTarget: '', bfBy: 'function', bfOpen: [], clock: 'trace', panes: [], layout: 'stack',
    tags: '', regions: '', schemas: '', flameByTag: false,
  };
}

/** One label of a path: '/' and '%' escaped so paths join with '/'. @param {string} s */
const escSeg = (s) => (s === '' ? '~' : s.replace(/%/g, '%25').replace(/\//g, '%2F').replace(/~/g, '%7E'));
/** An empty label (e.g. no file version) is written "~". @param {string} s */
const unescSeg = (s) => (s === '~' ? '' : s.replace(/%2F/gi, '/').replace(/%7E/gi, '~').replace(/%25/g, '%'));

/** @param {string[]} path */
export const encodePath = (path) => path.map(escSeg).join('/');
/** @param {string} s @returns {string[]} */
export const decodePath = (s) => (s === '' ? [] : s.split('/').map(unescSeg));

/** @param {[number, number]} r */
const encRange = (r) => `${+r[0].toFixed(6)}-${+r[1].toFixed(6)}`;
/** @param {string|null} s @returns {[number, number]|null} */
function decRange(s) {
  if (!s) return null;
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(s);
  if (!m) return null;
  const a = Number(m[1]);
  const b = Number(m[2]);
  return b > a ? [a, b] : null;
}

/** Only the deepest expanded paths: their prefixes are implied. @param {string[][]} open */
export function maximalPaths(open) {
  const keys = open.map(encodePath);
  const set = new Set(keys);
  return open.filter((_, i) => ![...set].some((k) => k !== keys[i] && k.startsWith(keys[i] + '/')));
}

/**
 * @param {ViewState} s
 * @returns {string} the query string, without '?'
 */
export function toQuery(s) {
  const q = new URLSearchParams();
  q.set('v', String(URL_VERSION));
  q.set('view', s.view);
  q.set('t', s.table);
  q.set('g', s.groups.join(','));
  q.set('c', s.cols.join(','));
  q.set('s', s.sort);
  if (!s.desc) q.set('asc', '1');
  for (const f of s.filters) q.append(f.exclude ? 'x' : 'f', `${f.column}=${f.value}`);
  if (s.range) q.set('r', encRange(s.range));
  if (s.zoom) q.set('z', encRange(s.zoom));
  // Expanded rows: the last one as `o` (the graph follows the row expanded last), the others as one
  // trie `ot`, each shared prefix written once (a `*`-expanded subtree shares its first levels).
  const open = maximalPaths(s.open);
  if (open.length > 1) q.set('ot', encodeTrie(open.slice(0, -1)));
  if (open.length) q.append('o', encodePath(open[open.length - 1]));
  if (s.sel) q.set('sel', encodePath(s.sel));
  if (s.view === 'flame') {
    if (s.flameZoom.length) q.set('fz', encodePath(s.flameZoom));
    if (s.flameSearch) q.set('fs', s.flameSearch);
    if (s.icicle) q.set('icicle', '1');
    if (s.perProcess) q.set('pp', '1');
    if (s.noStack) q.set('ns', '1');
    if (s.flameByTag) q.set('ft', '1');
  }
  if (s.tags) q.set('tags', s.tags);
  if (s.regions) q.set('regions', s.regions);
  if (s.schemas) q.set('schemas', s.schemas);
  if (s.view === 'sysconfig' && s.scPage) q.set('sc', s.scPage);
  if (s.view === 'butterfly' || s.bfTarget) {
    q.set('bk', s.bfKind);
    q.set('bt', s.bfTarget);
    q.set('bb', s.bfBy);
    // Expanded caller/callee tree rows: `c` or `e`, then the row names from the target outwards.
    for (const p of s.bfOpen || []) q.append('bo', encodePath(p));
  }
  if (s.clock !== 'trace') q.set('tm', s.clock);
  for (const p of s.panes) q.append('pane', encodePane(p));
  if (s.panes.length && s.layout === 'side') q.set('lay', 'side');
  if (s.note) q.set('note', s.note);
  // The Query tab's statement and how its answer is shown (the statement stays when another tab opens).
  if (s.sql) q.set('q', s.sql);
  if (s.sql && s.sqlSort !== undefined) q.set('qs', String(s.sqlSort));
  if (s.sql && s.sqlSort !== undefined && s.sqlAsc) q.set('qa', '1');
  if (s.sql && s.sqlChart) q.set('qc', s.sqlChart);
  // Keep links readable: these characters need no escaping in a query string.
  return q.toString().replace(/%(2C|21|28|29|2F|3A|3F|40)/g, (m) => decodeURIComponent(m));
}

/**
 * Parse a query string; unknown or malformed parts fall back to defaults and are reported.
 * @param {string} search
 * @returns {{state: ViewState, problems: string[]}}
 */
export function fromQuery(search) {
  const q = new URLSearchParams(search);
  const problems = [];
  const v = q.get('v');
  if (v !== null && !READS.includes(v)) problems.push(`link format v=${v} is not v=${URL_VERSION}; opened what could be read`);
  const table = q.get('t') || 'cpu-sampled';
  const s = defaultState(TABLE_DEFAULTS[table] ? table : 'cpu-sampled');
  if (!TABLE_DEFAULTS[table]) problems.push(`unknown table "${table}"`);
  const view = q.get('view');
  if (view === 'flame' || view === 'butterfly' || view === 'table' || view === 'sysconfig' || view === 'sql') s.view = view;
  if (q.has('sc')) s.scPage = q.get('sc') || undefined;
  if (q.has('g')) s.groups = q.get('g').split(',').filter(Boolean);
  if (q.has('c')) s.cols = q.get('c').split(',').filter(Boolean);
  if (q.has('s')) s.sort = q.get('s');
  // A link names its sort with its direction; without one, the table's own default holds.
  if (q.has('s') || q.has('asc')) s.desc = q.get('asc') !== '1';
  for (const [k, val] of q.entries()) {
    if (k !== 'f' && k !== 'x') continue;
    const i = val.indexOf('=');
    if (i <= 0) { problems.push(`malformed filter "${val}"`); continue; }
    s.filters.push({ column: val.slice(0, i), value: val.slice(i + 1), exclude: k === 'x' });
  }
  s.range = decRange(q.get('r'));
  if (q.get('r') && !s.range) problems.push('malformed time range ignored');
  s.zoom = decRange(q.get('z'));
  const trie = q.has('ot') ? decodeTrie(q.get('ot') || '') : [];
  if (!trie) problems.push('malformed expanded rows (ot) ignored');
  s.open = [...(trie || []), ...q.getAll('o').map(decodePath)].filter((p) => p.length);
  s.sel = q.has('sel') ? decodePath(q.get('sel')) : null;
  s.flameZoom = q.has('fz') ? decodePath(q.get('fz')) : [];
  s.flameSearch = q.get('fs') || '';
  s.icicle = q.get('icicle') === '1';
  s.perProcess = q.get('pp') === '1';
  s.noStack = q.get('ns') === '1';
  s.flameByTag = q.get('ft') === '1';
  s.tags = q.get('tags') || '';
  s.regions = q.get('regions') || '';
  s.schemas = q.get('schemas') || '';
  if (q.has('bt')) {
    s.bfKind = q.get('bk') === 'module' ? 'module' : 'function';
    s.bfBy = q.get('bb') === 'module' ? 'module' : 'function';
    s.bfTarget = q.get('bt');
    s.bfOpen = q.getAll('bo').map(decodePath).filter((p) => p.length > 1 && (p[0] === 'c' || p[0] === 'e'));
  }
  const tm = q.get('tm');
  if (tm === 'utc' || tm === 'local') s.clock = tm;
  for (const x of q.getAll('pane')) {
    const p = decodePane(x, (t) => TABLE_DEFAULTS[t]);
    if (!p) problems.push('a view of an unknown table was left out');
    else if (s.panes.length + 1 < MAX_VIEWS) s.panes.push(p);
  }
  if (q.get('lay') === 'side') s.layout = 'side';
  if (q.get('q')) s.sql = q.get('q') || '';
  const qs = q.get('qs');
  if (qs !== null && /^\d{1,4}$/.test(qs)) { s.sqlSort = Number(qs); s.sqlAsc = q.get('qa') === '1'; }
  if (q.get('qc')) s.sqlChart = q.get('qc') || '';
  const note = q.get('note') || '';
  if (/^[0-9a-f]{32}$/.test(note)) s.note = note;
  else if (note) problems.push('malformed note id ignored');
  return { state: s, problems };
}

/** The filters in the API's shape (one entry per column and polarity). @param {Filter[]} fs */
export function apiFilters(fs) {
  /** @type {Map<string, {column: string, values: string[], exclude: boolean, contains?: boolean}>} */
  const m = new Map();
  for (const f of fs) {
    const k = `${f.exclude ? 'x' : 'f'}:${f.column}`;
    // "Stack contains" (cpu-sampled): every sample whose stack has the frame, anywhere.
    const contains = f.column.endsWith(' contains');
    const column = contains ? f.column.slice(0, -' contains'.length) : f.column;
    if (!m.has(k)) m.set(k, contains ? { column, values: [], exclude: f.exclude, contains: true } : { column, values: [], exclude: f.exclude });
    m.get(k).values.push(f.value);
  }
  return [...m.values()];
}

/** @param {[number, number]|null} r */
export const apiRange = (r) => (r ? { start_s: r[0], end_s: r[1] } : undefined);
