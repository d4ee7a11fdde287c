// Regions of Interest and Marks (issue 37 points 1-2), clicked as a user would: a regions file over the
// CLR's GCs of the real x64 trace (perfview-net452-x64.etl, the server started with --regions) and a
// written trace with marks (`etlscope synth memory --mark`). Every number comes from `etlscope export`
// (the CLI's own code path), never from the /api answers the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { realTraces, buildRelease, startServer, binary } from './server.mjs';

const traces = realTraces();
const trace = () => path.join(/** @type {string} */ (traces), 'perfview-net452-x64.etl');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-regions-'));
const regionsFile = path.join(dir, 'gc.regions.xml');
const marksFile = path.join(dir, 'marks.etl');
// Markup in a label: the page must show it as text.
const LABELS = ['Profiling_Start', '<img src=x onerror=alert(1)> ünï', 'Profiling_Stop'];
const CLR = 'e13c0d23-ccbc-4e12-931b-d9cc2eee27e4';
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

/** `etlscope [--regions FILE] export TRACE ARGS --format json`. @param {string} file @param {string[]} args @param {boolean} [regions] */
function exportRows(file, args, regions = false) {
  const r = spawnSync(binary(), [...(regions ? ['--regions', regionsFile] : []), 'export', file, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  buildRelease();
  // GCStart (id 1) to GCEnd (id 2), version 1, of one process and GC number (the payload's Count).
  fs.writeFileSync(regionsFile, `<?xml version='1.0' encoding='utf-8'?>
<InstrumentationManifest><Instrumentation><Regions>
 <RegionRoot Guid="{11111111-0000-0000-0000-000000000000}" Name="CLR">
  <Region Guid="{11111111-0000-0000-0000-000000000001}" Name="GC">
   <Start><Event Provider="{${CLR}}" Id="1" Version="1"/></Start>
   <Stop><Event Provider="{${CLR}}" Id="2" Version="1"/></Stop>
   <Match><Event PID="true"><Payload FieldName="Count"/></Event></Match>
  </Region>
 </RegionRoot>
</Regions></Instrumentation></InstrumentationManifest>`);
  const w = spawnSync(binary(), ['synth', 'memory', '-o', marksFile, '--faults', '600', ...LABELS.flatMap((l) => ['--mark', l])], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  browser = await launch();
  srv = await startServer([marksFile, ...(traces ? [trace()] : [])], 120000, ['--regions', regionsFile]);
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); fs.rmSync(dir, { recursive: true, force: true }); });

/** @param {import('playwright-core').Page} p */
const waitGraph = (p) => p.waitForSelector('[data-testid=table-graph][data-state=ready]');
/** @param {import('playwright-core').Page} p */
const model = (p) => p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);
/** @param {number[]} v */
const sum = (v) => v.reduce((a, b) => a + b, 0);

/** The rows at `depth`: label and each column's value (data-value, else the text without separators). @param {import('playwright-core').Page} p @param {number} depth */
const rowsAt = (p, depth) => p.$$eval(`[data-testid=table] tbody tr[data-depth="${depth}"]`, (trs) => {
  const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
  return trs.map((tr) => {
    /** @type {Record<string, string>} */ const values = {};
    [...tr.children].forEach((td, i) => { const col = cols[i]; if (col && col !== '|') values[col] = (td.getAttribute('data-value') || td.textContent || '').replace(/,/g, ''); });
    return { label: /** @type {Element} */ (tr.querySelector('td.label .txt')).textContent, values };
  });
});

/** Click a table's tab, from the More menu when the strip has no room for it. @param {import('playwright-core').Page} p @param {string} table */
async function clickTab(p, table) {
  const sel = `[data-testid=tab-${table}]`;
  if (await p.isVisible(sel)) await p.click(sel);
  else await p.selectOption('[data-testid=tab-more]', `tab-${table}`);
  await p.waitForURL(new RegExp(`t=${table}`));
  await waitTable(p);
}

/** The page's time selection, from its link. @param {import('playwright-core').Page} p @returns {number[]|null} */
const rangeOf = (p) => {
  const r = new URL(p.url()).searchParams.get('r');
  return r ? r.split('-').map(Number) : null;
};

