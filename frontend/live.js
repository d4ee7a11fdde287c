// A trace still arriving (`etlscope open --replay`, `record --serve`): the
// server sends a new summary on /progress each time it serves a new model
// (back to back, at least 20 ms apart), then "ready" once the trace is complete.
import * as api from './api.js';
import { fmtInt } from './dom.js';

/** "Replaying 10x: 1,234 samples, 5,678 events". @param {any} sum */
export function liveText(sum) {
  const l = sum.live || {};
  return `${l.label || 'Live'}: ${fmtInt(sum.samples)} samples, ${fmtInt(sum.events)} events so far`;
}

/**
 * Call `onUpdate(summary, done)` for each new model of trace `id` after the
 * one copied at `since` (ms, the summary the page has), and once more with
 * `done` when it is complete. Returns a function that stops.
 * @param {string} id @param {number} since @param {(sum: any, done: boolean) => void} onUpdate
 */
export function followLive(id, since, onUpdate) {
  let last = since;
  const stop = api.watchProgress(id, (m) => {
    if (m.status === 'live' && m.summary) {
      // The first message may repeat the model the page was built from.
      const at = m.summary.live ? m.summary.live.copied_at_ms : 0;
      if (at !== last) { last = at; onUpdate(m.summary, false); }
    } else if (m.status === 'ready' && m.summary) onUpdate(m.summary, true);
  });
  return stop;
}
