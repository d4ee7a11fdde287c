// Expanded tree paths in a link, written once per shared prefix: `a(b(c,d),e)` stands for the paths
// a/b/c, a/b/d and a/e. A `*`-expanded subtree has hundreds of paths that share their first levels;
// as a trie each row's identity appears once, not once per path under it.

/** Structure characters inside a segment, and '%', are written as %XX. @param {string} s */
const esc = (s) => (s === '' ? '~' : s.replace(/[%(),~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`));
/** @param {string} s */
const unesc = (s) => (s === '~' ? '' : s.replace(/%(25|28|29|2C|7E)/gi, (_, h) => String.fromCharCode(parseInt(h, 16))));

/** @param {string[][]} paths @returns {string} */
export function encodeTrie(paths) {
  /** @typedef {Map<string, Trie>} Trie */
  /** @type {Trie} */
  const root = new Map();
  for (const p of paths) {
    let m = root;
    for (const seg of p) {
      if (!m.has(seg)) m.set(seg, new Map());
      m = /** @type {Trie} */ (m.get(seg));
    }
  }
  /** @param {Trie} m @returns {string} */
  const write = (m) => [...m].map(([seg, kids]) => esc(seg) + (kids.size ? `(${write(kids)})` : '')).join(',');
  return write(root);
}

/**
 * The root-to-leaf paths of a trie; null when it is malformed (unbalanced parentheses).
 * Iterative, so a hostile link of any depth cannot overflow the stack.
 * @param {string} s @returns {string[][]|null}
 */
export function decodeTrie(s) {
  /** @type {string[][]} */
  const out = [];
  /** @type {string[]} */
  const stack = [];
  let seg = '';
  let pending = false; // a segment read and not yet closed as a leaf or parent
  const leaf = () => { if (pending) out.push([...stack, unesc(seg)]); pending = false; seg = ''; };
  for (const c of s) {
    if (c === '(') {
      if (!pending) return null;
      stack.push(unesc(seg));
      pending = false;
      seg = '';
    } else if (c === ')') {
      leaf();
      if (!stack.length) return null;
      stack.pop();
    } else if (c === ',') {
      leaf();
    } else {
      seg += c;
      pending = true;
    }
  }
  leaf();
  return stack.length ? null : out;
}
