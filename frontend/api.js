// The HTTP API (docs/API.md): JSON in, JSON out, errors as ApiError.
import { authHeaders, askToken, needsToken, savedToken } from './token.js';

export class ApiError extends Error {
  /** @param {number} status @param {any} body */
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || 'http_error';
    /** @type {number|undefined} */
    this.resolvedDepth = e.resolved_depth;
    this.body = body;
  }
}

/**
 * One request with the session's headers (see token.js); on a 401 asking for the token, asks once and retries.
 * @param {string} url @param {RequestInit} [init]
 */
async function call(url, init = {}) {
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(url, { ...init, headers: { ...(/** @type {any} */ (init.headers) || {}), ...authHeaders() } });
    if (r.status === 204) return null;
    let body = null;
    try { body = await r.json(); } catch { /* not JSON */ }
    if (needsToken(r.status, body) && attempt < 2 && await askToken(attempt > 0 || savedToken() !== '')) continue;
    if (!r.ok) throw new ApiError(r.status, body);
    return body;
  }
}

/** The stack tag set queries name (docs/API.md, "Stack tags"); '' is the built-in one. */
let stackTagSet = '';
/** @param {string} name */
export function useStackTags(name) { stackTagSet = name || ''; }
/** The Stack Tags set queries use now. */
export const stackTags = () => stackTagSet;

/** The regions file queries name (docs/API.md, "Regions files"); '' the trace's own (`--regions`). */
let regionsSet = '';
/** @param {string} name */
export function useRegions(name) { regionsSet = name || ''; }
/** The regions file queries use now. */
export const regions = () => regionsSet;
/** The view's regions header, if it names a file. */
const regionsHeader = () => (regionsSet ? { 'x-etlscope-regions': regionsSet } : {});

/** @param {string} url @param {any} body @param {AbortSignal} [signal] */
const post = (url, body, signal) =>
  call(url, { method: 'POST', signal, headers: { 'content-type': 'application/json', ...(stackTagSet ? { 'x-etlscope-stack-tags': stackTagSet } : {}), ...regionsHeader() }, body: JSON.stringify(body) });

/** The library's regions files. */
export const regionSets = () => call('/api/regions');
/** Store a regions file as `name`. @param {string} name @param {string} xml */
export const putRegions = (name, xml) =>
  call(`/api/regions/${encodeURIComponent(name)}`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: xml });
/** @param {string} name */
export const deleteRegions = (name) => call(`/api/regions/${encodeURIComponent(name)}`, { method: 'DELETE' });

/** The server's stack tag sets. */
export const stackTagSets = () => call('/api/stacktags');
/** Store a .stacktags file as set `name`. @param {string} name @param {string} xml */
export const putStackTags = (name, xml) =>
  call(`/api/stacktags/${encodeURIComponent(name)}`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: xml });
/** A .wpaProfile mapped onto our tables (docs/API.md, "WPA profiles"). @param {string} xml */
export const mapWpaProfile = (xml) => call('/api/wpa-profile', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: xml });
/** @param {string} name */
export const deleteStackTags = (name) => call(`/api/stacktags/${encodeURIComponent(name)}`, { method: 'DELETE' });

