// WPA profiles (.wpaProfile XML) as etlscope presets: each Graph's Preset under Views becomes a
// preset of the table whose columns it names, as far as our tables map; everything else is listed
// in `unmapped`, never dropped silently. The file is untrusted: bounded size, parsed by the
// browser's XML parser (no scripts, no external entities), every string shown as text.

/** Largest profile read. */
export const MAX_PROFILE_BYTES = 4 << 20;

/** WPA's AggregationMode -> ours (docs/API.md); None is the column's own default. */
const AGG = /** @type {Record<string, string|null>} */ ({ Sum: 'sum', Max: 'max', Min: 'min', Average: 'avg', Count: 'count', UniqueCount: 'unique', None: null, Default: null });
/** CPU Usage (Sampled) values under WPA's names. */
const SAMPLED_VALUES = /** @type {Record<string, string>} */ ({ Count: 'Count', Weight: 'Weight (ms)', '% Weight': '% Weight' });

/** @param {Element} e @param {string} name */
const kids = (e, name) => [...e.children].filter((c) => c.localName === name);
/** @param {Element} e @param {string} a @param {number} d */
const int = (e, a, d) => { const n = Number.parseInt(e.getAttribute(a) || '', 10); return Number.isFinite(n) ? n : d; };

/**
 * @typedef {{name: string, state: Partial<import('./url-state.js').ViewState>}} Preset
 * @typedef {{tables: Record<string, {key_columns: string[], value_columns: string[], columns?: {name: string, aliases: string[]}[]}>}} Columns
 */

/**
 * @param {string} xml
 * @param {Columns} cols the trace's /columns answer: which names each table knows
 * @returns {{presets: Preset[], unmapped: string[]}}
 */
export function importProfile(xml, cols) {
  if (xml.length > MAX_PROFILE_BYTES) throw new Error(`profile of ${xml.length} bytes exceeds ${MAX_PROFILE_BYTES}`);
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length) throw new Error('not valid XML');
  const root = doc.documentElement;
  if (root.localName !== 'WpaProfileContainer') throw new Error(`not a WPA profile (root element ${root.localName})`);
  /** @type {Preset[]} */ const presets = [];
  /** @type {string[]} */ const unmapped = [];
  const views = [...root.getElementsByTagNameNS('*', 'View')];
  if (!views.length) unmapped.push('the profile has no Views');
  for (const view of views) {
    for (const graph of [...view.getElementsByTagNameNS('*', 'Graph')]) {
      for (const preset of kids(graph, 'Preset')) {
        const r = mapPreset(preset, cols);
        unmapped.push(...r.unmapped.map((u) => `${r.name}: ${u}`));
        if (r.preset) presets.push(r.preset);
      }
    }
  }
  return { presets, unmapped };
}

/** The table that knows most of `names`. @param {string[]} names @param {Columns} cols */
function tableOf(names, cols) {
  let best = { table: '', score: 0 };
  for (const [table, t] of Object.entries(cols.tables)) {
    const score = names.filter((n) => knows(t, table, n)).length;
    if (score > best.score) best = { table, score };
  }
  return best.table;
}

/** @param {Columns['tables'][string]} t @param {string} table @param {string} n */
function knows(t, table, n) {
  if (table === 'cpu-sampled' && SAMPLED_VALUES[n]) return true;
  return t.key_columns.includes(n) || t.value_columns.includes(n) || (t.columns || []).some((d) => d.name === n || d.aliases.includes(n));
}

