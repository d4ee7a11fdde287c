// One meaning per %: CPU Usage (Sampled)'s % Weight is a share of the CPU time the range offers
// (range x CPUs, the API's `percent_of`), in the table, the callers/callees and the flame
// tooltip alike, and every % header says what it is a share of.
import * as api from './api.js';

/** @typedef {{basis: string, label: string, base: number, unit: string, description: string, column?: string}} PercentOf */

/**
 * The base of the table's % Weight for `query` (its range; filters do not change it), as /table
 * gives it, or null when it cannot be had (the caller then names its own base).
 * @param {string} traceId @param {any} query @returns {Promise<PercentOf|null>}
 */
export async function cpuShareBase(traceId, query) {
  try {
    const r = await api.table(traceId, { range: query.range, table: 'cpu-sampled', columns: ['Process'], limit: 1 });
    return r.percent_of && r.percent_of.base > 0 ? r.percent_of : null;
  } catch {
    return null;
  }
}

/** What a % is a share of, in a few words ("of range × CPUs"). @param {PercentOf} p */
export function baseWords(p) {
  if (p.basis === 'cpu_capacity') return 'of range × CPUs';
  if (p.basis === 'weight') return `of all ${p.column || 'weight'}`;
  return 'of all rows';
}

/** A % column's header: its label and its base ("% Weight (of range × CPUs)"). @param {PercentOf} p */
export const percentHeader = (p) => `${p.label} (${baseWords(p)})`;
