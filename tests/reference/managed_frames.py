#!/usr/bin/env python3
"""Independent reference (stdlib only) for managed frame names: which sample
frames lie in a CLR method's code and how WPA writes them,
`module!Namespace.Class::Method`.

Builds on model_reference.py (lifetimes, images, stack join: the figures the
model already matches) and decodes the CLR events itself, from the
runtime's manifest as TraceEvent's ClrTraceEventParser reads it
(microsoft/perfview src/TraceEvent/Parsers/ClrTraceEventParser.cs, read, not
copied; the same layout as etl-format.md F.3):

- MethodLoadVerbose (runtime 143) and MethodDCStartVerbose / MethodDCEndVerbose
  (rundown 143 / 144), plus the non-verbose 141 / 142 (no names): MethodID u64,
  ModuleID u64, MethodStartAddress u64, MethodSize u32, MethodToken u32,
  MethodFlags u32, then (verbose) MethodNamespace, MethodName, MethodSignature
  as UTF-16 strings. Every integer is 8 bytes wide whatever the bitness.
- ModuleLoad (runtime 152) and ModuleDCStart / ModuleDCEnd (rundown 153 /
  154): ModuleID u64, AssemblyID u64, ModuleFlags u32, Reserved1 u32,
  ModuleILPath, ModuleNativePath (UTF-16).

The module of a method is the image its code starts in, if its process has
one loaded there (NGEN'd code); else the ModuleID's native path's file name
if it has one, else its IL path's (TraceLog names a managed module by
NativePath, falling back to ILPath). A method without a namespace is its
name alone; a method whose ModuleID no module event names has no module.
None of this comes from crates/model.

Usage:
    python3 tests/reference/managed_frames.py ../shared/traces/perfview-net452-x64.etl

Prints JSON: counts over every frame of every sample (the frames
model_reference.py's frame census walks), the most frequent labels, and a
digest of all of them.
"""

import json
import os
import struct
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_reference as mr  # noqa: E402

METHOD_IDS = {mr.CLR_RUNTIME: (141, 143), mr.CLR_RUNDOWN: (141, 142, 143, 144)}
MODULE_IDS = {mr.CLR_RUNTIME: (152,), mr.CLR_RUNDOWN: (153, 154)}


def file_name(path):
    return path.replace("/", "\\").rsplit("\\", 1)[-1]


def owner_key(procs, pid, ts):
    inst = mr.process_of(procs, pid, ts)
    return ("kernel",) if inst is None else (inst["id"], inst["start"])


def clr_modules(events, procs):
    """(owner, ModuleID) -> the file name the module goes by."""
    out = {}
    for e in events:
        if e.family != "eventheader" or e.eid not in MODULE_IDS.get(e.guid, ()):
            continue
        b = e.payload
        module_id = struct.unpack_from("<Q", b, 0)[0]
        il, off = mr.utf16_z(b, 24)
        native, _ = mr.utf16_z(b, off)
        name = file_name(native or il)
        if name:
            out[(owner_key(procs, e.pid, e.ts), module_id)] = name
    return out


def clr_methods(events, procs, images, modules):
    """owner -> [(start, end, label)] of every method with code."""
    by_owner = defaultdict(list)
    for i in images:
        by_owner[i["owner"]].append(i)
    out = defaultdict(list)
    for e in events:
        if e.family != "eventheader" or e.eid not in METHOD_IDS.get(e.guid, ()):
            continue
        b = e.payload
        if len(b) < 36:
            continue
        _mid, module_id, start, size = struct.unpack_from("<QQQI", b, 0)
        if size == 0:
            continue
        ns = name = ""
        if e.eid in (143, 144):
            ns, off = mr.utf16_z(b, 36)
            name, _ = mr.utf16_z(b, off)
        owner = owner_key(procs, e.pid, e.ts)
        image = next((i for i in by_owner.get(owner, ())
                      if i["base"] <= start < i["base"] + i["size"]
                      and (i["load"] is None or i["load"] <= e.ts)
                      and (i["unload"] is None or e.ts <= i["unload"])), None)
        module = file_name(image["path"]) if image else modules.get((owner, module_id))
        method = "%s::%s" % (ns, name) if ns else name
        out[owner].append((start, start + size, "%s!%s" % (module, method) if module else method))
    return out


def report(path):
    events = mr.read_events(path)
    P = 8
    procs, threads = mr.build_lifetimes(events)
    images, _, _ = mr.image_instances(events, procs)
    targets, _ = mr.stack_targets(events, P)
    modules = clr_modules(events, procs)
    methods = clr_methods(events, procs, images, modules)
    samples = [e for e in events if mr.is_kernel(e) and e.hook == 0x0F2E]
    labels = Counter()
    frames = set()
    ambiguous = set()
    for s in samples:
        tid = mr.u32(s.payload, s.psize)
        inst, exact = threads.find(tid, s.ts)
        if inst is None:
            continue
        pinst = mr.process_of(procs, inst["pid"], s.ts if exact else (inst["start"] or s.ts))
        owner = ("kernel",) if pinst is None else (pinst["id"], pinst["start"])
        tgt = targets.get((s.ts, tid))
        if tgt and tgt["cpus"]:
            addrs = (tgt["kernel"] or []) + (tgt["user"] or [])
        else:
            addrs = [mr.ptr(s.payload, 0, s.psize)]
        for a in addrs:
            hits = {lab for st, en, lab in methods.get(owner, ()) if st <= a < en}
            if not hits:
                continue
            if len(hits) > 1:
                ambiguous.add((owner, a))
            lab = min(hits)
            labels[lab] += 1
            frames.add((owner, a, lab))
    digest = 0
    for lab, n in labels.items():
        digest = (digest + n * mr.fnv1a64(lab)) & mr.ec.MASK64
    with_module = {f for f in frames if "!" in f[2]}
    return {
        "file": os.path.basename(path),
        "clr_modules": len(modules),
        "clr_methods_with_code": sum(len(v) for v in methods.values()),
        "managed_frames_over_all_samples": sum(labels.values()),
        "managed_frames_with_module_over_all_samples": sum(
            n for lab, n in labels.items() if "!" in lab),
        "distinct_managed_frames": len(frames),
        "distinct_managed_frames_with_module": len(with_module),
        "ambiguous_addresses": len(ambiguous),
        "distinct_labels": len(labels),
        "top_labels": sorted(labels.items(), key=lambda kv: (-kv[1], kv[0]))[:12],
        "label_digest": "%#018x" % digest,
        "frames_per_module": dict(sorted(Counter(
            lab.split("!", 1)[0] if "!" in lab else "" for lab in labels.elements()).items())),
    }


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(report(argv[0]), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
