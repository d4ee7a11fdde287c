// WPA profiles as presets on the demo trace: import a public WPA user's profile (Microsoft's
// MSO-Scripts CPU.wpaProfile, kept in ../shared/wpa-files; ETLSCOPE_WPA_FILES overrides), which the
// server maps (POST /api/wpa-profile); see one summary line per preset with the details folded, open
// "Samples by Process" (key columns left of WPA's gold bar, Count, Weight and % Weight with their
// aggregations, sort) and check its numbers against `etlscope export`; then export every preset to
// our JSON file and import it back in a fresh browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, underCi } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const WPA_FILES = process.env.ETLSCOPE_WPA_FILES || path.resolve(repoRoot, '../shared/wpa-files');
const PROFILE = path.join(WPA_FILES, 'office-CPU.wpaProfile');
const missing = !fs.existsSync(PROFILE);
if (missing) {
  const msg = `\n!!! SKIPPING the WPA profile browser test: ${PROFILE} is missing (set ETLSCOPE_WPA_FILES) !!!\n`;
  if (underCi) throw new Error(msg);
  process.stderr.write(msg);
}
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  if (missing) return;
  buildRelease();
  srv = await startServer([DEMO]);
  for (let i = 0; i < 600; i++) {
    const s = await (await fetch(`${srv.url}/api/traces/${srv.ids[0]}/summary`)).json();
    if (s.symbols && s.symbols.status === 'done') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** Choose the preset named `name`. @param {import('playwright-core').Page} p @param {string} name */
const choose = (p, name) => p.selectOption('[data-testid=preset]', { label: name });

/** Top-level rows: label -> the cell under header `col`. @param {import('playwright-core').Page} p @param {string} col */
async function column(p, col) {
  const heads = await p.$$eval('[data-testid=table] thead th', (ths) => ths.map((th) => (th.textContent || '').trim()));
  const at = heads.findIndex((x) => x.startsWith(col));
  assert.ok(at >= 0, `${col} not in ${JSON.stringify(heads)}`);
  return p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs, i) => trs.map((tr) => [
    (tr.querySelector('td.label .txt')?.textContent || '').trim(), ((tr.querySelectorAll('td')[i]?.textContent) || '').trim(),
  ]), at);
}

test('a public .wpaProfile imports as presets that open the views it describes; presets export and import back', { skip: missing }, async () => {
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.setInputFiles('[data-testid=preset-file]', PROFILE);
  await p.waitForFunction(() => /Imported 3 preset/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
  // One summary line per preset of the file (five), the details folded under it.
  const lines = await p.$$eval('[data-testid=notices] .notice > span', (ss) => ss.map((s) => s.textContent || ''));
  for (const name of ['Context Switch Lifetime', 'Delays By Process, Type', 'Samples by Process', 'Timelines by Process', 'Samples by Source/Line']) {
    assert.equal(lines.filter((l) => l.startsWith(`"${name}"`)).length, 1, `${name}: ${JSON.stringify(lines)}`);
  }
  assert.ok(lines.some((l) => l.startsWith('"Delays By Process, Type": skipped')), JSON.stringify(lines));
  assert.ok(lines.some((l) => /^"Samples by Process": cpu-sampled, 2 key, 3 value columns; 3 items not mapped$/.test(l)), JSON.stringify(lines));
  assert.equal(await p.$$eval('[data-testid=notices] details[open]', (d) => d.length), 0);
  const details = await p.$$eval('[data-testid=notices] details li', (li) => li.map((x) => x.textContent || ''));
  assert.ok(details.includes('not mapped: key column "Thread Start Module": cpu-sampled has no such column'), JSON.stringify(details));

  await choose(p, 'Samples by Process');
  await waitTable(p);
  const u = new URL(p.url()).searchParams;
  assert.equal(u.get('t'), 'cpu-sampled');
  assert.equal(u.get('g'), 'Process Name,Stack');
  assert.equal(u.get('c'), 'Count,Weight,% Weight');
  assert.equal(u.get('s'), '% Weight');
  assert.equal(u.get('asc'), null);
  const want = exportRows(DEMO, ['--table', 'cpu-sampled', '--group', 'Process Name']);
  const got = await column(p, 'Count');
  assert.ok(got.length > 3, JSON.stringify(got));
  for (const [label, count] of got) {
    const row = want.find((r) => r['Process Name'] === label);
    assert.ok(row, `${label} not exported`);
    assert.equal(Number(count.replace(/,/g, '')), row.Count, label);
  }
  // Sorted by % Weight, descending: the counts fall with it.
  const counts = got.map(([, c]) => Number(c.replace(/,/g, '')));
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a));

  // Export every preset, then import the file into a browser that has none of ours.
  const dl = p.waitForEvent('download');
  await p.selectOption('[data-testid=preset]', 'export');
  const file = await (await dl).path();
  const text = fs.readFileSync(String(file), 'utf8');
  const saved = JSON.parse(text);
  assert.equal(saved.etlscope_presets, 1);
  assert.ok(saved.presets.some((/** @type {any} */ x) => x.name === 'Samples by Process'));
  assert.deepEqual(errors, []);

  const fresh = await newPage(browser);
  await fresh.p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(fresh.p);
  assert.equal(await fresh.p.$$eval('[data-testid=preset] option', (os) => os.filter((o) => o.textContent === 'Samples by Process').length), 0);
  const json = path.join(path.dirname(String(file)), 'etlscope-presets.json');
  fs.writeFileSync(json, text);
  await fresh.p.setInputFiles('[data-testid=preset-file]', json);
  await fresh.p.waitForFunction(() => /Imported \d+ preset/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
  await choose(fresh.p, 'Samples by Process');
  await waitTable(fresh.p);
  const w = new URL(fresh.p.url()).searchParams;
  for (const k of ['t', 'g', 'c', 's']) assert.equal(w.get(k), u.get(k), k);
  assert.deepEqual(fresh.errors, []);
});
