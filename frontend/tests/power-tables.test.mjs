// Processor Frequency and CPU Idle States on traces our writer makes (`etlscope synth
// processor-frequency`, `synth cpu-idle-states`), clicked as a user would: each default view (by
// CPU), its graph (each CPU's frequency as a line; idle time per bin, stacked) and a preset; every
// number comes from `etlscope export` (the CLI's own code path), never from the /api answers the
// page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable, waitGraph, graphModel, sum, ns, rowsAt, openTab } from './browser.mjs';
import { buildRelease, startServer, binary } from './server.mjs';
import { exportRows } from './export.mjs';

/** @type {Awaited<ReturnType<typeof startServer>>} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-power-'));
const freq = path.join(dir, 'freq.etl');
const idle = path.join(dir, 'idle.etl');

before(async () => {
  buildRelease();
  for (const [scenario, file, n] of [['processor-frequency', freq, ['--changes', '400']], ['cpu-idle-states', idle, ['--periods', '400']]]) {
    const w = spawnSync(binary(), ['synth', /** @type {string} */ (scenario), '-o', /** @type {string} */ (file), .../** @type {string[]} */ (n)], { encoding: 'utf8' });
    assert.equal(w.status, 0, w.stderr);
  }
  browser = await launch();
  srv = await startServer([freq, idle]);
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});





test('Processor Frequency: by CPU as export has it; the graph draws each CPU\'s frequency as a line', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[0]}`, 'processor-frequency');
  assert.equal(await p.isVisible('[data-testid=tab-cpu-idle-states]'), false, 'no idle periods in this trace: no tab');
  const want = exportRows(freq, ['--table', 'processor-frequency', '--group', 'CPU']);
  assert.equal(want.length, 4);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration)]).sort(),
    want.map((w) => [String(w.CPU), w.Count, ns(w.Duration)]).sort());
  // Each bin of a CPU's line: its frequency averaged over the time its rows cover in the bin.
  await waitGraph(p);
  const m = await graphModel(p);
  assert.equal(m.lines, true);
  assert.equal(m.series.length, 4);
  const rows = exportRows(freq, ['--table', 'processor-frequency', '--rows']);
  for (const s of m.series) {
    const mine = rows.filter((r) => String(r.CPU) === s.label);
    assert.ok(mine.length > 0, s.label);
    for (let k = 0; k < m.bin.n; k++) {
      const lo = m.bin.start_s + k * m.bin.bin_s;
      const hi = lo + m.bin.bin_s;
      let held = 0;
      let covered = 0;
      for (const r of mine) {
        const o = Math.max(0, Math.min(hi, r['End Time']) - Math.max(lo, r['Start Time']));
        held += r['Frequency (MHz)'] * o;
        covered += o;
      }
      const v = covered > 1e-12 ? held / covered : 0;
      assert.ok(Math.abs(s.values[k] - v) <= 1, `CPU ${s.label} bin ${k}: ${s.values[k]} vs ${v}`);
    }
  }
  // WPA's time at each frequency.
  await p.selectOption('[data-testid=preset]', { label: 'Processor Frequency: Time at Each Frequency by CPU' });
  await waitTable(p);
  assert.deepEqual(
    (await rowsAt(p)).map((s) => [s.label, ns(s.values.Duration)]).sort(),
    want.map((w) => [String(w.CPU), ns(w.Duration)]).sort());
  assert.deepEqual(errors, []);
  await c.close();
});

test('CPU Idle States: by CPU as export has it; the graph stacks each CPU\'s idle time per bin; the C-state preset', async () => {
  const { p, c, errors } = await openPage(browser);
  await openTab(p, `${srv.url}/t/${srv.ids[1]}`, 'cpu-idle-states');
  const want = exportRows(idle, ['--table', 'cpu-idle-states', '--group', 'CPU']);
  assert.equal(want.length, 4);
  const shown = await rowsAt(p);
  assert.deepEqual(
    shown.map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration)]).sort(),
    want.map((w) => [String(w.CPU), w.Count, ns(w.Duration)]).sort());
  // Sorted by Duration, most first.
  const top = [...want].sort((a, b) => b.Duration - a.Duration)[0];
  assert.equal(shown[0].label, String(top.CPU));
  await waitGraph(p);
  const m = await graphModel(p);
  assert.ok(!m.lines);
  assert.equal(m.series.length, 4);
  for (const w of want) {
    const s = m.series.find((/** @type {any} */ x) => x.label === String(w.CPU));
    assert.ok(s, String(w.CPU));
    assert.ok(Math.abs(sum(s.values) - w.Duration * 1e3) < 1e-6, `${w.CPU}: ${sum(s.values)} vs ${w.Duration * 1e3}`);
  }
  await p.selectOption('[data-testid=preset]', { label: 'CPU Idle States: Residency by C-State, CPU' });
  await p.waitForURL(/g=C-State/);
  await waitTable(p);
  const byState = exportRows(idle, ['--table', 'cpu-idle-states', '--group', 'C-State']);
  assert.deepEqual(
    (await rowsAt(p)).map((s) => [s.label, Number(s.values.Count), ns(s.values.Duration)]).sort(),
    byState.map((w) => [String(w['C-State']), w.Count, ns(w.Duration)]).sort());
  assert.deepEqual((await rowsAt(p)).map((s) => s.label).sort(), ['1', '2', '3']);
  assert.deepEqual(errors, []);
  await c.close();
});
