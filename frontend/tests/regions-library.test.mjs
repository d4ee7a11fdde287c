// Regions files from the UI (issue 37 points 1-3), clicked as a user would, on a server started
// WITHOUT --regions: a regions file over the CLR's GCs of the real x64 trace imported with the view's
// picker (the link then names it, `regions=NAME`), its Regions of Interest as `etlscope --regions FILE
// export` has them, CPU Usage (Sampled) keyed and filtered by Region equal to export with the same key,
// a bad file's notice naming its line; and the Window in Focus lane on the timeline of a trace our
// writer makes (`etlscope synth win32k`). Every number comes from `etlscope export`.
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
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-regions-lib-'));
const regionsFile = path.join(dir, 'gc.regions.xml');
const badFile = path.join(dir, 'broken.regions.xml');
const focusFile = path.join(dir, 'win32k.etl');
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
  fs.writeFileSync(badFile, "<InstrumentationManifest>\n<Instrumentation><Regions>\n<Region Name='x'/>\n</Regions></Instrumentation></InstrumentationManifest>");
  const w = spawnSync(binary(), ['synth', 'win32k', '-o', focusFile], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  browser = await launch();
  srv = await startServer([focusFile, ...(traces ? [trace()] : [])]);
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); fs.rmSync(dir, { recursive: true, force: true }); });

/** The rows at `depth`: label and each column's value. @param {import('playwright-core').Page} p @param {number} depth */
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

