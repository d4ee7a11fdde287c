// Hard Faults and Network on the real x64 trace (perfview-net452-x64.etl), Page Faults and
// Registry on a written trace, clicked as a user would: each table's default view, its graph and a preset; every number comes from `etlscope
// export` (the CLI's own code path), never from the /api answers the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable, waitGraph, graphModel, sum, rowsAt, clickTab, openTab } from './browser.mjs';
import { realTraces, buildRelease, startServer, binary } from './server.mjs';
import { exportRows } from './export.mjs';

const traces = realTraces();
const trace = () => path.join(/** @type {string} */ (traces), 'perfview-net452-x64.etl');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  browser = await launch();
  if (traces) srv = await startServer([trace()]);
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });




test('Hard Faults: by Process, File Path with counts and sizes as export has them; the graph counts each process\'s faults; the Type preset', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'hard-faults');
  const want = exportRows(trace(), ['--table', 'hard-faults', '--group', 'Process', '--sort', 'Count:desc']);
  const shown = await rowsAt(p);
  assert.equal(shown.length, want.length);
  assert.equal(sum(shown.map((s) => Number(s.values.Count))), 153);
  for (const s of shown) {
    const w = want.find((x) => x.Process === s.label);
    assert.ok(w, s.label);
    assert.equal(Number(s.values.Count), w.Count, s.label);
    assert.equal(Number(s.values.Size), w.Size, s.label);
  }
  assert.equal(shown[0].label, want[0].Process);
  // The graph above: one series per top row, its bins adding up to the row's count.
  await waitGraph(p);
  assert.equal(await p.$eval('[data-testid=graph-measure]', (e) => /** @type {HTMLSelectElement} */ (e).value), 'count');
  const m = await graphModel(p);
  assert.ok(m.series.length > 0);
  for (const s of m.series) {
    const w = want.find((x) => x.Process === s.label);
    if (w) assert.equal(sum(s.values), w.Count, s.label);
  }
  // The top processes are series of their own, the rest one "other" series: 153 faults in all.
  const own = m.series.filter((/** @type {any} */ s) => s.ref !== '\u0000other');
  assert.ok(own.length >= 10 && own.every((/** @type {any} */ s) => want.some((x) => x.Process === s.label)));
  assert.equal(sum(m.series.map((/** @type {any} */ s) => sum(s.values))), 153);
  // WPA's view by Type, File Path and Stack.
  await p.selectOption('[data-testid=preset]', { label: 'Hard Faults by Type, File, Stack' });
  await p.waitForURL(/g=Type/);
  await waitTable(p);
  const byType = exportRows(trace(), ['--table', 'hard-faults', '--group', 'Type']);
  const types = await rowsAt(p);
  assert.deepEqual(types.map((t) => [t.label, Number(t.values.Count)]).sort(), byType.map((w) => [w.Type, w.Count]).sort());
  assert.deepEqual(errors, []);
  await c.close();
});

test('Network: by Process (the payload\'s PID), System (4) first by bytes, sizes as export has them; the graph plots bytes; the endpoint preset', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'network');
  const want = exportRows(trace(), ['--table', 'network', '--group', 'Process', '--sort', 'Size:desc']);
  const shown = await rowsAt(p);
  assert.deepEqual(shown.map((s) => [s.label, Number(s.values.Count), Number(s.values.Size)]), want.map((w) => [w.Process, w.Count, w.Size]));
  assert.equal(shown[0].label, 'System (4)');
  assert.equal(sum(shown.map((s) => Number(s.values.Count))), 526);
  // The graph: Count by default, then Size (bytes per bin), each series adding up to its row.
  await waitGraph(p);
  let m = await graphModel(p);
  for (const w of want) assert.equal(sum(m.series.find((/** @type {any} */ s) => s.label === w.Process).values), w.Count, w.Process);
  await p.selectOption('[data-testid=graph-measure]', 'Size');
  await p.waitForFunction(() => /^Size /.test(document.querySelector('[data-testid=table-graph] .tg-title')?.textContent || ''));
  await waitGraph(p);
  m = await graphModel(p);
  for (const w of want) assert.equal(sum(m.series.find((/** @type {any} */ s) => s.label === w.Process).values), w.Size, w.Process);
  // WPA-like preset: by Process, Remote Address, Remote Port; System's one remote is the SMB server.
  await p.selectOption('[data-testid=preset]', { label: 'Network by Process, Remote Endpoint' });
  await p.waitForURL(/g=Process%2CRemote|g=Process,Remote/);
  await waitTable(p);
  const top = await rowsAt(p);
  assert.equal(top[0].label, 'System (4)');
  await p.click('[data-testid=table] tbody tr[data-depth="0"] >> nth=0 >> .tog');
  await p.waitForSelector('[data-testid=table] tbody tr[data-depth="1"]');
  const remotes = await p.$$eval('[data-testid=table] tbody tr[data-depth="1"] td.label .txt', (tds) => tds.map((t) => t.textContent));
  const wantRemotes = exportRows(trace(), ['--table', 'network', '--group', 'Remote Address', '--filter', 'Process=System (4)']);
  assert.deepEqual([...remotes].sort(), wantRemotes.map((w) => w['Remote Address']).sort());
  assert.deepEqual(errors, []);
  await c.close();
});

