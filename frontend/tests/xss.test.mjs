// Trace text is shown as text, never run: a real trace whose every UI string is HTML with inline
// script (`etlscope synth hostile-names`, written by our ETL writer; see
// crates/synth/src/hostile_names.rs), served by the real binary and driven through every view by
// chromium. Needs only the release binary, not the real traces.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';
import { defaultState, toQuery } from '../url-state.js';

// The strings the scenario writes (crates/synth/src/hostile_names.rs), as the UI must show them.
const PROCESS = '<img src=x onerror="window.__pwned=1">.exe (6660)';
const OTHER_PROCESS = '"\'><svg onload=window.__pwned=3>&amp;.exe (6664)';
const COMMAND_LINE = '"C:\\evil\\<img src=x onerror="window.__pwned=1">.exe" </script><script>window.__pwned=2</script> &amp; &lt;b&gt;';
const OTHER_COMMAND_LINE = '\'"><svg onload=window.__pwned=3> --x="&quot;&#x3c;"';
const THREAD_NAME = '<b onmouseover="window.__pwned=8">worker</b>';
const EXE_PATH = 'C:\\evil\\<img src=x onerror="window.__pwned=1">.exe';
const MODULE = '<img src=x onerror=window.__pwned=4>.dll';
const MODULE_PATH = `C:\\evil\\${MODULE}`;
const OTHER_MODULE = '"\'><svg onload=window.__pwned=5>&amp;.dll';
// Recorded as \Device\HarddiskVolume3\evil\..., shown in DOS form as WPA does.
const OTHER_MODULE_PATH = `C:\\evil\\${OTHER_MODULE}`;
const JIT = '<script>window.__pwned=9</script>::<img src=x onerror="window.__pwned=10">';
const FILE_PATH = 'C:\\evil\\<img src=x onerror="window.__pwned=11">&amp;.txt';
const OTHER_FILE_PATH = 'C:\\evil\\</textarea><svg onload=window.__pwned=12>.ini';
const TL_PROVIDER = '<svg onload=window.__pwned=13>';
const TL_EVENT = '<img src=x onerror="window.__pwned=14">';
// The trace's file name is its name in the library (a Linux file name may hold all of this).
const TRACE_NAME = '<img src=x onerror="window.__pwned=20">\'"&amp;.etl';

/** Every element the app creates (`h('tag'` in frontend/*.js) plus index.html's: any other is injected. */
const APP_TAGS = new Set(['HTML', 'HEAD', 'META', 'TITLE', 'LINK', 'BODY', 'SCRIPT', 'NOSCRIPT', 'A', 'BUTTON', 'CANVAS', 'COL', 'COLGROUP',
  'DIV', 'H1', 'HEADER', 'INPUT', 'LABEL', 'OPTION', 'SECTION', 'SELECT', 'SPAN', 'TABLE', 'TBODY', 'TD', 'TEXTAREA', 'TH', 'THEAD', 'TR',
  // The library's Provider schemas panel (schema-packs.js); the hostile trace's names use none of them.
  'H2', 'P', 'CODE', 'UL', 'LI']);
const ROW = 17; // flame.js box height

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';
let tmp = '';

