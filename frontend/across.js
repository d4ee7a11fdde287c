// The Across traces page (/across): one measure (CPU of a process, optionally in a module or a
// function; file or disk I/O of a process) per trace of the library, from the trace summaries
// (POST /api/sql over the library_* tables, docs/guide/sql.md "Library"). Drawn per trace over its
// start time, or as a bar per trace grouped by a label's value; a trace far above the others
// (more than FLAG x the median) is flagged. A click on a point, a bar or a row opens that trace's
// view of the measure: CPU Usage (Sampled) (or File I/O, Disk I/O) filtered to the process and
// module, through the trace page's link state. The form is the page's address (`/across?...`).
import * as api from './api.js';
import { h, clear, fmtInt, fmt2 } from './dom.js';
import { pointChart } from './point-chart.js';
import { barChart } from './bar-chart.js';

/** A trace whose value is above FLAG x the median of the traces shown is flagged. */
export const FLAG = 1.5;

/**
 * @typedef {{m: 'cpu'|'file'|'disk', p: string, mod: string, fn: string, path: string,
 *   fig: string, inc: boolean, by: string}} Measure
 * `p` process name; `mod`, `fn` module and function (CPU); `path` a path's text (I/O);
 * `fig` the figure; `inc` a module's or function's samples anywhere on the stack (inclusive), else
 * those whose leaf frame is in it; `by` a label's key to group by ('' : over time).
 */

/** Figures per measure: [value, label, the SQL expression over the summary row `x`]. */
const FIGURES = {
  cpu: [['samples', 'samples'], ['weight', 'weight (ms)']],
  file: [['count', 'operations'], ['size', 'bytes'], ['duration', 'duration (ms)']],
  disk: [['count', 'operations'], ['size', 'bytes'], ['duration', 'service time (ms)']],
};

/** @param {URLSearchParams} q @returns {Measure} */
export function measureFrom(q) {
  const m = q.get('m');
  const mm = m === 'file' || m === 'disk' ? m : 'cpu';
  const fig = q.get('fig') || '';
  return {
    m: mm, p: q.get('p') || '', mod: q.get('mod') || '', fn: q.get('fn') || '', path: q.get('path') || '',
    fig: FIGURES[mm].some(([v]) => v === fig) ? fig : FIGURES[mm][0][0], by: q.get('by') || '',
    // A function's cost is inclusive unless asked; a module's is its leaf samples, as the table's Module filter keeps.
    inc: q.has('inc') ? q.get('inc') === '1' : !!q.get('fn'),
  };
}

/** @param {Measure} x */
export function measureQuery(x) {
  const q = new URLSearchParams();
  q.set('m', x.m);
  if (x.p) q.set('p', x.p);
  if (x.m === 'cpu' && x.mod) q.set('mod', x.mod);
  if (x.m === 'cpu' && x.fn) q.set('fn', x.fn);
  if (x.m !== 'cpu' && x.path) q.set('path', x.path);
  q.set('fig', x.fig);
  if (x.m === 'cpu' && (x.mod || x.fn)) q.set('inc', x.inc ? '1' : '0');
  if (x.by) q.set('by', x.by);
  return q.toString();
}

/** An SQL string literal. @param {string} s */
const lit = (s) => `'${s.replace(/'/g, "''")}'`;

/**
 * The statement over the library: per trace that ran the process, its name, start, labels, the
 * value, and the process (`name (pid)`) that holds most of it (the trace view filters to it).
 * @param {Measure} x
 */
