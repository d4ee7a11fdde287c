#!/usr/bin/env bash
# Reader benchmarks (docs/BENCHMARKS.md): generates an uncompressed and a
# compressed bench trace of SIZE bytes each (default 1G) into a scratch
# directory outside the repository, times `cat FILE > /dev/null` from page
# cache, runs crates/etl/examples/bench_read on both, and times the Python
# peer etl-parser against our reader on shutdown-perfdiag-kernel.etl.
#
# usage: scripts/bench-reader.sh [SIZE]      (env BENCH_DIR, ITERATIONS)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1G}
dir=${BENCH_DIR:-/tmp/etlscope-bench}
iters=${ITERATIONS:-5}
mkdir -p "$dir"

cargo build --release -q -p synth --example gen
cargo build --release -q -p etl --example bench_read --example peer_count
bin=target/release/examples

now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.4f}')"; }

echo "machine: $(nproc) cores, $(uname -sr); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# Share of time some runnable task waited for a CPU (Linux PSI); near 100 means
# the wall-clock figures below measure contention as much as our code.
[[ -r /proc/pressure/cpu ]] && echo "cpu pressure: $(head -1 /proc/pressure/cpu)"
for kind in plain compressed; do
    f="$dir/bench-$size-$kind.etl"
    flag=""; [[ $kind == compressed ]] && flag="--compressed"
    echo
    echo "== generate $f"
    "$bin/gen" --bytes "$size" $flag -o "$f"
    bytes=$(stat -c %s "$f")
    cat "$f" >/dev/null; cat "$f" >/dev/null   # into the page cache
    # cat: best wall time of $iters runs, with the CPU time (user + sys) of that run.
    read -r cat_wall cat_cpu < <(python3 - "$f" "$iters" <<'PY'
import resource, subprocess, sys, time
best = None
for _ in range(int(sys.argv[2])):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(["cat", sys.argv[1]], stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    if best is None or wall < best[0]:
        best = (wall, cpu)
print(f"{best[0]:.4f} {best[1]:.4f}")
PY
)
    echo "cat FILE > /dev/null (page cache, best of $iters): $cat_wall s wall ($cat_cpu s CPU) = $(python3 -c "print(f'{$bytes / 1e6 / $cat_wall:.0f}')") MB/s"
    out=$("$bin/bench_read" "$f" --iterations "$iters")
    echo "$out"
    res=$(grep '^RESULT' <<<"$out")
    python3 - "$kind" "$cat_wall" "$cat_cpu" "$(nproc)" "$res" <<'PY'
import sys
sys.path.insert(0, "scripts")
from bench_results import record
kind, cat_wall, cat_cpu, cores, res = sys.argv[1:]
cat_wall, cat_cpu, cores = float(cat_wall), float(cat_cpu), int(cores)
r = dict(kv.split("=") for kv in res.split()[1:])
g = lambda k: float(r[k])
size = g("file_bytes")
print(f"ratio vs cat, wall (as measured): best pass {cat_wall / g('read_s'):.2f} x; open + first pass {cat_wall / (g('open_s') + g('first_s')):.2f} x")
print(f"ratio vs cat, CPU time: best pass {cat_cpu / g('read_cpu_s'):.2f} x; open + first pass {cat_cpu / (g('open_cpu_s') + g('first_cpu_s')):.2f} x"
      f" (ours summed over threads; on {cores} idle cores the wall ratio would be up to {cores} x this)")
if kind == "compressed":
    d = g("decompress_1t_mbps")
    print(f"ratio vs single-thread decompression alone, wall (as measured): {g('read_event_mbps') / d:.2f} x"
          f" ({g('read_event_mbps'):.0f} vs {d:.0f} MB/s of event bytes)")
    print(f"ratio vs single-thread decompression alone, CPU time: {g('decompress_1t_cpu_s') / g('read_cpu_s'):.2f} x"
          f" (read = decompress + walk; on {cores} idle cores up to {cores} x this)")
print(f"peak heap: {g('peak_heap') / size * 100:.3f}% of the file (target < 10%)")
gb = f"{size / 1e9:.2f} GB"
if kind == "compressed":
    x = g('read_event_mbps') / g('decompress_1t_mbps')
    record("reader", f"every event of a compressed {gb} trace", f"{g('read_s'):.3f} s ({g('read_event_mbps'):,.0f} MB/s of events)",
           f"decompression alone, one thread: {g('decompress_1t_mbps'):,.0f} MB/s", f"{x:.2f}x", ">= 1x", x >= 1)
else:
    x = cat_wall / g('read_s')
    record("reader", f"every event of an uncompressed {gb} trace", f"{g('read_s'):.3f} s ({g('events_per_s') / 1e6:.0f} M events/s)",
           f"cat: {cat_wall:.3f} s", f"{x:.2f}x cat's speed", ">= 0.5x", x >= 0.5)
heap = g('peak_heap') / size
record("reader", f"peak heap, {kind}", f"{g('peak_heap') / 1e6:.2f} MB", f"the file: {gb}", f"{heap * 100:.2f} %", "< 10 %", heap < 0.1)
PY
done

real="${ETLSCOPE_REAL_TRACES:-$(pwd)/../shared/traces}/shutdown-perfdiag-kernel.etl"
if [[ -f "$real" ]] && command -v python3 >/dev/null && python3 -c 'import etl.etl' 2>/dev/null; then
    echo
    echo "== etl-parser vs our reader on $(basename "$real") (open + count all events, one process each)"
    t0=$(now); peer=$(python3 scripts/etl_parser_count.py "$real"); t1=$(now)
    py_s=$(secs "$t0" "$t1")
    best=""
    for _ in $(seq "$iters"); do
        t0=$(now); ours=$("$bin/peer_count" "$real"); t1=$(now)
        s=$(secs "$t0" "$t1")
        best=$(python3 -c "print(min(float('$s'), float('${best:-1e9}')))")
    done
    echo "etl-parser: $py_s s (buffers events = $peer); ours (peer_count, release, best of $iters): $best s (= $ours)"
    python3 -c "print(f'ratio: ours is {$py_s / $best:.0f} x faster')"
    python3 scripts/bench_results.py record reader "$(basename "$real"): open + count every event" "$best s" \
        "etl-parser (Python): $py_s s" "$(python3 -c "print(f'{$py_s / $best:,.0f}x faster')")" "" ""
else
    echo "NOTICE: etl-parser or $real missing; peer timing skipped" >&2
fi
