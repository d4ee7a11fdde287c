// Butterfly view: the callers of a function or module above it, its callees below, with counts.
import * as api from './api.js';
import { h, clear, fmtInt, fmt2 } from './dom.js';

/**
 * @typedef {{traceId: string, query: () => any, kind: 'function'|'module', target: string, by: 'function'|'module',
 *   onChange: (kind: 'function'|'module', target: string, by: 'function'|'module') => void, onNotice: (m: string) => void}} ButterflyOpts
 */

/** @param {HTMLElement} host @param {ButterflyOpts} o */
export async function renderButterfly(host, o) {
  clear(host);
  const input = /** @type {HTMLInputElement} */ (h('input', { class: 'search', value: o.target, placeholder: 'module!function or module', 'data-testid': 'bf-target' }));
  const kind = /** @type {HTMLSelectElement} */ (h('select', {}, [h('option', { value: 'function', text: 'Function' }), h('option', { value: 'module', text: 'Module' })]));
  kind.value = o.kind;
  const by = /** @type {HTMLSelectElement} */ (h('select', {}, [h('option', { value: 'function', text: 'by function' }), h('option', { value: 'module', text: 'by module' })]));
  by.value = o.by;
  // The box shows the target's label; the link keeps its stable identity until the text is edited.
  let shown = o.target;
  const go = () => {
    const v = input.value.trim();
    o.onChange(/** @type {any} */ (kind.value), v === shown && kind.value === o.kind ? o.target : v, /** @type {any} */ (by.value));
  };
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
  kind.addEventListener('change', go);
  by.addEventListener('change', go);
  const body = h('div', { class: 'bf-body', 'data-testid': 'butterfly' });
  host.append(h('div', { class: 'toolbar' }, [h('span', { class: 'tb-label', text: 'Callers and callees of' }), kind, input, by, h('button', { class: 'btn', text: 'Show', onclick: go })]), body);
  if (!o.target) {
    body.append(h('div', { class: 'state', text: 'Pick a function or module: type it above, or right-click a row in a table and choose "View callers/callees".' }));
    return;
  }
  body.append(h('div', { class: 'state loading', text: 'Loading…' }));
  let r;
  try {
    r = await api.butterfly(o.traceId, { ...o.query(), kind: o.kind, target: o.target, by: o.by });
  } catch (e) {
    clear(body);
    body.append(h('div', { class: 'state error', text: `Cannot show "${o.target}": ${e.message}` }));
    return;
  }
  clear(body);
  if (document.activeElement !== input) { input.value = r.target.label; shown = r.target.label; }
  const total = r.total.weight_ms || 1;
  /** @param {string} title @param {any[]} rows @param {string} cls */
  const list = (title, rows, cls) => {
    const max = rows.reduce((m, x) => Math.max(m, x.weight_ms), 0) || 1;
    const t = h('table', { class: `grid bf ${cls}`, 'data-testid': `bf-${cls}` }, [
      h('thead', {}, [h('tr', {}, [h('th', { text: title }), h('th', { class: 'num', text: 'Count' }), h('th', { class: 'num', text: 'Weight (ms)' }), h('th', { class: 'num', text: '% Weight' })])]),
    ]);
    const tb = h('tbody');
    if (!rows.length) tb.append(h('tr', {}, [h('td', { class: 'empty', colspan: '4', text: cls === 'callers' ? 'No callers (a root)' : 'No callees (a leaf)' })]));
    for (const x of rows) {
      const name = h('td', { class: 'label link', text: x.label, title: `Show callers and callees of ${x.label}` });
      name.addEventListener('click', () => o.onChange(o.by, x.id || x.label, o.by));
      const pc = h('td', { class: 'num', text: fmt2((100 * x.weight_ms) / total) });
      pc.style.backgroundImage = `linear-gradient(to left, var(--bar) ${((100 * x.weight_ms) / max).toFixed(1)}%, transparent 0)`;
      tb.append(h('tr', {}, [name, h('td', { class: 'num', text: fmtInt(x.count) }), h('td', { class: 'num', text: fmt2(x.weight_ms) }), pc]));
    }
    t.append(tb);
    return t;
  };
  body.append(
    list(o.by === 'module' ? 'Calling module' : 'Caller', r.callers, 'callers'),
    h('div', { class: 'bf-target', 'data-testid': 'bf-center' }, [
      h('span', { class: 'bf-name', text: r.target.label }),
      h('span', { class: 'bf-num', 'data-count': String(r.inclusive.count), text: `inclusive ${fmtInt(r.inclusive.count)} samples (${fmt2((100 * r.inclusive.weight_ms) / total)}%)` }),
      h('span', { class: 'bf-num', text: `self ${fmtInt(r.self.count)}` }),
    ]),
    list(o.by === 'module' ? 'Called module' : 'Callee', r.callees, 'callees'),
  );
}
