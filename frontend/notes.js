// Notes on views (issue 40): the Notes panel of the trace page (list, write, edit, delete, copy a
// note's link), a marker on the timeline at each note's time range (a click opens the note's view),
// and the notes written on the view shown, above it. A note's text is the user's: note-text.js
// builds it as text nodes. Who wrote a note: the name given here (this browser's localStorage) and
// the note's edit key, which only the writing browser gets (kept in localStorage by note id).
import * as api from './api.js';
import { h, clear, copyText, toast, fmtDate } from './dom.js';
import { noteNodes } from './note-text.js';
import { fromQuery, toQuery } from './url-state.js';
import { shortLink } from './short-link.js';

const AUTHOR_KEY = 'etlscope.noteAuthor';
const KEYS_KEY = 'etlscope.noteKeys';
/** Query keys that do not make another view: format, the note itself, zoom, clock, packs, layout. */
const NOT_THE_VIEW = new Set(['v', 'note', 'z', 'tm', 'schemas', 'lay']);

/** @typedef {{id: string, trace: string, text: string, view: string, author: string, created_at: string, updated_at: string, editable: boolean}} Note */

/** @returns {Record<string, string>} */
function keys() {
  try { const k = JSON.parse(localStorage.getItem(KEYS_KEY) || '{}'); return k && typeof k === 'object' ? k : {}; } catch { return {}; }
}
/** @param {Record<string, string>} all */
function saveKeys(all) {
  try { localStorage.setItem(KEYS_KEY, JSON.stringify(all)); } catch { /* private mode: the key lives for this page only */ }
}
/** This browser's edit key of a note ('' when another browser wrote it). @param {string} id */
const keyOf = (id) => { const k = keys()[id]; return typeof k === 'string' ? k : ''; };

/** Whether two view queries show the same view (zoom, clock and layout aside). @param {string} a @param {string} b */
export function sameView(a, b) {
  const norm = (/** @type {string} */ q) => [...new URLSearchParams(q)].filter(([k]) => !NOT_THE_VIEW.has(k)).map(([k, v]) => `${k}=${v}`).sort().join('&');
  return norm(a) === norm(b);
}

/** The view a note is written on: the page's state without a note of its own. @param {import('./url-state.js').ViewState} s */
export const viewOf = (s) => toQuery({ ...s, note: '' });

/** The address that opens a note: its view, with it highlighted. @param {Note} n */
export const noteHref = (n) => `/t/${encodeURIComponent(n.trace)}?${n.view}&note=${n.id}`;

/** @param {Note} n */
const firstLine = (n) => n.text.split(/\r?\n/)[0].slice(0, 120);

/** What a note's view shows, in words. @param {Note} n */
function viewText(n) {
  const s = fromQuery(n.view).state;
  const parts = [s.view === 'table' ? s.table : `${s.view} (${s.table})`];
  if (s.range) parts.push(`${s.range[0]}–${s.range[1]} s`);
  if (s.sel && s.sel.length) parts.push(`row ${s.sel[s.sel.length - 1]}`);
  return parts.join(', ');
}

export class Notes {
  /**
   * @param {string} traceId
   * @param {{state: () => import('./url-state.js').ViewState, navigate: (url: string) => void, drawn: () => void}} o
   * `drawn`: the notes changed (the timeline redraws its markers).
   */
  constructor(traceId, o) {
    this.id = traceId;
    this.o = o;
    /** @type {Note[]} */
    this.notes = [];
    this.maxBytes = 65536;
    this.list = h('div', { class: 'notes-list', 'data-testid': 'notes-list' });
    this.author = /** @type {HTMLInputElement} */ (h('input', { class: 'note-author', 'data-testid': 'note-author', placeholder: 'Your name', maxlength: '80', title: 'Shown with your notes (kept in this browser)' }));
    try { this.author.value = localStorage.getItem(AUTHOR_KEY) || ''; } catch { /* none kept */ }
    this.author.addEventListener('change', () => { try { localStorage.setItem(AUTHOR_KEY, this.author.value.trim()); } catch { /* not kept */ } });
    this.input = /** @type {HTMLTextAreaElement} */ (h('textarea', { class: 'note-input', 'data-testid': 'note-input', rows: '3', placeholder: 'A note on this view: plain text, `code`, *emphasis*, http(s) links' }));
    this.error = h('div', { class: 'note-error', 'data-testid': 'note-error', hidden: true });
    const add = h('button', { class: 'btn primary small', 'data-testid': 'note-add', text: 'Add note on this view', onclick: () => this.create() });
    const reload = h('button', { class: 'btn small', 'data-testid': 'notes-reload', text: 'Refresh', onclick: () => this.load() });
    this.body = h('div', { class: 'notes-body', hidden: true }, [h('div', { class: 'note-form' }, [this.author, this.input, h('div', {}, [add, reload])]), this.error, this.list]);
    this.toggle = h('button', { class: 'btn notes-toggle', 'data-testid': 'notes-toggle', text: 'Notes…', onclick: () => { this.body.hidden = !this.body.hidden; } });
    this.panel = h('section', { class: 'panel notes', 'data-testid': 'notes-panel' }, [this.toggle, this.body]);
    /** The notes written on the view shown (and the one a link opened), above the analysis. */
    this.strip = h('div', { class: 'view-notes', 'data-testid': 'view-notes', hidden: true });
  }

