// Interaction timings on a 10-million-sample trace written by our own writer (`etlscope synth
// bench`), against the acceptance target of the "Web UI" issue: a regroup and a flame graph redraw
// are visible within 300 ms; and of issue 14: the graph above the table redraws within the same. Figures go to t.diagnostic; docs/BENCHMARKS.md "Browser interaction
// (10M samples)" records them.
//
// Timing is taken inside the page: t0 is the timeStamp of the input event (pointerup, click or
// keydown, seen by a capturing window listener before the app's own handlers); "dom" is when a
// MutationObserver first sees the finished view (the new rows, the breadcrumb, the match figure);
// "painted" is after the next animation frame's rendering step (rAF, then a message posted from
// it). "round trip" adds playwright's own latency: from before the input is sent until the page
// reported the result.
//
// Env: ETLSCOPE_PERF_SAMPLES (default 10000000; 0 skips this file), ETLSCOPE_PERF_TRACE (use an
// existing trace instead of writing one). The trace goes to a temporary directory, removed after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage as openPage, waitTable as waitTableFor } from '../tests/browser.mjs';
import { buildRelease, startServer, query, repoRoot, binary } from '../tests/server.mjs';
import { instrument, measure, stats, report, regroup } from './perf-measure.mjs';

const SAMPLES = Number(process.env.ETLSCOPE_PERF_SAMPLES ?? 10_000_000);
if (!Number.isSafeInteger(SAMPLES)) throw new Error(`ETLSCOPE_PERF_SAMPLES=${process.env.ETLSCOPE_PERF_SAMPLES} is not a whole number`);
const TARGET_MS = 300;
const ROW = 17; // flame.js row height
const skip = SAMPLES <= 0 ? 'ETLSCOPE_PERF_SAMPLES=0' : false;

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';
let tmp = '';
/** @type {any} */ let sum;

/** Wall-clock steps of the setup, reported by the first test. */
const setup = /** @type {Record<string, number>} */ ({});

/** Per test: generous, so that only a hang (not a slow machine) trips it. */
const TIMEOUT = 5 * 60 * 1000;