test('a regions file imported in the view: Regions of Interest as export --regions has them, the link names it, a bad file says its line', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  const want = exportRows(trace(), ['--table', 'regions', '--group', 'Region', '--values', 'Count,Duration'], true);
  assert.equal(want.length, 1);
  await p.goto(`${srv.url}/t/${srv.ids[1]}`);
  await waitTable(p);
  // No regions file yet: no Regions of Interest tab.
  assert.equal(await p.$('[data-testid=tab-regions]'), null);
  assert.equal(await p.$eval('[data-testid=tab-more]', (s) => [.../** @type {HTMLSelectElement} */ (s).options].some((o) => o.value === 'tab-regions')), false);

  // A bad file: the notice names the file and the line; nothing changes.
  await p.setInputFiles('[data-testid=regions-file]', badFile);
  await p.waitForFunction(() => /broken\.regions\.xml/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
  const bad = await p.textContent('[data-testid=notices]');
  assert.match(bad || '', /Cannot import broken\.regions\.xml: .*line 3/);
  assert.equal(new URL(p.url()).searchParams.get('regions'), null);

  await p.setInputFiles('[data-testid=regions-file]', regionsFile);
  await p.waitForFunction(() => new URLSearchParams(location.search).get('regions') === 'gc');
  assert.match(await p.textContent('[data-testid=notices]') || '', /Regions "gc" imported: 1 timed region/);
  await clickTab(p, 'regions');
  const top = await rowsAt(p, 0);
  assert.deepEqual(top.map((r) => [r.label, Number(r.values.Count)]), want.map((w) => [w.Region, w.Count]));
  assert.ok(Math.abs(Number(top[0].values.Duration) - want[0].Duration) < 1e-6, `${top[0].values.Duration} vs ${want[0].Duration}`);

  // The link, opened in a new page, names the file: the same table.
  const link = p.url();
  assert.equal(new URL(link).searchParams.get('regions'), 'gc');
  const p2 = await c.newPage();
  await p2.goto(link);
  await waitTable(p2);
  const again = await rowsAt(p2, 0);
  assert.deepEqual(again, top);
  assert.equal(await p2.$eval('[data-testid=regions]', (s) => /** @type {HTMLSelectElement} */ (s).value), 'gc');
  // The same trace without the file (another view of the same server): no instances.
  await p2.goto(`${srv.url}/t/${srv.ids[1]}?t=regions`);
  await waitTable(p2);
  assert.deepEqual(await rowsAt(p2, 0), []);
  process.stderr.write(`regions from the UI: ${want[0].Count} GCs, ${want[0].Duration} s\n`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('CPU Usage (Sampled) keyed and filtered by Region (a regions file from the UI) equals export --regions with the same key', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  const want = exportRows(trace(), ['--table', 'cpu-sampled', '--group', 'Region', '--values', 'Count,Weight'], true);
  assert.equal(want.length, 2, JSON.stringify(want));
  await p.goto(`${srv.url}/t/${srv.ids[1]}`);
  await waitTable(p);
  await p.setInputFiles('[data-testid=regions-file]', regionsFile);
  await p.waitForFunction(() => new URLSearchParams(location.search).get('regions') === 'gc');
  // Group by Region as a user's link says it.
  const q = new URLSearchParams(new URL(p.url()).search);
  q.set('t', 'cpu-sampled');
  q.set('g', 'Region');
  q.set('c', 'Count,Weight (ms)');
  await p.goto(`${srv.url}/t/${srv.ids[1]}?${q}`);
  await waitTable(p);
  const rows = await rowsAt(p, 0);
  // Outside every instance the key is empty (export's ''), which the table shows as "(none)".
  const label = (/** @type {string} */ r) => r || '(none)';
  assert.deepEqual(rows.map((r) => [r.label, Number(r.values.Count)]).sort(), want.map((w) => [label(w.Region), w.Count]).sort());
  for (const w of want) {
    const r = rows.find((x) => x.label === label(w.Region));
    assert.ok(r && Math.abs(Number(r.values['Weight (ms)']) - w.Weight * 1000) < 1e-3, `${label(w.Region)}: ${r && r.values['Weight (ms)']} vs ${w.Weight * 1000}`);
  }
  // Inside CLR/GC only (the filter a right-click makes): export's filtered count.
  const inside = exportRows(trace(), ['--table', 'cpu-sampled', '--filter', 'Region=CLR/GC', '--group', 'Process', '--values', 'Count'], true);
  q.set('g', 'Process');
  q.append('f', 'Region=CLR/GC');
  await p.goto(`${srv.url}/t/${srv.ids[1]}?${q}`);
  await waitTable(p);
  const byProcess = await rowsAt(p, 0);
  assert.deepEqual(byProcess.map((r) => [r.label, Number(r.values.Count)]).sort(), inside.map((x) => [x.Process, x.Count]).sort());
  // Outside CLR/GC (an excluding filter): export's `Region!=CLR/GC`.
  const outside = exportRows(trace(), ['--table', 'cpu-sampled', '--filter', 'Region!=CLR/GC', '--group', 'Process', '--values', 'Count'], true);
  q.delete('f');
  q.append('x', 'Region=CLR/GC');
  await p.goto(`${srv.url}/t/${srv.ids[1]}?${q}`);
  await waitTable(p);
  const out = await rowsAt(p, 0);
  assert.deepEqual(out.map((r) => [r.label, Number(r.values.Count)]).sort(), outside.map((x) => [x.Process, x.Count]).sort());
  process.stderr.write(`cpu-sampled by Region: ${JSON.stringify(want)}\n`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('Window in Focus: a lane on the timeline with one bar per focus span, as export has them', async () => {
  const { p, c, errors } = await openPage(browser);
  const want = exportRows(focusFile, ['--table', 'window-in-focus', '--rows']);
  assert.ok(want.length >= 3, JSON.stringify(want));
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.waitForFunction(() => JSON.parse(document.querySelector('[data-testid=timeline]')?.getAttribute('data-focus') || '[]').length > 0);
  const lane = JSON.parse(/** @type {string} */ (await p.getAttribute('[data-testid=timeline]', 'data-focus')));
  assert.deepEqual(lane.map((/** @type {any} */ b) => [b.label, b.start_s, b.end_s]),
    want.map((w) => [w.Process, w['Start Time'], w['End Time']]));
  process.stderr.write(`focus lane: ${lane.length} spans\n`);
  assert.deepEqual(errors, []);
  await c.close();
});
