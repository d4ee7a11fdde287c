"""Compare the reference decoder (tests/reference/etl_census.py, whose counts
are the expected values of the Rust tests) with the PyPI peers on every real
trace, so that the expected values are re-checked against third-party
readers on each CI run:

- dissect.etl on every file, and on every .etl member of the zip
  containers (.etl.zip, .diagsession) (it decompresses and reads Windows 7 header
  buffers): buffers, events, min/max timestamps, pid/tid sums, events per
  header family;
- etl-parser on every uncompressed file whose header buffer it can read
  (it skips that buffer and cannot decompress): events, providers, kernel
  hooks, provider ids, pid/tid sums and payload CRCs, via the reference's
  own --etl-parser comparison.

Prints "peers: N passed, M failed" and exits non-zero on any mismatch.
    python3 scripts/check-peers.py TRACES_DIR
"""
import glob
import os
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "reference"))
sys.path.insert(0, HERE)

import etl_census  # noqa: E402
from dissect_census import census as dissect_census  # noqa: E402

FAMILY = {"system32": "system", "system64": "system", "compact32": "system",
          "compact64": "system", "perfinfo32": "perfinfo", "perfinfo64": "perfinfo",
          "full32": "full", "full64": "full", "instance32": "instance",
          "instance64": "instance", "eventheader32": "eventheader",
          "eventheader64": "eventheader"}


def reference_view(c):
    fams = {}
    for t, n in c["header_types"].items():
        fams[FAMILY[t]] = fams.get(FAMILY[t], 0) + n
    d = c["digest"]
    return {"buffers": c["buffers"], "events": c["events"],
            "min_timestamp": c["min_timestamp"], "max_timestamp": c["max_timestamp"],
            "pid_sum": d["pid_sum"], "tid_sum": d["tid_sum"], "families": fams}


def container_members(folder, tmp):
    """Every .etl member of the folder's zip containers, extracted to tmp."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.zip")) + glob.glob(os.path.join(folder, "*.diagsession"))):
        with zipfile.ZipFile(path) as z:
            for i, info in enumerate(z.infolist()):
                if info.filename.lower().endswith(".etl"):
                    dst = os.path.join(tmp, f"{os.path.basename(path)}-{i}.etl")
                    with open(dst, "wb") as f:
                        f.write(z.read(info))
                    out.append((f"{os.path.basename(path)}:{info.filename}", dst))
    return out


def main(folder):
    with tempfile.TemporaryDirectory() as tmp:
        files = [(os.path.basename(p), p) for p in sorted(glob.glob(os.path.join(folder, "*.etl")))]
        if not files:
            print(f"peers: no .etl files in {folder}")
            return 1
        return check(files + container_members(folder, tmp))


def check(files):
    passed = failed = 0
    for name, path in files:
        ref = etl_census.census(path)
        if ref["errors"]:
            print(f"FAIL {name}: the reference reports {ref['errors'][:2]}")
            failed += 1
            continue
        ours, theirs = reference_view(ref), dissect_census(path)
        diff = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
        if diff:
            print(f"FAIL {name}: reference vs dissect.etl differ: {diff}")
            failed += 1
        else:
            print(f"ok   {name}: dissect.etl agrees ({ours['events']} events)")
            passed += 1
        if ref["compressed_buffers"] == 0 and saved_offset_set(path):
            verdict = etl_census.compare_with_peer(ref, etl_census.etl_parser_census(path))
            flags = [v for k, v in verdict.items() if k != "kernel_hooks_differ"]
            if all(flags) and header_only(verdict):
                print(f"ok   {name}: etl-parser agrees outside the header buffer")
                passed += 1
            else:
                print(f"FAIL {name}: etl-parser differs: {verdict}")
                failed += 1
    print(f"peers: {passed} passed, {failed} failed")
    return 1 if failed else 0


def saved_offset_set(path):
    """etl-parser reads the header buffer up to SavedOffset, which Windows 7
    files leave 0 (it then finds no header event and raises)."""
    with open(path, "rb") as f:
        head = f.read(8)
    return int.from_bytes(head[4:8], "little") != 0


def header_only(verdict):
    # Only the header buffer's own hooks may differ (etl-parser skips it).
    return all(k in ("0x0000", "0x0005", "0x0050", "0x0052")
               for k in verdict.get("kernel_hooks_differ", {}))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "traces")))
