// Benchmark of the live path with the page open: `etlscope open --replay SPEED` on a trace from
// `etlscope synth bench`, a browser on its page, at full speed and at a paced speed (long enough for
// several updates). The UI is open first (the library); the replay starts when the page opens the
// trace from it, so the browser's start-up is not in the first models' time. Reports the feed rate
// (events per second between the first and the last live model, from the server's own counts and
// copy times) and, for each update the page shows, the
// delay from the model's copy (its newest event's arrival) to the page showing its sample count,
// and from the previous model's copy (the oldest new event's arrival: the wait the target bounds,
// issue 18's "live updates reach the page within 1 s"); the finished model, shown when the banner
// goes, counts as the last update. The figures are reported; ETLSCOPE_PERF_STRICT=1 also asserts
// the 1 s maximum and the 1 M events/s. docs/BENCHMARKS.md has the figures.
// Env: ETLSCOPE_LIVE_BENCH_SAMPLES (default 2000000; 0 skips this file), ETLSCOPE_LIVE_BENCH_SPEED
// (the paced case's speed, default 100: the bench trace's 250 s of 8 CPUs in 2.5 s, 1.6 M events/s).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { launch, newPage } from '../tests/browser.mjs';
import { buildRelease, binary } from '../tests/server.mjs';
import { record } from './perf-measure.mjs';

const SAMPLES = Number(process.env.ETLSCOPE_LIVE_BENCH_SAMPLES ?? 2_000_000);
const PACED = process.env.ETLSCOPE_LIVE_BENCH_SPEED ?? '100';
const STRICT = process.env.ETLSCOPE_PERF_STRICT === '1';
const TARGET_MS = 1000;
const skip = SAMPLES > 0 ? false : 'ETLSCOPE_LIVE_BENCH_SAMPLES=0';
/** @type {import('playwright-core').Browser} */ let browser;
let dir = '';

