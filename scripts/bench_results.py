#!/usr/bin/env python3
"""The one results table of `scripts/bench`: every area appends its figures to
the file named by $BENCH_RESULTS (one tab-separated line each: area, figure,
value, reference measured in the same run, ratio, target, met), and
`scripts/bench` prints them as one Markdown table at the end.

As a module (the Python bench scripts): `record(area, figure, value, ...)`.
As a command:
  bench_results.py record AREA FIGURE VALUE [REFERENCE [RATIO [TARGET [MET]]]]
  bench_results.py criterion AREA      copy criterion's output from stdin to
                                       stdout and record each benchmark's median
  bench_results.py table FILE          print FILE as the Markdown table
Without $BENCH_RESULTS, `record` does nothing (an area run on its own still
prints its figures).
"""
import os
import re
import sys

FIELDS = ["area", "figure", "latest", "reference, same run", "ratio", "target", "met"]

# Targets of the query engine's criterion benchmarks (issue 4), by name prefix, in ms.
QUERY_TARGETS_MS = [("regroup", 100), ("expand", 30), ("flame graph", 200), ("butterfly", 200),
                    ("timeline", 50)]
# Symbols (issue 5): 100k lookups after load within a second.
SYMBOL_TARGETS_MS = [("CppCon.pdb: 100k", 1000), ("many.pdb: 100k", 1000), ("Symbolizer", 1000)]


def clean(v):
    return str(v).replace("\t", " ").replace("\n", " ").replace("|", "/")


def record(area, figure, value, reference="", ratio="", target="", met=""):
    """Append one figure; `met` may be a bool (yes/no) or a string."""
    if isinstance(met, bool):
        met = "yes" if met else "no"
    path = os.environ.get("BENCH_RESULTS")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write("\t".join(clean(x) for x in (area, figure, value, reference, ratio, target, met)) + "\n")


def ms(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:,.1f} µs"
    return f"{seconds * 1000:,.1f} ms" if seconds < 10 else f"{seconds:,.2f} s"


UNIT_S = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_criterion(lines):
    """(name, median seconds) of each benchmark in criterion's text output: the
    name is on the `time:` line or the last non-blank line before it."""
    last = None
    for line in lines:
        m = re.search(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
        if m:
            name = line[: line.index("time:")].strip() or last
            if name and m.group(2) in UNIT_S:
                yield name, float(m.group(1)) * UNIT_S[m.group(2)]
            last = None
        elif line.strip() and not line.startswith(("Benchmarking", "Found", "  ", "change:", "Warning")):
            last = line.strip()


def criterion(area):
    lines = []
    for line in sys.stdin:
        sys.stdout.write(line)
        sys.stdout.flush()
        lines.append(line.rstrip("\n"))
    results = dict(parse_criterion(lines))
    targets = QUERY_TARGETS_MS + SYMBOL_TARGETS_MS
    for name, s in results.items():
        short = name.split("/", 1)[1] if "/" in name else name
        target = next((t for p, t in targets if short.startswith(p)), None)
        # A 1M figure is the reference of its 10M row, not a row of its own.
        if "/1M" in name and name.replace("/1M", "/10M") in results:
            continue
        ref, ratio = "", ""
        # Query benchmarks at 10M: the same query at 1M, measured in the same run, shows the growth.
        if "/10M" in name:
            small = results.get(name.replace("/10M", "/1M"))
            if small:
                ref, ratio = f"1M samples: {ms(small)}", f"{s / small:.1f}x (linear: 10x)"
        record(area, short.replace("/", ", "), ms(s), ref, ratio,
               f"<= {target} ms" if target else "", (s * 1000 <= target) if target else "")


def table(path):
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError:
        pass
    print("| " + " | ".join(FIELDS) + " |")
    print("|" + "---|" * len(FIELDS))
    for r in rows:
        r = (r + [""] * len(FIELDS))[: len(FIELDS)]
        print("| " + " | ".join(r) + " |")
    met = [r[6] for r in rows if len(r) > 6]
    print(f"\n{len(rows)} figures; {met.count('yes')} met their target, {met.count('no')} did not, "
          f"{len(rows) - met.count('yes') - met.count('no')} have none.")


def main(argv):
    if len(argv) >= 4 and argv[1] == "record":
        record(*argv[2:9])
    elif len(argv) == 3 and argv[1] == "criterion":
        criterion(argv[2])
    elif len(argv) == 3 and argv[1] == "table":
        table(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
