// Browser tests: the real binary serving the real PerfView trace, driven by chromium.
// Expected numbers come from `etlscope export` (tests/export.mjs: the CLI's code path, printed
// rows folded here by plain loops), never from the HTTP API the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, newPage as openPage, waitTable, copiedLink, flameRowPoint } from './browser.mjs';
import { realTraces, buildRelease, startServer, screenshotDir } from './server.mjs';
import { exportRows, exportPrefixCount, exportCallersByModule, moduleOf, groupedFrame } from './export.mjs';

const traces = realTraces();
const SHOTS = screenshotDir();
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';
const trace = () => path.join(traces, 'perfview-net452-x64.etl');

before(async () => {
  if (!traces) return;
  buildRelease();
  srv = await startServer([path.join(traces, 'perfview-net452-x64.etl')]);
  id = srv.ids[0];
  browser = await launch();
  fs.mkdirSync(SHOTS, { recursive: true });
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** A page that fails the test on any script error. */
const newPage = () => openPage(browser);

/** Visible rows as {path, count}. */
const rows = (p) => p.$$eval('[data-testid=table] tbody tr[data-path]', (trs) => trs.map((tr) => ({
  path: tr.getAttribute('data-path'),
  count: Number(tr.querySelector('td.num').textContent.replace(/,/g, '')),
})));
const tableTotal = (p) => p.$eval('[data-testid=table-status]', (e) => Number(e.getAttribute('data-total')));
const skip = () => !traces;

/** `etlscope export` of CPU Usage (Sampled) by Process and Stack (root-first frames joined by ';', each as the
 * UI groups it), once per args. */
const stackRows = (() => {
  /** @type {Map<string, any[]>} */ const memo = new Map();
  return (/** @type {string[]} */ extra = []) => {
    const k = extra.join('\u0000');
    if (!memo.has(k)) {
      const rs = exportRows(trace(), ['--table', 'cpu-sampled', '--group', 'Process,Stack', ...extra]);
      memo.set(k, rs.map((r) => ({ ...r, Stack: r.Stack.split(';').map(groupedFrame).join(';') })));
    }
    return memo.get(k);
  };
})();
const sumCount = (/** @type {any[]} */ rs) => rs.reduce((n, r) => n + r.Count, 0);

/** Drag a header by real mouse moves to the left edge of another header (or the gold bar). */
async function dragHeader(p, col, before, beforeUp = () => {}) {
  const from = await p.locator(`[data-testid=table] th[data-col="${col}"]`).boundingBox();
  const to = await p.locator(`[data-testid=table] th[data-col="${before}"]`).boundingBox();
  await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await p.mouse.down();
  await p.mouse.move(from.x + from.width / 2 + 10, from.y + 8, { steps: 3 });
  await p.mouse.move(to.x + 2, to.y + to.height / 2, { steps: 12 });
  beforeUp();
  await p.mouse.up();
}

test('library lists the trace and opens it', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/`);
  await p.waitForSelector(`tr[data-id="${id}"] [data-status=ready]`);
  await p.screenshot({ path: path.join(SHOTS, 'library.png') });
  await p.click(`tr[data-id="${id}"] a`);
  await p.waitForURL(/\/t\/[0-9a-f]{32}\?v=2/);
  await waitTable(p);
  // Every sample of the trace, as `etlscope export` counts them (79,528; the model reference agrees).
  assert.equal(await tableTotal(p), sumCount(stackRows()));
  assert.deepEqual(errors, []);
  await c.close();
});

test('group by Process then Stack, drill the busiest path: counts equal etlscope export', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  // Test.x64.exe: the busiest process with managed and native stacks; drill its heaviest child 8 times.
  await p.click('[data-testid=table] tr[data-path="Test.x64.exe (3676)"]');
  const labels = ['Test.x64.exe (3676)'];
  for (let i = 0; i < 8; i++) {
    await p.keyboard.press('ArrowRight');
    await p.waitForFunction((n) => document.querySelectorAll(`[data-testid=table] tr[data-depth="${n}"]`).length > 0, labels.length);
    await p.keyboard.press('ArrowDown');
    const sel = await p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path'));
    labels.push(sel.split(' › ').at(-1));
  }
  const shown = Object.fromEntries((await rows(p)).map((r) => [r.path, r.count]));
  // Each level from the export's stacks: samples of the process whose stack starts with the path.
  const all = stackRows();
  const proc = labels[0];
  for (let d = 1; d <= labels.length; d++) {
    const frames = labels.slice(1, d);
    const want = d === 1 ? sumCount(all.filter((r) => r.Process === proc)) : exportPrefixCount(all, proc, frames);
    assert.equal(shown[labels.slice(0, d).join(' › ')], want, `count of ${labels.slice(0, d).join(' › ')}`);
    if (d > 1) {
      // The heaviest child of the parent path: next frames of the stacks under it.
      const kids = new Map();
      for (const r of all) {
        if (r.Process !== proc) continue;
        const st = r.Stack.split(';');
        if (!frames.slice(0, -1).every((f, i) => st[i] === f) || st.length < d - 1) continue;
        const next = st[d - 2];
        kids.set(next, (kids.get(next) || 0) + r.Count);
      }
      assert.equal(want, Math.max(...kids.values()), 'drilled the heaviest child');
    }
  }
  await p.screenshot({ path: path.join(SHOTS, 'cpu-sampled-drilled.png') });

  // The link carries the view: a fresh context shows the same rows and numbers.
  const link = p.url();
  assert.match(link, /[?&]o=/);
  assert.match(link, /[?&]sel=/);
  const before = await rows(p);
  const fresh = await newPage();
  await fresh.p.goto(link);
  await waitTable(fresh.p);
  await fresh.p.waitForFunction((n) => document.querySelectorAll('[data-testid=table] tbody tr[data-path]').length >= n, before.length);
  assert.deepEqual(await rows(fresh.p), before);
  assert.equal(await fresh.p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path')), labels.join(' › '));
  assert.deepEqual(fresh.errors, []);
  await fresh.c.close();
  assert.deepEqual(errors, []);
  await c.close();
});

test('regroup by real mouse drags keeps the total; back/forward restore the grouping', { skip: skip() }, async (t) => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  const total = await tableTotal(p);
  const sumTop = async () => (await rows(p)).filter((r) => !r.path.includes(' › ')).reduce((a, r) => a + r.count, 0);
  // Stack across the gold bar: ungrouped.
  let t0 = 0;
  await dragHeader(p, 'Stack', 'Count', () => { t0 = Date.now(); });
  await p.waitForURL(/g=Process&/);
  await waitTable(p);
  t.diagnostic(`regroup (mouse up to regrouped table drawn): ${Date.now() - t0} ms`);
  assert.equal(await tableTotal(p), total);
  assert.equal(await sumTop(), total, 'top-level rows sum to the total');
  assert.deepEqual(await p.$$eval('[data-testid=table] th.key', (t) => t.map((x) => x.getAttribute('data-col'))), ['Process']);
  // Stack back, left of Process: grouped by Stack first.
  await dragHeader(p, 'Stack', 'Process');
  await p.waitForURL(/g=Stack,Process/);
  await waitTable(p);
  assert.equal(await tableTotal(p), total);
  assert.deepEqual(await p.$$eval('[data-testid=table] th.key', (t) => t.map((x) => x.getAttribute('data-col'))), ['Stack', 'Process']);
  // Back: grouped by Process only; back again: Process, Stack; forward: Process.
  await p.goBack();
  await p.waitForURL(/g=Process&/);
  await waitTable(p);
  assert.deepEqual(await p.$$eval('[data-testid=table] th.key', (t) => t.map((x) => x.getAttribute('data-col'))), ['Process']);
  await p.goBack();
  await p.waitForURL(/g=Process,Stack/);
  await p.goForward();
  await p.waitForURL(/g=Process&/);
  await waitTable(p);
  assert.deepEqual(await p.$$eval('[data-testid=table] th.key', (t) => t.map((x) => x.getAttribute('data-col'))), ['Process']);
  assert.equal(await tableTotal(p), total);
  assert.deepEqual(errors, []);
  await c.close();
});

test('images table sorted by File Version shows the unversioned images with their paths', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await p.selectOption('[data-testid=preset]', { label: 'Images by File Version, Path' });
  await p.waitForURL(/t=images/);
  await waitTable(p);
  // Expected from `etlscope export`: images per (File Version, Image Path).
  const images = exportRows(trace(), ['--table', 'images', '--group', 'File Version,Image Path']);
  const unversioned = images.filter((r) => r['File Version'] === '');
  const first = (await rows(p))[0];
  assert.equal(first.path, '', 'the unversioned images come first');
  assert.equal(first.count, unversioned.reduce((n, r) => n + r.Count, 0));
  // Expand the unversioned group: its image paths.
  await p.click('[data-testid=table] tbody tr:first-child .tog');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
  const shownPaths = await p.$$eval('[data-testid=table] tr[data-depth="1"] td.label .txt', (t) => t.map((x) => x.textContent));
  assert.deepEqual([...shownPaths].sort(), unversioned.map((r) => r['Image Path']).sort());
  assert.ok(shownPaths.some((x) => /\\/.test(x)), 'paths shown');
  await p.screenshot({ path: path.join(SHOTS, 'images-by-version.png') });
  // Clicking the header flips the sort.
  await p.click('[data-testid=table] th[data-col="File Version"]');
  await p.waitForURL(/s=File\+Version/);
  await waitTable(p);
  // Descending: the highest version first, with its images' count.
  const top = (await rows(p))[0];
  assert.notEqual(top.path, '');
  assert.equal(top.count, images.filter((r) => r['File Version'] === top.path).reduce((n, r) => n + r.Count, 0));
  assert.deepEqual(errors, []);
  await c.close();
});

test('butterfly: callers of a module by module, counts equal etlscope export', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await c.grantPermissions(['clipboard-read', 'clipboard-write']);
  await p.goto(`${srv.url}/t/${id}?v=1&view=table&t=cpu-sampled&g=Module&c=Count,Weight (ms),% Weight&s=Weight (ms)`);
  await waitTable(p);
  await p.click('[data-testid=table] tr[data-path="clr.dll"]', { button: 'right' });
  await p.click('[data-testid=context-menu] >> text=View callers of module clr.dll by module');
  await p.waitForSelector('[data-testid=bf-center] .bf-num');
  // Expected: every sample whose stack has a clr.dll frame (both of the trace's clr.dll modules,
  // 32- and 64-bit, as WPA's Module column groups by name), callers per calling module.
  const want = exportCallersByModule(stackRows(), 'clr.dll');
  assert.equal(Number(await p.$eval('[data-testid=bf-center] .bf-num', (e) => e.getAttribute('data-count'))), want.inclusive);
  const callers = await p.$$eval('[data-testid=bf-callers] tbody tr', (trs) => trs.map((tr) => [tr.children[0].textContent, Number(tr.children[1].textContent.replace(/,/g, ''))]));
  const byCount = (/** @type {any[]} */ a) => [...a].sort((x, y) => y[1] - x[1] || String(x[0]).localeCompare(String(y[0])));
  assert.deepEqual(byCount(callers), byCount(want.callers));
  await p.screenshot({ path: path.join(SHOTS, 'butterfly.png') });
  // Copy link, open it fresh: same butterfly, same numbers.
  await p.click('[data-testid=copy-link]');
  const link = await copiedLink(p);
  const fresh = await newPage();
  await fresh.p.goto(link);
  await fresh.p.waitForSelector('[data-testid=bf-center] .bf-num');
  assert.deepEqual(await fresh.p.$$eval('[data-testid=bf-callers] tbody tr', (trs) => trs.map((tr) => [tr.children[0].textContent, Number(tr.children[1].textContent.replace(/,/g, ''))])), callers);
  await fresh.c.close();
  assert.deepEqual(errors, []);
  await c.close();
});

test('flame graph: search sums the matches, click zooms, the zoom is in the link', { skip: skip() }, async (t) => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await p.click('[data-testid=tab-flame]');
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  await p.fill('[data-testid=flame-search]', 'clr.dll');
  const pct = Number(await p.$eval('[data-testid=flame-match]', (e) => e.getAttribute('data-percent')));
  // Expected: samples with a clr.dll frame over all samples, from the export's stacks; the
  // flame graph prunes boxes under min_fraction, so allow that much.
  const bf = exportCallersByModule(stackRows(), 'clr.dll');
  assert.ok(Math.abs(pct - (100 * bf.inclusive) / sumCount(stackRows())) < 0.5, `flame match ${pct}%`);
  await p.fill('[data-testid=flame-search]', '');
  // Click the widest box on the second row from the bottom: zooms, breadcrumb grows.
  const second = await flameRowPoint(p, 1, 5);
  const t0 = Date.now();
  await p.mouse.click(second.x, second.y);
  await p.waitForURL(/fz=/);
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=flame-crumbs] .crumb').length >= 2);
  t.diagnostic(`flame zoom (click to redrawn with breadcrumb): ${Date.now() - t0} ms`);
  const crumbs = await p.$$eval('[data-testid=flame-crumbs] .crumb', (b) => b.map((x) => x.textContent));
  assert.ok(crumbs.length >= 2);
  const fresh = await newPage();
  await fresh.p.goto(p.url());
  await fresh.p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  assert.deepEqual(await fresh.p.$$eval('[data-testid=flame-crumbs] .crumb', (b) => b.map((x) => x.textContent)), crumbs);
  await fresh.c.close();
  assert.deepEqual(errors, []);
  await c.close();
});

test('a broken link opens the longest part that resolves, with a notice', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}?v=1&t=cpu-sampled&g=Process,Stack&o=Test.x64.exe (3676)/ntdll.dll!%3F/no.dll!Nope/deeper`);
  await p.waitForSelector('[data-testid=notices] .notice');
  await waitTable(p);
  const notice = await p.textContent('[data-testid=notices]');
  assert.match(notice, /depth 2 of 4/);
  assert.ok((await rows(p)).some((r) => r.path === 'Test.x64.exe (3676) › ntdll.dll!?'), 'the resolving prefix is open');
  assert.deepEqual(errors, []);
  await c.close();
});

