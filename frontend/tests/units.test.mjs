// True units and % bases on the demo trace: the header of every % column names what it is a
// share of (CPU Usage (Sampled): the CPU time of the range; File I/O: its durations, or its row
// count when no I/O recorded one, then headed "% Count"), and the flame graph's tooltip gives CPU
// weight in ms and, on its root, the sample count. Expected values come from `etlscope export`
// rows and `etlscope info --json`, never from the HTTP API the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage, waitTable, flameRowPoint } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** The CPUs `etlscope info` counts. */
function cpus() {
  const r = spawnSync(binary(), ['info', DEMO, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).cpus;
}

/** The header of a column: its text and tooltip. @param {import('playwright-core').Page} p @param {string} col */
const header = (p, col) => p.$eval(`[data-testid=table] th[data-col="${col}"]`, (th) => ({ text: th.textContent || '', title: th.getAttribute('title') || '' }));

test('% Weight of CPU Usage (Sampled) says it is a share of the range x CPUs', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?r=7-23`);
  await waitTable(p);
  const n = cpus();
  assert.ok(n >= 1);
  const h = await header(p, '% Weight');
  assert.match(h.text, /^% Weight/);
  const ms = intFmt.format(16 * n * 1000).replace(/,/g, '');
  assert.ok(h.title.includes(`16.000 s x ${n} CPUs = ${ms} ms`), h.title);
  assert.deepEqual(errors, []);
  await c.close();
});

test('File I/O names its % basis: durations when recorded, else "% Count"', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?t=file-io`);
  await waitTable(p);
  const rows = exportRows(DEMO, ['--table', 'file-io', '--group', 'Type', '--values', 'Count,Duration']);
  const timed = rows.some((r) => r.Duration > 0);
  const h = await header(p, '% Weight');
  if (timed) {
    assert.match(h.text, /^% Duration/);
    assert.match(h.title, /share of the Duration/);
  } else {
    // The demo's File I/O has no completions: the share is of the row count, and says so.
    assert.match(h.text, /^% Count/);
    assert.match(h.title, /share of the rows the filters keep: no row has a Duration/);
    const total = rows.reduce((a, r) => a + r.Count, 0);
    const create = rows.find((r) => r.Type === 'Create');
    const cell = await p.$eval('[data-testid=table] tr[data-path="Create"]', (tr) => {
      const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
      return tr.children[cols.indexOf('% Weight')].textContent;
    });
    assert.equal(cell, new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format((create.Count * 100) / total));
  }
  assert.deepEqual(errors, []);
  await c.close();
});

