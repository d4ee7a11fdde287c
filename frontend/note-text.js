// A note's text with light formatting, built as DOM nodes (never markup): line breaks, `code`,
// *emphasis*, and http(s) addresses as links that open apart from this page (rel=noopener). Anything
// else, HTML included, is text.

/** `code`, *emphasis* or an http(s) address. */
const TOKEN = /`([^`\n]+)`|\*([^*\s](?:[^*\n]*[^*\s])?)\*|(https?:\/\/[^\s<>"'`]+)/g;
/** Punctuation that ends a sentence, not an address. */
const TRAILING = /[.,;:!?)\]]+$/;

/**
 * The nodes of `text`.
 * @param {string} text @returns {Node[]}
 */
export function noteNodes(text) {
  /** @type {Node[]} */
  const out = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    if (i) out.push(document.createElement('br'));
    out.push(...inline(line));
  });
  return out;
}

/** @param {string} line @returns {Node[]} */
function inline(line) {
  /** @type {Node[]} */
  const out = [];
  let at = 0;
  for (const m of line.matchAll(TOKEN)) {
    const start = m.index ?? 0;
    let end = start + m[0].length;
    /** @type {Node|null} */
    let node = null;
    if (m[1] !== undefined) node = el('code', m[1]);
    else if (m[2] !== undefined) node = el('em', m[2]);
    else {
      const addr = m[3].replace(TRAILING, '');
      end = start + addr.length;
      node = link(addr);
    }
    if (start > at) out.push(document.createTextNode(line.slice(at, start)));
    out.push(node || document.createTextNode(line.slice(start, end)));
    at = end;
  }
  if (at < line.length) out.push(document.createTextNode(line.slice(at)));
  return out;
}

/** @param {string} tag @param {string} text */
function el(tag, text) {
  const e = document.createElement(tag);
  e.textContent = text;
  return e;
}

/** An http(s) link to `addr`, or null (then it stays text). @param {string} addr */
function link(addr) {
  let u;
  try { u = new URL(addr); } catch { return null; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const a = document.createElement('a');
  a.href = u.href;
  a.textContent = addr;
  a.rel = 'noopener noreferrer nofollow';
  a.target = '_blank';
  return a;
}