test('dragging on the timeline selects a range that applies to the table', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  const tl = await p.locator('[data-testid=timeline]').boundingBox();
  await p.mouse.move(tl.x + tl.width * 0.3, tl.y + tl.height / 2);
  await p.mouse.down();
  await p.mouse.move(tl.x + tl.width * 0.6, tl.y + tl.height / 2, { steps: 10 });
  await p.mouse.up();
  await p.waitForURL(/[?&]r=/);
  await waitTable(p);
  const m = /[?&]r=([\d.]+)-([\d.]+)/.exec(p.url());
  const range = { start_s: Number(m[1]), end_s: Number(m[2]) };
  assert.ok(range.end_s > range.start_s);
  // Expected: the export over the same range, summed per process (the table's top level).
  const inRange = stackRows(['--range', `${range.start_s}-${range.end_s}`]);
  const total = sumCount(inRange);
  assert.equal(await tableTotal(p), total);
  const perProcess = new Map();
  for (const r of inRange) perProcess.set(r.Process, (perProcess.get(r.Process) || 0) + r.Count);
  const shown = await rows(p);
  assert.deepEqual(
    shown.map((r) => [r.path, r.count]).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    [...perProcess.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  // The range is in the link: a fresh context shows the same numbers.
  const fresh = await newPage();
  await fresh.p.goto(p.url());
  await waitTable(fresh.p);
  assert.equal(await tableTotal(fresh.p), total);
  await fresh.c.close();
  // Flame graph by process over that range, filtered to the test process: a screenshot.
  await p.goto(`${p.url().replace(/view=table/, 'view=flame')}&pp=1&f=${encodeURIComponent('Process=Test.x64.exe (3676)')}`);
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  await p.waitForTimeout(300);
  await p.screenshot({ path: path.join(SHOTS, 'flame-by-process.png') });
  assert.deepEqual(errors, []);
  await c.close();
});

test('upload with the file picker shows progress, then the trace becomes ready', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=library] tbody tr');
  // The progress bar shows while a file goes up and goes when its trace is ready, which on an
  // idle machine can be before any wait here: note that one was shown.
  await p.evaluate(() => {
    new MutationObserver(() => { if (document.querySelector('[data-testid=upload-bar]')) /** @type {any} */ (window).sawBar = true; })
      .observe(document.body, { subtree: true, childList: true });
  });
  await p.setInputFiles('input[type=file]', path.join(traces, 'shutdown-perfdiag-kernel.etl'));
  // And by drag-and-drop: a drop event carrying a file on the drop zone.
  const bytes = [...fs.readFileSync(path.join(traces, 'lxcore-manifest.etl'))];
  await p.evaluate((b) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], 'lxcore-manifest.etl'));
    const zone = document.querySelector('[data-testid=dropzone]');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, bytes);
  await p.waitForSelector('tr[data-id] a:text("lxcore-manifest.etl")', { timeout: 60000 });
  await p.waitForFunction(() => /** @type {any} */ (window).sawBar === true);
  await p.waitForSelector('tr[data-id] a:text("shutdown-perfdiag-kernel.etl")');
  await p.waitForFunction(() => [...document.querySelectorAll('tr[data-id]')].some((tr) => tr.textContent.includes('shutdown-perfdiag') && tr.querySelector('[data-status=ready]')), null, { timeout: 60000 });
  const list = await (await fetch(`${srv.url}/api/traces`)).json();
  assert.ok(list.traces.some((t) => t.name === 'shutdown-perfdiag-kernel.etl' && t.size === fs.statSync(path.join(traces, 'shutdown-perfdiag-kernel.etl')).size));
  assert.deepEqual(errors, []);
  await c.close();
});

