// The trace page: info header, CPU timeline, and the analysis area (tables, flame, butterfly).
// The view state comes from the URL; every change writes it back (pushState).
import * as api from './api.js';
import { h, clear, fmtInt, fmtSize, fmtSecs, copyText, toast } from './dom.js';
import { toQuery, defaultState, apiFilters, apiRange, TABLE_DEFAULTS } from './url-state.js';
import { TreeTable, VALUE_COLUMNS, SELF_KEY } from './table.js';
import { findDef, canonicalSpec, clock, fmtUtcOffset } from './value-columns.js';
import { Timeline } from './timeline.js';
import { Flame } from './flame.js';
import { renderButterfly } from './butterfly.js';
import { renderSystemConfig } from './system-config.js';
import { showMenu } from './context-menu.js';
import { PRESETS } from './presets.js';
import { moduleOf } from './palette.js';
import { findingsPanel } from './findings.js';

const TABLE_NAMES = {
  'cpu-sampled': 'CPU Usage (Sampled)', 'cpu-precise': 'CPU Usage (Precise)', processes: 'Processes', threads: 'Threads', images: 'Images',
  'file-io': 'File I/O', 'disk-io': 'Disk I/O', generic: 'Generic Events',
};

export class TracePage {
  /**
   * @param {HTMLElement} root
   * @param {string} id
   * @param {import('./url-state.js').ViewState} state
   * @param {string[]} problems
   * @param {(state: import('./url-state.js').ViewState, mode: 'push'|'replace') => void} write
   * @param {(url: string) => void} navigate
   */
  constructor(root, id, state, problems, write, navigate) {
    this.root = root;
    this.id = id;
    this.s = state;
    this.write = write;
    this.navigate = navigate;
    this.notices = h('div', { class: 'notices', 'data-testid': 'notices' });
    this.problems = problems;
    /** @type {any} */
    this.cols = null;
  }

