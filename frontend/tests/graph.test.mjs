// The graph above each table (table-graph.js), driven by real mouse clicks. Processes on a real
// kernel trace (shutdown-perfdiag-kernel.etl): one Gantt bar per table row, each spanning the row's
// Start/End Time as `etlscope export` prints them; clicking a row highlights its bar (the canvas
// model and the pixel), clicking a bar selects its row. The demo trace's CPU Usage (Sampled):
// the series are the table's top rows, their per-bin values add up to export's weights; the
// legend hides and isolates; hovering shows time and value.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { realTraces, buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const traces = realTraces();
const kernel = () => path.join(/** @type {string} */ (traces), 'shutdown-perfdiag-kernel.etl');
const demo = path.join(repoRoot, 'traces/explorer-overlay.etl');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
const HIGHLIGHT = [30, 90, 200]; // table-graph.js HIGHLIGHT, #1e5ac8

before(async () => {
  buildRelease();
  srv = await startServer(traces ? [demo, kernel()] : [demo]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** The id of the served trace called `name`. @param {string} name */
async function idOf(name) {
  const list = await (await fetch(`${srv.url}/api/traces`)).json();
  const e = list.traces.find((/** @type {any} */ t) => t.name === name);
  assert.ok(e, name);
  return e.id;
}

/** @param {import('playwright-core').Page} p */
const waitGraph = (p) => p.waitForSelector('[data-testid=table-graph][data-state=ready]');
/** @param {import('playwright-core').Page} p */
const model = (p) => p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);

/** The kernel trace's Processes preset, its table and its Gantt graph drawn. @param {import('playwright-core').Page} p */
async function openProcesses(p) {
  await p.goto(`${srv.url}/t/${await idOf('shutdown-perfdiag-kernel.etl')}`);
  await waitTable(p);
  await p.selectOption('[data-testid=preset]', { label: 'Processes' });
  await p.waitForURL(/t=processes/);
  await waitTable(p);
  await waitGraph(p);
}

/** The canvas pixel at CSS point (x, y) of the graph canvas. @param {import('playwright-core').Page} p @param {number} x @param {number} y */
const pixel = (p, x, y) => p.$eval('[data-testid=graph-canvas]', (c, [px, py]) => {
  const cv = /** @type {HTMLCanvasElement} */ (c);
  const d = window.devicePixelRatio || 1;
  return [...(/** @type {CanvasRenderingContext2D} */ (cv.getContext('2d'))).getImageData(Math.floor(px * d), Math.floor(py * d), 1, 1).data].slice(0, 3);
}, [x, y]);

test('Processes: a Gantt bar per row spanning its Start/End Time; a row click highlights its bar, a bar click selects its row', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await openProcesses(p);
  const want = exportRows(kernel(), ['--table', 'processes', '--group', 'Process', '--values', 'Start Time,End Time']);
  const rows = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => trs.map((tr) => tr.getAttribute('data-path')));
  const m = await model(p);
  assert.equal(m.kind, 'spans');
  assert.equal(rows.length, want.length);
  // One bar per row, in the table's order.
  assert.deepEqual(m.bars.map((/** @type {any} */ b) => b.label), rows);
  const close = (/** @type {number|null} */ a, /** @type {number|null} */ b) => (a === null || b === null ? a === b : Math.abs(a - b) < 1e-6);
  for (const b of m.bars) {
    const e = want.find((w) => w.Process === b.label);
    assert.ok(e, b.label);
    assert.ok(close(b.start_s, e['Start Time']), `${b.label} start ${b.start_s} vs ${e['Start Time']}`);
    assert.ok(close(b.end_s, e['End Time']), `${b.label} end ${b.end_s} vs ${e['End Time']}`);
    // Drawn where its times are (open ends at the window's edges).
    const W = await p.$eval('[data-testid=graph-canvas]', (cv) => cv.clientWidth);
    const [a, z] = m.view;
    const x = (/** @type {number} */ t) => ((t - a) / (z - a)) * W;
    if (b.start_s !== null) assert.ok(Math.abs(b.x0 - Math.max(0, x(b.start_s))) < 0.01, `${b.label} x0`);
    if (b.end_s !== null && x(b.end_s) > b.x0 + 2) assert.ok(Math.abs(b.x1 - Math.min(W, x(b.end_s))) < 0.01, `${b.label} x1`);
  }
  assert.ok(m.bars.every((/** @type {any} */ b) => !b.lit));
  // Click a row: its bar turns the highlight colour.
  const pick = Math.min(5, rows.length - 1);
  await p.locator('[data-testid=table] tbody tr[data-depth="0"]').nth(pick).click();
  await p.waitForFunction((l) => document.querySelector('[data-testid=table-graph]')?.getAttribute('data-highlight') === l, rows[pick]);
  const lit = (await model(p)).bars.filter((/** @type {any} */ b) => b.lit);
  assert.deepEqual(lit.map((/** @type {any} */ b) => b.label), [rows[pick]]);
  const bar = lit[0];
  assert.deepEqual(await pixel(p, (bar.x0 + bar.x1) / 2, (bar.y0 + bar.y1) / 2), HIGHLIGHT);
  // Another bar, not highlighted, has its own colour.
  const other = (await model(p)).bars.find((/** @type {any} */ b) => !b.lit);
  assert.notDeepEqual(await pixel(p, (other.x0 + other.x1) / 2, (other.y0 + other.y1) / 2), HIGHLIGHT);
  // Click a bar: its row is selected (and the bar highlighted).
  const box = await p.locator('[data-testid=graph-canvas]').boundingBox();
  const target = (await model(p)).bars[Math.min(2, rows.length - 1)];
  await p.mouse.click(box.x + (target.x0 + target.x1) / 2, box.y + (target.y0 + target.y1) / 2);
  await p.waitForFunction((l) => document.querySelector('[data-testid=table] tr.sel')?.getAttribute('data-path') === l, target.label);
  await p.waitForFunction((l) => document.querySelector('[data-testid=table-graph]')?.getAttribute('data-highlight') === l, target.label);
  assert.match(p.url(), /[?&]sel=/);
  // Hovering a bar shows its name and lifetime.
  await p.mouse.move(box.x + (target.x0 + target.x1) / 2, box.y + (target.y0 + target.y1) / 2 + 0.1);
  const tip = await p.textContent('[data-testid=graph-tip]');
  assert.ok(tip.startsWith(target.label), tip);
  assert.deepEqual(errors, []);
  await c.close();
});