test('keys: * expands everything under a row (bounded); wheel and keys zoom the timeline; flame tooltip', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await p.click('[data-testid=table] tr[data-path="Test.x64.exe (3676)"]');
  await p.keyboard.press('*');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tbody tr').length > 100);
  await waitTable(p);
  const n = (await rows(p)).length;
  assert.ok(n > 100, `expanded ${n} rows`);
  assert.ok((await rows(p)).some((r) => r.path.split(' › ').length > 10), 'deep rows opened');
  // Left on the selected (expanded) row collapses it again.
  await p.keyboard.press('ArrowLeft');
  await p.waitForFunction(() => !document.querySelector('[data-testid=table] tr[data-depth="1"]'));
  // Wheel zooms the timeline around the pointer; the zoom lands in the URL.
  const tl = await p.locator('[data-testid=timeline]').boundingBox();
  await p.mouse.move(tl.x + tl.width / 2, tl.y + tl.height / 2);
  await p.mouse.wheel(0, -400);
  await p.waitForURL(/[?&]z=/);
  const z1 = /[?&]z=([\d.]+)-([\d.]+)/.exec(p.url());
  assert.ok(Number(z1[2]) - Number(z1[1]) < 12.5);
  // Keyboard: 0 resets the zoom.
  await p.focus('[data-testid=timeline]');
  await p.keyboard.press('0');
  await p.waitForFunction(() => !/[?&]z=/.test(location.search));
  // Flame tooltip: function, module, weight and percent, as text.
  await p.goto(`${srv.url}/t/${id}?v=1&view=flame&f=${encodeURIComponent('Process=Test.x64.exe (3676)')}`);
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  const third = await flameRowPoint(p, 2);
  await p.mouse.move(third.x, third.y);
  await p.waitForSelector('.tip:not([hidden])');
  const tip = await p.textContent('.tip');
  assert.match(tip, /Module: .+/);
  assert.match(tip, /Weight: [\d,]+ ms \([\d.]+% of range × CPUs, [\d.]+% of the graph\)/);
  assert.deepEqual(errors, []);
  await c.close();
});

