// Router: "/" is the library, "/across?..." the Across traces page (across.js), "/t/{id}?v=2&..." a trace view, "/compare/{base}/{new}?..." a comparison (compare.js). History entries carry the state,
// so back/forward re-render from the URL.
import { renderLibrary } from './library.js';
import { TracePage } from './trace-page.js';
import { fromQuery, toQuery } from './url-state.js';
import { h, clear } from './dom.js';
import { ComparePage } from './compare.js';
import { fromCompareUrl } from './compare-url.js';
import { renderAcross } from './across.js';

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
/** @type {TracePage|null} */
let page = null;
/** @type {ComparePage|null} */
let comparePage = null;

/** @param {string} url */
function navigate(url) {
  history.pushState(null, '', url);
  route();
}

/**
 * Write the view state into the URL.
 * @param {import('./url-state.js').ViewState} s
 * @param {'push'|'replace'} mode
 */
function write(s, mode) {
  const url = `${location.pathname}?${toQuery(s)}`;
  if (url === location.pathname + location.search) return;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** @param {string} url @param {'push'|'replace'} mode */
function writeUrl(url, mode) {
  if (url === location.pathname + location.search) return;
  if (mode === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

function route() {
  const cmp = fromCompareUrl(location.pathname, location.search);
  if (cmp) {
    page = null;
    root.classList.add('trace-mode');
    if (comparePage && comparePage.s.base === cmp.base && comparePage.s.new === cmp.new) comparePage.apply(cmp);
    else { comparePage = new ComparePage(root, cmp, writeUrl, navigate); comparePage.mount(); }
    return;
  }
  comparePage = null;
  if (/^\/across\/?$/.test(location.pathname)) {
    if (page) page.close();
    page = null;
    root.classList.remove('trace-mode');
    renderAcross(root, navigate);
    return;
  }
  const m = /^\/t\/([^/]+)\/?$/.exec(location.pathname);
  // A live page leaving stops following its trace.
  if (page && (!m || page.id !== decodeURIComponent(m[1]))) page.close();
  if (!m) {
    page = null;
    root.classList.remove('trace-mode');
    renderLibrary(root, navigate);
    document.title = 'etlscope: trace library';
    return;
  }
  const id = decodeURIComponent(m[1]);
  const { state, problems } = fromQuery(location.search);
  if (page && page.id === id) {
    page.apply(state);
    return;
  }
  root.classList.add('trace-mode');
  page = new TracePage(root, id, state, problems, write, navigate);
  document.title = 'etlscope';
  page.mount().catch((e) => {
    clear(root);
    root.append(h('div', { class: 'state error', text: `Something went wrong: ${e.message}` }));
  });
  if (!location.search) write(state, 'replace');
}

window.addEventListener('popstate', route);
route();
