// Value columns right of the gold bar on the demo trace, driven by a real mouse: "Lifetime by
// Process, Image" shows one row per image of explorer.exe with its Load Time, Unload Time, Image
// Size, File Version and Image Path, sorted by File Version; changing an aggregation from the
// header menu regroups. Expected values are `etlscope export` rows (its grouping by whole keys,
// not the API's tree), compared with the raw values the cells carry (data-value).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const BIN = binary();
const EXPLORER = 'explorer.exe (6148)';
const VALUES = ['Load Time', 'Unload Time', 'Image Size', 'File Version', 'Image Path'];
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** `etlscope export DEMO --table images ... --format json` rows. @param {string[]} args @returns {any[]} */
function exportRows(args) {
  const r = spawnSync(BIN, ['export', DEMO, '--table', 'images', '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** A value as its cell carries it. @param {any} v */
const raw = (v) => (v === null || v === undefined ? '' : String(v));

/** Header names right of the gold bar. @param {import('playwright-core').Page} p */
const valueHeaders = (p) => p.$$eval('[data-testid=table] thead th', (ths) => {
  const cols = ths.map((t) => t.getAttribute('data-col'));
  return cols.slice(cols.indexOf('|') + 1).filter(Boolean);
});

/** Cells of the rows at `depth`: {label, values: {col: data-value}, text: {col: text}}. */
const rowsAt = (/** @type {import('playwright-core').Page} */ p, /** @type {number} */ depth) => p.$$eval(`[data-testid=table] tbody tr[data-depth="${depth}"]`, (trs) => {
  const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
  return trs.map((tr) => {
    const tds = [...tr.children];
    /** @type {Record<string, string>} */ const values = {};
    /** @type {Record<string, string>} */ const text = {};
    cols.forEach((c, i) => { if (c && tds[i] && tds[i].hasAttribute('data-value')) { values[c] = tds[i].getAttribute('data-value'); text[c] = tds[i].textContent; } });
    const label = tr.querySelector('td.label .txt');
    return { label: label ? label.textContent : '', values, text };
  });
});

test('Lifetime by Process, Image: one row per image with its values, as etlscope export has them', async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.selectOption('[data-testid=preset]', { label: 'Lifetime by Process, Image' });
  await p.waitForURL(/t=images/);
  await waitTable(p);
  assert.deepEqual(await valueHeaders(p), VALUES);
  await p.click(`[data-testid=table] tr[data-path="${EXPLORER}"] .tog`);
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
  const shown = await rowsAt(p, 1);
  const want = exportRows(['--group', 'Process,Image Name', '--values', VALUES.join(','), '--filter', `Process=${EXPLORER}`]);
  assert.equal(shown.length, want.length);
  assert.equal(shown.length, 370);
  for (const r of shown) {
    const e = want.find((w) => w['Image Name'] === r.label);
    assert.ok(e, r.label);
    for (const v of VALUES) assert.equal(r.values[v], raw(e[v]), `${r.label} ${v}`);
    // The full path is readable in its cell, without expanding anything.
    assert.equal(r.text['Image Path'], e['Image Path']);
  }
  // Sorted by File Version: the 11 unversioned images first.
  const unversioned = shown.findIndex((r) => r.values['File Version'] !== '');
  assert.equal(unversioned, 11);
  assert.equal(want.filter((w) => w['File Version'] === '').length, 11);
  // The process row is the aggregate of its images: the earliest load, the summed sizes.
  const top = (await rowsAt(p, 0)).find((r) => r.label === EXPLORER);
  const sizes = want.reduce((a, w) => a + w['Image Size'], 0);
  assert.equal(top.values['Image Size'], String(sizes));
  const loads = want.map((w) => w['Load Time']).filter((x) => x !== null);
  assert.equal(top.values['Load Time'], loads.length ? String(Math.min(...loads)) : '');

  // Image Size -> Max from the header menu: the process row shows its largest image.
  await p.click('[data-testid=table] th[data-col="Image Size"] [data-testid=agg-menu]');
  await p.click('[data-testid=context-menu] .ctx-item:text-is("Max")');
  await p.waitForSelector('[data-testid=table] th[data-col="Image Size:max"]');
  await waitTable(p);
  const maxes = exportRows(['--group', 'Process', '--values', 'Image Size:max', '--filter', `Process=${EXPLORER}`]);
  const top2 = (await rowsAt(p, 0)).find((r) => r.label === EXPLORER);
  assert.equal(top2.values['Image Size:max'], String(maxes[0]['Image Size:max']));
  assert.equal(Math.max(...want.map((w) => w['Image Size'])), maxes[0]['Image Size:max']);
  assert.match(p.url(), /Image(\+|%20)Size(:|%3A)max/);
  assert.deepEqual(errors, []);
  await c.close();
});

/** Drag a header by real mouse moves to the left edge of another header, or with `after` to the right end of it. */
async function dragHeader(/** @type {import('playwright-core').Page} */ p, /** @type {string} */ col, /** @type {string} */ before, after = false) {
  const from = await p.locator(`[data-testid=table] th[data-col="${col}"]`).boundingBox();
  const to = await p.locator(`[data-testid=table] th[data-col="${before}"]`).boundingBox();
  await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await p.mouse.down();
  await p.mouse.move(from.x + from.width / 2 + 10, from.y + 8, { steps: 3 });
  await p.mouse.move(after ? to.x + to.width - 20 : to.x + 2, to.y + to.height / 2, { steps: 12 });
  await p.mouse.up();
}

test('a key column dragged across the gold bar becomes a value and back, totals unchanged', async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.selectOption('[data-testid=preset]', { label: 'Lifetime by Process, Image' });
  await p.waitForURL(/t=images/);
  await waitTable(p);
  const total = () => p.$eval('[data-testid=table-status]', (e) => Number(e.getAttribute('data-total')));
  const explorer = async () => (await rowsAt(p, 0)).find((r) => r.label === EXPLORER);
  const want = exportRows(['--group', 'Process', '--values', 'Image Size,Image Name', '--filter', `Process=${EXPLORER}`])[0];
  const before = await total();
  assert.equal((await explorer()).values['Image Size'], String(want['Image Size']));
  // Image Name to the value side: explorer's row shows how many image names it has.
  await dragHeader(p, 'Image Name', 'Unload Time');
  const grouped = (/** @type {string} */ g) => p.waitForFunction((x) => new URLSearchParams(location.search).get('g') === x, g);
  await grouped('Process');
  await waitTable(p);
  assert.deepEqual(await valueHeaders(p), ['Load Time', 'Image Name', 'Unload Time', 'Image Size', 'File Version', 'Image Path']);
  assert.equal(await total(), before);
  const asValue = await explorer();
  assert.equal(asValue.values['Image Name'], String(want['Image Name']));
  assert.equal(asValue.text['Image Name'], `${want['Image Name']} values`);
  assert.equal(asValue.values['Image Size'], String(want['Image Size']));
  // ...and back left of the gold bar: grouped by it again.
  await dragHeader(p, 'Image Name', 'Process', true);
  await grouped('Process,Image Name');
  await waitTable(p);
  assert.equal(await total(), before);
  assert.equal((await explorer()).values['Image Size'], String(want['Image Size']));
  assert.deepEqual(errors, []);
  await c.close();
});

/** `etlscope export DEMO --table cpu-sampled ... --format json` rows. @param {string[]} args @returns {any[]} */
function sampledRows(args) {
  const r = spawnSync(BIN, ['export', DEMO, '--table', 'cpu-sampled', '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('CPU Usage (Sampled) by Process with Thread ID (Unique Count) and Time (Min): a fold of export rows per thread', async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?t=cpu-sampled&g=Process&c=Count,Thread+ID,Time&s=Count`);
  await waitTable(p);
  assert.deepEqual(await valueHeaders(p), ['Count', 'Thread ID', 'Time']);
  // Thread ID -> Unique Count from its header menu.
  await p.click('[data-testid=table] th[data-col="Thread ID"] [data-testid=agg-menu]');
  await p.click('[data-testid=context-menu] .ctx-item:text-is("Unique Count")');
  await p.waitForSelector('[data-testid=table] th[data-col="Thread ID:unique"]');
  await waitTable(p);
  assert.match(p.url(), /Thread(\+|%20)ID(:|%3A)unique/);
  // One export row per process and thread: a process has as many threads as rows, its first
  // sample is the earliest of theirs, its count their sum.
  const per = sampledRows(['--group', 'Process,Thread ID', '--values', 'Count,Time']);
  /** @type {Map<string, {threads: number, first: number, count: number}>} */
  const want = new Map();
  for (const r of per) {
    const w = want.get(r.Process) || { threads: 0, first: Infinity, count: 0 };
    want.set(r.Process, { threads: w.threads + 1, first: Math.min(w.first, r.Time), count: w.count + r.Count });
  }
  const shown = await rowsAt(p, 0);
  assert.ok(shown.length >= 5, `${shown.length} rows`);
  assert.equal(shown.length, want.size);
  for (const r of shown) {
    const w = want.get(r.label);
    assert.ok(w, r.label);
    assert.equal(r.values['Thread ID:unique'], String(w.threads), `${r.label} threads`);
    assert.equal(r.values.Time, String(w.first), `${r.label} first sample`);
  }
  const explorer = shown.find((r) => r.label === EXPLORER);
  assert.ok(Number(explorer.values['Thread ID:unique']) > 1);
  assert.deepEqual(errors, []);
  await c.close();
});
