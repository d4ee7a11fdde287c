// Short links: "Copy link" copies /v/ID, which opens the same view as its long form in a fresh
// browser context; the `*`-expanded tree of the real PerfView trace (a long form of tens of
// kilobytes) gives a link under 200 characters. Expected rows come from the long form opened in a
// fresh context of its own, never from the server's link store.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage as openPage, waitTable, copiedLink } from './browser.mjs';
import { realTraces, buildRelease, startServer, repoRoot } from './server.mjs';
import { fromQuery, encodePath } from '../url-state.js';

const traces = realTraces();
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let demoId = '';
let perfviewId = '';

before(async () => {
  buildRelease();
  const files = [path.join(repoRoot, 'traces/explorer-overlay.etl')];
  if (traces) files.push(path.join(traces, 'perfview-net452-x64.etl'));
  srv = await startServer(files);
  [demoId, perfviewId] = srv.ids;
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** Every row shown: its path (by identity), label and first number, in order. */
const shownRows = (/** @type {import('playwright-core').Page} */ p) => p.$$eval('[data-testid=table] tbody tr[data-path]', (trs) => trs.map((tr) => [
  tr.getAttribute('data-path'), tr.querySelector('td')?.textContent ?? '', tr.querySelector('td.num')?.textContent ?? '',
]));

/** Open `url` in a fresh context, wait for its tree to be restored, return its rows and final URL. */
async function openFresh(/** @type {string} */ url, /** @type {number} */ want) {
  const { p, c, errors } = await openPage(browser);
  await p.goto(url);
  await waitTable(p, 60000);
  await p.waitForFunction((n) => document.querySelectorAll('[data-testid=table] tbody tr[data-path]').length >= n, want, { timeout: 60000 });
  await waitTable(p, 60000);
  const rows = await shownRows(p);
  const at = p.url();
  assert.deepEqual(errors, []);
  await c.close();
  return { rows, at };
}

/** Select the heaviest top-level row, press `*` and wait for the expansion to end. */
async function expandEverythingUnderTop(/** @type {import('playwright-core').Page} */ p) {
  await p.click('[data-testid=table] tbody tr[data-depth="0"]');
  await p.keyboard.press('*');
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tbody tr[data-depth="3"]').length > 0, null, { timeout: 60000 });
  await waitTable(p, 60000);
}

async function copyShort(/** @type {import('playwright-core').Page} */ p) {
  await p.evaluate(() => navigator.clipboard.writeText(''));
  await p.click('[data-testid=copy-link]');
  return copiedLink(p);
}

test('a short link opens the same view as its long form in a fresh browser context', async () => {
  const { p, c, errors } = await openPage(browser, { clipboard: true });
  await p.goto(`${srv.url}/t/${demoId}?v=2&view=table&t=cpu-sampled&g=Process,Stack&r=7-23`);
  await waitTable(p);
  await expandEverythingUnderTop(p);
  const long = p.url();
  const link = await copyShort(p);
  assert.ok(link.length < 200, `${link.length} characters`);
  const n = (await shownRows(p)).length;
  const viaLong = await openFresh(long, n);
  const viaShort = await openFresh(link, n);
  assert.equal(viaShort.at, long, 'the short link lands on the long form');
  assert.deepEqual(viaShort.rows, viaLong.rows);
  assert.deepEqual(viaShort.rows, await shownRows(p), 'the rows of the page the link was copied on');
  assert.deepEqual(errors, []);
  await c.close();
});

test('the *-expanded view of the real PerfView trace gives a link under 200 characters', { skip: !traces && 'real traces missing' }, async () => {
  const { p, c, errors } = await openPage(browser, { clipboard: true });
  await p.goto(`${srv.url}/t/${perfviewId}`);
  await waitTable(p);
  await expandEverythingUnderTop(p);
  const long = p.url();
  const link = await copyShort(p);
  // The same expanded set written one full path per `o` (as links were before the trie).
  const u = new URL(long);
  const flat = new URLSearchParams([...u.searchParams].filter(([k]) => k !== 'o' && k !== 'ot'));
  for (const op of fromQuery(u.search).state.open) flat.append('o', encodePath(op));
  console.log(`# *-expanded PerfView view: ${fromQuery(u.search).state.open.length} expanded paths; long form ${long.length} characters (${(u.pathname + '?' + flat).length} with one o= per path), short link ${link.length}: ${link}`);
  assert.ok(long.length > 2000, `the long form is long (${long.length})`);
  assert.ok(link.length < 200, `${link.length} characters`);
  const n = (await shownRows(p)).length;
  const viaShort = await openFresh(link, n);
  const viaLong = await openFresh(long, n);
  assert.deepEqual(viaShort.rows, viaLong.rows);
  assert.equal(viaShort.rows.length, n);
  assert.deepEqual(errors, []);
  await c.close();
});