  async mount() {
    clear(this.root);
    const head = h('header', { class: 'trace-head' }, [h('div', { class: 'state loading', text: 'Loading trace…' })]);
    this.root.append(head, this.notices);
    for (const p of this.problems) this.notice(p);
    let entry;
    try {
      entry = await api.getTrace(this.id);
    } catch (e) {
      clear(head);
      head.append(h('div', { class: 'state error', text: e.status === 404 ? `No trace ${this.id} in this library.` : `Cannot load the trace: ${e.message}` }),
        h('a', { href: '/', text: '← Back to the library', onclick: (ev) => { ev.preventDefault(); this.navigate('/'); } }));
      return;
    }
    if (entry.status !== 'ready') {
      clear(head);
      const msg = h('div', { class: 'state loading', text: `${entry.name}: ${entry.status}…` });
      head.append(msg);
      if (entry.status === 'failed') { msg.className = 'state error'; msg.textContent = `${entry.name}: ingest failed: ${entry.error}`; return; }
      await new Promise((resolve) => {
        api.watchProgress(this.id, (m) => {
          if (m.status === 'ingesting' && m.progress) {
            const p = m.progress;
            msg.textContent = `${entry.name}: ingesting (${p.phase || ''}) ${p.bytes_total ? Math.round((100 * p.bytes_done) / p.bytes_total) : 0}%…`;
          } else if (m.status === 'failed') { msg.className = 'state error'; msg.textContent = `Ingest failed: ${m.error}`; }
          else if (m.status === 'ready' || m.status === 'stream_error') resolve(null);
        });
      });
      entry = await api.getTrace(this.id);
    }
    let sum;
    try {
      [sum, this.cols] = await Promise.all([api.summary(this.id), api.columns(this.id)]);
    } catch (e) {
      clear(head);
      head.append(h('div', { class: 'state error', text: `Cannot load the trace summary: ${e.message}` }));
      return;
    }
    this.sum = sum;
    this.entry = entry;
    Object.assign(clock, { mode: this.s.clock, startUnixUs: sum.start_unix_us || 0, biasMinutes: sum.timezone_bias_minutes || 0 });
    const zone = `UTC${fmtUtcOffset(-(sum.timezone_bias_minutes || 0))}`;
    const clockSelect = /** @type {HTMLSelectElement} */ (h('select', {
      class: 'clock-select', 'data-testid': 'clock', title: 'How times are shown',
      onchange: (ev) => {
        const mode = /** @type {'trace'|'utc'|'local'} */ (/** @type {HTMLSelectElement} */ (ev.target).value);
        clock.mode = mode;
        this.update({ clock: mode });
      },
    }, [
      h('option', { value: 'trace', text: 'Times: s since trace start' }),
      h('option', { value: 'utc', text: 'Times: UTC dates' }),
      h('option', { value: 'local', text: `Times: trace's time zone (${zone})` }),
    ]));
    clockSelect.value = this.s.clock;
    clear(head);
    const chip = (/** @type {string} */ k, /** @type {string} */ v, /** @type {string} */ cls = '') => h('span', { class: `chip ${cls}` }, [h('span', { class: 'k', text: k }), h('span', { class: 'v', text: v })]);
    head.append(
      h('a', { class: 'home', href: '/', text: 'etlscope', onclick: (ev) => { ev.preventDefault(); this.navigate('/'); } }),
      h('span', { class: 'sep', text: '/' }),
      h('span', { class: 'trace-name', text: entry.name, title: entry.name }),
      h('div', { class: 'chips', 'data-testid': 'trace-info' }, [
        chip('Duration', fmtSecs(sum.duration_s)),
        chip('CPUs', String(sum.cpus)),
        chip('OS', sum.os_version || '?'),
        chip('Start', (sum.start_time || '').replace('T', ' ').replace(/\.\d+Z$/, 'Z')),
        chip('Events', fmtInt(sum.events)),
        chip('Samples', `${fmtInt(sum.samples)} (${fmtInt(sum.samples_with_stack)} with stacks)`),
        chip('Lost', `${fmtInt(sum.lost_events)} events, ${fmtInt(sum.lost_buffers || 0)} buffers`, sum.lost_events || sum.lost_buffers ? 'warn' : ''),
        chip('Symbols', symbolText(sum), sum.symbols && sum.symbols.status === 'done' && !(sum.symbols.by_status || {}).loaded ? 'warn' : ''),
        chip('Size', fmtSize(entry.size)),
      ]),
      h('span', { class: 'spacer' }),
      clockSelect,
      h('button', { class: 'btn primary', text: 'Copy link', 'data-testid': 'copy-link', onclick: async () => { await copyText(location.href); toast('Link to this view copied'); } }),
    );
    if (sum.diagnostics && sum.diagnostics.length) this.notice(`${sum.diagnostics.length} ingest diagnostics (first: ${JSON.stringify(sum.diagnostics[0])})`);

    const tlHost = h('section', { class: 'panel timeline' });
    this.analysis = h('section', { class: 'panel analysis' });
    this.root.append(findingsPanel(this.id, this.navigate), tlHost, this.analysis);
    this.timeline = new Timeline(tlHost, {
      traceId: this.id, duration: sum.duration_s, start: Math.min(sum.events_start_s || 0, sum.duration_s), cpus: sum.cpus, range: this.s.range, zoom: this.s.zoom, ...this.timelineQuery(),
      onRange: (r) => this.update({ range: r, open: this.s.open }),
      onZoom: (z) => { this.s.zoom = z; this.write(this.s, 'replace'); },
    });
    this.timeline.load();
    this.renderAnalysis();
  }

  /** The timeline follows the filters; filtered to processes, it stacks their threads. */
  timelineQuery() {
    const fs = this.s.filters.filter((f) => this.columnsOf('cpu-sampled').includes(f.column) || f.column === 'Stack contains');
    /** @type {'process'|'thread'} */
    const by = fs.some((f) => f.column === 'Process' && !f.exclude) ? 'thread' : 'process';
    return { filters: apiFilters(fs), by };
  }

