// Tiny DOM helpers. Everything from a trace goes through textContent, never innerHTML.

/**
 * Create an element. `attrs` keys starting with "on" become listeners; `text` sets textContent.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {(Node|string|null|undefined|false)[]} [children]
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = String(v);
    else if (k === 'class') e.className = v;
    else if (k === 'style' && typeof v === 'object') Object.assign(e.style, v);
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return e;
}

/**
 * A canvas's 2D context sized to its laid-out box at the screen's pixel ratio and cleared to white;
 * null while the canvas has no size (not laid out yet).
 * @param {HTMLCanvasElement} canvas
 * @returns {{g: CanvasRenderingContext2D, W: number, H: number} | null}
 */
export function canvasContext(canvas) {
  const W = canvas.clientWidth;
  const H = canvas.clientHeight;
  if (!W || !H) return null;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = W * dpr;
  canvas.height = H * dpr;
  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  g.scale(dpr, dpr);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  return { g, W, H };
}

/** @param {Element} e */
export function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
}

const intFmt = new Intl.NumberFormat('en-US');
const f2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const f3 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });

/** @param {number} n */
export const fmtInt = (n) => intFmt.format(Math.round(n));
/** @param {number} n */
export const fmt2 = (n) => f2.format(n);
/** @param {number} n */
export const fmt3 = (n) => f3.format(n);

/** @param {number} bytes */
export function fmtSize(bytes) {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = bytes;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return `${i === 0 ? v : v.toFixed(1)} ${u[i]}`;
}

/** @param {string} iso */
export function fmtDate(iso) {
  const d = new Date(iso);
  if (isNaN(d.getTime())) return iso;
  return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace('Z', ' UTC');
}

/** Seconds with an adaptive unit. @param {number} s */
export function fmtSecs(s) {
  if (Math.abs(s) >= 1) return `${s.toFixed(3)} s`;
  if (Math.abs(s) >= 1e-3) return `${(s * 1e3).toFixed(2)} ms`;
  return `${(s * 1e6).toFixed(1)} µs`;
}

/** Copy text to the clipboard, with a fallback for insecure origins. @param {string} text */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = /** @type {HTMLTextAreaElement} */ (h('textarea', { style: { position: 'fixed', opacity: '0' } }));
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}

/** A transient message at the bottom of the page. @param {string} msg */
export function toast(msg) {
  const t = h('div', { class: 'toast', text: msg, role: 'status' });
  document.body.append(t);
  setTimeout(() => t.remove(), 2500);
}
