// Timing of interactions inside the page, shared by the browser benchmarks (perf.bench.mjs,
// perf-values.bench.mjs): t0 is the input event's timeStamp (a capturing window listener sees it
// before the app's handlers); "dom" is when a MutationObserver first sees the finished view;
// "painted" is after the next animation frame's rendering step; "round trip" adds playwright's
// own latency.
import fs from 'node:fs';

/**
 * Runs in the page before its scripts: records the input event's timeStamp and watches the DOM
 * for the finished view. `__perfArm(on, what, arg)` arms one measurement; `__perfDone` resolves
 * with {dom, frame, painted} in ms after the input event.
 */
export function instrument() {
  const w = /** @type {any} */ (window);
  // Room for every request's timing of a long benchmark (the default keeps 250).
  performance.setResourceTimingBufferSize(100000);
  /** @type {Record<string, (arg: any, records: MutationRecord[]) => boolean>} */
  const views = {
    // The table shows the grouping `arg` (key columns joined by commas), with rows, not loading.
    groups: (arg) => {
      const s = document.querySelector('[data-testid=table-status]');
      if (!s || /Loading|Expanding/.test(s.textContent)) return false;
      const keys = [...document.querySelectorAll('[data-testid=table] th.key')].map((x) => x.getAttribute('data-col')).join(',');
      return keys === arg && !!document.querySelector('[data-testid=table] tbody tr[data-path]');
    },
    // A header `arg` is shown (a value column's new aggregation), with rows, not loading.
    header: (arg) => {
      const s = document.querySelector('[data-testid=table-status]');
      if (!s || /Loading|Expanding/.test(s.textContent)) return false;
      return [...document.querySelectorAll('[data-testid=table] th')].some((x) => x.getAttribute('data-col') === arg) && !!document.querySelector('[data-testid=table] tbody tr[data-path]');
    },
    // The table's total differs from `arg`, with rows, not loading (a new time range applied).
    total: (arg) => {
      const s = document.querySelector('[data-testid=table-status]');
      if (!s || /Loading|Expanding/.test(s.textContent)) return false;
      return s.getAttribute('data-total') !== String(arg) && !!document.querySelector('[data-testid=table] tbody tr[data-path]');
    },
    // The graph above the table finished a load newer than `arg` (its canvas is drawn before
    // data-state turns ready, in the same task).
    graph: (arg) => {
      const g = document.querySelector('[data-testid=table-graph]');
      return !!g && g.getAttribute('data-state') === 'ready' && Number(g.getAttribute('data-load')) > arg;
    },
    // The breadcrumb has `arg` entries (the canvas is drawn in the same task, before it).
    crumbs: (arg) => document.querySelectorAll('[data-testid=flame-crumbs] .crumb').length === arg,
    // The search match figure was rewritten (draw() sets it after painting the canvas).
    match: (_arg, records) => records.some((r) => {
      const m = document.querySelector('[data-testid=flame-match]');
      return !!m && (r.target === m || m.contains(r.target));
    }),
  };
  /** @type {any} */ let armed = null;
  for (const type of ['pointerup', 'click', 'keydown']) {
    window.addEventListener(type, (e) => { if (armed && armed.on === type && !armed.t0) armed.t0 = e.timeStamp; }, true);
  }
  const obs = new MutationObserver((records) => {
    const a = armed;
    if (!a || !a.t0 || a.dom) return;
    if (!views[a.what](a.arg, records)) return;
    a.dom = performance.now() - a.t0;
    requestAnimationFrame(() => {
      const frame = performance.now() - a.t0;
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        armed = null;
        const painted = performance.now() - a.t0;
        // The API requests this interaction made (resource timing, ms after the input event):
        // the server's answer is at `first` byte, the body read at `end`; what follows `end` is the page's.
        const requests = performance.getEntriesByType('resource')
          .filter((/** @type {any} */ r) => r.startTime >= a.t0 && /\/api\/traces\/[^/]+\/(table|graph)$/.test(r.name))
          .map((/** @type {any} */ r) => ({ what: r.name.slice(r.name.lastIndexOf('/') + 1), start: r.startTime - a.t0, first: r.responseStart - a.t0, end: r.responseEnd - a.t0, bytes: r.encodedBodySize }));
        a.resolve({ dom: a.dom, frame, painted, requests });
      };
      ch.port2.postMessage(0);
    });
  });
  w.__perfArm = (/** @type {string} */ on, /** @type {string} */ what, /** @type {any} */ arg) => {
    const a = { on, what, arg, t0: 0, dom: 0, resolve: /** @type {(v: any) => void} */ (() => {}) };
    w.__perfDone = new Promise((resolve) => { a.resolve = resolve; });
    armed = a;
  };
  const start = () => obs.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
}

