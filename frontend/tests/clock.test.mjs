// Times as dates: the Processes table of shutdown-perfdiag-kernel.etl with the clock set to UTC
// and to the trace's time zone shows each End Time as the wall clock of the trace's start plus
// the seconds `etlscope export` prints. The trace's start and time zone are hand decodes of its
// log-file header (crates/etl/tests/real_traces.rs): StartTime FILETIME 0x01d5ee15fca1389e
// (2020-02-28 09:03:47.744579 UTC) and TIME_ZONE_INFORMATION.Bias at 0xb0: c4ff ffff = -60
// minutes (UTC = local - 60 min, so local is UTC+01:00).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { realTraces, buildRelease, startServer, repoRoot, binary } from './server.mjs';

const traces = realTraces();
const BIN = binary();
const START_FILETIME = 0x01d5ee15fca1389en;
const BIAS_MINUTES = -60;
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
const trace = () => path.join(traces, 'shutdown-perfdiag-kernel.etl');

before(async () => {
  if (!traces) return;
  buildRelease();
  srv = await startServer([trace()]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** FILETIME + seconds as "YYYY-MM-DD hh:mm:ss.ffffff", shifted by `offsetMin`, written here from scratch. */
function wall(seconds, offsetMin) {
  const unixUs = (START_FILETIME - 116444736000000000n) / 10n + BigInt(Math.round(seconds * 1e6)) + BigInt(offsetMin) * 60000000n;
  const d = new Date(Number(unixUs / 1000n));
  const p = (n, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(Number(unixUs % 1000000n), 6)}`;
}

test('End Time as UTC dates and in the trace\'s time zone', { skip: !traces }, async () => {
  const r = spawnSync(BIN, ['export', trace(), '--table', 'processes', '--group', 'Process', '--values', 'End Time', '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  const want = JSON.parse(r.stdout).filter((/** @type {any} */ w) => typeof w['End Time'] === 'number');
  assert.ok(want.length > 0, 'processes that end inside the trace');
  const { p, c, errors } = await openPage(browser);
  for (const [mode, offset, suffix] of [['utc', 0, 'Z'], ['local', -BIAS_MINUTES, '+01:00']]) {
    await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&view=table&t=processes&g=Process&c=End%20Time&s=End%20Time&tm=${mode}`);
    await waitTable(p);
    assert.equal(await p.$eval('[data-testid=clock]', (e) => /** @type {HTMLSelectElement} */ (e).value), mode);
    const shown = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs) => trs.map((tr) => ({
      label: tr.querySelector('td.label .txt').textContent,
      cells: [...tr.querySelectorAll('td.val, td.num')].map((td) => td.textContent),
    })));
    for (const w of want.slice(0, 5)) {
      const row = shown.find((s) => s.label === w.Process);
      assert.ok(row, w.Process);
      assert.ok(row.cells.includes(wall(w['End Time'], offset) + suffix), `${mode} ${w.Process}: ${row.cells} vs ${wall(w['End Time'], offset)}${suffix}`);
    }
  }
  // Back to seconds from the select: the link loses tm=.
  await p.selectOption('[data-testid=clock]', 'trace');
  await p.waitForURL((u) => !u.search.includes('tm='));
  assert.deepEqual(errors, []);
  await c.close();
});

test('with times as dates the CPU timeline\'s axis, its Range box and the range chip speak in times of day', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}?v=2&t=processes&tm=utc`);
  await waitTable(p);
  await p.waitForFunction(() => (document.querySelector('[data-testid=timeline]')?.getAttribute('data-ticks') || '[]') !== '[]');
  const ticks = JSON.parse(await p.$eval('[data-testid=timeline]', (e) => e.getAttribute('data-ticks') || '[]'));
  assert.ok(ticks.length > 2 && ticks.every((/** @type {string} */ t) => /^\d\d:\d\d:\d\d/.test(t)), `axis: ${ticks}`);
  // The trace starts at 09:03:47.744579 UTC: 09:03:50-09:03:52 is 2.255421-4.255421 s after it.
  await p.fill('[data-testid=range-input]', '09:03:50-09:03:52');
  await p.press('[data-testid=range-input]', 'Enter');
  await p.waitForURL(/[?&]r=2\.255421-4\.255421(&|$)/);
  await p.waitForSelector('.fchip.range');
  const chip = await p.$eval('.fchip.range span', (e) => e.textContent);
  assert.equal(chip, `Time ${wall(2.255421, 0).slice(11, 23)}–${wall(4.255421, 0).slice(11, 23)}`);
  // In seconds again, the axis says seconds.
  await p.selectOption('[data-testid=clock]', 'trace');
  await p.waitForFunction(() => JSON.parse(document.querySelector('[data-testid=timeline]')?.getAttribute('data-ticks') || '[]').every((/** @type {string} */ t) => t.endsWith(' s')));
  assert.deepEqual(errors, []);
  await c.close();
});
