// Column widths that fit their content: the widest header or cell of a column, as drawn; on a
// view's first show, each column fitted within a share of its pane (table.js `autoFit`).

/** Widths are kept within these bounds (px). */
const MIN = 40;
const MAX = 1600;
/** Rows measured on first show: enough to cover what the pane shows and scrolls to soon. */
const MEASURE_ROWS = 1000;

/**
 * The width that shows every cell of column `index` of `table` in full. Cells clip their
 * overflow, so with the column squeezed to 1 px their scrollWidth is what their content needs.
 * @param {HTMLTableElement} table @param {number} index @param {HTMLElement} col its <col>
 */
export function fitWidth(table, index, col) {
  return Math.max(MIN, Math.min(MAX, contentWidths(table, [index], [col])[0]));
}

/**
 * What each of columns `indexes` (their <col>s `cols`) needs to show its header and cells in
 * full, in one layout: all squeezed to 1 px at once, paths unelided (`measuring`), then put back.
 * @param {HTMLTableElement} table @param {number[]} indexes @param {HTMLElement[]} cols
 * @returns {number[]}
 */
export function contentWidths(table, indexes, cols) {
  const before = cols.map((c) => c.style.width);
  for (const c of cols) c.style.width = '1px';
  table.classList.add('measuring');
  const need = indexes.map(() => 0);
  const rows = table.rows;
  for (let r = 0; r < rows.length && r < MEASURE_ROWS; r++) {
    const cells = rows[r].cells;
    indexes.forEach((index, k) => {
      // Rows that span the table (the "more rows" notes) have fewer cells.
      if (cells.length <= index || cells[index].colSpan > 1) return;
      need[k] = Math.max(need[k], cells[index].scrollWidth);
    });
  }
  table.classList.remove('measuring');
  cols.forEach((c, k) => { c.style.width = before[k]; });
  return need.map((w) => Math.ceil(w) + 2);
}

/**
 * @typedef {'path'|'stack'|'number'|'text'} ColumnKind
 * A path is elided in the middle past its share; a stack is a deep tree that needs room before
 * it is expanded; numbers are short.
 */

/**
 * A column's first-show width from what it needs: at most a share of the pane (so one long
 * path cannot push the others out of view), at least a readable minimum.
 * @param {number} need @param {ColumnKind} kind @param {number} pane the table's visible width
 */
export function fittedWidth(need, kind, pane) {
  const share = { path: 0.45, stack: 0.6, number: 0.25, text: 0.35 }[kind];
  const min = kind === 'stack' ? Math.min(600, 0.5 * pane) : kind === 'number' ? 56 : 48;
  return Math.round(Math.max(min, Math.min(Math.max(min, share * pane), need)));
}

/**
 * Spare pane width given to the columns cut by their share, each up to what it needs, in order.
 * @param {number[]} widths @param {number[]} needs @param {number} spare px
 * @returns {number[]}
 */
export function spread(widths, needs, spare) {
  return widths.map((w, k) => {
    const more = Math.max(0, Math.min(spare, needs[k] - w));
    spare -= more;
    return w + more;
  });
}