before(async () => {
  buildRelease();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-xss-'));
  const file = path.join(tmp, TRACE_NAME);
  const r = spawnSync(binary(), ['synth', 'hostile-names', '-o', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`etlscope synth hostile-names failed: ${r.stderr}`);
  srv = await startServer([file]);
  id = srv.ids[0];
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A page that records script errors, dialogs, CSP violations and requests an injected `<img src=x>` would make. */
async function newPage() {
  const { p, c, errors } = await openPage(browser, {
    init: () => {
      /** @type {any} */ (window).__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => /** @type {any} */ (window).__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    },
  });
  const dialogs = [];
  const stray = [];
  p.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
  p.on('request', (r) => { if (/pwned|\/x$/.test(new URL(r.url()).pathname)) stray.push(r.url()); });
  return { p, c, errors, dialogs, stray };
}

/**
 * Assert the page shows every string of `want` as text and holds nothing the trace injected.
 * @param {{p: import('playwright-core').Page, errors: string[], dialogs: string[], stray: string[]}} pg
 * @param {string} where @param {string} selector @param {string[]} want
 */
async function assertText(pg, where, selector, want) {
  const text = await pg.p.$eval(selector, (e) => e.textContent);
  for (const w of want) assert.ok(text.includes(w), `${where}: ${JSON.stringify(w)} shown as text in ${selector}`);
  await assertClean(pg, where);
}

/** @param {{p: import('playwright-core').Page, errors: string[], dialogs: string[], stray: string[]}} pg @param {string} where */
async function assertClean(pg, where) {
  const r = await pg.p.evaluate((tags) => {
    const bad = [];
    for (const e of document.querySelectorAll('*')) {
      if (!tags.includes(e.tagName)) bad.push(`<${e.tagName.toLowerCase()}>`);
      for (const a of e.getAttributeNames()) if (/^on/i.test(a)) bad.push(`<${e.tagName.toLowerCase()} ${a}>`);
    }
    const scripts = [...document.scripts].map((s) => s.getAttribute('src') || `inline: ${s.textContent}`);
    const w = /** @type {any} */ (window);
    return { bad, scripts, pwned: w.__pwned, csp: w.__csp };
  }, [...APP_TAGS]);
  assert.deepEqual(r.bad, [], `${where}: elements or handlers from trace text`);
  assert.deepEqual(r.scripts, ['/app.js'], `${where}: only the app's script`);
  assert.equal(r.pwned, undefined, `${where}: no trace script ran`);
  assert.deepEqual(r.csp, [], `${where}: no blocked inline script or handler`);
  assert.deepEqual(pg.stray, [], `${where}: no request from an injected element`);
  assert.deepEqual(pg.dialogs, [], `${where}: no dialog`);
  assert.deepEqual(pg.errors, [], `${where}: no script error`);
}

/** A view of the trace by its link. @param {Partial<import('../url-state.js').ViewState>} patch */
const view = (patch) => {
  const s = { ...defaultState(patch.table || 'cpu-sampled'), ...patch };
  return `${srv.url}/t/${id}?${toQuery(/** @type {any} */ (s))}`;
};

test('the UI is served with a Content-Security-Policy header: no inline script, no framing', async () => {
  for (const u of [`${srv.url}/`, `${srv.url}/t/${id}`, `${srv.url}/app.js`]) {
    const csp = (await fetch(u)).headers.get('content-security-policy') || '';
    assert.match(csp, /script-src 'self'(;|$)/, `${u}: ${csp}`);
    assert.match(csp, /frame-ancestors 'none'/, `${u}: ${csp}`);
  }
});

test('the Symbols panel shows hostile module names as text', async () => {
  const pg = await newPage();
  await pg.p.goto(`${srv.url}/t/${id}`);
  await waitTable(pg.p);
  await pg.p.click('[data-testid=symbols-toggle]');
  await pg.p.waitForSelector('[data-testid=symbols-table] [data-testid=symbols-module]');
  await assertText(pg, 'symbols panel', '[data-testid=symbols-table]', [MODULE, OTHER_MODULE]);
  await pg.c.close();
});

test('library and trace header show the hostile trace name as text', async () => {
  const pg = await newPage();
  await pg.p.goto(`${srv.url}/`);
  await pg.p.waitForSelector(`tr[data-id="${id}"] [data-status=ready]`);
  await assertText(pg, 'library', '[data-testid=library]', [TRACE_NAME]);
  await pg.p.click(`tr[data-id="${id}"] a`);
  await waitTable(pg.p);
  await assertText(pg, 'trace header', '.trace-name', [TRACE_NAME]);
  await pg.c.close();
});

test('CPU Usage (Sampled): processes, expanded stacks, timeline legend, context menu, filter chip, butterfly', async () => {
  const pg = await newPage();
  const { p } = pg;
  await p.goto(view({}));
  await waitTable(p);
  await assertText(pg, 'sampled by process', '[data-testid=table]', [PROCESS, OTHER_PROCESS]);
  await p.waitForFunction(() => document.querySelectorAll('.legend .lg').length >= 2);
  await assertText(pg, 'timeline legend', '.legend', [PROCESS, OTHER_PROCESS]);
  // Expand everything under the hostile process: its stacks run through both DLLs and the JIT method.
  await p.click(`[data-testid=table] tr[data-path="${PROCESS.replace(/"/g, '\\"')}"]`);
  await p.keyboard.press('*');
  await p.waitForFunction((jit) => document.querySelector('[data-testid=table]').textContent.includes(jit), JIT);
  await waitTable(p);
  await assertText(pg, 'expanded stacks', '[data-testid=table]', [`${MODULE}!`, `${OTHER_MODULE}!`, JIT, `${EXE_PATH.split('\\').pop()}!`]);
  // Right-click the JIT frame: the menu names it, and the process above it.
  const jitRow = p.locator('[data-testid=table] tr[data-depth]').filter({ hasText: JIT }).first();
  await jitRow.click({ button: 'right' });
  await assertText(pg, 'context menu', '[data-testid=context-menu]', [`Stack contains ${JIT}`, `Process = ${PROCESS}`]);
  await p.getByText(`Filter to Process = ${PROCESS}`, { exact: true }).click();
  await p.waitForURL(/f=Process/);
  await waitTable(p);
  await assertText(pg, 'filter chip', '[data-testid=filters]', [`Process = ${PROCESS}`]);
  // Filtered to a process, the timeline stacks its threads, labelled by their process.
  await p.waitForFunction(() => /thread/.test(document.querySelector('.tl-title').textContent) && document.querySelector('.legend .lg'));
  await assertText(pg, 'timeline by thread', '.legend', [`${PROCESS} thread 6672`]);
  // The butterfly of the JIT method, from its row's menu.
  await p.goto(view({}));
  await waitTable(p);
  await p.click(`[data-testid=table] tr[data-path="${PROCESS.replace(/"/g, '\\"')}"]`);
  await p.keyboard.press('*');
  await p.waitForFunction((jit) => document.querySelector('[data-testid=table]').textContent.includes(jit), JIT);
  await p.locator('[data-testid=table] tr[data-depth]').filter({ hasText: JIT }).first().click({ button: 'right' });
  await p.getByText('View callers/callees of this function', { exact: true }).click();
  await p.waitForSelector('[data-testid=bf-center] .bf-num');
  await assertText(pg, 'butterfly of the JIT method', '[data-testid=butterfly]', [JIT, `${MODULE}!`]);
  assert.equal(await p.inputValue('[data-testid=bf-target]'), JIT);
  // Butterfly of a hostile module, by module: callers and callees are hostile modules too.
  await p.goto(view({ view: 'butterfly', bfKind: 'module', bfTarget: MODULE, bfBy: 'module' }));
  await p.waitForSelector('[data-testid=bf-center] .bf-num');
  await assertText(pg, 'butterfly of a module', '[data-testid=butterfly]', [MODULE, OTHER_MODULE]);
  await pg.c.close();
});

test('flame graph: hover tooltip, breadcrumb, search and context menu show hostile frames as text', async () => {
  const pg = await newPage();
  const { p } = pg;
  await p.goto(view({ view: 'flame' }));
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  const box = await p.locator('[data-testid=flame]').boundingBox();
  const scroll = await p.locator('.flame-scroll').boundingBox();
  const visibleH = await p.$eval('.flame-scroll', (e) => e.clientHeight);
  const bottom = Math.min(scroll.y + visibleH, box.y + box.height);
  // Depth 2 holds the DLL frames under the exe root; hover across until the tooltip names one.
  const y = bottom - ROW * 2.5;
  let x = box.x + 4;
  let tip = '';
  for (; x < box.x + box.width; x += box.width / 40) {
    await p.mouse.move(x, y);
    tip = (await p.$eval('.tip', (e) => (/** @type {HTMLElement} */ (e).hidden ? '' : e.textContent))) || '';
    if (tip.includes(MODULE)) break;
  }
  assert.ok(tip.includes(`Module: ${MODULE}`), `flame tooltip names the module: ${tip}`);
  await assertText(pg, 'flame tooltip', '.tip', [`${MODULE}!`]);
  // Right-click the box: a menu of its name; then click it to zoom, the breadcrumb names it.
  await p.mouse.click(x, y, { button: 'right' });
  await assertText(pg, 'flame context menu', '[data-testid=context-menu]', [`View callers of module ${MODULE} by module`]);
  await p.keyboard.press('Escape');
  await p.mouse.click(x, y);
  await p.waitForURL(/fz=/);
  await p.waitForFunction(() => document.querySelectorAll('[data-testid=flame-crumbs] .crumb').length >= 3);
  await assertText(pg, 'flame breadcrumb', '[data-testid=flame-crumbs]', [`${MODULE}!`]);
  // Search by hostile text: matches are summed; the query lands in the link and reloads.
  await p.fill('[data-testid=flame-search]', OTHER_MODULE);
  await p.waitForFunction(() => Number(document.querySelector('[data-testid=flame-match]').getAttribute('data-percent')) > 0);
  await p.waitForURL(/fs=/);
  await p.reload();
  await p.waitForSelector('[data-testid=flame-crumbs] .crumb');
  assert.equal(await p.inputValue('[data-testid=flame-search]'), OTHER_MODULE);
  await assertClean(pg, 'flame search from the link');
  await pg.c.close();
});

test('event tables: processes, threads, images, File I/O and Generic Events show hostile text as text', async () => {
  const pg = await newPage();
  const cases = [
    { table: 'processes', groups: ['Command Line', 'Process'], want: [COMMAND_LINE, OTHER_COMMAND_LINE] },
    { table: 'processes', groups: ['Process Name'], want: [PROCESS.replace(' (6660)', ''), OTHER_PROCESS.replace(' (6664)', '')] },
    { table: 'threads', groups: ['Thread Name', 'Process'], want: [THREAD_NAME] },
    { table: 'images', groups: ['Image Path', 'Image Name'], want: [EXE_PATH, MODULE_PATH, OTHER_MODULE_PATH] },
    { table: 'images', groups: ['Image Name', 'Process'], want: [MODULE, OTHER_MODULE] },
    { table: 'file-io', groups: ['File Path', 'Process'], want: [FILE_PATH, OTHER_FILE_PATH] },
    { table: 'generic', groups: ['Provider', 'Event Name'], want: [TL_PROVIDER] },
    { table: 'generic', groups: ['Event Name', 'Provider'], want: [TL_EVENT] },
  ];
  for (const k of cases) {
    const d = defaultState(k.table);
    await pg.p.goto(view({ table: k.table, groups: k.groups, cols: d.cols, sort: d.sort }));
    await waitTable(pg.p);
    await assertText(pg, `${k.table} by ${k.groups[0]}`, '[data-testid=table]', k.want);
  }
  // File I/O stacks: expanding a hostile path shows its hostile frames.
  await pg.p.goto(view({ table: 'file-io', groups: ['File Path', 'Stack'], cols: ['Count'], sort: 'Count' }));
  await waitTable(pg.p);
  await pg.p.click(`[data-testid=table] tr[data-path="${FILE_PATH.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`);
  await pg.p.keyboard.press('*');
  await pg.p.waitForFunction((m) => document.querySelector('[data-testid=table]').textContent.includes(m), `${MODULE}!`);
  await waitTable(pg.p);
  await assertText(pg, 'file-io stacks', '[data-testid=table]', [FILE_PATH, `${MODULE}!`]);
  await pg.c.close();
});

test('a failed ingest shows its error as text (stubbed: no real trace fails with a chosen message)', async () => {
  const pg = await newPage();
  const { p } = pg;
  const evil = '<img src=x onerror="window.__pwned=30">';
  const fake = { id: 'e'.repeat(32), name: `${evil}.etl`, size: 1, uploaded_at: evil, status: 'failed', error: `${evil} at offset 0x40` };
  await p.route('**/api/traces', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ traces: [fake] }) }));
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=library] tbody tr');
  await assertText(pg, 'library, failed entry', '[data-testid=library]', [fake.name, fake.error, evil]);
  await p.route(`**/api/traces/${fake.id}`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fake) }));
  await p.goto(`${srv.url}/t/${fake.id}`);
  await p.waitForSelector('.state.error');
  await assertText(pg, 'trace page, failed entry', '.state.error', [`${fake.name}: ingest failed: ${fake.error}`]);
  await pg.c.close();
});
