// The UI on a server with a token (issue 12): upload, open and delete work from the library page. The UI asks for
// the token once (a dialog), keeps it for the session and sends it on uploads and deletes; with --private-reads on
// every read too, the progress stream included. Uses the bundled demo trace (no real traces needed).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';

const TOKEN = 'ui-test-token-5f1c';
const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => { buildRelease(); browser = await launch(); });
after(async () => { if (browser) await browser.close(); });

/** Count the token dialogs the page opens. */
function countDialogs() {
  // @ts-ignore
  window.__tokenDialogs = 0;
  const show = HTMLDialogElement.prototype.showModal;
  HTMLDialogElement.prototype.showModal = function () {
    // @ts-ignore
    if (this.dataset.testid === 'token-dialog') window.__tokenDialogs++;
    return show.call(this);
  };
}

/** @param {import('playwright-core').Page} p */
async function enterToken(p) {
  await p.waitForSelector('[data-testid=token-dialog] [data-testid=token-input]');
  await p.fill('[data-testid=token-input]', TOKEN);
  await p.click('[data-testid=token-ok]');
}

for (const [label, flags] of [['--token', ['--token', TOKEN]], ['--private-reads', ['--token', TOKEN, '--private-reads']]]) {
  test(`upload, open and delete from the UI on a ${label} server`, async () => {
    const srv = await startServer([], 120000, flags);
    const auth = { authorization: `Bearer ${TOKEN}` };
    try {
      const { p, c, errors } = await newPage(browser, { init: countDialogs });
      p.on('dialog', (d) => d.accept()); // the delete confirmation
      await p.goto(`${srv.url}/`);
      const privateReads = flags.includes('--private-reads');
      if (privateReads) await enterToken(p); // the list itself needs it
      await p.waitForSelector('[data-testid=library]');
      await p.waitForFunction(() => /No traces yet/.test(document.querySelector('.library-page .state')?.textContent || ''));
      await p.setInputFiles('input[type=file]', DEMO);
      if (!privateReads) await enterToken(p); // asked before the upload starts
      const row = 'table[data-testid=library] tr[data-id]';
      await p.waitForSelector(`${row} [data-status=ready]`, { timeout: 120000 });
      const id = await p.$eval(row, (tr) => tr.getAttribute('data-id'));

      // The progress stream carries the token too (with --private-reads it is a read like any other).
      const streamed = await p.evaluate((tid) => import('/api.js').then((api) => new Promise((resolve) => {
        api.watchProgress(tid, (m) => { if (m.status === 'ready' || m.status === 'stream_error') resolve(m.status); });
      })), id);
      assert.equal(streamed, 'ready');

      await p.click(`${row} a`);
      await p.waitForURL(/\/t\/[0-9a-f]{32}/);
      await waitTable(p, 60000);
      const rows = await p.$$eval('[data-testid=table] tbody tr[data-path]', (trs) => trs.length);
      assert.ok(rows > 0, 'the trace opened with an empty table');

      await p.click('a.home');
      await p.waitForSelector(`tr[data-id="${id}"] [data-status=ready]`);
      await p.click(`tr[data-id="${id}"] button.danger`);
      await p.waitForSelector(`tr[data-id="${id}"]`, { state: 'detached' });

      const list = await (await fetch(`${srv.url}/api/traces`, { headers: auth })).json();
      assert.deepEqual(list.traces, []);
      assert.equal(await p.evaluate(() => sessionStorage.getItem('etlscope-token')), TOKEN);
      // @ts-ignore
      assert.equal(await p.evaluate(() => window.__tokenDialogs), 1, 'the token was asked more than once');
      // Without the token nothing changes (the server really checks it).
      const noToken = await fetch(`${srv.url}/api/traces/${id}`, { method: 'DELETE', headers: { 'x-etlscope': '1' } });
      assert.equal(noToken.status, 401);
      assert.deepEqual(errors, []);
      await c.close();
    } finally {
      srv.stop();
    }
  });
}
