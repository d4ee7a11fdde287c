// Presets the user brought: imported from a WPA profile or from our own preset file, kept in this
// browser (localStorage), offered after the built-in ones. "Export presets" writes every preset
// as our JSON file ({"etlscope_presets": 1, "presets": [{name, state}]}), which imports back.
import { PRESETS } from './presets.js';
import { importProfile } from './wpa-profile.js';

const KEY = 'etlscope.presets';
/** Our file's format version. */
export const PRESET_FILE_VERSION = 1;

/** @typedef {import('./wpa-profile.js').Preset} Preset */

/** @returns {Preset[]} */
export function userPresets() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '[]');
    return Array.isArray(v) ? v.filter((p) => p && typeof p.name === 'string' && p.state && typeof p.state === 'object') : [];
  } catch { return []; }
}

/** Built-in presets, then the user's. */
export const allPresets = () => [...PRESETS, ...userPresets()];

/** Add presets, replacing the user's presets of the same name. @param {Preset[]} ps */
function keep(ps) {
  const names = new Set(ps.map((p) => p.name));
  localStorage.setItem(KEY, JSON.stringify([...userPresets().filter((p) => !names.has(p.name)), ...ps]));
}

/** Only the view-state fields a preset may set, with their types checked. @param {any} s */
function cleanState(s) {
  /** @type {any} */ const o = {};
  for (const k of ['view', 'table', 'sort']) if (typeof s[k] === 'string') o[k] = s[k];
  for (const k of ['groups', 'cols']) if (Array.isArray(s[k])) o[k] = s[k].filter((/** @type {any} */ x) => typeof x === 'string');
  for (const k of ['desc', 'perProcess', 'flameByTag']) if (typeof s[k] === 'boolean') o[k] = s[k];
  if (Array.isArray(s.filters)) {
    o.filters = s.filters.filter((/** @type {any} */ f) => f && typeof f.column === 'string' && typeof f.value === 'string')
      .map((/** @type {any} */ f) => ({ column: f.column, value: f.value, exclude: !!f.exclude, ...(typeof f.label === 'string' ? { label: f.label } : {}) }));
  }
  return o;
}

/**
 * Import a .wpaProfile (mapped by the server) or our preset JSON; returns what was added and, per
 * WPA preset, a summary line with its details.
 * @param {string} name file name @param {string} text
 * @returns {Promise<{presets: Preset[], reports: import('./wpa-profile.js').Report[]}>}
 */
export async function importPresets(name, text) {
  let r;
  if (/\.json$/i.test(name) || text.trimStart().startsWith('{')) {
    const v = JSON.parse(text);
    if (!v || v.etlscope_presets !== PRESET_FILE_VERSION || !Array.isArray(v.presets)) throw new Error('not an etlscope preset file');
    const presets = v.presets.filter((/** @type {any} */ p) => p && typeof p.name === 'string' && p.state && typeof p.state === 'object')
      .map((/** @type {any} */ p) => ({ name: p.name, state: cleanState(p.state) }));
    r = { presets, reports: [] };
  } else {
    r = await importProfile(text);
  }
  keep(r.presets);
  return r;
}

/** Every preset as our file's text. */
export const exportText = () => JSON.stringify({ etlscope_presets: PRESET_FILE_VERSION, presets: allPresets() }, null, 2);

/** Download the preset file. */
export function downloadPresets() {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([exportText()], { type: 'application/json' }));
  a.download = 'etlscope-presets.json';
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
