#!/usr/bin/env python3
"""Times `POST /api/compare` and `GET /api/traces/ID/findings` (issue 17:
under 1 s each on 10M samples).

Usage: bench-compare.py BINARY BASE.etl NEW.etl [ROUNDS] [--wait-warm]

Serves both traces with `etlscope serve`, waits until both are ready
(with --wait-warm, also until the server's CPU has been idle for 2 s:
the per-trace comparison indexes made after ingest are built), then
sends each grouping ROUNDS times (default 3), without a range and with
a whole-trace range, then asks each trace's findings ROUNDS times, and
prints wall time and the server's CPU time (utime + stime of
/proc/PID/stat) over each request.
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time

from bench_http import cpu_seconds, get, post_raw
from bench_results import record

GROUPS = [["Process Name"], ["Module"], ["Function"], ["Process", "Stack"]]
WHOLE = {"start_s": 0, "end_s": 100000}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    wait_warm = "--wait-warm" in sys.argv
    binary, base_path, new_path = args[:3]
    rounds = int(args[3]) if len(args) > 3 else 3
    d = tempfile.mkdtemp(prefix="etlscope-compare-")
    p = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", d,
                          base_path, new_path], stdout=subprocess.PIPE, text=True)
    try:
        out, ids = "", []
        while len(ids) < 2:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("server exited: " + out)
            out += line
            # A line names one trace (the demo's "investigation" link repeats it).
            ids += [i for i in re.findall(r"/t/([0-9a-f]{32})", line) if i not in ids]
        url = re.search(r"serving on (http://[^/\s]+)/", out).group(1)
        for tid in ids:
            while get(f"{url}/api/traces/{tid}")["status"] != "ready":
                time.sleep(0.1)
        if wait_warm:
            last = cpu_seconds(p.pid)
            while True:
                time.sleep(2)
                now = cpu_seconds(p.pid)
                if now - last < 0.05:
                    break
                last = now
        print(f"both ready; server CPU so far {cpu_seconds(p.pid):.1f} s", flush=True)
        base, new = ids
        for rng in (None, WHOLE):
            for cols in GROUPS:
                walls = []
                for r in range(1, rounds + 1):
                    body = {"base": base, "new": new, "table": "cpu-sampled", "columns": cols}
                    if rng:
                        body["base_range"] = rng
                        body["new_range"] = rng
                    c0, t0 = cpu_seconds(p.pid), time.monotonic()
                    answer = post_raw(f"{url}/api/compare", body)
                    wall, cpu = time.monotonic() - t0, cpu_seconds(p.pid) - c0
                    rows = json.loads(answer).get("total_rows", "?")
                    label = ",".join(cols) + (" whole range" if rng else "")
                    print(f"{label} round {r}: wall {wall:.2f} s, CPU {cpu:.2f} s, "
                          f"{len(answer)} bytes, rows {rows}", flush=True)
                    walls.append(wall)
                record("compare", f"compare by {', '.join(cols)}{', whole range' if rng else ''} ({rows} rows)",
                       f"first {walls[0]:.2f} s, then {max(walls[1:] or walls):.2f} s at most", "", "", "<= 1 s",
                       max(walls) <= 1)
        for tid in ids:
            walls = []
            for r in range(1, rounds + 1):
                c0, t0 = cpu_seconds(p.pid), time.monotonic()
                found = get(f"{url}/api/traces/{tid}/findings")
                wall, cpu = time.monotonic() - t0, cpu_seconds(p.pid) - c0
                n = len(found.get("findings", [])) if isinstance(found, dict) else len(found)
                print(f"findings of {tid[:8]} round {r}: wall {wall:.2f} s, CPU {cpu:.2f} s, "
                      f"{n} findings", flush=True)
                walls.append(wall)
            record("compare", f"findings of {'the base' if tid == base else 'the new'} trace ({n} findings)",
                   f"{max(walls):.2f} s at most of {rounds}", "", "", "<= 1 s", max(walls) <= 1)
    finally:
        p.terminate()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
