// Flame graph (or icicle) on a canvas, from /flame's depth-first boxes. Hover shows a tooltip,
// click zooms into a box, the breadcrumb zooms out, search highlights matches and sums them.
import * as api from './api.js';
import { h, clear, fmtInt, fmt2 } from './dom.js';
import { cpuShareBase, baseWords } from './cpu-share.js';
import { moduleColour, moduleOf } from './palette.js';

const ROW = 17;

/**
 * @typedef {{traceId: string, query: () => any, zoom: string[], search: string, icicle: boolean, perProcess: boolean,
 *   noStack?: boolean, onNoStack?: (on: boolean) => void,
 *   onZoom: (path: string[]) => void, onSearch: (q: string) => void, onIcicle: (on: boolean) => void, onPerProcess: (on: boolean) => void,
 *   onNotice: (msg: string) => void, onContext: (label: string, ev: MouseEvent, isProcess: boolean, depth: number) => void}} FlameOpts
 */

export class Flame {
  /** @param {HTMLElement} host @param {FlameOpts} o */
  constructor(host, o) {
    this.o = o;
    /** The table's % Weight base (range x CPUs), when known. @type {import('./cpu-share.js').PercentOf|null} */
    this.percentOf = null;
    this.crumbs = h('div', { class: 'crumbs', 'data-testid': 'flame-crumbs' });
    this.searchBox = /** @type {HTMLInputElement} */ (h('input', { type: 'search', class: 'search', placeholder: 'Search functions (regex-free, case-insensitive)', 'data-testid': 'flame-search', value: o.search }));
    this.matchInfo = h('span', { class: 'match-info', 'data-testid': 'flame-match' });
    const icicle = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox' }));
    icicle.checked = o.icicle;
    icicle.addEventListener('change', () => o.onIcicle(icicle.checked));
    const perProc = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox' }));
    perProc.checked = o.perProcess;
    perProc.addEventListener('change', () => o.onPerProcess(perProc.checked));
    const noStack = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'data-testid': 'flame-no-stack' }));
    noStack.checked = !!o.noStack;
    noStack.addEventListener('change', () => o.onNoStack && o.onNoStack(noStack.checked));
    let t = 0;
    this.searchBox.addEventListener('input', () => {
      this.o.search = this.searchBox.value;
      this.draw();
      clearTimeout(t);
      t = window.setTimeout(() => o.onSearch(this.searchBox.value), 500);
    });
    this.canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'flame-canvas', 'data-testid': 'flame' }));
    this.tip = h('div', { class: 'tip', hidden: true });
    this.scroll = h('div', { class: 'flame-scroll' }, [this.canvas]);
    this.state = h('div', { class: 'state' });
    host.append(
      h('div', { class: 'toolbar' }, [this.crumbs, h('span', { class: 'spacer' }), this.searchBox, this.matchInfo,
        h('label', { class: 'chk' }, [icicle, ' Icicle']), h('label', { class: 'chk' }, [perProc, ' By process']),
        h('label', { class: 'chk', title: 'Leave out samples without a stack walk (the instruction pointer alone)' }, [noStack, ' Hide samples without stacks'])]),
      this.state, this.scroll, this.tip,
    );
    /** @type {any} */
    this.d = null;
    this.zoomIdx = 0;
    this.hover = -1;
    this.bind();
    new ResizeObserver(() => this.draw()).observe(this.scroll);
  }

  async load() {
    this.state.textContent = 'Loading flame graph…';
    this.state.className = 'state loading';
    try {
      const q = { ...this.o.query(), min_fraction: 0.0005, order: 'name', per_process: this.o.perProcess, exclude_no_stack: !!this.o.noStack };
      // The table's % Weight base, asked alongside: the tooltip gives the table's % for the same weight.
      const base = cpuShareBase(this.o.traceId, q);
      const d = await api.flame(this.o.traceId, q);
      this.percentOf = await base;
      const n = d.depth.length;
      const parent = new Int32Array(n).fill(-1);
      const stack = [];
      let maxDepth = 0;
      for (let i = 0; i < n; i++) {
        const dep = d.depth[i];
        stack.length = dep;
        parent[i] = dep > 0 ? stack[dep - 1] : -1;
        stack[dep] = i;
        if (dep > maxDepth) maxDepth = dep;
      }
      this.d = { ...d, parent, maxDepth, n };
      this.state.textContent = n <= 1 ? 'No samples with stacks in this range / with these filters' : '';
      this.state.className = n <= 1 ? 'state' : 'state hidden';
      this.resolveZoom();
    } catch (e) {
      this.d = null;
      this.state.className = 'state error';
      this.state.textContent = `Flame graph failed: ${e.message}`;
    }
    this.draw();
  }

  /**
   * A box's name in links: `fn:MODULE+RVA` of the frame that made its call node (stable across
   * re-ingest and symbols loading), else its label (process boxes, raw frames).
   * @param {number} i
   */
  refOf(i) {
    const d = this.d;
    const m = d.frame_module ? d.frame_module[i] : -1;
    return m >= 0 ? `fn:${d.module_ids[m]}+${d.frame_rva[i].toString(16)}` : d.label[i];
  }

  /** Find the zoom path from the URL by identities or labels; keep the longest prefix that resolves. */
  resolveZoom() {
    const d = this.d;
    let idx = 0;
    for (let k = 0; k < this.o.zoom.length; k++) {
      let found = -1;
      for (let i = idx + 1; i < d.n && d.depth[i] > d.depth[idx]; i++) {
        if (d.parent[i] === idx && (this.refOf(i) === this.o.zoom[k] || d.label[i] === this.o.zoom[k])) { found = i; break; }
      }
      if (found < 0) {
        this.o.onNotice(`Flame zoom opened to depth ${k} of ${this.o.zoom.length}: "${this.o.zoom[k]}" is not in this graph`);
        break;
      }
      idx = found;
    }
    this.zoomIdx = idx;
    this.renderCrumbs();
  }

  /** @param {number} i */
  pathOf(i) {
    const out = [];
    for (let x = i; x > 0; x = this.d.parent[x]) out.push(this.refOf(x));
    return out.reverse();
  }

  renderCrumbs() {
    clear(this.crumbs);
    const chain = [];
    for (let x = this.zoomIdx; x >= 0; x = this.d.parent[x]) chain.push(x);
    chain.reverse().forEach((x, k) => {
      if (k) this.crumbs.append(h('span', { class: 'sep', text: '›' }));
      this.crumbs.append(h('button', { class: 'crumb', text: x === 0 ? 'all' : this.d.label[x], title: this.d.label[x], onclick: () => this.o.onZoom(this.pathOf(x)) }));
    });
  }

  /** @param {number} i */
  matches(i) {
    const q = this.o.search.trim().toLowerCase();
    return q !== '' && String(this.d.label[i]).toLowerCase().includes(q);
  }

  draw() {
    const c = this.canvas;
    const d = this.d;
    const W = this.scroll.clientWidth;
    if (!d || !W) return;
    const H = Math.max(this.scroll.clientHeight, (d.maxDepth + 1) * ROW + 4);
    const dpr = window.devicePixelRatio || 1;
    c.style.width = `${W}px`;
    c.style.height = `${H}px`;
    c.width = W * dpr;
    c.height = H * dpr;
    const g = c.getContext('2d');
    g.scale(dpr, dpr);
    g.fillStyle = '#fff';
    g.fillRect(0, 0, W, H);
    g.font = '11px system-ui, -apple-system, Segoe UI, sans-serif';
    g.textBaseline = 'middle';
    const z = this.zoomIdx;
    const zs = d.start_ms[z];
    const zw = d.width_ms[z] || 1;
    const scale = W / zw;
    const zdepth = d.depth[z];
    const searching = this.o.search.trim() !== '';
    let matched = 0;
    let matchedUnder = -1;
    /** @type {number[]} */ this.boxes = [];
    for (let i = 0; i < d.n; i++) {
      const dep = d.depth[i];
      if (matchedUnder >= 0 && dep <= d.depth[matchedUnder]) matchedUnder = -1;
      const isMatch = searching && this.matches(i);
      if (isMatch && matchedUnder < 0) { matched += d.width_ms[i]; matchedUnder = i; }
      let x;
      let w;
      if (dep < zdepth) {
        // ancestors of the zoomed box: full width, faded
        if (!this.isAncestor(i, z)) continue;
        x = 0; w = W;
      } else {
        x = (d.start_ms[i] - zs) * scale;
        w = d.width_ms[i] * scale;
        if (x + w <= 0 || x >= W || w < 0.4) continue;
        if (dep === zdepth && i !== z) continue;
        if (dep > zdepth && (d.start_ms[i] < zs - 1e-9 || d.start_ms[i] >= zs + zw - 1e-9)) continue;
      }
      const y = this.o.icicle ? dep * ROW : H - (dep + 1) * ROW;
      const label = String(d.label[i]);
      // The API names each box's module (JIT frames have none: '?'); older servers do not.
      const mod = d.module ? String(d.module[i]) : moduleOf(label);
      let fill = i === 0 ? '#c8ccd4' : moduleColour(mod);
      if (searching) fill = isMatch ? '#d6249f' : '#dcdfe4';
      g.fillStyle = dep < zdepth ? '#e4e6ea' : fill;
      g.fillRect(x, y, Math.max(0.5, w - 0.5), ROW - 1);
      if (i === this.hover) { g.strokeStyle = '#111'; g.strokeRect(x + 0.5, y + 0.5, Math.max(0.5, w - 1.5), ROW - 2); }
      if (w > 30) {
        g.fillStyle = searching && isMatch ? '#fff' : '#1b1d21';
        const text = i === 0 ? `all (${fmtInt(d.width_ms[0])} ms weight)` : label;
        g.save();
        g.beginPath(); g.rect(x, y, w - 2, ROW); g.clip();
        g.fillText(text, x + 3, y + ROW / 2);
        g.restore();
      }
      this.boxes.push(i);
    }
    const total = d.width_ms[0] || 1;
    this.matchInfo.textContent = searching ? `${fmt2((100 * matched) / total)}% matched (${fmtInt(matched)} ms weight)` : '';
    this.matchInfo.dataset.percent = searching ? String((100 * matched) / total) : '';
    this.geom = { W, H, zs, scale, zdepth };
    // A flame graph grows upwards from its root: start scrolled to the bottom.
    if (!this.o.icicle && !this.scrolled) { this.scroll.scrollTop = H; this.scrolled = true; }
  }

  /** @param {number} a @param {number} b */
  isAncestor(a, b) {
    for (let x = b; x >= 0; x = this.d.parent[x]) if (x === a) return true;
    return false;
  }

  /** @param {number} px @param {number} py */
  hit(px, py) {
    if (!this.d || !this.geom) return -1;
    const { H } = this.geom;
    const dep = this.o.icicle ? Math.floor(py / ROW) : Math.floor((H - py) / ROW);
    for (const i of this.boxes) {
      if (this.d.depth[i] !== dep) continue;
      let x; let w;
      if (dep < this.geom.zdepth) { x = 0; w = this.geom.W; } else {
        x = (this.d.start_ms[i] - this.geom.zs) * this.geom.scale;
        w = this.d.width_ms[i] * this.geom.scale;
      }
      if (px >= x && px < x + w) return i;
    }
    return -1;
  }

  bind() {
    this.canvas.addEventListener('mousemove', (e) => {
      const i = this.hit(e.offsetX, e.offsetY);
      if (i !== this.hover) { this.hover = i; this.draw(); }
      if (i < 0) { this.tip.hidden = true; return; }
      const d = this.d;
      const label = String(d.label[i]);
      clear(this.tip);
      const pct = (100 * d.width_ms[i]) / (d.width_ms[0] || 1);
      const p = this.percentOf;
      const share = p ? `${fmt2((100 * d.width_ms[i]) / p.base)}% ${baseWords(p)}, ` : '';
      this.tip.append(
        h('div', { class: 'tip-title', text: label }),
        h('div', { text: `Module: ${i === 0 ? '—' : (d.module ? String(d.module[i]) : moduleOf(label))}` }),
        // Box widths are CPU weight (samples x their sampling interval), not sample counts.
        h('div', { 'data-testid': 'flame-tip-weight', text: `Weight: ${fmtInt(d.width_ms[i])} ms (${share}${fmt2(pct)}% of the graph)` }),
        h('div', { text: `Self weight: ${fmtInt(d.self_ms[i])} ms` }),
        i === 0 && d.total ? h('div', { 'data-testid': 'flame-tip-samples', text: `Samples: ${fmtInt(d.total.count)}` }) : null,
      );
      this.tip.hidden = false;
      const r = this.scroll.getBoundingClientRect();
      this.tip.style.left = `${Math.min(e.clientX + 14, r.right - 320)}px`;
      this.tip.style.top = `${e.clientY + 14}px`;
    });
    this.canvas.addEventListener('mouseleave', () => { this.tip.hidden = true; this.hover = -1; this.draw(); });
    this.canvas.addEventListener('click', (e) => {
      const i = this.hit(e.offsetX, e.offsetY);
      if (i >= 0) this.o.onZoom(this.pathOf(i));
    });
    this.canvas.addEventListener('contextmenu', (e) => {
      const i = this.hit(e.offsetX, e.offsetY);
      // By process, the boxes just above the root are processes, not frames.
      if (i > 0) { e.preventDefault(); this.o.onContext(String(this.d.label[i]), e, !!this.o.perProcess && this.d.depth[i] === 1, this.d.depth[i]); }
    });
  }

  /** Zoom without reloading (URL already updated by the caller). @param {string[]} path */
  setZoom(path) {
    this.o.zoom = path;
    if (this.d) { this.resolveZoom(); this.draw(); }
  }
}
