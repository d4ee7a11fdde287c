// WPA profiles (.wpaProfile XML) as etlscope presets. The server reads and maps the file
// (POST /api/wpa-profile, the same parser as `etlscope export --profile`): each View's
// Graph/Preset becomes a preset of the table its Graph GUID names, with the key columns left of
// WPA's gold bar and the value columns with their aggregations; what does not map comes back
// per preset, one summary line plus the details. Every string is shown as text.
import { mapWpaProfile } from './api.js';

/** Largest profile sent (the server refuses more). */
export const MAX_PROFILE_BYTES = 4 << 20;

/**
 * @typedef {{name: string, state: Partial<import('./url-state.js').ViewState>}} Preset
 * @typedef {{column: string, values: string[], exclude: boolean}} MappedFilter
 * @typedef {{name: string, table: string|null, rows: boolean, keys: {ours: string}[], values: {ours: string}[],
 *   sort: {column: string, descending: boolean}|null, filter: MappedFilter|null, summary: string,
 *   unmapped: string[], notes: string[]}} Mapped
 * @typedef {{summary: string, details: string[]}} Report
 */

/** A mapped preset as our view state. @param {Mapped} m @returns {Preset} */
function presetOf(m) {
  /** @type {Partial<import('./url-state.js').ViewState>} */
  const state = { view: 'table', table: m.table || '', groups: m.keys.map((k) => k.ours), cols: m.values.map((v) => v.ours) };
  if (m.sort) { state.sort = m.sort.column; state.desc = m.sort.descending; }
  if (m.filter) {
    const f = m.filter;
    state.filters = f.values.map((value) => ({ column: f.column, value, label: value, exclude: f.exclude }));
  }
  return { name: m.name, state };
}

/**
 * @param {string} xml
 * @returns {Promise<{presets: Preset[], reports: Report[]}>} the presets of our tables, and per
 *   preset of the file one summary line with its details (what did not map, what is approximate)
 */
export async function importProfile(xml) {
  if (xml.length > MAX_PROFILE_BYTES) throw new Error(`profile of ${xml.length} bytes exceeds ${MAX_PROFILE_BYTES}`);
  const r = /** @type {{presets: Mapped[]}} */ (await mapWpaProfile(xml));
  const mapped = Array.isArray(r && r.presets) ? r.presets : [];
  return {
    presets: mapped.filter((m) => m.table).map(presetOf),
    reports: mapped.map((m) => ({
      summary: String(m.summary),
      details: [...(m.unmapped || []).map((u) => `not mapped: ${u}`), ...(m.notes || []).map((n) => `approximate: ${n}`)],
    })),
  };
}