/** @param {Element} p @param {Columns} cols @returns {{name: string, preset: Preset|null, unmapped: string[]}} */
function mapPreset(p, cols) {
  const name = p.getAttribute('Name') || 'WPA preset';
  /** @type {string[]} */ const unmapped = [];
  const columns = kids(p, 'Columns').flatMap((c) => kids(c, 'Column'));
  const visible = columns.filter((c) => c.getAttribute('IsVisible') !== 'false');
  const names = visible.map((c) => c.getAttribute('Name') || '');
  const table = tableOf(names, cols);
  if (!table) return { name, preset: null, unmapped: ['no etlscope table has its columns'] };
  const t = cols.tables[table];
  const keyCount = int(p, 'KeyColumnCount', 0);
  /** @type {string[]} */ const groups = [];
  /** @type {string[]} */ const values = [];
  /** @type {Map<Element, string>} */ const ours = new Map();
  visible.forEach((c, i) => {
    const n = c.getAttribute('Name') || '';
    const mode = c.getAttribute('AggregationMode') || 'None';
    if (i < keyCount) {
      if (t.key_columns.includes(n)) { groups.push(n); ours.set(c, n); } else unmapped.push(`key column "${n}" (not a key column of ${table})`);
      return;
    }
    const agg = Object.hasOwn(AGG, mode) ? AGG[mode] : undefined;
    if (agg === undefined) { unmapped.push(`aggregation ${mode} of "${n}"`); return; }
    if (table === 'cpu-sampled') {
      const v = SAMPLED_VALUES[n];
      if (!v) unmapped.push(`value column "${n}" (CPU Usage (Sampled) values are Count, Weight, % Weight)`);
      else if (agg && agg !== 'sum') unmapped.push(`aggregation ${mode} of "${n}" (sums only)`);
      else { values.push(v); ours.set(c, v); }
      return;
    }
    const def = (t.columns || []).find((d) => d.name === n || d.aliases.includes(n));
    if (!def) { unmapped.push(`value column "${n}"`); return; }
    const spec = agg ? `${def.name}:${agg}` : def.name;
    values.push(spec);
    ours.set(c, spec);
  });
  for (const c of columns.filter((x) => x.getAttribute('IsVisible') === 'false')) unmapped.push(`hidden column "${c.getAttribute('Name')}"`);
  // The sorted column: the one with a SortOrder and the lowest SortPriority.
  const sorted = columns.filter((c) => /^(Ascending|Descending)$/.test(c.getAttribute('SortOrder') || ''))
    .sort((a, b) => int(a, 'SortPriority', 1e9) - int(b, 'SortPriority', 1e9))[0];
  const state = /** @type {Partial<import('./url-state.js').ViewState>} */ ({ view: 'table', table, groups, cols: values });
  if (sorted) {
    const col = ours.get(sorted);
    if (col) { state.sort = col; state.desc = sorted.getAttribute('SortOrder') === 'Descending'; } else unmapped.push(`sort by "${sorted.getAttribute('Name')}"`);
  }
  const filters = filterOf(p, t);
  if (filters.problem) unmapped.push(filters.problem);
  if (filters.filter) state.filters = [filters.filter];
  for (const a of ['GraphColumnCount', 'LeftFrozenColumnCount', 'RightFrozenColumnCount']) {
    if (p.hasAttribute(a)) unmapped.push(`${a} ${p.getAttribute(a)} (etlscope graphs the rows and freezes no columns)`);
  }
  for (const m of kids(p, 'MetadataEntries').flatMap((e) => kids(e, 'MetadataEntry'))) unmapped.push(`metadata entry "${m.getAttribute('Name')}"`);
  return { name, preset: { name, state }, unmapped };
}

/**
 * WPA's InitialFilterQuery in its simplest form, `[Column]:="value"`; anything else is listed.
 * @param {Element} p @param {Columns['tables'][string]} t
 * @returns {{filter?: import('./url-state.js').Filter, problem?: string}}
 */
function filterOf(p, t) {
  const q = (p.getAttribute('InitialFilterQuery') || '').trim();
  if (!q) return {};
  const m = /^\[([^\]]+)\]:="([^"]*)"$/.exec(q);
  if (!m || !t.key_columns.includes(m[1])) return { problem: `filter ${q}` };
  return { filter: { column: m[1], value: m[2], label: m[2], exclude: p.getAttribute('InitialFilterShouldKeep') === 'false' } };
}
