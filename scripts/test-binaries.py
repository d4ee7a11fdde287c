#!/usr/bin/env python3
"""Run the test binaries a `cargo test --no-run --message-format=json...` build made,
several at a time.

`cargo test` runs its ~170 binaries one after another; most of them spend their time
waiting on the servers they start, so CI's two cores sat half idle for four minutes.
Each binary runs as cargo would run it (working directory and CARGO_MANIFEST_DIR of its
package, same arguments after `--`); its whole output is printed when it ends, under a
"Running" header like cargo's, so `^test result:` lines count as before. A binary that
ends without a "test result" line (crash, abort, timeout) gets a "test result: FAILED"
line of its own, so no failure goes uncounted.

  scripts/test-binaries.py BUILD.json [--jobs N] [--only NAME ...] [--skip NAME ...]
                           [--timeout SECS] [-- ARGS for every binary]
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

RUN_KINDS = {"lib", "bin", "test"}  # what `cargo test` runs; examples and benches are only built


def binaries(build_json):
    seen = set()
    with open(build_json, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
                continue
            if not msg["profile"]["test"] or not RUN_KINDS & set(msg["target"]["kind"]):
                continue
            exe = msg["executable"]
            if exe in seen:
                continue
            seen.add(exe)
            yield {
                "name": msg["target"]["name"],
                "kind": msg["target"]["kind"][0],
                "src": msg["target"]["src_path"],
                "dir": os.path.dirname(msg["manifest_path"]),
                "package": msg["package_id"],
                "exe": exe,
            }


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    p = argparse.ArgumentParser()
    p.add_argument("build_json")
    p.add_argument("--jobs", type=int, default=3)
    p.add_argument("--only", nargs="*", default=None, help="target names to run (default: all)")
    p.add_argument("--skip", nargs="*", default=[], help="target names not to run")
    p.add_argument("--timeout", type=float, default=900, help="seconds per binary before it is killed")
    args = p.parse_args(argv)

    todo = [b for b in binaries(args.build_json) if b["name"] not in args.skip]
    if args.only is not None:
        todo = [b for b in todo if b["name"] in args.only]
        missing = set(args.only) - {b["name"] for b in todo}
        if missing:
            print(f"test result: FAILED. 0 passed; {len(missing)} failed; no such test binary: {sorted(missing)}")
    # The server's integration tests are the long ones: start them first so that the
    # many short unit-test binaries fill the gaps at the end.
    todo.sort(key=lambda b: (b["kind"] != "test", not b["dir"].endswith("/server")))
    lock = threading.Lock()
    timings = []
    queue = list(todo)

    def run(b):
        env = dict(os.environ, CARGO_MANIFEST_DIR=b["dir"])
        started = time.monotonic()
        try:
            done = subprocess.run(
                [b["exe"], *extra], cwd=b["dir"], env=env, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, timeout=args.timeout,
            )
            out, rc = done.stdout.decode("utf-8", "replace"), done.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode("utf-8", "replace")
            out += f"\nkilled after {args.timeout:.0f} s\n"
            rc = -9
        took = time.monotonic() - started
        if rc != 0 and "test result:" not in out:
            out += f"\ntest result: FAILED. 0 passed; 1 failed; the binary exited {rc} without a result\n"
        with lock:
            timings.append((took, b["name"]))
            print(f"     Running {os.path.relpath(b['src'], b['dir'])} ({b['exe']}) [{took:.1f} s]")
            print(out, flush=True)

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                b = queue.pop(0)
            run(b)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    timings.sort(reverse=True)
    print(f"test-binaries: {len(timings)} binaries, {args.jobs} at a time; slowest: "
          + ", ".join(f"{n} {s:.0f} s" for s, n in timings[:8]))


if __name__ == "__main__":
    main()
