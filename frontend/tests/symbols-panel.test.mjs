// The Symbols panel on the demo trace served without its PDBs (a copy of the .etl in a folder with
// no symbols/ beside it, no symbol path): giving the PDB folder as the trace's symbol path and
// pressing Load renames the drilled Stack rows in place, and a link copied before opens the same
// rows, now named; dropping one PDB on the panel names that module's frames only. Expected names
// and counts come from `etlscope export` on the demo WITH its symbols (tests/export.mjs), never
// from the API the page renders. The header's Symbols chip follows the load (as many frames named
// as `etlscope export --symbol-path` names).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { spawnSync } from 'node:child_process';
import { exportRows, groupedFrame, moduleOf, exportPrefixCount } from './export.mjs';
import { binary } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const PDBS = path.join(repoRoot, 'traces/symbols');
const PROC = 'explorer.exe (6148)';
const MOD = 'windows.storage.dll';
const SEP = ' › ';
/** @type {import('playwright-core').Browser} */ let browser;
let dir = '';
let copy = '';

before(async () => {
  buildRelease();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-symui-'));
  copy = path.join(dir, 'explorer-overlay.etl');
  fs.copyFileSync(DEMO, copy);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

/** A server of the bare copy, its symbol lookup (which finds nothing) ended. */
async function bareServer() {
  const srv = await startServer([copy]);
  await symbolsDone(srv.url, srv.ids[0]);
  return srv;
}

/** @param {string} url @param {string} id */
async function symbolsDone(url, id) {
  for (let i = 0; i < 300; i++) {
    if ((await (await fetch(`${url}/api/traces/${id}/symbols`)).json()).status === 'done') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('symbol lookup did not end');
}

/**
 * The heaviest path under PROC, as the UI's Stack rows name it (unnamed frames as module!?), down
 * to the first frame in MOD, from `etlscope export` rows (each stack root first).
 * @param {any[]} rows
 */
function heaviestPathTo(rows) {
  const mine = rows.filter((r) => r.Process === PROC).map((r) => ({ st: r.Stack.split(';').map(groupedFrame), n: r.Count }));
  /** @type {string[]} */
  const labels = [];
  for (let depth = 0; depth < 40; depth++) {
    const kids = new Map();
    for (const r of mine) {
      if (r.st.length > depth && labels.every((l, i) => r.st[i] === l)) kids.set(r.st[depth], (kids.get(r.st[depth]) || 0) + r.n);
    }
    const best = [...kids.entries()].sort((a, b) => b[1] - a[1])[0];
    if (!best) break;
    labels.push(best[0]);
    if (moduleOf(best[0]) === MOD) return labels;
  }
  throw new Error(`no ${MOD} frame on the heaviest path: ${labels.join(' > ')}`);
}

/**
 * What `etlscope export` says on stderr when it names the bare copy's frames along `symbolPath`:
 * "symbols: N PDBs loaded, X of Y module frames named". @param {string} symbolPath
 */
function exportNaming(symbolPath) {
  const r = spawnSync(binary(), ['export', copy, '--format', 'json', '--table', 'cpu-sampled', '--group', 'Process', '--symbol-path', symbolPath], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const m = /symbols: (\d+) PDBs loaded, (\d+) of (\d+) module frames named/.exec(r.stderr);
  assert.ok(m, r.stderr);
  return { loaded: Number(m[1]), named: Number(m[2]), frames: Number(m[3]) };
}

/** The trace header's Symbols chip: its text and whether it warns. @param {any} p */
const symbolsChip = (p) => p.$$eval('[data-testid=trace-info] .chip', (cs) => {
  const c = cs.find((x) => x.querySelector('.k')?.textContent === 'Symbols');
  return c ? { text: c.querySelector('.v')?.textContent || '', warn: c.classList.contains('warn') } : null;
});

const cssString = (/** @type {string} */ s) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
const selectedPath = (/** @type {any} */ p) => p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path').split(' › '));
const rowCount = (/** @type {any} */ p, /** @type {string[]} */ labels) => p.$eval(`[data-testid=table] tr[data-path="${cssString(labels.join(SEP))}"] td.num`, (td) => Number(td.textContent.replace(/,/g, '')));
/** The Symbols panel's row of a module: its status attribute. @param {any} p @param {string} mod */
const moduleStatus = (p, mod) => p.$eval(`[data-testid=symbols-module][data-module="${mod}"]`, (tr) => tr.getAttribute('data-status'));
/** Wait until the selected row's path is `want`. @param {any} p @param {string[]} want */
const waitSelected = (p, want) => p.waitForFunction((w) => document.querySelector('[data-testid=table] tr.sel')?.getAttribute('data-path') === w, want.join(SEP), { timeout: 30000 });

/** Drill the heaviest path of PROC with the keyboard, `levels` frames deep. @param {any} p @param {number} levels */
async function drill(p, levels) {
  await p.click(`[data-testid=table] tr[data-path="${PROC}"]`);
  let labels = [PROC];
  for (let i = 0; i < levels; i++) {
    await p.keyboard.press('ArrowRight');
    await p.waitForFunction((n) => document.querySelectorAll(`[data-testid=table] tr[data-depth="${n}"]`).length > 0, labels.length);
    await p.keyboard.press('ArrowDown');
    labels = await selectedPath(p);
  }
  return labels;
}

test('symbols configured and loaded from the panel rename frames in place; a link copied before opens the same rows', async (t) => {
  const bareRows = exportRows(copy, ['--range', '7-23', '--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const namedRows = exportRows(DEMO, ['--range', '7-23', '--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const before = heaviestPathTo(bareRows);
  const srv = await bareServer();
  try {
    const id = srv.ids[0];
    const { p, c, errors } = await newPage(browser);
    await p.goto(`${srv.url}/t/${id}?v=1&t=cpu-sampled&g=Process,Stack&r=7-23`);
    await waitTable(p);
    const labels = await drill(p, before.length);
    assert.deepEqual(labels, [PROC, ...before], 'the unnamed heaviest path, as export gives it');
    assert.ok(labels.slice(1).every((l) => l.endsWith('!?')), labels.join(' > '));
    const count = await rowCount(p, labels);
    assert.equal(count, exportPrefixCount(bareRows.map((r) => ({ ...r, Stack: r.Stack.split(';').map(groupedFrame).join(';') })), PROC, labels.slice(1)));
    const link = p.url();

    // The panel: the module has no PDB yet, and says where it looked.
    await p.click('[data-testid=symbols-toggle]');
    await p.waitForSelector(`[data-testid=symbols-module][data-module="${MOD}"]`);
    assert.equal(await moduleStatus(p, MOD), 'not found');
    const looked = await p.$eval(`[data-testid=symbols-module][data-module="${MOD}"] td:last-child`, (td) => td.textContent);
    assert.match(looked, /symbols/, `where it looked: ${looked}`);

    // The header's Symbols chip: nothing named yet.
    const naming = exportNaming(PDBS);
    const fmt = (/** @type {number} */ n) => n.toLocaleString('en-US');
    const chipBefore = await symbolsChip(p);
    assert.ok(chipBefore && chipBefore.text.startsWith(`0 of ${fmt(naming.frames)} frames named`) && chipBefore.warn, JSON.stringify(chipBefore));

    // The PDB folder as the trace's symbol path, then Load: the drilled rows get their names in place.
    await p.fill('[data-testid=symbol-path]', PDBS);
    await p.click('[data-testid=symbols-load]');
    await p.waitForFunction((m) => document.querySelector('[data-testid=symbols]')?.getAttribute('data-status') === 'done'
      && document.querySelector(`[data-testid=symbols-module][data-module="${m}"]`)?.getAttribute('data-status') === 'loaded', MOD, { timeout: 60000 });
    // The same rows (the link names them by module and RVA), now each a function of the named
    // export under the same prefix, in the same modules.
    await p.waitForFunction((n) => { const r = document.querySelector('[data-testid=table] tr.sel'); return r && !r.getAttribute('data-path').includes('!?') && r.getAttribute('data-path').split(' › ').length === n; }, labels.length, { timeout: 30000 });
    const want = await selectedPath(p);
    assert.deepEqual(want.map(moduleOf), labels.map(moduleOf), `same modules: ${want.join(' > ')}`);
    const inNamed = exportPrefixCount(namedRows, PROC, want.slice(1));
    assert.ok(inNamed > 0, `a path of the named export: ${want.join(' > ')}`);
    assert.equal(await rowCount(p, want), inNamed);
    assert.equal(p.url(), link, 'the view did not move');
    t.diagnostic(`renamed in place: ${want.join(' > ')} (${inNamed} samples)`);
    assert.equal(await p.inputValue('[data-testid=symbol-path]'), PDBS);
    // The header's Symbols chip follows the lookup: as many frames named and PDBs loaded as export
    // names along the same path.
    const chipText = `${fmt(naming.named)} of ${fmt(naming.frames)} frames named`;
    await p.waitForFunction((want) => [...document.querySelectorAll('[data-testid=trace-info] .chip')]
      .some((c) => c.querySelector('.k')?.textContent === 'Symbols' && (c.querySelector('.v')?.textContent || '').startsWith(want)), chipText, { timeout: 30000 });
    const chipAfter = await symbolsChip(p);
    assert.ok(chipAfter && chipAfter.text.includes(`${fmt(naming.loaded)} loaded`) && !chipAfter.warn, JSON.stringify(chipAfter));

    // The link copied before symbols opens the same rows, now named.
    const again = await newPage(browser);
    await again.p.goto(link);
    await waitTable(again.p);
    await waitSelected(again.p, want);
    assert.equal(await rowCount(again.p, want), exportPrefixCount(namedRows, PROC, want.slice(1)));
    assert.equal(await again.p.$$eval('[data-testid=notices] .notice', (n) => n.length), 0);
    assert.deepEqual([...errors, ...again.errors], []);
    await again.c.close();
    await c.close();
  } finally { srv.stop(); }
});

test("dropping a PDB on the panel renames that module's frames", async () => {
  const bareRows = exportRows(copy, ['--range', '7-23', '--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const namedRows = exportRows(DEMO, ['--range', '7-23', '--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const before = heaviestPathTo(bareRows);
  const namedFrames = new Set(namedRows.flatMap((r) => r.Stack.split(';')));
  const srv = await bareServer();
  try {
    const { p, c, errors } = await newPage(browser);
    await p.goto(`${srv.url}/t/${srv.ids[0]}?v=1&t=cpu-sampled&g=Process,Stack&r=7-23`);
    await waitTable(p);
    const labels = await drill(p, before.length);
    await p.click('[data-testid=symbols-toggle]');
    await p.waitForSelector(`[data-testid=symbols-module][data-module="${MOD}"]`);
    // traces/symbols is in symstore layout: name.pdb/GUIDAGE/name.pdb.
    const slot = path.join(PDBS, 'windows.storage.pdb');
    const key = fs.readdirSync(slot)[0];
    const bytes = fs.readFileSync(path.join(slot, key, 'windows.storage.pdb')).toString('base64');
    const dt = await p.evaluateHandle((b64) => {
      const bin = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const d = new DataTransfer();
      d.items.add(new File([bin], 'windows.storage.pdb'));
      return d;
    }, bytes);
    await p.dispatchEvent('[data-testid=symbols]', 'drop', { dataTransfer: dt });
    await p.waitForFunction((m) => document.querySelector(`[data-testid=symbols-module][data-module="${m}"]`)?.getAttribute('data-status') === 'loaded', MOD, { timeout: 60000 });
    // Only MOD's rows get names (functions of the named export); the other modules' stay module!?.
    await p.waitForFunction((m) => { const r = document.querySelector('[data-testid=table] tr.sel'); return r && r.getAttribute('data-path').split(' › ').some((l) => l.startsWith(`${m}!`) && !l.endsWith('!?')); }, MOD, { timeout: 30000 });
    const got = await selectedPath(p);
    assert.deepEqual(got.map(moduleOf), labels.map(moduleOf));
    for (const [i, l] of got.entries()) {
      if (i === 0) continue;
      if (moduleOf(l) === MOD) assert.ok(namedFrames.has(l), `${l} is a function the named export has`);
      else assert.equal(l, labels[i], 'other modules stay unnamed');
    }
    assert.equal(await moduleStatus(p, 'ntdll.dll'), 'not found', 'only the dropped PDB is loaded');
    assert.deepEqual(errors, []);
    await c.close();
  } finally { srv.stop(); }
});
