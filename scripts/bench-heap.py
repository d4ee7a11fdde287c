#!/usr/bin/env python3
"""Heap benchmark (docs/BENCHMARKS.md, area heap; issue 35): a trace of EVENTS
heap events (`etlscope synth heap-bench`, allocs with stack walks) against a
sampled-CPU trace of the same file size (`etlscope synth bench --bytes`), each
opened by `etlscope serve` until the trace is ready, interleaved, RUNS times
(median); then the Heap Allocations table regrouped REGROUPS times on the
open heap trace (a different grouping each time, median).

usage: scripts/bench-heap.py BIN DIR [EVENTS [RUNS [REGROUPS]]]

Targets: opening the heap trace takes at most 1.5x the sampled one; a regroup
of the Heap table under 300 ms median (2-core machine).
"""
import os, re, shutil, statistics, subprocess, sys, tempfile, time

from bench_http import get, post
from bench_results import record

binary, folder = sys.argv[1], sys.argv[2]
events = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
regroups = int(sys.argv[5]) if len(sys.argv) > 5 else 11


def written(path, args):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        print(f"writing {path}", file=sys.stderr)
        subprocess.run([binary, "synth", *args, "-o", path], check=True, stdout=subprocess.DEVNULL)
    return path


heap = written(f"{folder}/heap-{events}.etl", ["heap-bench", "--events", str(events)])
size = os.path.getsize(heap)
sampled = written(f"{folder}/sampled-{size}-bytes.etl",
                  ["bench", "--bytes", str(size), "--distinct-stacks", "100000", "--threads", "1000"])


def serve(path, then=None):
    """Seconds from spawn until the trace is ready; `then(base, id)` runs on the open trace."""
    d = tempfile.mkdtemp(prefix="etlscope-bench-heap-")
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", d, path],
                         stdout=subprocess.PIPE, text=True)
    try:
        out = ""
        while True:
            line = p.stdout.readline()
            out += line
            m = re.search(r"/t/([0-9a-f]{32})", line)
            if m:
                break
            if not line:
                raise SystemExit("server exited: " + out)
        tid = m.group(1)
        base = re.search(r"serving on (http://[^/\s]+)/", out).group(1)
        while True:
            e = get(f"{base}/api/traces/{tid}")
            if e["status"] == "ready":
                break
            if e["status"] == "failed":
                raise SystemExit("ingest failed: " + e.get("error", ""))
            time.sleep(0.02)
        ready = time.monotonic() - t0
        return ready, (then(base, tid) if then else None)
    finally:
        p.terminate()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


GROUPINGS = [["Process", "Type"], ["Type", "Process"], ["Process", "Thread"], ["Type", "Stack"],
             ["Process", "Stack"], ["Thread", "Type"]]


def regroup(base, tid):
    times = []
    for k in range(regroups):
        cols = GROUPINGS[k % len(GROUPINGS)]
        t = time.monotonic()
        post(f"{base}/api/traces/{tid}/table", {"table": "heap", "columns": cols, "path": [], "limit": 500})
        times.append(time.monotonic() - t)
    return times


print(f"{heap} ({size / 1e9:.2f} GB, {events:,} heap events) vs {sampled} "
      f"({os.path.getsize(sampled) / 1e9:.2f} GB); load average {open('/proc/loadavg').read().split()[:3]}")
heap_s, sampled_s, groups = [], [], []
for r in range(runs):
    s, _ = serve(sampled)
    sampled_s.append(s)
    h, g = serve(heap, regroup if r == runs - 1 else None)
    heap_s.append(h)
    groups = g or groups
    print(f"run {r + 1}: heap ready {h:.2f} s, sampled ready {s:.2f} s")
hm, sm = statistics.median(heap_s), statistics.median(sampled_s)
gm = statistics.median(groups) * 1000
print(f"median: heap {hm:.2f} s, sampled {sm:.2f} s ({hm / sm:.2f}x); "
      f"Heap regroup median {gm:.0f} ms over {len(groups)} ({', '.join(f'{x * 1000:.0f}' for x in groups)} ms)")
name = f"{events / 1e6:g}M heap events"
record("heap", f"open {name} (serve until ready)", f"{hm:.2f} s", f"same-size sampled trace: {sm:.2f} s",
       f"{hm / sm:.2f}x", "<= 1.5x", hm / sm <= 1.5)
record("heap", f"Heap table regroup, {name}, median of {len(groups)}", f"{gm:.0f} ms", "", "", "< 300 ms", gm < 300)