  /** Refresh the timeline when its filters changed. */
  syncTimeline() {
    if (!this.timeline) return;
    const q = this.timelineQuery();
    const changed = JSON.stringify(q) !== JSON.stringify({ filters: this.timeline.o.filters, by: this.timeline.o.by });
    Object.assign(this.timeline.o, q, { range: this.s.range });
    if (changed) this.timeline.load(); else this.timeline.draw();
  }

  /** A visible notice (dismissible). @param {string} msg */
  notice(msg) {
    const n = h('div', { class: 'notice', role: 'alert' }, [h('span', { text: msg }), h('button', { class: 'x', text: '×', title: 'Dismiss', onclick: () => n.remove() })]);
    this.notices.append(n);
  }

  /** Apply a new state from history (back/forward). @param {import('./url-state.js').ViewState} s */
  apply(s) {
    const zoomChanged = JSON.stringify(s.zoom) !== JSON.stringify(this.s.zoom);
    this.s = s;
    if (!this.timeline) return;
    this.timeline.o.zoom = s.zoom;
    if (zoomChanged) this.timeline.load();
    this.syncTimeline();
    this.renderAnalysis();
  }

  /** Change the state, write the URL, and re-render the analysis. @param {Partial<import('./url-state.js').ViewState>} patch */
  update(patch) {
    this.s = { ...this.s, ...patch };
    this.write(this.s, 'push');
    this.syncTimeline();
    this.renderAnalysis();
  }

  query() {
    return { range: apiRange(this.s.range), filters: apiFilters(this.s.filters) };
  }

  renderAnalysis() {
    const a = this.analysis;
    clear(a);
    const s = this.s;
    const tabs = h('div', { class: 'tabs', role: 'tablist' });
    for (const [t, name] of Object.entries(TABLE_NAMES)) {
      tabs.append(h('button', {
        class: `tab ${s.view === 'table' && s.table === t ? 'on' : ''}`, text: name, 'data-testid': `tab-${t}`,
        onclick: () => {
          if (s.table === t) { this.update({ view: 'table' }); return; }
          const d = defaultState(t);
          this.update({ view: 'table', table: t, groups: d.groups, cols: d.cols, sort: d.sort, desc: d.desc, open: [], sel: null, filters: s.filters.filter((f) => this.columnsOf(t).includes(f.column)) });
        },
      }));
    }
    tabs.append(h('span', { class: 'tab-sep' }));
    tabs.append(h('button', { class: `tab ${s.view === 'flame' ? 'on' : ''}`, text: 'Flame graph', 'data-testid': 'tab-flame', onclick: () => this.update({ view: 'flame' }) }));
    tabs.append(h('button', { class: `tab ${s.view === 'butterfly' ? 'on' : ''}`, text: 'Callers / callees', 'data-testid': 'tab-butterfly', onclick: () => this.update({ view: 'butterfly' }) }));
    tabs.append(h('span', { class: 'tab-sep' }));
    tabs.append(h('button', { class: `tab ${s.view === 'sysconfig' ? 'on' : ''}`, text: 'System Configuration', 'data-testid': 'tab-sysconfig', onclick: () => this.update({ view: 'sysconfig' }) }));
    const preset = /** @type {HTMLSelectElement} */ (h('select', { class: 'preset', 'data-testid': 'preset', title: 'Presets' }, [h('option', { value: '', text: 'Presets…' }), ...PRESETS.map((p, i) => h('option', { value: String(i), text: p.name }))]));
    preset.addEventListener('change', () => {
      const p = PRESETS[Number(preset.value)];
      if (p) this.update({ ...p.state, open: [], sel: null, flameZoom: [], filters: s.filters.filter((f) => this.columnsOf(p.state.table || s.table).includes(f.column)) });
    });
    tabs.append(h('span', { class: 'spacer' }), preset);
    a.append(tabs);

    // filter and range chips
    const chips = h('div', { class: 'filters', 'data-testid': 'filters' });
    if (s.range) chips.append(h('span', { class: 'fchip range' }, [h('span', { text: `Time ${s.range[0].toFixed(3)}–${s.range[1].toFixed(3)} s` }), h('button', { class: 'x', text: '×', title: 'Clear the time selection', onclick: () => this.update({ range: null }) })]));
    s.filters.forEach((f, i) => {
      chips.append(h('span', { class: `fchip ${f.exclude ? 'excl' : ''}` }, [
        h('span', { text: `${f.column} ${f.exclude ? '≠' : '='} ${f.label ?? readableRef(f.value)}`, title: f.value }),
        h('button', { class: 'x', text: '×', title: 'Remove this filter', onclick: () => this.update({ filters: s.filters.filter((_, j) => j !== i) }) }),
      ]));
    });
    if (chips.childElementCount) a.append(chips);

    const body = h('div', { class: 'view-body' });
    a.append(body);
    if (s.view === 'flame') this.renderFlame(body);
    else if (s.view === 'butterfly') this.renderBf(body);
    else if (s.view === 'sysconfig') renderSystemConfig(body, this.id, s.scPage || 'General', (p) => { this.s.scPage = p; this.write(this.s, 'push'); });
    else this.renderTable(body, tabs);
  }

