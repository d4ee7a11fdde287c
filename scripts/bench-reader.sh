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
for kind in plain compressed; do
    f="$dir/bench-$size-$kind.etl"
    flag=""; [[ $kind == compressed ]] && flag="--compressed"
    echo
    echo "== generate $f"
    "$bin/gen" --bytes "$size" $flag -o "$f"
    bytes=$(stat -c %s "$f")
    cat "$f" >/dev/null; cat "$f" >/dev/null   # into the page cache
    best=""
    for _ in $(seq "$iters"); do
        t0=$(now); cat "$f" >/dev/null; t1=$(now)
        s=$(secs "$t0" "$t1")
        best=$(python3 -c "print(min(float('$s'), float('${best:-1e9}')))")
    done
    cat_mbps=$(python3 -c "print(f'{$bytes / 1e6 / $best:.0f}')")
    echo "cat FILE > /dev/null (page cache, best of $iters): $best s = $cat_mbps MB/s"
    out=$("$bin/bench_read" "$f" --iterations "$iters")
    echo "$out"
    res=$(grep '^RESULT' <<<"$out")
    get() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$res"; }
    read_s=$(get read_s); first_s=$(get first_s); open_s=$(get open_s)
    python3 - "$best" "$read_s" "$first_s" "$open_s" "$(get read_event_mbps)" "$(get decompress_1t_mbps)" "$(get peak_heap)" "$bytes" "$kind" <<'PY'
import sys
cat_s, read_s, first_s, open_s, read_mbps, d1, peak, size, kind = sys.argv[1:]
cat_s, read_s, first_s, open_s, peak, size = map(float, (cat_s, read_s, first_s, open_s, peak, size))
print(f"ratio: reading all events (best) at {cat_s / read_s:.2f} x cat speed; open + first pass at {cat_s / (open_s + first_s):.2f} x")
if kind == "compressed" and d1:
    print(f"ratio: reading all events {float(read_mbps):.0f} MB/s vs single-thread decompression alone {float(d1):.0f} MB/s = {float(read_mbps) / float(d1):.2f} x")
print(f"peak heap: {peak / size * 100:.3f}% of the file (target < 10%)")
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
else
    echo "NOTICE: etl-parser or $real missing; peer timing skipped" >&2
fi
