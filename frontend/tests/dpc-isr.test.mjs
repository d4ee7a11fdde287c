// DPC/ISR on a trace our writer makes (`etlscope synth dpc-isr`), clicked as a user would: the
// default view (by CPU, Type, Module, Function), its graph (DPC/ISR time per CPU) and WPA's preset
// by Module, Function; every number comes from `etlscope export` (the CLI's own code path), never
// from the /api answers the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, binary } from './server.mjs';
import { exportRows } from './export.mjs';

/** @type {Awaited<ReturnType<typeof startServer>>} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-dpc-isr-'));
const file = path.join(dir, 'dpc-isr.etl');

before(async () => {
  buildRelease();
  const w = spawnSync(binary(), ['synth', 'dpc-isr', '-o', file, '--runs', '600'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  browser = await launch();
  srv = await startServer([file]);
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** @param {import('playwright-core').Page} p */
const waitGraph = (p) => p.waitForSelector('[data-testid=table-graph][data-state=ready]');
/** @param {import('playwright-core').Page} p */
const model = (p) => p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);
/** @param {number[]} v */
const sum = (v) => v.reduce((a, b) => a + b, 0);

/** The top-level rows: label and the number of each value column (thousands separators dropped). @param {import('playwright-core').Page} p */
const topRows = (p) => p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => {
  const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
  return trs.map((tr) => {
    /** @type {Record<string, string>} */ const values = {};
    [...tr.children].forEach((td, i) => { const col = cols[i]; if (col && col !== '|') values[col] = (td.getAttribute('data-value') ?? td.textContent ?? '').replace(/,/g, ''); });
    return { label: /** @type {Element} */ (tr.querySelector('td.label .txt')).textContent, values };
  });
});

/** Seconds to the nanosecond (cells carry their exact value in seconds, as export prints it). @param {number|string} s */
const ns = (s) => Math.round(Number(s) * 1e9);

test('DPC/ISR: by CPU with counts and durations as export has them; the graph plots each CPU\'s DPC/ISR time; the Module, Function preset', async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  const tab = '[data-testid=tab-dpc-isr]';
  if (await p.isVisible(tab)) await p.click(tab);
  else await p.selectOption('[data-testid=tab-more]', 'tab-dpc-isr');
  await p.waitForURL(/t=dpc-isr/);
  await waitTable(p);
  const want = exportRows(file, ['--table', 'dpc-isr', '--group', 'CPU']);
  assert.equal(want.length, 4);
  const shown = await topRows(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values['Exclusive Duration']), ns(s.values['Inclusive Duration'])]).sort(),
    want.map((w) => [String(w.CPU), w.Count, ns(w['Exclusive Duration']), ns(w['Inclusive Duration'])]).sort());
  // Sorted by Exclusive Duration, most first.
  const top = [...want].sort((a, b) => b['Exclusive Duration'] - a['Exclusive Duration'])[0];
  assert.equal(shown[0].label, String(top.CPU));
  // The graph above: each CPU's DPC/ISR time (Exclusive Duration, in ms) per bin, adding up to its row.
  await waitGraph(p);
  assert.equal(await p.$eval('[data-testid=graph-measure]', (e) => /** @type {HTMLSelectElement} */ (e).value), 'weight');
  const m = await model(p);
  assert.equal(m.series.length, 4);
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === String(w.CPU));
    assert.ok(s, String(w.CPU));
    assert.ok(Math.abs(sum(s.values) - w['Exclusive Duration'] * 1e3) < 1e-6, `${w.CPU}: ${sum(s.values)}`);
  }
  // WPA's view by Module, Function.
  await p.selectOption('[data-testid=preset]', { label: 'DPC/ISR Duration by Module, Function' });
  await p.waitForURL(/g=Module/);
  await waitTable(p);
  const byModule = exportRows(file, ['--table', 'dpc-isr', '--group', 'Module']);
  const modules = await topRows(p);
  assert.deepEqual(
    modules.map((s) => [s.label, Number(s.values.Count), ns(s.values['Exclusive Duration'])]).sort(),
    byModule.map((w) => [w.Module, w.Count, ns(w['Exclusive Duration'])]).sort());
  assert.deepEqual(modules.map((s) => s.label).sort(), ['dxgkrnl.sys', 'ndis.sys', 'storport.sys']);
  assert.deepEqual(errors, []);
  await c.close();
});
