#!/usr/bin/env bash
# Multi-file traces: is reading a container's members as one trace (one
# time line, joined images) as cheap as reading them one after another?
# Times, median of N runs, the release binary on
#   (a) the container itself (one trace of all members), and
#   (b) each .etl member extracted to a temp dir, one after another,
# for `etlscope info` (read + census) and `etlscope export --table images`
# (read + full model build + one table).
#   scripts/bench-members.sh [CONTAINER]   (default ../shared/traces/vs-dotnetcore31.diagsession)
#   env: RUNS (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
container="${1:-${ETLSCOPE_REAL_TRACES:-../shared/traces}/vs-dotnetcore31.diagsession}"
runs="${RUNS:-5}"
bin=target/release/etlscope
[ -x "$bin" ] || cargo build --release -q -p etlscope
work=$(mktemp -d /tmp/etlscope-bench-members.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$container" "$work" <<'PY'
import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1])
for i, info in enumerate(n for n in z.infolist() if n.filename.lower().endswith('.etl')):
    open(os.path.join(sys.argv[2], f"member-{i}.etl"), "wb").write(z.read(info))
PY
members=("$work"/member-*.etl)

# median of $runs wall times in ms of "$@"
median_ms() {
    local t=()
    for _ in $(seq "$runs"); do
        local s e
        s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N)
        t+=($(( (e - s) / 1000000 )))
    done
    printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
each() { local cmd=$1; shift; for m in "${members[@]}"; do $bin $cmd "$m" "$@" >/dev/null; done; }

echo "container: $container (${#members[@]} members, $(du -cb "${members[@]}" | tail -1 | cut -f1) bytes extracted), median of $runs"
a=$(median_ms $bin info "$container"); b=$(median_ms each info)
echo "info:            as one trace ${a} ms, members one after another ${b} ms"
a=$(median_ms $bin export "$container" --table images); b=$(median_ms each export --table images)
echo "export images:   as one trace ${a} ms, members one after another ${b} ms"
