// Tables users can work in, on the demo trace with real mouse and keyboard: multi-select with
// the selection's sums, Ctrl+C as tab-separated text, find in table, column widths, all-zero
// columns hidden, and the view downloaded as CSV/TSV. Expected values come from `etlscope
// export` (the CLI's code path) or from hand-derived figures, never from the page's /api answers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { clipboardWhen, launch, newPage as openPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';
import { exportRows, exportPrefixCount, groupedFrame } from './export.mjs';

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

const newPage = () => openPage(browser, { clipboard: true });
/** @param {string} q */
const open = async (/** @type {import('playwright-core').Page} */ p, q) => { await p.goto(`${srv.url}/t/${srv.ids[0]}?${q}`); await waitTable(p); };
const topRow = (/** @type {number} */ i) => `[data-testid=table] tbody tr[data-depth="0"] >> nth=${i}`;

/** `etlscope export DEMO ARGS` as it prints them (csv or tsv). @param {string[]} args */
function exportText(args) {
  const r = spawnSync(binary(), ['export', DEMO, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

const close = (/** @type {number} */ a, /** @type {number} */ b, eps = 1e-6) => Math.abs(a - b) <= eps * Math.max(1, Math.abs(b));

test('three rows selected by click and Shift+click: their sums shown, Ctrl+C copies them as TSV with a header', async () => {
  const { p, c, errors } = await newPage();
  await open(p, 'v=2&t=cpu-sampled&g=Process&c=Count,Weight (ms),% Weight&s=Weight (ms)&r=7-23');
  const want = exportRows(DEMO, ['--table', 'cpu-sampled', '--range', '7-23', '--group', 'Process', '--sort', 'Weight:desc']);
  await p.click(topRow(0));
  await p.click(topRow(2), { modifiers: ['Shift'] });
  await p.waitForSelector('[data-testid=selection-sum][data-rows="3"]');
  const sums = JSON.parse(await p.$eval('[data-testid=selection-sum]', (e) => e.getAttribute('data-sums') || '{}'));
  const three = want.slice(0, 3);
  assert.equal(sums.Count, three.reduce((a, r) => a + r.Count, 0));
  assert.ok(close(sums['Weight (ms)'], three.reduce((a, r) => a + r.Weight * 1000, 0)), JSON.stringify(sums));
  assert.ok(close(sums['% Weight'], three.reduce((a, r) => a + r['% Weight'], 0)));

  await p.evaluate(() => navigator.clipboard.writeText(''));
  await p.keyboard.press('Control+C');
  const text = await clipboardWhen(p, (x) => x !== '');
  const lines = text.trimEnd().split('\n').map((l) => l.split('\t'));
  assert.deepEqual(lines[0], ['Process', 'Count', 'Weight (ms)', '% Weight']);
  assert.equal(lines.length, 4);
  lines.slice(1).forEach((cells, i) => {
    const w = three[i];
    assert.equal(cells[0], w.Process);
    assert.equal(Number(cells[1]), w.Count);
    assert.ok(close(Number(cells[2]), w.Weight * 1000), `${cells[2]} vs ${w.Weight}`);
    assert.ok(close(Number(cells[3]), w['% Weight']), `${cells[3]} vs ${w['% Weight']}`);
  });
  // explorer.exe: 42,300 samples of 1 ms in 16 s on 4 CPUs (README).
  assert.equal(lines[1][0], EXPLORER);
  assert.ok(close(Number(lines[1][3]), (100 * 42.3) / (16 * 4)));

  // The row menu copies the same selection.
  await p.evaluate(() => navigator.clipboard.writeText(''));
  await p.click(topRow(1), { button: 'right' });
  await p.click('[data-testid=context-menu] .ctx-item:has-text("Copy 3 selected rows")');
  assert.equal(await clipboardWhen(p, (x) => x !== ''), text);

  // Ctrl+click takes the second row out; Shift+ArrowDown from the anchor adds the next one.
  await p.click(topRow(1), { modifiers: ['Control'] });
  await p.waitForSelector('[data-testid=selection-sum][data-rows="2"]');
  await p.click(topRow(3));
  await p.keyboard.press('Shift+ArrowDown');
  await p.waitForSelector('[data-testid=selection-sum][data-rows="2"]');
  const sums2 = JSON.parse(await p.$eval('[data-testid=selection-sum]', (e) => e.getAttribute('data-sums') || '{}'));
  assert.equal(sums2.Count, want[3].Count + want[4].Count);
  assert.deepEqual(errors, []);
  await c.close();
});

test('filtered to explorer.exe over 7-23 s, its % Weight stays its share of 16 s x 4 CPUs', async () => {
  const { p, c, errors } = await newPage();
  await open(p, `v=2&t=cpu-sampled&g=Process&c=Count,Weight (ms),% Weight&s=Weight (ms)&r=7-23&f=Process=${encodeURIComponent(EXPLORER)}`);
  const rows = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, 1);
  // Cells: Process, gold bar, Count, Weight (ms), % Weight.
  assert.equal(rows[0][0].replace(/^[▸▾…]/, ''), EXPLORER);
  assert.equal(rows[0][2], '42,300');
  assert.equal(rows[0][4], ((100 * 42.3) / 64).toFixed(2));
  assert.deepEqual(errors, []);
  await c.close();
});

test('find in table (Ctrl+F) goes to the matching row, expanding the rows above it', async () => {
  const { p, c, errors } = await newPage();
  await open(p, 'v=2&t=cpu-sampled&g=Process,Stack&c=Count,Weight (ms),% Weight&s=Weight (ms)&r=7-23');
  // Load explorer's tree (`*` expands everything under it, bounded), then fold it away again.
  await p.click(`[data-testid=table] tr[data-path="${EXPLORER}"] td.label .txt`);
  await p.keyboard.press('*');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tbody tr').length > 100, null, { timeout: 60000 });
  await waitTable(p);
  await p.keyboard.press('ArrowLeft');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tbody tr[data-depth="1"]').length === 0);
  await p.keyboard.press('Control+F');
  await p.waitForSelector('[data-testid=find-input]:focus');
  await p.keyboard.type('CFSFolder::_GetOverlayInfo');
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => /_GetOverlayInfo/.test(document.querySelector('[data-testid=table] tr.sel')?.getAttribute('data-path') || ''));
  const selPath = await p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path'));
  const frames = selPath.split(' › ');
  assert.equal(frames[0], EXPLORER);
  assert.equal(frames[frames.length - 1], 'windows.storage.dll!CFSFolder::_GetOverlayInfo');
  // Its count is the export's: samples of explorer whose stack starts with this path.
  const count = await p.$eval('[data-testid=table] tr.sel', (tr) => tr.querySelectorAll('td.num')[0].textContent);
  const rows = exportRows(DEMO, ['--table', 'cpu-sampled', '--range', '7-23', '--group', 'Process,Stack']);
  assert.equal(Number(count.replace(/,/g, '')), exportPrefixCount(rows, EXPLORER, frames.slice(1)));
  assert.equal(Number(count.replace(/,/g, '')), 20191);
  // The row is on screen and the link selects it (by stable identities, one per level).
  assert.ok(await p.locator('[data-testid=table] tr.sel').isVisible());
  const sel = new URL(p.url()).searchParams.get('sel') || '';
  assert.equal(sel.split('/').length, frames.length);
  // Shift+Enter goes back to the previous match; with one match, the same row.
  assert.match(await p.textContent('[data-testid=find-count]'), /^1 of \d+\+?$/);
  await p.keyboard.press('Escape');
  await p.waitForSelector('[data-testid=table-find]', { state: 'hidden' });
  assert.deepEqual(errors, []);
  await c.close();
});

test('find reaches rows never loaded: it fetches the heaviest unloaded rows until one matches', async () => {
  const { p, c, errors } = await newPage();
  await open(p, 'v=2&t=cpu-sampled&g=Process,Stack&c=Count,Weight (ms),% Weight&s=Weight (ms)&r=7-23');
  assert.equal(await p.$$eval('[data-testid=table] tbody tr[data-depth="1"]', (t) => t.length), 0, 'nothing expanded');
  await p.click('[data-testid=table] tbody tr[data-depth="0"] td.label .txt');
  await p.keyboard.press('Control+F');
  await p.waitForSelector('[data-testid=find-input]:focus');
  await p.keyboard.type('Process32NextW');
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => /Process32NextW/.test(document.querySelector('[data-testid=table] tr.sel')?.getAttribute('data-path') || ''), null, { timeout: 60000 });
  const frames = (await p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path'))).split(' › ');
  assert.equal(frames[frames.length - 1], 'kernel32.dll!Process32NextW');
  const count = Number((await p.$eval('[data-testid=table] tr.sel', (tr) => tr.querySelectorAll('td.num')[0].textContent)).replace(/,/g, ''));
  const rows = exportRows(DEMO, ['--table', 'cpu-sampled', '--range', '7-23', '--group', 'Process,Stack']);
  // The path runs through tishell64's unnamed frames, which the table groups as `module!?`.
  let want = 0;
  for (const r of rows) {
    const st = r.Stack.split(';').map(groupedFrame);
    if (r.Process === frames[0] && frames.slice(1).every((f, i) => st[i] === f)) want += r.Count;
  }
  assert.equal(count, want);
  assert.ok(await p.locator('[data-testid=table] tr.sel').isVisible());
  assert.match(await p.textContent('[data-testid=find-count]'), /^\d+ of \d+\+?$/);
  // A text no row has: every reachable level is searched (bounded), then "No match".
  await p.fill('[data-testid=find-input]', 'no-such-frame-anywhere');
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => document.querySelector('[data-testid=find-count]')?.textContent === 'No match', null, { timeout: 120000 });
  assert.deepEqual(errors, []);
  await c.close();
});

