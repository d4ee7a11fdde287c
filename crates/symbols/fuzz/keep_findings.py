#!/usr/bin/env python3
"""Turn fuzz artifacts into regression inputs for tests/malformed.rs.

Each artifact is replayed with the pdb_open fuzz binary to learn where it
panics; one input is kept per panic site (or per artifact for hangs and
OOMs). A finding the size of a fixture PDB is stored as a byte patch
against it (text: `base PATH`, then `OFFSET NEWBYTE` hex lines) when that
is smaller than the file; anything else is copied as is.
"""
import hashlib, pathlib, re, subprocess, sys

here = pathlib.Path(__file__).resolve().parent
fixtures = here.parent.parent.parent / "fixtures" / "symbols"
bases = {"fixture.pdb": fixtures / "fixture.pdb", "variant/fixture.pdb": fixtures / "variant" / "fixture.pdb"}
out = here.parent / "tests" / "fuzz_regressions"
out.mkdir(exist_ok=True)
binary = here / "target" / "x86_64-unknown-linux-gnu" / "release" / "pdb_open"


def site(art):
    try:
        r = subprocess.run([str(binary), str(art)], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "timeout-" + art.name
    m = re.search(rb"panicked at [^\n]*?([\w.-]+/src/[\w/.]+:\d+):\d+", r.stderr)
    return m.group(1).decode() if m else "other-" + art.name


def encode(data):
    """(file name suffix, bytes to write) for the smallest representation."""
    best = None
    for name, path in bases.items():
        base = path.read_bytes()
        if len(base) == len(data):
            diff = [(i, b) for i, (a, b) in enumerate(zip(base, data)) if a != b]
            text = ("\n".join([f"base {name}"] + [f"{i:x} {b:02x}" for i, b in diff]) + "\n").encode()
            if best is None or len(text) < len(best[1]):
                best = (".patch", text)
    if best is None or len(best[1]) >= len(data):
        best = (".bin", data)
    return best


kept = {}
for art in sorted((here / "artifacts").glob("*/*")):
    data = art.read_bytes()
    s = site(art)
    suffix, blob = encode(data)
    if s not in kept or len(blob) < len(kept[s][1]):
        kept[s] = (suffix, blob)
for s, (suffix, blob) in sorted(kept.items()):
    label = re.sub(r"[^\w]+", "_", s.split("/src/")[-1] if "/src/" in s else s).strip("_")
    crate = s.split("/src/")[0] if "/src/" in s else "misc"
    name = f"{crate}-{label}-{hashlib.sha1(blob).hexdigest()[:8]}{suffix}"
    (out / name).write_bytes(blob)
    print(f"{name}: {len(blob)} bytes ({s})")
