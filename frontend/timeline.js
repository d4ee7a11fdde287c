// CPU usage over time per process, stacked (top processes + "other"), on a canvas.
// Drag selects a time range (it filters every table); wheel and keys zoom and pan.
import * as api from './api.js';
import { h, clear, fmtSecs } from './dom.js';
import { clock, fmtWallClock } from './value-columns.js';
import { OTHER, colourOf } from './palette.js';
import { drawMarks } from './marks.js';
import { drawFocus, LANE_HEIGHT } from './focus-lane.js';

/**
 * @typedef {{traceId: string, duration: number, start: number, cpus: number,
 *   range: [number, number]|null, zoom: [number, number]|null, filters: any[], by: 'process'|'thread',
 *   onRange: (r: [number, number]|null) => void, onZoom: (z: [number, number]|null) => void,
 *   marks?: import('./marks.js').Mark[], focus?: import('./focus-lane.js').FocusSpan[], afterDraw?: () => void}} TimelineOpts
 * `marks`: lines across the graph (marks.js). `focus`: the Window in Focus lane under it (focus-lane.js).
 * `afterDraw`: what goes over the drawn canvas (the notes' markers, notes.js).
 */

export class Timeline {
  /** @param {HTMLElement} host @param {TimelineOpts} o */
  constructor(host, o) {
    this.o = o;
    this.canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'timeline-canvas', tabindex: '0', 'data-testid': 'timeline' }));
    this.legend = h('div', { class: 'legend' });
    this.info = h('span', { class: 'tl-info' });
    this.title = h('span', { class: 'tl-title', text: 'CPU usage by process' });
    // WPA's "Select Time Range": type "7-23" (seconds from the trace start), Enter applies.
    this.rangeInput = /** @type {HTMLInputElement} */ (h('input', {
      class: 'range-input', 'data-testid': 'range-input', placeholder: 'start-end s', title: 'Select a time range: start-end in seconds (or, with times shown as dates, hh:mm:ss.fff-hh:mm:ss.fff), Enter applies',
      value: o.range ? fmtRange(o.range) : '',
    }));
    this.rangeInput.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      const txt = this.rangeInput.value.trim();
      if (!txt) { this.o.onRange(null); return; }
      const r = parseRange(txt, this.o.duration);
      this.rangeInput.classList.toggle('bad', !r);
      if (r) this.o.onRange(r);
    });
    const bar = h('div', { class: 'tl-bar' }, [
      this.title,
      this.info,
      h('label', { class: 'range-label', text: 'Range' }),
      this.rangeInput,
      h('button', { class: 'btn small', text: 'Zoom to selection', onclick: () => { if (this.o.range) this.setZoom(this.o.range, true); } }),
      h('button', { class: 'btn small', text: 'Reset zoom', onclick: () => this.setZoom(null, true) }),
      h('button', { class: 'btn small', text: 'Clear selection', 'data-testid': 'clear-range', onclick: () => this.o.onRange(null) }),
    ]);
    host.append(bar, h('div', { class: 'tl-body' }, [this.canvas, this.legend]));
    /** @type {any} */
    this.data = null;
    this.drag = null;
    this.wheelTimer = 0;
    this.bind();
    new ResizeObserver(() => this.draw()).observe(this.canvas);
  }

  /** The whole trace: from its first event (a boot-time logger's header can be hours earlier) to its end. */
  get view() { return this.o.zoom || [this.o.start, this.o.duration]; }

  async load() {
    const [a, b] = this.view;
    const bins = Math.max(50, Math.min(800, Math.floor((this.canvas.clientWidth || 1000) / 3)));
    this.info.textContent = 'loading…';
    try {
      this.data = await api.timeline(this.o.traceId, { range: { start_s: a, end_s: b }, bins, by: this.o.by, top: 8, filters: this.o.filters });
      this.title.textContent = `CPU usage by ${this.o.by}${this.o.filters.length ? ' (filtered)' : ''}`;
      this.info.textContent = '';
    } catch (e) {
      this.info.textContent = `timeline unavailable: ${e.message}`;
      this.data = null;
    }
    this.renderLegend();
    this.draw();
  }

  renderLegend() {
    clear(this.legend);
    if (!this.data) return;
    const all = [...this.data.series, ...(this.data.other ? [this.data.other] : [])];
    all.forEach((s, i) => {
      const col = i < this.data.series.length ? colourOf(s.id ?? s.label) : OTHER;
      this.legend.append(h('div', { class: 'lg', title: s.label }, [h('span', { class: 'sw', style: { background: col } }), h('span', { class: 'lg-t', text: s.label }), h('span', { class: 'lg-v', text: `${(s.total_ms / 1000).toFixed(2)} s` })]));
    });
  }

  /** @param {number} px */
  xToT(px) { const [a, b] = this.view; return a + (px / this.canvas.clientWidth) * (b - a); }
  /** @param {number} t */
  tToX(t) { const [a, b] = this.view; return ((t - a) / (b - a)) * this.canvas.clientWidth; }

  draw() {
    const c = this.canvas;
    const W = c.clientWidth;
    const H = c.clientHeight;
    if (!W || !H) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = W * dpr;
    c.height = H * dpr;
    const g = c.getContext('2d');
    g.scale(dpr, dpr);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, W, H);
    const top = 4;
    // The Window in Focus lane, when the trace has focus changes, sits between the plot and the axis.
    const lane = this.o.focus && this.o.focus.length ? LANE_HEIGHT : 0;
    const bottom = H - 16 - lane;
    const ph = bottom - top;
    // grid and axis
    g.strokeStyle = '#eceef1';
    g.fillStyle = '#8a9099';
    g.font = '10px system-ui, sans-serif';
    for (let p = 0; p <= 100; p += 25) {
      const y = bottom - (p / 100) * ph;
      g.beginPath(); g.moveTo(0, y + 0.5); g.lineTo(W, y + 0.5); g.stroke();
    }
    const [a, b] = this.view;
    const step = niceStep((b - a) / 10);
    g.textAlign = 'center';
    /** @type {string[]} */ const ticks = [];
    for (let t = Math.ceil(a / step) * step; t <= b; t += step) {
      const x = this.tToX(t);
      g.textAlign = x < 20 ? 'left' : x > W - 20 ? 'right' : 'center';
      const label = tickText(t, step);
      ticks.push(label);
      g.fillText(label, x, H - 4);
      g.beginPath(); g.moveTo(x + 0.5, top); g.lineTo(x + 0.5, bottom); g.stroke();
    }
    g.textAlign = 'left';
    // What the axis says, for tests and screen readers (a canvas has no text of its own).
    c.dataset.ticks = JSON.stringify(ticks);
    const d = this.data;
    if (d) {
      const cap = d.bin_s * 1000 * Math.max(1, this.o.cpus);
      const all = [...d.series, ...(d.other ? [d.other] : [])];
      const n = all.length ? all[0].weight_ms.length : 0;
      const acc = new Float64Array(n);
      all.forEach((s, i) => {
        g.fillStyle = i < d.series.length ? colourOf(s.id ?? s.label) : OTHER;
        for (let k = 0; k < n; k++) {
          const v = s.weight_ms[k] / cap;
          if (v <= 0) continue;
          const x0 = this.tToX(d.start_s + k * d.bin_s);
          const x1 = this.tToX(d.start_s + (k + 1) * d.bin_s);
          const y0 = bottom - acc[k] * ph;
          acc[k] += v;
          const y1 = bottom - Math.min(1, acc[k]) * ph;
          g.fillRect(x0, y1, Math.max(1, x1 - x0 - 0.5), y0 - y1);
        }
      });
    }
    g.fillStyle = '#5b6472';
    g.font = '10px system-ui, sans-serif';
    for (let p = 25; p <= 100; p += 25) {
      const y = bottom - (p / 100) * ph;
      g.fillStyle = 'rgba(255,255,255,0.8)';
      g.fillRect(1, y + 1, 26, 11);
      g.fillStyle = '#5b6472';
      g.fillText(`${p}%`, 3, y + 10);
    }
    if (d && !d.series.length && !d.other) {
      g.fillStyle = '#6b7280';
      g.font = '13px system-ui, sans-serif';
      g.textAlign = 'center';
      g.fillText('No CPU samples in this time window (see the Processes and Images tables)', W / 2, top + ph / 2);
      g.textAlign = 'left';
    // What the axis says, for tests and screen readers (a canvas has no text of its own).
    c.dataset.ticks = JSON.stringify(ticks);
    }
    if (lane && this.o.focus) drawFocus(g, c, this.o.focus, (t) => this.tToX(t), bottom + 1);
    if (this.o.marks) drawMarks(g, c, this.o.marks, (t) => this.tToX(t), top, bottom);
    const r = this.drag ? this.drag.range : this.o.range;
    if (document.activeElement !== this.rangeInput) this.rangeInput.value = r ? fmtRange(r) : '';
    if (r) {
      const x0 = this.tToX(r[0]);
      const x1 = this.tToX(r[1]);
      g.fillStyle = 'rgba(30, 90, 200, 0.12)';
      g.fillRect(x0, top, x1 - x0, ph);
      g.strokeStyle = '#1e5ac8';
      g.strokeRect(x0 + 0.5, top + 0.5, x1 - x0, ph);
      g.font = '11px system-ui, sans-serif';
      const label = clock.mode === 'trace' ? `${r[0].toFixed(3)}–${r[1].toFixed(3)} s (${fmtSecs(r[1] - r[0])})` : `${timeOfDay(r[0])}–${timeOfDay(r[1])} (${fmtSecs(r[1] - r[0])})`;
      const lx = Math.max(32, x0 + 4);
      g.fillStyle = 'rgba(255,255,255,0.9)';
      g.fillRect(lx - 3, top + 18, g.measureText(label).width + 6, 14);
      g.fillStyle = '#1e5ac8';
      g.fillText(label, lx, top + 29);
    }
    if (this.o.afterDraw) this.o.afterDraw();
  }

  /** @param {[number, number]|null} z @param {boolean} commit */
  setZoom(z, commit) {
    if (z) {
      const len = Math.max(1e-4, z[1] - z[0]);
      const start = this.o.start;
      let s = Math.max(start, z[0]);
      let e = s + len;
      if (e > this.o.duration) { e = this.o.duration; s = Math.max(start, e - len); }
      z = s <= start && e >= this.o.duration ? null : [s, e];
    }
    this.o.zoom = z;
    this.draw();
    clearTimeout(this.wheelTimer);
    this.wheelTimer = window.setTimeout(() => { this.load(); if (commit) this.o.onZoom(z); }, commit ? 0 : 250);
    if (!commit) this.pendingZoom = true;
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      c.setPointerCapture(e.pointerId);
      const t0 = this.xToT(e.offsetX);
      this.drag = { t0, range: null, x0: e.offsetX };
    });
    c.addEventListener('pointermove', (e) => {
      if (!this.drag) return;
      if (Math.abs(e.offsetX - this.drag.x0) < 3) return;
      const t1 = this.xToT(Math.max(0, Math.min(c.clientWidth, e.offsetX)));
      const lo = Math.max(0, Math.min(this.drag.t0, t1));
      const hi = Math.min(this.o.duration, Math.max(this.drag.t0, t1));
      this.drag.range = [lo, hi];
      this.draw();
    });
    c.addEventListener('pointerup', () => {
      const d = this.drag;
      this.drag = null;
      if (d && d.range && d.range[1] > d.range[0]) this.o.onRange(d.range);
      else this.draw();
    });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [a, b] = this.view;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const dt = ((e.deltaX || e.deltaY) / c.clientWidth) * (b - a);
        this.setZoom([a + dt, b + dt], false);
      } else {
        const t = this.xToT(e.offsetX);
        const f = Math.exp(e.deltaY * 0.002);
        this.setZoom([t - (t - a) * f, t + (b - t) * f], false);
      }
      this.scheduleCommit();
    }, { passive: false });
    c.addEventListener('keydown', (e) => {
      const [a, b] = this.view;
      const mid = (a + b) / 2;
      const len = b - a;
      if (e.key === '+' || e.key === '=' || e.key === 'w') this.setZoom([mid - len / 3, mid + len / 3], true);
      else if (e.key === '-' || e.key === 's') this.setZoom([mid - len * 0.75, mid + len * 0.75], true);
      else if (e.key === 'ArrowLeft' || e.key === 'a') this.setZoom([a - len / 5, b - len / 5], true);
      else if (e.key === 'ArrowRight' || e.key === 'd') this.setZoom([a + len / 5, b + len / 5], true);
      else if (e.key === '0') this.setZoom(null, true);
      else if (e.key === 'Escape') this.o.onRange(null);
      else return;
      e.preventDefault();
    });
  }

  scheduleCommit() {
    clearTimeout(this.commitTimer);
    this.commitTimer = window.setTimeout(() => this.o.onZoom(this.o.zoom), 600);
  }
}