test('double-clicking a header edge fits the column to its widest cell; dragging the edge resizes it', async () => {
  const { p, c, errors } = await newPage();
  await open(p, 'v=2&t=images&g=Image Path&c=Count&s=Count');
  const col = '[data-testid=table] col[data-col="Image Path"]';
  const edge = async () => {
    const b = await p.locator('[data-testid=table] th[data-col="Image Path"]').boundingBox();
    return { x: b.x + b.width - 2, y: b.y + b.height / 2, w: b.width };
  };
  // The widest path as drawn, measured with a Range over its text (not the cells' scrollWidth).
  const widest = () => p.$$eval('[data-testid=table] tbody tr td.label', (tds) => Math.max(...tds.map((td) => {
    const r = document.createRange();
    r.selectNodeContents(td);
    const cs = getComputedStyle(td);
    return r.getBoundingClientRect().width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
  })));
  const e0 = await edge();
  await p.mouse.dblclick(e0.x, e0.y);
  await p.waitForFunction((s) => document.querySelector(s).style.width !== '340px', col);
  const fitted = (await edge()).w;
  const need = await widest();
  // Within the slack of the cell's box (borders, the toggle's margin), never narrower than the text.
  assert.ok(fitted >= need - 1 && fitted <= need + 24, `fitted ${fitted}, widest cell ${need}`);
  const clipped = await p.$$eval('[data-testid=table] tbody tr td.label', (tds) => tds.filter((td) => td.scrollWidth > td.clientWidth).length);
  assert.equal(clipped, 0);
  // Drag the edge 120 px to the left.
  const e1 = await edge();
  await p.mouse.move(e1.x, e1.y);
  await p.mouse.down();
  await p.mouse.move(e1.x - 60, e1.y, { steps: 4 });
  await p.mouse.move(e1.x - 120, e1.y, { steps: 4 });
  await p.mouse.up();
  assert.ok(Math.abs((await edge()).w - (fitted - 120)) <= 2);
  assert.deepEqual(errors, []);
  await c.close();
});

