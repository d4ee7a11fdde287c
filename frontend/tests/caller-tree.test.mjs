// View Callers / View Callees on the demo trace, by real mouse and keyboard: search "Process32NextW",
// pick it from the list, expand the caller tree up the heaviest path to the shell's overlay lookup
// (windows.storage.dll!CFSFolder::_GetOverlayInfo), and by module two levels up to its module. Every count
// on the page equals a fold, done here, of `etlscope export --table cpu-sampled --group Stack` rows: per
// sample, the frames from the innermost Process32NextW outwards. The link holds the expanded rows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage as openPage } from './browser.mjs';
import fs from 'node:fs';
import { buildRelease, startServer, repoRoot, screenshotDir } from './server.mjs';
import { exportRows, groupedFrame, moduleOf } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const TARGET = 'kernel32.dll!Process32NextW';
const OVERLAY = 'windows.storage.dll!CFSFolder::_GetOverlayInfo';

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  id = srv.ids[0];
  // Frame names come from the demo's PDBs: wait for the background symbol lookup.
  for (let i = 0; i < 300; i++) {
    const s = await (await fetch(`${srv.url}/api/traces/${id}/symbols`)).json();
    if (s.status === 'done') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** Per export row holding the target: its count and its callers, innermost occurrence outwards, ending "[root]". */
const callerSeqs = () => exportRows(DEMO, ['--table', 'cpu-sampled', '--group', 'Stack']).flatMap((r) => {
  const st = r.Stack.split(';').map(groupedFrame);
  const i = st.lastIndexOf(TARGET);
  return i < 0 ? [] : [{ n: r.Count, up: [...st.slice(0, i).reverse(), '[root]'] }];
});

/** The same, a level per module (a run of one module's frames is one level). @param {{n: number, up: string[]}[]} seqs */
const byModule = (seqs) => seqs.map(({ n, up }) => ({
  n,
  up: up.map((f) => (f === '[root]' ? f : moduleOf(f))).filter((m, i, a) => i === 0 || m !== a[i - 1] || m === '[root]'),
}));

/** Children of `prefix` in the folded sequences, label -> samples. @param {{n: number, up: string[]}[]} seqs @param {string[]} prefix */
function fold(seqs, prefix) {
  /** @type {Record<string, number>} */ const m = {};
  for (const { n, up } of seqs) {
    if (up.length > prefix.length && prefix.every((x, i) => up[i] === x)) m[up[prefix.length]] = (m[up[prefix.length]] || 0) + n;
  }
  return m;
}

/** The caller tree's rows at `depth`, label -> count. @param {any} p @param {number} depth */
const level = (p, depth) => p.$$eval(`[data-testid=ct-callers] tr[data-depth="${depth}"]`, (trs) => Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-label'), Number(tr.getAttribute('data-count'))])));
/** The heaviest row's label at `depth` (rows come heaviest first). @param {any} p @param {number} depth */
const top = (p, depth) => p.$eval(`[data-testid=ct-callers] tr[data-depth="${depth}"]`, (tr) => tr.getAttribute('data-label'));

/** Click the toggle of the first row at `depth` with a real mouse, and wait for the level below. @param {any} p @param {number} depth */
async function expandTop(p, depth) {
  const box = await p.locator(`[data-testid=ct-callers] tr[data-depth="${depth}"] .tog`).first().boundingBox();
  await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await p.waitForSelector(`[data-testid=ct-callers] tr[data-depth="${depth + 1}"]`);
}

test('caller tree of Process32NextW: search, pick, expand up to CFSFolder::_GetOverlayInfo; counts equal export rows', async () => {
  const seqs = callerSeqs();
  assert.ok(seqs.length > 0);
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${id}?view=butterfly`);
  const box = await p.locator('[data-testid=bf-target]').boundingBox();
  await p.mouse.click(box.x + 20, box.y + box.height / 2);
  await p.keyboard.type('Process32NextW');
  const item = p.locator('[data-testid=bf-suggest-item]', { hasText: TARGET }).first();
  await item.waitFor();
  const ib = await item.boundingBox();
  await p.mouse.click(ib.x + ib.width / 2, ib.y + ib.height / 2);
  await p.waitForSelector('[data-testid=ct-callers] tr[data-depth="0"]');
  assert.equal(await p.$eval('[data-testid=bf-center] .bf-name', (e) => e.textContent), TARGET);
  // The centre's inclusive count is every sample with the target, as the tree's first level sums.
  const inclusive = seqs.reduce((n, s) => n + s.n, 0);
  assert.equal(Number(await p.$eval('[data-testid=bf-center] .bf-num', (e) => e.getAttribute('data-count'))), inclusive);

  const labels = [];
  for (let d = 0; ; d++) {
    assert.deepEqual(await level(p, d), fold(seqs, labels), `callers at depth ${d} under ${labels.join(' < ')}`);
    labels.push(await top(p, d));
    if (labels[d] === OVERLAY) break;
    assert.ok(d < 10, `no ${OVERLAY} up the heaviest path: ${labels.join(' < ')}`);
    await expandTop(p, d);
  }
  // Two levels up (issue 16): the extension's unnamed IsMemberOf frame, then the overlay lookup.
  assert.equal(labels.length, 2, labels.join(' < '));
  assert.equal(labels[0], 'tishell64_26_0_39450.dll!?');
  fs.mkdirSync(screenshotDir(), { recursive: true });
  await p.screenshot({ path: path.join(screenshotDir(), 'caller-tree.png') });

  // The link holds the expanded rows: a fresh page shows the same tree.
  const url = p.url();
  assert.equal(new URL(url).searchParams.getAll('bo').length, labels.length - 1);
  const fresh = await openPage(browser);
  const q = fresh.p;
  await q.goto(url);
  await q.waitForSelector(`[data-testid=ct-callers] tr[data-depth="${labels.length - 1}"]`);
  for (let d = 0; d < labels.length; d++) assert.deepEqual(await level(q, d), fold(seqs, labels.slice(0, d)), `fresh page, depth ${d}`);
  assert.deepEqual(fresh.errors, []);
  await fresh.c.close();

  // By module: two levels up is the overlay lookup's module.
  await p.selectOption('[data-testid=butterfly-by]', 'module');
  await p.waitForFunction(() => !document.querySelector('[data-testid=ct-callers] tr[data-depth="1"]') && document.querySelector('[data-testid=ct-callers] tr[data-depth="0"]'));
  const mods = byModule(seqs);
  assert.deepEqual(await level(p, 0), fold(mods, []));
  assert.equal(await top(p, 0), 'tishell64_26_0_39450.dll');
  await expandTop(p, 0);
  assert.deepEqual(await level(p, 1), fold(mods, ['tishell64_26_0_39450.dll']));
  assert.equal(await top(p, 1), moduleOf(OVERLAY));

  // A node's name re-targets the view.
  const name = p.locator('[data-testid=ct-callers] tr[data-depth="0"] .link').first();
  const nb = await name.boundingBox();
  await p.mouse.click(nb.x + 5, nb.y + nb.height / 2);
  await p.waitForFunction(() => document.querySelector('[data-testid=bf-center] .bf-name')?.textContent === 'tishell64_26_0_39450.dll');
  assert.equal(new URL(p.url()).searchParams.get('bk'), 'module');
  assert.deepEqual(errors, []);
  await c.close();
});