/** The library's schema packs (docs/API.md, "Schema packs"). */
export const schemaPacks = () => call('/api/schemas');
/** Store a manifest or pack as schema pack `name`. @param {string} name @param {Blob} body */
export const putSchemaPack = (name, body) =>
  call(`/api/schemas/${encodeURIComponent(name)}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body });
/** @param {string} name */
export const deleteSchemaPack = (name) => call(`/api/schemas/${encodeURIComponent(name)}`, { method: 'DELETE' });

const tr = (/** @type {string} */ id) => `/api/traces/${encodeURIComponent(id)}`;

/** @param {string} id */
export const getTrace = (id) => call(tr(id));
/** What a redacted copy would replace (the CLI's `redact --report json`). @param {string} id @param {{keep: string[], paths: string[]}} o */
export const redactPreview = (id, o) => call(`${tr(id)}/redact/preview`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o) });
/** Make the redacted copy: a new library entry naming its original. @param {string} id @param {{keep: string[], paths: string[]}} o */
export const redactCopy = (id, o) => call(`${tr(id)}/redact`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(o) });
/** @param {string} id */
export const deleteTrace = (id) => call(tr(id), { method: 'DELETE' });
/** @param {string} id */
export const summary = (id) => call(`${tr(id)}/summary`, { headers: regionsHeader() });
/** @param {string} id */
export const systemConfig = (id) => call(`${tr(id)}/system-config`);
/** @param {string} id */
export const findings = (id) => call(`${tr(id)}/findings`);
/** @param {string} id */
export const columns = (id) => call(`${tr(id)}/columns`, { headers: regionsHeader() });
/** @param {string} id @param {any} q */
export const table = (id, q) => post(`${tr(id)}/table`, q);
/** @param {string} id @param {any} q */
export const flame = (id, q) => post(`${tr(id)}/flame`, q);
/** @param {string} id @param {any} q */
export const butterfly = (id, q) => post(`${tr(id)}/butterfly`, q);
/** One level of the caller tree. @param {string} id @param {any} q */
export const callers = (id, q) => post(`${tr(id)}/callers`, q);
/** One level of the callee tree. @param {string} id @param {any} q */
export const callees = (id, q) => post(`${tr(id)}/callees`, q);
/** Functions and modules whose name contains `q.q`. @param {string} id @param {any} q */
export const searchNames = (id, q) => post(`${tr(id)}/search`, q);
/** @param {string} id @param {any} q */
export const timeline = (id, q) => post(`${tr(id)}/timeline`, q);
/** One table on two traces (baseline, comparison). @param {any} q */
export const compare = (q) => post('/api/compare', q);
/** One read-only SQL query over the trace (docs/guide/sql.md); `signal` drops it (the server stops it). @param {string} id @param {any} q @param {AbortSignal} [signal] */
export const sql = (id, q, signal) => post(`${tr(id)}/sql`, q, signal);
/** One read-only SQL query over the library's trace summaries (docs/guide/sql.md, "Library"). @param {any} q */
export const librarySql = (q) => post('/api/sql', q);
/** The SQL tables, their columns and the SQL functions (the Query tab's completion). */
export const sqlSchema = () => call('/api/sql/schema');
/** The graph above a table; `signal` drops it (the server stops computing it). @param {string} id @param {any} q @param {AbortSignal} [signal] */
export const graph = (id, q, signal) => post(`${tr(id)}/graph`, q, signal);

/**
 * Follow ingest progress over server-sent events until ready or failed. Read with fetch rather than EventSource,
 * which cannot send headers: with `--private-reads` the stream needs the token like every other read.
 * @param {string} id
 * @param {(msg: any) => void} onMsg
 * @returns {() => void} closes the stream
 */
export function watchProgress(id, onMsg) {
  const ctl = new AbortController();
  let ended = false;
  const end = (/** @type {any} */ m) => { if (!ended) { ended = true; if (m) onMsg(m); } };
  (async () => {
    let r;
    for (let attempt = 0; ; attempt++) {
      r = await fetch(`${tr(id)}/progress`, { headers: { accept: 'text/event-stream', ...authHeaders() }, signal: ctl.signal });
      if (r.status !== 401 || attempt >= 2) break;
      let body = null;
      try { body = await r.json(); } catch { /* not JSON */ }
      if (!needsToken(r.status, body) || !await askToken(attempt > 0 || savedToken() !== '')) break;
    }
    if (!r.ok || !r.body) { end({ status: 'stream_error' }); return; }
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const data = buf.slice(0, i).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
        buf = buf.slice(i + 2);
        if (!data) continue;
        let m;
        try { m = JSON.parse(data); } catch { continue; }
        onMsg(m);
        if (m.status === 'ready' || m.status === 'failed' || m.status === 'deleted') { ended = true; ctl.abort(); return; }
      }
    }
    end({ status: 'stream_error' });
  })().catch(() => { if (!ctl.signal.aborted) end({ status: 'stream_error' }); });
  return () => { ended = true; ctl.abort(); };
}

/** @type {{token_for_writes: boolean, token_for_reads: boolean}|null} from the last list */
let access = null;

export async function listTraces() {
  const r = await call('/api/traces');
  if (r && r.access) access = r.access;
  return r;
}

/**
 * Upload a file as the raw request body, reporting upload progress (0..1). When the server needs a token
 * and none is saved, asks first: a 401 would only come after the browser started sending the file.
 * @param {File} file
 * @param {(sent: number, total: number) => void} onProgress bytes sent so far, of the file's
 * @returns {Promise<{entry: any, existed: boolean}>} the library entry; `existed` when the same bytes
 *   were uploaded before (the server answers 200 with that entry instead of 201)
 */
export async function upload(file, onProgress) {
  if (access && access.token_for_writes && !savedToken()) await askToken();
  for (let attempt = 0; ; attempt++) {
    const { status, body } = await send(file, onProgress);
    if (needsToken(status, body) && attempt < 2 && await askToken(true)) continue;
    if (status >= 200 && status < 300) return { entry: body, existed: status === 200 };
    throw new ApiError(status, body);
  }
}

/** @param {File} file @param {(sent: number, total: number) => void} onProgress @returns {Promise<{status: number, body: any}>} */
function send(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/traces?name=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    for (const [k, v] of Object.entries(authHeaders())) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new ApiError(0, { error: { code: 'network', message: 'network error during upload' } }));
    xhr.send(file);
  });
}

/** The view as CSV or TSV (`etlscope export`'s bytes), as a Blob. @param {string} id @param {any} q @returns {Promise<Blob>} */
export async function exportTable(id, q) {
  const r = await fetch(`${tr(id)}/export`, { method: 'POST', headers: { 'content-type': 'application/json', ...regionsHeader(), ...authHeaders() }, body: JSON.stringify(q) });
  if (!r.ok) {
    let body = null;
    try { body = await r.json(); } catch { /* not JSON */ }
    throw new ApiError(r.status, body);
  }
  return r.blob();
}
/** Keep a view's path and query under a short id. @param {string} target @returns {Promise<{id: string, path: string}>} */
export const createLink = (target) => post('/api/links', { target });

// Notes on views (docs/API.md, "Notes"). A note's edit key goes in its own header.
const json = { 'content-type': 'application/json' };
/** @param {string} key */
const keyHeader = (key) => (key ? { 'x-etlscope-note-key': key } : {});
/** The trace's notes and their limits. @param {string} id */
export const notes = (id) => call(`${tr(id)}/notes`);
/** @param {string} id @param {{text: string, view: string, author: string}} note */
export const createNote = (id, note) => call(`${tr(id)}/notes`, { method: 'POST', headers: json, body: JSON.stringify(note) });
/** @param {string} noteId @param {string} key @param {{text: string, view?: string, author?: string}} edit */
export const updateNote = (noteId, key, edit) =>
  call(`/api/notes/${encodeURIComponent(noteId)}`, { method: 'PUT', headers: { ...json, ...keyHeader(key) }, body: JSON.stringify(edit) });
/** @param {string} noteId @param {string} key */
export const deleteNote = (noteId, key) => call(`/api/notes/${encodeURIComponent(noteId)}`, { method: 'DELETE', headers: keyHeader(key) });
/** Notes per trace id, for the library. */
export const noteCounts = () => call('/api/note-counts');
