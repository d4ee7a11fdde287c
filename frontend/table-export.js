// The current table view (keys, values, sort, filters, range) as `etlscope export` arguments, and
// its download as CSV or TSV from the server's export endpoint, which writes the CLI's bytes.
import * as api from './api.js';
import { findDef } from './value-columns.js';

/** UI value columns whose export name differs: the weight in the table's own column. */
const UI_NAMES = /** @type {Record<string, string>} */ ({ 'Weight (ms)': 'Weight', 'Duration (ms)': 'Duration', 'Disk Service Time (ms)': 'Disk Service Time',
  'CPU Usage (ms)': 'CPU Usage', 'Waits (ms)': 'Waits', 'Ready (ms)': 'Ready' });

/**
 * The export name of a column right of the gold bar, or null when the export has none (First/Last).
 * @param {string} c @param {import('./value-columns.js').ColumnDef[]} defs
 */
export function exportValueName(c, defs) {
  if (c === 'Count' || c === '% Weight') return c;
  const n = UI_NAMES[c] ?? c;
  const base = n.includes(':') ? n.slice(0, n.lastIndexOf(':')) : n;
  return findDef(defs, base) ? n : null;
}

/**
 * @param {import('./url-state.js').ViewState} s
 * @param {import('./value-columns.js').ColumnDef[]} defs
 * @param {'csv'|'tsv'} format
 * @returns {{spec: any, dropped: string[]}} the request, and what of the view it cannot carry
 */
export function exportSpec(s, defs, format) {
  const dropped = [];
  const values = [];
  for (const c of s.cols) {
    const n = exportValueName(c, defs);
    if (n) values.push(n); else dropped.push(c);
  }
  const filters = [];
  for (const f of s.filters) {
    // Export filters keep rows whose cell text equals the value; a link's stable identity is not a cell text.
    if (f.exclude || f.column.endsWith(' contains') || (!f.label && /^(pid|mod|fn):/.test(f.value))) dropped.push(`filter ${f.column}`);
    else filters.push(`${f.column}=${f.label ?? f.value}`);
  }
  const sortName = s.groups.includes(s.sort) ? s.sort : exportValueName(s.sort, defs);
  /** @type {any} */
  const spec = { table: s.table, group: s.groups, values, format };
  if (sortName && (s.groups.includes(sortName) || values.includes(sortName))) spec.sort = `${sortName}:${s.desc ? 'desc' : 'asc'}`;
  if (s.range) spec.range = { start_s: s.range[0], end_s: s.range[1] };
  if (filters.length) spec.filters = filters;
  return { spec, dropped };
}

/** Download the view. @param {string} traceId @param {any} spec @param {string} name */
export async function downloadExport(traceId, spec, name) {
  const blob = await api.exportTable(traceId, spec);
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name}.${spec.format}`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
