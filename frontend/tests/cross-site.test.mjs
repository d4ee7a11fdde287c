// Cross-site defence in a real browser (issue 12): a page served on another port of this machine tries what any
// web page can do without a CORS preflight: a text/plain fetch POST of a real trace, a multipart/form-data form
// post, and a fetch with the UI's header (which needs a preflight the server never grants). None may reach the
// library of a no-token etlscope; the same trace posted with the header from outside a browser is accepted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { launch, newPage } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
/** @type {import('playwright-core').Browser} */ let browser;
/** @type {any} */ let srv;
/** @type {http.Server} */ let evil;
let evilUrl = '';

/** The attacker's page: it fetches the trace from its own origin, then posts it to etlscope. @param {string} target */
const page = (target) => `<!doctype html><html><body>
<form id="f" method="post" enctype="multipart/form-data" target="sink" action="${target}/api/traces?name=form.etl">
<input name="file" value="x"><input name="X-Etlscope" value="1"></form><iframe name="sink"></iframe>
<script>
window.attack = async () => {
  const trace = await (await fetch('/demo.etl')).arrayBuffer();
  const out = {};
  try { await fetch('${target}/api/traces?name=plain.etl', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: trace }); out.plain = 'sent'; } catch (e) { out.plain = String(e); }
  try { await fetch('${target}/api/traces?name=marked.etl', { method: 'POST', headers: { 'x-etlscope': '1' }, body: trace }); out.marked = 'sent'; } catch (e) { out.marked = 'blocked'; }
  await new Promise((r) => { document.querySelector('iframe').onload = r; document.getElementById('f').submit(); setTimeout(r, 3000); });
  out.form = 'sent';
  return out;
};
</script></body></html>`;

before(async () => {
  buildRelease();
  srv = await startServer([]);
  evil = http.createServer((req, res) => {
    if (req.url === '/demo.etl') { res.writeHead(200, { 'content-type': 'application/octet-stream' }); res.end(fs.readFileSync(DEMO)); return; }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(srv.url));
  });
  await new Promise((r) => evil.listen(0, '127.0.0.1', () => r(null)));
  const a = /** @type {import('node:net').AddressInfo} */ (evil.address());
  evilUrl = `http://127.0.0.1:${a.port}`;
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (evil) evil.close(); if (srv) srv.stop(); });

test('a page on another port cannot upload with text/plain, multipart forms or the UI header', async () => {
  const { p, c } = await newPage(browser);
  await p.goto(`${evilUrl}/`);
  const out = await p.evaluate(() => /** @type {any} */ (window).attack());
  assert.equal(out.marked, 'blocked', 'a cross-origin request with a custom header got past the preflight');
  const list = await (await fetch(`${srv.url}/api/traces`)).json();
  assert.deepEqual(list.traces, [], `the page changed the library: ${JSON.stringify(out)}`);
  await c.close();
  // The same bytes from a client that may send the header (not a browser page) are accepted.
  const ok = await fetch(`${srv.url}/api/traces?name=direct.etl`, { method: 'POST', headers: { 'x-etlscope': '1' }, body: fs.readFileSync(DEMO) });
  assert.equal(ok.status, 201);
});