/** `t` as the clock shows it on the axis: seconds, or the time of day to the step's precision. @param {number} t @param {number} step */
function tickText(t, step) {
  if (clock.mode === 'trace') return `${+t.toFixed(6)} s`;
  const digits = step >= 1 ? 8 : step >= 0.1 ? 10 : step >= 0.01 ? 11 : 12;
  return timeOfDay(t).slice(0, digits);
}

/** `t` seconds after the start as hh:mm:ss.ffffff in the clock's mode. @param {number} t */
const timeOfDay = (t) => fmtWallClock(t).slice(11, 26);

/** The range as the box shows it: seconds, or times of day in the clock's mode. @param {[number, number]} r */
const fmtRange = (r) => (clock.mode === 'trace' ? `${+r[0].toFixed(6)}-${+r[1].toFixed(6)}` : `${timeOfDay(r[0])}-${timeOfDay(r[1])}`);

/** "hh:mm[:ss[.f]]" as seconds after the trace's start, on the start's day in the clock's mode (the next day when earlier). @param {string} s */
function fromTimeOfDay(s) {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d*)?))?$/.exec(s);
  if (!m) return NaN;
  const of = (/** @type {string} */ x) => { const [hh, mm, ss] = x.split(':'); return Number(hh) * 3600 + Number(mm) * 60 + Number(ss); };
  const start = of(timeOfDay(0));
  let t = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] || 0) - start;
  if (t < -1) t += 86400; // past midnight
  return t;
}

/**
 * "7-23", "7 - 23", "7.5–23 s", or with the clock showing dates "09:03:55-09:04:01.5": a range
 * inside [0, duration], or null.
 * @param {string} txt @param {number} duration @returns {[number, number]|null}
 */
export function parseRange(txt, duration) {
  let a = NaN;
  let b = NaN;
  const secs = /^\s*(\d+(?:\.\d*)?)\s*(?:-|–|\.\.)\s*(\d+(?:\.\d*)?)\s*s?\s*$/.exec(txt);
  const tod = /^\s*([\d:.]+)\s*(?:-|–|\.\.)\s*([\d:.]+)\s*$/.exec(txt);
  if (secs) { a = Number(secs[1]); b = Number(secs[2]); } else if (tod && clock.mode !== 'trace') { a = fromTimeOfDay(tod[1]); b = fromTimeOfDay(tod[2]); }
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  a = Math.max(0, a);
  b = Math.min(duration, b);
  return b > a ? [a, b] : null;
}

/** @param {number} raw */
function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}
