// The comparison view on the demo pair (explorer-overlay as baseline, explorer-fixed as comparison): opened from the
// library, it puts explorer.exe (by Process) and tishell64_26_0_39450.dll (by Module) first in the loss column, every
// number equal to the difference of the two traces' `etlscope export` rows summed here; the view survives reload and
// back/forward; the differential flame graph colours the shell extension's boxes as loss, with the export's numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const BASE = path.join(repoRoot, 'traces/explorer-overlay.etl');
const NEW = path.join(repoRoot, 'traces/explorer-fixed.etl');
const EXT = 'tishell64_26_0_39450.dll';
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([BASE, NEW]);
  // The CLI names frames first; let the server's symbol lookup end too, on both traces.
  for (const id of srv.ids) {
    for (let i = 0; i < 600; i++) {
      const s = await (await fetch(`${srv.url}/api/traces/${id}/summary`)).json();
      if (s.symbols && s.symbols.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** A process key as the comparison matches it: its name, without this run's pid. @param {string} p */
const name = (p) => p.replace(/ \(\d+\)$/, '');

/** Export rows of one trace summed by `key(row)`. @param {string} trace @param {string} group @param {(r: any) => string} key */
function sums(trace, group, key) {
  /** @type {Map<string, {count: number, weight: number}>} */
  const m = new Map();
  for (const r of exportRows(trace, ['--table', 'cpu-sampled', '--group', group])) {
    const e = m.get(key(r)) || { count: 0, weight: 0 };
    e.count += r.Count; e.weight += r.Weight;
    m.set(key(r), e);
  }
  return m;
}

/** The table's rows: keys and the numbers of each cell. @param {import('playwright-core').Page} p */
const rows = (p) => p.$$eval('[data-testid=compare-row]', (trs) => trs.map((tr) => ({
  key: tr.querySelector('td.label')?.textContent || '',
  nums: [...tr.querySelectorAll('td.num')].map((td) => td.getAttribute('data-value')),
})));

/** @param {import('playwright-core').Page} p */
const waitRows = (p) => p.waitForFunction(() => {
  const s = document.querySelector('[data-testid=compare-status]');
  return s && !/Comparing/.test(s.textContent || '') && (document.querySelector('[data-testid=compare-row]') || document.querySelector('[data-testid=diff-box]'));
});

/** Every row's Count and Weight deltas equal export's, and the first row is `top`. @param {any[]} got @param {Map<string, any>} b @param {Map<string, any>} n @param {string} top */
function check(got, b, n, top) {
  assert.equal(got[0].key, top, 'largest loss first');
  const keys = new Set([...b.keys(), ...n.keys()]);
  assert.equal(got.length, keys.size, 'one row per key of either trace');
  for (const r of got) {
    const x = b.get(r.key) || { count: 0, weight: 0 };
    const y = n.get(r.key) || { count: 0, weight: 0 };
    assert.deepEqual(r.nums.slice(0, 3).map(Number), [x.count, y.count, y.count - x.count], r.key);
    if (x.count) assert.ok(Math.abs(Number(r.nums[3]) - ((y.count - x.count) * 100) / x.count) < 1e-9, r.key);
    assert.ok(Math.abs(Number(r.nums[6]) - (y.weight - x.weight)) < 1e-6, `${r.key} weight delta`);
  }
  const deltas = got.map((r) => Number(r.nums[2]));
  assert.deepEqual(deltas, [...deltas].sort((a, c) => a - c), 'sorted by delta');
}

test('the comparison view from the library: explorer.exe and the shell extension top the loss column; reload and back/forward keep it', async () => {
  const [baseId, newId] = srv.ids;
  const byProc = [sums(BASE, 'Process', (r) => name(r.Process)), sums(NEW, 'Process', (r) => name(r.Process))];
  const byMod = [sums(BASE, 'Module', (r) => r.Module), sums(NEW, 'Module', (r) => r.Module)];
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/`);
  const pick = `tr[data-id="${baseId}"] [data-testid=compare-with]`;
  await p.waitForFunction((sel) => (document.querySelector(sel)?.querySelectorAll('option').length || 0) > 1, pick);
  await p.selectOption(pick, newId);
  await p.waitForURL(new RegExp(`/compare/${baseId}/${newId}\\?`));
  await waitRows(p);
  check(await rows(p), byProc[0], byProc[1], 'explorer.exe');
  assert.equal(byProc[1].get('explorer.exe').count - byProc[0].get('explorer.exe').count, -26050, 'the README figure');

  await p.fill('[data-testid=compare-group]', 'Module');
  await p.press('[data-testid=compare-group]', 'Enter');
  await p.waitForURL(/g=Module/);
  await waitRows(p);
  check(await rows(p), byMod[0], byMod[1], EXT);
  const moduleUrl = p.url();

  await p.reload();
  await waitRows(p);
  assert.equal(p.url(), moduleUrl);
  check(await rows(p), byMod[0], byMod[1], EXT);
  await p.goBack();
  await p.waitForURL((u) => !/g=Module/.test(u.toString()));
  await waitRows(p);
  check(await rows(p), byProc[0], byProc[1], 'explorer.exe');
  await p.goForward();
  await p.waitForURL(/g=Module/);
  await waitRows(p);
  check(await rows(p), byMod[0], byMod[1], EXT);

  // The link opens the same view in a fresh context.
  const { p: q, errors: e2 } = await newPage(browser);
  await q.goto(moduleUrl);
  await waitRows(q);
  check(await rows(q), byMod[0], byMod[1], EXT);
  assert.deepEqual([...errors, ...e2], []);
});

test('a time range on each trace and normalisation by time scale the baseline as the export of each range says', async () => {
  const [baseId, newId] = srv.ids;
  const b = sums(BASE, 'Process', (r) => name(r.Process));
  const n = exportRows(NEW, ['--table', 'cpu-sampled', '--group', 'Process', '--range', '0-10']);
  const bRange = exportRows(BASE, ['--table', 'cpu-sampled', '--group', 'Process', '--range', '7-23']);
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/compare/${baseId}/${newId}?t=cpu-sampled&g=Process&rb=7-23&rn=0-10&n=time`);
  await waitRows(p);
  assert.equal(await p.inputValue('[data-testid=compare-range-base]'), '7-23');
  assert.equal(await p.inputValue('[data-testid=compare-normalize]'), 'time');
  const got = await rows(p);
  const ex = (/** @type {any[]} */ rs) => rs.filter((r) => name(r.Process) === 'explorer.exe').reduce((s, r) => s + r.Count, 0);
  const row = got.find((r) => r.key === 'explorer.exe');
  assert.ok(row && b.has('explorer.exe'));
  // Baseline 16 s scaled to the comparison's 10 s.
  assert.ok(Math.abs(Number(row.nums[0]) - ex(bRange) * (10 / 16)) < 1e-6, JSON.stringify(row));
  assert.equal(Number(row.nums[1]), ex(n));
  assert.deepEqual(errors, []);
});

test('the differential flame graph: the shell extension boxes are loss, each box the export stack rows of both traces', async () => {
  const [baseId, newId] = srv.ids;
  /** Samples under a path [process, frame...] in export's Process,Stack rows. @param {any[]} rs @param {string[]} path */
  const under = (rs, path) => rs.filter((r) => {
    const full = [name(r.Process), ...r.Stack.split(';')];
    return path.every((f, i) => full[i] === f);
  }).reduce((s, r) => s + r.Count, 0);
  const b = exportRows(BASE, ['--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const n = exportRows(NEW, ['--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/compare/${baseId}/${newId}?t=cpu-sampled&g=Process`);
  await waitRows(p);
  await p.click('[data-testid=compare-view-flame]');
  await p.waitForURL(/view=flame/);
  await waitRows(p);
  assert.ok(await p.isVisible('[data-testid=diff-legend]'));
  const boxes = await p.$$eval('[data-testid=diff-box]', (ds) => ds.map((d) => ({
    path: JSON.parse(d.getAttribute('data-path') || '[]'), kind: d.getAttribute('data-kind'),
    base: Number(d.getAttribute('data-base')), new: Number(d.getAttribute('data-new')), delta: Number(d.getAttribute('data-delta')),
  })));
  const ext = boxes.filter((x) => x.path[x.path.length - 1].startsWith(`${EXT}!`));
  assert.ok(ext.length > 0, 'tishell64 boxes drawn');
  for (const x of ext) assert.equal(x.kind, 'loss', x.path.join(' > '));
  const explorer = boxes.find((x) => x.path.length === 1 && x.path[0] === 'explorer.exe');
  assert.ok(explorer && explorer.kind === 'loss');
  for (const x of boxes) {
    assert.equal(x.base, under(b, x.path), x.path.join(' > '));
    assert.equal(x.new, under(n, x.path), x.path.join(' > '));
    assert.equal(x.delta, x.new - x.base);
  }
  await p.reload();
  await waitRows(p);
  assert.equal(await p.locator('[data-testid=diff-box]').count(), boxes.length);
  assert.deepEqual(errors, []);
});

test('the comparison page names tables as WPA does and shows each value with its unit, as the trace page does', async () => {
  const [baseId, newId] = srv.ids;
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/compare/${baseId}/${newId}?t=cpu-sampled&g=Process`);
  await waitRows(p);
  const table = await p.$eval('[data-testid=compare-table]', (e) => /** @type {HTMLSelectElement} */ (e).selectedOptions[0].textContent);
  assert.equal(table, 'CPU Usage (Sampled)');
  const heads = await p.$$eval('[data-testid=compare-table-grid] thead tr:first-child th.num', (x) => x.map((e) => e.textContent));
  assert.deepEqual(heads, ['Count', 'Weight (ms)', '% Weight']);
  // explorer.exe in the baseline: 44,504 samples of 1 ms; counts whole, weights in ms as on the trace page.
  const b = sums(BASE, 'Process', (r) => name(r.Process)).get('explorer.exe');
  const cells = await p.$$eval('[data-testid=compare-row]', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  const explorer = cells.find((c) => c[0] === 'explorer.exe');
  assert.ok(explorer);
  const f2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  assert.equal(explorer[1], new Intl.NumberFormat('en-US').format(b.count));
  assert.equal(explorer[5], f2.format(b.weight * 1000));
  assert.deepEqual(errors, []);
});

test('the differential flame legend totals the losses and gains as the table by Process adds them up', async () => {
  const [baseId, newId] = srv.ids;
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/compare/${baseId}/${newId}?t=cpu-sampled&g=Process`);
  await waitRows(p);
  // The Count delta of every row (baseline, comparison, delta, delta %: the third cell).
  const deltas = (await rows(p)).map((r) => Number(r.nums[2]));
  const loss = deltas.filter((d) => d < 0).reduce((a, d) => a + d, 0);
  const gain = deltas.filter((d) => d > 0).reduce((a, d) => a + d, 0);
  await p.click('[data-testid=compare-view-flame]');
  await p.waitForURL(/view=flame/);
  await waitRows(p);
  const legend = await p.textContent('[data-testid=diff-legend]') || '';
  const fmt = new Intl.NumberFormat('en-US');
  console.log(`table: losses ${fmt.format(loss)}, gains +${fmt.format(gain)} | legend: ${legend}`);
  assert.ok(legend.includes(`loss ${fmt.format(-loss)}`), legend);
  assert.ok(legend.includes(`gain ${fmt.format(gain)}`), legend);
  assert.deepEqual(errors, []);
});
