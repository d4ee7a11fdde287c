// Regrouping with value columns on 10 million File I/O rows (a trace our writer makes: `etlscope
// synth bench --file-creates N`), measured against issue 14's target: a regroup with two value
// columns and Min/Max/Average under 300 ms median from input to painted view. The target is met on an
// idle machine, not in every CI run (docs/BENCHMARKS.md): the figures are reported, not asserted
// (ETLSCOPE_PERF_STRICT=1 asserts them); the views themselves are checked. The view: File I/O by Process, File
// Path with Count, Start Time (Min) and Start Time (Max); header drags regroup it, the header menu
// switches the second value between Max and Average (a time never Sums); the graph above the table is timed after the same
// regroups (perf-measure.mjs's 'graph' condition). Figures go to t.diagnostic; docs/BENCHMARKS.md
// ("Value columns on 10M File I/O rows") records them.
//
// Env: ETLSCOPE_PERF_FILE_IO (default 10000000; 0 skips this file), ETLSCOPE_PERF_FILE_IO_TRACE
// (use an existing trace). The trace goes to a temporary directory, removed after.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage as openPage, waitTable } from '../tests/browser.mjs';
import { buildRelease, startServer, query, binary } from '../tests/server.mjs';
import { instrument, measure, stats, report, regroup, perRun } from './perf-measure.mjs';

const ROWS = Number(process.env.ETLSCOPE_PERF_FILE_IO ?? 10_000_000);
if (!Number.isSafeInteger(ROWS)) throw new Error(`ETLSCOPE_PERF_FILE_IO=${process.env.ETLSCOPE_PERF_FILE_IO} is not a whole number`);
const TARGET_MS = 300;
const skip = ROWS <= 0 ? 'ETLSCOPE_PERF_FILE_IO=0' : false;
const TIMEOUT = 5 * 60 * 1000;
const VALUES = ['Count', 'Start Time:min', 'Start Time:max'];

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';
let tmp = '';
const setup = /** @type {Record<string, number>} */ ({});

before(async () => {
  if (skip) return;
  buildRelease();
  let trace = process.env.ETLSCOPE_PERF_FILE_IO_TRACE;
  if (!trace) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-perf-fio-'));
    trace = path.join(tmp, `fio${ROWS}.etl`);
    const t = Date.now();
    const r = spawnSync(binary(), ['synth', 'bench', '-o', trace, '--samples', '1000', '--threads', '1000', '--file-creates', String(ROWS), '--file-paths', '100000'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('etlscope synth bench failed');
    setup.write_s = (Date.now() - t) / 1000;
  }
  setup.bytes = fs.statSync(trace).size;
  const t = Date.now();
  srv = await startServer([trace], 10 * 60 * 1000);
  id = srv.ids[0];
  setup.ingest_s = (Date.now() - t) / 1000;
  browser = await launch();
}, { timeout: 20 * 60 * 1000 });
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('setup, and the server-side /table time with value columns', { skip, timeout: TIMEOUT }, async (t) => {
  t.diagnostic(`trace: ${setup.bytes} bytes, written in ${setup.write_s ?? '-'} s, served and ready in ${setup.ingest_s} s`);
  for (const [name, columns] of [['Process, File Path', ['Process', 'File Path']], ['File Path, Process', ['File Path', 'Process']], ['Process', ['Process']]]) {
    const ms = [];
    let rows = 0;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const r = await query(srv.url, id, 'table', { table: 'file-io', columns, values: ['Start Time:min', 'Start Time:avg'], limit: 500, sort: { by: 'count', descending: true } });
      ms.push(performance.now() - t0);
      rows = r.total.count;
    }
    assert.equal(rows, ROWS);
    const s = stats(ms);
    t.diagnostic(`server /table ${name} with Start Time:min, Start Time:avg: median ${s.median.toFixed(0)} / max ${s.max.toFixed(0)} ms`);
  }
});

