// Rows of a tree table as tab-separated text with a header row, for pasting into a spreadsheet:
// one column per key column (the row's label in it, or the label of the ancestor it is under),
// then the value columns as raw numbers in the API's units (no separators, no units).

/**
 * @typedef {{name: string, value: (n: any) => any}} CopyColumn
 * `value` gives a cell's raw value: a number, a string, or null/undefined for an empty cell.
 */

/** A cell: tabs and line breaks would split it. @param {any} v */
export function tsvCell(v) {
  if (v === null || v === undefined) return '';
  return String(v).replace(/[\t\r\n]+/g, ' ');
}

/**
 * The label of the row or of its nearest ancestor in column `col` (a Stack column: the deepest
 * frame down to this row), or '' when the row is above that column.
 * @param {{column: string, label: string, parent: any}} n @param {string} col
 */
export function labelIn(n, col) {
  for (let x = n; x; x = x.parent) if (x.column === col) return x.label;
  return '';
}

/**
 * @param {any[]} rows in the order shown
 * @param {string[]} keys the key columns, outermost first
 * @param {CopyColumn[]} values
 */
export function rowsTsv(rows, keys, values) {
  const lines = [[...keys, ...values.map((v) => v.name)].map(tsvCell).join('\t')];
  for (const n of rows) lines.push([...keys.map((k) => labelIn(n, k)), ...values.map((v) => v.value(n))].map(tsvCell).join('\t'));
  return `${lines.join('\n')}\n`;
}