  /** @param {string} table */
  columnsOf(table) {
    const t = this.cols && this.cols.tables[table];
    return t ? t.key_columns : [];
  }

  /** @param {HTMLElement} body @param {HTMLElement} tabs */
  renderTable(body, tabs) {
    const s = this.s;
    const keyCols = this.columnsOf(s.table);
    const valCols = (this.cols.tables[s.table] || { value_columns: [] }).value_columns;
    /** @type {import('./value-columns.js').ColumnDef[]} */
    const defs = (this.cols.tables[s.table] || {}).columns || [];
    // Older column names (links made before WPA's names) name the same columns.
    const keyName = (/** @type {string} */ c) => (keyCols.includes(c) ? c : (findDef(defs, c) || { name: c }).name);
    s.groups = s.groups.map(keyName);
    // Right of the gold bar on row tables: any column of the table, with an aggregation.
    const valueName = (/** @type {string} */ c) => (valCols.includes(c) || s.table === 'cpu-sampled' ? c : canonicalSpec(defs, c) || c);
    s.cols = s.cols.map(valueName);
    if (!valCols.includes(s.sort)) {
      const sortSpec = s.table !== 'cpu-sampled' ? canonicalSpec(defs, s.sort) : null;
      s.sort = sortSpec && s.cols.includes(sortSpec) ? sortSpec : keyName(s.sort);
    }
    // (A key column right of the bar that cannot be a value, a stack or any cpu-sampled key, stays as an empty column.)
    const known = (/** @type {string} */ c) => valCols.includes(c) || keyCols.includes(c) || (s.table !== 'cpu-sampled' && canonicalSpec(defs, c) === c);
    // drop columns this table does not know (an outdated link), with a notice
    const bad = [...s.groups.filter((c) => !keyCols.includes(c)), ...s.cols.filter((c) => !known(c))];
    if (bad.length) {
      this.notice(`Unknown column(s) ignored: ${bad.join(', ')}`);
      s.groups = s.groups.filter((c) => keyCols.includes(c));
      s.cols = s.cols.filter(known);
    }
    const chooserBtn = h('button', { class: 'btn small', text: 'Columns…', 'data-testid': 'columns-btn' });
    chooserBtn.addEventListener('click', () => this.columnChooser(chooserBtn, keyCols, valCols));
    tabs.insertBefore(chooserBtn, tabs.lastChild);
    this.table = new TreeTable(body, {
      traceId: this.id, table: s.table, groups: s.groups, cols: s.cols, sort: s.sort, desc: s.desc, open: s.open, sel: s.sel,
      allColumns: [...keyCols, ...valCols], defs,
      query: () => this.query(),
      onLayout: (groups, cols, sort) => this.update({ groups, cols, open: [], sel: null, ...(sort ? { sort } : {}) }),
      onSort: (col, desc) => this.update({ sort: col, desc }),
      onTreeState: (open, sel, push) => { this.s.open = open; this.s.sel = sel; this.write(this.s, push ? 'push' : 'replace'); },
      onContext: (n, ev) => this.rowMenu(n, ev),
      onNotice: (m) => this.notice(m),
    });
    this.table.load();
  }

