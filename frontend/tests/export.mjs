// Expected numbers for the browser tests from `etlscope export` (the CLI's own code path through
// the query engine), never from the HTTP API the page renders.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { binary } from './server.mjs';

/** `etlscope export TRACE ARGS... --format json` rows. @param {string} trace @param {string[]} args @returns {any[]} */
export function exportRows(trace, args) {
  const r = spawnSync(binary(), ['export', trace, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** A frame as the UI's Stack column groups it: `module.dll!0xRVA` (not named yet) is `module.dll!?`, a raw
 * address outside every module is `?!?` (README: "Frames stay module.dll!0xRVA until named and group as
 * module.dll!?"). @param {string} frame */
export const groupedFrame = (frame) => {
  const m = /^(.*)!0x[0-9a-f]+$/.exec(frame);
  if (m) return `${m[1]}!?`;
  return /^0x[0-9a-f]+$/.test(frame) ? '?!?' : frame;
};

/** The module of a frame label `module!function`; JIT-compiled methods whose module the trace does not
 * name (no `!`) are in no module, `?`.
 * @param {string} frame */
export const moduleOf = (frame) => (frame.indexOf('!') < 0 ? '?' : frame.slice(0, frame.indexOf('!')));

/** Samples of `proc` whose stack (root first) starts with `frames`. @param {any[]} rows @param {string} proc @param {string[]} frames */
export function exportPrefixCount(rows, proc, frames) {
  let n = 0;
  for (const r of rows) {
    if (r.Process !== proc) continue;
    const st = r.Stack.split(';');
    if (frames.every((f, i) => st[i] === f)) n += r.Count;
  }
  return n;
}

/** Callers by module of `mod`: per sample, each module that calls into a run of `mod` frames, once
 * (`[root]` when the run starts the stack). @param {any[]} rows @param {string} mod */
export function exportCallersByModule(rows, mod) {
  const callers = new Map();
  let inclusive = 0;
  for (const r of rows) {
    const mods = r.Stack.split(';').map(moduleOf);
    if (!mods.includes(mod)) continue;
    inclusive += r.Count;
    const seen = new Set();
    mods.forEach((m, i) => { if (m === mod && (i === 0 || mods[i - 1] !== mod)) seen.add(i === 0 ? '[root]' : mods[i - 1]); });
    for (const c of seen) callers.set(c, (callers.get(c) || 0) + r.Count);
  }
  return { inclusive, callers: [...callers.entries()].sort((a, b) => b[1] - a[1]) };
}
