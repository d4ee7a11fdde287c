// Several views on one analysis page, on the demo trace with real mouse and keyboard: a second
// view with its own table and grouping, stacked then side by side, one time selection for both,
// the whole layout in the link. Expected numbers come from `etlscope export`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const EXPLORER = 'explorer.exe (6148)';
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** The count cell of a top-level row of view `i`, by label. @param {import('playwright-core').Page} p @param {number} i @param {string} label */
const countOf = (p, i, label) => p.$$eval(`[data-testid=pane-${i}] [data-testid=table] tbody tr[data-depth="0"]`, (trs, l) => {
  const tr = trs.find((x) => x.getAttribute('data-path') === l);
  return tr ? Number(tr.querySelector('td.num').textContent.replace(/,/g, '')) : NaN;
}, label);

/** Both views drawn (their tables neither loading nor empty). @param {import('playwright-core').Page} p */
const waitViews = (p) => p.waitForFunction(() => [0, 1].every((i) => {
  const s = document.querySelector(`[data-testid=pane-${i}] [data-testid=table-status]`);
  return s && !/Loading|Expanding/.test(s.textContent) && document.querySelector(`[data-testid=pane-${i}] [data-testid=table] tbody tr[data-depth="0"]`);
}));

/** Top-level labels of view `i`. @param {import('playwright-core').Page} p @param {number} i */
const labels = (p, i) => p.$$eval(`[data-testid=pane-${i}] [data-testid=table] tbody tr[data-depth="0"]`, (trs) => trs.map((tr) => tr.getAttribute('data-path')));

