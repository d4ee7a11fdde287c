// Router: "/" is the library, "/t/{id}?v=2&..." a trace view. History entries carry the state,
// so back/forward re-render from the URL.
import { renderLibrary } from './library.js';
import { TracePage } from './trace-page.js';
import { fromQuery, toQuery } from './url-state.js';
import { h, clear } from './dom.js';

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
/** @type {TracePage|null} */
let page = null;

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

function route() {
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