test('regroup with two value columns, and Max <-> Average from the header menu: timings against the 300 ms median', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await openPage(browser, { init: instrument });
  await p.goto(`${srv.url}/t/${id}?v=2&t=file-io&g=Process,File Path&c=${encodeURIComponent(VALUES.join(','))}&s=Count`);
  await waitTable(p, 120000);
  assert.equal(await p.$eval('[data-testid=table-status]', (e) => Number(e.getAttribute('data-total'))), ROWS);
  const drags = [];
  for (let round = 0; round < 3; round++) {
    // File Path to the value side (its unique count per process), back; then first (the 500 busiest paths drawn), back.
    drags.push(await regroup(p, 'File Path', 'Count', ['Process']));
    drags.push(await regroup(p, 'File Path', '|', ['Process', 'File Path']));
    drags.push(await regroup(p, 'File Path', 'Process', ['File Path', 'Process']));
    assert.equal(await p.$$eval('[data-testid=table] tbody tr[data-path]', (r) => r.length), 500);
    drags.push(await regroup(p, 'Process', 'File Path', ['Process', 'File Path']));
  }
  const aggs = [];
  let col = 'Start Time:max';
  for (let i = 0; i < 6; i++) {
    const next = col === 'Start Time:max' ? 'Start Time:avg' : 'Start Time:max';
    await p.click(`[data-testid=table] th[data-col="${col}"] [data-testid=agg-menu]`);
    const item = p.locator(`[data-testid=context-menu] .ctx-item:text-is("${next.endsWith('avg') ? 'Average' : 'Max'}")`);
    aggs.push(await measure(p, 'click', 'header', next, () => item.click()));
    col = next;
  }
  const kinds = ['File Path to the values (Process)', 'back (Process, File Path)', 'File Path first (File Path, Process)', 'back (Process, File Path)'];
  perRun(t, 'regroup', drags, kinds);
  perRun(t, 'aggregation', aggs, ['Max -> Average', 'Average -> Max']);
  const sd = report(t, 'regroup with two value columns (mouse-up to regrouped rows)', drags);
  const sa = report(t, 'aggregation Max <-> Average from the header menu (click to new values)', aggs);
  const all = report(t, 'all of them', [...drags, ...aggs]);
  t.diagnostic(`target ${TARGET_MS} ms median: regroup ${sd.median <= TARGET_MS ? 'met' : 'NOT met'}, aggregation ${sa.median <= TARGET_MS ? 'met' : 'NOT met'}, all ${all.median <= TARGET_MS ? 'met' : 'NOT met'}`);
  if (process.env.ETLSCOPE_PERF_STRICT === '1') {
    assert.ok(sd.median <= TARGET_MS, `regroup median ${sd.median.toFixed(0)} ms > ${TARGET_MS} ms`);
    assert.ok(sa.median <= TARGET_MS, `aggregation median ${sa.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  }
  assert.deepEqual(errors, []);
  await c.close();
});

test('the graph above the table after a regroup with two value columns: timings against the 300 ms median', { skip, timeout: TIMEOUT }, async (t) => {
  const { p, c, errors } = await openPage(browser, { init: instrument });
  await p.goto(`${srv.url}/t/${id}?v=2&t=file-io&g=Process,File Path&c=${encodeURIComponent(VALUES.join(','))}&s=Count`);
  await waitTable(p, 120000);
  await p.waitForSelector('[data-testid=table-graph][data-state=ready]', { timeout: 120000 });
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
  const drags = [];
  for (let round = 0; round < 3; round++) {
    drags.push(await regroupGraph('File Path', 'Count'));
    drags.push(await regroupGraph('File Path', '|'));
    // File Path first: 100,000 paths, the 10 busiest as series and "other".
    drags.push(await regroupGraph('File Path', 'Process'));
    const m = await p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);
    assert.equal(m.series.length, 11);
    drags.push(await regroupGraph('Process', 'File Path'));
  }
  perRun(t, 'graph', drags, ['File Path to the values (Process)', 'back (Process, File Path)', 'File Path first (File Path, Process)', 'back (Process, File Path)']);
  const sg = report(t, 'graph after a regroup with two value columns (mouse-up to the new graph drawn)', drags);
  // Every row is in some series: the bins add up to the row count (but the last row, at the trace's
  // end, which is the graph's half-open range's end).
  const m = await p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);
  const binned = m.series.reduce((/** @type {number} */ a, /** @type {any} */ s) => a + s.values.reduce((/** @type {number} */ x, /** @type {number} */ y) => x + y, 0), 0);
  assert.ok(binned >= ROWS - 1 && binned <= ROWS, `${binned} rows binned of ${ROWS}`);
  t.diagnostic(`target ${TARGET_MS} ms median: graph ${sg.median <= TARGET_MS ? 'met' : 'NOT met'}`);
  // The same drags with the page's graph answers dropped before each (graph-cache.js): every new
  // level is computed (with the table's answer where its level has few keys, else by /graph);
  // File Path to the values and back keep the level, so those two are computed with the table too.
  const cold = [];
  for (let round = 0; round < 3; round++) {
    for (const [col, before] of [['File Path', 'Count'], ['File Path', '|'], ['File Path', 'Process'], ['Process', 'File Path']]) {
      await p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__cache.clear());
      cold.push(await regroupGraph(col, before));
    }
  }
  perRun(t, 'cold graph', cold, ['File Path to the values (Process)', 'back (Process, File Path)', 'File Path first (File Path, Process)', 'back (Process, File Path)']);
  const sc = report(t, 'graph after a regroup, cold (graph answers dropped before each drag)', cold);
  t.diagnostic(`target ${TARGET_MS} ms median: cold graph ${sc.median <= TARGET_MS ? 'met' : 'NOT met'}`);
  if (process.env.ETLSCOPE_PERF_STRICT === '1') assert.ok(sg.median <= TARGET_MS, `graph median ${sg.median.toFixed(0)} ms > ${TARGET_MS} ms`);
  assert.deepEqual(errors, []);
  await c.close();
});
