// The Query tab (issue 38) on the bundled demo trace (traces/explorer-overlay.etl, symbols from
// traces/symbols/): the blog's four figures answered by the four statements docs/guide/sql.md
// gives for them, read from the page and compared with the README's numbers; a header click
// sorts as `ORDER BY` does (`etlscope sql`'s answer); Copy TSV and Export CSV give the bytes
// `etlscope sql --format tsv|csv` prints; the copied link reopens the statement, its sort and its
// answer in a fresh context; a wrong statement shows SQLite's message and points at the byte it
// names (a multi-byte character before it); completion offers the schema's tables and columns;
// the chart draws a time column over time and a key's bars; hostile strings stay text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launch, newPage, copiedLink, clipboardWhen } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const README = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const GUIDE = fs.readFileSync(path.join(repoRoot, 'docs/guide/sql.md'), 'utf8');
/** The blog's figures as the README prints them, and the words each is said with. */
const FIGURES = [['42,300', 42300], ['20,191', 20191], ['11', 11], ['4,663', 4663]];

/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let id = '';

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  id = srv.ids[0];
  // 20,191 counts stacks by function name: wait for the background symbol lookup.
  for (let i = 0; i < 300; i++) {
    const s = await (await fetch(`${srv.url}/api/traces/${id}/symbols`)).json();
    if (s.status === 'done') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** `etlscope sql DEMO STATEMENT --format F` (symbols from traces/symbols, found beside the trace). @param {string} sql @param {string} format */
function cli(sql, format) {
  const r = spawnSync(binary(), ['sql', DEMO, sql, '--format', format], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

/** The statements of the guide's "The demo investigation in SQL" block, each with the comment before it. */
function guideStatements() {
  const at = GUIDE.indexOf('## The demo investigation in SQL');
  assert.ok(at >= 0, 'docs/guide/sql.md has no "The demo investigation in SQL" section');
  const block = /```sql\n([\s\S]*?)```/.exec(GUIDE.slice(at));
  assert.ok(block, 'no sql block in that section');
  return block[1].split(/\n(?=-- )/).map((chunk) => {
    const [comment, ...rest] = chunk.trim().split('\n');
    return { comment, sql: rest.join('\n').trim() };
  });
}

/** Open the Query tab of the demo. @param {import('playwright-core').Page} p @param {string} [query] */
async function openQuery(p, query = '') {
  await p.goto(`${srv.url}/t/${id}?v=2&view=sql${query}`);
  await p.waitForSelector('[data-testid=sql-editor]');
}

/** Type `sql` in the editor, run it with Ctrl+Enter, and wait for its answer or error. @param {import('playwright-core').Page} p @param {string} sql */
async function run(p, sql) {
  await p.fill('[data-testid=sql-editor]', sql);
  await p.focus('[data-testid=sql-editor]');
  await p.keyboard.press('Control+Enter');
  await p.waitForFunction((q) => {
    const st = document.querySelector('[data-testid=sql-status]');
    const err = /** @type {HTMLElement|null} */ (document.querySelector('[data-testid=sql-error]'));
    return new URL(location.href).searchParams.get('q') === q && ((st && st.getAttribute('data-rows')) || (err && !err.hidden));
  }, sql);
}

/** The grid: header names and cell texts. @param {import('playwright-core').Page} p */
const grid = (p) => p.$eval('[data-testid=sql-results]', (t) => ({
  head: [...t.querySelectorAll('thead th')].map((th) => (th.textContent || '').replace(/ [▲▼]$/, '')),
  rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => (td.classList.contains('null') ? null : td.textContent))),
}));

test("the blog's four figures, each answered on the page by the guide's statement for it", async () => {
  const { p, c, errors } = await newPage(browser);
  await openQuery(p);
  const statements = guideStatements();
  assert.equal(statements.length, 4, JSON.stringify(statements));
  for (const [i, { comment, sql }] of statements.entries()) {
    const [words, figure] = FIGURES[i];
    assert.ok(comment.includes(words), `the guide's statement ${i + 1} is said to answer ${words}: ${comment}`);
    assert.ok(README.includes(words), `README.md no longer says ${words}`);
    await run(p, sql);
    const g = await grid(p);
    assert.equal(g.rows.length, 1, `${sql}: ${JSON.stringify(g)}`);
    const cell = g.rows[0][g.rows[0].length - 1];
    assert.equal(Number(cell), figure, `${comment}: the page shows ${cell}`);
    console.log(`${comment.slice(3)}: the page shows ${cell}`);
  }
  assert.deepEqual(errors, []);
  await c.close();
});

const BY_PROCESS = 'SELECT process, count(*) AS samples, sum(weight) AS weight_ns FROM cpu_sampled GROUP BY 1';

test('a header click sorts as ORDER BY; Copy TSV and Export CSV give what etlscope sql prints; the link reopens it', async () => {
  const { p, c, errors } = await newPage(browser, { clipboard: true });
  await openQuery(p);
  await run(p, BY_PROCESS);
  const before = await grid(p);
  assert.deepEqual(before.head, ['process', 'samples', 'weight_ns']);
  const byCli = JSON.parse(cli(`${BY_PROCESS} ORDER BY samples`, 'json'));
  assert.equal(before.rows.length, byCli.rows.length);

  // samples ascending, then descending: the column reads as ORDER BY gives it.
  await p.click('[data-testid=sql-results] th[data-col="1"]');
  await p.waitForURL(/qs=1&qa=1/);
  assert.deepEqual((await grid(p)).rows.map((r) => Number(r[1])), byCli.rows.map((/** @type {any[]} */ r) => r[1]));
  await p.click('[data-testid=sql-results] th[data-col="1"]');
  await p.waitForURL((u) => u.searchParams.get('qs') === '1' && !u.searchParams.has('qa'));
  assert.deepEqual((await grid(p)).rows.map((r) => Number(r[1])), byCli.rows.map((/** @type {any[]} */ r) => r[1]).reverse());

  // By process (every row its own name): copy and export are the CLI's bytes for ORDER BY process.
  await p.click('[data-testid=sql-results] th[data-col="0"]');
  await p.waitForURL(/qs=0&qa=1/);
  const ordered = `${BY_PROCESS} ORDER BY process`;
  await p.evaluate(() => navigator.clipboard.writeText(''));
  await p.click('[data-testid=sql-copy]');
  const tsv = await clipboardWhen(p, (x) => x.length > 0);
  assert.equal(tsv, cli(ordered, 'tsv'));
  const [d] = await Promise.all([p.waitForEvent('download'), p.click('[data-testid=sql-export]')]);
  assert.equal(d.suggestedFilename(), 'query.csv');
  const csv = fs.readFileSync(await d.path(), 'utf8');
  assert.equal(csv, cli(ordered, 'csv'));
  console.log(`sorted by process: ${before.rows.length} rows; Copy TSV ${tsv.length} bytes and Export CSV ${csv.length} bytes equal etlscope sql's`);

  // The copied link opens the statement, its sort and its answer in a fresh context.
  const shown = await grid(p);
  await p.click('[data-testid=sql-link]');
  const link = await copiedLink(p);
  const fresh = await newPage(browser);
  await fresh.p.goto(link);
  await fresh.p.waitForSelector('[data-testid=sql-results]');
  assert.equal(await fresh.p.inputValue('[data-testid=sql-editor]'), BY_PROCESS);
  assert.deepEqual(await grid(fresh.p), shown);
  assert.equal(await fresh.p.getAttribute('[data-testid=sql-results] th[data-col="0"]', 'aria-sort'), 'ascending');
  console.log(`link ${link} reopened ${shown.rows.length} rows sorted by process`);
  assert.deepEqual(fresh.errors, []);
  await fresh.c.close();
  assert.deepEqual(errors, []);
  await c.close();
});

test("a wrong statement: SQLite's message and the byte it points at, found in the editor", async () => {
  const { p, c, errors } = await newPage(browser);
  await openQuery(p);
  await run(p, 'SELECT nope FROM cpu_sampled');
  assert.equal(await p.textContent('[data-testid=sql-error-text]'), 'SQL error: no such column: nope (at byte 7)');
  assert.equal(await p.textContent('[data-testid=sql-error-where]'), 'SELECT nope FROM cpu_sampled\n       ^');
  assert.equal(await p.$eval('[data-testid=sql-editor]', (e) => /** @type {HTMLTextAreaElement} */ (e).selectionStart), 7);
  // Byte 16 is character 13 after a two-byte é and a three-byte €.
  const sql = "SELECT 'é€', nope FROM cpu_sampled";
  await run(p, sql);
  assert.equal(await p.textContent('[data-testid=sql-error-text]'), 'SQL error: no such column: nope (at byte 16)');
  const sel = await p.$eval('[data-testid=sql-editor]', (e) => [/** @type {HTMLTextAreaElement} */ (e).selectionStart, /** @type {HTMLTextAreaElement} */ (e).selectionEnd]);
  assert.deepEqual(sel, [sql.indexOf('nope'), sql.indexOf('nope') + 4]);
  // A statement that would write is refused, with the reason.
  await run(p, 'CREATE TEMP VIEW v AS SELECT 1');
  assert.match(await p.textContent('[data-testid=sql-error-text]') || '', /^SQL error: .*(not allowed|refused|read)/i);
  assert.equal(await p.getAttribute('[data-testid=sql-error]', 'data-code'), 'sql_refused');
  assert.deepEqual(errors, []);
  await c.close();
});

test("completion offers the schema's tables after FROM and a table's columns in its statement", async () => {
  const { p, c, errors } = await newPage(browser);
  await openQuery(p);
  const schema = await (await fetch(`${srv.url}/api/sql/schema`)).json();
  const cpu = schema.tables.find((/** @type {any} */ t) => t.name === 'cpu_sampled').columns.map((/** @type {any} */ x) => x.name);
  await p.fill('[data-testid=sql-editor]', 'SELECT  FROM cpu_sampled');
  await p.$eval('[data-testid=sql-editor]', (e) => { const t = /** @type {HTMLTextAreaElement} */ (e); t.focus(); t.setSelectionRange(7, 7); });
  await p.keyboard.type('proc');
  await p.waitForSelector('[data-testid=sql-complete]:not([hidden]) li');
  const offered = await p.$$eval('[data-testid=sql-complete] li', (li) => li.map((x) => x.getAttribute('data-text')));
  assert.deepEqual(offered.slice(0, 2), cpu.filter((/** @type {string} */ n) => n.startsWith('proc')));
  await p.keyboard.press('Tab');
  assert.equal(await p.inputValue('[data-testid=sql-editor]'), `SELECT ${offered[0]} FROM cpu_sampled`);
  // After FROM: tables.
  await p.fill('[data-testid=sql-editor]', '');
  await p.keyboard.type('SELECT count(*) FROM file');
  await p.waitForSelector('[data-testid=sql-complete] li[data-text=file_io]');
  await p.keyboard.press('Enter');
  assert.equal(await p.inputValue('[data-testid=sql-editor]'), 'SELECT count(*) FROM file_io');
  // An alias's columns.
  await p.keyboard.type(' f WHERE f.ty');
  await p.waitForSelector('[data-testid=sql-complete] li[data-text=type]');
  assert.deepEqual(errors, []);
  await c.close();
});

test('the chart: a time column over time, else a bar per key', async () => {
  const { p, c, errors } = await newPage(browser);
  await openQuery(p);
  await run(p, "SELECT time / 1000000000 * 1000000000 AS time, count(*) AS samples FROM cpu_sampled WHERE process_name = 'explorer.exe' GROUP BY 1");
  await p.waitForSelector('[data-testid=sql-chart][data-kind=time][data-state=ready]');
  const g = await grid(p);
  const model = await p.$eval('[data-testid=sql-chart]', (e) => /** @type {any} */ (e).__graph);
  const drawn = model.series.flatMap((/** @type {any} */ s) => s.values).reduce((a, b) => a + b, 0);
  const rowsSum = g.rows.reduce((a, r) => a + Number(r[1]), 0);
  assert.equal(drawn, rowsSum);
  // One bin per second of the answer.
  assert.equal(model.bin.bin_s, 1);
  assert.equal(model.bin.n, Number(g.rows[g.rows.length - 1][0]) / 1e9 - Number(g.rows[0][0]) / 1e9 + 1);
  await run(p, `${BY_PROCESS} ORDER BY samples DESC`);
  await p.waitForSelector('[data-testid=sql-chart][data-kind=bars]');
  assert.equal(await p.inputValue('[data-testid=sql-chart-column]'), 'weight_ns');
  await p.selectOption('[data-testid=sql-chart-column]', 'samples');
  await p.waitForURL(/qc=samples/);
  const bars = await p.$eval('[data-testid=sql-chart]', (e) => /** @type {any} */ (e).__chart.bars);
  const rows = (await grid(p)).rows;
  assert.deepEqual(bars.map((/** @type {any} */ b) => [b.label, b.value]), rows.slice(0, 40).map((r) => [r[0], Number(r[1])]));
  console.log(`time chart: ${model.bin.n} bins of 1 s summing to ${drawn} samples; bars: ${bars.length}, first ${bars[0].label} ${bars[0].value}`);
  assert.deepEqual(errors, []);
  await c.close();
});

test('hostile strings in results, column names and errors are text', async () => {
  const { p, c, errors } = await newPage(browser);
  await openQuery(p);
  const img = '<img src=x onerror="window.__xss=1">';
  const script = '<script>window.__xss=2</script>';
  await run(p, `SELECT '${img}' AS "<b>k</b>", 5 AS n UNION ALL SELECT '${script}', 3`);
  const g = await grid(p);
  assert.deepEqual(g.head, ['<b>k</b>', 'n']);
  assert.deepEqual(g.rows, [[img, '5'], [script, '3']]);
  await p.waitForSelector('[data-testid=sql-chart][data-kind=bars]');
  const bars = await p.$eval('[data-testid=sql-chart]', (e) => /** @type {any} */ (e).__chart.bars.map((/** @type {any} */ b) => b.label));
  assert.deepEqual(bars, [img, script]);
  await run(p, 'SELECT * FROM "<img src=x onerror=window.__xss=3>"');
  assert.match(await p.textContent('[data-testid=sql-error-text]') || '', /^SQL error: no such table: <img src=x onerror=window.__xss=3>/);
  const injected = await p.evaluate(() => ({
    xss: /** @type {any} */ (window).__xss,
    elements: document.querySelectorAll('[data-testid=query-tab] img, [data-testid=query-tab] script, [data-testid=query-tab] b').length,
  }));
  assert.deepEqual(injected, { xss: undefined, elements: 0 });
  assert.deepEqual(errors, []);
  await c.close();
});