export function measureSql(x) {
  const proc = `lower(x.process_name) = lower(${lit(x.p)})`;
  let table;
  let value;
  let where = proc;
  if (x.m === 'cpu') {
    const inc = x.inc ? 'inclusive' : 'exclusive';
    if (x.fn) {
      table = 'library_cpu_functions';
      const full = x.fn.includes('!') ? x.fn : x.mod ? `${x.mod}!${x.fn}` : '';
      where += full ? ` AND lower(x.function) = lower(${lit(full)})` : ` AND lower(x.function) LIKE lower(${lit(`%!${x.fn}`)})`;
    } else if (x.mod) {
      table = 'library_cpu_modules';
      where += ` AND lower(x.module) = lower(${lit(x.mod)})`;
    } else table = 'library_cpu_processes';
    const plain = table === 'library_cpu_processes';
    value = x.fig === 'weight' ? `${plain ? 'x.weight_ns' : `x.${inc}_weight_ns`} / 1e6` : plain ? 'x.samples' : `x.${inc}_samples`;
  } else {
    table = x.m === 'file' ? 'library_file_io' : 'library_disk_io';
    const pathCol = x.m === 'file' ? 'x.file_path' : 'x.path_name';
    if (x.path) where += ` AND lower(${pathCol}) LIKE lower(${lit(`%${x.path}%`)})`;
    value = x.fig === 'size' ? 'x.size' : x.fig === 'duration' ? `${x.m === 'file' ? 'x.duration_ns' : 'x.disk_service_time_ns'} / 1e6` : 'x.count';
  }
  const ran = x.m === 'cpu' ? 'library_cpu_processes' : table;
  return `SELECT t.trace, t.name, t.start_time, t.labels,
  coalesce((SELECT sum(${value}) FROM ${table} x WHERE x.trace = t.trace AND ${where}), 0) AS value,
  (SELECT x.process FROM ${table} x WHERE x.trace = t.trace AND ${where} GROUP BY x.process ORDER BY sum(${value}) DESC, x.process LIMIT 1) AS process
FROM library_traces t
WHERE t.trace IN (SELECT x.trace FROM ${ran} x WHERE ${proc})
ORDER BY t.start_time, t.name`;
}

/** The value of label `key` in a trace's labels (`build=22621.1, ring=canary`), or ''. @param {string|null} labels @param {string} key */
export function labelValue(labels, key) {
  for (const part of (labels || '').split(/[,;\n]+|\s+(?=[^\s=]+=)/)) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim().toLowerCase() === key.toLowerCase()) return part.slice(i + 1).trim();
  }
  return '';
}

/**
 * The trace page showing the measure: its table filtered to the process (and module), grouped by
 * process, module and function (CPU) or by path (I/O).
 * @param {Measure} x @param {{trace: string, process: string|null}} r
 */
export function traceViewUrl(x, r) {
  const q = new URLSearchParams();
  q.set('v', '2');
  q.set('view', 'table');
  if (x.m === 'cpu') {
    q.set('t', 'cpu-sampled');
    q.set('g', 'Process,Module,Function');
    q.set('c', 'Count,Weight (ms),% Weight');
    q.set('s', 'Weight (ms)');
  } else {
    q.set('t', x.m === 'file' ? 'file-io' : 'disk-io');
    q.set('g', x.m === 'file' ? 'Process,Type,File Path' : 'Process,IO Type,Path Name');
    q.set('c', x.m === 'file' ? 'Count,Size,Duration (ms),% Weight' : 'Count,Size,Disk Service Time (ms),% Weight');
    q.set('s', 'Count');
  }
  q.append('f', `Process=${r.process || x.p}`);
  const full = x.fn.includes('!') ? x.fn : x.mod && x.fn ? `${x.mod}!${x.fn}` : '';
  // A function: every sample whose stack has it (inclusive) or whose leaf it is; a module: its leaf samples.
  if (x.m === 'cpu' && full) q.append('f', x.inc ? `Stack contains=${full}` : `Function=${full}`);
  else if (x.m === 'cpu' && x.mod) q.append('f', `Module=${x.mod}`);
  return `/t/${encodeURIComponent(r.trace)}?${q.toString()}`;
}