  /** @param {HTMLElement} anchor @param {string[]} keyCols @param {string[]} valCols */
  columnChooser(anchor, keyCols, valCols) {
    const s = this.s;
    const pop = h('div', { class: 'chooser', 'data-testid': 'column-chooser' });
    const groups = [...s.groups];
    const cols = [...s.cols];
    const item = (/** @type {string} */ c, /** @type {boolean} */ isKey) => {
      const cb = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox' }));
      cb.checked = groups.includes(c) || cols.includes(c);
      cb.addEventListener('change', () => {
        const gi = groups.indexOf(c);
        const ci = cols.indexOf(c);
        if (cb.checked) { if (isKey) groups.push(c); else cols.push(c); } else { if (gi >= 0) groups.splice(gi, 1); if (ci >= 0) cols.splice(ci, 1); }
      });
      return h('label', { class: 'chk' }, [cb, ` ${c}`]);
    };
    pop.append(h('div', { class: 'chooser-h', text: 'Group by (left of the gold bar)' }), ...keyCols.map((c) => item(c, true)),
      h('div', { class: 'chooser-h', text: 'Values (right of the gold bar)' }), ...valCols.map((c) => item(c, false)),
      h('div', { class: 'chooser-actions' }, [
        h('button', { class: 'btn primary', text: 'Apply', onclick: () => { pop.remove(); this.update({ groups, cols, open: [], sel: null }); } }),
        h('button', { class: 'btn', text: 'Cancel', onclick: () => pop.remove() }),
      ]));
    document.body.append(pop);
    const outside = (/** @type {PointerEvent} */ e) => {
      if (pop.contains(/** @type {Node} */ (e.target)) || e.target === anchor) return;
      pop.remove();
      window.removeEventListener('pointerdown', outside, true);
    };
    window.addEventListener('pointerdown', outside, true);
    const r = anchor.getBoundingClientRect();
    pop.style.left = `${Math.max(4, r.right - 260)}px`;
    pop.style.top = `${r.bottom + 4}px`;
  }

