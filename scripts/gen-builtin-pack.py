#!/usr/bin/env python3
"""Write the built-in schema pack (crates/etl/src/decode/schema/builtin.pack)
from the public manifests of repnz/etw-providers-docs: the manifests Windows'
own TDH gives for each provider (reconstructed the way PerfView does), per
Windows build. Only facts go into the pack, in our own format: names, field
layouts, maps. Each provider's sources are cited in the pack's notes.

Builds are read newest first, so an event (id, version) found in several
builds takes the newest layout; versions only older builds have (Windows 7's
layouts of Kernel-Process, ...) are kept beside them.

    scripts/gen-builtin-pack.py [--repo DIR] [--etlscope BIN] [--out FILE]

DIR is a git directory of etw-providers-docs (bare is fine; default
/work/.mirror/repnz+etw-providers-docs/repo, where `fetch` puts it); BIN an
etlscope binary (default target/debug/etlscope): its `manifests pack` does
the conversion, the same code `--manifests` runs.
"""
import argparse
import os
import subprocess
import sys
import tempfile

REPO_URL = "https://github.com/repnz/etw-providers-docs"
# Newest build first.
BUILDS = [
    "Manifests-Win10-18990",
    "Manifests-Win10-17134",
    "Manifests-Win10-10240",
    "Manifests-Win7-7600",
]
PROVIDERS = [
    "Microsoft-Windows-Kernel-Network",
    "Microsoft-Windows-Kernel-Process",
    "Microsoft-Windows-Kernel-File",
    "Microsoft-Windows-Kernel-Disk",
    "Microsoft-Windows-Kernel-Memory",
    "Microsoft-Windows-Kernel-Power",
    "Microsoft-Windows-Kernel-Processor-Power",
    "Microsoft-Windows-Win32k",
    "Microsoft-Windows-DxgKrnl",
    "Microsoft-Windows-HttpService",
    "Microsoft-Windows-PowerShell",
    "Microsoft-Windows-Winlogon",
    "Microsoft-Windows-Shell-Core",
    "Microsoft-Windows-Diagnostics-Performance",
    "Microsoft-Windows-Diagnostics-Networking",
]


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True
    ).stdout


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", default="/work/.mirror/repnz+etw-providers-docs/repo")
    ap.add_argument("--etlscope", default=os.path.join(root, "target/debug/etlscope"))
    ap.add_argument(
        "--out", default=os.path.join(root, "crates/etl/src/decode/schema/builtin.pack")
    )
    a = ap.parse_args()
    commit = git(a.repo, "rev-parse", "HEAD").decode().strip()
    notes = [
        "etlscope built-in schema pack: Windows' own manifest providers, written by "
        "scripts/gen-builtin-pack.py in etlscope's own format (facts only: names, "
        "field layouts, value maps).",
        f"Source: {REPO_URL} at {commit} (manifests reconstructed from TDH per "
        "Windows build); newest build first, older builds add the event versions "
        "only they have.",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for p in PROVIDERS:
            cited = []
            for b in BUILDS:
                path = f"{b}/{p}.xml"
                try:
                    data = git(a.repo, "show", f"HEAD:{path}")
                except subprocess.CalledProcessError:
                    continue
                f = os.path.join(tmp, f"{len(inputs):03d}-{b}-{p}.xml")
                with open(f, "wb") as out:
                    out.write(data)
                inputs.append(f)
                cited.append(path)
            if not cited:
                sys.exit(f"{p}: in no build of {a.repo}")
            notes.append(f"{p}: {', '.join(cited)}")
        cmd = [a.etlscope, "manifests", "pack", a.out]
        for n in notes:
            cmd += ["--note", n]
        if subprocess.run(cmd + inputs).returncode != 0:
            sys.exit("etlscope manifests pack failed (above)")


if __name__ == "__main__":
    main()