test('columns that are zero on every row of the trace start hidden; the column chooser shows them', async () => {
  const { p, c, errors } = await newPage();
  await open(p, 'v=2&t=cpu-sampled');
  // Which File I/O value columns are all zero on this trace, from the export.
  const rows = exportRows(DEMO, ['--table', 'file-io', '--group', 'Type', '--values', 'Count,Size,Duration,% Weight']);
  const zero = (/** @type {string} */ k) => rows.every((r) => !r[k]);
  assert.ok(zero('Size') && zero('Duration'), 'the demo records no I/O sizes or durations');
  assert.ok(!zero('Count'));
  await p.click('[data-testid=tab-file-io]');
  await p.waitForFunction(() => /Hidden:/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
  await waitTable(p);
  const headers = await p.$$eval('[data-testid=table] thead th', (ths) => ths.map((t) => t.getAttribute('data-col')));
  assert.ok(headers.includes('Count'));
  assert.ok(!headers.includes('Size') && !headers.includes('Duration (ms)'), headers.join());
  assert.equal(headers.includes('% Weight'), !zero('% Weight'));
  // Shown again from the chooser.
  await p.click('[data-testid=columns-btn]');
  // The chooser lists Size twice: as a key column, then (last) as a value.
  await p.click('[data-testid=column-chooser] label:text-is("Size") >> nth=-1');
  await p.click('[data-testid=column-chooser] button:text-is("Apply")');
  await p.waitForSelector('[data-testid=table] th[data-col="Size"]');
  assert.match(p.url(), /c=[^&]*Size/);
  assert.deepEqual(errors, []);
  await c.close();
});

/** Click an export button and read the downloaded file. @param {import('playwright-core').Page} p @param {string} fmt */
async function download(p, fmt) {
  const [d] = await Promise.all([p.waitForEvent('download'), p.click(`[data-testid=export-${fmt}]`)]);
  const file = await d.path();
  return { name: d.suggestedFilename(), bytes: fs.readFileSync(file) };
}

test('Export CSV / TSV downloads the view: byte for byte what etlscope export prints', async () => {
  const { p, c, errors } = await newPage();
  const values = 'Load Time,Unload Time,Image Size:max,File Version,Image Path';
  await open(p, `v=2&t=images&g=Process,Image Name&c=${values}&s=File Version&asc=1&f=Process=${encodeURIComponent(EXPLORER)}`);
  const csv = await download(p, 'csv');
  assert.equal(csv.name, 'images.csv');
  const want = exportText(['--table', 'images', '--group', 'Process,Image Name', '--values', values, '--sort', 'File Version:asc', '--filter', `Process=${EXPLORER}`, '--format', 'csv']);
  assert.equal(csv.bytes.toString('utf8'), want);
  assert.equal(want.trimEnd().split('\n').length, 371); // header + 370 images of explorer.exe
  // CPU Usage (Sampled) over 7-23 s by Process, Thread ID as TSV.
  await open(p, 'v=2&t=cpu-sampled&g=Process,Thread ID&c=Count,Weight (ms),% Weight&s=Weight (ms)&r=7-23');
  const tsv = await download(p, 'tsv');
  const wantTsv = exportText(['--table', 'cpu-sampled', '--group', 'Process,Thread ID', '--sort', 'Weight:desc', '--range', '7-23', '--format', 'tsv']);
  assert.equal(tsv.bytes.toString('utf8'), wantTsv);
  assert.match(wantTsv.split('\n')[0], /^Process\tThread ID\tCount\tWeight\t% Weight$/);
  assert.deepEqual(errors, []);
  await c.close();
});
