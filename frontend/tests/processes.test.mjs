// The Processes preset on a real kernel trace (shutdown-perfdiag-kernel.etl): one row per process
// with its Start Time, End Time, Duration, Exit Code and Command Line right of the gold bar; the
// cells carry the values `etlscope export` prints for the same grouping (data-value).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { realTraces, buildRelease, startServer, repoRoot, binary } from './server.mjs';

const traces = realTraces();
const BIN = binary();
const VALUES = ['Start Time', 'End Time', 'Duration', 'Exit Code', 'Command Line'];
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
const trace = () => path.join(traces, 'shutdown-perfdiag-kernel.etl');

before(async () => {
  if (!traces) return;
  buildRelease();
  srv = await startServer([trace()]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

test('Processes: one row per process with its lifetime values, as etlscope export has them', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.selectOption('[data-testid=preset]', { label: 'Processes' });
  await p.waitForURL(/t=processes/);
  await waitTable(p);
  const r = spawnSync(BIN, ['export', trace(), '--table', 'processes', '--group', 'Process', '--values', VALUES.join(','), '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  /** @type {any[]} */
  const want = JSON.parse(r.stdout);
  const shown = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => {
    const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
    return trs.map((tr) => {
      /** @type {Record<string, string>} */ const values = {};
      [...tr.children].forEach((td, i) => { const col = cols[i]; if (col && td.hasAttribute('data-value')) values[col] = td.getAttribute('data-value'); });
      return { label: tr.querySelector('td.label .txt').textContent, values };
    });
  });
  assert.equal(shown.length, want.length);
  for (const s of shown) {
    const e = want.find((w) => w.Process === s.label);
    assert.ok(e, s.label);
    for (const v of VALUES) assert.equal(s.values[v], e[v] === null ? '' : String(e[v]), `${s.label} ${v}`);
  }
  // Sorted by Start Time: the processes that ran before the trace (no start) first, then by start.
  const starts = shown.map((s) => s.values['Start Time']);
  const known = starts.filter((x) => x !== '').map(Number);
  assert.deepEqual(starts.slice(0, starts.length - known.length), Array(starts.length - known.length).fill(''));
  assert.ok(known.every((x, i) => i === 0 || known[i - 1] <= x), 'ascending start times');
  assert.deepEqual(errors, []);
  await c.close();
});

test('the Processes, Threads and Images tabs open as WPA\'s lifetime views: one row per instance, its times right of the gold bar, earliest first', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  const keysAndValues = () => p.$$eval('[data-testid=table] thead th', (ths) => {
    const cols = ths.map((t) => t.getAttribute('data-col'));
    const bar = cols.indexOf('|');
    return { keys: cols.slice(0, bar), values: cols.slice(bar + 1).filter(Boolean) };
  });
  for (const [tab, keys, values] of /** @type {[string, string[], string[]][]} */ ([
    ['processes', ['Process'], VALUES],
    ['threads', ['Process', 'Thread ID'], ['Start Time', 'End Time', 'Duration', 'Thread Name']],
    ['images', ['Process', 'Image Name'], ['Load Time', 'Unload Time', 'Image Size', 'File Version', 'Image Path']],
  ])) {
    await p.click(`[data-testid=tab-${tab}]`);
    await p.waitForURL(new RegExp(`t=${tab}`));
    await waitTable(p);
    assert.deepEqual(await keysAndValues(), { keys, values }, tab);
    assert.match(p.url(), /[?&]asc=1(&|$)/, `${tab}: earliest first`);
  }
  // A process still running at the trace's end has no exit code (export says null), not 0.
  await p.click('[data-testid=tab-processes]');
  await waitTable(p);
  const r = spawnSync(BIN, ['export', path.join(traces, 'shutdown-perfdiag-kernel.etl'), '--table', 'processes', '--rows', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  const alive = JSON.parse(r.stdout).find((/** @type {any} */ x) => x['End Time'] === null);
  assert.equal(alive['Exit Code'], null);
  const cell = await p.$eval(`[data-testid=table] tr[data-path="${alive.Process}"]`, (tr) => {
    const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
    return tr.children[cols.indexOf('Exit Code')].textContent;
  });
  assert.equal(cell, '');
  assert.deepEqual(errors, []);
  await c.close();
});
