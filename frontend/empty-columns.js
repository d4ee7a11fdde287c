// Value columns that are zero or empty on every row of a trace (File I/O sizes and durations of a
// trace that recorded none): they start hidden. The check asks for the table's top level over
// the whole trace, without the view's range or filters.
import * as api from './api.js';

/** Top-level rows asked for; more (omitted > 0) and nothing is hidden. */
const LIMIT = 100000;

/** @param {any} v */
const blank = (v) => v === null || v === undefined || v === '' || v === 0;

/**
 * The columns right of the gold bar of `t` whose every value on the trace is zero or empty.
 * @param {import('./table.js').TreeTable} t @returns {Promise<string[]>}
 */
export async function emptyColumns(t) {
  if (t.o.table === 'cpu-sampled' || !t.o.groups.length) return [];
  const values = t.dataValues();
  /** @type {any} */
  const q = { table: t.o.table, columns: t.o.groups.slice(0, 1), path: [], limit: LIMIT, sort: { by: 'label', descending: false } };
  if (values.length) q.values = values;
  const r = await api.table(t.o.traceId, q);
  if (r.omitted || !r.rows.length) return [];
  // Only sums of counts, sizes and durations (never negative): a zero sum means every row is zero.
  // Other aggregates of a group (a single value, a minimum) say nothing about each row.
  const zeroMeansAll = (/** @type {string} */ c) => !t.isData(c) || ['sum', 'max'].includes(t.valueInfo.get(c)?.aggregation || '');
  const summed = t.valueColumns().filter((c) => c.sums && c.col !== 'Count' && zeroMeansAll(c.col));
  return summed.filter((c) => r.rows.every((/** @type {any} */ row) => blank(c.value(row)))).map((c) => c.col);
}
