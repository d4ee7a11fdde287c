// Start the real etlscope binary on a free port with a temporary data directory.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where browser tests write their screenshots: the README's `docs/screenshots` only when asked
 * (`ETLSCOPE_SCREENSHOTS=1 npm test`), else a scratch folder, so a test run leaves the tree clean. */
export const screenshotDir = () => (process.env.ETLSCOPE_SCREENSHOTS === '1'
  ? path.join(repoRoot, 'docs/screenshots')
  : path.join(os.tmpdir(), 'etlscope-screenshots'));

/** Under CI (the CI variable set to anything but empty, 0 or false) nothing may be skipped. */
export const underCi = !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase());

/** The real traces folder, or null (after a loud notice) when it is missing; fatal under CI. */
export function realTraces() {
  const dir = process.env.ETLSCOPE_REAL_TRACES || path.resolve(repoRoot, '../shared/traces');
  if (fs.existsSync(path.join(dir, 'perfview-net452-x64.etl'))) return dir;
  const msg = `\n!!! SKIPPING browser tests on real traces: ${dir} has no perfview-net452-x64.etl (set ETLSCOPE_REAL_TRACES) !!!\n`;
  if (underCi) throw new Error(msg);
  process.stderr.write(msg);
  return null;
}

/** `cargo build --release` (a no-op when up to date) unless ETLSCOPE_SKIP_BUILD=1. */
export function buildRelease() {
  if (process.env.ETLSCOPE_SKIP_BUILD === '1') return;
  const r = spawnSync('cargo', ['build', '--release', '-p', 'etlscope'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('cargo build --release failed');
}

/** The binary the tests run: $ETLSCOPE_BIN, else the release build in $CARGO_TARGET_DIR (default target/). */
export const binary = () => process.env.ETLSCOPE_BIN || path.join(process.env.CARGO_TARGET_DIR ? path.resolve(repoRoot, process.env.CARGO_TARGET_DIR) : path.join(repoRoot, 'target'), 'release/etlscope');

/**
 * @param {string[]} traces
 * @param {number} [readyTimeoutMs] how long ingest may take
 * @param {string[]} [flags] more `etlscope serve` flags (e.g. --token)
 * @param {Record<string, string>} [headers] sent with the readiness polls (e.g. the token)
 * @returns {Promise<{url: string, ids: string[], dataDir: string, stop: () => void}>}
 */
export async function startServer(traces, readyTimeoutMs = 120000, flags = [], headers = {}) {
  const bin = binary();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-ui-'));
  const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--data-dir', dataDir, ...flags, ...traces], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server did not print its URL: ${out}`)), 60000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /serving on (http:\/\/[^/\s]+)\//.exec(out);
      if (m && (out.match(/\/t\/[0-9a-f]{32}\n/g) || []).length >= traces.length) { clearTimeout(t); resolve(m[1]); }
    });
    child.on('exit', (c) => reject(new Error(`server exited with ${c}: ${out}`)));
  });
  // One id per trace, in the order given (the demo also prints a second link to its own id).
  const ids = [...new Set([...out.matchAll(/\/t\/([0-9a-f]{32})/g)].map((m) => m[1]))];
  for (const id of ids) {
    // Ready, failed, or an error after `readyTimeoutMs` (never a silent return mid-ingest).
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      const e = await (await fetch(`${url}/api/traces/${id}`, { headers })).json();
      if (e.status === 'ready') break;
      if (e.status === 'failed') throw new Error(`ingest failed: ${e.error}`);
      if (Date.now() > deadline) { child.kill('SIGTERM'); throw new Error(`trace ${id} not ready after ${readyTimeoutMs} ms (status ${e.status})`); }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url, ids, dataDir,
    stop: () => { child.kill('SIGTERM'); fs.rmSync(dataDir, { recursive: true, force: true }); },
  };
}

/** POST a query to the API. @param {string} url @param {string} id @param {string} what @param {any} body */
export async function query(url, id, what, body) {
  const r = await fetch(`${url}/api/traces/${id}/${what}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-etlscope': '1' }, body: JSON.stringify(body) });
  return r.json();
}
