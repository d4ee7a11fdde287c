// The trace page's frame (issue 16.6 defects): the browser tab names the trace, the table tabs are
// ARIA tabs, Generic Events opens without a notice about its own default columns, and a truncated
// trace's notice is a sentence naming the file offset, not raw JSON.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, waitTable, flameRowPoint } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let tmp = '';
/** Where the truncated copy ends: inside the 40th 64 KiB buffer. */
const CUT = 40 * 65536 + 1000;

before(async () => {
  buildRelease();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-trunc-'));
  const cut = path.join(tmp, 'truncated.etl');
  fs.writeFileSync(cut, fs.readFileSync(DEMO).subarray(0, CUT));
  srv = await startServer([DEMO, cut]);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the browser tab names the trace; table tabs are ARIA tabs with the open one selected', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  assert.equal(await p.title(), 'explorer-overlay.etl - etlscope');
  const tabs = () => p.$$eval('[data-testid=trace-page] [role=tablist] > [role=tab], .tabs > [role=tab]', (ts) => ts.map((t) => [t.getAttribute('data-testid'), t.getAttribute('aria-selected')]));
  let t = await tabs();
  assert.ok(t.length >= 9, `tabs: ${JSON.stringify(t)}`);
  assert.deepEqual(t.filter((x) => x[1] === 'true').map((x) => x[0]), ['tab-cpu-sampled']);
  await p.click('[data-testid=tab-file-io]');
  await p.waitForURL(/t=file-io/);
  await waitTable(p);
  t = await tabs();
  assert.deepEqual(t.filter((x) => x[1] === 'true').map((x) => x[0]), ['tab-file-io']);
  assert.deepEqual(errors, []);
  await c.close();
});

test('Generic Events opens without a notice about its own default columns', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.click('[data-testid=tab-generic]');
  await p.waitForURL(/t=generic/);
  await waitTable(p);
  const notices = await p.textContent('[data-testid=notices]');
  assert.doesNotMatch(notices || '', /Unknown column/);
  assert.ok(await p.$('[data-testid=table] th[data-col="First (s)"]'), 'First (s) is a column');
  assert.deepEqual(errors, []);
  await c.close();
});

test('a truncated trace says what was lost and where, in words', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[1]}`);
  await p.waitForSelector('[data-testid=notices] .notice');
  const text = await p.textContent('[data-testid=notices]');
  assert.match(text || '', /problem/);
  assert.match(text || '', /file offset 0x[0-9a-f]+/);
  assert.doesNotMatch(text || '', /[{}]|"offset"/);
  assert.deepEqual(errors, []);
  await c.close();
});

test('flame graph by process: a process box offers filter and exclude, not callers of a module', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=1&view=flame&pp=1`);
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  // The row just above the root: one box per process.
  const above = await flameRowPoint(p, 1, 5);
  await p.mouse.click(above.x, above.y, { button: 'right' });
  const menu = await p.textContent('[data-testid=context-menu]');
  assert.match(menu || '', /Exclude Process .+ \(\d+\)/);
  assert.doesNotMatch(menu || '', /callers of module/);
  const proc = /Exclude Process (.+ \(\d+\))/.exec(menu || '')?.[1];
  await p.click('[data-testid=context-menu] >> text=Exclude Process');
  await p.waitForURL(/[?&]x=Process/);
  const chips = await p.textContent('[data-testid=filters]');
  assert.ok((chips || '').includes(`Process ≠ ${proc}`), `${chips}`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('a table the trace has no events for says what the recording lacked, not "no data in this range"', async () => {
  const { p, c, errors } = await newPage(browser);
  const firstKey = { 'cpu-precise': 'New Process', 'disk-io': 'IO Type', 'file-io': 'Type', images: 'Process', processes: 'Process' };
  let lacking = 0;
  for (const [table, key] of Object.entries(firstKey)) {
    // Whether the trace has any of the table's rows at all: `etlscope export` over the whole trace.
    const n = exportRows(DEMO, ['--table', table, '--group', key]).length;
    await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&view=table&t=${table}`);
    await p.waitForSelector('[data-testid=table] tbody tr');
    await waitTable(p).catch(() => {});
    const empty = await p.$eval('[data-testid=table-empty]', (e) => e.textContent).catch(() => null);
    if (n === 0) {
      lacking++;
      assert.match(empty || '', /^This trace has no .*: record with /, `${table}: ${empty}`);
    } else {
      assert.equal(empty, null, `${table} has ${n} rows`);
    }
  }
  assert.ok(lacking > 0, 'the demo lacks at least one kind of event (it has no context switches)');
  // With a range that holds nothing, a table the trace does have says so plainly.
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&view=table&t=file-io&r=0.000001-0.000002`);
  // The view may be rebuilt while it settles (its notice replaced with a fresh one), so wait for
  // the words rather than hold on to the first element seen.
  await p.waitForFunction(() => /No data in this range/.test(document.querySelector('[data-testid=table-empty]')?.textContent || ''), null, { timeout: 30000 });
  assert.deepEqual(errors, []);
  await c.close();
});
