// Rows below the top level, in three tables of the demo trace: one row one, two and three levels
// down, each with Count, % Weight and a value column. Expected numbers are computed
// here from `etlscope export --rows` (one line per sample, I/O or image, nothing grouped): the test
// groups, sums and divides itself, so a bug in the grouping, in a child's percentage (its share
// of the parent instead of the whole) or in the tree the page builds shows as a wrong number.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const EXPLORER = 'explorer.exe (6148)';
const SEP = ' › ';
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** A string inside a CSS attribute selector's quotes. @param {string} s */
const css = (s) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');

/** A number as a cell shows it (`1,234.56`). @param {string} s */
const num = (s) => Number(s.replace(/,/g, ''));

/** A key cell's label as the rows of `export --rows` spell it. @param {any} v */
const label = (v) => (v === null || v === undefined ? '' : String(v));

/**
 * The rows whose keys start with `path`, summed: count, and the sum of each `cols` field.
 * @param {any[]} rows @param {string[]} keys @param {string[]} path @param {string[]} cols
 */
function sumUnder(rows, keys, path, cols) {
  const out = { count: 0, /** @type {Record<string, number>} */ sums: Object.fromEntries(cols.map((c) => [c, 0])) };
  for (const r of rows) {
    if (!path.every((p, i) => label(r[keys[i]]) === p)) continue;
    out.count += 1;
    for (const c of cols) out.sums[c] += Number(r[c] ?? 0);
  }
  return out;
}

/** The rows whose keys start with `path`. @param {any[]} rows @param {string[]} keys @param {string[]} path */
const under = (rows, keys, path) => rows.filter((r) => path.every((p, i) => label(r[keys[i]]) === p));

/** The children labels of `path` (the next key's distinct values), heaviest first by `by`. */
function childrenOf(/** @type {any[]} */ rows, /** @type {string[]} */ keys, /** @type {string[]} */ path, /** @type {string} */ by) {
  const m = new Map();
  for (const r of rows) {
    if (!path.every((p, i) => label(r[keys[i]]) === p)) continue;
    const k = label(r[keys[path.length]]);
    m.set(k, (m.get(k) || 0) + (by === 'Count' ? 1 : Number(r[by] ?? 0)));
  }
  return [...m.entries()].sort((a, b) => b[1] - a[1]).map((e) => e[0]);
}

/** Expand the row at `path` (its toggle) and wait for its children. @param {import('playwright-core').Page} p @param {string[]} path */
async function expand(p, path) {
  const sel = `[data-testid=table] tr[data-path="${css(path.join(SEP))}"]`;
  await p.click(`${sel} .tog`);
  await p.waitForFunction((d) => document.querySelectorAll(`[data-testid=table] tbody tr[data-depth="${d}"]`).length > 0, path.length);
  await waitTable(p);
}

/** The cells of the row at `path` by column header: {Count: text, ...}. */
function cellsAt(/** @type {import('playwright-core').Page} */ p, /** @type {string[]} */ path) {
  return p.$eval(`[data-testid=table] tr[data-path="${css(path.join(SEP))}"]`, (tr) => {
    const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
    /** @type {Record<string, string>} */ const cells = {};
    [...tr.children].forEach((td, i) => { const c = cols[i]; if (c && c !== '|') cells[c] = td.getAttribute('data-value') ?? td.textContent ?? ''; });
    return { depth: Number(tr.getAttribute('data-depth')), cells };
  });
}

/** Assert a shown number equals the expected one to the cell's precision. */
function near(/** @type {number} */ shown, /** @type {number} */ want, /** @type {number} */ eps, /** @type {string} */ what) {
  assert.ok(Math.abs(shown - want) <= eps, `${what}: page shows ${shown}, the export rows give ${want}`);
}

/**
 * Open `query`, expand down `levels` rows of the heaviest children starting at `top`, and check the
 * rows two and three levels down against `rows`.
 * @param {{query: string, keys: string[], rows: any[], top: string, by: string, percentOf?: number,
 *   weight?: {col: string, field: string, scale: number}, value?: {col: string, field: string, agg: 'sum'|'min'}}} o
 */
