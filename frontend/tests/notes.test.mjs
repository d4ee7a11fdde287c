// Notes on views (issue 40, point 3), clicked as users would in two browser contexts on the demo
// trace: a note written by one appears in the other's Notes panel and as a marker on its timeline at
// the note's time range (placed where the timeline's own scale puts that range); clicking the
// marker, or opening the note's copied link in a fresh context, opens the note's view with the note
// highlighted; only the writer may edit it; the library counts it. Hostile note text (HTML, script,
// javascript: links) shows as text, and a 1 MB note is refused with the server's limit named.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage as openPage, waitTable, clipboardWhen } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';
const VIEW = 'v=2&view=table&t=cpu-sampled&r=7-23';
const WAIT = { timeout: 15000 };

before(async () => {
  buildRelease();
  srv = await startServer([path.join(repoRoot, 'traces/explorer-overlay.etl')]);
  [id] = srv.ids;
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** A page of its own context that fails the test on a dialog or a script of the note's. @param {boolean} [clipboard] */
async function page(clipboard = false) {
  const pg = await openPage(browser, { clipboard });
  /** @type {string[]} */
  const dialogs = [];
  pg.p.on('dialog', (d) => { dialogs.push(d.message()); d.accept().catch(() => {}); });
  return { ...pg, dialogs };
}

/** Open the trace at `query` with the Notes panel unfolded. @param {import('playwright-core').Page} p @param {string} query */
async function openNotes(p, query) {
  await p.goto(`${srv.url}/t/${id}?${query}`);
  await waitTable(p, 60000);
  await p.waitForSelector('[data-testid=notes-toggle]', WAIT);
  await p.waitForFunction(() => /^Notes \(\d+\)$/.test(document.querySelector('[data-testid=notes-toggle]')?.textContent || ''), null, WAIT);
  if (await p.$eval('.notes-body', (e) => /** @type {HTMLElement} */ (e).hidden)) await p.click('[data-testid=notes-toggle]');
}

/** Write `text` as a note on the view shown; resolves to its id. @param {import('playwright-core').Page} p @param {string} text */
async function write(p, text) {
  const before = await p.$$eval('[data-testid=note]', (n) => n.map((e) => e.getAttribute('data-note-id')));
  await p.fill('[data-testid=note-input]', text);
  await p.click('[data-testid=note-add]');
  await p.waitForFunction((n) => document.querySelectorAll('[data-testid=note]').length > n, before.length, WAIT);
  const after = await p.$$eval('[data-testid=note]', (n) => n.map((e) => e.getAttribute('data-note-id')));
  return /** @type {string} */ (after.find((x) => !before.includes(x)));
}

test('a note written in one context shows in another\'s panel and timeline, and its link opens its view', async () => {
  const a = await page(true);
  await openNotes(a.p, VIEW);
  await a.p.fill('[data-testid=note-author]', 'Ann');
  await a.p.dispatchEvent('[data-testid=note-author]', 'change');
  const noteId = await write(a.p, 'The *overlay* spike: `CFSFolder::_GetOverlayInfo` again');

  // Another browser (no shared storage) opens the trace at its default view.
  const b = await page();
  await openNotes(b.p, 'v=2');
  const item = `[data-testid=note][data-note-id="${noteId}"]`;
  await b.p.waitForSelector(item, WAIT);
  assert.equal(await b.p.$eval(`${item} [data-testid=note-author-name]`, (e) => e.textContent), 'Ann');
  assert.equal(await b.p.$eval(`${item} [data-testid=note-text]`, (e) => e.textContent), 'The overlay spike: CFSFolder::_GetOverlayInfo again');
  assert.equal(await b.p.$eval(`${item} [data-testid=note-text] em`, (e) => e.textContent), 'overlay');
  assert.equal(await b.p.$(`${item} [data-testid=note-edit]`), null, 'only its writer edits it');
  assert.ok(await a.p.$(`${item} [data-testid=note-edit]`), 'its writer may edit it');

  // The marker spans 7-23 s on the timeline's own scale (the whole trace: first event to the end).
  const marker = `[data-testid=note-marker][data-note-id="${noteId}"]`;
  await b.p.waitForSelector(marker, WAIT);
  const sum = await (await fetch(`${srv.url}/api/traces/${id}/summary`)).json();
  const start = Math.min(sum.events_start_s || 0, sum.duration_s);
  const [m, c] = await Promise.all([b.p.$eval(marker, (e) => e.getBoundingClientRect().toJSON()), b.p.$eval('[data-testid=timeline]', (e) => e.getBoundingClientRect().toJSON())]);
  const x = (/** @type {number} */ t) => c.left + ((t - start) / (sum.duration_s - start)) * c.width;
  assert.ok(Math.abs(m.left - x(7)) < 2 && Math.abs(m.right - x(23)) < 2, `marker ${m.left}-${m.right}, range at ${x(7)}-${x(23)}`);

  // A click on the marker opens the note's view, the note highlighted and shown on it.
  await b.p.click(marker);
  await b.p.waitForFunction((n) => new URLSearchParams(location.search).get('note') === n, noteId, WAIT);
  const q = new URLSearchParams(new URL(b.p.url()).search);
  assert.deepEqual([q.get('t'), q.get('r'), q.get('view')], ['cpu-sampled', '7-23', 'table']);
  await b.p.waitForSelector(`[data-testid=view-note][data-note-id="${noteId}"]`, WAIT);
  assert.ok(await b.p.$(`${item}.current`), 'highlighted in the panel');

  // The writer's Copy link: a short link that opens the note's view, highlighted, in a fresh context.
  await a.p.click(`${item} [data-testid=note-copy-link]`);
  const link = await clipboardWhen(a.p, (t) => t.includes('/v/'));
  const c2 = await page();
  await c2.p.goto(link);
  await waitTable(c2.p, 60000);
  await c2.p.waitForSelector(`[data-testid=view-note][data-note-id="${noteId}"]`, WAIT);
  const q2 = new URLSearchParams(new URL(c2.p.url()).search);
  assert.deepEqual([q2.get('note'), q2.get('r'), q2.get('t')], [noteId, '7-23', 'cpu-sampled']);
  await c2.p.waitForSelector(`${item}.current`, WAIT);

  // The writer edits it; the other context sees the edit on refresh; the library counts it.
  await a.p.click(`${item} [data-testid=note-edit]`);
  await a.p.fill('[data-testid=note-edit-input]', 'edited: see 7-23 s');
  await a.p.click('[data-testid=note-save]');
  await a.p.waitForFunction((s) => document.querySelector(s)?.textContent === 'edited: see 7-23 s', `${item} [data-testid=note-text]`, WAIT);
  await b.p.click('[data-testid=notes-reload]');
  await b.p.waitForFunction((s) => document.querySelector(s)?.textContent === 'edited: see 7-23 s', `${item} [data-testid=note-text]`, WAIT);
  await b.p.goto(srv.url);
  await b.p.waitForSelector(`[data-testid=library] tr[data-id="${id}"] [data-testid=note-count]`, WAIT);
  assert.match(await b.p.$eval(`tr[data-id="${id}"] [data-testid=note-count]`, (e) => e.textContent || ''), /^\d+ notes?$/);

  // Deleted by its writer: gone from the other context after a refresh.
  await a.p.click(`${item} [data-testid=note-delete]`);
  await a.p.waitForSelector(item, { state: 'detached', ...WAIT });
  for (const x of [a, b, c2]) { assert.deepEqual(x.errors, []); await x.c.close(); }
});

test('hostile note text shows as text, and a 1 MB note is refused with the limit named', async () => {
  const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold</b> [x](javascript:alert(1)) javascript:alert(3) https://example.com/a?b=<i>x</i>';
  // One note written through the page, one straight to the API (a client that skips the UI).
  const a = await page();
  await openNotes(a.p, VIEW);
  const viaUi = await write(a.p, hostile);
  const r = await fetch(`${srv.url}/api/traces/${id}/notes`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-etlscope': '1' }, body: JSON.stringify({ text: `${hostile}\n<svg onload=alert(4)>`, view: VIEW, author: '<img src=y onerror=alert(5)>' }) });
  assert.equal(r.status, 201);
  const viaApi = (await r.json()).id;

  const b = await page();
  await openNotes(b.p, VIEW);
  for (const n of [viaUi, viaApi]) await b.p.waitForSelector(`[data-testid=note][data-note-id="${n}"]`, WAIT);
  await b.p.waitForSelector(`[data-testid=note-marker][data-note-id="${viaApi}"]`, WAIT);
  const seen = await b.p.evaluate(() => {
    const areas = [...document.querySelectorAll('[data-testid=notes-panel], [data-testid=view-notes], [data-testid=note-markers]')];
    const tags = [...new Set(areas.flatMap((a) => [...a.querySelectorAll('*')].map((e) => e.tagName)))].sort();
    const handlers = areas.flatMap((a) => [...a.querySelectorAll('*')].flatMap((e) => e.getAttributeNames().filter((n) => /^on/i.test(n))));
    const links = areas.flatMap((a) => [...a.querySelectorAll('.note-body a')].map((e) => [e.getAttribute('href'), e.getAttribute('rel'), e.getAttribute('target')]));
    const texts = [...document.querySelectorAll('[data-testid=note-text]')].map((e) => e.textContent);
    const authors = [...document.querySelectorAll('[data-testid=note-author-name]')].map((e) => e.textContent);
    return { tags, handlers, links, texts, authors, pwned: /** @type {any} */ (window).__pwned };
  });
  assert.deepEqual(seen.tags.filter((t) => !['A', 'BR', 'BUTTON', 'CODE', 'DIV', 'EM', 'INPUT', 'SPAN', 'TEXTAREA'].includes(t)), [], `only the app's own elements: ${seen.tags}`);
  assert.deepEqual(seen.handlers, []);
  assert.equal(seen.pwned, undefined);
  assert.ok(seen.texts.some((t) => t === hostile), 'the UI-written note shows its markup as text');
  assert.ok(seen.texts.some((t) => t.startsWith(hostile) && t.endsWith('<svg onload=alert(4)>')), 'the API-written one too');
  assert.ok(seen.authors.includes('<img src=y onerror=alert(5)>'), 'the author is text');
  // Links: only the http(s) address, opened apart from this page; javascript: stays text.
  for (const [href, rel, target] of seen.links) {
    assert.equal(href, 'https://example.com/a?b=', 'the address ends where the markup starts');
    assert.match(String(rel), /noopener/);
    assert.equal(target, '_blank');
  }
  assert.ok(seen.links.length >= 2);

  // 1 MB: refused before it is sent, naming the server's limit; the server refuses it too.
  const count = (await b.p.$$('[data-testid=note]')).length;
  await b.p.$eval('[data-testid=note-input]', (e) => { /** @type {HTMLTextAreaElement} */ (e).value = '<b>x</b>'.repeat(131072); });
  await b.p.click('[data-testid=note-add]');
  await b.p.waitForSelector('[data-testid=note-error]:not([hidden])', WAIT);
  assert.equal(await b.p.$eval('[data-testid=note-error]', (e) => e.textContent), 'This note is 1048576 bytes; this server keeps notes of at most 65536 bytes (64 KiB).');
  const big = await b.p.evaluate(async ([trace, view]) => {
    const x = await fetch(`/api/traces/${trace}/notes`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-etlscope': '1' }, body: JSON.stringify({ text: 'x'.repeat(1 << 20), view }) });
    return [x.status, (await x.json()).error.message];
  }, [id, VIEW]);
  assert.equal(big[0], 413);
  assert.match(big[1], /^the note is more than 65536 bytes \(--max-note-kb 64\)/);
  await b.p.click('[data-testid=notes-reload]');
  await b.p.waitForTimeout(300);
  assert.equal((await b.p.$$('[data-testid=note]')).length, count, 'nothing kept');
  for (const x of [a, b]) { assert.deepEqual(x.errors, []); assert.deepEqual(x.dialogs, []); await x.c.close(); }
});
