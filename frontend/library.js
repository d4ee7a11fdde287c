// The library page: the list of traces, upload (picker or drop) with progress, open/delete/copy link.
import * as api from './api.js';
import { h, clear, fmtSize, fmtDate, copyText, toast } from './dom.js';

/** @type {Map<string, () => void>} open SSE streams by trace id */
const streams = new Map();

/**
 * @param {HTMLElement} root
 * @param {(url: string) => void} navigate
 */
export function renderLibrary(root, navigate) {
  clear(root);
  for (const close of streams.values()) close();
  streams.clear();

  const fileInput = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.etl,.zip,.diagsession', multiple: true, hidden: true }));
  const uploads = h('div', { class: 'uploads' });
  const drop = h('div', { class: 'dropzone', tabindex: '0', 'data-testid': 'dropzone' }, [
    h('div', { class: 'drop-title', text: 'Drop .etl, .etl.zip or .diagsession files here' }),
    h('div', { class: 'drop-sub' }, ['or ', h('button', { class: 'btn primary', text: 'Choose files…', onclick: () => fileInput.click() })]),
  ]);
  const tbody = h('tbody');
  const listState = h('div', { class: 'state', text: 'Loading traces…' });
  const tableEl = h('table', { class: 'grid library', 'data-testid': 'library' }, [
    h('thead', {}, [h('tr', {}, ['Name', 'Size', 'Uploaded', 'Status', ''].map((t) => h('th', { text: t, class: t === 'Size' ? 'num' : '' })))]),
    tbody,
  ]);

  root.append(
    h('header', { class: 'topbar' }, [h('a', { class: 'home', href: '/', text: 'etlscope' }), h('span', { class: 'tag', text: 'Windows Performance Analyzer-style ETW trace viewer' })]),
    h('div', { class: 'page library-page' }, [
      h('div', { class: 'page-head' }, [h('h1', { text: 'Trace library' })]),
      drop, fileInput, uploads,
      h('section', { class: 'panel' }, [tableEl, listState]),
    ]),
  );

  const refresh = async () => {
    try {
      const { traces } = await api.listTraces();
      clear(tbody);
      listState.textContent = traces.length ? '' : 'No traces yet. Upload one above.';
      listState.hidden = traces.length > 0;
      for (const t of traces) tbody.append(row(t));
    } catch (e) {
      listState.hidden = false;
      listState.className = 'state error';
      listState.textContent = `Cannot list traces: ${e.message}`;
    }
  };

  /** @param {any} t */
  const row = (t) => {
    const status = h('td', { class: 'status' });
    const link = `${location.origin}/t/${t.id}`;
    const tr = h('tr', { 'data-id': t.id }, [
      h('td', {}, [h('a', { href: `/t/${t.id}`, text: t.name || t.id, onclick: (e) => { e.preventDefault(); navigate(`/t/${t.id}`); } })]),
      h('td', { class: 'num', text: fmtSize(t.size) }),
      h('td', { text: fmtDate(t.uploaded_at) }),
      status,
      h('td', { class: 'actions' }, [
        h('button', { class: 'btn', text: 'Open', onclick: () => navigate(`/t/${t.id}`) }),
        h('button', { class: 'btn', text: 'Copy link', onclick: async () => { await copyText(link); toast('Link copied'); } }),
        h('button', {
          class: 'btn danger', text: 'Delete',
          onclick: async () => {
            if (!confirm(`Delete ${t.name}?`)) return;
            try { await api.deleteTrace(t.id); tr.remove(); } catch (e) { toast(`Delete failed: ${e.message}`); }
          },
        }),
      ]),
    ]);
    setStatus(status, t.status, t.progress, t.error);
    if (t.status === 'pending' || t.status === 'ingesting' || t.status === 'live') {
      streams.set(t.id, api.watchProgress(t.id, (m) => {
        if (m.status === 'stream_error') return;
        setStatus(status, m.status, m.progress, m.error);
      }));
    }
    return tr;
  };

  /** @param {FileList|File[]} files */
  const uploadAll = async (files) => {
    for (const f of files) {
      const bar = h('div', { class: 'bar-fill' });
      const label = h('span', { text: `Uploading ${f.name} (${fmtSize(f.size)})…` });
      const item = h('div', { class: 'upload-item' }, [label, h('div', { class: 'bar', 'data-testid': 'upload-bar' }, [bar])]);
      uploads.append(item);
      try {
        const entry = await api.upload(f, (x) => { bar.style.width = `${(x * 100).toFixed(1)}%`; });
        bar.style.width = '100%';
        label.textContent = `${f.name}: uploaded, ingesting…`;
        await refresh();
        streams.get(entry.id);
        setTimeout(() => item.remove(), 3000);
      } catch (e) {
        item.classList.add('error');
        label.textContent = `${f.name}: ${e.message}`;
      }
    }
  };

  fileInput.addEventListener('change', () => { if (fileInput.files) uploadAll([...fileInput.files]); });
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (e.dataTransfer && e.dataTransfer.files.length) uploadAll([...e.dataTransfer.files]);
  });
  refresh();
}

/**
 * @param {HTMLElement} td
 * @param {string} status
 * @param {any} progress
 * @param {string} [error]
 */
function setStatus(td, status, progress, error) {
  clear(td);
  td.dataset.status = status;
  if (status === 'ingesting' || status === 'pending') {
    let frac = 0;
    if (progress) {
      if (typeof progress.fraction === 'number') frac = progress.fraction;
      else if (progress.bytes_done && progress.bytes_total) frac = progress.bytes_done / progress.bytes_total;
      else if (progress.buffers_done && progress.buffers_total) frac = progress.buffers_done / progress.buffers_total;
    }
    const fill = h('div', { class: 'bar-fill', style: { width: `${(frac * 100).toFixed(0)}%` } });
    td.append(h('span', { class: 'pill busy', text: status }), h('div', { class: 'bar small' }, [fill]));
  } else if (status === 'live') {
    td.append(h('span', { class: 'pill busy', text: 'live', 'data-testid': 'live-pill' }));
  } else if (status === 'failed') {
    td.append(h('span', { class: 'pill bad', text: 'failed', title: error || '' }), h('span', { class: 'muted', text: ` ${error || ''}` }));
  } else {
    td.append(h('span', { class: 'pill ok', text: status }));
  }
}
