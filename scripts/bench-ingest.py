#!/usr/bin/env python3
"""Ingest benchmark (docs/BENCHMARKS.md, areas ingest and memory): `etlscope info FILE` and
`etlscope serve FILE` until the trace is ready and its first table answers,
interleaved, RUNS times each (median reported).

usage: scripts/bench-ingest.py BIN[,BIN2...] FILE [RUNS]

Several binaries (e.g. before and after a change) are run interleaved in
each round, after one `info` (of the first binary), so that they see the
same load.

Per serve run: wall from spawn to status "ready" (the server listens and
reads while it hashes; `listen` is until it prints that it serves, `id_known`
until it prints the trace's link, once the hash is done) and the time of the
first /table query. Memory is sampled every 20 ms by a thread of its own from
the spawn until the server is idle after ready (its CPU time grew by at most
BENCH_IDLE_CPU_S (0.02) over BENCH_IDLE_S (2) seconds; waited for at most
BENCH_IDLE_TIMEOUT_S (120) seconds after ready; env, defaults): the
server keeps working after "ready" (comparison indexes, findings, returning
memory), and the peak RssAnon has been seen about 0.9 s after ready. Reported:
the peak RssAnon over the whole run (anonymous memory only: the mapped file's
pages are not counted), when it happened relative to ready (`peak_after_ready_s`,
negative if before), the peak until ready alone, RssAnon at ready and at the
end (idle, or the timeout), VmHWM then (with the mapped file's pages), and
what the server counts it holds for the trace once idle (`memory_bytes` in
/summary: the model, its query indexes and the comparison cache, from their
capacities; `model_ready_gb` is the same at ready, before the comparison cache); `cpu_ready` / `cpu_idle`
are the server's user + system CPU time until ready / until idle, and
`peak_anon_gb_in_phase` the peak RssAnon seen while each build phase was
reported ("done": the model is built and the query index is being made;
"after ready": from ready until idle).

Units: /proc reports RssAnon and VmHWM in KiB (1,024 bytes); every figure
printed is in GB = 10^9 bytes (not GiB = 2^30 bytes).
"""
import os, re, shutil, statistics, subprocess, sys, tempfile, threading, time

from bench_http import cpu_seconds, get, post
from bench_results import record

binaries, path = sys.argv[1].split(","), sys.argv[2]
binary = binaries[0]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
# More `serve` arguments, e.g. ETLSCOPE_SERVE_ARGS="--memory-budget-mb 20000".
EXTRA = os.environ.get("ETLSCOPE_SERVE_ARGS", "").split()
# Idle after ready: CPU time grew by at most IDLE_CPU_S seconds over the last
# IDLE_S seconds; give up waiting IDLE_TIMEOUT_S seconds after ready.
IDLE_S = float(os.environ.get("BENCH_IDLE_S", "2"))
IDLE_CPU_S = float(os.environ.get("BENCH_IDLE_CPU_S", "0.02"))
IDLE_TIMEOUT_S = float(os.environ.get("BENCH_IDLE_TIMEOUT_S", "120"))
SAMPLE_S = 0.02

KIB = 1024
GB = 10**9


def kib_to_gb(kib):
    """KiB as /proc/PID/status gives them -> GB (10^9 bytes)."""
    return kib * KIB / GB


