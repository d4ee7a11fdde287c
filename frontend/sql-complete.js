// Table and column completion for the Query tab's editor, from the server's SQL schema
// (GET /api/sql/schema: crates/sql's declarations, not a copy kept here). After FROM or JOIN
// it offers tables; after `name.` the columns of that table or alias; elsewhere the columns of
// the tables the statement names, then tables and functions. Tab or Enter takes the one marked.
import { h, clear } from './dom.js';

/** @typedef {{name: string, table: string|null, columns: {name: string, type: string, unit: string}[]}} SqlTable */
/** @typedef {{tables: SqlTable[], functions: {name: string, call: string}[]}} SqlSchema */
/** @typedef {{text: string, kind: 'table'|'column'|'function', detail: string}} Suggestion */

const WORD = /[A-Za-z0-9_]/;
/** Suggestions shown at most. */
const SHOWN = 12;

/**
 * What completes the word ending at `caret`: the word's start, and the suggestions for it.
 * @param {SqlSchema} schema @param {string} text @param {number} caret @param {boolean} [all] even with no letter typed
 * @returns {{start: number, items: Suggestion[]}}
 */
export function suggest(schema, text, caret, all = false) {
  let start = caret;
  while (start > 0 && WORD.test(text[start - 1])) start--;
  const word = text.slice(start, caret).toLowerCase();
  const tables = new Map(schema.tables.map((t) => [t.name.toLowerCase(), t]));
  const colItems = (/** @type {SqlTable} */ t) => t.columns.map((c) => /** @type {Suggestion} */ ({ text: c.name, kind: 'column', detail: `${t.name}: ${c.type}${c.unit ? `, ${c.unit}` : ''}` }));
  const tableItems = () => schema.tables.map((t) => /** @type {Suggestion} */ ({ text: t.name, kind: 'table', detail: t.table ? `table ${t.table}` : 'table' }));
  /** @type {Suggestion[]} */
  let items;
  if (start > 0 && text[start - 1] === '.') {
    // `x.`: x is a table, or an alias given to one (`FROM cpu_sampled AS c`, `JOIN frames f`).
    let q = start - 1;
    while (q > 0 && WORD.test(text[q - 1])) q--;
    const qual = text.slice(q, start - 1).toLowerCase();
    const t = tables.get(qual) || tables.get(aliases(text, tables).get(qual) || '');
    items = t ? colItems(t) : [];
  } else if (!word && !all) {
    return { start, items: [] };
  } else if (/\b(from|join)\s+$/i.test(text.slice(0, start))) {
    items = tableItems();
  } else {
    const named = [...tables.values()].filter((t) => new RegExp(`\\b${t.name}\\b`, 'i').test(text.slice(0, start) + text.slice(caret)));
    const seen = new Set();
    items = [...named.flatMap(colItems), ...tableItems(), ...schema.functions.map((f) => /** @type {Suggestion} */ ({ text: f.name, kind: 'function', detail: f.call }))]
      .filter((x) => (seen.has(x.text) ? false : (seen.add(x.text), true)));
  }
  const starts = items.filter((x) => x.text.toLowerCase().startsWith(word));
  const inside = items.filter((x) => !x.text.toLowerCase().startsWith(word) && word.length > 1 && x.text.toLowerCase().includes(word));
  return { start, items: [...starts, ...inside].filter((x) => x.text.toLowerCase() !== word || all).slice(0, SHOWN) };
}

/** Aliases the statement gives tables: alias -> table name. @param {string} text @param {Map<string, SqlTable>} tables */
function aliases(text, tables) {
  const out = new Map();
  // The second name in a lookahead: `FROM file_io f` is found after `SELECT x FROM` took `FROM`.
  for (const m of text.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)(?=\s+(?:as\s+)?([A-Za-z_][A-Za-z0-9_]*))/gi)) {
    const t = m[1].toLowerCase();
    const a = m[2].toLowerCase();
    if (tables.has(t) && !/^(where|join|on|group|order|limit|left|inner|cross|using|natural|union|as)$/.test(a)) out.set(a, t);
  }
  return out;
}

/**
 * Wire completion to `editor`: the list under it while a word is typed (Ctrl+Space: every
 * choice here); arrows move, Tab or Enter take, Escape closes.
 * @param {HTMLTextAreaElement} editor @param {() => SqlSchema|null} schema
 * @returns {HTMLElement} the list (placed by the caller under the editor)
 */
export function attachCompletion(editor, schema) {
  const list = h('ul', { class: 'sql-complete', 'data-testid': 'sql-complete', role: 'listbox', hidden: true });
  /** @type {{start: number, items: Suggestion[]}} */
  let open = { start: 0, items: [] };
  let at = 0;
  const close = () => { list.hidden = true; open = { start: 0, items: [] }; };
  const take = (/** @type {Suggestion} */ x) => {
    const caret = editor.selectionStart;
    editor.setRangeText(x.text, open.start, caret, 'end');
    close();
    editor.focus();
  };
  const draw = () => {
    clear(list);
    open.items.forEach((x, i) => {
      const li = h('li', { class: `${x.kind} ${i === at ? 'on' : ''}`, role: 'option', 'aria-selected': i === at ? 'true' : 'false', 'data-text': x.text },
        [h('span', { class: 'sc-text', text: x.text }), h('span', { class: 'sc-detail', text: x.detail })]);
      // mousedown, not click: the editor keeps its focus and caret.
      li.addEventListener('mousedown', (ev) => { ev.preventDefault(); take(x); });
      list.append(li);
    });
    list.hidden = open.items.length === 0;
  };
  const refresh = (all = false) => {
    const s = schema();
    if (!s || editor.selectionStart !== editor.selectionEnd) { close(); return; }
    open = suggest(s, editor.value, editor.selectionStart, all);
    at = 0;
    draw();
  };
  editor.addEventListener('input', () => refresh());
  editor.addEventListener('blur', close);
  editor.addEventListener('keydown', (ev) => {
    if (ev.key === ' ' && ev.ctrlKey) { ev.preventDefault(); refresh(true); return; }
    if (list.hidden) return;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      at = (at + (ev.key === 'ArrowDown' ? 1 : open.items.length - 1)) % open.items.length;
      draw();
    } else if ((ev.key === 'Tab' || ev.key === 'Enter') && !ev.ctrlKey && !ev.metaKey) {
      ev.preventDefault();
      take(open.items[at]);
    } else if (ev.key === 'Escape') {
      ev.preventDefault();
      close();
    }
  });
  return list;
}