before(async () => {
  if (skip) return;
  buildRelease();
  let trace = process.env.ETLSCOPE_PERF_TRACE;
  if (!trace) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-perf-'));
    trace = path.join(tmp, `s${SAMPLES}.etl`);
    const stacks = Math.min(100_000, Math.max(1_000, Math.floor(SAMPLES / 100)));
    const t = Date.now();
    const r = spawnSync(binary(),
      ['synth', 'bench', '-o', trace, '--samples', String(SAMPLES), '--distinct-stacks', String(stacks), '--threads', '1000'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('etlscope synth bench failed');
    setup.write_s = (Date.now() - t) / 1000;
  }
  setup.bytes = fs.statSync(trace).size;
  const t = Date.now();
  // A 10M-sample trace can take minutes to ingest on a busy machine.
  srv = await startServer([trace], 10 * 60 * 1000);
  id = srv.ids[0];
  setup.ingest_s = (Date.now() - t) / 1000;
  sum = await (await fetch(`${srv.url}/api/traces/${id}/summary`)).json();
  browser = await launch();
}, { timeout: 20 * 60 * 1000 });
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const newPage = () => openPage(browser, { init: instrument });
const waitTable = (/** @type {import('playwright-core').Page} */ p) => waitTableFor(p, 60000);

test('setup: write and ingest the trace; server-side query times and JSON sizes', { skip, timeout: TIMEOUT }, async (t) => {
  assert.equal(sum.samples, SAMPLES);
  t.diagnostic(`trace: ${SAMPLES} samples, ${sum.stacks} stack nodes, ${sum.threads} threads, ${setup.bytes} bytes; `
    + `write ${setup.write_s ?? '-'} s, serve until ready ${setup.ingest_s} s (model load ${sum.load_seconds.toFixed(1)} s)`);
  // The queries the UI sends below, timed from node (HTTP included), best and worst of 5.
  // A quarter of the trace: 300-600 s of the 10M trace's 1,250 s.
  const quarter = { start_s: 0.24 * sum.duration_s, end_s: 0.48 * sum.duration_s };
  const qs = {
    'table Process,Stack': ['table', { columns: ['Process', 'Stack'], path: [], limit: 500, sort: { by: 'weight', descending: true } }],
    'table Process': ['table', { columns: ['Process'], path: [], limit: 500, sort: { by: 'weight', descending: true } }],
    'table Thread ID,Process,Stack': ['table', { columns: ['Thread ID', 'Process', 'Stack'], path: [], limit: 500, sort: { by: 'weight', descending: true } }],
    'table Process,Stack, a quarter of the time': ['table', { columns: ['Process', 'Stack'], path: [], limit: 500, sort: { by: 'weight', descending: true }, range: quarter }],
    flame: ['flame', { min_fraction: 0.0005, order: 'name', per_process: false, exclude_no_stack: false }],
    'flame, a quarter of the time': ['flame', { min_fraction: 0.0005, order: 'name', per_process: false, exclude_no_stack: false, range: quarter }],
    'timeline 500 bins by process': ['timeline', { range: { start_s: 0, end_s: sum.duration_s }, bins: 500, by: 'process', top: 8, filters: [] }],
    'graph Process,Stack 500 bins': ['graph', { columns: ['Process', 'Stack'], range: { start_s: 0, end_s: sum.duration_s }, bins: 500, top: 10 }],
    'graph Thread ID,Process,Stack 500 bins': ['graph', { columns: ['Thread ID', 'Process', 'Stack'], range: { start_s: 0, end_s: sum.duration_s }, bins: 500, top: 10 }],
    'graph Process,Stack 500 bins, a quarter of the time': ['graph', { columns: ['Process', 'Stack'], range: quarter, bins: 500, top: 10 }],
  };
  for (const [name, [what, body]] of Object.entries(qs)) {
    const ms = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const r = await fetch(`${srv.url}/api/traces/${id}/${what}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-etlscope': '1' }, body: JSON.stringify(body) });
      const text = await r.text();
      ms.push(performance.now() - t0);
      assert.equal(r.status, 200, text);
      bytes = text.length;
    }
    const s = stats(ms);
    t.diagnostic(`server ${name}: median ${s.median.toFixed(0)} / max ${s.max.toFixed(0)} ms, ${bytes} bytes of JSON`);
  }
});

test('regroup by real header drags: median under 300 ms from mouse-up to the regrouped rows', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await newPage();
  const t0 = Date.now();
  // Thread ID shown right of the gold bar, so that it can be dragged across it.
  await p.goto(`${srv.url}/t/${id}?v=1&t=cpu-sampled&g=Process,Stack&c=${encodeURIComponent('Thread ID,Count,Weight (ms),% Weight')}`);
  await waitTable(p);
  t.diagnostic(`first table (navigation to rows drawn, round trip): ${Date.now() - t0} ms`);
  const runs = [];
  for (let round = 0; round < 3; round++) {
    // Stack right of the bar: grouped by Process only; then back left of it.
    runs.push(await regroup(p, 'Stack', 'Count', ['Process']));
    runs.push(await regroup(p, 'Stack', '|', ['Process', 'Stack']));
    // Thread ID first: 1,000 threads, the largest 500 rows drawn.
    runs.push(await regroup(p, 'Thread ID', 'Process', ['Thread ID', 'Process', 'Stack']));
    assert.equal(await p.$$eval('[data-testid=table] tbody tr[data-path]', (r) => r.length), 500);
    runs.push(await regroup(p, 'Thread ID', 'Count', ['Process', 'Stack']));
  }
  assert.equal(await p.$eval('[data-testid=table-status]', (e) => Number(e.getAttribute('data-total'))), SAMPLES);
  const s = report(t, 'regroup (mouse-up to regrouped rows)', runs);
  assert.ok(s.median <= TARGET_MS, `regroup median ${s.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('regroup with two value columns (Time: Min, Weight: Max <-> Sum): median under 300 ms', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await newPage();
  const cols = ['Thread ID', 'Count', 'Time', 'Weight:max'];
  await p.goto(`${srv.url}/t/${id}?v=1&t=cpu-sampled&g=Process,Stack&c=${encodeURIComponent(cols.join(','))}&s=Count`);
  await waitTable(p);
  const drags = [];
  for (let round = 0; round < 3; round++) {
    drags.push(await regroup(p, 'Stack', 'Count', ['Process']));
    drags.push(await regroup(p, 'Stack', '|', ['Process', 'Stack']));
    drags.push(await regroup(p, 'Thread ID', 'Process', ['Thread ID', 'Process', 'Stack']));
    drags.push(await regroup(p, 'Thread ID', 'Count', ['Process', 'Stack']));
  }
  // Every row carries both aggregates (the first sample's time, the largest weight); Thread ID,
  // a Single over a process's many threads, is blank there.
  const cells = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => trs.map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => td.getAttribute('data-value'))));
  assert.ok(cells.length > 0 && cells.every((r) => r.length >= 2 && r.slice(-2).every((v) => v !== '')), JSON.stringify(cells.slice(0, 3)));
  const aggs = [];
  let col = 'Weight:max';
  for (let i = 0; i < 6; i++) {
    const next = col === 'Weight:max' ? 'Weight' : 'Weight:max';
    await p.click(`[data-testid=table] th[data-col="${col}"] [data-testid=agg-menu]`);
    const item = p.locator(`[data-testid=context-menu] .ctx-item:text-is("${next === 'Weight' ? 'Sum' : 'Max'}")`);
    aggs.push(await measure(p, 'click', 'header', next, () => item.click()));
    col = next;
  }
  assert.equal(await p.$eval('[data-testid=table-status]', (e) => Number(e.getAttribute('data-total'))), SAMPLES);
  const sd = report(t, 'cpu-sampled regroup with Time (Min) and Weight (Max) (mouse-up to regrouped rows)', drags);
  const sa = report(t, 'cpu-sampled Weight Max <-> Sum from the header menu (click to new values)', aggs);
  assert.ok(sd.median <= TARGET_MS, `regroup median ${sd.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  assert.ok(sa.median <= TARGET_MS, `aggregation median ${sa.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('flame graph: zoom, zoom out and search redraw with a median under 300 ms', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await p.waitForLoadState('networkidle');
  // Opening the tab asks the server for the graph (one /flame query); back to the table, one /table.
  const open = [];
  for (let i = 0; i < 5; i++) {
    open.push(await measure(p, 'click', 'crumbs', 1, () => p.click('[data-testid=tab-flame]')));
    if (i < 4) await measure(p, 'click', 'groups', 'Process,Stack', () => p.click('[data-testid=tab-cpu-sampled]'));
  }
  report(t, 'flame tab opened (click to first graph drawn; one /flame query, reported, not asserted)', open);
  const box = await p.locator('[data-testid=flame]').boundingBox();
  const scroll = await p.locator('.flame-scroll').boundingBox();
  const visibleH = await p.$eval('.flame-scroll', (e) => e.clientHeight);
  const bottom = Math.min(scroll.y + visibleH, box.y + box.height);
  const zoom = [];
  const out = [];
  // Boxes of the second row (under the root) at several places across the width.
  for (const fx of [0.02, 0.2, 0.5, 0.8, 0.97, 0.02, 0.5]) {
    zoom.push(await measure(p, 'click', 'crumbs', 2, () => p.mouse.click(box.x + box.width * fx, bottom - ROW * 1.5)));
    out.push(await measure(p, 'click', 'crumbs', 1, () => p.click('[data-testid=flame-crumbs] .crumb >> nth=0')));
  }
  const search = [];
  await p.click('[data-testid=flame-search]');
  for (let round = 0; round < 3; round++) {
    for (const ch of 'tcpip') search.push(await measure(p, 'keydown', 'match', null, () => p.keyboard.press(ch)));
    const pct = Number(await p.$eval('[data-testid=flame-match]', (e) => e.getAttribute('data-percent')));
    assert.ok(pct > 0 && pct < 100, `tcpip matches ${pct}%`);
    for (let i = 0; i < 5; i++) await p.keyboard.press('Backspace');
  }
  const sz = report(t, 'flame zoom (click to redrawn canvas + breadcrumb)', zoom);
  const so = report(t, 'flame zoom out (breadcrumb click to redrawn canvas)', out);
  const ss = report(t, 'flame search (keystroke to highlighted redraw)', search);
  for (const [name, s] of [['zoom', sz], ['zoom out', so], ['search', ss]]) {
    assert.ok(s.median <= TARGET_MS, `flame ${name} median ${s.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  }
  assert.deepEqual(errors, []);
  await c.close();
});

test('time range by timeline drag: figures for the table and flame redraw (reported, not asserted)', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  const tl = await p.locator('[data-testid=timeline]').boundingBox();
  const runs = [];
  for (const [a, b] of [[0.3, 0.6], [0.1, 0.2], [0.5, 0.9], [0.05, 0.95], [0.4, 0.45]]) {
    const before = await p.$eval('[data-testid=table-status]', (e) => e.getAttribute('data-total'));
    await p.mouse.move(tl.x + tl.width * a, tl.y + tl.height / 2);
    await p.mouse.down();
    await p.mouse.move(tl.x + tl.width * b, tl.y + tl.height / 2, { steps: 10 });
    runs.push(await measure(p, 'pointerup', 'total', before, () => p.mouse.up()));
    const m = /[?&]r=([\d.]+)-([\d.]+)/.exec(p.url());
    const api = await query(srv.url, id, 'table', { columns: ['Process', 'Stack'], range: { start_s: Number(m[1]), end_s: Number(m[2]) }, limit: 100000 });
    assert.equal(await p.$eval('[data-testid=table-status]', (e) => Number(e.getAttribute('data-total'))), api.total.count);
  }
  report(t, 'time range (timeline mouse-up to table redrawn)', runs);
  // The same in the flame view: a new range asks the server for a new graph.
  await p.click('[data-testid=tab-flame]');
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  const flame = [];
  for (const [a, b] of [[0.3, 0.6], [0.1, 0.2], [0.5, 0.9], [0.05, 0.95], [0.4, 0.45]]) {
    await p.mouse.move(tl.x + tl.width * a, tl.y + tl.height / 2);
    await p.mouse.down();
    await p.mouse.move(tl.x + tl.width * b, tl.y + tl.height / 2, { steps: 10 });
    // The flame view is rebuilt in the pointerup task with an empty breadcrumb; it has one again once drawn.
    flame.push(await measure(p, 'pointerup', 'crumbs', 1, () => p.mouse.up()));
  }
  report(t, 'time range in the flame view (timeline mouse-up to the new graph drawn)', flame);
  assert.deepEqual(errors, []);
  await c.close();
});

test('graph above the table: regroup and time range redraw it with a median under 300 ms', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}?v=1&t=cpu-sampled&g=Process,Stack&c=${encodeURIComponent('Thread ID,Count,Weight (ms),% Weight')}`);
  await waitTable(p);
  await p.waitForSelector('[data-testid=table-graph][data-state=ready]', { timeout: 60000 });
  const load = () => p.$eval('[data-testid=table-graph]', (e) => Number(e.getAttribute('data-load')));
  /** A header drag, measured until the graph of the new grouping is drawn. @param {string} col @param {string} before */
  const regroupGraph = async (col, before) => {
    const from = await p.locator(`[data-testid=table] th[data-col="${col}"]`).boundingBox();
    const to = await p.locator(`[data-testid=table] th[data-col="${before}"]`).boundingBox();
    const n = await load();
    await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await p.mouse.down();
    await p.mouse.move(from.x + from.width / 2 + 10, from.y + 8, { steps: 3 });
    await p.mouse.move(to.x + 2, to.y + to.height / 2, { steps: 12 });
    return measure(p, 'pointerup', 'graph', n, () => p.mouse.up());
  };
  const regroups = [];
  for (let round = 0; round < 3; round++) {
    regroups.push(await regroupGraph('Stack', 'Count'));
    regroups.push(await regroupGraph('Stack', '|'));
    // Thread ID first: 1,000 threads, 10 series and "other".
    regroups.push(await regroupGraph('Thread ID', 'Process'));
    const m = await p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);
    assert.equal(m.series.length, 11);
    regroups.push(await regroupGraph('Thread ID', 'Count'));
  }
  // Every sample is in some series: the bins add up to the whole trace's weight.
  const m = await p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);
  const all = m.series.reduce((/** @type {number} */ a, /** @type {any} */ s) => a + s.values.reduce((/** @type {number} */ x, /** @type {number} */ y) => x + y, 0), 0);
  const whole = await query(srv.url, id, 'table', { columns: ['Process'], limit: 500 });
  assert.ok(Math.abs(all - whole.total.weight_ms) < 1e-3 * whole.total.weight_ms, `${all} vs ${whole.total.weight_ms}`);
  const sr = report(t, 'graph after a regroup (mouse-up to the new graph drawn)', regroups);
  const tl = await p.locator('[data-testid=timeline]').boundingBox();
  const ranges = [];
  for (const [a, b] of [[0.3, 0.6], [0.1, 0.2], [0.5, 0.9], [0.05, 0.95], [0.4, 0.45]]) {
    const n = await load();
    await p.mouse.move(tl.x + tl.width * a, tl.y + tl.height / 2);
    await p.mouse.down();
    await p.mouse.move(tl.x + tl.width * b, tl.y + tl.height / 2, { steps: 10 });
    ranges.push(await measure(p, 'pointerup', 'graph', n, () => p.mouse.up()));
  }
  const st = report(t, 'graph after a time range (timeline mouse-up to the new graph drawn)', ranges);
  for (const [name, s] of [['regroup', sr], ['time range', st]]) {
    assert.ok(s.median <= TARGET_MS, `graph ${name} median ${s.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  }
  assert.deepEqual(errors, []);
  await c.close();
});
