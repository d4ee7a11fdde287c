// The trace page: info header, CPU timeline, and the analysis area (tables, flame, butterfly).
// The view state comes from the URL; every change writes it back (pushState).
import * as api from './api.js';
import { h, clear, fmtInt, fmtSize, fmtSecs, copyText, toast } from './dom.js';
import { TABLE_NAMES } from './table-names.js';
import { toQuery, defaultState, apiFilters, apiRange, TABLE_DEFAULTS } from './url-state.js';
import { TreeTable, VALUE_COLUMNS, SELF_KEY } from './table.js';
import { findDef, canonicalSpec, clock, fmtUtcOffset, fmtWallClock } from './value-columns.js';
import { Timeline } from './timeline.js';
import { TableGraph, LIFETIME_TABLES } from './table-graph.js';
import { GraphCache } from './graph-cache.js';
import { Flame } from './flame.js';
import { renderButterfly } from './butterfly.js';
import { renderSystemConfig } from './system-config.js';
import { showMenu } from './context-menu.js';
import { allPresets, importPresets, downloadPresets } from './preset-file.js';
import { moduleOf } from './palette.js';
import { exportSpec, downloadExport } from './table-export.js';
import { emptyColumns } from './empty-columns.js';
import { View, viewsEl, MAX_VIEWS } from './views-layout.js';
import { findingsPanel } from './findings.js';
import { shortLink } from './short-link.js';
import { lackText } from './table-lacks.js';
import { stackTagsControl } from './stack-tags.js';
import { regionsControl } from './regions-files.js';
import { symbolsPanel } from './symbols-panel.js';
import { shareButton } from './share.js';
import { compareWith } from './compare.js';
import { followLive, liveText } from './live.js';
import { loadMarks, selectionRange } from './marks.js';
import { Notes } from './notes.js';
import { loadFocus } from './focus-lane.js';
import { renderQuery } from './query-tab.js';

