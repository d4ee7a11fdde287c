// The Across traces page (issue 38) on a library of 21 writer-made builds of the demo whose shell
// extension's CPU cost drifts (`etlscope synth explorer-overlay --shell-extension-permille N
// --days-later B`: build B recorded B days after the demo, each uploaded with the label
// `build=B`) and every real trace in the folder: the page, reached from the library, finds the
// builds the writer was told to make expensive, grouped by build and over time, with values equal to each
// trace's own SQL answer and (inclusive) to what the writer was told (26,000 samples at 1000
// permille, scaled); a click on a point opens that trace's CPU Usage (Sampled) filtered to
// explorer.exe and the extension's module, whose Count is that value again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, waitTable, rowsAt } from './browser.mjs';
import { buildRelease, startServer, binary, realTraces } from './server.mjs';

const MODULE = 'tishell64_26_0_39450.dll';
/** The extension's samples at 1000 permille (crates/synth/src/explorer.rs, its window work). */
const AT_1000 = 26000;
/** Builds 1..21: the cost drifts from 500 to 580 permille, and builds 7, 15 and 19 jump past 1,200. */
const REGRESSED = new Set([7, 15, 19]);
const BUILDS = Array.from({ length: 21 }, (_, i) => i + 1).map((b) => ({ build: b, permille: REGRESSED.has(b) ? 1200 + 10 * b : 500 + 4 * b }));

/** Every real trace in the folder (none when it is missing, outside CI): in the library beside the builds. */
const realDir = realTraces();
const REAL = realDir ? fs.readdirSync(realDir).filter((f) => /\.(etl|etl\.zip|diagsession)$/.test(f)).sort() : [];
/** A day in seconds. */
const DAY = 86400;

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let dir = '';

/** Trace id by build, from the library's list. @type {Map<number, string>} */
const ids = new Map();

/**
 * The extension's samples in explorer.exe in build `b`, asked of that one trace's own tables
 * (`POST /api/traces/{id}/sql`, the per-trace SQL, not the library's summaries): those whose leaf
 * frame is in it, or (inclusive) with a frame of it anywhere on the stack.
 * @param {number} b @param {boolean} inclusive
 */
