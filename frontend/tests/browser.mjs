// Launch Debian's chromium through playwright-core (no browser download), and the page helpers
// every browser test file uses.
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** The size of every page (and so of the screenshots). */
export const VIEWPORT = { width: 1600, height: 1000 };

export function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

/**
 * A page in a new 1600x1000 context that records script errors (the tests assert there are none).
 * @param {import('playwright-core').Browser} browser
 * @param {{clipboard?: boolean, init?: () => void}} [o] grant clipboard access; a script run before the page's own
 * @returns {Promise<{p: import('playwright-core').Page, c: import('playwright-core').BrowserContext, errors: string[]}>}
 */
export async function newPage(browser, o = {}) {
  const c = await browser.newContext({ viewport: VIEWPORT });
  if (o.clipboard) await c.grantPermissions(['clipboard-read', 'clipboard-write']);
  if (o.init) await c.addInitScript(o.init);
  const p = await c.newPage();
  /** @type {string[]} */
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  return { p, c, errors };
}

/**
 * Wait until the analysis table has rows and is neither loading nor expanding.
 * @param {import('playwright-core').Page} p @param {number} [timeout] ms
 */
export const waitTable = (p, timeout = 30000) => p.waitForFunction(() => {
  const s = document.querySelector('[data-testid=table-status]');
  return s && !/Loading|Expanding/.test(s.textContent) && document.querySelector('[data-testid=table] tbody tr');
}, null, { timeout });

/**
 * The clipboard's text once `ok` holds for it, read again every 50 ms for up to 10 s. Polled from
 * here because page.waitForFunction does not await a promise its predicate returns: a pending
 * readText() is truthy, so it resolved at once and the copy raced the read.
 * @param {import('playwright-core').Page} p @param {(text: string) => boolean} ok @returns {Promise<string>}
 */
export async function clipboardWhen(p, ok) {
  const end = Date.now() + 10000;
  for (;;) {
    const text = await p.evaluate(() => navigator.clipboard.readText());
    if (ok(text)) return text;
    if (Date.now() > end) throw new Error(`the clipboard never held what was copied; it holds ${JSON.stringify(text)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The link "Copy link" just put on the clipboard: a short link (/v/ID) whose stored target is
 * exactly the page's address (path and query).
 * @param {import('playwright-core').Page} p @returns {Promise<string>}
 */
export async function copiedLink(p) {
  const link = await clipboardWhen(p, (x) => x.includes('/v/'));
  const m = /\/v\/([0-9a-f]{16,32})$/.exec(link);
  if (!m) throw new Error(`not a short link: ${link}`);
  const r = await p.evaluate((u) => fetch(u).then((x) => x.json()), `/api/links/${m[1]}`);
  const here = new URL(p.url());
  if (r.target !== here.pathname + here.search) throw new Error(`short link ${link} names ${r.target}, the page is ${here.pathname + here.search}`);
  return link;
}

/**
 * The page point in flame row `row` counted from the bottom of what shows (0: the root, "all"),
 * `dx` px into the graph (default: its middle). Rows are 17 px (flame.js ROW).
 * @param {import('playwright-core').Page} p @param {number} row @param {number} [dx]
 */
export async function flameRowPoint(p, row, dx) {
  const box = await p.locator('[data-testid=flame]').boundingBox();
  const scroll = await p.locator('.flame-scroll').boundingBox();
  const visibleH = await p.$eval('.flame-scroll', (e) => e.clientHeight);
  if (!box || !scroll) throw new Error('no flame graph on the page');
  const bottom = Math.min(scroll.y + visibleH, box.y + box.height);
  return { x: box.x + (dx ?? box.width / 2), y: bottom - 17 * (row + 0.5) };
}

/** Wait until the graph above the table is drawn. @param {import('playwright-core').Page} p */
export const waitGraph = (p) => p.waitForSelector('[data-testid=table-graph][data-state=ready]');

/** What the graph above the table plots (its series and bins). @param {import('playwright-core').Page} p */
export const graphModel = (p) => p.$eval('[data-testid=table-graph]', (e) => /** @type {any} */ (e).__graph);

/** @param {number[]} v */
export const sum = (v) => v.reduce((a, b) => a + b, 0);

/** Seconds to the nanosecond (cells carry their exact value in seconds, as export prints it). @param {number|string} s */
export const ns = (s) => Math.round(Number(s) * 1e9);

/**
 * The rows at `depth` (0: the top level): label and the number of each value column, thousands
 * separators dropped. @param {import('playwright-core').Page} p @param {number} [depth]
 */
export const rowsAt = (p, depth = 0) => p.$$eval(`[data-testid=table] tbody tr[data-depth="${depth}"]`, (trs) => {
  const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
  return trs.map((tr) => {
    /** @type {Record<string, string>} */ const values = {};
    [...tr.children].forEach((td, i) => { const col = cols[i]; if (col && col !== '|') values[col] = (td.getAttribute('data-value') ?? td.textContent ?? '').replace(/,/g, ''); });
    return { label: /** @type {Element} */ (tr.querySelector('td.label .txt')).textContent, values };
  });
});

/** Click a table's tab, from the More menu when the strip has no room for it. @param {import('playwright-core').Page} p @param {string} table */
export async function clickTab(p, table) {
  const sel = `[data-testid=tab-${table}]`;
  if (await p.isVisible(sel)) await p.click(sel);
  else await p.selectOption('[data-testid=tab-more]', `tab-${table}`);
}

/** Open `url` (a trace page) and its table tab `table`, and wait for the table. @param {import('playwright-core').Page} p @param {string} url @param {string} table */
export async function openTab(p, url, table) {
  await p.goto(url);
  await waitTable(p);
  await clickTab(p, table);
  await p.waitForURL(new RegExp(`t=${table}`));
  await waitTable(p);
}
