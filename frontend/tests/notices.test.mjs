// Notices above the trace page say a thing once, and those about a view go with the view: "*" twice
// on a row with more than 400 rows under it says "Expanded the first 400 rows" once, and another
// tab takes it away (issue 33). The trace's own notices (its diagnostics) stay until dismissed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, realTraces } from './server.mjs';

// A real PerfView trace: Test.x64.exe's stacks hold more than 400 rows to expand.
const dir = realTraces();
const TRACE = dir ? path.join(dir, 'perfview-net452-x64.etl') : '';
const PROC = 'Test.x64.exe (3676)';
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  if (!dir) return;
  buildRelease();
  srv = await startServer([TRACE]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

const expandedNotices = (/** @type {import('playwright-core').Page} */ p) => p.$$eval('.notice span', (x) => x.map((e) => e.textContent || '').filter((t) => t.startsWith('Expanded the first')));

test('a notice is said once, and a view\'s notice goes with the view', { skip: !dir && 'no real traces' }, async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=cpu-sampled&g=Process,Stack&c=Count,Weight (ms),% Weight&s=Weight (ms)`);
  await waitTable(p);
  await p.click(`[data-testid=table] tr[data-path="${PROC}"]`);
  for (let i = 0; i < 2; i++) {
    await p.keyboard.press('*');
    await p.waitForFunction(() => [...document.querySelectorAll('.notice span')].some((e) => (e.textContent || '').startsWith('Expanded the first')));
    await waitTable(p);
  }
  assert.deepEqual(await expandedNotices(p), [`Expanded the first 400 rows under ${PROC}`]);
  await p.click('[data-testid=tab-images]');
  await p.waitForURL(/t=images/);
  await waitTable(p);
  assert.deepEqual(await expandedNotices(p), []);
  assert.deepEqual(errors, []);
  await c.close();
});