test('flame tooltip: CPU weight in ms and the root\'s sample count, as export sums them', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?view=flame&r=7-23`);
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  // The root box ("all") is the bottom row.
  const root = await flameRowPoint(p, 0);
  await p.mouse.move(root.x, root.y);
  await p.waitForSelector('.tip:not([hidden])');
  const rows = exportRows(DEMO, ['--table', 'cpu-sampled', '--range', '7-23', '--group', 'Process', '--values', 'Count,Weight']);
  const weightMs = rows.reduce((a, r) => a + r.Weight, 0) * 1000;
  const samples = rows.reduce((a, r) => a + r.Count, 0);
  // Its share of range x CPUs first (the table's % Weight), then of the graph.
  const share = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format((100 * weightMs) / (16000 * cpus()));
  assert.equal(await p.textContent('[data-testid=flame-tip-weight]'), `Weight: ${intFmt.format(weightMs)} ms (${share}% of range × CPUs, 100.00% of the graph)`);
  assert.equal(await p.textContent('[data-testid=flame-tip-samples]'), `Samples: ${intFmt.format(samples)}`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('graph legends: counts as whole numbers, weights with their unit; a title names the row it is under', async () => {
  const { p, c, errors } = await newPage(browser);
  // File I/O's graph counts rows: 6,142 creates, never "6,142.00".
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=file-io&g=Type,File Path&c=Count&s=Count`);
  await waitTable(p);
  await p.waitForSelector('[data-testid=table-graph][data-state=ready] .lg-v');
  const creates = exportRows(DEMO, ['--table', 'file-io', '--group', 'Type']).find((r) => r.Type === 'Create');
  const ioLegend = await p.$$eval('[data-testid=table-graph] .lg-v', (x) => x.map((e) => e.textContent));
  assert.deepEqual(ioLegend, [intFmt.format(creates.Count)]);
  // CPU Usage (Sampled) graphs weight: in ms, and says so beside each figure.
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=cpu-sampled&g=Process,Stack&c=Count,Weight (ms),% Weight&s=Weight (ms)`);
  await waitTable(p);
  await p.waitForSelector('[data-testid=table-graph][data-state=ready] .lg-v');
  const idle = exportRows(DEMO, ['--table', 'cpu-sampled', '--group', 'Process']).find((r) => r.Process === 'Idle (0)');
  const cpuLegend = await p.$$eval('[data-testid=table-graph] .lg', (x) => x.map((e) => [e.querySelector('.lg-t')?.textContent, e.querySelector('.lg-v')?.textContent]));
  const want = `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(idle.Weight * 1000)} ms`;
  assert.deepEqual(cpuLegend.find((x) => x[0] === 'Idle (0)'), ['Idle (0)', want]);
  // The title is the measure and the grouping, nothing dangling after them.
  const title = await p.$eval('[data-testid=table-graph] .tg-title', (e) => e.textContent || '');
  assert.equal(title, 'Weight by Process');
  assert.deepEqual(errors, []);
  await c.close();
});

test('one % for one weight: the table, the callers/callees and the flame tooltip give explorer.exe\'s share on the same base, and name it', async () => {
  const { p, c, errors } = await newPage(browser);
  const FN = 'kernel32.dll!Process32NextW';
  // Filtered to explorer.exe over 7-23 s: its share of the machine, not of the samples kept (100 %).
  const q = `r=7-23&f=${encodeURIComponent('Process=explorer.exe (6148)')}`;
  const pctOf = (/** @type {string} */ t) => Number(t.replace(/,/g, ''));
  /** The % Weight cell of the table's explorer.exe row and the column's header. */
  const tableShare = async (/** @type {string} */ more) => {
    await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=cpu-sampled&g=Process&c=Count,Weight (ms),% Weight&s=Weight (ms)&${q}${more}`);
    await waitTable(p);
    const cell = await p.$eval('[data-testid=table] tr[data-path="explorer.exe (6148)"]', (tr) => {
      const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
      return tr.children[cols.indexOf('% Weight')].textContent || '';
    });
    return { pct: pctOf(cell), head: await header(p, '% Weight') };
  };
  const all = await tableShare('');
  const withFn = await tableShare(`&f=${encodeURIComponent(`Stack contains=${FN}`)}`);
  const base = Number(/= (\d+) ms/.exec(all.head.title)?.[1]);
  assert.equal(base, 16 * cpus() * 1000, all.head.title);

  // The flame graph's root is every sample kept: explorer.exe's weight, the table's % first.
  await p.goto(`${srv.url}/t/${srv.ids[0]}?view=flame&${q}`);
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  const root = await flameRowPoint(p, 0);
  await p.mouse.move(root.x, root.y);
  await p.waitForSelector('.tip:not([hidden])');
  const tip = await p.textContent('[data-testid=flame-tip-weight]');
  const flamePct = /\(([\d.]+)% of range × CPUs, 100\.00% of the graph\)$/.exec(tip || '');
  console.log(`table explorer.exe ${all.pct}% | flame root: ${tip}`);

  // Callers/callees of Process32NextW: its inclusive share is the table's share of the samples
  // whose stack contains it, and every % column is headed as the table's.
  await p.goto(`${srv.url}/t/${srv.ids[0]}?view=butterfly&bk=function&bt=${encodeURIComponent(FN)}&bb=function&${q}`);
  await p.waitForSelector('[data-testid=bf-inclusive]');
  await p.waitForSelector('[data-testid=ct-callers] tbody tr[data-count]');
  const incl = await p.textContent('[data-testid=bf-inclusive]');
  console.log(`table with Stack contains ${FN}: ${withFn.pct}% | butterfly: ${incl}`);
  const m = /\(([\d.]+)% of range × CPUs\)$/.exec(incl || '');
  assert.ok(flamePct, tip);
  assert.equal(Number(flamePct[1]), all.pct);
  assert.ok(m, incl);
  assert.equal(Number(m[1]), withFn.pct);
  assert.equal(all.head.text.replace(/[▲▼]/g, '').trim(), '% Weight (of range × CPUs)');
  const heads = await p.$$eval('[data-testid=butterfly] th', (ths) => ths.filter((t) => (t.textContent || '').startsWith('%')).map((t) => [t.textContent, t.getAttribute('title')]));
  assert.ok(heads.length >= 4, JSON.stringify(heads));
  for (const [text, title] of heads) {
    assert.equal(text, '% Weight (of range × CPUs)');
    assert.equal(title, all.head.title.replace(/\. Click to sort; drag to move$/, ''));
  }
  // A caller row: its weight over the same base.
  const row = await p.$eval('[data-testid=ct-callers] tbody tr[data-count]', (tr) => [...tr.children].map((td) => td.textContent || ''));
  assert.equal(pctOf(row[3]), Math.round((10000 * pctOf(row[2])) / base) / 100, JSON.stringify(row));
  assert.deepEqual(errors, []);
  await c.close();
});
