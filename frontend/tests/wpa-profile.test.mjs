// WPA profiles as presets on the demo trace: import the hand-written tests/fixtures/explorer.wpaProfile,
// see what could not be mapped listed, open its preset (table, key columns, value columns with their
// aggregations, sort, filter) and check its numbers against `etlscope export`; then export every
// preset to our JSON file and import it back in a fresh browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const PROFILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/explorer.wpaProfile');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
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

test('a .wpaProfile imports as presets that open the views it describes; presets export and import back', async () => {
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.setInputFiles('[data-testid=preset-file]', PROFILE);
  await p.waitForFunction(() => /Imported 2 preset/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
  const notices = await p.textContent('[data-testid=notices]') || '';
  // What WPA has and etlscope does not: listed by name.
  for (const x of ['value column "Priority"', 'hidden column "Thread Name"', 'GraphColumnCount 5', 'LeftFrozenColumnCount 2', 'metadata entry "Thread ID"']) {
    assert.ok(notices.includes(x), `${x} not in ${notices}`);
  }

  await choose(p, 'Explorer by Module, Function');
  await waitTable(p);
  const u = new URL(p.url()).searchParams;
  assert.equal(u.get('t'), 'cpu-sampled');
  assert.equal(u.get('g'), 'Module,Function');
  assert.equal(u.get('c'), 'Count,Weight (ms)');
  assert.equal(u.get('s'), 'Count');
  assert.equal(u.get('asc'), null);
  assert.deepEqual(u.getAll('f'), ['Process Name=explorer.exe']);
  const want = exportRows(DEMO, ['--table', 'cpu-sampled', '--group', 'Module', '--filter', 'Process Name=explorer.exe']);
  const got = await column(p, 'Count');
  assert.ok(got.length > 3, JSON.stringify(got));
  for (const [label, count] of got) {
    const row = want.find((r) => r.Module === label);
    assert.ok(row, `${label} not exported`);
    assert.equal(Number(count.replace(/,/g, '')), row.Count, label);
  }
  // Sorted by Count, descending.
  const counts = got.map(([, c]) => Number(c.replace(/,/g, '')));
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a));

  await choose(p, 'Largest images by process');
  await waitTable(p);
  const v = new URL(p.url()).searchParams;
  assert.equal(v.get('t'), 'images');
  assert.equal(v.get('g'), 'Process,Image Name');
  assert.equal(v.get('c'), 'Image Size:max,Load Time:min');
  assert.equal(v.get('s'), 'Image Size:max');
  // Its processes, by their largest image first (the export's figure per process).
  const maxSize = new Map(exportRows(DEMO, ['--table', 'images', '--group', 'Process', '--values', 'Image Size:max'])
    .map((r) => [r.Process, Number(r['Image Size:max'])]));
  const shown = (await column(p, 'Image Size')).map(([label]) => label);
  assert.deepEqual([...shown].sort(), [...maxSize.keys()].sort());
  const order = shown.map((l) => maxSize.get(l) || 0);
  assert.deepEqual(order, [...order].sort((a, b) => b - a));

  // Export every preset, then import the file into a browser that has none of ours.
  const dl = p.waitForEvent('download');
  await p.selectOption('[data-testid=preset]', 'export');
  const file = await (await dl).path();
  const text = fs.readFileSync(String(file), 'utf8');
  const saved = JSON.parse(text);
  assert.equal(saved.etlscope_presets, 1);
  assert.ok(saved.presets.some((/** @type {any} */ x) => x.name === 'Explorer by Module, Function'));
  assert.deepEqual(errors, []);

  const fresh = await newPage(browser);
  await fresh.p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(fresh.p);
  assert.equal(await fresh.p.$$eval('[data-testid=preset] option', (os) => os.filter((o) => o.textContent === 'Explorer by Module, Function').length), 0);
  const json = path.join(path.dirname(String(file)), 'etlscope-presets.json');
  fs.writeFileSync(json, text);
  await fresh.p.setInputFiles('[data-testid=preset-file]', json);
  await fresh.p.waitForFunction(() => /Imported \d+ preset/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
  await choose(fresh.p, 'Explorer by Module, Function');
  await waitTable(fresh.p);
  const w = new URL(fresh.p.url()).searchParams;
  for (const k of ['t', 'g', 'c', 's']) assert.equal(w.get(k), u.get(k), k);
  assert.deepEqual(w.getAll('f'), ['Process Name=explorer.exe']);
  assert.deepEqual(fresh.errors, []);
});
