#!/usr/bin/env bash
# Peer check: traces written by our writer (uncompressed; etl-parser does not
# decompress) must be read by the Python peer `etl-parser` (PyPI) with the
# same buffer and event counts as our reader reports.
#
# How etl-parser counts (etl/etl.py, version 1.0.1): it splits the file into
# buffers (header, SavedOffset-0x48 bytes of events, then padding up to
# BufferSize), drops the first (header) buffer, and parses each remaining
# event area as back-to-back 8-aligned events of the kinds it knows:
# PerfInfo 0x10/0x11, EventHeader 0x12/0x13, full trace header 0x0A/0x14,
# system/compact 0x01-0x04 (instance headers 0x0B/0x15 are not understood,
# so the sample does not use them). We count every observer callback.
# Our side: `peer_count` prints buffers and census events minus the header
# buffer's events.
#
# Uses $PEERS_PYTHON (the venv .ci/run makes) or python3. Without python3 it
# skips (exit 0) on a developer's machine and fails under CI. Prints
# "etl-parser: N passed, M failed" and exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."

py="${PEERS_PYTHON:-python3}"
under_ci() { case "$(echo "${CI:-}" | tr '[:upper:]' '[:lower:]' | tr -d ' ')" in ""|0|false) return 1;; *) return 0;; esac; }
if ! command -v "$py" >/dev/null 2>&1; then
    if under_ci; then echo "etl-parser: 0 passed, 1 failed (no $py under CI)"; exit 1; fi
    echo "NOTICE: $py not found; skipping the etl-parser peer check" >&2
    exit 0
fi
if ! "$py" -c 'import etl.etl' 2>/dev/null; then
    echo "installing etl-parser (PyPI)..."
    "$py" -m pip install --quiet --user etl-parser 2>/dev/null \
        || "$py" -m pip install --quiet --user --break-system-packages etl-parser
    "$py" -c 'import etl.etl'
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/etl-parser-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

cargo build -q -p etl --features writer --example write_sample --example peer_count
bin=$(cargo metadata --format-version 1 --no-deps | "$py" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples


passed=0
failed=0
check() {
    local name=$1 file=$2 ours theirs
    ours=$("$bin/peer_count" "$file") || { echo "FAIL $name: our reader failed"; failed=$((failed + 1)); return; }
    theirs=$("$py" scripts/etl_parser_count.py "$file" 2>"$work/err") || {
        echo "FAIL $name: etl-parser raised: $(tail -1 "$work/err")"; failed=$((failed + 1)); return; }
    if [[ "$ours" == "$theirs" ]]; then
        echo "ok   $name: buffers, events = $ours"
        passed=$((passed + 1))
    else
        echo "FAIL $name: ours (buffers events) = $ours, etl-parser = $theirs"
        failed=$((failed + 1))
    fi
}

for spec in "8 4 5000 16384 1" "4 4 5000 16384 2" "8 1 20000 65536 3" "4 8 3000 4096 4" "8 2 1 4096 5"; do
    read -r ps cpus events bsize seed <<<"$spec"
    out="$work/sample-p$ps-c$cpus-n$events.etl"
    "$bin/write_sample" "$out" --pointer-size "$ps" --cpus "$cpus" --events "$events" \
        --buffer-size "$bsize" --seed "$seed" >/dev/null
    check "writer P=$ps cpus=$cpus events=$events buffer=$bsize" "$out"
done

# The committed demo trace (written uncompressed for this check).
check "demo traces/explorer-overlay.etl" traces/explorer-overlay.etl

# A real uncompressed trace, when the shared folder is there.
real="${ETLSCOPE_REAL_TRACES:-$(pwd)/../shared/traces}/shutdown-perfdiag-kernel.etl"
if [[ -f "$real" ]]; then
    check "real shutdown-perfdiag-kernel.etl" "$real"
elif under_ci; then
    echo "FAIL: $real not found under CI"; failed=$((failed + 1))
else
    echo "NOTICE: $real not found; real-trace peer check skipped" >&2
fi

echo "etl-parser: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
