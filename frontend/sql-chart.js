// The chart of an SQL answer's numeric column: over time when the answer has a time column (a
// column named `time` or ending in `_time`: ns since trace start, as the SQL tables give them),
// drawn by the tables' own graph (table-graph.js) from bins made here; else a bar per key (the
// first text column, or the first column) in the grid's order (bar-chart.js).
import { TableGraph } from './table-graph.js';
import { GraphCache } from './graph-cache.js';
import { barChart } from './bar-chart.js';

/** Series drawn over time; the rest are one "other" series. */
const TOP = 10;
/** Bins over the answer's time span when its times are not evenly stepped. */
const BINS = 150;
/** Bars drawn by key. */
const BARS = 40;

/** @typedef {import('./sql-results.js').Answer} Answer */
/** @typedef {{kind: 'time'|'bars', value: number, time: number, key: number, numeric: number[]}} Plan */

/** Whether column `i` holds numbers only (and one at least). @param {any[][]} rows @param {number} i */
const isNumeric = (rows, i) => rows.some((r) => typeof r[i] === 'number') && rows.every((r) => r[i] === null || typeof r[i] === 'number');

/**
 * What to draw: the value column (`chosen` when it is numeric, else the last numeric column but a
 * time), along a time column or by key; null when the answer has no number to draw.
 * @param {Answer} a @param {string} [chosen]
 * @returns {Plan|null}
 */
export function chartPlan(a, chosen) {
  const numeric = a.columns.map((_, i) => i).filter((i) => isNumeric(a.rows, i));
  const time = numeric.find((i) => /(^|_)time$/i.test(a.columns[i])) ?? -1;
  const values = numeric.filter((i) => i !== time);
  if (!values.length) return null;
  const picked = values.find((i) => a.columns[i] === chosen);
  const value = picked ?? values[values.length - 1];
  const text = a.columns.map((_, i) => i).find((i) => !numeric.includes(i));
  const key = text ?? (value === 0 ? -1 : 0);
  return { kind: time >= 0 ? 'time' : 'bars', value, time, key, numeric: values };
}

/**
 * The answer binned as the graph API answers (`/graph`'s series kind): the value summed per bin of
 * time and per key (top `TOP` keys, the rest as "other"). Evenly stepped times (a GROUP BY of a
 * time bucket) give a bin per step.
 * @param {Answer} a @param {Plan} p
 */
export function timeSeries(a, p) {
  const rows = a.rows.filter((r) => typeof r[p.time] === 'number' && typeof r[p.value] === 'number');
  const ts = [...new Set(rows.map((r) => /** @type {number} */ (r[p.time])))].sort((x, y) => x - y);
  let step = Infinity;
  for (let i = 1; i < ts.length; i++) step = Math.min(step, ts[i] - ts[i - 1]);
  const lo = ts.length ? ts[0] : 0;
  const hi = ts.length ? ts[ts.length - 1] : 1;
  const stepped = ts.length > 1 && (hi - lo) / step <= 600 && ts.every((t) => (t - lo) % step === 0);
  const n = stepped ? Math.round((hi - lo) / step) + 1 : ts.length > 1 ? BINS : 1;
  // The last time falls in the last bin (the index is clamped); one time alone: a bin of a second.
  const binNs = stepped ? step : ts.length > 1 ? Math.max(1, (hi - lo) / n) : 1e9;
  /** @type {Map<string, Float64Array>} */
  const byKey = new Map();
  /** @type {Map<string, number>} */
  const totals = new Map();
  for (const r of rows) {
    const k = p.key >= 0 ? (r[p.key] === null ? 'NULL' : String(r[p.key])) : a.columns[p.value];
    let v = byKey.get(k);
    if (!v) { v = new Float64Array(n); byKey.set(k, v); }
    const b = Math.min(n - 1, Math.floor((/** @type {number} */ (r[p.time]) - lo) / binNs));
    v[b] += /** @type {number} */ (r[p.value]);
    totals.set(k, (totals.get(k) || 0) + /** @type {number} */ (r[p.value]));
  }
  const keys = [...byKey.keys()].sort((x, y) => (totals.get(y) || 0) - (totals.get(x) || 0));
  const series = keys.slice(0, TOP).map((k) => ({ label: k, values: [...(byKey.get(k) || [])], total: totals.get(k) || 0 }));
  const rest = keys.slice(TOP);
  let other = null;
  if (rest.length) {
    const values = new Array(n).fill(0);
    for (const k of rest) (byKey.get(k) || []).forEach((x, i) => { values[i] += x; });
    other = { label: `other (${rest.length})`, values, total: rest.reduce((s, k) => s + (totals.get(k) || 0), 0) };
  }
  const start_s = lo / 1e9;
  const bin_s = binNs / 1e9;
  return {
    kind: 'series', measure: a.columns[p.value], unit: '', column: p.key >= 0 ? a.columns[p.key] : '',
    start_s, bin_s, range: { start_s, end_s: start_s + n * bin_s }, series, other,
  };
}

/**
 * Draw the chart of plan `p` into `host`: the graph object (destroy it before the next), or null.
 * @param {HTMLElement} host @param {Answer} a @param {any[][]} rows in the grid's order @param {Plan} p
 * @param {{traceId: string, start: number, duration: number}} o
 * @returns {TableGraph|null}
 */
export function drawChart(host, a, rows, p, o) {
  if (p.kind === 'bars') {
    const bars = rows.filter((r) => typeof r[p.value] === 'number').slice(0, BARS)
      .map((r) => ({ label: p.key >= 0 ? (r[p.key] === null ? 'NULL' : String(r[p.key])) : '', value: /** @type {number} */ (r[p.value]) }));
    barChart(host, bars, { title: `${a.columns[p.value]}${p.key >= 0 ? ` by ${a.columns[p.key]}` : ''}`, testid: 'sql-chart' });
    return null;
  }
  const d = timeSeries(a, p);
  const g = new TableGraph(host, {
    traceId: o.traceId, table: 'sql', start: d.range.start_s, duration: d.range.end_s,
    request: () => ({}), measures: [], onSelect: () => {}, labelOf: () => '', cache: new GraphCache(), isStack: () => false,
  });
  g.el.dataset.testid = 'sql-chart';
  g.el.dataset.kind = 'time';
  g.show(d, []);
  return g;
}
