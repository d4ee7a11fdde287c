// The Findings panel on the demo trace: the shell extension in explorer.exe with its 26,000
// samples, the Process32NextW/CreateToolhelp32Snapshot pattern and ti_managers_proxy.dll opened
// 4,663 times; each link opens the view with that number. Expected numbers come from
// `etlscope export` rows summed here, never from the API the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, binary } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const EXT = 'tishell64_26_0_39450.dll';
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  // The CLI names frames first; let the server's symbol lookup end too.
  for (let i = 0; i < 600; i++) {
    const s = await (await fetch(`${srv.url}/api/traces/${srv.ids[0]}/summary`)).json();
    if (s.symbols && s.symbols.status === 'done') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** @param {string[]} args @returns {any[]} */
function exportRows(args) {
  const r = spawnSync(binary(), ['export', DEMO, '--format', 'json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** Samples whose stack has a frame matching `is`. @param {any[]} rows @param {(f: string) => boolean} is */
const onStack = (rows, is) => rows.filter((r) => r.Stack.split(';').some(is)).reduce((n, r) => n + r.Count, 0);

/** @param {import('playwright-core').Page} p */
const findings = (p) => p.$$eval('[data-testid=finding]', (lis) => lis.map((li) => ({
  rule: li.getAttribute('data-rule'),
  title: li.querySelector('.finding-title')?.textContent || '',
  value: Number(li.querySelector('[data-testid=finding-figure]')?.getAttribute('data-value')),
})));

test('the Findings panel names the culprit and each link opens the view with its number', async () => {
  const stacks = exportRows(['--table', 'cpu-sampled', '--group', 'Stack', '--filter', 'Process=explorer.exe (6148)']);
  const ext = onStack(stacks, (f) => f.startsWith(`${EXT}!`));
  const next = onStack(exportRows(['--table', 'cpu-sampled', '--group', 'Stack']), (f) => f === 'kernel32.dll!Process32NextW');
  const creates = exportRows(['--table', 'file-io', '--group', 'File Path', '--filter', 'Type=Create']);
  const proxy = creates.find((r) => r['File Path'].endsWith('\\ti_managers_proxy.dll'));
  assert.equal(ext, 26000);
  assert.equal(proxy.Count, 4663);

  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await p.waitForFunction(() => /Findings \(\d+\)/.test(document.querySelector('[data-testid=findings-toggle]')?.textContent || ''));
  await p.click('[data-testid=findings-toggle]');
  const list = await findings(p);
  const shell = list.find((f) => f.rule === 'third-party-module' && f.title.includes(EXT));
  assert.ok(shell, JSON.stringify(list));
  assert.equal(shell.value, ext);
  assert.match(shell.title, /explorer\.exe \(6148\)/);
  const pattern = list.find((f) => f.rule === 'hot-api' && f.title.includes('kernel32.dll!Process32NextW'));
  assert.ok(pattern, JSON.stringify(list));
  assert.equal(pattern.value, next);
  assert.ok(list.some((f) => f.rule === 'hot-api' && f.title.includes('kernel32.dll!CreateToolhelp32Snapshot')));
  const opened = list.find((f) => f.rule === 'file-opened-often');
  assert.ok(opened && opened.title.includes('ti_managers_proxy.dll'));
  assert.equal(opened.value, proxy.Count);

  // The file link opens File I/O creates by path, with the proxy's row showing 4,663.
  await p.click('[data-testid=finding][data-rule=file-opened-often] [data-testid=finding-link]');
  await waitTable(p);
  assert.match(p.url(), /t=file-io/);
  const cells = await p.$$eval('[data-testid=table] tbody tr', (trs) => trs
    .filter((tr) => (tr.querySelector('td.label .txt')?.textContent || '').includes('ti_managers_proxy.dll'))
    .map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent || '').trim())));
  assert.ok(cells.length === 1 && cells[0].includes(proxy.Count.toLocaleString('en-US')), JSON.stringify(cells));

  // The shell extension's link opens its callers by module, inclusive 26,000.
  await p.goBack();
  const link = '[data-testid=finding][data-rule=third-party-module] [data-testid=finding-link]';
  await p.waitForSelector(link, { state: 'attached' });
  await p.$eval(link, (a) => /** @type {HTMLElement} */ (a).click());
  assert.match(p.url(), /view=butterfly/);
  await p.waitForFunction((n) => [...document.querySelectorAll('[data-testid=butterfly] [data-count]')].some((e) => e.getAttribute('data-count') === n), String(ext), { timeout: 30000 });
  assert.ok(p.url().includes(`bt=${EXT}`), p.url());
  assert.deepEqual(errors, []);
});