test('Regions of Interest: the Region tree and its instances as export has them, one bar per instance; a selected instance is the range CPU Usage (Sampled) then counts', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  const want = exportRows(trace(), ['--table', 'regions', '--rows'], true);
  assert.equal(want.length, 264);
  await p.goto(`${srv.url}/t/${srv.ids[1]}`);
  await waitTable(p);
  await clickTab(p, 'regions');
  // Default view: the Region tree (one root, CLR/GC), its count and summed duration.
  const top = await rowsAt(p, 0);
  const grouped = exportRows(trace(), ['--table', 'regions', '--group', 'Region', '--values', 'Count,Duration,Start Time,Stop Time'], true);
  assert.deepEqual(top.map((r) => r.label), grouped.map((g) => g.Region));
  assert.equal(Number(top[0].values.Count), grouped[0].Count);
  assert.ok(Math.abs(Number(top[0].values.Duration) - grouped[0].Duration) < 1e-6, `${top[0].values.Duration} vs ${grouped[0].Duration}`);
  assert.equal(Number(top[0].values['Start Time']), grouped[0]['Start Time']);
  assert.equal(Number(top[0].values['Stop Time']), grouped[0]['Stop Time']);
  // The graph: one bar per instance, at export's times, labelled "#n CLR/GC".
  await waitGraph(p);
  const m = await model(p);
  assert.equal(m.kind, 'spans');
  assert.equal(m.bars.length, want.length);
  m.bars.forEach((/** @type {any} */ b, /** @type {number} */ k) => {
    assert.equal(b.label, `#${k + 1} CLR/GC`);
    assert.ok(Math.abs(b.start_s - want[k]['Start Time']) < 1e-9 && Math.abs(b.end_s - want[k]['Stop Time']) < 1e-9, `bar ${k}`);
  });
  // Expand CLR/GC and select its longest instance: its times become the page's range.
  const k = want.reduce((best, r, i) => (r.Duration > want[best].Duration ? i : best), 0);
  await p.click('[data-testid=table] tbody tr[data-depth="0"] >> nth=0 >> .tog');
  await p.waitForSelector('[data-testid=table] tbody tr[data-depth="1"]');
  await waitTable(p);
  const inst = await rowsAt(p, 1);
  assert.equal(inst.length, want.length);
  assert.deepEqual(inst.map((r) => r.label), want.map((r) => r.Instance));
  const label = `#${k + 1} CLR/GC`;
  await p.click(`[data-testid=table] tbody tr[data-depth="1"] >> text="${label}"`);
  await p.waitForURL(/[?&]r=/);
  const r = /** @type {number[]} */ (rangeOf(p));
  assert.ok(Math.abs(r[0] - want[k]['Start Time']) < 1e-6 && Math.abs(r[1] - want[k]['Stop Time']) < 1e-6, `${r} vs ${want[k]['Start Time']}-${want[k]['Stop Time']}`);
  await p.waitForSelector('[data-testid=filters] .fchip.range');
  // CPU Usage (Sampled) under that range: its processes' counts are export's over the same range.
  await clickTab(p, 'cpu-sampled');
  assert.deepEqual(rangeOf(p), r);
  const cpu = await rowsAt(p, 0);
  const range = `${r[0]}-${r[1]}`;
  const byProcess = exportRows(trace(), ['--table', 'cpu-sampled', '--group', 'Process', '--values', 'Count', '--range', range]);
  assert.deepEqual(cpu.map((x) => [x.label, Number(x.values.Count)]).sort(), byProcess.map((x) => [x.Process, x.Count]).sort());
  const n = sum(cpu.map((x) => Number(x.values.Count)));
  assert.ok(n > 0, 'the longest GC has samples');
  process.stderr.write(`regions: ${want.length} instances; instance ${label} ${want[k]['Start Time']}-${want[k]['Stop Time']} s holds ${n} samples in ${cpu.length} processes\n`);
  // A bar of the graph selects its instance's range too (the whole trace shown again first).
  await clickTab(p, 'regions');
  await p.click('[data-testid=clear-range]');
  await p.waitForFunction(() => !new URL(location.href).searchParams.get('r'));
  await waitGraph(p);
  assert.equal((await model(p)).bars.length, want.length);
  const bar = (await model(p)).bars[0];
  const box = /** @type {any} */ (await p.$eval('[data-testid=graph-canvas]', (e) => { const b = e.getBoundingClientRect(); return { x: b.x, y: b.y }; }));
  await p.mouse.click(box.x + (bar.x0 + bar.x1) / 2, box.y + (bar.y0 + bar.y1) / 2);
  await p.waitForFunction((s) => new URL(location.href).searchParams.get('r')?.startsWith(String(s)), +want[0]['Start Time'].toFixed(6));
  assert.deepEqual(errors, []);
  await c.close();
});

test('Marks: the table and its graph as export has them, lines with their labels (as text) on the timeline and graphs; two selected marks are the range', async () => {
  const { p, c, errors } = await openPage(browser);
  /** @type {string[]} */ const dialogs = [];
  p.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
  const want = exportRows(marksFile, ['--table', 'marks', '--rows']);
  assert.deepEqual(want.map((x) => x.Label), LABELS);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  // The timeline draws one line per mark at its time.
  await p.waitForFunction(() => JSON.parse(document.querySelector('[data-testid=timeline]')?.getAttribute('data-marks') || '[]').length === 3);
  const lines = JSON.parse(/** @type {string} */ (await p.getAttribute('[data-testid=timeline]', 'data-marks')));
  assert.deepEqual(lines.map((/** @type {any} */ l) => [l.label, l.t]), want.map((x) => [x.Label, x.Time]));
  await clickTab(p, 'marks');
  const rows = await rowsAt(p, 0);
  const byLabel = exportRows(marksFile, ['--table', 'marks', '--group', 'Label', '--values', 'Count,Time:min']);
  assert.deepEqual(rows.map((x) => [x.label, Number(x.values.Count), Number(x.values['First (s)'])]),
    [...byLabel].sort((a, b) => a.Time - b.Time).map((x) => [x.Label, x.Count, Number(x.Time.toFixed(3))]));
  // The graph counts each label's marks; its canvas carries the mark lines too.
  await waitGraph(p);
  const m = await model(p);
  for (const x of byLabel) assert.equal(sum(m.series.find((/** @type {any} */ s) => s.label === x.Label).values), x.Count, x.Label);
  const gl = JSON.parse(/** @type {string} */ (await p.getAttribute('[data-testid=graph-canvas]', 'data-marks')));
  assert.deepEqual(gl.map((/** @type {any} */ l) => l.label), LABELS);
  // The label with markup is text: no element came of it, no script ran.
  assert.equal(await p.$('img[src=x]'), null);
  assert.ok((await p.textContent('[data-testid=table]'))?.includes(LABELS[1]));
  // The first and the last mark, selected together: the range between them.
  await p.click('[data-testid=table] tbody tr[data-depth="0"] >> nth=0');
  await p.click('[data-testid=table] tbody tr[data-depth="0"] >> nth=2', { modifiers: ['Shift'] });
  await p.waitForURL(/[?&]r=/);
  assert.deepEqual(rangeOf(p), [want[0].Time, want[2].Time]);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(errors, []);
  await c.close();
});
