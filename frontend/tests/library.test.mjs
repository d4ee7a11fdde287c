// The library's uploads (issue 16.6 defects): progress says percent and bytes, an upload of bytes
// already in the library says so and points at that entry, and a refused upload keeps no progress bar.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage } from './browser.mjs';
import { spawnSync } from 'node:child_process';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const FIXED = path.join(repoRoot, 'traces/explorer-fixed.etl');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let tmp = '';

before(async () => {
  buildRelease();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-lib-'));
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Record every text the upload label shows, from before the upload starts. */
const recordLabels = (/** @type {import('playwright-core').Page} */ p) => p.evaluate(() => {
  /** @type {any} */ (window).labels = [];
  new MutationObserver(() => {
    for (const l of document.querySelectorAll('[data-testid=upload-label]')) {
      const seen = /** @type {any} */ (window).labels;
      if (seen[seen.length - 1] !== l.textContent) seen.push(l.textContent);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
});

test('upload progress says percent and bytes; the same bytes again say they were already there', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=library] tbody tr');
  await recordLabels(p);
  const size = fs.statSync(FIXED).size;
  await p.setInputFiles('input[type=file]', FIXED);
  await p.waitForFunction(() => [...document.querySelectorAll('[data-testid=upload-label]')].some((l) => /uploaded/.test(l.textContent)), null, { timeout: 60000 });
  const labels = /** @type {string[]} */ (await p.evaluate(() => /** @type {any} */ (window).labels));
  const progress = labels.filter((l) => l.startsWith('Uploading explorer-fixed.etl: '));
  assert.ok(progress.length >= 2, JSON.stringify(labels));
  const mib = (size / 1048576).toFixed(1);
  assert.match(progress[progress.length - 1], new RegExp(`: 100% \\(${mib} MiB of ${mib} MiB\\)$`), JSON.stringify(progress));
  for (const l of progress) assert.match(l, /: \d+% \(\d+(\.\d)? (B|KiB|MiB) of \d+(\.\d)? MiB\)$/);
  const pcts = progress.map((l) => Number(/: (\d+)%/.exec(l)[1]));
  assert.deepEqual(pcts, [...pcts].sort((a, b) => a - b), 'the percent never goes back');

  // The demo was served from the start: uploading its bytes stores nothing and says where it is.
  const before = (await (await fetch(`${srv.url}/api/traces`)).json()).traces.length;
  await p.setInputFiles('input[type=file]', DEMO);
  const existed = await p.waitForSelector('[data-testid=upload-item].existed', { timeout: 60000 });
  assert.match(await (await existed.$('[data-testid=upload-label]')).textContent(), /^explorer-overlay\.etl was already in the library \(as explorer-overlay\.etl, uploaded .+\): not stored again\.$/);
  assert.equal(await existed.$('[data-testid=upload-bar]'), null, 'no progress bar on the notice');
  assert.equal(await p.$$eval(`tr[data-id="${srv.ids[0]}"].flash`, (t) => t.length), 1, 'the entry is pointed at');
  assert.equal((await (await fetch(`${srv.url}/api/traces`)).json()).traces.length, before);
  assert.deepEqual(errors, []);
  await c.close();
});

test('a refused upload shows the reason and no progress bar', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=library] tbody tr');
  const bogus = path.join(tmp, 'not-a-trace.etl');
  fs.writeFileSync(bogus, Buffer.alloc(200000, 0x41));
  await p.setInputFiles('input[type=file]', bogus);
  const item = await p.waitForSelector('[data-testid=upload-item].error', { timeout: 60000 });
  assert.match(await item.textContent(), /^not-a-trace\.etl: .+/);
  assert.equal(await item.$('[data-testid=upload-bar]'), null, 'a refused upload keeps no bar');
  assert.deepEqual(errors, []);
  await c.close();
});

test('the ingesting notice of an upload follows its row: it says ready when the row does', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=library] tbody tr');
  await recordLabels(p);
  // A trace of our writer, new to this library, so it ingests.
  const copy = path.join(tmp, 'explorer-copy.etl');
  const w = spawnSync(binary(), ['synth', 'bench', '-o', copy, '--samples', '20000', '--threads', '8'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  await p.setInputFiles('input[type=file]', copy);
  await p.waitForFunction(() => [...document.querySelectorAll('tr[data-id]')].some((tr) => tr.textContent.includes('explorer-copy.etl') && tr.querySelector('[data-status=ready]')), null, { timeout: 60000 });
  await p.waitForFunction(() => /** @type {any} */ (window).labels.includes('explorer-copy.etl: ready'), null, { timeout: 10000 });
  // Ready without a reload: it can be compared at once, as a row listed ready can.
  // (Other rows' Compare with… menus name it too: the row is the one whose link does.)
  const row = p.locator('tr[data-id]').filter({ has: p.locator('td:first-child a', { hasText: 'explorer-copy.etl' }) });
  await row.locator('[data-testid=compare-with]').waitFor({ timeout: 5000 });
  assert.deepEqual(errors, []);
  await c.close();
});

test('the same file chosen twice in the file picker: the second says it is already in the library and points at its row', async () => {
  const { p, c, errors } = await newPage(browser);
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=library] tbody tr');
  // A file new to this library (our writer's), chosen through the picker (a real file chooser, as a user does).
  const file = path.join(tmp, 'twice.etl');
  const w = spawnSync(binary(), ['synth', 'bench', '-o', file, '--samples', '3000', '--threads', '2'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  const choose = async () => {
    const [chooser] = await Promise.all([p.waitForEvent('filechooser'), p.getByRole('button', { name: 'Choose files…' }).click()]);
    await chooser.setFiles(file);
  };
  await choose();
  await p.waitForFunction(() => [...document.querySelectorAll('tr[data-id]')].some((tr) => tr.textContent.includes('twice.etl') && tr.querySelector('[data-status=ready]')), null, { timeout: 60000 });
  const id = await p.$$eval('tr[data-id]', (trs) => trs.find((tr) => tr.textContent.includes('twice.etl'))?.getAttribute('data-id'));
  const count = (await (await fetch(`${srv.url}/api/traces`)).json()).traces.length;
  // Again, the same file: the browser sends no change event for an unchanged choice unless the page resets it.
  await choose();
  const existed = await p.waitForSelector('[data-testid=upload-item].existed', { timeout: 20000 });
  assert.match(await (await existed.$('[data-testid=upload-label]')).textContent(), /^twice\.etl was already in the library \(as twice\.etl, uploaded .+\): not stored again\.$/);
  assert.equal((await (await fetch(`${srv.url}/api/traces`)).json()).traces.length, count, 'nothing stored again');
  // Its row is selected and in view, and the notice opens it.
  await p.waitForSelector(`tr[data-id="${id}"].selected`, { timeout: 5000 }).catch((e) => { throw new Error(`the entry is not selected: ${e.message}`); });
  assert.equal(await p.$$eval('tr.selected', (t) => t.length), 1, 'one entry is selected');
  assert.ok(await p.locator(`tr[data-id="${id}"]`).isVisible());
  await existed.$('[data-testid=upload-open]').then((b) => b.click());
  await p.waitForFunction((t) => location.pathname === t, `/t/${id}`, { timeout: 10000 }).catch(async (e) => { throw new Error(`${e.message}: at ${p.url()}`); });
  await p.waitForSelector('[data-testid=trace-info]');
  assert.deepEqual(errors, []);
  await c.close();
});

test('a link to a deleted trace says it was deleted, with the way back to the library (410, issue 36)', async () => {
  const file = path.join(tmp, 'deleted.etl');
  const w = spawnSync(binary(), ['synth', 'bench', '-o', file, '--samples', '2000', '--threads', '1'], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  const up = await fetch(`${srv.url}/api/traces?name=deleted.etl`, { method: 'POST', headers: { 'x-etlscope': '1', 'content-type': 'application/octet-stream' }, body: fs.readFileSync(file) });
  const body = await up.text();
  assert.equal(up.status, 201, body);
  const { id } = JSON.parse(body);
  const del = await fetch(`${srv.url}/api/traces/${id}`, { method: 'DELETE', headers: { 'x-etlscope': '1' } });
  assert.ok(del.ok, `delete: ${del.status}`);
  const { p, c } = await newPage(browser);
  const r = await p.goto(`${srv.url}/t/${id}`);
  assert.equal(r?.status(), 410);
  await p.waitForSelector('.trace-head .state.error');
  assert.equal(await p.textContent('.trace-head .state.error'), `Trace ${id} was deleted from this library.`);
  await p.click('text=← Back to the library');
  await p.waitForSelector('[data-testid=library] tbody tr');
  await c.close();
});