  async load() {
    try {
      const v = await api.notes(this.id);
      this.notes = v.notes || [];
      if (v.limits && v.limits.max_text_bytes) this.maxBytes = v.limits.max_text_bytes;
    } catch (e) {
      this.toggle.textContent = `Notes: ${/** @type {Error} */ (e).message}`;
      return;
    }
    this.render();
  }

  /** The panel, the strip and the markers from the notes and the page's state. */
  render() {
    const s = this.o.state();
    const current = s.note || '';
    this.toggle.textContent = `Notes (${this.notes.length})`;
    clear(this.list);
    for (const n of this.notes) this.list.append(this.item(n, n.id === current));
    if (current && this.notes.some((n) => n.id === current)) {
      this.body.hidden = false;
      const el = this.list.querySelector('.note.current');
      if (el) el.scrollIntoView({ block: 'nearest' });
    }
    const here = viewOf(s);
    const shown = this.notes.filter((n) => n.id === current || sameView(n.view, here));
    clear(this.strip);
    for (const n of shown) {
      this.strip.append(h('div', { class: `view-note${n.id === current ? ' current' : ''}`, 'data-testid': 'view-note', 'data-note-id': n.id }, [
        h('span', { class: 'note-by', text: `${n.author || 'Someone'}:` }), ' ', h('span', { class: 'note-body' }, noteNodes(n.text)),
      ]));
    }
    this.strip.hidden = shown.length === 0;
    this.o.drawn();
  }

  /** @param {Note} n @param {boolean} current */
  item(n, current) {
    const mine = n.editable || keyOf(n.id) !== '';
    const text = h('div', { class: 'note-body', 'data-testid': 'note-text' }, noteNodes(n.text));
    const edited = n.updated_at !== n.created_at ? ` (edited ${fmtDate(n.updated_at)})` : '';
    const el = h('div', { class: `note${current ? ' current' : ''}`, 'data-testid': 'note', 'data-note-id': n.id }, [
      h('div', { class: 'note-head' }, [
        h('span', { class: 'note-by', 'data-testid': 'note-author-name', text: n.author || 'Someone' }), ' ',
        h('span', { class: 'note-when', text: `${fmtDate(n.created_at)}${edited}` }), ' ',
        h('a', { class: 'note-view', 'data-testid': 'note-open', href: noteHref(n), text: viewText(n), title: 'Open the view this note was written on', onclick: (/** @type {MouseEvent} */ ev) => { ev.preventDefault(); this.o.navigate(noteHref(n)); } }),
      ]),
      text,
      h('div', { class: 'note-actions' }, [
        h('button', { class: 'btn small', 'data-testid': 'note-copy-link', text: 'Copy link', onclick: () => this.copyLink(n) }),
        mine ? h('button', { class: 'btn small', 'data-testid': 'note-edit', text: 'Edit', onclick: () => this.edit(n, text) }) : null,
        mine ? h('button', { class: 'btn small danger', 'data-testid': 'note-delete', text: 'Delete', onclick: () => this.remove(n) }) : null,
      ]),
    ]);
    return el;
  }

