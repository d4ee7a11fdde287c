// "Copy link" copies a short link (/v/ID): the server keeps the view's path and query, which for a
// deeply expanded tree can be tens of kilobytes, too long for chat tools and proxies to carry.
import * as api from './api.js';

/**
 * The short link of a view; the long one when the server cannot keep it (the link still works).
 * @param {string} [href] @returns {Promise<{url: string, short: boolean}>}
 */
export async function shortLink(href = location.href) {
  const u = new URL(href, location.origin);
  try {
    const r = await api.createLink(u.pathname + u.search);
    return { url: `${location.origin}${r.path}`, short: true };
  } catch {
    return { url: u.href, short: false };
  }
}
