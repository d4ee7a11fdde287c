// Value columns right of the gold bar on row tables: any column of the table with an aggregation,
// written `COL` (its default aggregation) or `COL:AGG` as the API and `etlscope export --values`
// take them. The column definitions (type, unit, default aggregation) come from /columns.
import { fmtInt, fmtSize, fmtSecs } from './dom.js';

/** @typedef {{name: string, aliases: string[], type: string, unit: string|null, aggregation: string, aggregations?: string[]}} ColumnDef */
/** @typedef {{name: string, column: string, aggregation: string, type: string, unit: string|null}} ValueInfo */

/** Aggregations as the API names them. */
export const AGGREGATIONS = ['sum', 'min', 'max', 'avg', 'count', 'unique', 'single'];
/** @type {Record<string, string>} */
const LABELS = { sum: 'Sum', min: 'Min', max: 'Max', avg: 'Average', count: 'Count', unique: 'Unique Count', single: 'Value (or count of values)' };
/** Column types whose cells are numbers (Sum, Min, Max and Avg need them). */
const NUMERIC = new Set(['count', 'size', 'duration', 'time', 'address', 'id']);

/** @param {string} agg */
export const aggLabel = (agg) => LABELS[agg] || agg;

/** `COL:AGG` -> {name, agg}; a plain `COL` has agg null. @param {string} spec */
export function splitSpec(spec) {
  const i = spec.lastIndexOf(':');
  if (i > 0 && AGGREGATIONS.includes(spec.slice(i + 1))) return { name: spec.slice(0, i), agg: spec.slice(i + 1) };
  return { name: spec, agg: /** @type {string|null} */ (null) };
}

/** The definition a name (or an older alias) names. @param {ColumnDef[]} defs @param {string} name */
export function findDef(defs, name) {
  return defs.find((d) => d.name === name) || defs.find((d) => d.aliases.includes(name)) || null;
}

/** Aggregations that apply to a column: the server's list (ids, addresses and times never Sum). @param {ColumnDef} def */
export function aggregationsOf(def) {
  if (Array.isArray(def.aggregations)) return AGGREGATIONS.filter((a) => def.aggregations.includes(a));
  if (def.type === 'stack') return [];
  return NUMERIC.has(def.type) ? AGGREGATIONS : ['count', 'unique', 'single'];
}

/** The spec of `def` with `agg` (the plain name for its default). @param {ColumnDef} def @param {string} agg */
export const specOf = (def, agg) => (agg === def.aggregation ? def.name : `${def.name}:${agg}`);

/** A spec in its canonical form (WPA's name), or null when the table has no such value. @param {ColumnDef[]} defs @param {string} spec */
export function canonicalSpec(defs, spec) {
  const { name, agg } = splitSpec(spec);
  const def = findDef(defs, name);
  if (!def || name === 'Count') return null;
  const a = agg || def.aggregation;
  return aggregationsOf(def).includes(a) ? specOf(def, a) : null;
}

/** Whether cells of this type are numbers (right-aligned). @param {string} type */
export const isNumericType = (type) => NUMERIC.has(type) && type !== 'address';

/**
 * How times are shown: seconds since the trace's start, or dates (UTC, or the recording
 * machine's local time). Set by the trace page from its summary and view state.
 * @type {{mode: 'trace'|'utc'|'local', startUnixUs: number, biasMinutes: number}}
 */
export const clock = { mode: 'trace', startUnixUs: 0, biasMinutes: 0 };

/** `t` seconds after the trace's start as a date in the clock's mode, to the microsecond. @param {number} t */
export function fmtWallClock(t) {
  const local = clock.mode === 'local';
  const offsetMin = local ? -clock.biasMinutes : 0;
  // Whole microseconds: a date in seconds as a double keeps only about 0.2 µs.
  const us = clock.startUnixUs + Math.round(t * 1e6) + offsetMin * 60e6;
  const d = new Date(Math.floor(us / 1000));
  const frac = String(((us % 1e6) + 1e6) % 1e6).padStart(6, '0');
  const base = d.toISOString().slice(0, 19).replace('T', ' ');
  return local ? `${base}.${frac}${fmtUtcOffset(offsetMin)}` : `${base}.${frac}Z`;
}

/** An offset from UTC in minutes as "+hh:mm" / "-hh:mm". @param {number} minutes */
export function fmtUtcOffset(minutes) {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/**
 * A value as the table shows it: sizes and durations with units, times in seconds from trace
 * start, counts with separators; a text column over several values shows how many.
 * @param {any} v the API's value (base units) @param {string} type
 */
export function formatValue(v, type) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  switch (type) {
    case 'count': return fmtInt(v);
    case 'size': return fmtSize(v);
    case 'duration': return fmtSecs(v);
    case 'time': return clock.mode === 'trace' ? v.toFixed(6) : fmtWallClock(v);
    case 'id': return String(v);
    default: return `${fmtInt(v)} values`;
  }
}
