#!/usr/bin/env bash
# Short, bounded fuzzing for CI: every fuzz target replays its committed
# regression inputs (crates/etl/tests/fuzz-regressions/<target>/) and then
# fuzzes from them for FUZZ_SECONDS (default 30). Exits non-zero if any target
# crashes, hangs (>10 s per input) or exceeds 2 GiB. Needs the nightly
# toolchain (installed when missing). The targets are built the way
# `cargo fuzz build` builds them (libFuzzer, sanitizer coverage, ASan, the
# flags below are cargo-fuzz's defaults), in one cargo call, without
# installing cargo-fuzz itself: its own build cost CI a minute or two.
#   FUZZ_SECONDS=30 FUZZ_TARGETS="etl_file xca" scripts/fuzz-smoke.sh
# FUZZ_PHASE=build only builds the targets (CI builds them in the background while
# other steps wait on servers and browsers); FUZZ_PHASE=run only runs the built ones;
# FUZZ_JOBS runs that many targets at once (each fuzzes on one core).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${FUZZ_SECONDS:-30}"
targets="${FUZZ_TARGETS:-etl_file buffer_events xca container schema_payload lznt1 wpa_profile schema_pack regions stack_tags redact}"

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz-smoke: installing the nightly toolchain"
    rustup toolchain install nightly --profile minimal
fi

phase="${FUZZ_PHASE:-all}"
jobs="${FUZZ_JOBS:-1}"
work="$(mktemp -d /tmp/etlscope-fuzz-smoke.XXXXXX)"
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bindir="fuzz/target/$host/release"
if [ "$phase" != run ]; then
echo "fuzz-smoke: building targets for $host (work dir $work)"
bins=()
for t in $targets; do bins+=(--bin "$t"); done
# An explicit --target keeps build scripts and proc macros uninstrumented.
(cd fuzz && RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 -Zsanitizer=address -Cdebug-assertions \
-Coverflow-checks" cargo +nightly build --release --target "$host" "${bins[@]}" \
    >/dev/null 2>>"$work/build.log") || { cat "$work/build.log"; exit 1; }
fi
[ "$phase" != build ] || { echo "fuzz-smoke: built"; exit 0; }

wpa_files="${ETLSCOPE_WPA_FILES:-$(pwd)/../shared/wpa-files}"
fuzz_one() { # TARGET: prints its line; non-zero when it failed
    local t=$1
    # Fuzz into a scratch copy so that new inputs never land in the repository.
    corpus="$work/corpus-$t"
    mkdir -p "$corpus" "$work/artifacts-$t"
    cp crates/etl/tests/fuzz-regressions/"$t"/*.bin "$corpus"/ 2>/dev/null || true
    # The XML readers start from real files (read from outside the repository).
    case "$t" in
    wpa_profile) cp "$wpa_files"/*.wpaProfile "$corpus"/ 2>/dev/null || true ;;
    regions) cp "$wpa_files"/*regions*.xml "$corpus"/ 2>/dev/null || true ;;
    stack_tags) cp crates/query/src/stack_tags/default.stacktags "$wpa_files"/*.stacktags "$corpus"/ 2>/dev/null || true ;;
    # The rewriter starts from the small real traces (user, manifest and TraceLogging events).
    redact) cp "${ETLSCOPE_REAL_TRACES:-$(pwd)/../shared/traces}"/{perfview-primitive-types,lxcore-manifest,perfview-selfdescribing-single}.etl "$corpus"/ 2>/dev/null || true ;;
    esac
    log="$work/$t.log"
    start=$(date +%s)
    set +e
    "$bindir/$t" "$corpus" \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts-$t/" >"$log" 2>&1
    rc=$?
    set -e
    stat() { grep -m1 "^stat::$1:" "$log" | awk '{print $2}' || true; }
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}' || true)
    printf 'fuzz-smoke: %-14s rc=%d  %ss  %s execs  %s exec/s  cov %s  regressions %s\n' \
        "$t" "$rc" "$(( $(date +%s) - start ))" "$(stat number_of_executed_units)" \
        "$(stat average_exec_per_sec)" "${cov:-?}" \
        "$(ls crates/etl/tests/fuzz-regressions/"$t"/*.bin 2>/dev/null | wc -l)"
    if [ "$rc" -ne 0 ]; then
        grep -E 'panicked|ERROR: libFuzzer|SUMMARY|Test unit written' "$log" | head -20 || true
        echo "  full log: $log; inputs: $work/artifacts-$t/"
        echo "  reproduce: cd fuzz && cargo +nightly fuzz run $t <input>; minimise with cargo +nightly fuzz tmin $t <input>"
        return 1
    fi
}
# Each target's lines go to its own file and are printed in the targets' order.
failed=()
running=0
for t in $targets; do
    (if fuzz_one "$t" >"$work/$t.out" 2>&1; then echo 0; else echo 1; fi >"$work/$t.rc") &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
for t in $targets; do
    cat "$work/$t.out"
    [ "$(cat "$work/$t.rc" 2>/dev/null)" = 0 ] || failed+=("$t")
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz-smoke: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz-smoke: all targets clean"
