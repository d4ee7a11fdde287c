// The target box of the Callers / callees tab: type part of a function or module name, pick one of the
// trace's names from the list (arrows and Enter, or a click), or press Enter to take the text as typed.
import * as api from './api.js';
import { h, clear, fmtInt } from './dom.js';

/**
 * @param {{traceId: string, query: () => any, value: string,
 *   onPick: (kind: 'function'|'module'|null, target: string) => void}} o
 *   `kind` null: the text as typed (the caller keeps its kind).
 * @returns {{el: HTMLElement, input: HTMLInputElement}}
 */
export function functionSearch(o) {
  const input = /** @type {HTMLInputElement} */ (h('input', { class: 'search', value: o.value, placeholder: 'search functions and modules', autocomplete: 'off', 'data-testid': 'bf-target', role: 'combobox', 'aria-autocomplete': 'list', 'aria-expanded': 'false' }));
  const list = h('div', { class: 'suggest', role: 'listbox', 'data-testid': 'bf-suggest', hidden: true });
  const el = h('span', { class: 'suggest-wrap' }, [input, list]);
  /** @type {any[]} */
  let items = [];
  let at = -1;
  let seq = 0;
  let timer = 0;
  const close = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); at = -1; };
  const mark = () => [...list.children].forEach((c, i) => c.classList.toggle('on', i === at));
  /** @param {any} m */
  const pick = (m) => { close(); input.value = m.label; o.onPick(m.kind, m.id || m.label); };
  const show = () => {
    clear(list);
    items.forEach((m, i) => {
      const row = h('div', { class: 'suggest-item', role: 'option', 'data-testid': 'bf-suggest-item', 'data-kind': m.kind, title: m.label }, [
        h('span', { class: 'sg-kind', text: m.kind === 'module' ? 'module' : 'fn' }),
        h('span', { class: 'sg-label', text: m.label }),
        h('span', { class: 'sg-count', text: fmtInt(m.count) }),
      ]);
      // mousedown, not click: the input's blur would close the list first.
      row.addEventListener('mousedown', (e) => { e.preventDefault(); pick(m); });
      row.addEventListener('mouseenter', () => { at = i; mark(); });
      list.append(row);
    });
    list.hidden = !items.length;
    input.setAttribute('aria-expanded', String(!!items.length));
    mark();
  };
  const lookup = async () => {
    const q = input.value.trim();
    const mine = ++seq;
    if (!q) { items = []; show(); return; }
    try {
      const r = await api.searchNames(o.traceId, { ...o.query(), q, limit: 20 });
      if (mine !== seq) return; // a later keystroke's answer wins
      items = r.matches;
      at = items.length ? 0 : -1;
      show();
    } catch {
      items = [];
      show();
    }
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = window.setTimeout(lookup, 120); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' && items.length) { e.preventDefault(); at = (at + 1) % items.length; mark(); }
    else if (e.key === 'ArrowUp' && items.length) { e.preventDefault(); at = (at - 1 + items.length) % items.length; mark(); }
    else if (e.key === 'Escape') close();
    else if (e.key === 'Enter') {
      e.preventDefault();
      if (!list.hidden && at >= 0 && items[at]) pick(items[at]);
      else { close(); o.onPick(null, input.value.trim()); }
    }
  });
  input.addEventListener('blur', () => window.setTimeout(close, 100));
  return { el, input };
}
