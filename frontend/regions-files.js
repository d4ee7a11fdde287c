// Regions files (WPA Regions of Interest) in the UI, kept in the library like stack tag sets: the
// view's control chooses the file its queries use (the link names it, `regions=NAME`), imports one
// (file picker, or drop it on the control); the Library panel lists, imports and removes them.
// A bad file's notice is the server's error: the file and the line at fault.
import * as api from './api.js';
import { h, clear } from './dom.js';

/** A file name for the server (docs/API.md): what it accepts, `.regions.xml`/`.xml` dropped. @param {string} file */
export function regionsName(file) {
  const base = file.replace(/(\.regions)?\.xml$/i, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 64);
  return !base || base === 'default' ? 'regions' : base;
}

/** Whether a dropped .xml file is a regions file rather than a manifest (its text names Regions). @param {File} f */
export async function isRegionsFile(f) {
  if (!/\.xml$/i.test(f.name)) return false;
  const head = await f.slice(0, 1 << 16).text();
  return /<Regions[\s>]/.test(head) && !/<provider[\s>]/i.test(head);
}

/** What an imported file holds, for the notice. @param {any} set */
const summary = (set) => {
  const notes = set.notices && set.notices.length ? `; left out: ${set.notices.join('; ')}` : '';
  return `Regions "${set.name}" imported: ${set.timed} timed region${set.timed === 1 ? '' : 's'} of ${set.regions}${notes}`;
};

/** Upload a regions file; answers the stored set. @param {File} f */
export async function importRegions(f) {
  return api.putRegions(regionsName(f.name), await f.text());
}

/**
 * The view's control: a select of the library's regions files ('' none, or `--regions`' file),
 * "Import regions file…", and a drop target.
 * @param {{active: string, onChange: (name: string) => void, onNotice: (msg: string) => void}} o
 */
export function regionsControl(o) {
  const select = /** @type {HTMLSelectElement} */ (h('select', { class: 'regions', 'data-testid': 'regions', title: 'Regions of Interest file of this view (the Regions of Interest table and the Region column)' }));
  const picker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.xml', hidden: true, 'data-testid': 'regions-file' }));
  const importOne = async (/** @type {File} */ f) => {
    try {
      const set = await importRegions(f);
      o.onNotice(summary(set));
      o.onChange(set.name);
    } catch (e) {
      o.onNotice(`Cannot import ${f.name}: ${/** @type {Error} */ (e).message}`);
    }
  };
  picker.addEventListener('change', () => { if (picker.files && picker.files[0]) importOne(picker.files[0]); picker.value = ''; });
  const none = () => h('option', { value: '', text: 'Regions: none' });
  select.append(o.active ? h('option', { value: o.active, text: `Regions: ${o.active}` }) : none());
  api.regionSets().then((r) => {
    select.replaceChildren(none(), ...r.sets.map((/** @type {any} */ s) => h('option', { value: s.name, text: `Regions: ${s.name}` })),
      h('option', { value: '\u0000import', text: 'Import regions file…' }));
    if (o.active && !r.sets.some((/** @type {any} */ s) => s.name === o.active)) {
      o.onNotice(`Regions file "${o.active}" named by this link is not in this library: import it to see its regions`);
    }
    select.value = o.active;
  }).catch((e) => o.onNotice(`Cannot list regions files: ${e.message}`));
  select.addEventListener('change', () => {
    if (select.value === '\u0000import') { select.value = o.active; picker.click(); return; }
    o.onChange(select.value);
  });
  const wrap = h('span', { class: 'regions-control', title: 'Drop a regions file (.xml) here to import it' }, [select, picker]);
  wrap.addEventListener('dragover', (ev) => { ev.preventDefault(); wrap.classList.add('drop'); });
  wrap.addEventListener('dragleave', () => wrap.classList.remove('drop'));
  wrap.addEventListener('drop', (ev) => {
    ev.preventDefault();
    ev.stopPropagation();
    wrap.classList.remove('drop');
    const f = ev.dataTransfer && ev.dataTransfer.files[0];
    if (f) importOne(f);
  });
  return wrap;
}

/** The Library panel: the stored regions files, a picker, and the last import's outcome. */
export function regionsPanel() {
  const list = h('ul', { class: 'regions-files', 'data-testid': 'regions-files' });
  const state = h('div', { class: 'state', 'data-testid': 'regions-files-state' });
  const picker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.xml', multiple: true, hidden: true, 'data-testid': 'regions-panel-file' }));
  const refresh = async () => {
    try {
      const r = await api.regionSets();
      clear(list);
      for (const s of r.sets) {
        list.append(h('li', { 'data-testid': 'regions-file-row' }, [
          h('b', { text: s.name }), ` ${s.timed} timed of ${s.regions} regions `,
          h('button', { class: 'btn', text: 'Remove', onclick: async () => { await api.deleteRegions(s.name); refresh(); } }),
        ]));
      }
      if (!r.sets.length) list.append(h('li', { class: 'muted', text: 'None yet' }));
    } catch (e) {
      state.textContent = `Cannot list regions files: ${/** @type {Error} */ (e).message}`;
    }
  };
  /** @param {File[]} files */
  const importAll = async (files) => {
    const said = [];
    for (const f of files) {
      try { said.push(summary(await importRegions(f))); } catch (e) { said.push(`Cannot import ${f.name}: ${/** @type {Error} */ (e).message}`); }
    }
    state.textContent = said.join('\n');
    refresh();
  };
  picker.addEventListener('change', () => { if (picker.files) importAll([...picker.files]); picker.value = ''; });
  const panel = h('section', { class: 'panel regions-panel', 'data-testid': 'regions-panel', title: 'Drop regions files (.xml) here' }, [
    h('h2', { text: 'Regions of Interest files' }),
    h('p', { class: 'muted' }, ['WPA regions files (',
      h('code', { text: '<InstrumentationManifest><Instrumentation><Regions>' }), '): each view of a trace chooses one. ',
      h('button', { class: 'btn', text: 'Import regions files…', onclick: () => picker.click() })]),
    list, state, picker,
  ]);
  panel.addEventListener('dragover', (ev) => { ev.preventDefault(); panel.classList.add('over'); });
  panel.addEventListener('dragleave', () => panel.classList.remove('over'));
  panel.addEventListener('drop', (ev) => {
    ev.preventDefault();
    panel.classList.remove('over');
    if (ev.dataTransfer && ev.dataTransfer.files.length) importAll([...ev.dataTransfer.files]);
  });
  refresh();
  return { panel, importAll };
}