async function checkDeepRows(o) {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?${o.query}`);
  await waitTable(p);
  /** @type {string[]} */ const path = [o.top];
  const checked = [];
  for (let level = 1; level <= 3; level++) {
    await expand(p, path);
    const child = childrenOf(o.rows, o.keys, path, o.by)[0];
    assert.ok(child !== undefined, `no child under ${path.join(SEP)}`);
    path.push(child);
    const { depth, cells } = await cellsAt(p, path);
    assert.equal(depth, level, `${path.join(SEP)} ${JSON.stringify(cells)}`);
    const want = sumUnder(o.rows, o.keys, path, o.weight ? [o.weight.field] : []);
    const what = `${path.join(SEP)}`;
    assert.equal(num(cells.Count), want.count, `${what} Count ${JSON.stringify(cells)}`);
    const weight = o.weight ? want.sums[o.weight.field] : want.count;
    // % Weight is the row's share of the whole (range x CPUs, or every row's weight), never of its parent.
    if (o.percentOf !== undefined) near(num(cells['% Weight']), (100 * weight) / o.percentOf, 0.006, `${what} % Weight`);
    if (o.weight) near(num(cells[o.weight.col]), weight * o.weight.scale, 0.006, `${what} ${o.weight.col}`);
    if (o.value) {
      const vs = under(o.rows, o.keys, path).map((r) => Number(r[o.value.field]));
      const agg = o.value.agg === 'min' ? Math.min(...vs) : vs.reduce((a, b) => a + b, 0);
      near(Number(cells[o.value.col]), agg, 1e-9 * Math.max(1, Math.abs(agg)), `${what} ${o.value.col} (${o.value.agg})`);
    }
    checked.push({ path: what, depth, count: want.count });
  }
  assert.deepEqual(errors, []);
  await c.close();
  return checked;
}

test('CPU Usage (Sampled), Process › Thread ID › CPU › Module over 7-23 s: rows two and three levels down', async () => {
  const rows = exportRows(DEMO, ['--table', 'cpu-sampled', '--rows', '--range', '7-23']);
  const keys = ['Process', 'Thread ID', 'CPU', 'Module'];
  const checked = await checkDeepRows({
    query: `v=2&t=cpu-sampled&g=${keys.join(',')}&c=Count,Weight (ms),% Weight&s=Weight (ms)&r=7-23`,
    keys, rows, top: EXPLORER, by: 'Weight',
    // The demo was recorded on 4 CPUs (README): the range offers 16 s x 4.
    percentOf: 16 * 4,
    weight: { col: 'Weight (ms)', field: 'Weight', scale: 1000 },
  });
  // explorer.exe's heaviest thread, 1448, is 13,032 ms of 64,000 (20.36 %), not its share of explorer.exe.
  const t1448 = sumUnder(rows, keys, [EXPLORER, '1448'], ['Weight']);
  assert.equal(Math.round(t1448.sums.Weight * 1000), 13032);
  assert.equal(checked[0].path, `${EXPLORER}${SEP}1448`);
  assert.deepEqual(checked.map((x) => x.depth), [1, 2, 3]);
});

test('File I/O, Type › Process › Thread › File Path: rows two and three levels down', async () => {
  // The demo's File I/O rows are creates with no size or duration (no real trace we have holds
  // reads or writes): % Weight is then each row's share of the count, and the value column is
  // Start Time (Min). Sizes and durations are pinned by the writer's traces (http_event_tables.rs).
  const rows = exportRows(DEMO, ['--table', 'file-io', '--rows']);
  assert.equal(rows.reduce((a, r) => a + Number(r.Duration ?? 0), 0), 0);
  const keys = ['Type', 'Process', 'Thread', 'File Path'];
  await checkDeepRows({
    query: `v=2&t=file-io&g=${keys.join(',')}&c=Count,% Weight,Start Time&s=Count`,
    keys, rows, top: 'Create', by: 'Count',
    percentOf: rows.length,
    value: { col: 'Start Time', field: 'Start Time', agg: 'min' },
  });
});

test('Images (a lifetime table), Process › Company Name › File Version › Image Name: rows two and three levels down, Count and Image Size', async () => {
  const rows = exportRows(DEMO, ['--table', 'images', '--rows']);
  const keys = ['Process', 'Company Name', 'File Version', 'Image Name'];
  await checkDeepRows({
    query: `v=2&t=images&g=${keys.join(',')}&c=Count,Image Size,% Weight&s=Count`,
    keys, rows, top: EXPLORER, by: 'Count',
    // A table without a weight shows no % column (as in WPA's Images table).
    value: { col: 'Image Size', field: 'Image Size', agg: 'sum' },
  });
});
