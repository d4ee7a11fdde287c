// The Findings panel: what in the trace deserves a look (GET /api/traces/{id}/findings, the list
// `etlscope findings` prints), each with its figure and a link to the view that shows it. Every
// string from the trace is set as text.
import * as api from './api.js';
import { h, clear, fmtInt } from './dom.js';

/**
 * A collapsible panel, filled when the findings arrive; `refresh` asks again (the trace grew: a
 * live replay's new model, its end). One request at a time: a refresh asked meanwhile runs after
 * it, so the last answer shown is never older than the last refresh asked.
 * @param {string} id @param {(url: string) => void} navigate
 * @returns {{panel: HTMLElement, refresh: () => void}}
 */
export function findingsPanel(id, navigate) {
  // Only the app's usual tags (tests/xss.test.mjs allows no others): a button folds the list.
  const list = h('div', { class: 'findings-list', hidden: true });
  const summary = h('button', { class: 'btn findings-toggle', 'data-testid': 'findings-toggle', text: 'Findings…', onclick: () => { list.hidden = !list.hidden; } });
  const panel = h('section', { class: 'panel findings', 'data-testid': 'findings' }, [summary, list]);
  let busy = false;
  let again = false;
  const refresh = () => {
    if (busy) { again = true; return; }
    busy = true;
    api.findings(id).then((v) => {
      const items = (v && v.findings) || [];
      summary.textContent = `Findings (${items.length})`;
      clear(list);
      for (const f of items) list.append(item(id, f, navigate));
    }).catch((e) => { summary.textContent = `Findings: ${e.message}`; }).finally(() => {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  };
  refresh();
  return { panel, refresh };
}

/** @param {string} id @param {any} f @param {(url: string) => void} navigate */
function item(id, f, navigate) {
  const figure = h('span', { class: 'finding-figure', 'data-testid': 'finding-figure', 'data-value': String(f.figure), text: `${fmtFigure(f.figure)} ${f.unit}` });
  const kids = [h('span', { class: `chip finding-${f.category}`, text: f.category }), ' ', h('span', { class: 'finding-title', text: f.title }), ' ', figure];
  if (f.view.link) {
    const href = `/t/${encodeURIComponent(id)}?${f.view.link}`;
    kids.push(' ', h('a', { href, class: 'finding-link', 'data-testid': 'finding-link', text: 'Show', onclick: (/** @type {MouseEvent} */ ev) => { ev.preventDefault(); navigate(href); } }));
  } else {
    const what = { symbols: `etlscope symbols, module ${f.view.target}`, model: `no view shows ${f.view.table} yet` }[f.view.kind] || `etlscope info: ${f.view.target}`;
    kids.push(' ', h('span', { class: 'finding-info', text: `(${what})` }));
  }
  return h('div', { class: 'finding', 'data-testid': 'finding', 'data-rule': f.rule }, kids);
}

/** @param {number} x */
const fmtFigure = (x) => (Number.isInteger(x) ? fmtInt(x) : x.toFixed(3));