async function writtenSamples(b, inclusive) {
  const where = inclusive ? `stack_contains(stack, '${MODULE}!')` : `module = '${MODULE}'`;
  const r = await fetch(`${srv.url}/api/traces/${ids.get(b)}/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-etlscope': '1' }, body: JSON.stringify({ sql: `SELECT count(*) FROM cpu_sampled WHERE process_name = 'explorer.exe' AND ${where}` }) });
  const a = await r.json();
  assert.ok(r.ok, JSON.stringify(a));
  return a.rows[0][0];
}

before(async () => {
  buildRelease();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-across-'));
  for (const b of BUILDS) {
    const out = path.join(dir, `p${b.permille}.etl`);
    const r = spawnSync(binary(), ['synth', 'explorer-overlay', '-o', out, '--shell-extension-permille', String(b.permille), '--days-later', String(b.build)], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  srv = await startServer([]);
  for (const b of BUILDS) {
    const body = fs.readFileSync(path.join(dir, `p${b.permille}.etl`));
    const q = new URLSearchParams({ name: `build-${b.build}.etl`, notes: `build=${String(b.build).padStart(2, '0')}` });
    const r = await fetch(`${srv.url}/api/traces?${q}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'x-etlscope': '1' }, body });
    assert.ok(r.status === 201, `upload of build ${b.build}: ${r.status} ${await r.text()}`);
  }
  for (const name of REAL) {
    const body = fs.readFileSync(path.join(/** @type {string} */ (realDir), name));
    const r = await fetch(`${srv.url}/api/traces?${new URLSearchParams({ name })}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'x-etlscope': '1' }, body });
    assert.ok(r.status === 201, `upload of ${name}: ${r.status} ${await r.text()}`);
  }
  // Every trace's summary is in the library.
  const all = BUILDS.length + REAL.length;
  for (let i = 0; ; i++) {
    const r = await fetch(`${srv.url}/api/sql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-etlscope': '1' }, body: JSON.stringify({ sql: 'SELECT count(*) FROM library_traces' }) });
    const a = await r.json();
    if (r.ok && a.rows[0][0] === all) break;
    if (i > 1200) throw new Error(`summaries never reached ${all}: ${JSON.stringify(a)}`);
    await new Promise((res) => setTimeout(res, 250));
  }
  const { traces } = await (await fetch(`${srv.url}/api/traces`)).json();
  for (const t of traces) ids.set(Number(/build-(\d+)\.etl/.exec(t.name)?.[1]), t.id);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

test('Across traces finds the builds whose shell extension regressed, and a point opens that trace\'s view', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(srv.url);
  await p.click('[data-testid=across-link]');
  await p.waitForURL(/\/across/);
  await p.fill('[data-testid=across-p]', 'explorer.exe');
  await p.fill('[data-testid=across-mod]', MODULE);
  await p.fill('[data-testid=across-by]', 'build');
  await p.click('[data-testid=across-show]');
  await p.waitForSelector('[data-testid=across-status][data-rows]');
  await p.waitForSelector('[data-testid=across-chart][data-kind=bars]');

  // One bar per build, in build order, each the extension's samples the writer wrote; before them
  // (no build label) the real traces where explorer.exe ran, at 0: perfview-net452-x64.etl's
  // explorer.exe (2876) has 24 samples in the Python reference, none in the extension.
  const all = await p.$eval('[data-testid=across-chart]', (e) => /** @type {any} */ (e).__chart.bars);
  const bars = all.filter((/** @type {any} */ b) => /^build=\d/.test(b.label));
  const real = all.filter((/** @type {any} */ b) => !/^build=\d/.test(b.label));
  if (REAL.includes('perfview-net452-x64.etl')) assert.ok(real.some((/** @type {any} */ b) => b.label === 'build=(none) · perfview-net452-x64.etl'), JSON.stringify(real));
  for (const b of real) {
    assert.ok(REAL.includes(b.label.replace('build=(none) · ', '')), b.label);
    assert.equal(b.value, 0, b.label);
  }
  assert.deepEqual(bars.map((/** @type {any} */ b) => b.label), BUILDS.map((b) => `build=${String(b.build).padStart(2, '0')} · build-${b.build}.etl`));
  const want = await Promise.all(BUILDS.map((b) => writtenSamples(b.build, false)));
  assert.deepEqual(bars.map((/** @type {any} */ b) => b.value), want);
  // The flagged rows are the regressed builds.
  const flagged = await p.$$eval('[data-testid=across-rows] tbody tr[data-flagged="1"] td:first-child', (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(flagged.sort(), [...REGRESSED].map((b) => `build-${b}.etl`).sort());
  console.log(`by build: ${bars.length} bars, ${want[0]}..${want[want.length - 1]} samples; flagged ${flagged.join(', ')}`);

  // Inclusive: the writer's own figure, 26,000 samples at 1000 permille scaled (rounded down per kind of work).
  await p.selectOption('[data-testid=across-inc]', '1');
  await p.click('[data-testid=across-show]');
  await p.waitForURL(/inc=1/);
  await p.waitForFunction(() => /inclusive/.test(document.querySelector('[data-testid=across-chart] .tg-title')?.textContent || ''));
  const inclusive = await p.$eval('[data-testid=across-chart]', (e) => /** @type {any} */ (e).__chart.bars.filter((/** @type {any} */ b) => /^build=\d/.test(b.label)).map((/** @type {any} */ b) => b.value));
  assert.deepEqual(inclusive, await Promise.all(BUILDS.map((b) => writtenSamples(b.build, true))));
  for (const [i, b] of BUILDS.entries()) assert.ok(Math.abs(inclusive[i] - (AT_1000 * b.permille) / 1000) < 10, `build ${b.build}: ${inclusive[i]} samples, the writer was told ${(AT_1000 * b.permille) / 1000}`);
  await p.selectOption('[data-testid=across-inc]', '0');

  // Over time (build B recorded B days after the demo): one point per build a day apart, left to
  // right in build order, with the same values and the same flags (the real traces' zeros are never flagged).
  await p.fill('[data-testid=across-by]', '');
  await p.click('[data-testid=across-show]');
  await p.waitForSelector('[data-testid=across-chart][data-kind=time]');
  const allPoints = await p.$eval('[data-testid=across-chart]', (e) => /** @type {any} */ (e).__chart.points);
  assert.equal(allPoints.length, BUILDS.length + real.length);
  const points = allPoints.filter((/** @type {any} */ x) => /^build-\d+\.etl$/.test(x.label));
  assert.equal(points.length, BUILDS.length);
  const byTime = [...points].sort((/** @type {any} */ u, /** @type {any} */ v) => u.x - v.x);
  assert.deepEqual(byTime.map((/** @type {any} */ x) => x.label), BUILDS.map((b) => `build-${b.build}.etl`));
  assert.deepEqual(byTime.map((/** @type {any} */ x) => x.y), want);
  for (const [i, x] of byTime.entries()) if (i > 0) assert.equal(x.x - byTime[i - 1].x, DAY, `${x.label} a day after ${byTime[i - 1].label}`);
  for (const [i, x] of byTime.entries()) if (i > 0) assert.ok(x.px > byTime[i - 1].px, `${x.label} right of ${byTime[i - 1].label}`);
  assert.deepEqual(allPoints.filter((/** @type {any} */ x) => x.flagged).map((/** @type {any} */ x) => x.label).sort(), [...REGRESSED].map((b) => `build-${b}.etl`).sort());
  console.log(`over time: ${points.length} points a day apart among ${BUILDS.length + REAL.length} traces (${REAL.length} real)`);

  // A click on a regressed point opens that trace's CPU Usage (Sampled), filtered to the process and module.
  const target = points.find((/** @type {any} */ x) => x.label === 'build-15.etl');
  const box = await p.locator('[data-testid=across-chart-canvas]').boundingBox();
  if (!box) throw new Error('no chart');
  await p.mouse.click(box.x + target.px, box.y + target.py);
  await p.waitForURL(/\/t\/[0-9a-f]{32}\?.*t=cpu-sampled/);
  await waitTable(p);
  const id = /\/t\/([0-9a-f]{32})/.exec(p.url())?.[1];
  const entry = await (await fetch(`${srv.url}/api/traces/${id}`)).json();
  assert.equal(entry.name, 'build-15.etl');
  const top = await rowsAt(p, 0);
  assert.equal(top.length, 1, JSON.stringify(top));
  assert.match(top[0].label, /^explorer\.exe \(\d+\)$/);
  assert.equal(Number(top[0].values.Count), want[14]);
  const chips = await p.$$eval('[data-testid=filters] .fchip span:first-child', (s) => s.map((x) => x.textContent));
  assert.ok(chips.some((t) => t === `Module = ${MODULE}`), JSON.stringify(chips));
  console.log(`clicked build-15: ${top[0].label} Count ${top[0].values.Count} (the writer's ${want[14]})`);
  assert.deepEqual(errors, []);
  await c.close();
});
