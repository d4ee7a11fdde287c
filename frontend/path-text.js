// A file path as text that elides in the middle: its folders shrink with an ellipsis (CSS), its
// file name stays whole ("C:\Program Files\Acro…\ti_managers.dll"). The element's textContent
// is the whole path, so copying, find and titles see it unchanged.
import { h } from './dom.js';

/** A Windows or Unix path (also quoted, as command lines start): a drive, `\\`, `\` or `/`. @param {string} s */
export const isPath = (s) => /^"?(?:[A-Za-z]:)?[\\/]/.test(s);

/**
 * The path as two spans: `.head` (the folders, clipped with an ellipsis) and `.tail` (the last
 * separator and the file name, never clipped). @param {string} s @param {string} cls more classes
 */
export function pathEl(s, cls = '') {
  // A quoted program (a command line) keeps its own file name, not its last argument's.
  const prog = s.startsWith('"') && s.indexOf('"', 1) > 0 ? s.slice(0, s.indexOf('"', 1)) : s;
  const cut = Math.max(prog.lastIndexOf('\\'), prog.lastIndexOf('/'));
  return h('span', { class: `txt path ${cls}` }, [h('span', { class: 'head', text: s.slice(0, cut) }), h('span', { class: 'tail', text: s.slice(cut) })]);
}