before(async () => {
  if (skip) return;
  buildRelease();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-live-bench-'));
  const r = spawnSync(binary(), ['synth', 'bench', '-o', path.join(dir, 'live.etl'), '--samples', String(SAMPLES)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

const median = (/** @type {number[]} */ v) => { const s = [...v].sort((a, b) => a - b); return s.length ? s[Math.floor(s.length / 2)] : NaN; };

/** Replay the bench trace at `speed` with the page open; report (and under STRICT assert) the figures. @param {any} t @param {string} speed */
async function bench(t, speed) {
  const trace = path.join(dir, 'live.etl');
  const child = spawn(binary(), ['open', '--replay', speed, '--addr', '127.0.0.1:0', '--data-dir', path.join(dir, `data-${speed}`), trace], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    const [url, id] = await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { out += d; const m = /serving on (http:\/\/[^/\s]+)\/[\s\S]*\/t\/([0-9a-f]{32})\n/.exec(out); if (m) resolve([m[1], m[2]]); });
      child.on('exit', (c) => reject(new Error(`exited ${c}: ${out}`)));
    });
    const { p, c } = await newPage(browser, {
      // Log each live update the moment the page shows it.
      init: () => {
        const w = /** @type {any} */ (window);
        w.__live = [];
        new MutationObserver(() => {
          const b = document.querySelector('[data-testid=live]');
          if (!b || !b.dataset.copiedAt) return;
          const last = w.__live[w.__live.length - 1];
          if (last && String(last.copiedAt) === b.dataset.copiedAt) return;
          w.__live.push({ copiedAt: Number(b.dataset.copiedAt), events: Number(b.dataset.events), shownAt: Date.now() });
        }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      },
    });
    // The UI is open (the library, which lists the trace without reading it), as the target
    // says; the replay starts when the page first opens the trace (a click on its row, as a user
    // does) and ends when the banner goes. The browser's own start-up (its processes, the page's
    // scripts) is then over before the first model, as for a user who has the UI open.
    await p.goto(`${url}/`);
    await p.waitForSelector(`[data-testid=library] a[href="/t/${id}"]`);
    const opened = Date.now();
    await p.click(`[data-testid=library] a[href="/t/${id}"]`);
    // What each model cost the server, from its summary (polled beside the page, from the click on:
    // a read of the trace, which would start the replay before the page asks).
    /** @type {Map<number, {events: number, copy_ms: number, build_ms: number}>} */
    const costs = new Map();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const l = (await (await fetch(`${url}/api/traces/${id}/summary`)).json()).live;
        if (l && l.events) costs.set(l.copied_at_ms, l);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    await p.waitForSelector('[data-testid=live]');
    await p.waitForFunction(() => !document.querySelector('[data-testid=live]'), null, { timeout: 550000 });
    const done = Date.now();
    polling = false;
    await poll;
    /** @type {{copiedAt: number, events: number, shownAt: number}[]} */
    const log = await p.evaluate(() => /** @type {any} */ (window).__live);
    const sum = await (await fetch(`${url}/api/traces/${id}/summary`)).json();
    assert.equal(sum.samples, SAMPLES);
    assert.ok(log.length >= 1, 'no live update seen');
    // Every event, from the page opening the trace to the finished model shown: a lower bound of
    // the feed rate (it includes the page load and the last build). On an idle machine the whole
    // replay can fit in one update interval, so the rate between updates needs two of them.
    const whole = sum.events / ((done - opened) / 1000);
    t.diagnostic(`whole replay: ${sum.events} events from the page opening to the finished model in ${done - opened} ms: at least ${Math.round(whole)} events/s`);
    const first = log[0];
    const last = log[log.length - 1];
    const rate = log.length >= 2 ? (last.events - first.events) / ((last.copiedAt - first.copiedAt) / 1000) : NaN;
    const fresh = log.map((u) => u.shownAt - u.copiedAt);
    // The oldest event an update brings arrived just after the previous model's copy; the
    // finished model (the banner going) brings those after the last live one.
    const oldest = [...log.slice(1).map((u, i) => u.shownAt - log[i].copiedAt), done - last.copiedAt];
    t.diagnostic(`replay ${speed}: ${SAMPLES} samples, ${sum.events} events; ${log.length} live updates seen, then the finished model`);
    t.diagnostic(`feed rate: ${Math.round(rate)} events/s (${last.events - first.events} events in ${last.copiedAt - first.copiedAt} ms)`);
    t.diagnostic(`first update: ${log[0].shownAt - opened} ms after the page asked for the trace (its page load included)`);
    t.diagnostic(`copy -> page (newest event): median ${median(fresh)} ms, max ${Math.max(...fresh)} ms`);
    t.diagnostic(`previous copy -> page (oldest new event, finished model included): median ${median(oldest)} ms, max ${Math.max(...oldest)} ms: ${Math.max(...oldest) < TARGET_MS ? 'met' : 'NOT met'} (target: max under ${TARGET_MS} ms)`);
    for (const l of [...costs.values()].sort((a, b) => a.events - b.events)) t.diagnostic(`model of ${l.events} events: copy ${l.copy_ms.toFixed(0)} ms, joins + index ${l.build_ms.toFixed(0)} ms`);
    t.diagnostic(`updates every: ${log.slice(1).map((u, i) => u.shownAt - log[i].shownAt).join(', ')} ms`);
    const label = speed === 'max' ? 'full speed' : `speed ${speed}`;
    if (log.length >= 2) record('live', `feed rate, replay at ${label}`, `${Math.round(rate).toLocaleString('en-US')} events/s`, '', `${(rate / 1e6).toFixed(2)}x the target`, '>= 1 M events/s', rate >= 1e6 ? 'yes' : 'no');
    record('live', `oldest new event to the page, replay at ${label} (${log.length} updates)`, `max ${Math.max(...oldest)} ms (median ${median(oldest)})`, '', '', `< ${TARGET_MS} ms`, Math.max(...oldest) < TARGET_MS ? 'yes' : 'no');
    if (STRICT) {
      assert.ok(log.length >= 2, `only ${log.length} live updates: no feed rate between two`);
      assert.ok(rate >= 1e6, `feed rate ${Math.round(rate)} events/s < 1 M`);
      assert.ok(Math.max(...oldest) < TARGET_MS, `an update reached the page ${Math.max(...oldest)} ms after its oldest event`);
    }
    await c.close();
  } finally {
    child.kill('SIGTERM');
  }
}

test('replay at max speed with the page open: feed rate and update delays', { skip, timeout: 600000 }, (t) => bench(t, 'max'));
test('paced replay with the page open (several updates): feed rate and update delays', { skip, timeout: 600000 }, (t) => bench(t, PACED));
