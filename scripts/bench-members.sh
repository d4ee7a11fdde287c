#!/usr/bin/env bash
# Multi-file traces: is reading a container's members as one trace (one
# time line, images joined across members) as cheap as reading them one
# after another? Extracts the .etl members of CONTAINER to a temp dir, then
# times, median of RUNS in one process (crates/model/examples/bench_members.rs):
#   (a) the model of all members opened together (EtlFile::open_many), and
#   (b) the models of the members one after another;
# and, with the release binary, `etlscope info` on the container itself
# (inflating the members included) against the extracted members together.
#   scripts/bench-members.sh [CONTAINER]   (default ../shared/traces/vs-dotnetcore31.diagsession)
set -euo pipefail
cd "$(dirname "$0")/.."
container="${1:-${ETLSCOPE_REAL_TRACES:-../shared/traces}/vs-dotnetcore31.diagsession}"
runs="${RUNS:-5}"
cargo build --release -q -p etlscope -p model --example bench_members
work=$(mktemp -d /tmp/etlscope-bench-members.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 - "$container" "$work" <<'PY'
import sys, zipfile, os
z = zipfile.ZipFile(sys.argv[1])
for i, info in enumerate(n for n in z.infolist() if n.filename.lower().endswith('.etl')):
    open(os.path.join(sys.argv[2], f"member-{i}.etl"), "wb").write(z.read(info))
PY
members=("$work"/member-*.etl)
echo "container: $container (${#members[@]} members, $(du -cb "${members[@]}" | tail -1 | cut -f1) bytes extracted)"
target/release/examples/bench_members --runs "$runs" "${members[@]}" | tee "$work/out.txt"

median_ms() { # median of $runs wall times in ms of "$@"
    for _ in $(seq "$runs"); do
        s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
    done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
c_ms=$(median_ms target/release/etlscope info "$container")
m_ms=$(median_ms target/release/etlscope info "${members[@]}")
echo "etlscope info: container $c_ms ms (inflating included), extracted members together $m_ms ms"
# The figures for scripts/bench's table.
python3 - "$work/out.txt" "${#members[@]}" "$(basename "$container")" "$c_ms" "$m_ms" "$runs" <<'PY'
import re, sys
sys.path.insert(0, "scripts")
from bench_results import record
out, n, name, c_ms, m_ms, runs = sys.argv[1:]
t = open(out).read()
for what in ("read in time order", "model build"):
    m = re.search(what + r": as one trace ([\d.]+) ms, one after another ([\d.]+) ms", t)
    if m:
        one, apart = float(m.group(1)), float(m.group(2))
        record("members", f"{n} members of {name} as one trace: {what}, median of {runs}", f"{one:.1f} ms",
               f"one after another: {apart:.1f} ms", f"{one / apart:.2f}x", "<= 1x (1.1x within noise)", one / apart <= 1.1)
record("members", f"etlscope info {name} (inflating included)", f"{c_ms} ms", f"the members given together: {m_ms} ms",
       f"{int(c_ms) / max(int(m_ms), 1):.1f}x", "", "")
PY
