// GPU Utilization and Frame Times on a trace our writer makes (`etlscope synth gpu`: DxgKrnl DMA
// packets of three processes on three engines, and their presents), clicked as a user would: each
// default view, its graph (each engine's share of the bin, %; frames per bin) and the presets;
// every number comes from `etlscope export`, never from the /api answers the page renders.
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-gpu-'));
const file = path.join(dir, 'gpu.etl');

before(async () => {
  buildRelease();
  const w = spawnSync(binary(), ['synth', 'gpu', '-o', file, '--packets', '200', '--frames', '40'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  browser = await launch();
  srv = await startServer([file]);
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});





test('GPU Utilization: by engine as export has it; the graph is each engine\'s share of the bin; the by-process preset', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'gpu-utilization');
  const want = exportRows(file, ['--table', 'gpu-utilization', '--group', 'Engine']);
  assert.deepEqual(want.map((w) => w.Engine).sort(), ['3D', 'Copy', 'Video Decode']);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration)]).sort(),
    want.map((w) => [w.Engine, w.Count, ns(w.Duration)]).sort());
  await waitGraph(p);
  const m = await graphModel(p);
  assert.equal(m.series.length, 3);
  const binMs = m.bin.bin_s * 1e3;
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === w.Engine);
    assert.ok(s, w.Engine);
    // One engine runs one packet at a time: never over the whole bin.
    assert.ok(s.values.every((/** @type {number} */ v) => v <= 100 + 1e-9), `${w.Engine}: ${Math.max(...s.values)} %`);
    // Shares of the bins, back to ms, are the engine's GPU time (bins are whole ns, within 1 ns of
    // bin_s: at most 1 ns off per bin).
    assert.ok(Math.abs(sum(s.values) * binMs / 100 - w.Duration * 1e3) <= s.values.length * 1e-6, `${w.Engine}: ${sum(s.values) * binMs / 100} vs ${w.Duration * 1e3}`);
  }
  assert.match(await p.textContent('.tg-info') ?? '', /%/);
  const byProcess = exportRows(file, ['--table', 'gpu-utilization', '--group', 'Process', '--values', 'Count,Duration,Queue Wait']);
  assert.equal(byProcess.length, 3);
  await p.selectOption('[data-testid=preset]', { label: 'GPU Utilization by Process, Engine' });
  await waitTable(p);
  assert.deepEqual(
    (await rowsAt(p)).map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration), ns(s.values['Queue Wait'])]).sort(),
    byProcess.map((w) => [w.Process, w.Count, ns(w.Duration), ns(w['Queue Wait'])]).sort());
  assert.deepEqual(errors, []);
  await c.close();
});

test('Frame Times: by process as export has it; the graph counts each process\'s frames per bin; the longest-frame preset', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'frame-times');
  const want = exportRows(file, ['--table', 'frame-times', '--group', 'Process', '--values', 'Count,Frame Time,Frame Time:max,Frame Rate (fps)']);
  assert.equal(want.length, 3);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values['Frame Time']), Number(s.values['Frame Rate (fps)'])]).sort(),
    want.map((w) => [w.Process, w.Count, ns(w['Frame Time']), w['Frame Rate (fps)']]).sort());
  await waitGraph(p);
  assert.equal(await p.$eval('[data-testid=graph-measure]', (e) => /** @type {HTMLSelectElement} */ (e).value), 'count');
  const m = await graphModel(p);
  // The graph bins [trace start, trace end): the synthetic trace ends at its last present, which
  // is on the end, outside every bin (as any event table's last event on the end).
  const info = JSON.parse(spawnSync(binary(), ['info', file, '--json'], { encoding: 'utf8' }).stdout);
  const frames = exportRows(file, ['--table', 'frame-times', '--rows']);
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === w.Process);
    assert.ok(s, w.Process);
    const inside = frames.filter((f) => f.Process === w.Process && ns(f['Present Time']) < ns(info.duration_s)).length;
    assert.ok(inside >= w.Count - 1, w.Process);
    assert.equal(sum(s.values), inside, w.Process);
  }
  await p.selectOption('[data-testid=preset]', { label: 'Frame Times by Process, Window' });
  await waitTable(p);
  assert.deepEqual(
    (await rowsAt(p)).map((s) => [s.label, ns(s.values['Frame Time:max'])]).sort(),
    want.map((w) => [w.Process, ns(w['Frame Time:max'])]).sort());
  assert.deepEqual(errors, []);
  await c.close();
});
