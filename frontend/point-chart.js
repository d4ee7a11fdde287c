// Points over dates on a canvas (the Across traces page: one point per trace at its start time):
// dates on X, the measure on Y, flagged points red; a click on a point calls back with it. Labels
// are drawn with fillText; the drawn points are kept on the element (`__chart`) for the tests.
import { h, fmt2, fmtInt, canvasContext } from './dom.js';

const PAD_L = 70;
const PAD_R = 16;
const PAD_T = 12;
const AXIS_H = 20;
const HIT = 8;

/** @param {number} v */
const valueText = (v) => (Number.isInteger(v) ? fmtInt(v) : fmt2(v));
/** A date as the axis writes it (UTC). @param {number} s unix seconds @param {number} span seconds shown */
const dateText = (s, span) => {
  const iso = new Date(s * 1000).toISOString();
  return span > 3 * 86400 ? iso.slice(0, 10) : iso.slice(5, 16).replace('T', ' ');
};

/**
 * @typedef {{x: number, y: number, label: string, flagged?: boolean, ref?: any}} Point
 * `x`: unix seconds; `label`: what the tooltip names (a trace).
 */

/**
 * @param {HTMLElement} host @param {Point[]} points
 * @param {{title: string, testid: string, yName: string, onClick: (p: Point) => void}} o
 */
export function pointChart(host, points, o) {
  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'point-canvas', 'data-testid': `${o.testid}-canvas` }));
  const el = h('section', { class: 'bar-chart', 'data-testid': o.testid, 'data-kind': 'time', 'data-state': 'ready' }, [
    h('div', { class: 'tg-bar' }, [h('span', { class: 'tg-title', text: o.title }), h('span', { class: 'tg-info', text: `${fmtInt(points.length)} trace${points.length === 1 ? '' : 's'}; click a point to open its trace` })]),
    canvas,
  ]);
  host.append(el);
  /** @type {{px: number, py: number, p: Point}[]} */
  let drawn = [];
  const draw = () => {
    const c = canvasContext(canvas);
    if (!c) return;
    const { g, W, H } = c;
    g.font = '10px system-ui, sans-serif';
    const xs = points.map((p) => p.x);
    let x0 = Math.min(...xs);
    let x1 = Math.max(...xs);
    if (!(x1 > x0)) { x0 -= 3600; x1 += 3600; }
    const pad = (x1 - x0) * 0.03;
    x0 -= pad; x1 += pad;
    const max = Math.max(0, ...points.map((p) => p.y)) * 1.08 || 1;
    const bottom = H - AXIS_H;
    const X = (/** @type {number} */ x) => PAD_L + ((x - x0) / (x1 - x0)) * (W - PAD_L - PAD_R);
    const Y = (/** @type {number} */ y) => bottom - (y / max) * (bottom - PAD_T);
    g.strokeStyle = '#eceef1';
    g.fillStyle = '#8a9099';
    for (let k = 0; k <= 4; k++) {
      const v = (max * k) / 4;
      g.beginPath(); g.moveTo(PAD_L, Y(v) + 0.5); g.lineTo(W - PAD_R, Y(v) + 0.5); g.stroke();
      g.textAlign = 'right';
      g.fillText(valueText(Math.round(v)), PAD_L - 6, Y(v) + 3);
    }
    for (let k = 0; k <= 5; k++) {
      const x = x0 + ((x1 - x0) * k) / 5;
      g.textAlign = k === 0 ? 'left' : k === 5 ? 'right' : 'center';
      g.fillText(dateText(x, x1 - x0), X(x), H - 5);
    }
    const sorted = [...points].sort((a, b) => a.x - b.x);
    g.strokeStyle = '#9db4e0';
    g.beginPath();
    sorted.forEach((p, i) => { if (i) g.lineTo(X(p.x), Y(p.y)); else g.moveTo(X(p.x), Y(p.y)); });
    g.stroke();
    drawn = sorted.map((p) => {
      const px = X(p.x);
      const py = Y(p.y);
      g.fillStyle = p.flagged ? '#b42318' : '#1e5ac8';
      g.beginPath(); g.arc(px, py, p.flagged ? 4.5 : 3.5, 0, 2 * Math.PI); g.fill();
      return { px, py, p };
    });
    if (!points.length) { g.fillStyle = '#6b7280'; g.textAlign = 'center'; g.fillText('No trace has this measure', W / 2, bottom / 2); }
    /** @type {any} */ (el).__chart = { kind: 'time', points: drawn.map((d) => ({ px: d.px, py: d.py, label: d.p.label, x: d.p.x, y: d.p.y, flagged: !!d.p.flagged })) };
  };
  const hit = (/** @type {MouseEvent} */ e) => {
    let best = -1;
    let bestD = HIT * HIT;
    drawn.forEach((d, i) => {
      const dd = (d.px - e.offsetX) ** 2 + (d.py - e.offsetY) ** 2;
      if (dd <= bestD) { bestD = dd; best = i; }
    });
    return best;
  };
  canvas.addEventListener('click', (e) => { const i = hit(e); if (i >= 0) o.onClick(drawn[i].p); });
  canvas.addEventListener('mousemove', (e) => {
    const i = hit(e);
    canvas.style.cursor = i >= 0 ? 'pointer' : 'crosshair';
    canvas.title = i >= 0 ? `${drawn[i].p.label}\n${new Date(drawn[i].p.x * 1000).toISOString()}\n${o.yName}: ${valueText(drawn[i].p.y)}` : '';
  });
  new ResizeObserver(draw).observe(canvas);
  draw();
  return el;
}
