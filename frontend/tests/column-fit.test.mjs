// Column widths fitted to content on first show (issue 33 point 3), at 1366x768: every key cell,
// number, date and path shows its text in full, or, for a path too long for its column, elided
// in the middle with the file name still visible and the full text in the cell's title. Provider
// names (Generic Events) and image paths (Images, explorer.exe expanded) on the demo; on real
// traces, image paths grouped as keys, UTC dates and command lines (Processes).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, realTraces } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const traces = realTraces();
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO, ...(traces ? ['sawbuck-win7-image-64bit.etl', 'perfview-net452-x64.etl'].map((f) => path.join(traces, f)) : [])]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/**
 * Every text cell of the table that is cut: neither wholly shown nor a path elided in the middle
 * whose file name shows and whose title holds the whole text.
 * @param {import('playwright-core').Page} p
 */
const cutCells = (p) => p.$$eval('[data-testid=table] tbody tr:not(.more) td', (tds) => tds.flatMap((td) => {
  if (td.classList.contains('gold') || td.classList.contains('filler') || td.classList.contains('empty')) return [];
  const txt = td.querySelector('.txt') || td;
  const text = txt.textContent || '';
  const isPath = /^"?(?:[A-Za-z]:)?[\\/]/.test(text);
  // Keys, numbers, dates and paths; other text values (descriptions) may end in an ellipsis.
  if (!text || !(td.classList.contains('label') || td.classList.contains('num') || isPath)) return [];
  const box = td.getBoundingClientRect();
  const cs = getComputedStyle(td);
  const right = box.right - parseFloat(cs.paddingRight) - parseFloat(cs.borderRightWidth) + 0.5;
  // The text's own box (a Range over it) ends inside the cell's content box.
  const range = document.createRange();
  range.selectNodeContents(txt);
  const whole = range.getBoundingClientRect().right <= right && td.scrollWidth <= td.clientWidth + 1;
  if (whole) return [];
  // The file name: of the program, for a quoted command line.
  const prog = text.startsWith('"') ? text.slice(1, text.indexOf('"', 1)) : text;
  const name = prog.slice(Math.max(prog.lastIndexOf('\\'), prog.lastIndexOf('/')) + 1);
  const tail = td.querySelector('.tail');
  const tailShown = !!tail && tail.textContent.includes(name) && text.endsWith(tail.textContent) && tail.getBoundingClientRect().right <= right;
  if (isPath && tailShown && td.title === text) return [];
  return [{ text, title: td.title, width: Math.round(box.width), isPath, tailShown }];
}));

/** @param {string} url */
async function open(url) {
  const c = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const p = await c.newPage();
  /** @type {string[]} */ const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  await p.goto(url);
  await waitTable(p, 60000);
  return { p, c, errors };
}

test('1366x768: names, paths and dates are readable on first show; long paths keep their file name', async () => {
  const id = srv.ids[0];
  // Images by Process, Image Name; explorer.exe's images show their paths.
  {
    const { p, c, errors } = await open(`${srv.url}/t/${id}?v=2&t=images`);
    await p.click('[data-testid=table] tr[data-path="explorer.exe (6148)"] .tog');
    await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 100);
    await waitTable(p);
    const paths = await p.$$eval('[data-testid=table] tbody td', (tds) => tds.filter((td) => /^[A-Za-z]:\\/.test(td.textContent || '')).length);
    assert.ok(paths > 100, `${paths} path cells`);
    const cut = await cutCells(p);
    console.log(`images: ${cut.length} cut cells`, JSON.stringify(cut.slice(0, 4)));
    assert.deepEqual(cut, []);
    assert.deepEqual(errors, []);
    await c.close();
  }
  // Generic Events by Provider: the provider names whole.
  {
    const { p, c, errors } = await open(`${srv.url}/t/${id}?v=2&t=generic`);
    const cut = await cutCells(p);
    console.log(`generic: ${cut.length} cut cells`, JSON.stringify(cut.slice(0, 4)));
    assert.deepEqual(cut, []);
    assert.deepEqual(errors, []);
    await c.close();
  }
});

test('real traces: image paths as keys, UTC dates and command lines readable or elided in the middle', { skip: !traces }, async () => {
  {
    const { p, c, errors } = await open(`${srv.url}/t/${srv.ids[1]}?v=2&t=images&g=Image Path&c=Count`);
    const paths = await p.$$eval('[data-testid=table] tbody td.label', (tds) => tds.filter((td) => /^[A-Za-z]:\\|^\\/.test(td.querySelector('.txt')?.textContent || '')).length);
    assert.ok(paths > 20, `${paths} path cells`);
    const cut = await cutCells(p);
    console.log(`sawbuck images by path: ${cut.length} cut cells`, JSON.stringify(cut.slice(0, 4)));
    assert.deepEqual(cut, []);
    assert.deepEqual(errors, []);
    await c.close();
  }
  {
    const { p, c, errors } = await open(`${srv.url}/t/${srv.ids[2]}?v=2&t=processes&tm=utc`);
    const dates = await p.$$eval('[data-testid=table] tbody td', (tds) => tds.filter((td) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+Z$/.test(td.textContent || '')).length);
    assert.ok(dates >= 3, `${dates} date cells`);
    const cut = await cutCells(p);
    console.log(`perfview processes (UTC): ${cut.length} cut cells`, JSON.stringify(cut.slice(0, 4)));
    assert.deepEqual(cut, []);
    assert.deepEqual(errors, []);
    await c.close();
  }
});
