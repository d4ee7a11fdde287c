// The Symbols panel: each module of the trace with its PDB identity, status and where it was
// looked for (GET /api/traces/{id}/symbols); the trace's own symbol path in _NT_SYMBOL_PATH
// syntax (PUT), Load symbols with progress per module and Cancel (POST .../load, .../cancel),
// and PDBs dropped on the panel (POST /api/symbols). When a lookup ends, `onNamed` re-renders
// the views: rows are named by module and RVA, so the same rows come back with their names.
// Every string from the trace or the server is set as text.
import { h, clear, fmtInt, toast } from './dom.js';
import { authHeaders, askToken, needsToken } from './token.js';

const POLL_MS = 300;

/**
 * One request with the session's headers; on a 401 asking for the token, asks once and retries.
 * @param {string} url @param {RequestInit} [init] @returns {Promise<any>}
 */
async function req(url, init = {}) {
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(url, { ...init, headers: { ...(/** @type {any} */ (init.headers) || {}), ...authHeaders() } });
    let body = null;
    try { body = await r.json(); } catch { /* not JSON */ }
    if (needsToken(r.status, body) && attempt < 2 && await askToken(attempt > 0)) continue;
    if (!r.ok) throw new Error((body && body.error && body.error.message) || `HTTP ${r.status}`);
    return body;
  }
}

/**
 * A collapsible panel; its button says how many PDBs are loaded.
 * @param {string} id @param {() => void} onNamed called when a lookup that named frames ends
 * @param {() => void} [onChanged] called when the lookup's status changes and when a followed
 *   lookup ends (the trace header's Symbols chip shows the summary of it)
 * @returns {HTMLElement}
 */
