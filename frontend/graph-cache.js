// The graph answers of one page, keyed by exactly what an event table's graph shows: a regroup
// that keeps the graph's level (File Path moved to the value side and back, keeping Process
// first), a value column or its aggregation changed, or a level seen before is drawn at once,
// without asking the server again. The server's graph of a level depends on the key columns down
// to that level, the filters, range, path, bins, top series and measure (and the Stack Tags set),
// not on deeper key columns, value columns, sort or limit (row_graph.rs: series by total).

/** Answers kept (least recently used dropped first). */
const SIZE = 16;

export class GraphCache {
  constructor() {
    /** @type {Map<string, any>} */
    this.map = new Map();
  }

  /** @param {string|null} key */
  get(key) {
    if (key === null || !this.map.has(key)) return undefined;
    const v = this.map.get(key);
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** @param {string|null} key @param {any} v */
  set(key, v) {
    if (key === null) return;
    this.map.delete(key);
    this.map.set(key, v);
    while (this.map.size > SIZE) this.map.delete(this.map.keys().next().value);
  }

  /** Everything may have changed (symbols loaded, a live trace grew). */
  clear() { this.map.clear(); }
}

/**
 * The key of an event table's graph request `q` (a /graph body), or null where the answer may
 * depend on more (lifetime spans follow the table's sort and limit; CPU Usage (Sampled) is left
 * out). `isStack(column)`: a stack column spans any number of levels, so every column counts then.
 * @param {string} traceId @param {any} q @param {string} stackTags @param {(c: string) => boolean} isStack
 */
export function graphKey(traceId, q, stackTags, isStack) {
  if (q.table === 'cpu-sampled' || q.bins === undefined) return null;
  const depth = (q.path || []).length;
  const down = q.columns.slice(0, depth + 1);
  const columns = down.some(isStack) ? q.columns : down;
  return JSON.stringify([traceId, stackTags, q.table, columns, q.filters || [], q.range || null, q.path || [], q.bins, q.top, q.measure || null]);
}