test('File I/O: creates grouped by File Path, the top path and its count equal etlscope export', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await p.click('[data-testid=tab-file-io]');
  await p.waitForURL(/t=file-io/);
  await waitTable(p);
  // Filter to Type = Create from the row's context menu, then drill into it: paths by count.
  await p.click('[data-testid=table] tr[data-path="Create"]', { button: 'right' });
  await p.click('[data-testid=context-menu] >> text=Filter to Type = Create');
  await p.waitForURL(/f=Type/);
  await waitTable(p);
  // Expected from `etlscope export`: creates per File Path, the most opened first.
  const creates = exportRows(trace(), ['--table', 'file-io', '--group', 'File Path', '--filter', 'Type=Create'])
    .sort((a, b) => b.Count - a.Count);
  const want = { total: { count: creates.reduce((n, r) => n + r.Count, 0) }, rows: creates.map((r) => ({ label: r['File Path'], count: r.Count })) };
  assert.equal(await tableTotal(p), want.total.count);
  await p.click('[data-testid=table] tr[data-path="Create"] .tog');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
  const top = (await rows(p)).find((r) => r.path.startsWith('Create › '));
  assert.equal(top.path, `Create › ${want.rows[0].label}`);
  assert.equal(top.count, want.rows[0].count);
  // The brief's figure (etlscope export --table file-io --group "File Path" --filter Type=Create).
  assert.equal(want.rows[0].label, 'C:\\Windows\\CSC\\v2.0.6\\namespace\\clrmain');
  assert.equal(top.count, 69);
  await p.screenshot({ path: path.join(SHOTS, 'file-io-creates.png') });
  // The same grouping by link: File Path alone, filtered to creates.
  const fresh = await newPage();
  await fresh.p.goto(`${srv.url}/t/${id}?v=1&t=file-io&g=File Path&c=Count,Size&s=Count&f=${encodeURIComponent('Type=Create')}`);
  await waitTable(fresh.p);
  const first = (await rows(fresh.p))[0];
  assert.deepEqual(first, { path: want.rows[0].label, count: 69 });
  assert.deepEqual(fresh.errors, []);
  await fresh.c.close();
  assert.deepEqual(errors, []);
  await c.close();
});

