// Development only: serve frontend/ from disk and proxy /api to a running etlscope,
// so UI edits show without rebuilding the binary. Usage: node tests/dev-server.mjs 8792 http://127.0.0.1:8791
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.argv[2] || 8792);
const upstream = new URL(process.argv[3] || 'http://127.0.0.1:8791');
const types = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.png': 'image/png' };

http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  if (u.pathname.startsWith('/api/')) {
    const p = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    req.pipe(p);
    return;
  }
  let f = u.pathname === '/' || u.pathname.startsWith('/t/') ? 'index.html' : u.pathname.slice(1);
  if (f.includes('..')) { res.writeHead(400); res.end(); return; }
  fs.readFile(path.join(dir, f), (err, data) => {
    if (err) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'content-type': types[path.extname(f)] || 'application/octet-stream', 'cache-control': 'no-cache' });
    res.end(data);
  });
}).listen(port, '127.0.0.1', () => console.log(`dev server on http://127.0.0.1:${port}/`));
