// The link format round-trips and degrades gracefully (no browser needed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultState, toQuery, fromQuery, maximalPaths, encodePath, decodePath } from '../url-state.js';

test('a full view state round-trips through the query string', () => {
  const s = defaultState('cpu-sampled');
  Object.assign(s, {
    view: 'flame', groups: ['Process', 'Thread ID', 'Stack'], cols: ['% Weight', 'Count'], sort: 'Count', desc: false,
    filters: [{ column: 'Process', value: 'a,b=c (1)', exclude: false }, { column: 'Module', value: 'x.dll', exclude: true }],
    range: [7, 23.5], zoom: [1.25, 30], open: [['explorer.exe (4321)', 'ntdll.dll!RtlUserThreadStart', 'a/b%c~', '']],
    sel: ['explorer.exe (4321)', 'ntdll.dll!RtlUserThreadStart'], flameZoom: ['all?', 'x!y'], flameSearch: 'Overlay', icicle: true, perProcess: true, noStack: true,
    bfKind: 'module', bfTarget: 'tishell64.dll', bfBy: 'module',
    bfOpen: [['c', 'fn:a.dll@5f3a1b2c:1f000+10a0', 'b/c.dll!?'], ['e', 'mod:k.dll@1:2']],
  });
  const { state, problems } = fromQuery(`?${toQuery(s)}`);
  assert.deepEqual(problems, []);
  assert.deepEqual(state, s);
});

test('only the deepest expanded paths are written', () => {
  assert.deepEqual(maximalPaths([['a'], ['a', 'b'], ['a', 'b', 'c'], ['d']]), [['a', 'b', 'c'], ['d']]);
});

test('labels with separators survive', () => {
  for (const p of [['a/b', 'c%2F', '~', ''], ['x'], ['%', '/']]) assert.deepEqual(decodePath(encodePath(p)), p);
});

test('malformed or newer links open what can be read and say what was not', () => {
  const { state, problems } = fromQuery('?v=9&t=nope&r=abc&f=novalue');
  assert.equal(state.table, 'cpu-sampled');
  assert.equal(state.range, null);
  assert.equal(problems.length, 4);
});

test('extra views and their layout round-trip; a view of an unknown table is left out with a notice', () => {
  const s = defaultState('cpu-sampled');
  s.range = [7, 23];
  s.layout = 'side';
  s.panes = [
    { table: 'file-io', groups: ['Type', 'File Path'], cols: ['Count', 'Size:max'], sort: 'Count', desc: true, open: [['Create', 'C:\\a,b&c=d/e']], sel: ['Create'] },
    { table: 'images', groups: ['File Version', 'Image Path'], cols: ['Count'], sort: 'File Version', desc: false, open: [], sel: null },
  ];
  const { state, problems } = fromQuery(`?${toQuery(s)}`);
  assert.deepEqual(problems, []);
  assert.deepEqual(state, s);
  const bad = fromQuery(`?${toQuery(s)}&pane=${encodeURIComponent('t=nope&g=X')}`);
  assert.equal(bad.state.panes.length, 2);
  assert.equal(bad.problems.length, 1);
  // Without extra views the layout is not written.
  assert.ok(!/lay=/.test(toQuery({ ...s, panes: [] })));
});

test('many expanded paths are written as one trie, the last expanded kept last; both forms read back', () => {
  const s = defaultState('cpu-sampled');
  const paths = [];
  for (let i = 0; i < 50; i++) paths.push(['pid:4242@1', 'fn:ntdll.dll+1000', 'fn:clr.dll+2000', `fn:clr.dll+${(3000 + i).toString(16)}`, `fn:x(y),z~+${i}`]);
  s.open = paths;
  const q = toQuery(s);
  const { state, problems } = fromQuery(`?${q}`);
  assert.deepEqual(problems, []);
  const key = (/** @type {string[]} */ p) => p.join('\u0001');
  assert.deepEqual(new Set(state.open.map(key)), new Set(paths.map(key)));
  assert.deepEqual(state.open[state.open.length - 1], paths[paths.length - 1], 'the last expanded stays last');
  // Every path written out in full would repeat its first three identities 50 times.
  const full = new URLSearchParams();
  for (const p of paths) full.append('o', encodePath(p));
  assert.ok(q.length * 2 < full.toString().length, `${q.length} vs ${full.toString().length}`);
  // Old links (one `o` per path) still open.
  assert.deepEqual(fromQuery(`?${full}`).state.open, paths);
  // A malformed trie is reported, the rest of the link opens.
  const bad = fromQuery('?v=2&ot=a(b&o=c');
  assert.deepEqual(bad.state.open, [['c']]);
  assert.equal(bad.problems.length, 1);
});
