// The library page: the list of traces, upload (picker or drop) with progress, open/delete/copy link.
import * as api from './api.js';
import { h, clear, fmtSize, fmtDate, copyText, toast } from './dom.js';
import { compareWith } from './compare.js';
import { isSchemaFile, schemaPacksPanel } from './schema-packs.js';
import { isRegionsFile, regionsPanel } from './regions-files.js';
import { shareButton } from './share.js';

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
  // Said once the listing tells (`serve --require-redacted`): other uploads are refused.
  const redactedOnly = h('div', { class: 'hint redacted-only', 'data-testid': 'require-redacted', hidden: true,
    text: 'This server accepts only redacted copies: run etlscope redact TRACE -o COPY.etl and upload COPY.etl (docs/guide/sharing.md).' });
  /** Where a trace's Share a redacted copy panel opens. */
  const shareHost = h('div', { class: 'share-host' });
  const drop = h('div', { class: 'dropzone', tabindex: '0', 'data-testid': 'dropzone' }, [
    h('div', { class: 'drop-title', text: 'Drop .etl, .etl.zip or .diagsession files here (or provider manifests: .man, .xml)' }),
    h('div', { class: 'drop-sub' }, ['or ', h('button', { class: 'btn primary', text: 'Choose files…', onclick: () => fileInput.click() })]),
  ]);
  const schemas = schemaPacksPanel();
  const regions = regionsPanel();
  const tbody = h('tbody');
  const listState = h('div', { class: 'state', text: 'Loading traces…' });
  const tableEl = h('table', { class: 'grid library', 'data-testid': 'library' }, [
    h('thead', {}, [h('tr', {}, ['Name', 'Size', 'Uploaded', 'Status', ''].map((t) => h('th', { text: t, class: t === 'Size' ? 'num' : '' })))]),
    tbody,
  ]);

  root.append(
    h('header', { class: 'topbar' }, [h('a', { class: 'home', href: '/', text: 'etlscope' }), h('span', { class: 'tag', text: 'Windows Performance Analyzer-style ETW trace viewer' })]),
    h('div', { class: 'page library-page' }, [
      h('div', { class: 'page-head' }, [h('h1', { text: 'Trace library' }), h('a', { class: 'btn', href: '/across', text: 'Across traces…', 'data-testid': 'across-link', title: 'One measure per trace of the library, over time or by label', onclick: (/** @type {Event} */ e) => { e.preventDefault(); navigate('/across'); } })]),
      drop, redactedOnly, fileInput, uploads,
      h('section', { class: 'panel' }, [tableEl, listState]),
      shareHost,
      schemas.panel,
      regions.panel,
    ]),
  );

  /** The entry the page points at (a duplicate upload's), kept across refreshes of the list. @type {string|null} */
  let selectedId = null;
  // Only the newest listing is drawn: an older one answering late would drop rows and the selection.
  let listing = 0;
  /** Notes per trace id (GET /api/note-counts). @type {Record<string, number>} */
  let noteCounts = {};
  const refresh = async () => {
    const mine = ++listing;
    try {
      // Note counts are a nicety: a server that cannot give them still lists its traces.
      const [{ traces, access }, counts] = await Promise.all([api.listTraces(), api.noteCounts().catch(() => null)]);
      if (mine !== listing) return;
      redactedOnly.hidden = !(access && access.require_redacted);
      noteCounts = (counts && counts.counts) || {};
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
    const tr = h('tr', { 'data-id': t.id, class: t.id === selectedId ? 'selected' : '' }, [
      h('td', {}, [
        h('a', { href: `/t/${t.id}`, text: t.name || t.id, onclick: (e) => { e.preventDefault(); navigate(`/t/${t.id}`); } }),
        t.redacted_from ? h('span', { class: 'chip redacted-from', 'data-testid': 'redacted-from' }, [
          'redacted copy of ',
          h('a', { href: `/t/${t.redacted_from}`, text: t.redacted_from.slice(0, 8), title: 'The original (it may have been deleted since)' }),
        ]) : null,
        noteCounts[t.id] ? h('span', { class: 'chip note-count', 'data-testid': 'note-count', title: 'Notes on views of this trace', text: `${noteCounts[t.id]} note${noteCounts[t.id] === 1 ? '' : 's'}` }) : null,
      ]),
      h('td', { class: 'num', text: fmtSize(t.size) }),
      h('td', { text: fmtDate(t.uploaded_at) }),
      status,
      h('td', { class: 'actions' }, [
        h('button', { class: 'btn', text: 'Open', onclick: () => navigate(`/t/${t.id}`) }),
        h('button', { class: 'btn', text: 'Copy link', onclick: async () => { await copyText(link); toast('Link copied'); } }),
        t.status === 'ready' ? compareWith(t.id, navigate) : null,
        shareButton(t.id, shareHost, navigate, refresh),
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
    // A redrawn row follows its trace on one stream: the old row's is closed.
    streams.get(t.id)?.();
    streams.delete(t.id);
    if (t.status === 'pending' || t.status === 'ingesting' || t.status === 'live') {
      streams.set(t.id, api.watchProgress(t.id, (m) => {
        if (m.status === 'stream_error') return;
        setStatus(status, m.status, m.progress, m.error);
        // Ready now: it can be compared, as a row listed ready can.
        const actions = tr.querySelector('td.actions');
        if (m.status === 'ready' && actions && !actions.querySelector('[data-testid=compare-with]')) {
          actions.insertBefore(compareWith(t.id, navigate), actions.querySelector('.btn.danger'));
        }
      }));
    }
    return tr;
  };

  /** @param {FileList|File[]} files */
  const uploadAll = async (files) => {
    for (const f of files) {
      const fill = h('div', { class: 'bar-fill' });
      const bar = h('div', { class: 'bar', 'data-testid': 'upload-bar' }, [fill]);
      const label = h('span', { 'data-testid': 'upload-label', text: `Uploading ${f.name}: 0% (0 B of ${fmtSize(f.size)})` });
      const item = h('div', { class: 'upload-item', 'data-testid': 'upload-item' }, [label, bar]);
      uploads.append(item);
      try {
        const { entry, existed } = await api.upload(f, (sent, total) => {
          const pct = total ? (100 * sent) / total : 0;
          fill.style.width = `${pct.toFixed(1)}%`;
          label.textContent = `Uploading ${f.name}: ${pct.toFixed(0)}% (${fmtSize(sent)} of ${fmtSize(total)})`;
        });
        fill.style.width = '100%';
        await refresh();
        if (existed) {
          // The server keeps one copy of the same bytes: say so, and point at that entry.
          bar.remove();
          item.classList.add('existed');
          label.textContent = `${f.name} was already in the library (as ${entry.name || entry.id}, uploaded ${fmtDate(entry.uploaded_at)}): not stored again.`;
          item.append(h('button', { class: 'btn', text: 'Open', 'data-testid': 'upload-open', onclick: () => navigate(`/t/${entry.id}`) }));
          // Its row selected and brought into view: the user sees which trace it is.
          selectedId = entry.id;
          for (const x of tbody.querySelectorAll('tr.selected')) x.classList.remove('selected');
          const tr = tbody.querySelector(`tr[data-id="${entry.id}"]`);
          if (tr) { tr.classList.add('flash', 'selected'); tr.scrollIntoView({ block: 'nearest' }); }
          setTimeout(() => item.remove(), 15000);
        } else {
          // From here the notice follows the ingest as the row does (same stream, same figures).
          label.textContent = `${f.name}: uploaded (${fmtSize(f.size)}), ingesting…`;
          fill.style.width = '0%';
          streams.set(`upload:${entry.id}`, api.watchProgress(entry.id, (m) => {
            if (m.status === 'stream_error') return;
            if (m.status === 'pending' || m.status === 'ingesting') {
              const pct = 100 * progressFraction(m.progress);
              fill.style.width = `${pct.toFixed(1)}%`;
              label.textContent = `${f.name}: ${m.status} ${pct.toFixed(0)}%…`;
            } else if (m.status === 'failed') {
              bar.remove();
              item.classList.add('error');
              label.textContent = `${f.name}: ingest failed: ${m.error || ''}`;
            } else {
              bar.remove();
              label.textContent = `${f.name}: ${m.status === 'ready' ? 'ready' : m.status}`;
              setTimeout(() => item.remove(), 2000);
            }
          }));
        }
      } catch (e) {
        // A refused upload keeps no progress bar: the bar would say it got through.
        bar.remove();
        item.classList.add('error');
        label.textContent = `${f.name}: ${e.message}`;
      }
    }
  };

  fileInput.addEventListener('change', () => {
    if (fileInput.files) uploadAll([...fileInput.files]);
    // Else choosing the same file again fires no change, and a duplicate upload would say nothing.
    fileInput.value = '';
  });
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    const files = [...e.dataTransfer.files];
    // Regions files (.xml naming Regions) go to the library's regions files, other manifests to its
    // schemas, traces to the upload.
    Promise.all(files.map(isRegionsFile)).then((isRegions) => {
      const regionFiles = files.filter((_, i) => isRegions[i]);
      if (regionFiles.length) regions.importAll(regionFiles);
      const rest = files.filter((_, i) => !isRegions[i]);
      const manifests = rest.filter((f) => isSchemaFile(f.name));
      if (manifests.length) schemas.importAll(manifests);
      const traces = rest.filter((f) => !isSchemaFile(f.name));
      if (traces.length) uploadAll(traces);
    });
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
    const frac = progressFraction(progress);
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

/** How far an ingest is, 0..1, from its progress message (one reading for the row and the notice). @param {any} progress */
function progressFraction(progress) {
  if (!progress) return 0;
  if (typeof progress.fraction === 'number') return progress.fraction;
  if (progress.bytes_done && progress.bytes_total) return progress.bytes_done / progress.bytes_total;
  if (progress.buffers_done && progress.buffers_total) return progress.buffers_done / progress.buffers_total;
  return 0;
}
