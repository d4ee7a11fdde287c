// Stack tags in the UI: choose the set the Stack Tag column shows, import a WPA .stacktags file
// (file picker, or drop it on the control), and, on the flame graph, make its roots the tags.
// The set's name goes into the link (`tags=NAME`); the file itself stays on the server.
import * as api from './api.js';
import { h } from './dom.js';

/** A set name from a file name: what the server accepts (docs/API.md). @param {string} file */
export function setName(file) {
  const base = file.replace(/\.stacktags$/i, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 64);
  return !base || base === 'default' ? 'imported' : base;
}

/**
 * Upload a .stacktags file; answers the stored set (its tags, what was not applied).
 * @param {File} file
 */
export async function importFile(file) {
  const xml = await file.text();
  return api.putStackTags(setName(file.name), xml);
}

/**
 * The control: a select of the server's sets, "Import .stacktags…", and (flame view) "Roots: stack tags".
 * @param {{active: string, flame: boolean, byTag: boolean, onChange: (name: string) => void,
 *   onByTag: (on: boolean) => void, onNotice: (msg: string) => void}} o
 */
export function stackTagsControl(o) {
  const select = /** @type {HTMLSelectElement} */ (h('select', { class: 'stack-tags', 'data-testid': 'stack-tags', title: 'Stack tag set of the Stack Tag column' }));
  const picker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.stacktags,.xml', hidden: true, 'data-testid': 'stack-tags-file' }));
  const importOne = async (/** @type {File} */ f) => {
    try {
      const set = await importFile(f);
      const skipped = set.ignored.length ? `; not applied: ${set.ignored.join(', ')}` : '';
      o.onNotice(`Stack tags "${set.name}" imported: ${set.tags.length} tags, ${set.entries} entry points${skipped}`);
      o.onChange(set.name);
    } catch (e) {
      o.onNotice(`Cannot import ${f.name}: ${/** @type {Error} */ (e).message}`);
    }
  };
  picker.addEventListener('change', () => { if (picker.files && picker.files[0]) importOne(picker.files[0]); });
  select.append(h('option', { value: o.active, text: `Stack tags: ${o.active || 'default'}` }));
  api.stackTagSets().then((r) => {
    select.replaceChildren(...r.sets.map((/** @type {any} */ s) => h('option', { value: s.builtin ? '' : s.name, text: `Stack tags: ${s.name}` })),
      h('option', { value: '\u0000import', text: 'Import .stacktags…' }));
    if (!r.sets.some((/** @type {any} */ s) => (s.builtin ? '' : s.name) === o.active)) {
      o.onNotice(`Stack tag set "${o.active}" is not on this server; showing the built-in set`);
      api.useStackTags('');
    }
    select.value = o.active;
  }).catch((e) => o.onNotice(`Cannot list stack tag sets: ${e.message}`));
  select.addEventListener('change', () => {
    if (select.value === '\u0000import') { select.value = o.active; picker.click(); return; }
    o.onChange(select.value);
  });
  const wrap = h('span', { class: 'stack-tags-control', title: 'Drop a .stacktags file here to import it' }, [select, picker]);
  wrap.addEventListener('dragover', (ev) => { ev.preventDefault(); wrap.classList.add('drop'); });
  wrap.addEventListener('dragleave', () => wrap.classList.remove('drop'));
  wrap.addEventListener('drop', (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    wrap.classList.remove('drop');
    const f = ev.dataTransfer && ev.dataTransfer.files[0];
    if (f) importOne(f);
  });
  if (o.flame) {
    const by = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'data-testid': 'flame-by-tag' }));
    by.checked = o.byTag;
    by.addEventListener('change', () => o.onByTag(by.checked));
    wrap.append(h('label', { class: 'chk', title: 'One root box per stack tag' }, [by, ' Roots: stack tags']));
  }
  return wrap;
}
