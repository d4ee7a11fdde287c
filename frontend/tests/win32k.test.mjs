// Window in Focus and UI Delays on a trace our writer makes (`etlscope synth win32k`: Win32k
// FocusChange and MessageCheckDelay of three processes), clicked as a user would: each default view
// (by process), its graph (focus time per bin, stacked; delay time per bin) and the UI Delays
// preset; every number comes from `etlscope export`, never from the /api answers the page renders.
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-win32k-'));
const file = path.join(dir, 'win32k.etl');

before(async () => {
  buildRelease();
  const w = spawnSync(binary(), ['synth', 'win32k', '-o', file, '--delays', '150'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  browser = await launch();
  srv = await startServer([file]);
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});





test('Window in Focus: by process as export has it; the graph stacks each process\'s focus time per bin', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'window-in-focus');
  const want = exportRows(file, ['--table', 'window-in-focus', '--group', 'Process']);
  assert.equal(want.length, 3);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration)]).sort(),
    want.map((w) => [w.Process, w.Count, ns(w.Duration)]).sort());
  await waitGraph(p);
  const m = await graphModel(p);
  assert.equal(m.series.length, 3);
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === w.Process);
    assert.ok(s, w.Process);
    assert.ok(Math.abs(sum(s.values) - w.Duration * 1e3) < 1e-6, `${w.Process}: ${sum(s.values)} vs ${w.Duration * 1e3}`);
  }
  assert.deepEqual(errors, []);
  await c.close();
});

test('UI Delays: by process as export has it; the graph plots each process\'s delay time; the longest-delay preset', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'ui-delays');
  const want = exportRows(file, ['--table', 'ui-delays', '--group', 'Process', '--values', 'Count,Duration,Duration:max']);
  assert.equal(want.length, 3);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration)]).sort(),
    want.map((w) => [w.Process, w.Count, ns(w.Duration)]).sort());
  await waitGraph(p);
  assert.equal(await p.$eval('[data-testid=graph-measure]', (e) => /** @type {HTMLSelectElement} */ (e).value), 'weight');
  const m = await graphModel(p);
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === w.Process);
    assert.ok(s, w.Process);
    assert.ok(Math.abs(sum(s.values) - w.Duration * 1e3) < 1e-6, `${w.Process}: ${sum(s.values)}`);
  }
  await p.selectOption('[data-testid=preset]', { label: 'UI Delays: Longest by Process' });
  await waitTable(p);
  assert.deepEqual(
    (await rowsAt(p)).map((s) => [s.label, ns(s.values['Duration:max'])]).sort(),
    want.map((w) => [w.Process, ns(w['Duration:max'])]).sort());
  assert.deepEqual(errors, []);
  await c.close();
});
