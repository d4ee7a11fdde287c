// Provider schemas in the library (docs/schema-packs.md): instrumentation manifests (.man/.xml, as
// `wevtutil gp PROVIDER /ge /gm:true` writes them) or schema packs, dropped here or on the trace
// drop zone, kept on the server like stack tag sets. They name and decode the events of Windows'
// own providers in traces that carry no schema; traces already loaded load again.
import * as api from './api.js';
import { h, clear } from './dom.js';

/** Whether a dropped file is a manifest or pack rather than a trace. @param {string} name */
export const isSchemaFile = (name) => /\.(man|xml|pack)$/i.test(name);

/** A pack name from a file name: what the server accepts (docs/API.md). @param {string} file */
export function packName(file) {
  const base = file.replace(/\.(man|xml|pack)$/i, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 64);
  return base && base !== 'default' ? base : 'manifest';
}

/** The panel: the stored packs, a picker, and a line for the last import's outcome. */
export function schemaPacksPanel() {
  const list = h('ul', { class: 'schema-packs', 'data-testid': 'schema-packs' });
  const state = h('div', { class: 'state', 'data-testid': 'schema-packs-state' });
  const picker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.man,.xml,.pack', multiple: true, hidden: true, 'data-testid': 'schema-packs-file' }));
  const refresh = async () => {
    try {
      const r = await api.schemaPacks();
      clear(list);
      for (const p of r.packs) {
        const who = p.providers.map((/** @type {any} */ x) => x.name).join(', ');
        list.append(h('li', { 'data-testid': 'schema-pack' }, [
          h('b', { text: p.name }), ` ${who}: ${p.events} events `,
          h('button', { class: 'btn', text: 'Remove', onclick: async () => { await api.deleteSchemaPack(p.name); refresh(); } }),
        ]));
      }
      if (!r.packs.length) list.append(h('li', { class: 'muted', text: 'None: Windows providers are named by the built-in pack only' }));
    } catch (e) {
      state.textContent = `Cannot list schema packs: ${/** @type {Error} */ (e).message}`;
    }
  };
  /** @param {File[]} files */
  const importAll = async (files) => {
    const said = [];
    for (const f of files) {
      try {
        const p = await api.putSchemaPack(packName(f.name), f);
        const reload = p.reloaded_traces ? `; ${p.reloaded_traces} loaded trace(s) load again` : '';
        said.push(`Schemas "${p.name}" imported: ${p.providers.map((/** @type {any} */ x) => x.name).join(', ')}, ${p.events} events${reload}`);
      } catch (e) {
        said.push(`Cannot import ${f.name}: ${/** @type {Error} */ (e).message}`);
      }
    }
    state.textContent = said.join('\n');
    refresh();
  };
  picker.addEventListener('change', () => { if (picker.files) importAll([...picker.files]); picker.value = ''; });
  const panel = h('section', { class: 'panel schema-panel', 'data-testid': 'schema-panel', title: 'Drop .man, .xml or .pack files here' }, [
    h('h2', { text: 'Provider schemas' }),
    h('p', { class: 'muted' }, ['Manifests of providers the traces carry no schema for (',
      h('code', { text: 'wevtutil gp PROVIDER /ge /gm:true' }), '), or schema packs. ',
      h('button', { class: 'btn', text: 'Import manifests…', onclick: () => picker.click() })]),
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
