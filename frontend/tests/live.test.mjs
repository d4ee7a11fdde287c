// The live view: `etlscope open --replay SPEED perfview-net452-x64.etl` feeds the trace through the
// live path. The sample count the page shows grows monotonically while it plays and ends equal to
// the count `etlscope export` gives for the same file read normally; the table, the timeline and a
// copied link work during and after, and a refresh keeps the selected and expanded rows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { launch, newPage, waitTable } from './browser.mjs';
import { realTraces, buildRelease, binary } from './server.mjs';
import { exportRows } from './export.mjs';

const traces = realTraces();
const trace = () => path.join(traces, 'perfview-net452-x64.etl');
/** @type {import('playwright-core').Browser} */ let browser;
/** @type {any[]} */ let byProcess;

before(async () => {
  if (!traces) return;
  buildRelease();
  browser = await launch();
  byProcess = exportRows(trace(), ['--table', 'cpu-sampled', '--group', 'Process']);
});
after(async () => { if (browser) await browser.close(); });

/** `etlscope open --replay SPEED` on a free port: its URL and the trace id it printed. @param {string} speed */
async function startReplay(speed) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-live-'));
  const child = spawn(binary(), ['open', '--replay', speed, '--addr', '127.0.0.1:0', '--data-dir', dataDir, trace()], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const [url, id] = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 60000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /serving on (http:\/\/[^/\s]+)\/[\s\S]*\/t\/([0-9a-f]{32})\n/.exec(out);
      if (m) { clearTimeout(t); resolve([m[1], m[2]]); }
    });
    child.on('exit', (c) => reject(new Error(`server exited with ${c}: ${out}`)));
  });
  return { url, id, stop: () => { child.kill('SIGTERM'); fs.rmSync(dataDir, { recursive: true, force: true }); } };
}

/** What the page shows now: the Samples chip's count and whether the live banner is up. @param {import('playwright-core').Page} p */
const reading = (p) => p.evaluate(() => {
  const chip = [...document.querySelectorAll('[data-testid=trace-info] .chip')].find((c) => c.querySelector('.k')?.textContent === 'Samples');
  const v = chip ? chip.querySelector('.v').textContent : '';
  const m = /^([\d,]+)/.exec(v);
  return { samples: m ? Number(m[1].replace(/,/g, '')) : null, live: !!document.querySelector('[data-testid=live]'), banner: document.querySelector('[data-testid=live]')?.textContent || '' };
});

/**
 * Read the page every 50 ms until the live banner is gone (and was seen, here or before the call:
 * `wasLive` when the caller saw it, since a replay can end while the caller looks elsewhere).
 * @param {import('playwright-core').Page} p @param {boolean} [wasLive] @param {number} [timeoutMs]
 */