def status_kib(pid, field):
    """A field of /proc/PID/status in KiB (its "kB" is 1,024 bytes); 0 if gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampler(threading.Thread):
    """RssAnon (KiB) and CPU time of a process every SAMPLE_S seconds, with the
    build phase the main thread last saw, until stopped."""

    def __init__(self, pid, t0):
        super().__init__(daemon=True)
        self.pid, self.t0 = pid, t0
        self.phase = None           # set by the main thread
        self.samples = []           # (seconds since spawn, RssAnon KiB, CPU s, phase)
        self.lock = threading.Lock()
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            s = (time.monotonic() - self.t0, status_kib(self.pid, "RssAnon"), cpu_seconds(self.pid), self.phase)
            with self.lock:
                self.samples.append(s)
            self.done.wait(SAMPLE_S)

    def snapshot(self):
        with self.lock:
            return list(self.samples)

    def stop(self):
        self.done.set()
        self.join()


def run_info():
    t = time.monotonic()
    subprocess.run([binary, "info", path], stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - t


def run_serve(binary):
    d = tempfile.mkdtemp(prefix="etlscope-bench-")
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", d, *EXTRA, path],
                         stdout=subprocess.PIPE, text=True)
    sampler = Sampler(p.pid, t0)
    sampler.start()
    try:
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
        return measure(p, sampler, tid, base, t0, listen, named)
    finally:
        sampler.stop()
        p.terminate()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def wait_idle(sampler, ready):
    """Seconds since spawn at which the server went idle after ready (the start
    of its quiet window), or None if it did not within IDLE_TIMEOUT_S."""
    while True:
        s = sampler.snapshot()
        now = s[-1][0]
        if now - ready >= IDLE_S:
            window = [x for x in s if x[0] >= now - IDLE_S]
            if window[-1][2] - window[0][2] <= IDLE_CPU_S:
                return window[0][0]
        if now - ready > IDLE_TIMEOUT_S:
            return None
        time.sleep(0.1)


def measure(p, sampler, tid, base, t0, listen, named):
    phases = {}
    while True:
        e = get(f"{base}/api/traces/{tid}")
        ph = (e.get("progress") or {}).get("phase")
        if ph:
            sampler.phase = ph
            phases.setdefault(ph, round(time.monotonic() - t0, 2))
        if e["status"] == "ready":
            break
        if e["status"] == "failed":
            raise SystemExit("ingest failed: " + e.get("error", ""))
        time.sleep(0.02)
    ready = time.monotonic() - t0
    sampler.phase = "after ready"
    cpu_ready = cpu_seconds(p.pid)
    anon_ready = status_kib(p.pid, "RssAnon")
    t = time.monotonic()
    post(f"{base}/api/traces/{tid}/table", {"columns": ["Process", "Stack"], "path": [], "limit": 500,
                                        "sort": {"by": "weight", "descending": True}})
    first_table = time.monotonic() - t
    summary = get(f"{base}/api/traces/{tid}/summary")
    idle = wait_idle(sampler, ready)
    # What the server holds once idle: the model, its indexes and the
    # comparison cache made after ready (`memory_bytes` counts them all).
    held = get(f"{base}/api/traces/{tid}/summary").get("memory_bytes", 0)
    cpu_idle = cpu_seconds(p.pid)
    anon_end = status_kib(p.pid, "RssAnon")
    hwm = status_kib(p.pid, "VmHWM")
    samples = sampler.snapshot()
    peak_t, peak = max(((s[0], s[1]) for s in samples), key=lambda x: x[1])
    peak_until_ready = max((s[1] for s in samples if s[0] <= ready), default=0)
    peak_in = {}
    for _, anon, _, ph in samples:
        if ph:
            peak_in[ph] = max(peak_in.get(ph, 0), anon)
    return dict(listen=listen, id_known=named, ready=ready, cpu_ready=cpu_ready, first_table=first_table,
                idle_after_ready_s=None if idle is None else idle - ready, cpu_idle=cpu_idle,
                peak_anon_gb=kib_to_gb(peak), peak_after_ready_s=peak_t - ready,
                peak_anon_until_ready_gb=kib_to_gb(peak_until_ready),
                anon_ready_gb=kib_to_gb(anon_ready), anon_end_gb=kib_to_gb(anon_end), hwm_gb=kib_to_gb(hwm),
                model_gb=held / GB, model_ready_gb=summary.get("memory_bytes", 0) / GB,
                samples=summary.get("samples"), phases_first_seen_s=phases,
                peak_anon_gb_in_phase={k: round(kib_to_gb(v), 3) for k, v in peak_in.items()})


def fmt(v):
    return f"{v:.3f}" if isinstance(v, float) else str(v)


print(f"{path} ({os.path.getsize(path)/GB:.2f} GB); load average {open('/proc/loadavg').read().split()[:3]}")
print(f"units: GB = 10^9 bytes; idle = CPU time grew <= {IDLE_CPU_S} s over {IDLE_S} s "
      f"(waited at most {IDLE_TIMEOUT_S} s after ready)")
infos, serves = [], {b: [] for b in binaries}
for i in range(runs):
    infos.append(run_info())
    print(f"run {i+1}: info {infos[-1]:.2f} s", flush=True)
    for b in binaries:
        s = run_serve(b)
        serves[b].append(s)
        print(f"run {i+1}: {b}: " + ", ".join(f"{k} {fmt(v)}" for k, v in s.items()), flush=True)
i = statistics.median(infos)
print(f"median of {runs}: info {i:.2f} s; load average {open('/proc/loadavg').read().split()[:3]}")
for b in binaries:
    med = lambda k: statistics.median(s[k] for s in serves[b])
    idles = [s["idle_after_ready_s"] for s in serves[b]]
    idle = (f"idle {statistics.median(idles):.1f} s after ready" if None not in idles
            else f"not idle within {IDLE_TIMEOUT_S:.0f} s after ready in {idles.count(None)} of {runs} runs")
    model = med('model_gb')
    ratio = lambda gb: f"{gb / model:.2f}x" if model else "n/a"
    print(f"  {b}: listen {med('listen'):.2f} s, id known {med('id_known'):.2f} s, "
          f"ready {med('ready'):.2f} s = {med('ready')/i:.1f}x info (CPU {med('cpu_ready'):.1f} s), "
          f"first table {med('first_table')*1000:.0f} ms, {idle} (CPU {med('cpu_idle'):.1f} s); "
          f"peak RssAnon {med('peak_anon_gb'):.3f} GB = {ratio(med('peak_anon_gb'))} held, "
          f"{med('peak_after_ready_s'):+.2f} s from ready "
          f"(until ready alone {med('peak_anon_until_ready_gb'):.3f} GB = {ratio(med('peak_anon_until_ready_gb'))}); "
          f"RssAnon at ready {med('anon_ready_gb'):.3f} GB, at the end {med('anon_end_gb'):.3f} GB; "
          f"VmHWM {med('hwm_gb'):.3f} GB; held once idle {model:.3f} GB (at ready {med('model_ready_gb'):.3f} GB)")
    if b != binary:
        continue
    # The table of `scripts/bench` (the first binary's medians).
    gbs = f"{os.path.getsize(path) / GB:.2f} GB"
    n = med("samples")
    name = f"{n / 1e6:.0f}M samples" if n and n >= 1e6 else f"{n:,} samples"
    r = med("ready") / i
    # Issue 41's targets: fixed costs weigh on small traces, the serial
    # join on large ones.
    ready_target, peak_target = (6, 2) if n and n <= 2e6 else (4, 1.5) if n and n <= 2e7 else (3, 2)
    record("ingest", f"{name} ({gbs}): ready, median of {runs}", f"{med('ready'):.2f} s (server CPU {med('cpu_ready'):.1f} s)",
           f"etlscope info: {i:.2f} s", f"{r:.1f}x", f"<= {ready_target}x", r <= ready_target)
    if model:
        m = med("peak_anon_gb") / model
        record("ingest", f"{name}: peak RssAnon until idle ({idle})", f"{med('peak_anon_gb'):.3f} GB",
               f"held once idle (memory_bytes): {model:.3f} GB", f"{m:.2f}x", f"<= {peak_target}x",
               m <= peak_target)
    record("ingest", f"{name}: first /table (Process, Stack)", f"{med('first_table') * 1000:.0f} ms", "", "", "<= 300 ms",
           med("first_table") <= 0.3)