  /** @param {import('./table.js').Node} n @param {MouseEvent} ev */
  rowMenu(n, ev) {
    const s = this.s;
    const items = [];
    const isStack = n.column === 'Stack' || n.column === 'Stack (Inverted)' || n.column.endsWith(' Stack');
    // Event tables: a filter on their stack column keeps the rows whose stack passes through the frame.
    const rowStack = isStack && s.table !== 'cpu-sampled';
    const isFunc = isStack || n.column === 'Function';
    const filterCol = isStack && !rowStack ? 'Function' : n.column;
    const self = n.key === SELF_KEY;
    if (!self && isStack && s.table === 'cpu-sampled') {
      // Every sample whose stack has this frame, wherever it is called from (the API's `contains`).
      const what = `Stack contains ${n.label}`;
      items.push({ label: `Filter to ${what}`, action: () => this.update({ filters: [...s.filters, { column: 'Stack contains', value: n.id || n.label, label: n.label, exclude: false }], open: [], sel: null }) });
      items.push({ label: `Exclude ${what}`, action: () => this.update({ filters: [...s.filters, { column: 'Stack contains', value: n.id || n.label, label: n.label, exclude: true }], open: [], sel: null }) });
    } else if (!self && this.columnsOf(s.table).includes(filterCol)) {
      // The API's Function filter matches the leaf frame of a sample, so say so on Stack rows.
      const what = rowStack ? `${filterCol} = ${n.label} (rows whose stack contains it)` : isStack ? `leaf Function = ${n.label}` : `${filterCol} = ${n.label}`;
      items.push({ label: `Filter to ${what}`, action: () => this.update({ filters: [...s.filters, { column: filterCol, value: n.id || n.label, label: n.label, exclude: false }], open: [], sel: null }) });
      items.push({ label: `Exclude ${what}`, action: () => this.update({ filters: [...s.filters, { column: filterCol, value: n.id || n.label, label: n.label, exclude: true }], open: [], sel: null }) });
    }
    // Filter to the process or thread this row is under (any ancestor of those columns).
    for (let x = n.parent; x; x = x.parent) {
      if (x.column === 'Process' || x.column === 'Thread ID') {
        const col = x.column;
        const label = x.label;
        const value = x.id || label;
        items.push({ label: `Filter to ${col} = ${label}`, action: () => this.update({ filters: [...s.filters, { column: col, value, label, exclude: false }], open: [], sel: null }) });
      }
    }
    if (s.table === 'cpu-sampled' && !self && (isFunc || n.column === 'Module')) {
      const mod = n.column === 'Module' ? n.label : moduleOf(n.label);
      // Links name the target by its stable identity when the row has one.
      const fnRef = n.id || n.label;
      const modRef = n.id && n.id.startsWith('mod:') ? n.id : n.id && n.id.startsWith('fn:') ? `mod:${n.id.slice(3, n.id.lastIndexOf('+'))}` : mod;
      items.push(null);
      if (isFunc) {
        items.push({ label: 'View callers/callees of this function', action: () => this.update({ view: 'butterfly', bfKind: 'function', bfTarget: fnRef, bfBy: 'function' }) });
        items.push({ label: 'View callers of this function by module', action: () => this.update({ view: 'butterfly', bfKind: 'function', bfTarget: fnRef, bfBy: 'module' }) });
      }
      items.push({ label: `View callers/callees of module ${mod}`, action: () => this.update({ view: 'butterfly', bfKind: 'module', bfTarget: modRef, bfBy: 'function' }) });
      items.push({ label: `View callers of module ${mod} by module`, action: () => this.update({ view: 'butterfly', bfKind: 'module', bfTarget: modRef, bfBy: 'module' }) });
    }
    items.push(null);
    items.push({ label: 'Copy row', action: () => copyText(rowText(n, s.cols, this.table ? this.table.valueInfo : new Map())).then(() => toast('Row copied')) });
    if (isStack) items.push({ label: 'Copy stack', action: () => copyText(stackText(n)).then(() => toast('Stack copied')) });
    items.push({ label: 'Copy link to this row', action: () => copyText(location.href).then(() => toast('Link copied')) });
    showMenu(ev, items);
  }

  /** @param {HTMLElement} body */
  renderFlame(body) {
    const s = this.s;
    this.flame = new Flame(body, {
      traceId: this.id, query: () => this.query(), zoom: s.flameZoom, search: s.flameSearch, icicle: s.icicle, perProcess: s.perProcess,
      onZoom: (path) => { this.s.flameZoom = path; this.write(this.s, 'push'); this.flame.setZoom(path); },
      onSearch: (q) => { this.s.flameSearch = q; this.write(this.s, 'replace'); },
      onIcicle: (on) => { this.s.icicle = on; this.write(this.s, 'push'); this.flame.o.icicle = on; this.flame.draw(); },
      onPerProcess: (on) => this.update({ perProcess: on, flameZoom: [] }),
      noStack: !!s.noStack,
      onNoStack: (on) => this.update({ noStack: on, flameZoom: [] }),
      onNotice: (m) => this.notice(m),
      onContext: (label, ev) => showMenu(ev, [
        { label: 'View callers/callees of this function', action: () => this.update({ view: 'butterfly', bfKind: 'function', bfTarget: label, bfBy: 'function' }) },
        { label: `View callers of module ${moduleOf(label)} by module`, action: () => this.update({ view: 'butterfly', bfKind: 'module', bfTarget: moduleOf(label), bfBy: 'module' }) },
        { label: 'Copy name', action: () => copyText(label) },
      ]),
    });
    this.flame.load();
  }

