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
target/release/examples/bench_members --runs "$runs" "${members[@]}"

median_ms() { # median of $runs wall times in ms of "$@"
    for _ in $(seq "$runs"); do
        s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))
    done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
echo "etlscope info: container $(median_ms target/release/etlscope info "$container") ms (inflating included), extracted members together $(median_ms target/release/etlscope info "${members[@]}") ms"