export function symbolsPanel(id, onNamed, onChanged = () => {}) {
  const base = `/api/traces/${encodeURIComponent(id)}/symbols`;
  const body = h('div', { class: 'symbols-body', hidden: true });
  const toggle = h('button', { class: 'btn symbols-toggle', 'data-testid': 'symbols-toggle', text: 'Symbols…', onclick: () => { body.hidden = !body.hidden; } });
  const panel = h('section', { class: 'panel symbols', 'data-testid': 'symbols' }, [toggle, body]);
  const input = /** @type {HTMLInputElement} */ (h('input', {
    type: 'text', class: 'symbol-path', 'data-testid': 'symbol-path', spellcheck: 'false',
    placeholder: 'srv*C:\\symbols*https://msdl.microsoft.com/download/symbols;C:\\pdbs',
  }));
  const defaults = h('div', { class: 'symbols-default', 'data-testid': 'symbols-default' });
  const progress = h('span', { class: 'symbols-progress', 'data-testid': 'symbols-progress' });
  const cancel = h('button', { class: 'btn', text: 'Cancel', 'data-testid': 'symbols-cancel', hidden: true, onclick: () => act(req(`${base}/cancel`, { method: 'POST' })) });
  const load = h('button', { class: 'btn primary', text: 'Load symbols', 'data-testid': 'symbols-load', onclick: () => act(loadAlong(input.value)) });
  const reset = h('button', { class: 'btn', text: "Use the server's path", 'data-testid': 'symbols-reset', onclick: () => { input.value = ''; act(loadAlong('')); } });
  const warnings = h('div', { class: 'symbols-warnings', 'data-testid': 'symbols-warnings' });
  const table = h('div', { class: 'symbols-modules' });
  const hint = h('div', { class: 'symbols-hint', text: 'Drop .pdb files here to add them (stored by their identity; the modules that recorded it are named again).' });
  body.append(
    h('label', { class: 'symbols-label' }, [h('span', { text: 'Symbol path ' }), input]),
    defaults,
    h('div', { class: 'symbols-actions' }, [load, reset, cancel, progress]),
    warnings, hint, table,
  );

  let edited = false;
  let polling = false;
  /** @type {string | undefined} */ let lastStatus;
  input.addEventListener('input', () => { edited = true; });
  input.addEventListener('keydown', (ev) => { if (/** @type {KeyboardEvent} */ (ev).key === 'Enter') load.click(); });

  /** Save the path (empty: the server's), then look up along it. @param {string} p */
  async function loadAlong(p) {
    await req(base, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ symbol_path: p.trim() || null }) });
    edited = false;
    return req(`${base}/load`, { method: 'POST' });
  }

  /** Show a request's state, then follow it while it runs. @param {Promise<any>} p */
  function act(p) {
    p.then((v) => { show(v); follow(true); }).catch((e) => { progress.textContent = e.message; });
  }

  /**
   * Poll while a lookup runs; when it ends, re-render the views: always after a Load or a drop
   * (`asked`), else (the lookup that follows ingest) only when it named frames.
   * @param {boolean} [asked]
   */
  async function follow(asked = false) {
    if (polling) return;
    polling = true;
    try {
      let ran = false;
      /** @type {any} */ let v;
      for (;;) {
        v = await req(base);
        show(v);
        if (v.status !== 'running' && v.status !== 'pending') break;
        ran = true;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      const named = (v.modules || []).some((/** @type {any} */ m) => m.resolved_frames > 0);
      if (asked || (ran && named)) onNamed();
      onChanged();
    } catch (e) {
      progress.textContent = `Symbols: ${/** @type {Error} */ (e).message}`;
    } finally { polling = false; }
  }

  /** @param {any} v the GET answer */
  function show(v) {
    const mods = /** @type {any[]} */ (v.modules || []);
    const loaded = mods.filter((m) => m.status === 'loaded').length;
    const needed = mods.filter((m) => m.frames > 0 && m.pdb).length;
    const running = v.status === 'running';
    if (lastStatus !== undefined && v.status !== lastStatus) onChanged();
    lastStatus = v.status;
    toggle.textContent = running
      ? `Symbols: loading ${v.progress.modules_done} of ${v.progress.modules_total}…`
      : `Symbols (${loaded} of ${needed} PDBs loaded)`;
    panel.dataset.status = v.status;
    if (!edited) input.value = v.symbol_path || '';
    defaults.textContent = v.symbol_path
      ? `This trace's own path (the server's: ${v.default_symbol_path || 'none'}). Uploaded PDBs and a symbols/ folder beside the trace are searched first.`
      : `The server's path: ${v.default_symbol_path || 'none'} (uploaded PDBs and a symbols/ folder beside the trace first). Type a path to give this trace its own.`;
    cancel.hidden = !running;
    progress.textContent = running
      ? `${v.progress.modules_done} of ${v.progress.modules_total} modules looked up`
      : (v.cancelled ? 'Cancelled.' : '');
    clear(warnings);
    for (const w of v.warnings || []) warnings.append(h('div', { class: 'notice', role: 'alert', text: w }));
    clear(table);
    table.append(moduleTable(mods));
  }

  // PDBs dropped anywhere on the panel.
  panel.addEventListener('dragover', (ev) => { ev.preventDefault(); panel.classList.add('drop'); });
  panel.addEventListener('dragleave', () => panel.classList.remove('drop'));
  panel.addEventListener('drop', (ev) => {
    ev.preventDefault();
    panel.classList.remove('drop');
    const files = [...((/** @type {DragEvent} */ (ev)).dataTransfer?.files || [])];
    body.hidden = false;
    (async () => {
      for (const f of files) {
        if (!/\.pdb$/i.test(f.name)) { toast(`${f.name} is not a .pdb`); continue; }
        progress.textContent = `Uploading ${f.name}…`;
        const r = await req(`/api/symbols?name=${encodeURIComponent(f.name)}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: f });
        toast(`${r.name} stored`);
      }
      progress.textContent = '';
      await follow(true);
    })().catch((e) => { progress.textContent = `Upload failed: ${e.message}`; });
  });

  req(base).then((v) => { show(v); if (v.status !== 'done') follow(); }).catch((e) => { toggle.textContent = `Symbols: ${e.message}`; });
  return panel;
}

/** Modules with frames first (most frames first), then the rest. @param {any[]} mods */
function moduleTable(mods) {
  const rows = [...mods].sort((a, b) => (b.frames - a.frames) || String(a.module).localeCompare(String(b.module)));
  const head = h('tr', {}, ['Module', 'PDB', 'Status', 'Frames named', 'Where it looked'].map((t) => h('th', { text: t })));
  const tbody = h('tbody');
  for (const m of rows) {
    tbody.append(h('tr', { 'data-testid': 'symbols-module', 'data-module': m.module, 'data-status': m.status }, [
      h('td', { text: m.module }),
      h('td', { class: 'mono', text: m.pdb || '—' }),
      h('td', { class: `sym-${String(m.status).replace(/[^a-z]/g, '-')}`, text: m.status, title: m.detail }),
      h('td', { class: 'num', text: m.frames ? `${fmtInt(m.resolved_frames)} of ${fmtInt(m.frames)}` : '' }),
      h('td', { class: 'mono', text: (m.searched || []).join('; ') }),
    ]));
  }
  return h('table', { class: 'symbols-table', 'data-testid': 'symbols-table' }, [h('thead', {}, [head]), tbody]);
}
