// An SQL answer ({columns, rows}) as a grid sorted by a clicked header, and as the text
// `etlscope sql --format tsv|csv` prints for it (copy and export give the CLI's bytes).
// Cells are set as text: results carry whatever strings the trace holds.
import { h } from './dom.js';

/** @typedef {{columns: string[], rows: any[][], truncated?: boolean, seconds?: number}} Answer */

/**
 * SQLite's order of values: NULL, then numbers, then text (by code unit), so a sorted grid
 * reads as `ORDER BY` would have given it.
 * @param {any} a @param {any} b
 */
export function compareCells(a, b) {
  const rank = (/** @type {any} */ v) => (v === null || v === undefined ? 0 : typeof v === 'number' ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The answer's rows in the order shown: by column `col` (stable, so ties keep the answer's
 * order), or as answered when no column is chosen.
 * @param {Answer} a @param {number|undefined} col @param {boolean} asc
 */
export function sortedRows(a, col, asc) {
  if (col === undefined || col < 0 || col >= a.columns.length) return a.rows;
  const dir = asc ? 1 : -1;
  return a.rows.map((r, i) => ({ r, i })).sort((x, y) => dir * compareCells(x.r[col], y.r[col]) || x.i - y.i).map((x) => x.r);
}

/** A cell as the CLI writes it: NULL empty, numbers as printed. @param {any} v */
const cellText = (v) => (v === null || v === undefined ? '' : String(v));

/**
 * The header, then one line per row, as `etlscope sql --format tsv` (tabs and line breaks inside a
 * field as spaces) or `--format csv` (RFC 4180 quotes) writes them.
 * @param {string[]} columns @param {any[][]} rows @param {'tsv'|'csv'} format
 */
export function separatedText(columns, rows, format) {
  const field = format === 'tsv'
    ? (/** @type {string} */ s) => s.replace(/[\t\n\r]/g, ' ')
    : (/** @type {string} */ s) => (/[,"\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const sep = format === 'tsv' ? '\t' : ',';
  const lines = [columns.map(field).join(sep), ...rows.map((r) => r.map((v) => field(cellText(v))).join(sep))];
  return `${lines.join('\n')}\n`;
}

/**
 * The grid: a header per column (click: sort by it ascending, again: descending), numbers right.
 * @param {Answer} a @param {any[][]} rows in the order shown @param {number|undefined} sort @param {boolean} asc
 * @param {(col: number, asc: boolean) => void} onSort
 */
export function resultGrid(a, rows, sort, asc, onSort) {
  const numeric = a.columns.map((_, i) => rows.some((r) => typeof r[i] === 'number') && rows.every((r) => r[i] === null || typeof r[i] === 'number'));
  const head = h('tr', {}, a.columns.map((name, i) => h('th', {
    class: `sortable ${numeric[i] ? 'num' : ''}`, 'data-col': String(i), title: 'Sort by this column (again: the other way)',
    text: sort === i ? `${name} ${asc ? '▲' : '▼'}` : name,
    'aria-sort': sort === i ? (asc ? 'ascending' : 'descending') : 'none',
    onclick: () => onSort(i, sort === i ? !asc : true),
  })));
  const body = h('tbody', {}, rows.map((r) => h('tr', {}, r.map((v, i) => (v === null || v === undefined
    ? h('td', { class: 'null', text: 'NULL' })
    : h('td', { class: numeric[i] ? 'num' : '', text: String(v) }))))));
  return h('table', { class: 'grid sql-grid', 'data-testid': 'sql-results' }, [h('thead', {}, [head]), body]);
}
