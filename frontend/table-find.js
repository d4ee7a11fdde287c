// Find in table (Ctrl+F): a bar above the rows; Enter / F3 go to the next row whose label
// contains the text, Shift+Enter / Shift+F3 to the previous one. Every row loaded so far is
// searched, collapsed or not; when none matches (or going on would wrap), rows never fetched are
// loaded heaviest first, a bounded number of levels, until one does. Reaching a match expands the
// rows above it.
import { h } from './dom.js';

/**
 * @typedef {{label: string, children: any[]|null}} FindNode
 * @typedef {{roots: () => FindNode[], current: () => FindNode|null, reveal: (n: any) => void, focus: () => void,
 *   loadUntil?: (match: (label: string) => boolean) => Promise<{found: boolean, exhausted: boolean}>}} FindHost
 * `loadUntil` fetches rows not loaded yet until one matches (bounded); `exhausted` when none is left.
 */

/** Every loaded row in display order (children after their parent, expanded or not). @param {FindNode[]} roots */
export function preorder(roots) {
  /** @type {FindNode[]} */
  const out = [];
  const stack = [...roots].reverse();
  while (stack.length) {
    const n = /** @type {FindNode} */ (stack.pop());
    out.push(n);
    if (n.children) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return out;
}

/**
 * The next (dir 1) or previous (dir -1) match after `from` in `rows`, wrapping; null when none.
 * @param {FindNode[]} rows @param {FindNode|null} from @param {string} text @param {1|-1} dir
 */
export function nextMatch(rows, from, text, dir) {
  const q = text.toLowerCase();
  if (!q || !rows.length) return null;
  const start = from ? rows.indexOf(from) : -1;
  for (let k = 1; k <= rows.length; k++) {
    const i = (((start < 0 && dir < 0 ? 0 : start) + dir * k) % rows.length + rows.length) % rows.length;
    if (rows[i].label.toLowerCase().includes(q)) return rows[i];
  }
  return null;
}

export class TableFind {
  /** @param {FindHost} host */
  constructor(host) {
    this.host = host;
    this.input = /** @type {HTMLInputElement} */ (h('input', { class: 'find-input', type: 'search', placeholder: 'Find in table', 'data-testid': 'find-input', 'aria-label': 'Find in table' }));
    this.count = h('span', { class: 'find-count', 'data-testid': 'find-count' });
    this.bar = h('div', { class: 'table-find', 'data-testid': 'table-find', hidden: true }, [
      this.input,
      h('button', { class: 'btn small', text: '↑', title: 'Previous match (Shift+Enter)', 'data-testid': 'find-prev', onclick: () => this.go(-1) }),
      h('button', { class: 'btn small', text: '↓', title: 'Next match (Enter)', 'data-testid': 'find-next', onclick: () => this.go(1) }),
      this.count,
      h('button', { class: 'x', text: '×', title: 'Close (Esc)', onclick: () => this.close() }),
    ]);
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === 'F3') { e.preventDefault(); this.go(e.shiftKey ? -1 : 1); }
      else if (e.key === 'Escape') { e.preventDefault(); this.close(); }
    });
    this.input.addEventListener('input', () => { this.count.textContent = ''; this.searched = null; });
    /** The text for which every row has been loaded (no more to fetch). @type {string|null} */
    this.searched = null;
  }

  open() {
    this.bar.hidden = false;
    this.input.focus();
    this.input.select();
  }

  close() {
    this.bar.hidden = true;
    this.host.focus();
  }

  /** @param {1|-1} dir */
  async go(dir) {
    const text = this.input.value;
    const q = text.toLowerCase();
    const matches = (/** @type {string} */ label) => label.toLowerCase().includes(q);
    let rows = preorder(this.host.roots());
    let n = nextMatch(rows, this.host.current(), text, dir);
    const from = this.host.current() ? rows.indexOf(/** @type {FindNode} */ (this.host.current())) : -1;
    const wraps = n && dir > 0 && rows.indexOf(n) <= from;
    // Nothing loaded matches, or the next match would wrap: look in rows never fetched first.
    if (q && (!n || wraps) && this.host.loadUntil && this.searched !== q) {
      this.count.textContent = 'Searching rows not loaded yet…';
      const before = new Set(rows);
      const r = await this.host.loadUntil(matches);
      if (r.exhausted) this.searched = q;
      rows = preorder(this.host.roots());
      const fresh = rows.find((x) => !before.has(x) && matches(x.label));
      if (fresh) n = fresh;
      else n = nextMatch(rows, this.host.current(), text, dir);
    }
    if (!n) { this.count.textContent = text ? 'No match' : ''; return; }
    const all = rows.filter((r) => matches(r.label));
    this.count.textContent = `${all.indexOf(n) + 1} of ${all.length}${this.searched === q ? '' : '+'}`;
    this.host.reveal(n);
  }
}