/** Event tables whose graph plots their weight before their count. */
const WEIGHT_FIRST = new Set(['dpc-isr', 'ui-delays']);
/** Tables shown only when the trace holds their events (WPA lists only graphs with data). */
const RECORDED_ONLY = new Set(['hard-faults', 'network', 'page-faults', 'registry', 'virtual-alloc', 'heap', 'dpc-isr', 'processor-frequency', 'cpu-idle-states', 'window-in-focus', 'ui-delays', 'gpu-utilization', 'frame-times', 'regions', 'marks']);
/** Tables whose graph is one measure: Processor Frequency each CPU's frequency as a line (WPA's), CPU Idle States the idle time per bin, Window in Focus the focus time per bin, GPU Utilization each key's share of the bin (%), stacked. */
const ONE_MEASURE = new Map([['processor-frequency', 'Frequency (MHz)'], ['cpu-idle-states', 'weight'], ['window-in-focus', 'weight'], ['gpu-utilization', 'Utilization (%)']]);


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
    // A layout the user did not write (defaults, a tab, a preset) hides its all-zero columns.
    this.checkEmpty = !new URLSearchParams(location.search).has('c');
    /** @type {TableGraph|null} */
    this.graph = null;
    /** The graph answers of this page (every view's), by what they show. */
    this.graphCache = new GraphCache();
    /** The trace's marks, drawn on the timeline and the graphs. @type {import('./marks.js').Mark[]} */
    this.marks = [];
    /** @type {string[]} */
    this.graphPath = [];
    /** @type {(() => void)|null} */
    this.stopLive = null;
    this.symbolsGen = 0;
  }

  async mount() {
    clear(this.root);
    const head = h('header', { class: 'trace-head' }, [h('div', { class: 'state loading', text: 'Loading trace…' })]);
    this.root.append(head, this.notices);
    for (const p of this.problems) this.notice(p, 'trace');
    let entry;
    try {
      entry = await api.getTrace(this.id);
    } catch (e) {
      clear(head);
      head.append(h('div', { class: 'state error', text: e.status === 404 ? `No trace ${this.id} in this library.` : e.status === 410 ? `Trace ${this.id} was deleted from this library.` : `Cannot load the trace: ${e.message}` }),
        h('a', { href: '/', text: '← Back to the library', onclick: (ev) => { ev.preventDefault(); this.navigate('/'); } }));
      return;
    }
    if (entry.status !== 'ready' && entry.status !== 'live') {
      clear(head);
      const msg = h('div', { class: 'state loading', text: `${entry.name}: ${entry.status}…` });
      head.append(msg);
      if (entry.status === 'failed') { msg.className = 'state error'; msg.textContent = `${entry.name}: ingest failed: ${entry.error}`; return; }
      await new Promise((resolve) => {
        const stop = api.watchProgress(this.id, (m) => {
          if (m.status === 'ingesting' && m.progress) {
            const p = m.progress;
            // The server's percent covers both phases (reading, then correlating).
            const pct = typeof p.percent === 'number' ? p.percent : (p.bytes_total ? Math.round((100 * p.bytes_done) / p.bytes_total) : 0);
            const left = typeof p.seconds_left === 'number' ? `, about ${Math.ceil(p.seconds_left)} s left` : '';
            msg.textContent = `${entry.name}: ingesting (${p.phase || ''}) ${pct}%${left}…`;
          } else if (m.status === 'failed') { msg.className = 'state error'; msg.textContent = `Ingest failed: ${m.error}`; }
          else if (m.status === 'live') { stop(); resolve(null); } else if (m.status === 'ready' || m.status === 'stream_error') resolve(null);
        });
      });
      entry = await api.getTrace(this.id);
    }
    let sum;
    // The view's regions file gives the Regions of Interest's rows and the Region column.
    api.useRegions(this.s.regions);
    try {
      try {
        [sum, this.cols] = await Promise.all([api.summary(this.id), api.columns(this.id)]);
      } catch (e) {
        // A link naming a regions file this library lacks: the trace without it, and a notice.
        if (!this.s.regions || e.status !== 400) throw e;
        this.notice(`Regions file "${this.s.regions}" named by this link is not in this library: import it to see its regions`, 'trace');
        this.s.regions = '';
        api.useRegions('');
        [sum, this.cols] = await Promise.all([api.summary(this.id), api.columns(this.id)]);
      }
    } catch (e) {
      clear(head);
      head.append(h('div', { class: 'state error', text: `Cannot load the trace summary: ${e.message}` }));
      return;
    }
    this.sum = sum;
    this.entry = entry;
    this.syncSchemas(sum.schema_packs || []);
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
    /** Where Share a redacted copy opens its panel. */
    this.shareHost = h('div', { class: 'share-host' });
    /** @type {Record<string, HTMLElement>} The header chips a live trace (or a symbol lookup) updates. */
    this.liveChips = {};
    const chip = (/** @type {string} */ k, /** @type {string} */ v, /** @type {string} */ cls = '') => h('span', { class: `chip ${cls}` }, [h('span', { class: 'k', text: k }), h('span', { class: 'v', text: v })]);
    head.append(
      h('a', { class: 'home', href: '/', text: 'etlscope', onclick: (ev) => { ev.preventDefault(); this.navigate('/'); } }),
      h('span', { class: 'sep', text: '/' }),
      h('span', { class: 'trace-name', text: entry.name, title: entry.name }),
      h('div', { class: 'chips', 'data-testid': 'trace-info', title: 'The trace (facts that do not fit show here on hover)' }, [
        this.liveChips.duration = chip('Duration', fmtSecs(sum.duration_s)),
        chip('CPUs', String(sum.cpus)),
        chip('OS', sum.os_version || '?'),
        chip('Start', (sum.start_time || '').replace('T', ' ').replace(/\.\d+Z$/, 'Z')),
        this.liveChips.events = chip('Events', fmtInt(sum.events)),
        this.liveChips.samples = chip('Samples', samplesText(sum)),
        chip('Lost', `${fmtInt(sum.lost_events)} events, ${fmtInt(sum.lost_buffers || 0)} buffers`, sum.lost_events || sum.lost_buffers ? 'warn' : ''),
        this.liveChips.symbols = chip('Symbols', symbolText(sum), symbolWarn(sum)),
        chip('Size', fmtSize(entry.size)),
      ]),
      entry.redacted_from ? h('a', { class: 'chip redacted-from', 'data-testid': 'redacted-from', href: `/t/${entry.redacted_from}`, text: 'Redacted copy', title: `A redacted copy of trace ${entry.redacted_from} (which may have been deleted since)` }) : null,
      h('span', { class: 'spacer' }),
      clockSelect,
      compareWith(this.id, this.navigate),
      shareButton(this.id, this.shareHost, this.navigate),
      h('button', { class: 'btn primary', text: 'Copy link', 'data-testid': 'copy-link', onclick: () => this.copyViewLink('Link to this view copied') }),
    );
    // The browser tab names the trace, as WPA's window title does.
    document.title = `${entry.name} - etlscope`;
    if (sum.diagnostics && sum.diagnostics.length) this.notice(diagnosticsText(sum.diagnostics), 'trace');

    const tlHost = h('section', { class: 'panel timeline' });
    this.analysis = h('section', { class: 'panel analysis' });
    // Findings and Symbols side by side: two short bars until opened.
    const findings = findingsPanel(this.id, this.navigate);
    /** Ask the findings again: the trace they were computed from grew (a live trace). */
    this.refreshFindings = findings.refresh;
    /** Notes on views: the panel, the notes of the view shown, markers on the timeline. */
    this.notesUi = new Notes(this.id, { state: () => this.s, navigate: this.navigate, drawn: () => { if (this.timeline) this.timeline.draw(); } });
    const panels = h('div', { class: 'trace-panels' }, [findings.panel, symbolsPanel(this.id, () => { this.graphCache.clear(); this.renderAnalysis(); }, () => this.refreshSymbolsChip()), this.notesUi.panel]);
    this.root.append(this.shareHost, panels, tlHost, this.notesUi.strip, this.analysis);
    this.timeline = new Timeline(tlHost, {
      afterDraw: () => { if (this.timeline && this.notesUi) this.notesUi.placeMarkers(this.timeline); },
      traceId: this.id, duration: sum.duration_s, start: Math.min(sum.events_start_s || 0, sum.duration_s), cpus: sum.cpus, range: this.s.range, zoom: this.s.zoom, ...this.timelineQuery(),
      onRange: (r) => this.update({ range: r, open: this.s.open }),
      onZoom: (z) => { this.s.zoom = z; this.write(this.s, 'replace'); },
    });
    this.timeline.load();
    this.renderAnalysis();
    this.showMarks();
    this.notesUi.load();
    this.showFocus();
    if (sum.live) this.followLive(head);
  }

  /** The trace's marks as lines on the timeline and every graph (once: a trace's marks do not change). */
  async showMarks() {
    let marks;
    try { marks = await loadMarks(this.id, this.sum); } catch (e) { this.notice(`Marks unavailable: ${/** @type {Error} */ (e).message}`, 'trace'); return; }
    if (!marks.length) return;
    this.marks = marks;
    if (this.timeline) { this.timeline.o.marks = marks; this.timeline.draw(); }
    for (const g of [this.graph, ...(this.views || []).map((v) => v.graph)]) if (g) g.draw();
  }

  /**
   * Another regions file for this view: the summary (the Regions of Interest's rows) and the
   * columns (the Region column) are asked again with it, then the view is drawn.
   * @param {string} name
   */
  async changeRegions(name) {
    api.useRegions(name);
    try {
      [this.sum, this.cols] = await Promise.all([api.summary(this.id), api.columns(this.id)]);
    } catch (e) {
      this.notice(`Cannot use regions file "${name}": ${/** @type {Error} */ (e).message}`, 'trace');
      api.useRegions(this.s.regions);
      return;
    }
    this.graphCache.clear();
    this.update({ regions: name, open: [], sel: null });
  }

  /** The Window in Focus lane under the timeline (once: as the marks, a trace's focus changes do not change). */
  async showFocus() {
    let spans;
    try { spans = await loadFocus(this.id, this.sum); } catch (e) { this.notice(`Window in Focus lane unavailable: ${/** @type {Error} */ (e).message}`, 'trace'); return; }
    if (!spans.length || !this.timeline) return;
    this.timeline.o.focus = spans;
    this.timeline.draw();
  }

  /** A Regions of Interest row (or two Marks rows) selected: their time range becomes the page's. @param {TreeTable} table @param {string} name */
  rangeFromSelection(table, name) {
    const rows = table.sel.ordered(table.visible());
    const r = selectionRange(name, rows.length ? rows : table.selected ? [table.selected] : []);
    if (!r || (this.s.range && this.s.range[0] === r[0] && this.s.range[1] === r[1])) return;
    this.update({ range: r });
  }

  /** The header's Symbols chip from a fresh summary (after a lookup from the Symbols panel). */
  async refreshSymbolsChip() {
    const c = this.liveChips && this.liveChips.symbols;
    if (!c) return;
    const gen = ++this.symbolsGen;
    let sum;
    try { sum = await api.summary(this.id); } catch { return; /* keep the last one */ }
    if (gen !== this.symbolsGen) return; // a later refresh is under way
    const v = c.querySelector('.v');
    if (v) v.textContent = symbolText(sum);
    c.classList.toggle('warn', symbolWarn(sum) === 'warn');
  }

  /**
   * A trace still arriving: a banner with its growing counts, and on each
   * new model the header, timeline and current view refreshed from the same
   * state (grouping, expansion, selection stay); when it is complete the
   * banner goes. @param {HTMLElement} head
   */
  followLive(head) {
    const banner = h('div', { class: 'live-banner', 'data-testid': 'live', role: 'status', text: liveText(this.sum) });
    head.after(banner);
    // One model applied at a time, then the newest that came meanwhile (models
    // can come faster than the page refreshes; none is dropped for a newer one
    // that would in turn be dropped).
    /** @type {{sum: any, done: boolean}|null} */ let pending = null;
    let busy = false;
    const apply = async (/** @type {any} */ sum, /** @type {boolean} */ done) => {
      // The columns a table offers can grow with the trace (Generic Events' fields).
      try { this.cols = await api.columns(this.id); } catch { /* keep the last ones */ }
      this.sum = sum;
      // The rows grew: no graph answer holds.
      this.graphCache.clear();
      const v = (/** @type {string} */ k, /** @type {string} */ t) => { const c = this.liveChips[k]; const e = c && c.querySelector('.v'); if (e) e.textContent = t; };
      v('duration', fmtSecs(sum.duration_s));
      v('events', fmtInt(sum.events));
      v('samples', samplesText(sum));
      v('symbols', symbolText(sum));
      if (done) banner.remove();
      else {
        banner.textContent = liveText(sum);
        // When the server copied this model's events (ms since 1970): how fresh the page is.
        banner.dataset.copiedAt = String(sum.live.copied_at_ms);
        banner.dataset.events = String(sum.live.events);
      }
      if (done) viewAt = 0;
      refreshView();
      // The findings are the trace's too: a replay's end can add several.
      if (this.refreshFindings) this.refreshFindings();
    };
    // The timeline and the view are rebuilt at most every VIEW_EVERY ms (and
    // at the end): models can come every few hundred ms, and a table rebuilt
    // under the pointer that often could not be used. The banner and the
    // counts follow every model.
    const VIEW_EVERY = 500;
    let viewAt = 0;
    let viewTimer = 0;
    const refreshView = () => {
      clearTimeout(viewTimer);
      const wait = VIEW_EVERY - (Date.now() - viewAt);
      if (wait > 0) { viewTimer = window.setTimeout(refreshView, wait); return; }
      viewAt = Date.now();
      const sum = this.sum;
      if (this.timeline) {
        Object.assign(this.timeline.o, { duration: sum.duration_s, start: Math.min(sum.events_start_s || 0, sum.duration_s) });
        this.timeline.load();
      }
      // Keep the page where it is while the view is rebuilt under it.
      const a = this.analysis;
      const y = window.scrollY;
      if (a) a.style.minHeight = `${a.offsetHeight}px`;
      this.renderAnalysis();
      window.scrollTo(0, y);
      if (a) setTimeout(() => { a.style.minHeight = ''; }, 1000);
    };
    const drain = async () => {
      busy = true;
      try {
        for (let u = pending; u; u = pending) { pending = null; await apply(u.sum, u.done); }
      } finally { busy = false; }
    };
    const stop = followLive(this.id, this.sum.live.copied_at_ms, (/** @type {any} */ sum, /** @type {boolean} */ done) => {
      pending = { sum, done };
      if (!busy) drain();
    });
    this.stopLive = () => { stop(); clearTimeout(viewTimer); };
  }

  /** Stop what runs in the background (following a live trace). */
  close() {
    if (this.stopLive) this.stopLive();
    this.stopLive = null;
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
  /** Copy the short link of the view as it is now. @param {string} done the toast on success */
  async copyViewLink(done) {
    const link = await shortLink();
    await copyText(link.url);
    toast(link.short ? done : `${done} (the long form: the server did not keep a short one)`);
  }

  /**
   * A message above the page, once however often it is said; `details` fold under it. A view's
   * notices go when the view is drawn again (another tab, grouping or range); the trace's stay
   * until dismissed.
   * @param {string} msg @param {'view'|'trace'} [scope] @param {string[]} [details]
   */
  notice(msg, scope = 'view', details = []) {
    for (const e of this.notices.querySelectorAll('.notice')) if (/** @type {HTMLElement} */ (e).dataset.text === msg) return;
    const more = details.length ? [h('details', { class: 'notice-details' }, [h('summary', { text: `${details.length} detail(s)` }), h('ul', {}, details.map((d) => h('li', { text: d })))])] : [];
    const n = h('div', { class: 'notice', role: 'alert', 'data-scope': scope, 'data-text': msg }, [h('span', { text: msg }), ...more, h('button', { class: 'x', text: '×', title: 'Dismiss', onclick: () => n.remove() })]);
    this.notices.append(n);
  }

  /** Apply a new state from history (back/forward). @param {import('./url-state.js').ViewState} s */
  apply(s) {
    const zoomChanged = JSON.stringify(s.zoom) !== JSON.stringify(this.s.zoom);
    this.s = s;
    if (!this.timeline) return;
    if (this.notesUi) this.notesUi.render();
    this.timeline.o.zoom = s.zoom;
    if (zoomChanged) this.timeline.load();
    this.syncTimeline();
    this.renderAnalysis();
  }

  /**
   * The link names the library's schema packs that named this trace's providers; a pack a link
   * names that this library lacks is a notice (its events show as hex here).
   * @param {string[]} used
   */
  syncSchemas(used) {
    const named = this.s.schemas ? this.s.schemas.split(',') : [];
    const missing = named.filter((n) => !used.includes(n));
    if (missing.length) {
      this.notice(`Schema pack(s) ${missing.map((n) => `"${n}"`).join(', ')} named by this link are not in this library: import the manifests in the library to name the events they name`, 'trace');
    }
    this.s.schemas = used.join(',');
    this.write(this.s, 'replace');
  }

  /** Change the state, write the URL, and re-render the analysis. @param {Partial<import('./url-state.js').ViewState>} patch */
  update(patch) {
    // Another caller/callee target or grouping starts with its trees collapsed.
    if (('bfTarget' in patch || 'bfBy' in patch) && !('bfOpen' in patch)) patch = { ...patch, bfOpen: [] };
    this.s = { ...this.s, ...patch };
    this.write(this.s, 'push');
    // The analysis first: its request goes out before the timeline is redrawn.
    this.renderAnalysis();
    this.syncTimeline();
    if (this.notesUi) this.notesUi.render();
  }

  query() {
    return { range: apiRange(this.s.range), filters: apiFilters(this.s.filters) };
  }

  renderAnalysis() {
    const a = this.analysis;
    clear(a);
    // The last view's notices speak of what is no longer shown.
    for (const n of this.notices.querySelectorAll('.notice[data-scope=view]')) n.remove();
    if (this.graph) { this.graph.destroy(); this.graph = null; }
    for (const v of this.views || []) if (v.graph) { v.graph.destroy(); v.graph = null; }
    const s = this.s;
    api.useStackTags(s.tags);
    api.useRegions(s.regions);
    const tabs = h('div', { class: 'tabs', role: 'tablist' });
    const rows = (this.sum && this.sum.table_rows) || {};
    for (const [t, name] of Object.entries(TABLE_NAMES)) {
      // The memory and network tables show when the trace has their events, as WPA's Graph
      // Explorer lists only graphs with data (`etlscope info` says what a recording lacked);
      // a link to one opens it all the same.
      if (RECORDED_ONLY.has(t) && !rows[t] && !(s.view === 'table' && s.table === t)) continue;
      tabs.append(h('button', {
        class: `tab ${s.view === 'table' && s.table === t ? 'on' : ''}`, text: name, 'data-testid': `tab-${t}`, ...tabRole(s.view === 'table' && s.table === t),
        onclick: () => {
          if (s.table === t) { this.update({ view: 'table' }); return; }
          const d = defaultState(t);
          this.checkEmpty = true;
          this.update({ view: 'table', table: t, groups: d.groups, cols: d.cols, sort: d.sort, desc: d.desc, open: [], sel: null, filters: s.filters.filter((f) => this.columnsOf(t).includes(f.column)) });
        },
      }));
    }
    tabs.append(h('span', { class: 'tab-sep' }));
    tabs.append(h('button', { class: `tab ${s.view === 'flame' ? 'on' : ''}`, text: 'Flame graph', 'data-testid': 'tab-flame', ...tabRole(s.view === 'flame'), onclick: () => this.update({ view: 'flame' }) }));
    tabs.append(h('button', { class: `tab ${s.view === 'butterfly' ? 'on' : ''}`, text: 'Callers / callees', 'data-testid': 'tab-butterfly', ...tabRole(s.view === 'butterfly'), onclick: () => this.update({ view: 'butterfly' }) }));
    tabs.append(h('span', { class: 'tab-sep' }));
    tabs.append(h('button', { class: `tab ${s.view === 'sysconfig' ? 'on' : ''}`, text: 'System Configuration', 'data-testid': 'tab-sysconfig', ...tabRole(s.view === 'sysconfig'), onclick: () => this.update({ view: 'sysconfig' }) }));
    tabs.append(h('button', { class: `tab ${s.view === 'sql' ? 'on' : ''}`, text: 'Query', title: 'SQL over this trace', 'data-testid': 'tab-sql', ...tabRole(s.view === 'sql'), onclick: () => this.update({ view: 'sql' }) }));
    const presets = allPresets();
    const preset = /** @type {HTMLSelectElement} */ (h('select', { class: 'preset', 'data-testid': 'preset', title: 'Presets' }, [h('option', { value: '', text: 'Presets…' }), ...presets.map((p, i) => h('option', { value: String(i), text: p.name })),
      h('option', { value: 'import', text: 'Import presets (.wpaProfile, .json)…' }), h('option', { value: 'export', text: 'Export presets…' })]));
    const presetFile = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.wpaProfile,.json,.xml', hidden: true, 'data-testid': 'preset-file' }));
    presetFile.addEventListener('change', async () => {
      const f = presetFile.files && presetFile.files[0];
      if (!f) return;
      try {
        const r = await importPresets(f.name, await f.text());
        this.notice(`Imported ${r.presets.length} preset(s) from ${f.name}: ${r.presets.map((p) => p.name).join(', ')}`, 'trace');
        // One line per preset of the file; what did not map folded under it.
        for (const x of r.reports) this.notice(x.summary, 'trace', x.details);
      } catch (e) { this.notice(`Cannot import ${f.name}: ${/** @type {Error} */ (e).message}`, 'trace'); }
      this.renderAnalysis();
    });
    preset.addEventListener('change', () => {
      if (preset.value === 'import' || preset.value === 'export') {
        if (preset.value === 'import') presetFile.click(); else downloadPresets();
        preset.value = '';
        return;
      }
      const p = presets[Number(preset.value)];
      if (p) this.checkEmpty = true;
      if (p) this.update({ ...p.state, open: [], sel: null, flameZoom: [], filters: [...s.filters.filter((f) => this.columnsOf(p.state.table || s.table).includes(f.column)), ...(p.state.filters || [])] });
    });
    // The view's controls, on a line of their own under the tabs (Columns… and Export join it in renderTable).
    const tools = h('div', { class: 'view-tools', 'data-testid': 'view-tools' });
    tools.append(stackTagsControl({
      active: s.tags, flame: s.view === 'flame', byTag: s.flameByTag, onNotice: (m) => this.notice(m, 'trace'),
      onChange: (name) => this.update({ tags: name, open: [], sel: null, flameZoom: [] }),
      onByTag: (on) => this.update({ flameByTag: on, flameZoom: [] }),
    }), regionsControl({
      active: s.regions, onNotice: (m) => this.notice(m, 'trace'),
      onChange: (name) => this.changeRegions(name),
    }), preset, presetFile);
    // Another view of the same table to regroup on its own; the layout of several views.
    tools.append(h('button', {
      class: 'btn small', text: '+ View', 'data-testid': 'add-view', title: 'Add a view below (its own table and grouping, the same time selection)', disabled: s.panes.length + 1 >= MAX_VIEWS,
      onclick: () => this.update({ panes: [...s.panes, { table: s.table, groups: [...s.groups], cols: [...s.cols], sort: s.sort, desc: s.desc, open: [], sel: null }] }),
    }));
    if (s.panes.length) {
      tools.append(h('button', { class: 'btn small', text: s.layout === 'side' ? 'Stack views' : 'Side by side', 'data-testid': 'layout-toggle', onclick: () => this.update({ layout: s.layout === 'side' ? 'stack' : 'side' }) }));
    }
    a.append(tabs, tools);
    fitTabs(tabs);

    // filter and range chips
    const chips = h('div', { class: 'filters', 'data-testid': 'filters' });
    const rangeText = (/** @type {[number, number]} */ r) => (clock.mode === 'trace' ? `${r[0].toFixed(3)}–${r[1].toFixed(3)} s` : `${fmtWallClock(r[0]).slice(11, 23)}–${fmtWallClock(r[1]).slice(11, 23)}`);
    if (s.range) chips.append(h('span', { class: 'fchip range' }, [h('span', { text: `Time ${rangeText(s.range)}` }), h('button', { class: 'x', text: '×', title: 'Clear the time selection', onclick: () => this.update({ range: null }) })]));
    s.filters.forEach((f, i) => {
      chips.append(h('span', { class: `fchip ${f.exclude ? 'excl' : ''}` }, [
        h('span', { text: `${f.column} ${f.exclude ? '≠' : '='} ${f.label ?? readableRef(f.value)}`, title: f.value }),
        h('button', { class: 'x', text: '×', title: 'Remove this filter', onclick: () => this.update({ filters: s.filters.filter((_, j) => j !== i) }) }),
      ]));
    });
    if (chips.childElementCount) a.append(chips);

    const views = viewsEl(s.layout);
    const main = new View(0);
    /** The views on the page; `graphSlot` of each takes its graph. */
    this.views = [main];
    views.append(main.el);
    a.append(views);
    const body = main.body;
    s.panes.forEach((_, i) => this.renderPane(views, i));
    if (s.view === 'flame') this.renderFlame(body);
    else if (s.view === 'butterfly') this.renderBf(body);
    else if (s.view === 'sysconfig') renderSystemConfig(body, this.id, s.scPage || 'General', (p) => { this.s.scPage = p; this.write(this.s, 'push'); });
    else if (s.view === 'sql') {
      renderQuery(body, {
        traceId: this.id, state: () => this.s,
        onState: (patch) => { this.s = { ...this.s, ...patch }; this.write(this.s, 'push'); },
        copyLink: () => this.copyViewLink('Link to this query copied'),
        keepGraph: (g) => { if (main.graph && main.graph !== g) main.graph.destroy(); main.graph = g; },
      });
    }
    else this.renderTable(body, tools);
  }

  /** An extra view: its own table and layout, sharing the range and filters. @param {HTMLElement} views @param {number} i */
  renderPane(views, i) {
    const p = this.s.panes[i];
    const select = /** @type {HTMLSelectElement} */ (h('select', { class: 'pane-table', 'data-testid': 'pane-table', title: 'Table of this view' },
      Object.entries(TABLE_NAMES).map(([t, name]) => h('option', { value: t, text: name }))));
    select.value = p.table;
    select.addEventListener('change', () => {
      const d = defaultState(select.value);
      this.setPane(i, { table: d.table, groups: d.groups, cols: d.cols, sort: d.sort, desc: d.desc, open: [], sel: null });
    });
    const close = h('button', { class: 'x', text: '×', title: 'Close this view', 'data-testid': 'pane-close', onclick: () => this.update({ panes: this.s.panes.filter((_, j) => j !== i) }) });
    const v = new View(i + 1, [select, h('span', { class: 'spacer' }), close]);
    this.views.push(v);
    views.append(v.el);
    this.paneTable(v, i);
  }

  /** @param {View} v @param {number} i */
  paneTable(v, i) {
    const p = this.s.panes[i];
    const t = (this.cols && this.cols.tables[p.table]) || { key_columns: [], value_columns: [], columns: [] };
    /** @type {import('./value-columns.js').ColumnDef[]} */
    const defs = t.columns || [];
    const known = (/** @type {string} */ c) => t.value_columns.includes(c) || t.key_columns.includes(c) || canonicalSpec(defs, c) === c;
    clear(v.body);
    if (v.graph) v.graph.destroy();
    clear(v.graphSlot);
    const host = h('div', { class: 'graph-host' });
    v.graphSlot.append(host);
    const table = new TreeTable(v.body, {
      traceId: this.id, table: p.table, groups: p.groups.filter((c) => t.key_columns.includes(c)), cols: p.cols.filter(known), sort: p.sort, desc: p.desc, open: p.open, sel: p.sel,
      allColumns: [...t.key_columns, ...t.value_columns], defs, emptyText: lackText(this.sum, p.table),
      query: () => ({ range: apiRange(this.s.range), filters: apiFilters(this.s.filters.filter((f) => t.key_columns.includes(f.column))) }),
      onLayout: (groups, cols, sort) => this.setPane(i, { groups, cols, open: [], sel: null, ...(sort ? { sort } : {}) }, v),
      onSort: (col, desc) => this.setPane(i, { sort: col, desc }, v),
      onTreeState: (open, sel, push) => {
        this.s.panes[i] = { ...this.s.panes[i], open, sel };
        this.write(this.s, push ? 'push' : 'replace');
        this.syncPaneGraph(v, open, sel);
        if (!push) this.rangeFromSelection(table, p.table);
      },
      onContext: () => {},
      onNotice: (m) => this.notice(m),
    });
    table.load();
    // Its own graph above it, of its own levels; the range and filters are the page's.
    v.graph = this.newGraph(host, table, p.table, defs);
    v.graphPath = graphPath(p.open);
    v.graph.load(v.graphPath).then(() => { if (v.graph) v.graph.highlight(p.sel); });
  }

  /** An extra view's graph after its tree changed. @param {View} v @param {string[][]} open @param {string[]|null} sel */
  syncPaneGraph(v, open, sel) {
    if (!v.graph) return;
    const p = graphPath(open);
    if (JSON.stringify(p) !== JSON.stringify(v.graphPath)) {
      v.graphPath = p;
      v.graph.load(p).then(() => { if (v.graph) v.graph.highlight(sel); });
    } else v.graph.highlight(sel);
  }

  /**
   * Change one extra view; only its table re-renders unless its table changed.
   * @param {number} i @param {Partial<import('./views-layout.js').PaneState>} patch @param {View} [v]
   */
  setPane(i, patch, v) {
    this.s = { ...this.s, panes: this.s.panes.map((p, j) => (j === i ? { ...p, ...patch } : p)) };
    this.write(this.s, 'push');
    if (v && patch.table === undefined) this.paneTable(v, i); else this.renderAnalysis();
  }

  /** @param {string} table */
  columnsOf(table) {
    const t = this.cols && this.cols.tables[table];
    return t ? t.key_columns : [];
  }

  /** @param {HTMLElement} body @param {HTMLElement} tools the view's control line */
  renderTable(body, tools) {
    const s = this.s;
    const keyCols = this.columnsOf(s.table);
    const valCols = (this.cols.tables[s.table] || { value_columns: [] }).value_columns;
    /** @type {import('./value-columns.js').ColumnDef[]} */
    const defs = (this.cols.tables[s.table] || {}).columns || [];
    // Older column names (links made before WPA's names) name the same columns.
    const keyName = (/** @type {string} */ c) => (keyCols.includes(c) ? c : (findDef(defs, c) || { name: c }).name);
    s.groups = s.groups.map(keyName);
    // Right of the gold bar: any column of the table, with an aggregation.
    const valueName = (/** @type {string} */ c) => (valCols.includes(c) ? c : canonicalSpec(defs, c) || c);
    s.cols = s.cols.map(valueName);
    if (!valCols.includes(s.sort)) {
      const sortSpec = canonicalSpec(defs, s.sort);
      s.sort = sortSpec && s.cols.includes(sortSpec) ? sortSpec : keyName(s.sort);
    }
    // (A key column right of the bar that cannot be a value (a stack) stays as an empty column.)
    const known = (/** @type {string} */ c) => valCols.includes(c) || keyCols.includes(c) || canonicalSpec(defs, c) === c;
    // drop columns this table does not know (an outdated link), with a notice
    const bad = [...s.groups.filter((c) => !keyCols.includes(c)), ...s.cols.filter((c) => !known(c))];
    if (bad.length) {
      this.notice(`Unknown column(s) ignored: ${bad.join(', ')}`);
      s.groups = s.groups.filter((c) => keyCols.includes(c));
      s.cols = s.cols.filter(known);
    }
    const chooserBtn = h('button', { class: 'btn small', text: 'Columns…', 'data-testid': 'columns-btn' });
    chooserBtn.addEventListener('click', () => this.columnChooser(chooserBtn, keyCols, valCols));
    tools.insertBefore(chooserBtn, tools.querySelector('[data-testid=add-view]'));
    for (const fmt of /** @type {('csv'|'tsv')[]} */ (['csv', 'tsv'])) {
      tools.insertBefore(h('button', {
        class: 'btn small', text: `Export ${fmt.toUpperCase()}`, 'data-testid': `export-${fmt}`, title: `Download this view as ${fmt.toUpperCase()}: the rows etlscope export prints`,
        onclick: () => {
          const { spec, dropped } = exportSpec(this.s, defs, fmt);
          if (dropped.length) this.notice(`Not in the export: ${dropped.join(', ')}`);
          downloadExport(this.id, spec, s.table).catch((e) => this.notice(`Export failed: ${e.message}`));
        },
      }), tools.querySelector('[data-testid=add-view]'));
    }
    const graphHost = h('div', { class: 'graph-host' });
    // The graph goes above the view's table (views-layout.js: its graph slot), with a handle to resize it.
    (this.views && this.views[0] ? this.views[0].graphSlot : body).append(graphHost, graphSplitter());
    this.table = new TreeTable(body, {
      traceId: this.id, table: s.table, groups: s.groups, cols: s.cols, sort: s.sort, desc: s.desc, open: s.open, sel: s.sel,
      allColumns: [...keyCols, ...valCols], defs, emptyText: lackText(this.sum, s.table),
      query: () => this.query(),
      onLayout: (groups, cols, sort) => this.update({ groups, cols, open: [], sel: null, ...(sort ? { sort } : {}) }),
      onSort: (col, desc) => this.update({ sort: col, desc }),
      onTreeState: (open, sel, push) => { this.s.open = open; this.s.sel = sel; this.write(this.s, push ? 'push' : 'replace'); this.syncGraph(); if (!push) this.rangeFromSelection(t, s.table); },
      onContext: (n, ev) => this.rowMenu(n, ev),
      onNotice: (m) => this.notice(m),
      // The top level's answer may bring the graph above (binned in the same pass).
      graph: {
        wants: (path) => (this.graph && this.table === t ? this.graph.wants(path) : null),
        got: (d) => { if (this.graph && this.table === t) this.graph.offer(d); },
      },
    });
    const t = this.table;
    // The graph first: a cached one is drawn at once, else the table's first request asks for it.
    this.renderGraph(graphHost, defs, t.answered);
    t.load().then(() => { if (this.checkEmpty && this.table === t) this.hideEmpty(t); });
  }

  /** Hide the value columns that are zero or empty on the whole trace (once per layout). @param {TreeTable} t */
  async hideEmpty(t) {
    this.checkEmpty = false;
    let empty;
    try { empty = await emptyColumns(t); } catch { return; }
    if (!empty.length || this.table !== t) return;
    this.s.cols = this.s.cols.filter((c) => !empty.includes(c));
    this.write(this.s, 'replace');
    this.renderAnalysis();
    // After the redraw, which clears the last view's notices.
    this.notice(`Hidden: ${empty.join(', ')} (zero or empty on every row of this trace; Columns… shows them)`);
  }

  /**
   * The graph above the table: the same level, filters and range (table-graph.js), loaded after `after`.
   * @param {HTMLElement} host @param {import('./value-columns.js').ColumnDef[]} defs @param {Promise<void>} [after]
   */
  renderGraph(host, defs, after = Promise.resolve()) {
    const g = this.newGraph(host, this.table, this.s.table, defs);
    this.graph = g;
    this.graphPath = graphPath(this.s.open);
    // Nothing the graph shows changed (or the page saw this level): drawn now, no request.
    if (g.showCached(this.graphPath)) { g.highlight(this.s.sel); return; }
    // Else the table's answer may carry it; if not, it asks once the table has answered: both scan
    // the same rows, and on a server of few cores they would share them, so the table the user
    // waits for would come later.
    after.then(() => {
      if (this.graph === g && !g.data) g.load(this.graphPath).then(() => { if (this.graph === g) g.highlight(this.s.sel); });
      else if (this.graph === g) g.highlight(this.s.sel);
    });
  }

  /**
   * A graph of `table` (a TreeTable of table `name`) in `host`: its levels, filters and range.
   * @param {HTMLElement} host @param {TreeTable} table @param {string} name @param {import('./value-columns.js').ColumnDef[]} defs
   */
  newGraph(host, table, name, defs) {
    const t = this.cols.tables[name] || {};
    // Event tables plot their count (first: I/O without completions has no weight), their weight or a numeric column; cpu-sampled its weight.
    // DPC/ISR plots its time first (WPA's "DPC/ISR Duration by CPU"): every row has one.
    const weight = t.weight_column ? [{ value: 'weight', label: `Graph: ${t.weight_column}` }] : [];
    const count = [{ value: 'count', label: 'Graph: Count' }];
    const one = ONE_MEASURE.get(name);
    const measures = one ? [{ value: one, label: one === 'weight' ? `Graph: ${t.weight_column}` : `Graph: ${one}` }] : name === 'cpu-sampled' || LIFETIME_TABLES.includes(name) ? [] : [
      ...(WEIGHT_FIRST.has(name) ? [...weight, ...count] : [...count, ...weight]),
      ...defs.filter((d) => ['duration', 'size', 'count'].includes(d.type) && d.name !== 'Count').map((d) => ({ value: d.name, label: `Graph: ${d.name}` })),
    ];
    const g = new TableGraph(host, {
      traceId: this.id, table: name, start: Math.min(this.sum.events_start_s || 0, this.sum.duration_s), duration: this.sum.duration_s,
      request: (path) => instanceLevel(name, table.request(path), path), measures, cache: this.graphCache, marks: () => this.marks, lines: name === 'processor-frequency',
      isStack: (c) => { const d = defs.find((x) => x.name === c); return !!d && d.type === 'stack'; },
      labelOf: (path) => { const n = table.findLoaded(path); return n ? n.label : readableRef(path[path.length - 1]); },
      onSelect: (refs) => {
        // A region's bar (one instance) selects its time range, as WPA does.
        const bar = name === 'regions' && g.model ? g.model.bars.find((/** @type {any} */ b) => b.ref === refs[refs.length - 1]) : null;
        if (bar && bar.start_s != null && bar.end_s != null && bar.end_s > bar.start_s) { this.update({ range: [bar.start_s, bar.end_s] }); return; }
        // Clicking a bar or series selects its row, as clicking the row does.
        const n = table.findLoaded(refs);
        if (!n) return;
        table.select(n);
        table.scrollToSelected();
        table.emitTree(false);
      },
    });
    return g;
  }

  /** After a tree change: the graph follows the last expanded row and highlights the selection. */
  syncGraph() {
    if (!this.graph) return;
    const p = graphPath(this.s.open);
    if (JSON.stringify(p) !== JSON.stringify(this.graphPath)) {
      this.graphPath = p;
      this.graph.load(p).then(() => { if (this.graph) this.graph.highlight(this.s.sel); });
    } else this.graph.highlight(this.s.sel);
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
    const selected = this.table ? this.table.sel.size : 0;
    if (selected > 1) items.push({ label: `Copy ${selected} selected rows (tab-separated, with a header)`, action: () => this.table.copySelection() });
    items.push({ label: 'Copy row', action: () => copyText(rowText(n, s.cols, this.table ? this.table.valueInfo : new Map())).then(() => toast('Row copied')) });
    if (isStack) items.push({ label: 'Copy stack', action: () => copyText(stackText(n)).then(() => toast('Stack copied')) });
    items.push({ label: 'Copy link to this row', action: () => this.copyViewLink('Link copied') });
    showMenu(ev, items);
  }

  /** @param {HTMLElement} body */
  renderFlame(body) {
    const s = this.s;
    this.flame = new Flame(body, {
      traceId: this.id, query: () => ({ ...this.query(), ...(s.flameByTag ? { by_stack_tag: true } : {}) }), zoom: s.flameZoom, search: s.flameSearch, icicle: s.icicle, perProcess: s.perProcess,
      onZoom: (path) => { this.s.flameZoom = path; this.write(this.s, 'push'); this.flame.setZoom(path); },
      onSearch: (q) => { this.s.flameSearch = q; this.write(this.s, 'replace'); },
      onIcicle: (on) => { this.s.icicle = on; this.write(this.s, 'push'); this.flame.o.icicle = on; this.flame.draw(); },
      onPerProcess: (on) => this.update({ perProcess: on, flameZoom: [] }),
      noStack: !!s.noStack,
      onNoStack: (on) => this.update({ noStack: on, flameZoom: [] }),
      onNotice: (m) => this.notice(m),
      onContext: (label, ev, isProcess, depth) => showMenu(ev, s.flameByTag && depth === 1 ? [
        // A stack tag box: filter the graph to that tag or leave it out.
        { label: `Filter to Stack Tag = ${label}`, action: () => this.update({ filters: [...s.filters, { column: 'Stack Tag', value: label, label, exclude: false }], flameZoom: [] }) },
        { label: `Exclude Stack Tag ${label}`, action: () => this.update({ filters: [...s.filters, { column: 'Stack Tag', value: label, label, exclude: true }], flameZoom: [] }) },
        { label: 'Copy name', action: () => copyText(label) },
      ] : isProcess ? [
        // A process box: filter the graph to it or leave it out, as the table's Process rows do.
        { label: `Filter to Process = ${label}`, action: () => this.update({ filters: [...s.filters, { column: 'Process', value: label, label, exclude: false }], flameZoom: [] }) },
        { label: `Exclude Process ${label}`, action: () => this.update({ filters: [...s.filters, { column: 'Process', value: label, label, exclude: true }], flameZoom: [] }) },
        { label: 'Copy name', action: () => copyText(label) },
      ] : [
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
      traceId: this.id, query: () => this.query(), kind: s.bfKind, target: s.bfTarget, by: s.bfBy, open: s.bfOpen,
      onChange: (kind, target, by) => this.update({ bfKind: kind, bfTarget: target, bfBy: by }),
      onOpen: (open) => this.update({ bfOpen: open }),
      onNotice: (m) => this.notice(m),
    });
  }
}

/** The graph's level: the children of the last row expanded (the top level when none is). @param {string[][]} open */
function graphPath(open) {
  return open && open.length ? open[open.length - 1] : [];
}

/**
 * The Regions of Interest graph draws one bar per instance (WPA's): a level above the Instance
 * column asks for the instances under it (the rows the level's path keeps, then Instance).
 * @param {string} table @param {any} q the level's /table body @param {string[]} path
 */
function instanceLevel(table, q, path) {
  const at = q.columns ? q.columns.indexOf('Instance') : -1;
  if (table !== 'regions' || at <= path.length) return q;
  return { ...q, columns: [...q.columns.slice(0, path.length), 'Instance'] };
}

/** @param {any} sum */
function samplesText(sum) {
  return `${fmtInt(sum.samples)} (${fmtInt(sum.samples_with_stack)} with stacks)`;
}

/** `warn` when a finished lookup loaded no PDB. @param {any} sum */
function symbolWarn(sum) {
  return sum.symbols && sum.symbols.status === 'done' && !(sum.symbols.by_status || {}).loaded ? 'warn' : '';
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

/** ARIA for a tab button of a `tablist`. @param {boolean} on */
function tabRole(on) {
  return { role: 'tab', 'aria-selected': on ? 'true' : 'false' };
}

/** The ingest diagnostics as a sentence: each names its file offset, as `etlscope info` prints them.
 * @param {{offset: number, message: string}[]} ds */
export function diagnosticsText(ds) {
  const one = (/** @type {{offset: number, message: string}} */ d) => `${d.message} (file offset 0x${Number(d.offset).toString(16)})`;
  const more = ds.length > 1 ? `; ${ds.length - 1} more (etlscope info lists them)` : '';
  return `This trace was read with ${ds.length} problem${ds.length > 1 ? 's' : ''}: ${one(ds[0])}${more}. Everything else that was readable is shown.`;
}

/**
 * Keep the tab strip on one line: tabs that do not fit (never the open one) leave the strip for a
 * "More" menu at its end, and come back when the window grows.
 * @param {HTMLElement} strip
 */
export function fitTabs(strip) {
  const tabs = /** @type {HTMLButtonElement[]} */ ([...strip.querySelectorAll('button.tab')]);
  const more = /** @type {HTMLSelectElement} */ (h('select', { class: 'tab-more', 'data-testid': 'tab-more', title: 'More tables and views' }));
  more.addEventListener('change', () => {
    const t = tabs.find((b) => b.dataset.testid === more.value);
    more.value = '';
    if (t) t.click();
  });
  strip.append(more);
  const fit = () => {
    for (const t of tabs) t.hidden = false;
    more.hidden = true;
    if (strip.scrollWidth <= strip.clientWidth) return;
    more.hidden = false;
    const hidden = [];
    for (let i = tabs.length - 1; i >= 0 && strip.scrollWidth > strip.clientWidth; i--) {
      if (tabs[i].classList.contains('on')) continue;
      tabs[i].hidden = true;
      hidden.unshift(tabs[i]);
    }
    strip.querySelectorAll('.tab-sep').forEach((sep) => { /** @type {HTMLElement} */ (sep).hidden = hidden.length > 0; });
    clear(more);
    more.append(h('option', { value: '', text: `More (${hidden.length}) ▾` }), ...hidden.map((t) => h('option', { value: t.dataset.testid || '', text: t.textContent || '' })));
  };
  new ResizeObserver(fit).observe(strip);
  fit();
}

/** The drag handle under a table's graph: its height is the page's `--graph-h`, kept for the session. */
function graphSplitter() {
  const bar = h('div', { class: 'graph-split', 'data-testid': 'graph-split', title: 'Drag to resize the graph' });
  const app = /** @type {HTMLElement} */ (document.getElementById('app') || document.body);
  const saved = sessionStorage.getItem('etlscope.graph-h');
  if (saved) app.style.setProperty('--graph-h', saved);
  bar.addEventListener('pointerdown', (e) => {
    const canvas = /** @type {HTMLElement|null} */ (bar.previousElementSibling && bar.previousElementSibling.querySelector('.tg-canvas'));
    if (!canvas) return;
    const start = e.clientY;
    const box = canvas.parentElement || canvas;
    const h0 = box.getBoundingClientRect().height / (canvas.closest('.gantt') ? 1.2 : 1);
    bar.setPointerCapture(e.pointerId);
    bar.classList.add('dragging');
    const move = (/** @type {PointerEvent} */ m) => {
      const px = `${Math.round(Math.max(40, Math.min(window.innerHeight * 0.6, h0 + m.clientY - start)))}px`;
      app.style.setProperty('--graph-h', px);
      sessionStorage.setItem('etlscope.graph-h', px);
    };
    const up = () => { bar.classList.remove('dragging'); bar.removeEventListener('pointermove', move); bar.removeEventListener('pointerup', up); };
    bar.addEventListener('pointermove', move);
    bar.addEventListener('pointerup', up);
  });
  return bar;
}
