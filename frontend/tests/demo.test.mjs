// The blog's investigation, scripted through the UI on the bundled demo trace
// (traces/explorer-overlay.etl, symbols from traces/symbols/). Every number read from the page
// is compared with one derived from `etlscope export` (the CLI's CSV/JSON tables, computed here
// from raw rows: stack prefixes, module runs), not from the HTTP API the page itself uses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage as openPage, waitTable, copiedLink } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary, screenshotDir } from './server.mjs';
import { moduleOf, exportPrefixCount, exportCallersByModule } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const BIN = binary();
const SHOTS = screenshotDir();
const RANGE = [7, 23];
const TARGET = 'windows.storage.dll!CFSFolder::_GetOverlayInfo';
const SHELL_EXT = 'tishell64_26_0_39450.dll';
/** The README's steps, in its own words: the test below follows them, so each must still be there. */
const README = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const README_FIGURES = { explorer: 42300, overlay: 20191, unversioned: 11, opened: 4663 };

test("the README's investigation names the presets, menu items and figures this test uses", () => {
  for (const words of ['type `7-23` in the timeline\'s Range box and press Enter', '**Presets → Utilization by Process, Stack.**',
    'Right arrow expands, Down arrow moves to the heaviest child', `\`${TARGET}\``,
    `**View callers of module ${SHELL_EXT} by module**`, '**Presets → Images by File Version, Path**', '`(none)`',
    '**File I/O** tab: expand **Create**; `ti_managers_proxy.dll`', '**Copy link**',
    '42,300', '20,191', 'the 11 DLLs', '4,663 times']) {
    assert.ok(README.includes(words), `README.md no longer says ${JSON.stringify(words)}`);
  }
});
const SEP = ' › ';

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  id = srv.ids[0];
  // The investigation reads function names: wait for the background symbol lookup.
  for (let i = 0; i < 300; i++) {
    const s = await (await fetch(`${srv.url}/api/traces/${id}/symbols`)).json();
    if (s.status === 'done') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launch();
  fs.mkdirSync(SHOTS, { recursive: true });
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** `etlscope export ... --format json` rows. @param {string[]} args @returns {any[]} */
function exportRows(args) {
  const r = spawnSync(BIN, ['export', DEMO, '--range', `${RANGE[0]}-${RANGE[1]}`, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const newPage = () => openPage(browser, { clipboard: true });

const num = (/** @type {string} */ s) => Number(s.replace(/,/g, ''));
/** A CSS attribute value: backslashes (Windows paths) and quotes escaped. @param {string} s */
const cssString = (s) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
/** The count shown on the row with this path. */
const rowCount = (/** @type {any} */ p, /** @type {string[]} */ labels) => p.$eval(`[data-testid=table] tr[data-path="${cssString(labels.join(SEP))}"] td.num`, (td) => td.textContent).then(num);
const selectedPath = (/** @type {any} */ p) => p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path').split(' › '));
const bfNumbers = async (/** @type {any} */ p) => ({
  inclusive: Number(await p.$eval('[data-testid=bf-center] .bf-num', (e) => e.getAttribute('data-count'))),
  callers: await p.$$eval('[data-testid=bf-callers] tbody tr', (trs) => trs.map((tr) => [tr.children[0].textContent, Number(tr.children[1].textContent.replace(/,/g, ''))])),
});
/** A screenshot without the "copied" toast of an earlier step. */
const shot = async (/** @type {any} */ p, /** @type {string} */ name) => {
  await p.waitForFunction(() => !document.querySelector('.toast'));
  await p.screenshot({ path: path.join(SHOTS, name) });
};
/** Copy link gives a short link whose stored view is this page's address (`copiedLink` checks). */
const copyLink = async (/** @type {any} */ p) => {
  await p.evaluate(() => navigator.clipboard.writeText(''));
  await p.click('[data-testid=copy-link]');
  return copiedLink(p);
};

test('the demo investigation through the UI: every number equals etlscope export; links reopen each step', async (t) => {
  const cpuRows = exportRows(['--table', 'cpu-sampled', '--group', 'Process,Stack']);
  const { p, c, errors } = await newPage();
  /** @type {{name: string, link: string, check: (q: any) => Promise<void>}[]} */
  const steps = [];

  // 1. Open the trace, select 7-23 s, "Utilization by Process, Stack".
  await p.goto(`${srv.url}/`);
  await p.click(`tr[data-id="${id}"] a`);
  await waitTable(p);
  await p.fill('[data-testid=range-input]', `${RANGE[0]}-${RANGE[1]}`);
  await p.press('[data-testid=range-input]', 'Enter');
  await p.waitForURL(/[?&]r=7-23(&|$)/);
  await p.selectOption('[data-testid=preset]', { label: 'Utilization by Process, Stack' });
  await waitTable(p);
  const proc = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => trs.map((tr) => tr.getAttribute('data-path')).find((x) => x.startsWith('explorer.exe (')));
  assert.ok(proc, 'explorer.exe is a top-level row');
  const explorerTotal = cpuRows.filter((r) => r.Process === proc).reduce((a, r) => a + r.Count, 0);
  assert.equal(await rowCount(p, [proc]), explorerTotal, 'explorer.exe samples in 7-23 s');
  assert.equal(explorerTotal, README_FIGURES.explorer, "the README's step 2");
  t.diagnostic(`${proc}: ${explorerTotal} samples in ${RANGE[0]}-${RANGE[1]} s`);

  // 2. Drill the hot path with the keyboard (right expands, down goes to the heaviest child).
  await p.click(`[data-testid=table] tr[data-path="${proc}"]`);
  let labels = [proc];
  for (let i = 0; i < 16 && labels.at(-1) !== TARGET; i++) {
    await p.keyboard.press('ArrowRight');
    await p.waitForFunction((n) => document.querySelectorAll(`[data-testid=table] tr[data-depth="${n}"]`).length > 0, labels.length);
    await p.keyboard.press('ArrowDown');
    labels = await selectedPath(p);
  }
  assert.equal(labels.at(-1), TARGET, `drilled to ${TARGET}`);
  const overlay = await rowCount(p, labels);
  assert.equal(overlay, exportPrefixCount(cpuRows, proc, labels.slice(1)), `${TARGET} samples`);
  assert.equal(overlay, README_FIGURES.overlay, "the README's step 2");
  t.diagnostic(`${labels.join(' > ')}: ${overlay} samples`);
  await shot(p, 'demo-drill.png');
  const drillLabels = labels;
  steps.push({ name: 'drill', link: await copyLink(p), check: async (q) => {
    await waitTable(q);
    await q.waitForSelector('[data-testid=table] tr.sel');
    assert.deepEqual(await selectedPath(q), drillLabels);
    assert.equal(await rowCount(q, drillLabels), overlay);
  } });

  // 3. Further down the hot path: the shell extension; right-click, callers of its module by module.
  await p.focus('[data-testid=table]'); // back from the Copy link button
  for (let i = 0; i < 6 && moduleOf(labels.at(-1)) !== SHELL_EXT; i++) {
    await p.keyboard.press('ArrowRight');
    await p.waitForFunction((n) => document.querySelectorAll(`[data-testid=table] tr[data-depth="${n}"]`).length > 0, labels.length);
    await p.keyboard.press('ArrowDown');
    labels = await selectedPath(p);
  }
  assert.equal(moduleOf(labels.at(-1)), SHELL_EXT, 'the hot path enters the shell extension');
  await p.click(`[data-testid=table] tr[data-path="${cssString(labels.join(SEP))}"]`, { button: 'right' });
  await p.click(`[data-testid=context-menu] >> text=View callers of module ${SHELL_EXT} by module`);
  await p.waitForSelector('[data-testid=bf-center] .bf-num');
  const bf = await bfNumbers(p);
  const want = exportCallersByModule(cpuRows, SHELL_EXT);
  assert.equal(bf.inclusive, want.inclusive, `${SHELL_EXT} inclusive samples`);
  assert.deepEqual(bf.callers, want.callers, 'callers by module');
  t.diagnostic(`${SHELL_EXT}: inclusive ${bf.inclusive}; callers ${JSON.stringify(bf.callers)}`);
  await shot(p, 'demo-callers-by-module.png');
  steps.push({ name: 'callers', link: await copyLink(p), check: async (q) => {
    await q.waitForSelector('[data-testid=bf-center] .bf-num');
    assert.deepEqual(await bfNumbers(q), bf);
  } });

  // 4. Images sorted by File Version: the unversioned group first, expanded to its paths.
  await p.selectOption('[data-testid=preset]', { label: 'Images by File Version, Path' });
  await p.waitForURL(/t=images/);
  await waitTable(p);
  const imgRows = exportRows(['--table', 'images', '--group', 'File Version,Image Path']);
  const unversioned = imgRows.filter((r) => r['File Version'] === '').map((r) => r['Image Path']).sort();
  const first = await p.$eval('[data-testid=table] tbody tr[data-depth="0"]', (tr) => ({ path: tr.getAttribute('data-path'), count: Number(tr.querySelector('td.num').textContent.replace(/,/g, '')) }));
  assert.equal(first.path, '', 'sorted by File Version, the unversioned images come first');
  assert.equal(first.count, imgRows.filter((r) => r['File Version'] === '').reduce((a, r) => a + r.Count, 0));
  await p.click('[data-testid=table] tbody tr[data-depth="0"] .tog');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
  const paths = (await p.$$eval('[data-testid=table] tr[data-depth="1"] td.label .txt', (x) => x.map((e) => e.textContent))).sort();
  assert.deepEqual(paths, unversioned);
  assert.equal(paths.length, README_FIGURES.unversioned, "the README's step 4");
  // The scenario's unversioned third-party DLL is the shell extension (issue 17).
  assert.ok(paths.includes('C:\\Program Files\\Common Files\\Acronis\\TrueImageHome\\tishell64_26_0_39450.dll'));
  t.diagnostic(`${paths.length} images without version information`);
  await shot(p, 'demo-images-unversioned.png');
  steps.push({ name: 'images', link: await copyLink(p), check: async (q) => {
    await q.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
    assert.deepEqual((await q.$$eval('[data-testid=table] tr[data-depth="1"] td.label .txt', (x) => x.map((e) => e.textContent))).sort(), unversioned);
  } });

  // 5. File I/O by type and path: creates, the most-opened file and its count.
  await p.click('[data-testid=tab-file-io]');
  await p.waitForURL(/t=file-io/);
  await waitTable(p);
  const ioRows = exportRows(['--table', 'file-io', '--group', 'Type,File Path']);
  const creates = ioRows.filter((r) => r.Type === 'Create').sort((a, b) => b.Count - a.Count);
  await p.click('[data-testid=table] tr[data-path="Create"] .tog');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
  const top = await p.$eval('[data-testid=table] tr[data-depth="1"]', (tr) => ({ path: tr.getAttribute('data-path'), count: Number(tr.querySelector('td.num').textContent.replace(/,/g, '')) }));
  assert.equal(top.path, `Create${SEP}${creates[0]['File Path']}`);
  assert.equal(top.count, creates[0].Count);
  assert.equal(top.count, README_FIGURES.opened, "the README's step 5");
  assert.ok(top.path.endsWith('\\ti_managers_proxy.dll'), top.path);
  assert.equal(await rowCount(p, ['Create']), creates.reduce((a, r) => a + r.Count, 0));
  t.diagnostic(`most opened: ${creates[0]['File Path']} ${top.count} times`);
  await shot(p, 'demo-file-io.png');
  steps.push({ name: 'file-io', link: await copyLink(p), check: async (q) => {
    await waitTable(q);
    await q.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
    assert.equal(await rowCount(q, top.path.split(SEP)), top.count);
  } });

  // 6. Each copied link, opened in a fresh browser context, shows the same view and numbers.
  for (const s of steps) {
    const fresh = await newPage();
    await fresh.p.goto(s.link);
    await s.check(fresh.p);
    assert.match(fresh.p.url(), /[?&]r=7-23(&|$)/, `${s.name}: the time range is in the link`);
    assert.equal(await fresh.p.$$eval('[data-testid=notices] .notice', (n) => n.length), 0, `${s.name}: no notice`);
    assert.deepEqual(fresh.errors, []);
    await fresh.c.close();
  }
  assert.deepEqual(errors, []);
  await c.close();
});

test('links name rows by stable identities: a link made before symbols load opens after, and back', async (t) => {
  // The same trace without its symbols/ folder: frames stay module!?. Same content, same trace id.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-nosym-'));
  const copy = path.join(dir, 'explorer-overlay.etl');
  fs.copyFileSync(DEMO, copy);
  const bare = await startServer([copy]);
  try {
    assert.equal(bare.ids[0], id, 'trace ids come from the content');
    for (let i = 0; i < 300; i++) {
      if ((await (await fetch(`${bare.url}/api/traces/${id}/symbols`)).json()).status === 'done') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const { p, c, errors } = await newPage();
    await p.goto(`${bare.url}/t/${id}?v=1&t=cpu-sampled&g=Process,Stack&r=7-23`);
    await waitTable(p);
    const proc = 'explorer.exe (6148)';
    await p.click(`[data-testid=table] tr[data-path="${proc}"]`);
    let labels = [proc];
    for (let i = 0; i < 7; i++) {
      await p.keyboard.press('ArrowRight');
      await p.waitForFunction((n) => document.querySelectorAll(`[data-testid=table] tr[data-depth="${n}"]`).length > 0, labels.length);
      await p.keyboard.press('ArrowDown');
      labels = await selectedPath(p);
    }
    assert.ok(labels.slice(1).every((l) => l.endsWith('!?')), `unsymbolized: ${labels.join(' > ')}`);
    const link = new URL(p.url());
    // The link names the process by pid@start and frames by module identity + RVA, not labels.
    const sel = link.searchParams.get('sel') || '';
    assert.match(sel, /^pid:6148@[-0-9]+\/fn:ntdll\.dll@[0-9a-f]+:[0-9a-f]+\+[0-9a-f]+\//, sel);
    assert.ok(!sel.includes('!?'), 'no labels of unnamed frames in the link');
    t.diagnostic(`link made before symbols: sel=${sel}`);
    await c.close();

    // Opened where symbols are loaded: the same path resolves to named functions, no notice.
    const named = await newPage();
    await named.p.goto(`${srv.url}${link.pathname}${link.search}`);
    await waitTable(named.p);
    await named.p.waitForSelector('[data-testid=table] tr.sel');
    const namedPath = await selectedPath(named.p);
    assert.equal(namedPath.length, labels.length);
    assert.deepEqual(namedPath.map(moduleOf), labels.map(moduleOf), 'same modules along the path');
    assert.ok(namedPath.slice(1).every((l) => !l.endsWith('!?')), `named: ${namedPath.join(' > ')}`);
    assert.equal(await named.p.$$eval('[data-testid=notices] .notice', (n) => n.length), 0);
    t.diagnostic(`opened with symbols: ${namedPath.join(' > ')}`);

    // And back: a link made with symbols opens where they are missing (as module!? rows).
    const back = await newPage();
    await back.p.goto(named.p.url().replace(srv.url, bare.url));
    await waitTable(back.p);
    await back.p.waitForSelector('[data-testid=table] tr.sel');
    assert.deepEqual(await selectedPath(back.p), labels);
    assert.equal(await back.p.$$eval('[data-testid=notices] .notice', (n) => n.length), 0);
    // The flame graph names boxes the same way: zoom to the drilled frames (without the process
    // level) where symbols are missing, open that zoom where they are loaded.
    const fz = sel.split('/').slice(1).join('/');
    const flameLink = `${link.pathname}?v=2&view=flame&t=cpu-sampled&r=7-23&fz=${encodeURIComponent(fz)}`;
    /** @type {string[][]} */
    const crumbs = [];
    for (const [base, pg] of [[bare.url, back.p], [srv.url, named.p]]) {
      await pg.goto(`${base}${flameLink}`);
      await pg.waitForFunction((n) => document.querySelectorAll('[data-testid=flame-crumbs] .crumb').length === n, labels.length);
      crumbs.push(await pg.$$eval('[data-testid=flame-crumbs] .crumb', (b) => b.map((x) => x.textContent)));
      assert.equal(await pg.$$eval('[data-testid=notices] .notice', (n) => n.length), 0, `flame zoom resolves on ${base}`);
    }
    assert.deepEqual(crumbs[0].slice(1), labels.slice(1), 'unsymbolized crumbs');
    assert.deepEqual(crumbs[1].slice(1), namedPath.slice(1), 'named crumbs');
    // A zoom made by clicking writes identities too.
    await named.p.click('[data-testid=flame-crumbs] .crumb:nth-last-child(3)');
    await named.p.waitForFunction(() => /[?&]fz=fn/.test(decodeURIComponent(location.search)));
    assert.deepEqual([...errors, ...named.errors, ...back.errors], []);
    await named.c.close();
    await back.c.close();
  } finally {
    bare.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