test('Processes: every Gantt bar is a readable row (13 px or more) with its name drawn, and the graph scrolls rather than squeezing them', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  // Every text the canvas draws, to check that each bar's name is among them.
  await p.addInitScript(() => {
    const w = /** @type {any} */ (window);
    w.__drawn = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) { w.__drawn.push(String(text)); return fill.call(this, text, ...rest); };
  });
  await p.setViewportSize({ width: 1366, height: 768 });
  await openProcesses(p);
  const m = await model(p);
  assert.equal(m.kind, 'spans');
  assert.ok(m.bars.length >= 40, `${m.bars.length} bars: too few to need scrolling`);
  const thin = m.bars.filter((/** @type {any} */ b) => b.y1 - b.y0 < 12);
  assert.deepEqual(thin.map((/** @type {any} */ b) => `${b.label}: ${(b.y1 - b.y0).toFixed(1)} px`), [], 'bars under 12 px');
  const drawn = new Set(await p.evaluate(() => /** @type {any} */ (window).__drawn));
  const unnamed = m.bars.filter((/** @type {any} */ b) => !drawn.has(b.label || '(none)'));
  assert.deepEqual(unnamed.map((/** @type {any} */ b) => b.label), [], 'bars drawn without their name');
  // The rows do not fit the graph's box: the canvas is taller and its box scrolls to the last one.
  const fit = await p.$eval('[data-testid=graph-canvas]', (cv) => ({ canvas: cv.clientHeight, box: /** @type {HTMLElement} */ (cv.parentElement).clientHeight, scroll: /** @type {HTMLElement} */ (cv.parentElement).scrollHeight }));
  const last = m.bars[m.bars.length - 1];
  assert.ok(fit.canvas >= last.y1 && fit.scroll > fit.box, JSON.stringify({ ...fit, lastBarEnds: last.y1 }));
  assert.deepEqual(errors, []);
  await c.close();
});

