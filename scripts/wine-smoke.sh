#!/usr/bin/env bash
# Windows smoke test (issue 18): the etlscope.exe cross-built with mingw-w64
# runs under Wine and prints byte-for-byte what the Linux build prints for
# `info` and `export` on the real traces and the demo, and its server answers
# a trace's summary and a table on loopback. Prints "wine-smoke: N passed, M failed".
#
# Needs: target/x86_64-pc-windows-gnu/$WINDOWS_PROFILE/etlscope.exe (default profile `wine`, see
# Cargo.toml; `release` for the optimised exe), target/release/etlscope,
# wine (Debian's wine/wine64) and x86_64-w64-mingw32-gcc (for the ProcessPrng
# stand-in that Wine 8.0 lacks: scripts/wine/bcryptprimitives.c, test-only).
set -uo pipefail
cd "$(dirname "$0")/.."
EXE=target/x86_64-pc-windows-gnu/${WINDOWS_PROFILE:-wine}/etlscope.exe
LINUX=target/release/etlscope
TRACES="${ETLSCOPE_REAL_TRACES:-../shared/traces}"
export WINEPREFIX="${WINEPREFIX:-$HOME/.cache/etlscope/wineprefix}"
export WINEDEBUG=-all
WINE=$(command -v wine64 || command -v wine)
passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAILED: $*"; failed=$((failed + 1)); }
finish() { echo "wine-smoke: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

[ -x "$LINUX" ] || { bad "missing $LINUX"; finish; }
[ -f "$EXE" ] || { bad "missing $EXE"; finish; }
[ -n "$WINE" ] || { bad "wine is not installed"; finish; }
x86_64-w64-mingw32-gcc -O2 -shared -o "$(dirname "$EXE")/bcryptprimitives.dll" \
    scripts/wine/bcryptprimitives.c scripts/wine/bcryptprimitives.def -ladvapi32 \
    || { bad "cannot build the ProcessPrng stand-in"; finish; }
mkdir -p "$WINEPREFIX"
"$WINE" wineboot -i >/dev/null 2>&1 || true

out=$(mktemp -d /tmp/etlscope-wine.XXXXXX)
# Same relative paths for both builds, so that any path they print is the same text.
same() { # NAME ARGS...: the two builds print the same bytes and both succeed
    local name=$1; shift
    "$LINUX" "$@" >"$out/linux" 2>"$out/linux.err"; local lrc=$?
    "$WINE" "$EXE" "$@" >"$out/win" 2>"$out/win.err"; local wrc=$?
    # Exit 1 with nothing on stdout or stderr: our exe prints every error it
    # returns, so Wine itself failed to start it (seen once in ~60 CI passes).
    # Run it once more with Wine's own errors shown, and say so.
    if [ "$wrc" -ne 0 ] && [ ! -s "$out/win" ] && [ ! -s "$out/win.err" ]; then
        echo "note: $name: wine exited $wrc with no output; running it again with WINEDEBUG=err+all"
        WINEDEBUG=err+all "$WINE" "$EXE" "$@" >"$out/win" 2>"$out/win.err"; wrc=$?
        [ -s "$out/win.err" ] && echo "note: wine's errors on the second run: $(head -c 300 "$out/win.err")"
    fi
    if [ "$lrc" -ne 0 ] || [ "$wrc" -ne 0 ]; then
        bad "$name: exit $lrc (linux) / $wrc (wine): $(head -c 300 "$out/win.err")"
    elif cmp -s "$out/linux" "$out/win"; then
        ok "$name ($(wc -c <"$out/win") bytes identical)"
    else
        bad "$name: output differs: $(diff "$out/linux" "$out/win" | head -5)"
    fi
}

same "info demo" info traces/explorer-overlay.etl
same "export demo cpu-sampled" export traces/explorer-overlay.etl --table cpu-sampled --group "Process,Module" --range 7-23
same "export demo images json" export traces/explorer-overlay.etl --table images --group "Image Path" --values "File Version,Image Size:max" --format json
if [ -d "$TRACES" ]; then
    for t in "$TRACES"/*.etl "$TRACES"/*.zip "$TRACES"/*.diagsession; do
        [ -f "$t" ] || continue
        same "info $(basename "$t")" info "$t"
    done
    same "export perfview processes" export "$TRACES/perfview-net452-x64.etl" --table processes --group "Process"
    same "export perfview file-io" export "$TRACES/perfview-net452-x64.etl" --table file-io --group "File Path" --filter Type=Create --format json
else
    bad "real traces folder $TRACES is missing"
fi

# `record` is built for Windows (ferrisetw); Wine has no ETW sessions, so only its help runs here.
if "$WINE" "$EXE" record --help >"$out/rec" 2>&1 && grep -q -- "--interval-ms" "$out/rec"; then
    ok "record --help (the Windows recorder is in the exe)"
else
    bad "record --help: $(head -c 300 "$out/rec")"
fi

# The server: loopback, a fresh data dir, one trace by reference.
port=$((20000 + RANDOM % 20000))
"$WINE" "$EXE" serve --addr "127.0.0.1:$port" --data-dir "$out/data" traces/explorer-overlay.etl \
    >"$out/serve.log" 2>&1 &
pid=$!
id=""
for _ in $(seq 1 600); do
    id=$(grep -o '/t/[0-9a-f]\{32\}' "$out/serve.log" | head -1 | cut -c4-)
    [ -n "$id" ] && curl -sf "http://127.0.0.1:$port/api/traces/$id" 2>/dev/null | grep -q '"ready"' && break
    sleep 0.2
done
if [ -z "$id" ]; then
    bad "serve printed no trace URL: $(head -c 300 "$out/serve.log")"
else
    sum=$(curl -sf "http://127.0.0.1:$port/api/traces/$id/summary")
    want=$("$LINUX" info --json traces/explorer-overlay.etl | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$')
    if echo "$sum" | grep -q "\"events\":$want\b"; then ok "serve: summary events $want"; else bad "serve: summary $sum (want events $want)"; fi
    table=$(curl -sf -X POST -H 'X-Etlscope: 1' -H 'content-type: application/json' \
        -d '{"columns":["Process"],"limit":100}' "http://127.0.0.1:$port/api/traces/$id/table")
    if echo "$table" | grep -q '"explorer.exe (6148)"'; then ok "serve: table by Process"; else bad "serve: table $(echo "$table" | head -c 300)"; fi
fi
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null

# Without --data-dir the library goes where Windows programs keep their data.
"$WINE" "$EXE" serve --addr "127.0.0.1:$((port + 1))" >"$out/serve2.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do grep -q "data in" "$out/serve2.log" && break; sleep 0.2; done
if grep -q 'data in C:\\users\\.*\\AppData\\Local\\etlscope' "$out/serve2.log"; then
    ok "default data dir is %LOCALAPPDATA%\\etlscope"
else
    bad "default data dir: $(head -c 300 "$out/serve2.log")"
fi
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
wineserver -k >/dev/null 2>&1 || true
rm -rf "$out"
finish
