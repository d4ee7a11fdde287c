// Share a redacted copy (issue 40, point 2), clicked as a user would: the library's share panel shows per category
// the same counts and example originals as `etlscope redact --report json` run by this test on the same file; an
// example holding HTML (a command line's arguments made `<img src=x y>` in the trace) shows as text; the copy
// appears in the library linked to its original, its link opens its trace page, which says it is a redacted copy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';
let dir = '';
/** @type {any} */ let cli;
const WAIT = { timeout: 30000 };
const HOSTILE = '<img src=x y>';

/** Every occurrence of `from` (ASCII and UTF-16LE, any case) in `buf` overwritten by `to`, as long. @param {Buffer} buf @param {string} from @param {string} to */
function patch(buf, from, to) {
  let n = 0;
  for (const enc of /** @type {const} */ (['latin1', 'utf16le'])) {
    const lower = Buffer.from(buf.toString('latin1').toLowerCase(), 'latin1');
    const pat = Buffer.from(from.toLowerCase(), enc);
    for (let at = lower.indexOf(pat); at >= 0; at = lower.indexOf(pat, at + 1)) {
      Buffer.from(to, enc).copy(buf, at);
      n++;
    }
  }
  return n;
}

before(async () => {
  buildRelease();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-share-'));
  const bytes = fs.readFileSync(path.join(repoRoot, 'traces/explorer-overlay.etl'));
  assert.ok(patch(bytes, '-k netsvcs -p', HOSTILE) > 0, 'the demo has svchost -k netsvcs -p');
  const trace = path.join(dir, 'hostile.etl');
  fs.writeFileSync(trace, bytes);
  const r = spawnSync(binary(), ['redact', trace, '-o', path.join(dir, 'cli.etl'), '--report', 'json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  cli = JSON.parse(r.stdout);
  srv = await startServer([trace]);
  [id] = srv.ids;
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the share panel says what the CLI says, escapes the examples, and its copy is a linked library entry', async () => {
  const { p } = await newPage(browser, { clipboard: false });
  /** @type {string[]} */
  const dialogs = [];
  p.on('dialog', (d) => { dialogs.push(d.message()); d.accept().catch(() => {}); });
  await p.goto(`${srv.url}/`);
  const row = `[data-testid=library] tr[data-id="${id}"]`;
  await p.waitForSelector(row, WAIT);
  await p.click(`${row} [data-testid=share-redacted]`);
  const panel = '[data-testid=share-panel]';
  await p.waitForSelector(`${panel} [data-testid=share-make]:not([disabled])`, WAIT);

  // Per category: the counts and the examples' originals of the CLI's report.
  /** @type {Record<string, {originals: string, replaced: string, examples: string[]}>} */
  const shown = await p.$$eval(`${panel} tr[data-category]`, (trs) => Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-category'), {
    originals: tr.querySelector('[data-testid=share-originals]')?.textContent || '',
    replaced: tr.querySelector('[data-testid=share-replaced]')?.textContent || '',
    examples: [...tr.querySelectorAll('code.original')].map((c) => c.textContent || ''),
  }])));
  assert.deepEqual(Object.keys(shown).sort(), Object.keys(cli.categories).sort());
  for (const [name, c] of Object.entries(cli.categories)) {
    const s = shown[name];
    assert.equal(Number(s.originals.replace(/,/g, '')), c.originals, `${name} originals`);
    assert.equal(Number(s.replaced.replace(/,/g, '')), c.replaced, `${name} places`);
    assert.deepEqual(s.examples, c.examples.map((/** @type {any} */ e) => e.original), `${name} examples`);
  }
  assert.ok(cli.categories.users.originals >= 1 && cli.categories['command-lines'].originals >= 1, JSON.stringify(cli.categories));
  // The hostile argument is an example, shown as its text: no element made of it, no script run.
  assert.ok(shown['command-lines'].examples.some((e) => e.includes(HOSTILE)), JSON.stringify(shown['command-lines']));
  assert.equal(await p.$$eval(`${panel} img`, (x) => x.length), 0);
  assert.deepEqual(dialogs, []);

  // Keeping a category: previewed again, shown as kept.
  await p.click(`${panel} [data-testid=share-keep-network]`);
  await p.waitForFunction(() => document.querySelector('[data-testid=share-panel] tr[data-category=network] [data-testid=share-originals]')?.textContent === 'kept', null, WAIT);
  await p.waitForSelector(`${panel} [data-testid=share-make]:not([disabled])`, WAIT);

  // The copy: its link given, its library row names the original.
  await p.click(`${panel} [data-testid=share-make]`);
  await p.waitForSelector('[data-testid=share-link]', WAIT);
  const href = await p.$eval('[data-testid=share-link]', (a) => a.getAttribute('href') || '');
  const m = /^\/t\/([0-9a-f]{32})$/.exec(href);
  assert.ok(m, href);
  const copy = m[1];
  assert.notEqual(copy, id);
  assert.equal(await p.$eval('[data-testid=share-link]', (a) => a.textContent), `${srv.url}/t/${copy}`);
  const copyRow = `[data-testid=library] tr[data-id="${copy}"]`;
  await p.waitForSelector(`${copyRow} [data-testid=redacted-from] a[href="/t/${id}"]`, WAIT);
  const entry = await (await fetch(`${srv.url}/api/traces/${copy}`)).json();
  assert.equal(entry.redacted_from, id);
  assert.ok(!entry.name.includes('hostile') || entry.name.endsWith('(redacted)'), entry.name);

  // Its link opens its trace page, which says what it is and offers the panel too.
  await p.click('[data-testid=share-link]');
  await p.waitForFunction((u) => location.pathname === u, `/t/${copy}`, WAIT);
  await p.waitForSelector(`[data-testid=redacted-from][href="/t/${id}"]`, { timeout: 60000 });
  await p.click('[data-testid=share-redacted]');
  await p.waitForSelector(`${panel} [data-testid=share-make]:not([disabled])`, WAIT);
  assert.deepEqual(dialogs, []);
});
