// A horizontal bar per key on a canvas (the SQL answer's chart by key, the Across traces page
// grouped by a label): label, bar, value. Labels are drawn with fillText, never parsed as markup.
// The drawn bars are kept on the element (`__chart`) for the tests, as the table graph's model.
import { h, fmt2, fmtInt, canvasContext } from './dom.js';
import { colourOf } from './palette.js';

const ROW = 18;
const LABEL_W = 220;
const VALUE_W = 90;

/** @param {number} v */
const valueText = (v) => (Number.isInteger(v) ? fmtInt(v) : fmt2(v));

/**
 * @param {HTMLElement} host
 * @param {{label: string, value: number, ref?: any}[]} bars in the order drawn, top first
 * @param {{title: string, testid: string, onClick?: (bar: {label: string, value: number, ref?: any}) => void}} o
 * @returns {HTMLElement}
 */
export function barChart(host, bars, o) {
  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'bar-canvas', 'data-testid': `${o.testid}-canvas` }));
  const el = h('section', { class: 'bar-chart', 'data-testid': o.testid, 'data-kind': 'bars', 'data-state': 'ready' }, [
    h('div', { class: 'tg-bar' }, [h('span', { class: 'tg-title', text: o.title }), h('span', { class: 'tg-info', text: `${fmtInt(bars.length)} bar${bars.length === 1 ? '' : 's'}` })]),
    canvas,
  ]);
  host.append(el);
  canvas.style.height = `${Math.max(1, bars.length) * ROW + 8}px`;
  /** @type {{label: string, value: number, y0: number, y1: number, x1: number}[]} */
  let drawn = [];
  const draw = () => {
    const c = canvasContext(canvas);
    if (!c) return;
    const { g, W, H } = c;
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    const max = Math.max(0, ...bars.map((b) => b.value)) || 1;
    const span = Math.max(10, W - LABEL_W - VALUE_W - 12);
    drawn = bars.map((b, i) => {
      const y0 = 4 + i * ROW;
      const x1 = LABEL_W + Math.max(1, (Math.max(0, b.value) / max) * span);
      g.fillStyle = '#374151';
      g.textAlign = 'right';
      g.fillText(b.label, LABEL_W - 6, y0 + ROW / 2, LABEL_W - 10);
      g.fillStyle = colourOf(b.label);
      g.fillRect(LABEL_W, y0 + 2, x1 - LABEL_W, ROW - 4);
      g.fillStyle = '#5b6472';
      g.textAlign = 'left';
      g.fillText(valueText(b.value), x1 + 4, y0 + ROW / 2);
      return { label: b.label, value: b.value, y0, y1: y0 + ROW, x1 };
    });
    if (!bars.length) { g.fillStyle = '#6b7280'; g.fillText('No numbers to draw', 8, H / 2); }
    /** @type {any} */ (el).__chart = { kind: 'bars', bars: drawn };
  };
  const hit = (/** @type {MouseEvent} */ e) => drawn.findIndex((b) => e.offsetY >= b.y0 && e.offsetY < b.y1);
  if (o.onClick) {
    canvas.style.cursor = 'pointer';
    canvas.addEventListener('click', (e) => { const i = hit(e); if (i >= 0 && o.onClick) o.onClick(bars[i]); });
  }
  canvas.title = '';
  canvas.addEventListener('mousemove', (e) => { const i = hit(e); canvas.title = i >= 0 ? `${bars[i].label}: ${valueText(bars[i].value)}` : ''; });
  new ResizeObserver(draw).observe(canvas);
  draw();
  return el;
}