  /** @param {HTMLElement} body */
  renderBf(body) {
    const s = this.s;
    renderButterfly(body, {
      traceId: this.id, query: () => this.query(), kind: s.bfKind, target: s.bfTarget, by: s.bfBy,
      onChange: (kind, target, by) => this.update({ bfKind: kind, bfTarget: target, bfBy: by }),
      onNotice: (m) => this.notice(m),
    });
  }
}

/** The summary's symbol state in a few words. @param {any} sum */
function symbolText(sum) {
  const y = sum.symbols;
  if (!y) return `${fmtInt(sum.modules || 0)} modules, status not reported`;
  if (y.status === 'running') return `loading ${fmtInt(y.modules_done || 0)} of ${fmtInt(y.modules_total || 0)} modules`;
  if (y.status !== 'done') return String(y.status);
  const by = Object.entries(y.by_status || {}).map(([k, v]) => `${fmtInt(Number(v))} ${k}`).join(', ');
  return `${fmtInt(y.resolved_frames || 0)} of ${fmtInt(y.frames || 0)} frames named; modules: ${by || 'none'}`;
}

/**
 * The row's labels and values, tab-separated; value columns of row tables as the API gives them (base units).
 * @param {import('./table.js').Node} n @param {string[]} cols @param {Map<string, import('./value-columns.js').ValueInfo>} info
 */
function rowText(n, cols, info) {
  const vals = cols.filter((c) => VALUE_COLUMNS.includes(c) || info.has(c)).map((c) => {
    const i = info.get(c);
    if (i && !VALUE_COLUMNS.includes(c)) return `${i.name}=${n.values ? n.values[i.name] ?? '' : ''}`;
    /** @type {Record<string, any>} */
    const fixed = { Count: n.count, 'Weight (ms)': n.weight_ms, '% Weight': n.percent.toFixed(2), 'First (s)': n.first_s, 'Last (s)': n.last_s };
    // The other UI values (weights and sums of the event tables) are the API's `values`.
    const v = c in fixed ? fixed[c] : (n.values ? n.values[c] ?? n.weight_ms : n.weight_ms);
    return `${c}=${v}`;
  });
  return [n.labels.join(' / '), ...vals].join('\t');
}

/** The Stack frames from the root of the stack to this row, one per line. @param {import('./table.js').Node} n */
function stackText(n) {
  const out = [];
  for (let x = n; x && (x.column === 'Stack' || x.column === 'Stack (Inverted)' || x.column.endsWith(' Stack')); x = x.parent) out.push(x.label);
  return out.reverse().join('\n');
}

export { TABLE_DEFAULTS, toQuery };

/**
 * A stable identity from a link, shortened for a filter chip (the label comes with filters made
 * here; a link carries only the identity): `pid:6148@0` -> `pid 6148`, `mod:x.dll@..` -> `x.dll`,
 * `fn:x.dll@..+1025` -> `x.dll+0x1025`. Labels pass through.
 * @param {string} v
 */
function readableRef(v) {
  let m = /^pid:(\d+)@/.exec(v);
  if (m) return `pid ${m[1]}`;
  m = /^mod:(.*)@[0-9a-f]+:[0-9a-f]+$/.exec(v);
  if (m) return m[1];
  m = /^fn:(.*)@[0-9a-f]+:[0-9a-f]+\+([0-9a-f]+)$/.exec(v);
  if (m) return `${m[1]}+0x${m[2]}`;
  return v;
}
