// The server's token (`etlscope serve --token`): asked once, when the server says it needs one, and kept in
// sessionStorage for this tab's session (never in localStorage, never in a URL).
import { h } from './dom.js';

const KEY = 'etlscope-token';

/** @returns {string} the token of this session, or '' */
export function savedToken() {
  try { return sessionStorage.getItem(KEY) || ''; } catch { return ''; }
}

/** @param {string} t */
function save(t) {
  try { if (t) sessionStorage.setItem(KEY, t); else sessionStorage.removeItem(KEY); } catch { /* storage off */ }
}

/**
 * Headers every request sends: `X-Etlscope: 1` (state changes need it: no other site's page can send it)
 * and the token when there is one.
 * @returns {Record<string, string>}
 */
export function authHeaders() {
  const t = savedToken();
  /** @type {Record<string, string>} */
  const hd = { 'X-Etlscope': '1' };
  if (t) hd.Authorization = `Bearer ${t}`;
  return hd;
}

/** @type {Promise<string>|null} one dialog at a time, shared by every request that needs it */
let asking = null;

/**
 * Ask for the token (a small dialog); resolves to it, or '' when the user cancels.
 * @param {boolean} [wrong] the saved one was refused
 * @returns {Promise<string>}
 */
export function askToken(wrong = false) {
  if (wrong) save('');
  if (!asking) asking = showDialog(wrong).finally(() => { asking = null; });
  return asking;
}

/** @param {boolean} wrong @returns {Promise<string>} */
function showDialog(wrong) {
  return new Promise((resolve) => {
    const input = /** @type {HTMLInputElement} */ (h('input', { type: 'password', autocomplete: 'off', 'data-testid': 'token-input', 'aria-label': 'Token' }));
    const done = (/** @type {string} */ t) => { save(t); dlg.close(); dlg.remove(); resolve(t); };
    const form = h('form', { method: 'dialog', onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); done(input.value.trim()); } }, [
      h('h2', { text: 'This server needs a token' }),
      h('p', { class: 'muted', text: wrong ? 'That token was refused. Enter the token this server was started with.' : 'Enter the token this server was started with (--token). It is kept for this browser tab only.' }),
      input,
      h('div', { class: 'dialog-buttons' }, [
        h('button', { type: 'button', class: 'btn', text: 'Cancel', onclick: () => done('') }),
        h('button', { type: 'submit', class: 'btn primary', text: 'OK', 'data-testid': 'token-ok' }),
      ]),
    ]);
    const dlg = /** @type {HTMLDialogElement} */ (h('dialog', { class: 'token-dialog', 'data-testid': 'token-dialog' }, [form]));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); done(''); });
    document.body.append(dlg);
    dlg.showModal();
    input.focus();
  });
}

/**
 * Whether a response says the token is missing or wrong (the documented 401 shape).
 * @param {number} status @param {any} body
 */
export const needsToken = (status, body) => status === 401 && body && body.error && body.error.code === 'unauthorized';