test('filter to a Stack frame keeps every sample whose stack contains it (equal to etlscope export)', { skip: skip() }, async () => {
  const { p, c, errors } = await newPage();
  await p.goto(`${srv.url}/t/${id}`);
  await waitTable(p);
  await p.click('[data-testid=table] tr[data-path="Test.x64.exe (3676)"]');
  await p.keyboard.press('ArrowRight');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 0);
  await p.keyboard.press('ArrowDown');
  const sel = await p.$eval('[data-testid=table] tr.sel', (tr) => tr.getAttribute('data-path'));
  const frame = sel.split(' › ').at(-1);
  await p.click('[data-testid=table] tr.sel', { button: 'right' });
  await p.click(`[data-testid=context-menu] >> text=Filter to Stack contains ${frame}`);
  await p.waitForURL(/Stack\+contains|Stack%20contains/);
  await waitTable(p);
  // Expected: export rows whose stack has that frame anywhere.
  const want = sumCount(stackRows().filter((r) => r.Stack.split(';').includes(frame)));
  assert.equal(await tableTotal(p), want);
  assert.ok(want > 0 && moduleOf(frame).length > 0);
  // The flame graph colours by the API's module names and can hide samples without stacks.
  await p.click('[data-testid=tab-flame]');
  await p.click('[data-testid=flame-no-stack]');
  await p.waitForURL(/[?&]ns=1/);
  assert.deepEqual(errors, []);
  await c.close();
});