/** @param {number[]} v */
function median(v) {
  const s = [...v].sort((a, b) => a - b);
  if (!s.length) return 0;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** @param {number} v */
const valueText = (v) => (Number.isInteger(v) ? fmtInt(v) : fmt2(v));

/**
 * @param {HTMLElement} root
 * @param {(url: string) => void} navigate
 */
export function renderAcross(root, navigate) {
  clear(root);
  const x = measureFrom(new URLSearchParams(location.search));
  const field = (/** @type {string} */ label, /** @type {HTMLElement} */ input) => h('label', {}, [label, input]);
  const input = (/** @type {string} */ name, /** @type {string} */ value, /** @type {string} */ placeholder) => /** @type {HTMLInputElement} */ (h('input', { type: 'text', name, value, placeholder, 'data-testid': `across-${name}`, list: name === 'p' ? 'across-processes' : undefined }));
  const m = /** @type {HTMLSelectElement} */ (h('select', { name: 'm', 'data-testid': 'across-m' }, [
    h('option', { value: 'cpu', text: 'CPU (sampled) of a process' }), h('option', { value: 'file', text: 'File I/O of a process' }), h('option', { value: 'disk', text: 'Disk I/O of a process' })]));
  m.value = x.m;
  const p = input('p', x.p, 'explorer.exe');
  const mod = input('mod', x.mod, 'module, e.g. tishell64.dll (optional)');
  const fn = input('fn', x.fn, 'function (optional): module!function or its name');
  const path = input('path', x.path, 'path contains (optional)');
  const fig = /** @type {HTMLSelectElement} */ (h('select', { name: 'fig', 'data-testid': 'across-fig' }));
  const by = input('by', x.by, 'a label key, e.g. build (empty: over time)');
  const inc = /** @type {HTMLSelectElement} */ (h('select', { name: 'inc', 'data-testid': 'across-inc' }, [
    h('option', { value: '0', text: 'leaf frame in it (exclusive)' }), h('option', { value: '1', text: 'anywhere on the stack (inclusive)' })]));
  inc.value = x.inc ? '1' : '0';
  const figures = () => {
    const was = fig.value || x.fig;
    clear(fig);
    for (const [v, t] of FIGURES[/** @type {'cpu'|'file'|'disk'} */ (m.value)]) fig.append(h('option', { value: v, text: t }));
    fig.value = FIGURES[/** @type {'cpu'|'file'|'disk'} */ (m.value)].some(([v]) => v === was) ? was : fig.options[0].value;
    const cpu = m.value === 'cpu';
    for (const e of [mod, fn, inc]) /** @type {HTMLElement} */ (e.parentElement || e).hidden = !cpu;
    /** @type {HTMLElement} */ (path.parentElement || path).hidden = cpu;
  };
  m.addEventListener('change', figures);
  const processes = h('datalist', { id: 'across-processes' });
  const form = h('form', { class: 'across-form', 'data-testid': 'across-form' }, [
    field('Measure', m), field('Process', p), field('Module', mod), field('Function', fn), field('Path', path), field('Figure', fig), field('Samples of a module or function', inc), field('Group by label', by),
    h('button', { class: 'btn primary', type: 'submit', text: 'Show', 'data-testid': 'across-show' }), processes,
  ]);
  figures();
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const next = { m: /** @type {'cpu'|'file'|'disk'} */ (m.value), p: p.value.trim(), mod: mod.value.trim(), fn: fn.value.trim(), path: path.value.trim(), fig: fig.value, inc: inc.value === '1', by: by.value.trim() };
    navigate(`/across?${measureQuery(next)}`);
  });
  const status = h('div', { class: 'state', 'data-testid': 'across-status' });
  const chart = h('div', { class: 'across-chart' });
  const sqlText = h('details', { class: 'across-sql' });
  const rowsEl = h('div', {});
  root.append(
    h('header', { class: 'topbar' }, [h('a', { class: 'home', href: '/', text: 'etlscope', onclick: (/** @type {Event} */ e) => { e.preventDefault(); navigate('/'); } }), h('span', { class: 'tag', text: 'Across traces' })]),
    h('div', { class: 'page library-page' }, [
      h('div', { class: 'page-head' }, [h('h1', { text: 'Across traces' })]),
      h('p', { class: 'muted', text: 'One measure per trace of the library, from the summaries each trace writes when it is read. Click a point, a bar or a row to open that trace\'s view of it.' }),
      h('section', { class: 'panel' }, [form]),
      h('section', { class: 'panel' }, [status, chart, rowsEl, sqlText]),
    ]),
  );
  document.title = 'etlscope: across traces';
  api.librarySql({ sql: 'SELECT DISTINCT process_name FROM library_cpu_processes ORDER BY 1 LIMIT 1000' })
    .then((a) => { for (const r of a.rows) processes.append(h('option', { value: String(r[0]) })); })
    .catch(() => { /* a nicety: the form works without it */ });
  if (!x.p) { status.textContent = 'Pick a measure and a process, then Show.'; return; }
  const sql = measureSql(x);
  sqlText.append(h('summary', { text: 'The SQL asked (POST /api/sql)' }), h('pre', { 'data-testid': 'across-sql', text: sql }));
  status.textContent = 'Asking the library…';
  api.librarySql({ sql }).then((a) => {
    const rows = a.rows.map((/** @type {any[]} */ r) => ({ trace: String(r[0]), name: String(r[1] ?? r[0]), start: String(r[2] ?? ''), labels: String(r[3] ?? ''), value: Number(r[4]) || 0, process: r[5] === null ? null : String(r[5]) }));
    const med = median(rows.map((r) => r.value));
    const flagged = (/** @type {{value: number}} */ r) => rows.length >= 3 && r.value > FLAG * med;
    const open = (/** @type {{trace: string, process: string|null}} */ r) => navigate(traceViewUrl(x, r));
    const figName = (FIGURES[x.m].find(([v]) => v === x.fig) || ['', ''])[1];
    const what = `${x.m === 'cpu' ? 'CPU' : x.m === 'file' ? 'File I/O' : 'Disk I/O'} ${figName} of ${x.p}${x.mod ? ` in ${x.mod}` : ''}${x.fn ? ` in ${x.fn}` : ''}${x.mod || x.fn ? (x.inc ? ' (inclusive)' : ' (exclusive)') : ''}${x.path ? ` on paths with ${x.path}` : ''}`;
    const nFlagged = rows.filter(flagged).length;
    status.textContent = `${fmtInt(rows.length)} trace${rows.length === 1 ? '' : 's'} ran ${x.p}; ${nFlagged} above ${FLAG}× the median (${valueText(med)})${a.truncated ? ' (the first rows only: the row limit)' : ''}`;
    status.className = 'state';
    status.dataset.rows = String(rows.length);
    if (x.by) {
      const keyed = rows.map((r) => ({ r, k: labelValue(r.labels, x.by) })).sort((u, v) => (u.k < v.k ? -1 : u.k > v.k ? 1 : u.r.start < v.r.start ? -1 : 1));
      barChart(chart, keyed.map(({ r, k }) => ({ label: `${x.by}=${k || '(none)'} · ${r.name}`, value: r.value, ref: r })), { title: `${what}, by ${x.by}`, testid: 'across-chart', onClick: (b) => open(b.ref) });
    } else {
      pointChart(chart, rows.map((r) => ({ x: Date.parse(r.start) / 1000 || 0, y: r.value, label: r.name, flagged: flagged(r), ref: r })), { title: `${what}, per trace over its start time`, testid: 'across-chart', yName: figName, onClick: (pt) => open(pt.ref) });
    }
    const head = h('tr', {}, ['Trace', 'Start (UTC)', 'Labels', 'Process', figName, ''].map((t, i) => h('th', { text: t, class: i === 4 ? 'num' : '' })));
    const body = h('tbody', {}, rows.map((r) => h('tr', { class: flagged(r) ? 'flagged' : '', 'data-trace': r.trace, 'data-flagged': flagged(r) ? '1' : '0' }, [
      h('td', {}, [h('a', { href: traceViewUrl(x, r), text: r.name, onclick: (/** @type {Event} */ e) => { e.preventDefault(); open(r); } })]),
      h('td', { text: r.start.replace('T', ' ') }), h('td', { text: r.labels }), h('td', { text: r.process || '' }),
      h('td', { class: 'num', 'data-value': String(r.value), text: valueText(r.value) }),
      h('td', { class: flagged(r) ? 'bad' : '', text: flagged(r) ? `above ${FLAG}× the median` : '' }),
    ])));
    rowsEl.append(h('table', { class: 'grid', 'data-testid': 'across-rows' }, [h('thead', {}, [head]), body]));
  }).catch((e) => {
    status.className = 'state error';
    status.textContent = `The library could not answer: ${e.message}`;
  });
}
