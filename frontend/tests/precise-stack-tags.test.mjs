// The Stack Tag column of CPU Usage (Precise) in the UI, on a trace our writer makes with context
// switches (`etlscope synth switches`): group by Stack Tag, then filter to one tag from the row's
// menu. Expected counts come from a naive tagger run here over the stacks `etlscope export` prints,
// never from the API the page renders. No PDBs: every frame is `module!0xRVA` (method `?`), which
// among the built-in set's entry points only ntoskrnl.exe's `*` matches (Windows\Kernel).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, binary } from './server.mjs';
import { exportRows } from './export.mjs';

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let dir = '';
let trace = '';

/** The built-in set on unnamed frames. @param {string} stack */
function naiveTag(stack) {
  if (!stack) return 'n/a';
  return stack.split(';').some((f) => f.toLowerCase().startsWith('ntoskrnl.exe!')) ? 'Windows\\Kernel' : 'Other';
}

before(async () => {
  buildRelease();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-precise-tags-'));
  trace = path.join(dir, 'switches.etl');
  const r = spawnSync(binary(), ['synth', 'switches', '-o', trace, '--seed', '3', '--switches', '1500'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  srv = await startServer([trace]);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Count per top-level row label of the page's table. @param {import('playwright-core').Page} p */
async function topCounts(p) {
  const heads = await p.$$eval('[data-testid=table] thead th', (ths) => ths.map((th) => (th.textContent || '').trim()));
  const at = heads.findIndex((x) => x.startsWith('Count'));
  assert.ok(at >= 0, JSON.stringify(heads));
  const rows = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs, i) => trs.map((tr) => [
    (tr.querySelector('td.label .txt')?.textContent || '').trim(),
    Number(((tr.querySelectorAll('td')[i]?.textContent) || '').replace(/,/g, '')),
  ]), at);
  return Object.fromEntries(rows);
}

test('CPU Usage (Precise) groups and filters by the new thread\'s Stack Tag like a naive tagger', async () => {
  /** @type {Record<string, number>} */
  const want = {};
  /** @type {Record<string, number>} */
  const kernelByProcess = {};
  for (const r of exportRows(trace, ['--table', 'cpu-precise', '--group', 'New Process,New Thread Stack'])) {
    const t = naiveTag(r['New Thread Stack']);
    want[t] = (want[t] || 0) + r.Count;
    if (t === 'Windows\\Kernel') kernelByProcess[r['New Process']] = (kernelByProcess[r['New Process']] || 0) + r.Count;
  }
  assert.deepEqual(Object.keys(want).sort(), ['Other', 'Windows\\Kernel', 'n/a']);

  const { p, errors } = await newPage(browser);
  const q = new URLSearchParams({ v: '2', view: 'table', t: 'cpu-precise', g: 'Stack Tag', c: 'Count', s: 'Count' });
  await p.goto(`${srv.url}/t/${srv.ids[0]}?${q}`);
  await waitTable(p);
  assert.deepEqual(await topCounts(p), want);

  // Filtered to Windows\Kernel (the link's filter), grouped by New Process.
  q.set('g', 'New Process');
  q.append('f', 'Stack Tag=Windows\\Kernel');
  await p.goto(`${srv.url}/t/${srv.ids[0]}?${q}`);
  await waitTable(p);
  assert.deepEqual(await topCounts(p), kernelByProcess);
  const chips = await p.textContent('[data-testid=filters]');
  assert.ok((chips || '').includes('Stack Tag = Windows\\Kernel'), `${chips}`);
  assert.deepEqual(errors, []);
});