test('CPU Usage (Sampled): series are the top rows, bins add up to export; legend hides and isolates; hover shows time and value', async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${await idOf('explorer-overlay.etl')}?r=7-23`);
  await waitTable(p);
  await waitGraph(p);
  const m = await model(p);
  assert.equal(m.kind, 'series');
  const rows = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => trs.map((tr) => tr.getAttribute('data-path')));
  const named = m.series.filter((/** @type {any} */ s) => !s.ref.startsWith('\u0000'));
  assert.deepEqual(named.map((/** @type {any} */ s) => s.label), rows.slice(0, named.length));
  const want = exportRows(demo, ['--table', 'cpu-sampled', '--range', '7-23', '--group', 'Process']);
  for (const s of named) {
    const e = want.find((w) => w.Process === s.label);
    const sum = s.values.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0);
    assert.ok(Math.abs(sum - e.Weight * 1000) < 1e-6, `${s.label}: ${sum} ms vs ${e.Weight} s`);
  }
  const all = m.series.reduce((/** @type {number} */ a, /** @type {any} */ s) => a + s.values.reduce((/** @type {number} */ x, /** @type {number} */ y) => x + y, 0), 0);
  const total = want.reduce((a, w) => a + w.Weight, 0) * 1000;
  assert.ok(Math.abs(all - total) < 1e-6, `${all} vs ${total}`);
  // Legend: click hides, click shows, Alt-click isolates, Alt-click again shows all.
  const first = named[0].ref;
  const entry = p.locator(`[data-testid=graph-legend] .lg[data-ref="${first}"]`);
  const hidden = async () => (await model(p)).series.filter((/** @type {any} */ s) => s.hidden).map((/** @type {any} */ s) => s.ref);
  await entry.click();
  assert.deepEqual(await hidden(), [first]);
  assert.equal(await p.locator('[data-testid=graph-legend] .lg.off').count(), 1);
  await p.locator(`[data-testid=graph-legend] .lg[data-ref="${first}"]`).click();
  assert.deepEqual(await hidden(), []);
  await p.locator(`[data-testid=graph-legend] .lg[data-ref="${first}"]`).click({ modifiers: ['Alt'] });
  assert.deepEqual(await hidden(), m.series.map((/** @type {any} */ s) => s.ref).filter((/** @type {string} */ r) => r !== first));
  await p.locator(`[data-testid=graph-legend] .lg[data-ref="${first}"]`).click({ modifiers: ['Control'] });
  assert.deepEqual(await hidden(), []);
  // Hover the middle of the canvas's bottom row: the tooltip names a series, its bin and value.
  const box = await p.locator('[data-testid=graph-canvas]').boundingBox();
  await p.mouse.move(box.x + box.width / 2, box.y + box.height - 18);
  await p.waitForSelector('[data-testid=graph-tip]', { state: 'visible' });
  const tip = await p.textContent('[data-testid=graph-tip]');
  assert.match(tip, /explorer\.exe \(6148\)\d+\.\d{6} s – \d+\.\d{6} s[\d,.]+ ms/);
  // Selecting the row highlights its series; clicking the series selects the row.
  await p.locator('[data-testid=table] tbody tr[data-depth="0"]').nth(1).click();
  await p.waitForFunction((r) => document.querySelector('[data-testid=table-graph]')?.getAttribute('data-highlight') === r, named[1].ref);
  await p.mouse.click(box.x + box.width / 2, box.y + box.height - 18);
  await p.waitForFunction(() => document.querySelector('[data-testid=table] tr.sel')?.getAttribute('data-path') === 'explorer.exe (6148)');
  // Expanding a row: the graph shows its children, which add up to it per bin.
  await p.locator('[data-testid=table] tbody tr[data-depth="0"]').first().dblclick();
  await p.waitForFunction(() => /** @type {any} */ (document.querySelector('[data-testid=table-graph]'))?.__graph?.series?.every((/** @type {any} */ s) => s.label !== 'explorer.exe (6148)'));
  await waitGraph(p);
  const kids = await model(p);
  const kidSum = kids.series.reduce((/** @type {number} */ a, /** @type {any} */ s) => a + s.values.reduce((/** @type {number} */ x, /** @type {number} */ y) => x + y, 0), 0);
  assert.ok(Math.abs(kidSum - want[0].Weight * 1000) < 1e-6, `${kidSum}`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('File I/O: the graph counts rows per bin (export counts); a series keeps its colour when the range changes', async () => {
  const { p, c, errors } = await openPage(browser);
  const id = await idOf('explorer-overlay.etl');
  await p.goto(`${srv.url}/t/${id}?t=file-io&g=${encodeURIComponent('Type,File Path')}`);
  await waitTable(p);
  await waitGraph(p);
  assert.equal(await p.$eval('[data-testid=graph-measure]', (e) => /** @type {HTMLSelectElement} */ (e).value), 'count');
  const m = await model(p);
  const want = exportRows(demo, ['--table', 'file-io', '--group', 'Type']);
  assert.equal(m.series.length, want.length);
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === w.Type);
    assert.equal(s.values.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0), w.Count, w.Type);
  }
  // Another measure: the graph asks again and says what it plots.
  await p.selectOption('[data-testid=graph-measure]', 'Size');
  await p.waitForFunction(() => /^Size /.test(document.querySelector('[data-testid=table-graph] .tg-title')?.textContent || ''));
  // CPU Usage (Sampled): colours stay with their rows when the range (and so the order) changes.
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await waitGraph(p);
  const before = new Map((await model(p)).series.map((/** @type {any} */ s) => [s.ref, s.colour]));
  await p.fill('[data-testid=range-input]', '7-23');
  await p.press('[data-testid=range-input]', 'Enter');
  await p.waitForURL(/[?&]r=/);
  await waitTable(p);
  await waitGraph(p);
  const after = (await model(p)).series;
  assert.notDeepEqual(after.map((/** @type {any} */ s) => s.ref), [...before.keys()], 'the order changes with the range');
  for (const s of after) if (before.has(s.ref)) assert.equal(s.colour, before.get(s.ref), s.label);
  assert.deepEqual(errors, []);
  await c.close();
});

test('File I/O: the graph comes with the table\'s answer, and a regroup that keeps its level (or returns to one seen) asks nothing', async () => {
  const { p, c, errors } = await openPage(browser);
  const id = await idOf('explorer-overlay.etl');
  /** @type {{what: string, graph: boolean}[]} */
  const asked = [];
  p.on('request', (r) => {
    const m = /\/api\/traces\/[^/]+\/(table|graph)$/.exec(r.url());
    if (m) asked.push({ what: m[1], graph: m[1] === 'table' && 'graph' in JSON.parse(r.postData() || '{}') });
  });
  const load = () => p.$eval('[data-testid=table-graph]', (e) => Number(e.getAttribute('data-load')));
  const labels = async () => (await model(p)).series.map((/** @type {any} */ s) => s.label);
  /** Drag header `col` to the left edge of `to`; wait for the keys `keys` and a newer graph. @param {string} col @param {string} to @param {string[]} keys */
  const drag = async (col, to, keys) => {
    const n = await load();
    asked.length = 0;
    const a = await p.locator(`[data-testid=table] th[data-col="${col}"]`).boundingBox();
    const b = await p.locator(`[data-testid=table] th[data-col="${to}"]`).boundingBox();
    await p.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await p.mouse.down();
    await p.mouse.move(a.x + a.width / 2 + 10, a.y + 8, { steps: 3 });
    await p.mouse.move(b.x + 2, b.y + b.height / 2, { steps: 12 });
    await p.mouse.up();
    await p.waitForFunction((k) => [...document.querySelectorAll('[data-testid=table] th.key')].map((x) => x.getAttribute('data-col')).join(',') === k, keys.join(','));
    await waitTable(p);
    await p.waitForFunction((x) => { const g = document.querySelector('[data-testid=table-graph]'); return !!g && g.getAttribute('data-state') === 'ready' && Number(g.getAttribute('data-load')) > x; }, n);
  };
  await p.goto(`${srv.url}/t/${id}?t=file-io&g=${encodeURIComponent('Type,File Path')}&c=Count`);
  await waitTable(p);
  await waitGraph(p);
  const byType = await labels();
  assert.ok(byType.length > 0);
  // The table's own request brought the graph of its top level: no /graph.
  assert.deepEqual(asked.filter((x) => x.what === 'graph'), []);
  assert.ok(asked.some((x) => x.graph), 'the /table request carries graph');
  // File Path to the value side and back: the graph's level (Type) is the same: nothing asked for it.
  await drag('File Path', 'Count', ['Type']);
  assert.deepEqual(asked.filter((x) => x.what === 'graph' || x.graph), []);
  assert.deepEqual(await labels(), byType);
  await drag('File Path', '|', ['Type', 'File Path']);
  assert.deepEqual(asked.filter((x) => x.what === 'graph' || x.graph), []);
  // File Path first: a new level of few paths, binned with the table (no /graph).
  await drag('File Path', 'Type', ['File Path', 'Type']);
  assert.deepEqual(asked.filter((x) => x.what === 'graph'), []);
  assert.ok(asked.some((x) => x.graph));
  const paths = exportRows(demo, ['--table', 'file-io', '--group', 'File Path']).map((r) => r['File Path']);
  for (const l of await labels()) assert.ok(paths.includes(l), l);
  // Back to Type first: a level the page has seen.
  await drag('Type', 'File Path', ['Type', 'File Path']);
  assert.deepEqual(asked.filter((x) => x.what === 'graph' || x.graph), []);
  assert.deepEqual(await labels(), byType);
  assert.deepEqual(errors, []);
  await c.close();
});

test('a process has one colour: the same on the CPU timeline and in the table graph', async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${await idOf('explorer-overlay.etl')}?v=2&t=cpu-sampled&g=Process,Stack&c=Count,Weight (ms),% Weight&s=Weight (ms)`);
  await waitTable(p);
  await p.waitForSelector('[data-testid=table-graph][data-state=ready] .lg');
  await p.waitForSelector('.timeline .legend .lg');
  const colours = (/** @type {string} */ sel) => p.$$eval(`${sel} .lg`, (x) => Object.fromEntries(x.map((e) => [e.querySelector('.lg-t')?.textContent, /** @type {HTMLElement} */ (e.querySelector('.sw')).style.background])));
  const tl = await colours('.timeline .legend');
  const graph = await colours('[data-testid=table-graph]');
  for (const proc of ['explorer.exe (6148)', 'Idle (0)', 'msedge.exe (9412)']) {
    assert.ok(tl[proc], `${proc} on the timeline`);
    assert.equal(tl[proc], graph[proc], `${proc}: timeline ${tl[proc]}, table graph ${graph[proc]}`);
  }
  assert.deepEqual(errors, []);
  await c.close();
});