// Page Faults, Registry, VirtualAlloc and Heap on a trace our writer makes (`etlscope synth memory`), expected values
// again from `etlscope export`.
test('Page Faults, Registry, VirtualAlloc Commit Lifetimes and Heap Allocations: default views, graphs and presets, numbers as export has them', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-memory-'));
  const file = path.join(dir, 'memory.etl');
  const w = spawnSync(binary(), ['synth', 'memory', '-o', file, '--faults', '600'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  const mem = await startServer([file]);
  const { p, c, errors } = await openPage(browser);
  try {
    await p.goto(`${mem.url}/t/${mem.ids[0]}`);
    await waitTable(p);
    await clickTab(p, 'page-faults');
    await p.waitForURL(/t=page-faults/);
    await waitTable(p);
    const want = exportRows(file, ['--table', 'page-faults', '--group', 'Process']);
    const shown = await rowsAt(p);
    assert.deepEqual(shown.map((s) => [s.label, Number(s.values.Count)]).sort(), want.map((x) => [x.Process, x.Count]).sort());
    assert.equal(sum(shown.map((s) => Number(s.values.Count))), 600);
    await waitGraph(p);
    const m = await graphModel(p);
    for (const x of want) assert.equal(sum(m.series.find((/** @type {any} */ s) => s.label === x.Process).values), x.Count, x.Process);
    await p.selectOption('[data-testid=preset]', { label: 'Page Faults by Type, Process, Stack' });
    await p.waitForURL(/g=Type/);
    await waitTable(p);
    const byType = exportRows(file, ['--table', 'page-faults', '--group', 'Type']);
    assert.deepEqual((await rowsAt(p)).map((s) => [s.label, Number(s.values.Count)]).sort(), byType.map((x) => [x.Type, x.Count]).sort());

    await clickTab(p, 'registry');
    await p.waitForURL(/t=registry/);
    await waitTable(p);
    await p.selectOption('[data-testid=preset]', { label: 'Registry by Key Path, Value' });
    await p.waitForURL(/g=Key/);
    await waitTable(p);
    const keys = exportRows(file, ['--table', 'registry', '--group', 'Key Path']);
    const rows = await rowsAt(p);
    assert.deepEqual(rows.map((s) => [s.label, Number(s.values.Count)]).sort(), keys.map((x) => [x['Key Path'], x.Count]).sort());
    assert.ok(rows.some((s) => s.label === '\\REGISTRY\\MACHINE\\SOFTWARE\\Microsoft\\Windows'));
    await waitGraph(p);
    const g = await graphModel(p);
    for (const x of keys) assert.equal(sum(g.series.find((/** @type {any} */ s) => s.label === x['Key Path']).values), x.Count);

    // VirtualAlloc Commit Lifetimes and Heap Allocations: their graphs plot what is outstanding
    // in each bin, as `export --range` over that bin sums it.
    for (const [tab, preset] of [['virtual-alloc', 'Commit by Process, Commit Stack'], ['heap', 'Heap Outstanding by Process, Stack']]) {
      await clickTab(p, tab);
      await p.waitForURL(new RegExp(`t=${tab}`));
      await waitTable(p);
      const byProcess = exportRows(file, ['--table', tab, '--group', 'Process']);
      const top = await rowsAt(p);
      assert.deepEqual(top.map((s) => [s.label, Number(s.values.Size), Number(s.values['Impacting Size'])]).sort(), byProcess.map((x) => [x.Process, x.Size, x['Impacting Size']]).sort(), tab);
      await waitGraph(p);
      await p.selectOption('[data-testid=graph-measure]', 'Size');
      await p.waitForFunction(() => /^Size /.test(document.querySelector('[data-testid=table-graph] .tg-title')?.textContent || ''));
      await waitGraph(p);
      const gm = await graphModel(p);
      const bins = gm.series[0].values.length;
      for (const k of [Math.floor(bins / 3), Math.floor((2 * bins) / 3), bins - 1]) {
        const s0 = gm.bin.start_s + k * gm.bin.bin_s;
        const range = `${s0.toFixed(9)}-${(s0 + gm.bin.bin_s).toFixed(9)}`;
        const want = exportRows(file, ['--table', tab, '--group', 'Process', '--values', 'Size', '--range', range]);
        for (const x of want) {
          const s = gm.series.find((/** @type {any} */ y) => y.label === x.Process);
          assert.ok(Math.abs((s ? s.values[k] : 0) - x.Size) <= 0, `${tab} bin ${k} ${x.Process}: ${s && s.values[k]} vs ${x.Size}`);
        }
      }
      await p.selectOption('[data-testid=preset]', { label: preset });
      await p.waitForURL(/g=Process/);
      await waitTable(p);
      const shown = await rowsAt(p);
      assert.deepEqual(shown.map((s) => [s.label, Number(s.values['Impacting Size'])]).sort(), byProcess.map((x) => [x.Process, x['Impacting Size']]).sort(), tab);
    }
    assert.deepEqual(errors, []);
  } finally {
    await c.close();
    mem.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
