// The HTTP API (docs/API.md): JSON in, JSON out, errors as ApiError.

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

/** @param {string} url @param {RequestInit} [init] */
async function call(url, init) {
  const r = await fetch(url, init);
  if (r.status === 204) return null;
  let body = null;
  try { body = await r.json(); } catch { /* not JSON */ }
  if (!r.ok) throw new ApiError(r.status, body);
  return body;
}

/** @param {string} url @param {any} body */
const post = (url, body) =>
  call(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const tr = (/** @type {string} */ id) => `/api/traces/${encodeURIComponent(id)}`;

export const listTraces = () => call('/api/traces');
/** @param {string} id */
export const getTrace = (id) => call(tr(id));
/** @param {string} id */
export const deleteTrace = (id) => call(tr(id), { method: 'DELETE' });
/** @param {string} id */
export const summary = (id) => call(`${tr(id)}/summary`);
/** @param {string} id */
export const columns = (id) => call(`${tr(id)}/columns`);
/** @param {string} id @param {any} q */
export const table = (id, q) => post(`${tr(id)}/table`, q);
/** @param {string} id @param {any} q */
export const flame = (id, q) => post(`${tr(id)}/flame`, q);
/** @param {string} id @param {any} q */
export const butterfly = (id, q) => post(`${tr(id)}/butterfly`, q);
/** @param {string} id @param {any} q */
export const timeline = (id, q) => post(`${tr(id)}/timeline`, q);

/**
 * Follow ingest progress over server-sent events until ready or failed.
 * @param {string} id
 * @param {(msg: any) => void} onMsg
 * @returns {() => void} closes the stream
 */
export function watchProgress(id, onMsg) {
  const es = new EventSource(`${tr(id)}/progress`);
  es.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    onMsg(m);
    if (m.status === 'ready' || m.status === 'failed') es.close();
  };
  es.onerror = () => { es.close(); onMsg({ status: 'stream_error' }); };
  return () => es.close();
}

/**
 * Upload a file as the raw request body, reporting upload progress (0..1).
 * @param {File} file
 * @param {(fraction: number) => void} onProgress
 * @returns {Promise<any>} the library entry
 */
export function upload(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/traces?name=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ApiError(xhr.status, body));
    };
    xhr.onerror = () => reject(new ApiError(0, { error: { code: 'network', message: 'network error during upload' } }));
    xhr.send(file);
  });
}
