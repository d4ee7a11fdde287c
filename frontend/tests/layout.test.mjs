// The trace page on a laptop screen and on a desktop one (issue 33): at 1366x768 and 1920x1080
// every control of the header, the timeline and the view's tool line is visible inside the
// window and answers a real mouse click, every tab is on the strip or in its More menu, at least
// 15 table rows are visible, and the page never scrolls sideways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

const CONTROLS = ['copy-link', 'range-input', 'preset', 'columns-btn', 'export-csv', 'export-tsv', 'add-view', 'findings-toggle'];
const TABS = ['tab-cpu-sampled', 'tab-cpu-precise', 'tab-processes', 'tab-threads', 'tab-images', 'tab-file-io', 'tab-disk-io', 'tab-generic', 'tab-flame', 'tab-butterfly', 'tab-sysconfig'];

/** Whether the element's box lies wholly inside the window. @param {import('playwright-core').Page} p @param {string} sel */
const inWindow = (p, sel) => p.$eval(sel, (e) => {
  const b = e.getBoundingClientRect();
  return b.width > 0 && b.height > 0 && b.left >= 0 && b.top >= 0 && b.right <= innerWidth && b.bottom <= innerHeight;
});

for (const [width, height] of [[1366, 768], [1920, 1080]]) {
  test(`${width}x${height}: every control visible and clickable, every tab reachable, 15+ rows, no sideways scroll`, async () => {
    const c = await browser.newContext({ viewport: { width, height } });
    const p = await c.newPage();
    /** @type {string[]} */ const errors = [];
    p.on('pageerror', (e) => errors.push(e.message));
    // Images by Process, Image Name with explorer.exe open: hundreds of rows to fill the table.
    await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=images&g=Process,Image Name&c=Count&s=Count`);
    await waitTable(p);
    await p.click('[data-testid=table] tr[data-path="explorer.exe (6148)"] .tog');
    await p.waitForFunction(() => document.querySelectorAll('[data-testid=table] tr[data-depth="1"]').length > 100);

    const sideways = await p.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(sideways <= 0, `the page scrolls ${sideways} px sideways`);
    const rows = await p.$$eval('[data-testid=table] tbody tr', (trs) => {
      const box = /** @type {HTMLElement} */ (document.querySelector('.table-scroll')).getBoundingClientRect();
      return trs.filter((tr) => { const b = tr.getBoundingClientRect(); return b.top >= box.top && b.bottom <= Math.min(box.bottom, innerHeight); }).length;
    });
    assert.ok(rows >= 15, `${rows} table rows visible`);

    for (const id of CONTROLS) assert.ok(await inWindow(p, `[data-testid=${id}]`), `${id} is not wholly inside the ${width}x${height} window`);
    for (const sel of ['.trace-head select', '[data-testid=view-tools] select']) {
      for (const i of await p.$$(sel)) assert.ok(await i.isVisible() && await i.evaluate((e) => e.getBoundingClientRect().right <= innerWidth), `${sel} off-screen`);
    }
    // A click lands on each control (nothing covers it): the tool line's Columns… opens its chooser.
    await p.click('[data-testid=columns-btn]');
    await p.waitForSelector('.chooser');
    await p.keyboard.press('Escape');
    await p.mouse.click(5, height - 5);

    // The demo has no hard faults, network, page fault, registry, VirtualAlloc or heap events, no
    // regions file and no marks: those tables get no tab (as WPA's Graph Explorer lists only graphs with data).
    for (const t of ['hard-faults', 'network', 'page-faults', 'registry', 'virtual-alloc', 'heap', 'regions', 'marks']) {
      assert.equal(await p.$(`[data-testid=tab-${t}]`), null, `tab-${t} shown on a trace without its events`);
    }
    // Every tab: on the strip (clicked) or in the More menu (chosen); each opens its view.
    const hidden = [];
    for (const t of TABS) {
      const shown = await p.$eval(`[data-testid=${t}]`, (e) => !(/** @type {HTMLElement} */ (e).hidden));
      if (shown) assert.ok(await inWindow(p, `[data-testid=${t}]`), `${t} off-screen`);
      else hidden.push(t);
    }
    if (hidden.length) {
      assert.ok(await inWindow(p, '[data-testid=tab-more]'), 'the More menu is off-screen');
      const options = await p.$$eval('[data-testid=tab-more] option', (os) => os.map((o) => /** @type {HTMLOptionElement} */ (o).value).filter(Boolean));
      assert.deepEqual(options, hidden);
      await p.selectOption('[data-testid=tab-more]', hidden[0]);
      await p.waitForFunction((t) => document.querySelector(`[data-testid=${t}]`)?.classList.contains('on'), hidden[0]);
    }
    const visibleTab = TABS.find((t) => !hidden.includes(t) && t !== 'tab-images') || TABS[0];
    await p.click(`[data-testid=${visibleTab}]`);
    await p.waitForFunction((t) => document.querySelector(`[data-testid=${t}]`)?.classList.contains('on'), visibleTab);
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth), 'no sideways scroll after switching views');
    assert.deepEqual(errors, []);
    await c.close();
  });
}
