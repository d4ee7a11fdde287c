// Share a redacted copy (issue 40): a panel that shows what `etlscope redact` would replace in a trace
// (counts per category and a few examples: the server's preview, the CLI's `--report json`), lets each category
// be kept, then makes the copy as a new library entry linked to its original and gives the copy's link.
// Examples are the trace's own strings: they go through textContent like everything else from a trace.
import * as api from './api.js';
import { h, clear, fmtInt, copyText, toast } from './dom.js';

/** The categories in the CLI's order, with what each covers. */
const CATEGORIES = [
  ['users', 'User names (profile folders, USERNAME=, user fields)'],
  ['computer', "The computer's name"],
  ['domain', 'The domain'],
  ['command-lines', 'Command-line arguments (images keep their names)'],
  ['titles', 'Window titles'],
  ['paths', 'Paths below the folders given below'],
  ['network', 'IP addresses'],
  ['environment', 'Environment values (NAME=VALUE)'],
];

/**
 * The "Share a redacted copy…" button; it opens the panel inside `host`.
 * @param {string} traceId
 * @param {HTMLElement} host where the panel goes
 * @param {(url: string) => void} navigate
 * @param {() => void} [onCopy] called once a copy is in the library
 */
export function shareButton(traceId, host, navigate, onCopy) {
  return h('button', {
    class: 'btn', text: 'Share a redacted copy…', 'data-testid': 'share-redacted',
    onclick: () => {
      // One panel at a time; the same button again closes it.
      const open = host.querySelector('[data-testid=share-panel]');
      if (open) open.remove();
      if (open && open.getAttribute('data-trace') === traceId) return;
      const panel = sharePanel(traceId, navigate, onCopy);
      host.append(panel);
      panel.scrollIntoView({ block: 'nearest' });
    },
  });
}

/**
 * @param {string} traceId
 * @param {(url: string) => void} navigate
 * @param {() => void} [onCopy]
 */
export function sharePanel(traceId, navigate, onCopy) {
  /** @type {Set<string>} */
  const keep = new Set();
  const rows = h('tbody');
  const state = h('div', { class: 'state', 'data-testid': 'share-state', text: 'Looking for what to replace…' });
  const paths = /** @type {HTMLTextAreaElement} */ (h('textarea', {
    rows: '2', 'data-testid': 'share-paths', placeholder: 'C:\\src (one folder a line)',
    title: 'The paths below these folders are replaced, component by component (extensions kept), as etlscope redact --path',
  }));
  const result = h('div', { class: 'share-result', 'data-testid': 'share-result' });
  const make = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn primary', text: 'Make the redacted copy', 'data-testid': 'share-make', disabled: true }));
  const panel = h('section', { class: 'panel share-panel', 'data-testid': 'share-panel', 'data-trace': traceId }, [
    h('h2', { text: 'Share a redacted copy' }),
    h('p', { class: 'hint', text: 'A copy with these replaced (each by text of its own length, the same original by the same replacement everywhere). Times, stacks and numbers stay. The examples are this trace\'s own strings: check them; they are not part of the copy.' }),
    h('table', { class: 'grid share-categories' }, [
      h('thead', {}, [h('tr', {}, ['Keep', 'Category', 'Found', 'Places', 'Examples (original → replacement)'].map((t) => h('th', { text: t })))]),
      rows,
    ]),
    h('label', { class: 'share-paths' }, ['Replace the paths below these folders: ', paths]),
    state,
    h('div', { class: 'share-actions' }, [make]),
    result,
  ]);

  const options = () => ({
    keep: [...keep],
    paths: paths.value.split(/[\n;]/).map((s) => s.trim()).filter(Boolean),
  });

  // Only the newest preview is drawn: an older one answering late would show other options' counts.
  let asked = 0;
  const preview = async () => {
    const mine = ++asked;
    make.disabled = true;
    state.className = 'state';
    state.textContent = 'Looking for what to replace…';
    try {
      const report = await api.redactPreview(traceId, options());
      if (mine !== asked) return;
      draw(report);
      state.textContent = `${fmtInt(report.events)} events in ${fmtInt(report.buffers)} buffers; nothing else changes.`;
      make.disabled = false;
    } catch (e) {
      if (mine !== asked) return;
      state.className = 'state error';
      state.textContent = `Cannot redact this trace: ${/** @type {Error} */ (e).message}`;
    }
  };

  /** @param {any} report */
  const draw = (report) => {
    clear(rows);
    for (const [name, what] of CATEGORIES) {
      const c = (report.categories && report.categories[name]) || { originals: 0, replaced: 0, examples: [] };
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', 'data-testid': `share-keep-${name}`, title: `Keep ${name} as it is` }));
      box.checked = keep.has(name);
      box.addEventListener('change', () => {
        if (box.checked) keep.add(name); else keep.delete(name);
        preview();
      });
      const examples = h('td', { class: 'share-examples' });
      for (const ex of c.examples || []) {
        examples.append(h('div', { class: 'share-example' }, [
          h('code', { class: 'original', text: ex.original }), ' → ', h('code', { class: 'replacement', text: ex.replacement }),
        ]));
      }
      rows.append(h('tr', { 'data-category': name, class: c.kept ? 'kept' : '' }, [
        h('td', {}, [box]),
        h('td', { title: what, text: name }),
        h('td', { class: 'num', 'data-testid': 'share-originals', text: c.kept ? 'kept' : fmtInt(c.originals) }),
        h('td', { class: 'num', 'data-testid': 'share-replaced', text: c.kept ? '' : fmtInt(c.replaced) }),
        examples,
      ]));
    }
  };

  paths.addEventListener('change', preview);
  make.addEventListener('click', async () => {
    make.disabled = true;
    state.className = 'state';
    state.textContent = 'Making the copy…';
    try {
      const copy = await api.redactCopy(traceId, options());
      const link = `${location.origin}/t/${copy.id}`;
      state.textContent = 'The copy is in the library, linked to this trace; this trace can now be deleted.';
      clear(result);
      result.append(
        h('a', { href: `/t/${copy.id}`, 'data-testid': 'share-link', text: link, onclick: (/** @type {Event} */ e) => { e.preventDefault(); navigate(`/t/${copy.id}`); } }),
        ' ',
        h('button', { class: 'btn', text: 'Copy link', onclick: async () => { await copyText(link); toast('Link copied'); } }),
      );
      if (onCopy) onCopy();
    } catch (e) {
      state.className = 'state error';
      state.textContent = `No copy was made: ${/** @type {Error} */ (e).message}`;
    } finally {
      make.disabled = false;
    }
  });
  preview();
  return panel;
}