test('two views: own tables and groupings, one time selection, stacked or side by side, all in the link', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=cpu-sampled&g=Process&c=Count,Weight (ms),% Weight&s=Weight (ms)`);
  await waitTable(p);
  await p.click('[data-testid=add-view]');
  await p.waitForSelector('[data-testid=pane-1] [data-testid=table]');
  await p.selectOption('[data-testid=pane-1] [data-testid=pane-table]', 'file-io');
  await p.waitForFunction(() => /pane=[^&]*file-io/.test(decodeURIComponent(location.search)));
  await waitViews(p);
  // Stacked: the second view is below the first.
  let b0 = await p.locator('[data-testid=pane-0]').boundingBox();
  let b1 = await p.locator('[data-testid=pane-1]').boundingBox();
  assert.ok(b1.y >= b0.y + b0.height - 1, `stacked: ${JSON.stringify([b0, b1])}`);
  await p.click('[data-testid=layout-toggle]');
  await p.waitForURL(/[?&]lay=side/);
  await waitViews(p);
  b0 = await p.locator('[data-testid=pane-0]').boundingBox();
  b1 = await p.locator('[data-testid=pane-1]').boundingBox();
  assert.ok(Math.abs(b0.y - b1.y) < 2 && b1.x >= b0.x + b0.width - 1, `side by side: ${JSON.stringify([b0, b1])}`);

  // One time selection: both views follow the Range box.
  await p.fill('[data-testid=range-input]', '7-23');
  await p.press('[data-testid=range-input]', 'Enter');
  await p.waitForURL(/[?&]r=7-23(&|$)/);
  await waitViews(p);
  const cpu = exportRows(DEMO, ['--table', 'cpu-sampled', '--range', '7-23', '--group', 'Process']);
  const io = exportRows(DEMO, ['--table', 'file-io', '--range', '7-23', '--group', 'Type']);
  const ioAll = exportRows(DEMO, ['--table', 'file-io', '--group', 'Type']);
  const create = io.find((r) => r.Type === 'Create');
  assert.ok(create.Count < ioAll.find((r) => r.Type === 'Create').Count, 'the range cuts the File I/O view');
  assert.equal(await countOf(p, 0, EXPLORER), cpu.find((r) => r.Process === EXPLORER).Count);
  assert.equal(await countOf(p, 0, EXPLORER), 42300);
  assert.equal(await countOf(p, 1, 'Create'), create.Count);

  // Regroup the second view by a real header drag: Type onto the value side. The first view keeps its grouping.
  const from = await p.locator('[data-testid=pane-1] [data-testid=table] th[data-col="Type"]').boundingBox();
  const to = await p.locator('[data-testid=pane-1] [data-testid=table] th[data-col="Count"]').boundingBox();
  await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await p.mouse.down();
  await p.mouse.move(from.x + from.width / 2 + 10, from.y + 8, { steps: 3 });
  await p.mouse.move(to.x + 2, to.y + to.height / 2, { steps: 12 });
  await p.mouse.up();
  await p.waitForFunction(() => new URLSearchParams(new URLSearchParams(location.search).get('pane') || '').get('g') === 'File Path');
  await waitViews(p);
  const byPath = exportRows(DEMO, ['--table', 'file-io', '--range', '7-23', '--group', 'File Path', '--sort', 'Count:desc']);
  const shown = await labels(p, 1);
  assert.equal(shown[0], byPath[0]['File Path']);
  assert.equal(await countOf(p, 1, shown[0]), byPath[0].Count);
  assert.deepEqual(await labels(p, 0), cpu.map((r) => r.Process).slice(0, (await labels(p, 0)).length));

  // The link reopens the same layout and numbers in a fresh browser context.
  const link = p.url();
  const fresh = await newPage(browser);
  await fresh.p.goto(link);
  await waitViews(fresh.p);
  assert.equal(await fresh.p.getAttribute('[data-testid=views]', 'data-layout'), 'side');
  assert.equal(await countOf(fresh.p, 0, EXPLORER), 42300);
  assert.equal(await countOf(fresh.p, 1, shown[0]), byPath[0].Count);
  assert.deepEqual(fresh.errors, []);
  await fresh.c.close();

  // Closing the second view leaves the first alone, and the link without it.
  await p.click('[data-testid=pane-1] [data-testid=pane-close]');
  await p.waitForFunction(() => !new URLSearchParams(location.search).has('pane'));
  assert.equal(await p.locator('[data-testid=pane-1]').count(), 0);
  assert.deepEqual(errors, []);
  await c.close();
});

/** The graph model of view `i` once a load newer than `after` is drawn. @param {import('playwright-core').Page} p @param {number} i @param {number} after */
const paneGraph = async (p, i, after = 0) => {
  const sel = `[data-testid=pane-${i}] [data-testid=table-graph]`;
  await p.waitForFunction(([s, a]) => {
    const g = document.querySelector(s);
    return !!g && g.getAttribute('data-state') === 'ready' && Number(g.getAttribute('data-load')) > a;
  }, [sel, after]);
  return p.$eval(sel, (e) => ({ load: Number(e.getAttribute('data-load')), ...(/** @type {any} */ (e).__graph) }));
};
/** A series' sum over its bins. @param {any} s */
const total = (s) => s.values.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0);

test('every view has its own graph: series of its own grouping, the one time selection', async () => {
  const { p, c, errors } = await newPage(browser);
  const pane = encodeURIComponent('t=file-io&g=Type,File Path&c=Count&s=Count');
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=cpu-sampled&g=Process&c=Count,Weight (ms),% Weight&s=Weight (ms)&pane=${pane}`);
  await waitViews(p);
  // View 2 (File I/O by Type): one series per Type, its bins adding up to export's count.
  let g1 = await paneGraph(p, 1);
  const byType = exportRows(DEMO, ['--table', 'file-io', '--group', 'Type']);
  assert.equal(g1.kind, 'series');
  assert.deepEqual(g1.series.map((/** @type {any} */ s) => s.label).sort(), byType.map((r) => r.Type).sort());
  for (const s of g1.series) assert.equal(total(s), byType.find((r) => r.Type === s.label).Count, s.label);
  // The main view's graph keeps its own grouping (processes).
  const g0 = await paneGraph(p, 0);
  const procs = exportRows(DEMO, ['--table', 'cpu-sampled', '--group', 'Process']).map((r) => r.Process);
  assert.ok(g0.series.length > 0 && g0.series.every((/** @type {any} */ s) => s.label.startsWith('Other') || procs.includes(s.label)), JSON.stringify(g0.series.map((/** @type {any} */ s) => s.label)));

  // Regroup view 2 by a header drag (Type onto the value side): its graph follows, by File Path.
  const from = await p.locator('[data-testid=pane-1] [data-testid=table] th[data-col="Type"]').boundingBox();
  const to = await p.locator('[data-testid=pane-1] [data-testid=table] th[data-col="Count"]').boundingBox();
  await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await p.mouse.down();
  await p.mouse.move(from.x + from.width / 2 + 10, from.y + 8, { steps: 3 });
  await p.mouse.move(to.x + 2, to.y + to.height / 2, { steps: 12 });
  await p.mouse.up();
  g1 = await paneGraph(p, 1, g1.load);
  const byPath = exportRows(DEMO, ['--table', 'file-io', '--group', 'File Path']);
  const named = g1.series.filter((/** @type {any} */ s) => !s.label.startsWith('Other ('));
  assert.equal(named.length, Math.min(10, byPath.length));
  for (const s of named) assert.equal(total(s), byPath.find((r) => r['File Path'] === s.label).Count, s.label);
  // The top series are the busiest paths: none left out counts more than the least drawn.
  const least = Math.min(...named.map(total));
  assert.ok(byPath.filter((r) => !named.some((/** @type {any} */ s) => s.label === r['File Path'])).every((r) => r.Count <= least));

  // One time selection: the Range box cuts view 2's graph as export's --range does.
  await p.fill('[data-testid=range-input]', '7-23');
  await p.press('[data-testid=range-input]', 'Enter');
  await p.waitForURL(/[?&]r=7-23(&|$)/);
  g1 = await paneGraph(p, 1, g1.load);
  const ranged = exportRows(DEMO, ['--table', 'file-io', '--range', '7-23', '--group', 'File Path']);
  const shown = g1.series.filter((/** @type {any} */ s) => !s.label.startsWith('Other ('));
  assert.ok(shown.length > 0);
  for (const s of shown) assert.equal(total(s), ranged.find((r) => r['File Path'] === s.label).Count, s.label);
  assert.deepEqual(errors, []);
  await c.close();
});
