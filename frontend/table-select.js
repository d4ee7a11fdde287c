// Several selected rows of a tree table, as in WPA: a click selects one row, Ctrl/Cmd+click adds
// or removes one, Shift+click (or Shift+arrows) selects the run from the anchor. The rows are the
// table's Node objects; the order of a selection is the order the rows are shown in.

/** @template T */
export class RowSelection {
  constructor() {
    /** @type {Set<T>} */
    this.rows = new Set();
    /** Where a Shift range starts. @type {T|null} */
    this.anchor = null;
  }

  /** @param {T} n */
  has(n) { return this.rows.has(n); }

  get size() { return this.rows.size; }

  /** Only this row. @param {T} n */
  only(n) { this.rows = new Set([n]); this.anchor = n; }

  clear() { this.rows.clear(); this.anchor = null; }

  /** Ctrl+click: add or remove one row, which becomes the anchor. @param {T} n */
  toggle(n) {
    if (this.rows.has(n)) this.rows.delete(n); else this.rows.add(n);
    this.anchor = n;
  }

  /** Shift+click: the rows shown from the anchor to `n`, both included. @param {T[]} shown @param {T} n */
  extend(shown, n) {
    const a = this.anchor === null ? -1 : shown.indexOf(this.anchor);
    const b = shown.indexOf(n);
    if (a < 0 || b < 0) { this.only(n); return; }
    this.rows = new Set(shown.slice(Math.min(a, b), Math.max(a, b) + 1));
  }

  /** A click with its modifier keys. @param {T[]} shown @param {T} n @param {{ctrlKey: boolean, metaKey: boolean, shiftKey: boolean}} e */
  click(shown, n, e) {
    if (e.shiftKey) this.extend(shown, n);
    else if (e.ctrlKey || e.metaKey) this.toggle(n);
    else this.only(n);
  }

  /** Every row shown. @param {T[]} shown */
  all(shown) { this.rows = new Set(shown); this.anchor = shown.length ? shown[0] : null; }

  /** The selected rows that are shown, in their order (collapsed ones drop out). @param {T[]} shown */
  ordered(shown) { return shown.filter((n) => this.rows.has(n)); }
}

/**
 * The sums of the selected rows' numeric value columns. A parent and its child both selected
 * count twice, as WPA's selection sum does.
 * @template T
 * @param {T[]} rows @param {{name: string, value: (n: T) => any}[]} columns
 * @returns {{name: string, sum: number}[]}
 */
export function selectionSums(rows, columns) {
  const out = [];
  for (const c of columns) {
    let sum = 0;
    let any = false;
    for (const n of rows) {
      const v = c.value(n);
      if (typeof v === 'number' && Number.isFinite(v)) { sum += v; any = true; }
    }
    if (any) out.push({ name: c.name, sum });
  }
  return out;
}
