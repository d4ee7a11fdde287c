#!/usr/bin/env python3
"""Ingest benchmark (docs/BENCHMARKS.md, "Ingest"): `etlscope info FILE` and
`etlscope serve FILE` until the trace is ready and its first table answers,
interleaved, RUNS times each (median reported).

usage: scripts/bench-ingest.py BIN[,BIN2...] FILE [RUNS]

Several binaries (e.g. before and after a change) are run interleaved in
each round, after one `info` (of the first binary), so that they see the
same load.

Per serve run: wall from spawn to status "ready" (the server listens and
reads while it hashes; `listen` is until it prints that it serves, `id_known`
until it prints the trace's link, once the hash is done), the time of the first
/table query, peak RssAnon (anonymous memory only: the mapped file's pages
are not counted) and VmHWM sampled every 20 ms, RssAnon once ready, and the
model's own estimate of its heap (`memory_bytes` in /summary); `cpu_ready`
is the server's user + system CPU time until ready, and `peak_anon_gb_in_phase`
the peak RssAnon seen while each build phase was reported ("done": the model
is built and the query index is being made).
"""
import os, re, shutil, statistics, subprocess, sys, tempfile, time

from bench_http import cpu_seconds, get, post

binaries, path = sys.argv[1].split(","), sys.argv[2]
binary = binaries[0]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
# More `serve` arguments, e.g. ETLSCOPE_SERVE_ARGS="--memory-budget-mb 20000".
EXTRA = os.environ.get("ETLSCOPE_SERVE_ARGS", "").split()


def status_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_info():
    t = time.monotonic()
    subprocess.run([binary, "info", path], stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - t


def run_serve(binary):
    d = tempfile.mkdtemp(prefix="etlscope-bench-")
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", d, *EXTRA, path],
                         stdout=subprocess.PIPE, text=True)
    out = ""
    listen = None
    while True:
        line = p.stdout.readline()
        out += line
        if listen is None and "serving on" in line:
            listen = time.monotonic() - t0
        m = re.search(r"/t/([0-9a-f]{32})", line)
        if m:
            break
        if not line:
            raise SystemExit("server exited: " + out)
    tid = m.group(1)
    base = re.search(r"serving on (http://[^/\s]+)/", out).group(1)
    named = time.monotonic() - t0
    try:
        return measure(p, d, tid, base, t0, listen, named)
    finally:
        p.terminate()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def measure(p, d, tid, base, t0, listen, named):
    peak_anon = 0
    phases = {}
    # Peak RssAnon seen while each phase was reported ("done": the model is
    # built and the query index is being made).
    peak_in = {}
    ph = None
    while True:
        anon = status_kb(p.pid, "RssAnon")
        peak_anon = max(peak_anon, anon)
        if ph:
            peak_in[ph] = max(peak_in.get(ph, 0), anon)
        e = get(f"{base}/api/traces/{tid}")
        ph = (e.get("progress") or {}).get("phase")
        if ph:
            phases.setdefault(ph, round(time.monotonic() - t0, 2))
        if e["status"] == "ready":
            break
        if e["status"] == "failed":
            raise SystemExit("ingest failed: " + e.get("error", ""))
        time.sleep(0.02)
    ready = time.monotonic() - t0
    cpu_ready = cpu_seconds(p.pid)
    t = time.monotonic()
    post(f"{base}/api/traces/{tid}/table", {"columns": ["Process", "Stack"], "path": [], "limit": 500,
                                        "sort": {"by": "weight", "descending": True}})
    first_table = time.monotonic() - t
    summary = get(f"{base}/api/traces/{tid}/summary")
    res = dict(listen=listen, id_known=named, ready=ready, cpu_ready=cpu_ready, first_table=first_table,
               peak_anon_gb=peak_anon / 1e6, hwm_gb=status_kb(p.pid, "VmHWM") / 1e6,
               anon_ready_gb=status_kb(p.pid, "RssAnon") / 1e6,
               model_gb=summary.get("memory_bytes", 0) / 1e9,
               samples=summary.get("samples"), phases_first_seen_s=phases,
               peak_anon_gb_in_phase={k: round(v / 1e6, 3) for k, v in peak_in.items()})
    return res


print(f"{path} ({os.path.getsize(path)/1e9:.2f} GB); load average {open('/proc/loadavg').read().split()[:3]}")
infos, serves = [], {b: [] for b in binaries}
for i in range(runs):
    infos.append(run_info())
    print(f"run {i+1}: info {infos[-1]:.2f} s", flush=True)
    for b in binaries:
        s = run_serve(b)
        serves[b].append(s)
        print(f"run {i+1}: {b}: " + ", ".join(
            f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in s.items()), flush=True)
i = statistics.median(infos)
print(f"median of {runs}: info {i:.2f} s; load average {open('/proc/loadavg').read().split()[:3]}")
for b in binaries:
    med = lambda k: statistics.median(s[k] for s in serves[b])
    print(f"  {b}: listen {med('listen'):.2f} s, id known {med('id_known'):.2f} s, "
          f"ready {med('ready'):.2f} s = {med('ready')/i:.1f}x info (CPU {med('cpu_ready'):.1f} s), "
          f"first table {med('first_table')*1000:.0f} ms, peak RssAnon {med('peak_anon_gb'):.2f} GB, "
          f"VmHWM {med('hwm_gb'):.2f} GB, RssAnon ready {med('anon_ready_gb'):.2f} GB, "
          f"model {med('model_gb'):.3f} GB, peak/model {med('peak_anon_gb')/med('model_gb'):.1f}x")