  /** The text's size against the server's limit: a message, or '' when it fits. @param {string} text */
  tooLong(text) {
    const bytes = new TextEncoder().encode(text).length;
    return bytes > this.maxBytes ? `This note is ${bytes} bytes; this server keeps notes of at most ${this.maxBytes} bytes (${Math.floor(this.maxBytes / 1024)} KiB).` : '';
  }

  /** @param {string} msg */
  fail(msg) {
    this.error.textContent = msg;
    this.error.hidden = !msg;
  }

  async create() {
    const text = this.input.value;
    if (!text.trim()) { this.fail('Write the note first.'); return; }
    const long = this.tooLong(text);
    if (long) { this.fail(long); return; }
    try {
      const made = await api.createNote(this.id, { text, view: viewOf(this.o.state()), author: this.author.value.trim() });
      const all = keys();
      all[made.id] = made.key;
      saveKeys(all);
    } catch (e) {
      this.fail(`The note was not kept: ${/** @type {Error} */ (e).message}`);
      return;
    }
    this.fail('');
    this.input.value = '';
    toast('Note added');
    await this.load();
  }

  /** Edit in place: the text becomes a box with Save and Cancel. @param {Note} n @param {HTMLElement} text */
  edit(n, text) {
    const box = /** @type {HTMLTextAreaElement} */ (h('textarea', { class: 'note-input', 'data-testid': 'note-edit-input', rows: '3' }));
    box.value = n.text;
    const save = async () => {
      const long = this.tooLong(box.value);
      if (long) { this.fail(long); return; }
      try {
        await api.updateNote(n.id, keyOf(n.id), { text: box.value });
      } catch (e) { this.fail(`The note was not changed: ${/** @type {Error} */ (e).message}`); return; }
      this.fail('');
      await this.load();
    };
    clear(text);
    text.append(box, h('button', { class: 'btn small primary', 'data-testid': 'note-save', text: 'Save', onclick: save }), h('button', { class: 'btn small', text: 'Cancel', onclick: () => this.render() }));
    box.focus();
  }

  /** @param {Note} n */
  async remove(n) {
    if (!confirm(`Delete the note "${firstLine(n)}"?`)) return;
    try { await api.deleteNote(n.id, keyOf(n.id)); } catch (e) { this.fail(`The note was not deleted: ${/** @type {Error} */ (e).message}`); return; }
    const all = keys();
    delete all[n.id];
    saveKeys(all);
    await this.load();
  }

  /** The short link of the note's view, which opens it highlighted. @param {Note} n */
  async copyLink(n) {
    const link = await shortLink(`${location.origin}${noteHref(n)}`);
    await copyText(link.url);
    toast('Link to this note copied');
  }

  /**
   * The notes' markers over the timeline canvas: one per note with a time range, across it (a
   * click opens the note's view). Buttons, so they are reachable by keyboard and carry text.
   * @param {import('./timeline.js').Timeline} tl
   */
  placeMarkers(tl) {
    const host = tl.canvas.parentElement;
    if (!host) return;
    let layer = /** @type {HTMLElement|null} */ (host.querySelector(':scope > .note-markers'));
    if (!layer) { layer = h('div', { class: 'note-markers', 'data-testid': 'note-markers' }); host.append(layer); }
    clear(layer);
    Object.assign(layer.style, { left: `${tl.canvas.offsetLeft}px`, width: `${tl.canvas.clientWidth}px` });
    const W = tl.canvas.clientWidth;
    const current = this.o.state().note || '';
    for (const n of this.notes) {
      const r = fromQuery(n.view).state.range;
      if (!r) continue;
      const x0 = Math.max(0, tl.tToX(r[0]));
      const x1 = Math.min(W, tl.tToX(r[1]));
      if (!(x1 >= 0 && x0 <= W)) continue;
      layer.append(h('button', {
        class: `note-marker${n.id === current ? ' current' : ''}`, 'data-testid': 'note-marker', 'data-note-id': n.id,
        title: `${n.author || 'Someone'}: ${firstLine(n)}`, 'aria-label': `Note by ${n.author || 'someone'}: ${firstLine(n)}`,
        style: { left: `${x0}px`, width: `${Math.max(6, x1 - x0)}px` },
        onclick: () => this.o.navigate(noteHref(n)),
      }));
    }
  }
}