async function readUntilDone(p, wasLive = false, timeoutMs = 120000) {
  const seen = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await reading(p);
    if (r.samples !== null) seen.push(r);
    if ((wasLive || seen.some((s) => s.live)) && !r.live) return seen;
    if (Date.now() > deadline) throw new Error(`still live after ${timeoutMs} ms: ${JSON.stringify(seen.slice(-3))}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Top-level rows of the table: label and Count. @param {import('playwright-core').Page} p */
const topRows = (p) => p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => {
  const cols = [...document.querySelectorAll('[data-testid=table] thead th')].map((t) => t.getAttribute('data-col'));
  return trs.map((tr) => {
    const i = cols.indexOf('Count');
    const td = i >= 0 ? tr.children[i] : null;
    // CPU Usage (Sampled)'s Count is a built-in value: its text, as shown ("73,313").
    return { label: tr.querySelector('td.label .txt').textContent, count: td ? Number(td.textContent.replace(/,/g, '')) : NaN };
  });
});

const exportTotal = () => byProcess.reduce((a, r) => a + r.Count, 0);

test('replay at 10x: the sample count grows monotonically and ends at the normal count; table, timeline and link work after', { skip: !traces }, async () => {
  const srv = await startReplay('10');
  try {
    const { p, c, errors } = await newPage(browser);
    await p.goto(`${srv.url}/t/${srv.id}`);
    const seen = await readUntilDone(p);
    const counts = seen.map((s) => s.samples);
    const live = seen.filter((s) => s.live);
    assert.ok(live.length > 0, 'the live banner was shown');
    assert.match(live[0].banner, /^Replaying 10x: [\d,]+ samples/);
    assert.ok(counts.every((n, i) => i === 0 || counts[i - 1] <= n), `monotonic: ${counts}`);
    assert.ok(live.every((s) => s.samples <= exportTotal()), 'never above the total');
    // The last model is the normal one: the same count as `etlscope export` reading the file.
    await p.waitForFunction((n) => {
      const chip = [...document.querySelectorAll('[data-testid=trace-info] .chip')].find((x) => x.querySelector('.k')?.textContent === 'Samples');
      return chip && chip.querySelector('.v').textContent.startsWith(n);
    }, exportTotal().toLocaleString('en-US'), { timeout: 30000 });
    assert.equal((await reading(p)).samples, exportTotal());
    // The trace is a normal library entry under the id of a normal open.
    const entry = await (await fetch(`${srv.url}/api/traces/${srv.id}`)).json();
    assert.equal(entry.status, 'ready');
    assert.equal(entry.summary.samples, exportTotal());
    assert.equal(entry.summary.live, null);
    // Table and timeline after: the Process rows and counts export prints.
    await waitTable(p);
    await p.waitForFunction((n) => document.querySelectorAll('[data-testid=table] tbody tr[data-depth="0"]').length >= n, Math.min(3, byProcess.length));
    const rows = await topRows(p);
    for (const r of rows.slice(0, 3)) {
      const want = byProcess.find((w) => w.Process === r.label);
      assert.ok(want, r.label);
      assert.equal(r.count, want.Count, r.label);
    }
    assert.ok(await p.$('.panel.timeline canvas, .panel.timeline svg'), 'timeline drawn');
    // The link, opened fresh, shows the same rows.
    const c2 = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const p2 = await c2.newPage();
    await p2.goto(p.url());
    await waitTable(p2);
    assert.deepEqual((await topRows(p2)).slice(0, 3), rows.slice(0, 3));
    assert.equal(await p2.$('[data-testid=live]'), null);
    await c2.close();
    assert.deepEqual(errors, []);
    await c.close();
  } finally {
    srv.stop();
  }
});

/**
 * Do `act` until the page's address matches `re` (at most 10 tries, 3 s each).
 * @param {import('playwright-core').Page} p @param {RegExp} re @param {() => Promise<unknown>} act
 */
async function untilUrl(p, re, act) {
  for (let i = 0; ; i++) {
    await act();
    if (await p.waitForURL(re, { timeout: 3000 }).then(() => true, () => false)) return;
    if (i === 9) throw new Error(`the address never matched ${re}: ${p.url()}`);
  }
}

test('replay at 2x: while it plays the table refreshes keeping the selected and expanded row, and a link opens', { skip: !traces }, async () => {
  const srv = await startReplay('2');
  try {
    const { p, c, errors } = await newPage(browser);
    await p.goto(`${srv.url}/t/${srv.id}`);
    await p.waitForSelector('[data-testid=live]');
    await waitTable(p);
    // Select and expand the first process while it plays.
    // A refresh can redraw the table between the click and its effect, so each action is tried
    // again (on the row found again) until the address shows it.
    const label = await p.locator('[data-testid=table] tbody tr[data-depth="0"]').first().getAttribute('data-path');
    const row = () => p.locator(`[data-testid=table] tbody tr[data-depth="0"][data-path="${label}"]`);
    await untilUrl(p, /sel=/, () => row().click());
    await untilUrl(p, /[?&]o=/, async () => { await row().click(); await p.keyboard.press('ArrowRight'); });
    const before = (await reading(p)).samples;
    // The next model: a larger count, and the same row selected with its children shown.
    await p.waitForFunction((n) => {
      const chip = [...document.querySelectorAll('[data-testid=trace-info] .chip')].find((x) => x.querySelector('.k')?.textContent === 'Samples');
      const m = chip && /^([\d,]+)/.exec(chip.querySelector('.v').textContent);
      return m && Number(m[1].replace(/,/g, '')) > n;
    }, before, { timeout: 30000 });
    assert.ok((await reading(p)).live, 'still live');
    await waitTable(p);
    await p.waitForSelector(`[data-testid=table] tbody tr.sel[data-path="${label}"]`);
    await p.waitForSelector('[data-testid=table] tbody tr[data-depth="1"]');
    // A link copied while live opens the trace (live or complete by then) with the selection.
    const c2 = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const p2 = await c2.newPage();
    await p2.goto(p.url());
    await waitTable(p2);
    await p2.waitForSelector(`[data-testid=table] tbody tr.sel[data-path="${label}"]`);
    await c2.close();
    // It was live above; the replay may have ended while the second page loaded.
    const seen = await readUntilDone(p, true);
    const counts = seen.map((s) => s.samples);
    assert.ok(counts.every((n, i) => i === 0 || counts[i - 1] <= n), `monotonic: ${counts}`);
    await p.waitForFunction((n) => !document.querySelector('[data-testid=live]') && document.body.textContent.includes(n), exportTotal().toLocaleString('en-US'));
    await waitTable(p);
    await p.waitForSelector(`[data-testid=table] tbody tr.sel[data-path="${label}"]`);
    assert.deepEqual(errors, []);
    await c.close();
  } finally {
    srv.stop();
  }
});

test('replay at 5x: after it ends the Findings panel counts what the findings API has (it refreshes with the trace)', { skip: !traces }, async () => {
  const srv = await startReplay('5');
  try {
    const { p, c, errors } = await newPage(browser);
    await p.goto(`${srv.url}/t/${srv.id}`);
    // The panel answered while the trace was still arriving.
    await p.waitForFunction(() => /Findings \(\d+\)/.test(document.querySelector('[data-testid=findings-toggle]')?.textContent || ''), null, { timeout: 30000 });
    const early = await p.textContent('[data-testid=findings-toggle]');
    await readUntilDone(p);
    const api = (await (await fetch(`${srv.url}/api/traces/${srv.id}/findings`)).json()).findings;
    const want = `Findings (${api.length})`;
    // The page follows within a few seconds of the last model.
    const shown = await p.waitForFunction((w) => document.querySelector('[data-testid=findings-toggle]')?.textContent === w, want, { timeout: 10000 })
      .then(() => want, async () => p.textContent('[data-testid=findings-toggle]'));
    console.log(`while live: ${early}; after: page ${shown}, API ${api.length}`);
    assert.equal(shown, want);
    await p.click('[data-testid=findings-toggle]');
    assert.deepEqual(await p.$$eval('[data-testid=finding]', (fs) => fs.map((f) => f.getAttribute('data-rule'))), api.map((/** @type {any} */ f) => f.rule));
    assert.deepEqual(errors, []);
    await c.close();
  } finally {
    srv.stop();
  }
});
