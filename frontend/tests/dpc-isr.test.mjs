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
import { launch, newPage as openPage, waitTable, waitGraph, graphModel, sum, ns, rowsAt, openTab } from './browser.mjs';
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




test('DPC/ISR: by CPU with counts and durations as export has them; the graph plots each CPU\'s DPC/ISR time; the Module, Function preset', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'dpc-isr');
  const want = exportRows(file, ['--table', 'dpc-isr', '--group', 'CPU']);
  assert.equal(want.length, 4);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values['Exclusive Duration']), ns(s.values['Inclusive Duration'])]).sort(),
    want.map((w) => [String(w.CPU), w.Count, ns(w['Exclusive Duration']), ns(w['Inclusive Duration'])]).sort());
  // Sorted by Exclusive Duration, most first.
  const top = [...want].sort((a, b) => b['Exclusive Duration'] - a['Exclusive Duration'])[0];
  assert.equal(shown[0].label, String(top.CPU));
  // The graph above: each CPU's DPC/ISR time (Exclusive Duration, in ms) per bin, adding up to its row.
  await waitGraph(p);
  assert.equal(await p.$eval('[data-testid=graph-measure]', (e) => /** @type {HTMLSelectElement} */ (e).value), 'weight');
  const m = await graphModel(p);
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
  const modules = await rowsAt(p);
  assert.deepEqual(
    modules.map((s) => [s.label, Number(s.values.Count), ns(s.values['Exclusive Duration'])]).sort(),
    byModule.map((w) => [w.Module, w.Count, ns(w['Exclusive Duration'])]).sort());
  assert.deepEqual(modules.map((s) => s.label).sort(), ['dxgkrnl.sys', 'ndis.sys', 'storport.sys']);
  assert.deepEqual(errors, []);
  await c.close();
});
