#!/usr/bin/env bash
# Builds seed corpora for the fuzz targets from the real traces, outside the
# repository (trace bytes must not be committed). Usage:
#   scripts/fuzz-seeds.sh [OUT_DIR]     (default /tmp/etlscope-fuzz-corpus)
# then e.g.: cd fuzz && cargo +nightly fuzz run etl_file OUT_DIR/etl_file
set -euo pipefail
cd "$(dirname "$0")/.."
traces="${ETLSCOPE_REAL_TRACES:-$(pwd)/../shared/traces}"
out="${1:-/tmp/etlscope-fuzz-corpus}"
[ -d "$traces" ] || { echo "no traces at $traces (set ETLSCOPE_REAL_TRACES)" >&2; exit 1; }
mkdir -p "$out"/{etl_file,buffer_events,xca,container}
cargo +nightly run -q --release --manifest-path fuzz/Cargo.toml --example make_seeds -- "$traces" "$out"
# container: small zips holding an .etl, minus the 4-byte local-file
# signature the target puts in front; plus a zero-filled "bomb".
python3 - "$out/container" "$out/etl_file" <<'PY'
import io, os, sys, zipfile
dst, etls = sys.argv[1], sys.argv[2]
def save(name, members, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for n, data in members:
            z.writestr(n, data)
    b = buf.getvalue()
    assert b[:4] == b"PK\x03\x04"
    open(os.path.join(dst, name), "wb").write(b[4:])
for f in sorted(os.listdir(etls))[:6]:
    data = open(os.path.join(etls, f), "rb").read()
    save(f + ".zip", [("trace/" + f, data)])
    save(f + ".stored.zip", [("readme.txt", b"x"), (f, data)], zipfile.ZIP_STORED)
save("bomb.zip", [("bomb.etl", bytes(8 << 20))])
# A multi-file trace (.diagsession-like): two .etl members and metadata.
small = sorted(os.listdir(etls))[:2]
if len(small) == 2:
    save("two-members.diagsession", [("meta.xml", b"<x/>")] +
         [(f"s/{f}", open(os.path.join(etls, f), "rb").read()) for f in small], zipfile.ZIP_STORED)
PY
for d in "$out"/*; do echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done
