// Every relative link and image in the README and the docs resolves to a file of the repository,
// and every `#anchor` to a heading of its page (GitHub's anchor rule: lower case, punctuation
// dropped, spaces to dashes). No browser, no network: links to other sites are not followed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './server.mjs';

/** The Markdown files a reader follows links in. */
function pages() {
  const out = ['README.md', 'frontend/README.md', 'traces/README.md'];
  const walk = (/** @type {string} */ dir) => {
    for (const e of fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out.filter((p) => fs.existsSync(path.join(repoRoot, p)));
}

/** GitHub's anchor of a heading. @param {string} h */
const anchor = (h) => h.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

test('every relative link in README.md and docs/ resolves', () => {
  const broken = [];
  let checked = 0;
  for (const page of pages()) {
    const text = fs.readFileSync(path.join(repoRoot, page), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [file, hash] = target.split('#');
      const resolved = file ? path.normalize(path.join(path.dirname(page), decodeURIComponent(file))) : page;
      checked += 1;
      if (!fs.existsSync(path.join(repoRoot, resolved))) { broken.push(`${page}: ${target} (no ${resolved})`); continue; }
      if (hash && resolved.endsWith('.md')) {
        const heads = fs.readFileSync(path.join(repoRoot, resolved), 'utf8').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchor(l.replace(/^#+ /, '')));
        if (!heads.includes(hash)) broken.push(`${page}: ${target} (no heading #${hash} in ${resolved})`);
      }
    }
  }
  assert.ok(checked > 20, `only ${checked} links found`);
  assert.deepEqual(broken, []);
});
