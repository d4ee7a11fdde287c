// Column widths that fit their content: the widest header or cell of a column, as drawn.

/** Widths are kept within these bounds (px). */
const MIN = 40;
const MAX = 1600;

/**
 * The width that shows every cell of column `index` of `table` in full. Cells clip their
 * overflow, so with the column squeezed to 1 px their scrollWidth is what their content needs.
 * @param {HTMLTableElement} table @param {number} index @param {HTMLElement} col its <col>
 */
export function fitWidth(table, index, col) {
  const before = col.style.width;
  col.style.width = '1px';
  let w = 0;
  for (const tr of table.rows) {
    // Rows that span the table (the "more rows" notes) have fewer cells.
    if (tr.cells.length <= index || tr.cells[index].colSpan > 1) continue;
    w = Math.max(w, tr.cells[index].scrollWidth);
  }
  col.style.width = before;
  return Math.max(MIN, Math.min(MAX, Math.ceil(w) + 2));
}