/**
 * Arm a measurement, send the input, and wait for the page's figures.
 * @param {import('playwright-core').Page} p @param {string} on @param {string} what @param {any} arg
 * @param {() => Promise<void>} input
 * @returns {Promise<{dom: number, frame: number, painted: number, roundTrip: number}>}
 */
export async function measure(p, on, what, arg, input) {
  await p.evaluate(([o, w, a]) => /** @type {any} */ (window).__perfArm(o, w, a), [on, what, arg]);
  const t = performance.now();
  await input();
  // A view that never finishes fails the test instead of hanging it.
  const r = await p.evaluate(() => Promise.race([/** @type {any} */ (window).__perfDone,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the view did not finish within 30 s')), 30000))]));
  return { ...r, roundTrip: performance.now() - t };
}

/** @param {number[]} xs */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { n: s.length, median, max: s[s.length - 1] };
}

/**
 * One figure for `scripts/bench`'s table (scripts/bench_results.py): a tab-separated line appended to
 * $BENCH_RESULTS when it is set. @param {string[]} fields area, figure, latest, reference, ratio, target, met
 */
export function record(...fields) {
  const file = process.env.BENCH_RESULTS;
  if (!file) return;
  const clean = (/** @type {string} */ v) => String(v ?? '').replace(/[\t\n|]/g, ' ');
  fs.appendFileSync(file, fields.map(clean).join('\t') + '\n');
}

/** The page's target for an interaction, input to drawn (the "Web UI" issue). */
export const INTERACTION_TARGET_MS = 300;

/**
 * One line per interaction: median and max of each figure; the painted median goes to the bench
 * table against the 300 ms target. @param {string} name @param {any[]} runs
 */
export function report(t, name, runs) {
  const f = (/** @type {string} */ k) => { const s = stats(runs.map((r) => r[k])); return `${k} median ${s.median.toFixed(0)} / max ${s.max.toFixed(0)} ms`; };
  t.diagnostic(`${name} (n=${runs.length}): ${f('painted')}; ${f('dom')}; ${f('roundTrip')}`);
  for (const what of ['table', 'graph']) {
    const reqs = runs.map((r) => (r.requests || []).find((/** @type {any} */ q) => q.what === what)).filter(Boolean);
    if (!reqs.length) continue;
    const m = (/** @type {(q: any) => number} */ g) => stats(reqs.map(g)).median.toFixed(0);
    t.diagnostic(`  its /${what} requests (n=${reqs.length}, medians after the input): sent ${m((q) => q.start)} ms, first byte ${m((q) => q.first)} ms, read ${m((q) => q.end)} ms, ${m((q) => q.bytes)} bytes`);
  }
  const painted = stats(runs.map((r) => r.painted));
  const area = process.env.BENCH_AREA || 'browser';
  record(area, `${name}, painted median of ${painted.n}`, `${painted.median.toFixed(0)} ms (max ${painted.max.toFixed(0)})`, '',
    `${(painted.median / INTERACTION_TARGET_MS).toFixed(2)} of the target`, `<= ${INTERACTION_TARGET_MS} ms`, painted.median <= INTERACTION_TARGET_MS ? 'yes' : 'no');
  return painted;
}

/** Each run's figures, one line per run (ETLSCOPE_PERF_RUNS=1), to see which interactions cost. @param {any} t @param {string} name @param {any[]} runs @param {string[]} labels */
export function perRun(t, name, runs, labels) {
  if (process.env.ETLSCOPE_PERF_RUNS !== '1') return;
  runs.forEach((r, i) => {
    const q = (r.requests || []).map((/** @type {any} */ x) => `${x.what} ${x.start.toFixed(0)}-${x.first.toFixed(0)}-${x.end.toFixed(0)} ms ${x.bytes} B`).join(', ');
    t.diagnostic(`  ${name} ${i} ${labels[i % labels.length]}: painted ${r.painted.toFixed(0)} ms, dom ${r.dom.toFixed(0)} ms; ${q}`);
  });
}

/**
 * Drag a header by real mouse moves to the left edge of another header (or the gold bar), then
 * release it inside a measurement that waits for the grouping `want`.
 * @param {import('playwright-core').Page} p @param {string} col @param {string} before @param {string[]} want
 */
export async function regroup(p, col, before, want) {
  const from = await p.locator(`[data-testid=table] th[data-col="${col}"]`).boundingBox();
  const to = await p.locator(`[data-testid=table] th[data-col="${before}"]`).boundingBox();
  await p.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await p.mouse.down();
  await p.mouse.move(from.x + from.width / 2 + 10, from.y + 8, { steps: 3 });
  await p.mouse.move(to.x + 2, to.y + to.height / 2, { steps: 12 });
  return measure(p, 'pointerup', 'groups', want.join(','), () => p.mouse.up());
}
