// The Query tab: one read-only SQL statement over the trace (POST /api/traces/{id}/sql,
// docs/guide/sql.md). An editor with table and column completion (sql-complete.js), Run or
// Ctrl+Enter, the answer as a grid sorted by a clicked header, copied as TSV or downloaded as CSV
// (the bytes `etlscope sql` prints), a chart of a numeric column, and the engine's message with
// its position when the statement is wrong. The statement, sort and chart column are in the link
// (`q`, `qs`/`qa`, `qc`), and a link runs its statement when it opens.
import * as api from './api.js';
import { h, clear, copyText, toast, fmtInt } from './dom.js';
import { attachCompletion } from './sql-complete.js';
import { resultGrid, sortedRows, separatedText } from './sql-results.js';
import { chartPlan, drawChart } from './sql-chart.js';

const EXAMPLE = 'SELECT process, count(*) AS samples FROM cpu_sampled GROUP BY 1 ORDER BY 2 DESC LIMIT 20';

/** @type {Promise<import('./sql-complete.js').SqlSchema>|null} the schema, asked once per page load */
let schemaAsk = null;
/** The last answer, so that a redraw of the same statement (back/forward, a sort) asks nothing. @type {{key: string, answer: any}|null} */
let last = null;
/** What the editor held, per trace and statement run, when the tab was left. @type {Map<string, string>} */
const drafts = new Map();
/** The statement under way; a newer one (or leaving the tab) drops it and the server stops it. @type {AbortController|null} */
let running = null;

/**
 * @typedef {{
 *   traceId: string,
 *   state: () => import('./url-state.js').ViewState,
 *   onState: (patch: Partial<import('./url-state.js').ViewState>) => void,
 *   copyLink: () => void,
 *   keepGraph: (g: import('./table-graph.js').TableGraph|null) => void,
 * }} QueryOpts
 * `onState` writes the link (a history entry) without drawing the page again; `keepGraph` hands
 * the page the chart to destroy when it draws another view.
 */

/** The character index of byte `offset` of `s` in UTF-8 (the engine counts bytes). @param {string} s @param {number} offset */
export function charIndex(s, offset) {
  const enc = new TextEncoder();
  let bytes = 0;
  let i = 0;
  for (const ch of s) {
    if (bytes >= offset) break;
    bytes += enc.encode(ch).length;
    i += ch.length;
  }
  return i;
}

