// Marks (`xperf -m`, `wpr -marker`) as lines on the timeline and the graphs, and the time
// selection a Regions of Interest row or two Marks rows make (WPA: selecting a region selects
// its time range). Labels are drawn as canvas text, never as markup.
import * as api from './api.js';

/** @typedef {{t: number, label: string}} Mark */

/** Most marks drawn: a trace with more is not one a person marked by hand. */
const MAX_MARKS = 1000;
const COLOUR = '#b4233c';

/** The trace's marks, earliest first (none when it has none). @param {string} traceId @param {any} sum @returns {Promise<Mark[]>} */
export async function loadMarks(traceId, sum) {
  if (!sum || !sum.table_rows || !sum.table_rows.marks) return [];
  const d = await api.table(traceId, { table: 'marks', columns: ['Time'], values: ['Time', 'Label'], sort: { by: 'Time', descending: false }, limit: MAX_MARKS });
  return d.rows.map((/** @type {any} */ r) => ({ t: Number(r.values.Time), label: String(r.values.Label ?? '') })).filter((/** @type {Mark} */ m) => Number.isFinite(m.t));
}

/**
 * Dashed vertical lines at the marks inside the window, each labelled at its top; what was drawn
 * goes to the canvas's `data-marks` (tests and screen readers: a canvas has no text of its own).
 * @param {CanvasRenderingContext2D} g @param {HTMLCanvasElement} canvas @param {Mark[]} marks
 * @param {(t: number) => number} tToX @param {number} top @param {number} bottom
 */
export function drawMarks(g, canvas, marks, tToX, top, bottom) {
  const W = canvas.clientWidth;
  /** @type {{t: number, label: string, x: number}[]} */
  const drawn = [];
  g.save();
  g.strokeStyle = COLOUR;
  g.fillStyle = COLOUR;
  g.setLineDash([4, 3]);
  g.font = '10px system-ui, sans-serif';
  for (const m of marks) {
    const x = tToX(m.t);
    if (!(x >= 0 && x <= W)) continue;
    g.beginPath(); g.moveTo(Math.round(x) + 0.5, top); g.lineTo(Math.round(x) + 0.5, bottom); g.stroke();
    const tw = g.measureText(m.label).width;
    g.fillText(m.label, x + 3 + tw > W ? Math.max(0, x - 3 - tw) : x + 3, top + 10, Math.max(20, W / 4));
    drawn.push({ t: m.t, label: m.label, x });
  }
  g.restore();
  canvas.dataset.marks = JSON.stringify(drawn);
}

/**
 * The time selection the selected rows of a table make, or null: a Regions of Interest row
 * spans its instances (first Start Time to last Stop Time); two or more Marks rows span their
 * times (First (s) to Last (s)).
 * @param {string} table @param {any[]} rows the selected rows (table.js nodes) @returns {[number, number]|null}
 */
export function selectionRange(table, rows) {
  let a = Infinity;
  let b = -Infinity;
  if (table === 'regions') {
    if (rows.length < 1) return null;
    for (const n of rows) {
      const v = n.values || {};
      a = Math.min(a, Number(v['Start Time']));
      b = Math.max(b, Number(v['Stop Time']));
    }
  } else if (table === 'marks') {
    if (rows.length < 2) return null;
    for (const n of rows) {
      a = Math.min(a, Number(n.first_s));
      b = Math.max(b, Number(n.last_s));
    }
  } else return null;
  return Number.isFinite(a) && Number.isFinite(b) && b > a ? [a, b] : null;
}
