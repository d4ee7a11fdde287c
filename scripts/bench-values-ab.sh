#!/usr/bin/env bash
# Issue 14's browser figures side by side: frontend/bench/perf-values.bench.mjs on the same File I/O
# trace for two release binaries, alternating, ROUNDS times; prints each run's medians and the load.
# Usage: scripts/bench-values-ab.sh BEFORE_BIN AFTER_BIN TRACE [ROUNDS]
# (TRACE: `etlscope synth bench --samples 1000 --threads 1000 --file-creates 10000000 --file-paths 100000 -o fio10000000.etl`)
set -euo pipefail
before=$(realpath "$1"); after=$(realpath "$2"); trace=$(realpath "$3"); rounds=${4:-1}
cd "$(dirname "$0")/../frontend"
for round in $(seq "$rounds"); do
    for who in before after; do
        if [ "$who" = before ]; then bin=$before; else bin=$after; fi
        echo "=== $who round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
        ETLSCOPE_BIN=$bin ETLSCOPE_PERF_FILE_IO_TRACE=$trace ETLSCOPE_SKIP_BUILD=1 \
            node --test bench/perf-values.bench.mjs 2>&1 |
            grep -E '^# (server|regroup|aggregation|graph after|target|all)' || true
    done
done
echo "=== end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