/** @param {HTMLElement} body @param {QueryOpts} o */
export function renderQuery(body, o) {
  if (running) running.abort();
  running = null;
  const s = o.state();
  const draftKey = `${o.traceId}\u0000${s.sql || ''}`;
  const editor = /** @type {HTMLTextAreaElement} */ (h('textarea', {
    class: 'sql-editor', 'data-testid': 'sql-editor', spellcheck: 'false', rows: '6', 'aria-label': 'SQL statement',
    placeholder: 'SELECT … FROM cpu_sampled …  (Ctrl+Enter runs it; Ctrl+Space lists tables and columns)',
  }));
  editor.value = drafts.get(draftKey) ?? s.sql ?? EXAMPLE;
  editor.addEventListener('input', () => drafts.set(draftKey, editor.value));
  /** @type {import('./sql-complete.js').SqlSchema|null} */
  let schema = null;
  if (!schemaAsk) schemaAsk = api.sqlSchema().catch((e) => { schemaAsk = null; throw e; });
  const tables = h('details', { class: 'sql-tables', 'data-testid': 'sql-tables' }, [h('summary', { text: 'Tables and columns' })]);
  schemaAsk.then((x) => { schema = x; listTables(tables, x, editor); }).catch((e) => tables.append(h('div', { class: 'muted', text: `The schema is unavailable: ${e.message}` })));
  const complete = attachCompletion(editor, () => schema);
  const status = h('span', { class: 'sql-status muted', 'data-testid': 'sql-status' });
  const error = h('div', { class: 'sql-error', 'data-testid': 'sql-error', role: 'alert', hidden: true });
  const out = h('div', { class: 'sql-out', 'data-testid': 'sql-out' });
  /** @type {any} */
  let answer = null;

  const runButton = h('button', { class: 'btn primary', text: 'Run', 'data-testid': 'sql-run', title: 'Run the statement (Ctrl+Enter)', onclick: () => run() });
  const copyButton = h('button', { class: 'btn', text: 'Copy TSV', 'data-testid': 'sql-copy', disabled: true, title: 'Copy the rows as shown, tab-separated with a header row', onclick: () => copy() });
  const exportButton = h('button', { class: 'btn', text: 'Export CSV', 'data-testid': 'sql-export', disabled: true, title: 'Download the rows as shown as CSV', onclick: () => download() });
  const linkButton = h('button', { class: 'btn', text: 'Copy link', 'data-testid': 'sql-link', title: 'A link that opens this statement and its answer', onclick: () => o.copyLink() });
  body.append(h('div', { class: 'sql-tab', 'data-testid': 'query-tab' }, [
    h('div', { class: 'sql-edit' }, [editor, complete]),
    h('div', { class: 'sql-bar' }, [runButton, copyButton, exportButton, linkButton, status]),
    error, tables, out,
  ]));
  editor.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(); }
  });

  /** The rows in the order the grid shows. */
  const shownRows = () => {
    const st = o.state();
    return sortedRows(answer, st.sqlSort, !!st.sqlAsc);
  };

  const copy = async () => {
    if (!answer) return;
    await copyText(separatedText(answer.columns, shownRows(), 'tsv'));
    toast(`${fmtInt(answer.rows.length)} rows copied (tab-separated)`);
  };

  const download = () => {
    if (!answer) return;
    const blob = new Blob([separatedText(answer.columns, shownRows(), 'csv')], { type: 'text/csv' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: 'query.csv', hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };

  /** The answer drawn: chart (and its column), the grid, the counts. */
  const show = () => {
    clear(out);
    o.keepGraph(null);
    const st = o.state();
    const rows = shownRows();
    const plan = chartPlan({ columns: answer.columns, rows }, st.sqlChart);
    if (plan) {
      const pick = /** @type {HTMLSelectElement} */ (h('select', { class: 'sql-chart-col', 'data-testid': 'sql-chart-column', title: 'The numeric column the chart draws' },
        plan.numeric.map((i) => h('option', { value: answer.columns[i], text: `Chart: ${answer.columns[i]}` }))));
      pick.value = answer.columns[plan.value];
      pick.addEventListener('change', () => { o.onState({ sqlChart: pick.value }); show(); });
      const slot = h('div', { class: 'sql-chart-slot' });
      out.append(h('div', { class: 'sql-chart-bar' }, [pick, h('span', { class: 'muted', text: plan.kind === 'time' ? ` over ${answer.columns[plan.time]}` : plan.key >= 0 ? ` by ${answer.columns[plan.key]} (the first ${Math.min(40, rows.length)} rows as shown)` : '' })]), slot);
      o.keepGraph(drawChart(slot, answer, rows, plan, { traceId: o.traceId, start: 0, duration: 1 }));
    }
    out.append(h('div', { class: 'sql-grid-wrap' }, [resultGrid(answer, rows, st.sqlSort, !!st.sqlAsc, (col, asc) => { o.onState({ sqlSort: col, sqlAsc: asc }); show(); })]));
    const secs = typeof answer.seconds === 'number' ? ` in ${answer.seconds < 1 ? `${(answer.seconds * 1000).toFixed(0)} ms` : `${answer.seconds.toFixed(2)} s`}` : '';
    status.textContent = `${fmtInt(answer.rows.length)} row${answer.rows.length === 1 ? '' : 's'}${secs}${answer.truncated ? ' (the first rows only: the server\'s row limit)' : ''}`;
    status.dataset.rows = String(answer.rows.length);
    copyButton.removeAttribute('disabled');
    exportButton.removeAttribute('disabled');
  };

  /** @param {any} e @param {string} sql */
  const showError = (e, sql) => {
    clear(error);
    const pos = e.body && e.body.error && typeof e.body.error.position === 'number' ? e.body.error.position : null;
    const where = pos === null ? '' : ` (at byte ${pos})`;
    error.append(h('div', { class: 'sql-error-text', 'data-testid': 'sql-error-text', text: `SQL error: ${e.message}${where}` }));
    error.dataset.code = e.code || '';
    error.dataset.position = pos === null ? '' : String(pos);
    if (pos !== null) {
      // The statement's line with a caret under the token the engine points at.
      const at = charIndex(sql, pos);
      const lineStart = sql.lastIndexOf('\n', at - 1) + 1;
      const lineEnd = sql.indexOf('\n', at) < 0 ? sql.length : sql.indexOf('\n', at);
      error.append(h('pre', { class: 'sql-error-where', 'data-testid': 'sql-error-where', text: `${sql.slice(lineStart, lineEnd)}\n${' '.repeat(at - lineStart)}^` }));
      if (editor.value === sql) {
        let end = at;
        while (end < sql.length && /[A-Za-z0-9_]/.test(sql[end])) end++;
        editor.focus();
        editor.setSelectionRange(at, Math.max(at + 1, end));
      }
    }
    error.hidden = false;
  };

  /** Run `sql` (the link's statement, or the editor's). @param {string} sql */
  const execute = async (sql) => {
    error.hidden = true;
    const key = `${o.traceId}\u0000${sql}`;
    if (last && last.key === key) { answer = last.answer; show(); return; }
    const mine = new AbortController();
    running = mine;
    status.textContent = 'Running…';
    delete status.dataset.rows;
    out.classList.add('stale');
    try {
      const a = await api.sql(o.traceId, { sql }, mine.signal);
      if (running !== mine) return;
      last = { key, answer: a };
      answer = a;
      show();
    } catch (e) {
      if (running !== mine || mine.signal.aborted) return;
      answer = null;
      clear(out);
      o.keepGraph(null);
      status.textContent = '';
      copyButton.setAttribute('disabled', '');
      exportButton.setAttribute('disabled', '');
      showError(e, sql);
    } finally {
      if (running === mine) running = null;
      out.classList.remove('stale');
    }
  };

  const run = () => {
    const sql = editor.value.trim();
    if (!sql) return;
    const st = o.state();
    // Another statement starts with the answer's own order and chart.
    if (sql !== st.sql) o.onState({ sql, sqlSort: undefined, sqlAsc: false, sqlChart: '' });
    else last = null;
    execute(sql);
  };

  if (s.sql) execute(s.sql);
}

/** The schema as a list: a click on a name puts it at the editor's caret. @param {HTMLElement} host @param {import('./sql-complete.js').SqlSchema} x @param {HTMLTextAreaElement} editor */
function listTables(host, x, editor) {
  const put = (/** @type {string} */ text) => { editor.focus(); editor.setRangeText(text, editor.selectionStart, editor.selectionEnd, 'end'); };
  const name = (/** @type {string} */ text, /** @type {string} */ title) => h('button', { class: 'linkish', text, title, onclick: () => put(text) });
  host.append(h('ul', {}, x.tables.map((t) => h('li', {}, [
    name(t.name, t.table ? `the ${t.table} table` : ''), ': ',
    ...t.columns.flatMap((c, i) => [i ? ', ' : '', name(c.name, `${c.type}${c.unit ? `, ${c.unit}` : ''}`)]),
  ]))), h('div', { class: 'muted', text: `Functions: ${x.functions.map((f) => f.call).join(', ')}` }));
}
