#!/usr/bin/env python3
"""SQL over a trace (docs/BENCHMARKS.md, area sql; issue 38): serves FILE,
then times (median of 5, HTTP included) two SQL queries side by side with
the table API's answer to the same question, and checks both answers agree:

  samples per process:  SELECT process, count(*) FROM cpu_sampled GROUP BY 1
                        vs POST /table {"columns": ["Process"]}
  stacks with a module: SELECT count(*) FROM cpu_sampled WHERE stack_contains(stack, 'MODULE!')
                        vs POST /butterfly {"kind": "module"} (its inclusive count)

The module is the heaviest of the Module column (as in area flame).

  library over 1,000 summaries: the trace's summary (issue 38) copied 999
                        times under other ids into the catalog, then a
                        library query (CPU of the heaviest module per trace)
                        by POST /api/sql vs the same query by Python's
                        sqlite3 on the same file, answers compared

usage: scripts/bench-sql.py BIN FILE
"""
import json, os, re, shutil, sqlite3, statistics, subprocess, sys, tempfile, time, urllib.error, urllib.request

from bench_results import record

binary, path = sys.argv[1], sys.argv[2]


def call(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                 headers={"content-type": "application/json", "x-etlscope": "1"})
    try:
        with urllib.request.urlopen(req, timeout=900) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:  # say what the server said
        raise SystemExit(f"{url}: HTTP {e.code}: {e.read()[:500]!r}")


def timed(f, n=5):
    ts, out = [], None
    for _ in range(n):
        t = time.monotonic()
        out = f()
        ts.append(time.monotonic() - t)
    return statistics.median(ts) * 1000, out


d = tempfile.mkdtemp(prefix="etlscope-sql-")
# The time and row limits raised so that a 10M-sample scan is not cut; the memory
# limit is the default 256 MiB (the GROUP BY scans in the column's order, 40 MB).
p = subprocess.Popen([binary, "serve", "--addr", "127.0.0.1:0", "--data-dir", d, "--sql-timeout-secs", "600",
                      "--sql-max-rows", "1000000", path], stdout=subprocess.PIPE, text=True)
try:
    out = ""
    while not re.search(r"/t/[0-9a-f]{32}", out):
        line = p.stdout.readline()
        if not line:
            raise SystemExit("server exited: " + out)
        out += line
    tid = re.search(r"/t/([0-9a-f]{32})", out).group(1)
    base = re.search(r"serving on (http://[^/\s]+)/", out).group(1)
    api = f"{base}/api/traces/{tid}"
    while call(api)["status"] != "ready":
        time.sleep(0.2)
    samples = call(api + "/sql", {"sql": "SELECT value FROM trace_info WHERE key = 'samples'"})["rows"][0][0]
    name = f"{samples / 1e6:.1f}M samples" if samples >= 1e6 else f"{samples:,} samples"

    sql_ms, sql = timed(lambda: call(api + "/sql", {"sql": "SELECT process, count(*) FROM cpu_sampled GROUP BY 1"}))
    table_ms, table = timed(lambda: call(api + "/table", {"columns": ["Process"], "path": [],
                                                          "limit": 10000}))
    by_sql = {r[0]: r[1] for r in sql["rows"]}
    by_table = {r["label"]: r["count"] for r in table["rows"]}
    same = by_sql == by_table
    print(json.dumps({"per process": {"sql ms": round(sql_ms, 1), "table ms": round(table_ms, 1),
                                      "processes": len(by_sql), "same answer": same}}), flush=True)
    record("sql", f"{name}: SELECT process, count(*) FROM cpu_sampled GROUP BY 1, median of 5", f"{sql_ms:,.1f} ms",
           f"table API (Process): {table_ms:,.1f} ms", f"{sql_ms / table_ms:.2f}x" if table_ms else "",
           "same answer", same)

    mods = call(api + "/table", {"columns": ["Module"], "path": [], "limit": 5,
                                 "sort": {"by": "weight", "descending": True}})["rows"]
    module = next(r["label"] for r in mods if r["label"] not in ("?", "n/a"))
    q = f"SELECT count(*) FROM cpu_sampled WHERE stack_contains(stack, '{module.replace(chr(39), chr(39) * 2)}!')"
    sc_ms, sc = timed(lambda: call(api + "/sql", {"sql": q}))
    bf_ms, bf = timed(lambda: call(api + "/butterfly", {"kind": "module", "target": module, "by": "module"}))
    n_sql, n_bf = sc["rows"][0][0], bf["inclusive"]["count"]
    same = n_sql == n_bf
    print(json.dumps({"stack_contains": {"module": module, "sql ms": round(sc_ms, 1), "butterfly ms": round(bf_ms, 1),
                                         "sql count": n_sql, "butterfly count": n_bf}}), flush=True)
    record("sql", f"{name}: stack_contains(stack, '{module}!') count, median of 5", f"{sc_ms:,.1f} ms",
           f"butterfly of the module: {bf_ms:,.1f} ms", f"{sc_ms / bf_ms:.2f}x" if bf_ms else "",
           "same answer", same)

    # The library: 1,000 summaries, the trace's own and 999 copies.
    lib = base + "/api/sql"
    while call(lib, {"sql": "SELECT count(*) FROM library_traces"})["rows"][0][0] < 1:
        time.sleep(0.2)
    db = sqlite3.connect(os.path.join(d, "catalog.sqlite"), timeout=30)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'library_%'")]
    t0 = time.monotonic()
    with db:
        for k in range(1, 1000):
            copy = f"{tid[:-4]}{k:04d}"
            for t in tables:
                cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
                rest = ", ".join(cols[1:])
                db.execute(f"INSERT INTO {t} (trace, {rest}) SELECT ?, {rest} FROM {t} WHERE trace = ?", (copy, tid))
    copy_s = time.monotonic() - t0
    rows = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}
    q = (f"SELECT trace, sum(inclusive_weight_ns) AS ns, sum(inclusive_samples) AS samples FROM library_cpu_modules "
         f"WHERE module = '{module.replace(chr(39), chr(39) * 2)}' GROUP BY trace ORDER BY ns DESC, trace")
    lib_ms, lib_ans = timed(lambda: call(lib, {"sql": q, "max_rows": 10000}))

    def plain():
        return db.execute(q).fetchall()
    ref_ms, ref_ans = timed(plain)
    same = [list(r) for r in ref_ans] == lib_ans["rows"]
    print(json.dumps({"library": {"summaries": rows.get("library_traces"), "rows": rows, "copy s": round(copy_s, 1),
                                  "api ms": round(lib_ms, 1), "python sqlite3 ms": round(ref_ms, 1),
                                  "answer rows": len(lib_ans["rows"]), "same answer": same}}), flush=True)
    record("sql", f"library query over {rows.get('library_traces'):,} trace summaries "
                  f"({rows.get('library_cpu_modules'):,} module rows): CPU in {module} per trace, median of 5",
           f"{lib_ms:,.1f} ms", f"python sqlite3 on the same file: {ref_ms:,.1f} ms",
           f"{lib_ms / ref_ms:.2f}x" if ref_ms else "", "same answer", same)
    db.close()
finally:
    p.terminate()
    p.wait()
    shutil.rmtree(d, ignore_errors=True)
