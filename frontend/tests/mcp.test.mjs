// Issue 39: an agent answers the blog investigation through etlscope's MCP tools alone. The official
// Python SDK (PyPI `mcp`, in the venv .ci/run makes) drives `etlscope mcp` over stdio and `/mcp` of
// `etlscope serve` over streamable HTTP (tests/mcp_agent.py); the figures it found must be the
// README's, and one returned link, opened in chromium, must show the same number.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary, underCi } from './server.mjs';
import { TABLES } from '../compare-url.js';

const README_FIGURES = { explorer: 42300, overlay: 20191, shellExt: 26000, unversioned: 11, opened: 4663 };
const PROXY = 'C:\\Program Files (x86)\\Acronis\\TrueImageHome\\ti_managers_proxy.dll';
const SEP = ' › ';

/** The Python with the `mcp` SDK: $MCP_PYTHON, else the venv .ci/run makes; null (loudly) when missing, fatal under CI. */
function mcpPython() {
  const py = process.env.MCP_PYTHON || path.join(os.homedir(), '.cache/etlscope/mcp-venv/bin/python');
  const r = spawnSync(py, ['-c', 'import mcp, httpx2, jsonschema'], { encoding: 'utf8' });
  if (r.status === 0) return py;
  const msg = `\n!!! SKIPPING the MCP client test: ${py} cannot import the mcp SDK (pip install -r scripts/mcp-requirements.txt; set MCP_PYTHON) !!!\n`;
  if (underCi) throw new Error(msg);
  process.stderr.write(msg);
  return null;
}

const python = mcpPython();
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  if (!python) return;
  buildRelease();
  srv = await startServer([path.join(repoRoot, 'traces/explorer-overlay.etl'), path.join(repoRoot, 'traces/explorer-fixed.etl')]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

test('an MCP client answers the README investigation over stdio and HTTP, and a returned link shows the same number', { skip: !python }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-mcp-'));
  const started = Date.now();
  const r = spawnSync(python, [path.join(repoRoot, 'frontend/tests/mcp_agent.py'), '--bin', binary(), '--data-dir', dataDir, '--http', srv.url],
    { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 240000 });
  fs.rmSync(dataDir, { recursive: true, force: true });
  assert.equal(r.status, 0, `mcp_agent.py failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  const got = JSON.parse(r.stdout);
  t.diagnostic(`both sessions in ${Date.now() - started} ms`);
  for (const transport of ['stdio', 'http']) {
    const g = got[transport];
    assert.equal(g.explorer.count, README_FIGURES.explorer, `${transport}: explorer.exe samples in 7-23 s`);
    assert.equal(g.overlay.count, README_FIGURES.overlay, `${transport}: CFSFolder::_GetOverlayInfo`);
    assert.equal(g.shell_ext.finding, README_FIGURES.shellExt, `${transport}: the shell extension's stacks`);
    assert.equal(g.unversioned.count, README_FIGURES.unversioned, `${transport}: unversioned images`);
    assert.equal(g.unversioned.more, 0);
    assert.equal(g.opened.count, README_FIGURES.opened, `${transport}: opens of the proxy DLL`);
    assert.equal(g.opened.path, PROXY);
    assert.equal(g.symbols, 'done');
    assert.deepEqual(g.sql.top, ['explorer.exe (6148)', README_FIGURES.explorer], `${transport}: explorer.exe's samples in SQL`);
    assert.equal(g.sql.truncated, false);
    assert.equal(g.catalog.tables, TABLES.length, `${transport}: the column catalog names every table the UI opens`);
    assert.deepEqual(g.catalog.prompts, ['what_changed', 'why_cpu']);
    for (const [k, v] of Object.entries(g.errors)) t.diagnostic(`${transport} ${k}: ${String(v).slice(0, 160)}`);
    t.diagnostic(`${transport}: explorer ${g.explorer.count}, overlay ${g.overlay.count}, tishell64 ${g.shell_ext.finding} (inclusive ${g.shell_ext.inclusive}), unversioned ${g.unversioned.count}, opens ${g.opened.count}`);
  }
  // The HTTP session's links are this server's; follow the drill's link in the browser.
  const link = got.http.overlay.link;
  assert.ok(link.startsWith(`${srv.url}/t/`), link);
  t.diagnostic(`link: ${link}`);
  const { p, c, errors } = await newPage(browser);
  await p.goto(link);
  await waitTable(p);
  await p.waitForSelector('[data-testid=table] tr.sel');
  const sel = await p.$eval('[data-testid=table] tr.sel', (tr) => ({ path: tr.getAttribute('data-path'), count: tr.querySelector('td.num').textContent }));
  assert.equal(sel.path, got.http.overlay.path.join(SEP));
  assert.equal(Number(sel.count.replace(/,/g, '')), README_FIGURES.overlay, 'the linked view shows the tool\'s number');
  assert.match(p.url(), /[?&]r=7-23(&|$)/);
  // And the file I/O link: Create expanded, the proxy DLL's opens under it.
  await p.goto(got.http.opened.link);
  await waitTable(p);
  const row = `Create${SEP}${PROXY}`.replace(/\\/g, '\\\\');
  await p.waitForSelector(`[data-testid=table] tr[data-path="${row}"]`);
  const opened = await p.$eval(`[data-testid=table] tr[data-path="${row}"] td.num`, (td) => td.textContent);
  assert.equal(Number(opened.replace(/,/g, '')), README_FIGURES.opened);
  assert.deepEqual(errors, []);
  await c.close();
});
