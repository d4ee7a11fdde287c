// Window in Focus as a lane under the CPU timeline (WPA's Window in Focus graph): one bar per time a
// thread had the keyboard focus, coloured by its process like the CPU series above it. Process names
// are drawn as canvas text, never as markup.
import * as api from './api.js';
import { colourOf } from './palette.js';

/** @typedef {{label: string, start_s: number, end_s: number}} FocusSpan */

/** Most spans drawn (a focus change per few ms for minutes is not one a lane can show). */
const MAX_SPANS = 5000;
/** Height of the lane in CSS pixels (its bars and a gap). */
export const LANE_HEIGHT = 12;

/** The trace's focus spans, earliest first (none when it has no FocusChange). @param {string} traceId @param {any} sum @returns {Promise<FocusSpan[]>} */
export async function loadFocus(traceId, sum) {
  if (!sum || !sum.table_rows || !sum.table_rows['window-in-focus']) return [];
  const d = await api.table(traceId, {
    table: 'window-in-focus', columns: ['Start Time'], values: ['Start Time', 'End Time', 'Process'],
    sort: { by: 'Start Time', descending: false }, limit: MAX_SPANS,
  });
  return d.rows.map((/** @type {any} */ r) => ({ label: String(r.values.Process ?? ''), start_s: Number(r.values['Start Time']), end_s: Number(r.values['End Time']) }))
    .filter((/** @type {FocusSpan} */ s) => Number.isFinite(s.start_s) && Number.isFinite(s.end_s));
}

/**
 * The lane at `y`: a bar per span inside the window, its process's name on it when it fits; what
 * was drawn goes to the canvas's `data-focus` (tests and screen readers: a canvas has no text).
 * @param {CanvasRenderingContext2D} g @param {HTMLCanvasElement} canvas @param {FocusSpan[]} spans
 * @param {(t: number) => number} tToX @param {number} y
 */
export function drawFocus(g, canvas, spans, tToX, y) {
  const W = canvas.clientWidth;
  const hgt = LANE_HEIGHT - 2;
  /** @type {FocusSpan[]} */
  const drawn = [];
  g.save();
  g.font = '9px system-ui, sans-serif';
  g.textBaseline = 'middle';
  for (const s of spans) {
    const x0 = Math.max(0, tToX(s.start_s));
    const x1 = Math.min(W, tToX(s.end_s));
    if (!(x1 >= 0 && x0 <= W && x1 >= x0)) continue;
    g.fillStyle = colourOf(s.label);
    g.fillRect(x0, y, Math.max(1, x1 - x0 - 0.5), hgt);
    const name = s.label.replace(/ \(\d+\)$/, '');
    if (x1 - x0 > g.measureText(name).width + 4) {
      g.fillStyle = '#fff';
      g.fillText(name, x0 + 2, y + hgt / 2, x1 - x0 - 4);
    }
    drawn.push(s);
  }
  g.restore();
  canvas.dataset.focus = JSON.stringify(drawn);
}
