// Stack tags in the UI on the demo trace: import the hand-written fixtures/stacktags/test.stacktags
// with the file picker, group CPU Usage (Sampled) by Stack Tag (the link names the set), and make
// the flame graph's roots the tags. Expected counts and weights come from a naive tagger run here
// over the stacks `etlscope export` prints, never from the API the page renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';
import { exportRows } from './export.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
const FILE = path.join(repoRoot, 'fixtures/stacktags/test.stacktags');
/** The fixture's entry points by hand: [module, method, tag, priority], in file order. */
const ENTRIES = [
  ['explorer.exe', '*', 'Shell', 0],
  ['windows.storage.dll', 'CFSFolder::*', 'Shell\\Storage', 0],
  ['windows.storage.dll', '*Overlay*', 'Shell\\Storage\\Overlay', 0],
  ['tishell??_*.dll', '*', 'Third Party', 0],
  ['kernel32.dll', 'Process32?extW', 'Third Party\\Enumeration', 5],
  ['kernel32.dll', 'CreateToolhelp32Snapshot', 'Third Party\\Enumeration', 5],
  ['ntoskrnl.exe', '*', 'Kernel', 0],
];
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

/** `*` any run, `?` one character, ASCII case-insensitive. @param {string} p @param {string} t */
const glob = (p, t) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'is').test(t);

/** WPA's rule: the highest priority, then the deepest frame, then the first entry. @param {string} stack */
function naiveTag(stack) {
  if (!stack) return 'n/a';
  let best = null;
  stack.split(';').forEach((frame, depth) => {
    const i = frame.indexOf('!');
    const mod = i < 0 ? '?' : frame.slice(0, i);
    let method = i < 0 ? frame : frame.slice(i + 1);
    if (method.startsWith('0x')) method = '?'; // not named yet
    ENTRIES.forEach(([m, f, tag, prio], j) => {
      if (!glob(String(m), mod) || !glob(String(f), method)) return;
      const k = [Number(prio), depth, -j];
      if (!best || k[0] > best.k[0] || (k[0] === best.k[0] && (k[1] > best.k[1] || (k[1] === best.k[1] && k[2] > best.k[2])))) best = { k, tag };
    });
  });
  return best ? String(best.tag) : 'Other';
}

before(async () => {
  buildRelease();
  srv = await startServer([DEMO]);
  for (let i = 0; i < 600; i++) {
    const s = await (await fetch(`${srv.url}/api/traces/${srv.ids[0]}/summary`)).json();
    if (s.symbols && s.symbols.status === 'done') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

test('an imported .stacktags file gives a Stack Tag column and flame roots that match a naive tagger', async () => {
  /** @type {Map<string, {count: number, weight: number}>} */
  const want = new Map();
  for (const r of exportRows(DEMO, ['--table', 'cpu-sampled', '--group', 'Stack'])) {
    const t = naiveTag(r.Stack);
    const w = want.get(t) || { count: 0, weight: 0 };
    want.set(t, { count: w.count + r.Count, weight: w.weight + r.Weight * 1000 });
  }
  assert.ok(want.size >= 5, JSON.stringify([...want]));

  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.setInputFiles('[data-testid=stack-tags-file]', FILE);
  await p.waitForFunction(() => new URLSearchParams(location.search).get('tags') === 'test');
  const notice = await p.textContent('[data-testid=notices]');
  assert.match(notice || '', /Stack tags "test" imported: 6 tags, 7 entry points; not applied: HintTag/);

  // Group by Stack Tag, then Stack: the link names the set by name.
  const q = new URLSearchParams(new URL(p.url()).search);
  q.set('g', 'Stack Tag,Stack');
  q.set('c', 'Count,Weight (ms)');
  q.set('s', 'Count');
  await p.goto(`${srv.url}/t/${srv.ids[0]}?${q}`);
  await waitTable(p);
  const heads = await p.$$eval('[data-testid=table] thead th', (ths) => ths.map((th) => (th.textContent || '').trim()));
  const at = heads.findIndex((x) => x.startsWith('Count'));
  assert.ok(at >= 0, JSON.stringify(heads));
  const rows = await p.$$eval('[data-testid=table] tbody tr[data-depth="0"]', (trs, i) => trs.map((tr) => [
    (tr.querySelector('td.label .txt')?.textContent || '').trim(),
    Number(((tr.querySelectorAll('td')[i]?.textContent) || '').replace(/,/g, '')),
  ]), at);
  assert.deepEqual(Object.fromEntries(rows), Object.fromEntries([...want].map(([k, v]) => [k, v.count])));
  assert.equal(await p.$eval('[data-testid=stack-tags]', (s) => /** @type {HTMLSelectElement} */ (s).value), 'test');

  // The flame graph with the tags as its roots.
  await p.click('[data-testid=tab-flame]');
  const flame = p.waitForResponse((r) => r.url().endsWith('/flame') && (r.request().postData() || '').includes('"by_stack_tag":true'));
  await p.check('[data-testid=flame-by-tag]');
  const g = await (await flame).json();
  const roots = Object.fromEntries(g.depth.map((d, i) => [d, i]).filter(([d]) => d === 1).map(([, i]) => [g.label[i], g.width_ms[i]]));
  assert.deepEqual(Object.keys(roots).sort(), [...want.keys()].sort());
  for (const [k, v] of want) assert.ok(Math.abs(roots[k] - v.weight) < 1e-3, `${k}: ${roots[k]} vs ${v.weight}`);
  assert.ok(new URL(p.url()).searchParams.get('ft') === '1');

  // Right-click the Kernel box: filter the graph to that tag.
  const total = g.width_ms[0];
  const k = g.label.findIndex((/** @type {string} */ l, /** @type {number} */ i) => l === 'Kernel' && g.depth[i] === 1);
  const box = await p.$eval('[data-testid=flame]', (c) => ({ w: c.clientWidth, h: c.clientHeight }));
  const x = ((g.start_ms[k] + g.width_ms[k] / 2) / total) * box.w;
  await p.click('[data-testid=flame]', { button: 'right', position: { x, y: box.h - 2 * 17 + 8 } });
  const filtered = p.waitForResponse((r) => r.url().endsWith('/flame') && (r.request().postData() || '').includes('Stack Tag'));
  await p.click('[data-testid=context-menu] >> text=Filter to Stack Tag = Kernel');
  const f = await (await filtered).json();
  assert.ok(Math.abs(f.width_ms[0] - want.get('Kernel').weight) < 1e-3, `${f.width_ms[0]}`);
  assert.deepEqual(new URL(p.url()).searchParams.getAll('f'), ['Stack Tag=Kernel']);
  assert.deepEqual(errors, []);
});
