// The differential flame graph: the comparison's stacks (POST /api/compare grouped by Process, Stack) merged into one
// tree by frame text (the stable identity: module!function or module!0xRVA), root at the top. A box's width is its
// baseline (or comparison) samples, its colour the delta on a diverging scale: blue for loss, red for gain.
import { h, clear, fmtInt } from './dom.js';

/** @typedef {{name: string, base: number, new: number, kids: Map<string, Node>}} Node */

/** Merge compare rows (keys: process, stack root-first with ';') into a tree. @param {any[]} rows @returns {Node} */
export function mergeStacks(rows) {
  /** @type {Node} */
  const root = { name: 'all', base: 0, new: 0, kids: new Map() };
  for (const r of rows) {
    const [b, n] = r.values[0] || [0, 0];
    const frames = [r.keys[0], ...String(r.keys[1] || '').split(';').filter(Boolean)];
    let node = root;
    node.base += b; node.new += n;
    for (const f of frames) {
      let k = node.kids.get(f);
      if (!k) { k = { name: f, base: 0, new: 0, kids: new Map() }; node.kids.set(f, k); }
      k.base += b; k.new += n;
      node = k;
    }
  }
  return root;
}

/** Blue (loss) - white - red (gain) for t in -1..1. @param {number} t */
export function diverging(t) {
  const x = Math.max(-1, Math.min(1, t));
  const light = 96 - Math.abs(x) * 46;
  return x < 0 ? `hsl(214 70% ${light}%)` : `hsl(4 75% ${light}%)`;
}

const ROW = 18;

/**
 * Render the tree into `host`. @param {HTMLElement} host @param {Node} root @param {'base'|'new'} width
 */
export function renderDiffFlame(host, root, width) {
  clear(host);
  const w = (/** @type {Node} */ n) => (width === 'new' ? n.new : n.base);
  const total = w(root);
  let maxAbs = 0;
  const walk = (/** @type {Node} */ n) => { maxAbs = Math.max(maxAbs, Math.abs(n.new - n.base)); n.kids.forEach(walk); };
  root.kids.forEach(walk);
  // The totals are the processes' (the top boxes'), as the table by Process adds up its delta
  // column; the colour scale ends at the largest change of one box, which is no total.
  let loss = 0;
  let gain = 0;
  for (const k of root.kids.values()) { const d = k.new - k.base; if (d < 0) loss -= d; else gain += d; }
  const legend = h('div', { class: 'diff-legend', 'data-testid': 'diff-legend', 'data-loss': String(loss), 'data-gain': String(gain) }, [
    h('span', { class: 'swatch', style: { background: diverging(-1) } }), ` loss ${fmtInt(loss)}`,
    h('span', { class: 'swatch', style: { background: diverging(0) } }), ' no change ',
    h('span', { class: 'swatch', style: { background: diverging(1) } }), ` gain ${fmtInt(gain)}`,
    h('span', { class: 'muted', text: ` samples, summed by process · colour: a box's change, full at ±${fmtInt(maxAbs)} · width: ${width === 'new' ? 'comparison' : 'baseline'} samples (${fmtInt(total)})` }),
  ]);
  const canvas = h('div', { class: 'diff-flame', 'data-testid': 'diff-flame' });
  host.append(legend, canvas);
  if (total <= 0) { canvas.append(h('div', { class: 'state', text: 'No samples on this side.' })); return; }
  let depthMax = 0;
  /** @param {Node} n @param {number} x @param {number} depth @param {string[]} path */
  const place = (n, x, depth, path) => {
    const frac = w(n) / total;
    if (frac < 0.001) return;
    depthMax = Math.max(depthMax, depth);
    const d = n.new - n.base;
    const pct = n.base ? ` (${((d * 100) / n.base).toFixed(1)}%)` : '';
    canvas.append(h('div', {
      class: 'diff-box', 'data-testid': 'diff-box', 'data-path': JSON.stringify(path), 'data-depth': String(depth),
      'data-base': String(n.base), 'data-new': String(n.new), 'data-delta': String(d), 'data-kind': d < 0 ? 'loss' : d > 0 ? 'gain' : 'same',
      title: `${n.name}\nbaseline ${fmtInt(n.base)} · comparison ${fmtInt(n.new)} · delta ${d > 0 ? '+' : ''}${fmtInt(d)}${pct}`,
      style: { left: `${x * 100}%`, width: `${frac * 100}%`, top: `${depth * ROW}px`, background: diverging(maxAbs ? d / maxAbs : 0) },
    }, [h('span', { text: n.name })]));
    let cx = x;
    for (const k of [...n.kids.values()].sort((a, b) => w(b) - w(a))) { place(k, cx, depth + 1, [...path, k.name]); cx += w(k) / total; }
  };
  let x = 0;
  for (const k of [...root.kids.values()].sort((a, b) => w(b) - w(a))) { place(k, x, 0, [k.name]); x += w(k) / total; }
  canvas.style.height = `${(depthMax + 1) * ROW}px`;
}
