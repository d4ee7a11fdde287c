#!/usr/bin/env python3
"""Independent model reference (stdlib only) for the trace-model acceptance tests.

Reads buffers and event headers with etl_census.py (the independent census
reader) and decodes the kernel and KernelTraceControl payloads it needs from
../shared/docs/etl-format.md sections C, D and E. It was written without
reading crates/model, so its figures can serve as expected values there.

Every rule below names its source: a line of ../shared/docs/etl-format.md
("fmt:NNN"), PerfView's TraceEvent (microsoft/perfview src/TraceEvent,
"TE:file:line" at the commit read in 2026-12), or what the trace's own bytes
show (then the comment says which events). None comes from crates/model.

Usage:
    python3 tests/reference/model_reference.py samples FILE   # perfview-net452-x64.etl
    python3 tests/reference/model_reference.py rundown FILE   # shutdown-perfdiag-kernel.etl

Both print JSON. Times are raw event timestamps (the tests convert them
with the trace clock).
"""

import bisect
import json
import os
import struct
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import etl_census as ec  # noqa: E402

KTC = "b3e675d7-2554-4f18-830b-2762732560de"
CLR_RUNTIME = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
CLR_RUNDOWN = "a669021c-c450-4609-a035-5af59af4df18"
OPEN = None


class Ev:
    __slots__ = ("family", "hook", "ts", "guid", "opcode", "eid", "cpu", "psize",
                 "pid", "tid", "version", "payload", "seq")


def read_events(path):
    """Every event in file order (buffers in file order, events in buffer order)."""
    with open(path, "rb") as f:
        data = f.read()
    out = []
    seq = 0
    for _index, off, h in ec.walk_buffers(data):
        p = ec.buffer_payload(data, off, h)
        for raw in ec.walk_events(p):
            pid, tid, version, _lvl, _task, _kw, opcode, eid, _ext, payload = ec.event_fields(p, raw)
            e = Ev()
            e.family = raw["family"]
            e.hook = raw.get("hook")
            e.ts = raw["ts"]
            e.guid = raw.get("guid")
            e.opcode = opcode
            e.eid = eid
            e.cpu = h["cpu"]
            e.psize = ec.HEADER_TYPES[p[raw["offset"] + 2]][1]
            e.pid, e.tid, e.version = pid, tid, version
            e.payload = bytes(payload)
            e.seq = seq
            seq += 1
            out.append(e)
    return out


# --------------------------------------------------------------------------
# Payload helpers


def ptr(b, off, P):
    return struct.unpack_from("<Q" if P == 8 else "<I", b, off)[0]


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def ansi_z(b, off):
    end = b.find(b"\0", off)
    end = len(b) if end < 0 else end
    return b[off:end].decode("latin-1"), end + 1


def utf16_z(b, off):
    end = off
    while end + 1 < len(b) and b[end:end + 2] != b"\0\0":
        end += 2
    return b[off:end].decode("utf-16-le", "replace"), end + 2


def kernel_address(a, P):
    return a >= 0xFFFF800000000000 if P == 8 else 0x80000000 <= a <= 0xFFFFFFFF


# --------------------------------------------------------------------------
# Kernel events (section C)

PROCESS_KINDS = {0x0301: "start", 0x0302: "end", 0x0303: "dcstart", 0x0304: "dcend",
                 0x0327: "defunct"}
THREAD_KINDS = {0x0501: "start", 0x0502: "end", 0x0503: "dcstart", 0x0504: "dcend"}
IMAGE_KINDS = {0x030A: "load", 0x140A: "load", 0x1402: "unload", 0x1403: "dcstart",
               0x1404: "dcend"}


def is_kernel(e):
    return e.family in ("system", "compact", "perfinfo")


def process_payload(e):
    """C.1 (versions 3 and 4)."""
    b, P = e.payload, e.psize
    key = ptr(b, 0, P)
    pid, ppid, session = struct.unpack_from("<III", b, P)
    sid = 2 * P + 16 + (4 if e.version >= 4 else 0)
    if u32(b, sid) == 0:
        name_off = sid + 4
    else:
        n = b[sid + 2 * P + 1]
        name_off = sid + 2 * P + 8 + 4 * n
    name, nxt = ansi_z(b, name_off)
    cmd, _ = utf16_z(b, nxt)
    return {"key": key, "pid": pid, "ppid": ppid, "session": session, "name": name, "cmd": cmd}


def image_payload(e):
    """C.3: base, size, pid, checksum, timestamp, file name at HostOffset(44,3)."""
    b, P = e.payload, e.psize
    base, size = ptr(b, 0, P), ptr(b, P, P)
    pid, checksum, stamp = struct.unpack_from("<III", b, 2 * P)
    path, _ = utf16_z(b, 56 if P == 8 else 44)
    return {"base": base, "size": size, "pid": pid, "checksum": checksum, "stamp": stamp,
            "path": path}


# --------------------------------------------------------------------------
# Lifetimes (section E.1 / E.2)


class Lifetimes:
    """Instances of one id (pid or tid) in time order: [start, end] raw ts, None = open."""

    def __init__(self):
        self.by_id = defaultdict(list)

    def feed(self, ident, kind, ts, info):
        lst = self.by_id[ident]
        cur = lst[-1] if lst and lst[-1]["end_kind"] is None else None
        if (kind == "defunct" and cur is None and lst and lst[-1]["end_kind"] == "end"
                and info.get("key") == lst[-1].get("key")):
            # Process/Defunct (hook 0x0327, opcode 39, fmt:194; TE
            # Parsers/KernelTraceEventParser.cs:545 "Defunct") is logged at
            # rundown for a process that has exited while its object is still
            # referenced. Its UniqueProcessKey (the EPROCESS address, fmt:205)
            # is the ended instance's, so it is that process (fmt:220: key by
            # pid and start, or UniqueProcessKey), not another. Its end stays
            # the End's.
            lst[-1]["kinds"].append(kind)
            return lst[-1]
        if kind == "start":
            # pids and tids are reused (fmt:220): a Start while an instance
            # of the id is open ends that one (its End was not logged).
            if cur is not None and cur["start_kind"] is not None:
                cur["end_kind"] = "implied"  # reused id with no end event
                cur["end"] = ts
            if cur is not None and cur["start_kind"] is None:
                cur = None
            inst = {"id": ident, "start": ts, "end": OPEN, "start_kind": "start",
                    "end_kind": None, "kinds": ["start"], **info}
            lst.append(inst)
            return inst
        if cur is None:
            # First sight of an instance already running (rundown: DCStart
            # for processes alive at the start, DCEnd at the end, fmt:218) or
            # ending.
            inst = {"id": ident, "start": OPEN, "end": OPEN,
                    "start_kind": kind if kind in ("dcstart", "dcend") else None,
                    "end_kind": None, "kinds": [], **info}
            lst.append(inst)
            cur = inst
        cur["kinds"].append(kind)
        # Each event of the instance carries the same payload fields (C.1):
        # a later one fills what an earlier one left empty.
        for k, v in info.items():
            if v not in (None, "", 0) or k not in cur:
                cur[k] = v
        if kind in ("end", "defunct"):
            cur["end"] = ts
            cur["end_kind"] = kind
        elif kind == "dcend":
            cur["dcend"] = True
        return cur

    def find(self, ident, ts):
        """(instance, exact) alive at ts, else the nearest one in time (fmt:382-384:
        a sample belongs to the lifetime containing it; the few just outside
        every lifetime go to the nearest one)."""
        best = None
        for inst in self.by_id.get(ident, []):
            s, e = inst["start"], inst["end"]
            if (s is None or s <= ts) and (e is None or ts <= e):
                return inst, True
            d = (s - ts) if (s is not None and ts < s) else (ts - e)
            if best is None or d < best[0]:
                best = (d, inst)
        return (best[1], False) if best else (None, False)


def build_lifetimes(events):
    procs, threads = Lifetimes(), Lifetimes()
    for e in sorted((e for e in events if is_kernel(e)), key=lambda e: (e.ts, e.seq)):
        if e.hook in PROCESS_KINDS:
            p = process_payload(e)
            procs.feed(p["pid"], PROCESS_KINDS[e.hook], e.ts,
                       {"name": p["name"], "key": p["key"], "ppid": p["ppid"]})
        elif e.hook in THREAD_KINDS:
            # Payload ProcessId/ThreadId, not the header's (fmt:232-233).
            pid, tid = struct.unpack_from("<II", e.payload, 0)
            kind = THREAD_KINDS[e.hook]
            # tid 0: the idle thread of each CPU (Idle = pid 0, fmt:385; its
            # samples share tid 0 across CPUs, fmt:301): one instance in pid 0.
            if tid == 0 and threads.by_id.get(0) and kind == "start":
                continue
            threads.feed(tid, kind, e.ts, {"pid": pid})
    return procs, threads


def process_of(procs, pid, ts):
    inst, _ = procs.find(pid, ts)
    return inst


# --------------------------------------------------------------------------
# Stacks (section C.5)


def stack_targets(events, P, inline_at_own_time=True):
    """Stacks by target (event_ts, tid): the CPUs of their stack events and the
    kernel and user halves (leaf-first addresses), plus join statistics.

    C.5 rule 4: the user half of a thread cannot change while it is in the
    kernel, and is logged once when it leaves, under the EventTimeStamp of the
    excursion's first event; that user-only fragment therefore also completes
    every kernel-only stack the thread logged since its previous exit. (Seen
    in the bytes: tid 3680 logs a kernel key for (T-583), a kernel key for its
    sample at T, then one user key for (T-583) only.)
    """
    defs = defaultdict(list)  # (kernel?, key) -> [(ts, frames)] in time order
    fragments = []  # (arrival ts, seq, event ts, tid, cpu, half, frames, pure user)
    unresolved = 0
    nrefs = ninline = 0
    for e in events:
        if not is_kernel(e):
            continue
        b = e.payload
        if e.hook in (0x1823, 0x1824):
            key = ptr(b, 0, P)
            n = len(b) // P - 1
            frames = [ptr(b, P * (i + 1), P) for i in range(n)]
            last = frames[-1] if frames else 0
            # Kernel or user key table by the definition's last frame (fmt:305).
            defs[(kernel_address(last, P), key)].append((e.ts, frames))
    for v in defs.values():
        v.sort(key=lambda d: d[0])
    def_times = {k: [d[0] for d in v] for k, v in defs.items()}
    for e in events:
        if not is_kernel(e):
            continue
        b = e.payload
        if e.hook == 0x1820:
            ninline += 1
            ets, _spid, stid = struct.unpack_from("<qII", b, 0)
            n = (len(b) - 16) // P
            frames = [ptr(b, 16 + i * P, P) for i in range(n)]
            kern = bool(frames) and kernel_address(frames[-1], P)
            pure_user = bool(frames) and not any(kernel_address(a, P) for a in frames)
            arrival = e.ts if inline_at_own_time else ets
            fragments.append((arrival, e.seq, ets, stid, e.cpu, "kernel" if kern else "user",
                              frames, pure_user))
        elif e.hook in (0x1825, 0x1826):
            nrefs += 1
            ets, _spid, stid = struct.unpack_from("<qII", b, 0)
            kern = e.hook == 0x1825
            key = ptr(b, 16, P)
            lst = defs.get((kern, key), [])
            # The next definition of the key at or after the reference (fmt:303-304).
            i = bisect.bisect_left(def_times.get((kern, key), []), e.ts)
            if i == len(lst):
                unresolved += 1
                continue
            fragments.append((e.ts, e.seq, ets, stid, e.cpu, "kernel" if kern else "user",
                              lst[i][1], not kern))
    fragments.sort(key=lambda f: (f[0], f[1]))
    targets = defaultdict(lambda: {"cpus": set(), "kernel": None, "user": None,
                                   "user_from_exit": None})
    open_in_kernel = defaultdict(list)  # tid -> targets waiting for a user half
    for _ts, _seq, ets, tid, cpu, half, frames, pure_user in fragments:
        t = targets[(ets, tid)]
        t["cpus"].add(cpu)
        t[half] = frames
        if half == "kernel":
            open_in_kernel[tid].append((ets, tid))
        elif pure_user:
            for key in open_in_kernel.pop(tid, []):
                if targets[key]["user_from_exit"] is None:
                    targets[key]["user_from_exit"] = frames
    for t in targets.values():
        if t["user"] is None:
            t["user"] = t["user_from_exit"]
    return targets, {"inline": ninline, "key_refs": nrefs,
                     "key_defs": sum(len(v) for v in defs.values()),
                     "unresolved_key_refs": unresolved}


# --------------------------------------------------------------------------
# Images and KernelTraceControl (sections C.3, D)


def image_instances(events, procs):
    """Image instances per (process instance, base) with KTC info joined by timestamp."""
    by_key = {}
    by_ts = defaultdict(list)
    order = []
    for e in sorted((e for e in events if is_kernel(e) and e.hook in IMAGE_KINDS),
                    key=lambda e: (e.ts, e.seq)):
        im = image_payload(e)
        kind = IMAGE_KINDS[e.hook]
        # Kernel images have pid 0 and serve every process (fmt:270-271);
        # loads and unloads pair by (process, base), not path (fmt:269).
        kernel = im["pid"] == 0 or kernel_address(im["base"], e.psize)
        owner = None if kernel else process_of(procs, im["pid"], e.ts)
        okey = ("kernel",) if owner is None else (owner["id"], owner["start"])
        k = (okey, im["base"])
        inst = by_key.get(k)
        if kind == "unload":
            if inst is not None and inst["unload"] is None:
                inst["unload"] = e.ts
                inst["kinds"].append(kind)
            continue
        if inst is None or (kind == "load" and inst["unload"] is not None):
            inst = {"owner": okey, "pid": im["pid"], "base": im["base"], "size": im["size"],
                    "path": im["path"], "checksum": im["checksum"], "stamp": im["stamp"],
                    "load": e.ts if kind == "load" else None, "unload": None, "kinds": [],
                    "file_version": None, "pdb": None, "original_file_name": None,
                    "kernel": kernel}
            by_key[k] = inst
            order.append(inst)
        inst["kinds"].append(kind)
        by_ts[e.ts].append(inst)
    # KernelTraceControl events describe the image event of the same
    # timestamp (fmt:369-372; TE TraceLog.cs:1557-1580 pairs by equal QPC):
    # ImageID and DbgID_RSDS also by ImageBase, FileVersion by ImageSize.
    unmatched = Counter()
    by_time_only = []
    for e in events:
        if e.guid != KTC or e.family not in ("full", "instance"):
            continue
        b, P = e.payload, e.psize
        cands = by_ts.get(e.ts, [])
        if e.opcode == 0:
            base = ptr(b, 0, P)
            name, _ = utf16_z(b, 2 * P + 8)
            hit = [i for i in cands if i["base"] == base]
            for i in hit:
                i["original_file_name"] = i["original_file_name"] or name
        elif e.opcode == 36:
            base = ptr(b, 0, P)
            guid = ec.guid_str(b, P + 4)
            age = u32(b, P + 20)
            pdb, _ = ansi_z(b, P + 24)
            hit = [i for i in cands if i["base"] == base]
            for i in hit:
                i["pdb"] = {"guid": guid, "age": age, "name": pdb}
        elif e.opcode == 64:
            size, _stamp = struct.unpack_from("<II", b, 0)
            off = 8
            strs = []
            for _ in range(10):
                s, off = utf16_z(b, off)
                strs.append(s)
            hit = [i for i in cands if i["size"] == size]
            if not hit and len(cands) == 1:
                # ImageSize here is not always the loaded size (vmbushid.sys:
                # 22,144 vs 0x6000); the timestamp alone pairs them (section D).
                hit = cands
                by_time_only.append((cands[0]["path"], strs[2]))
            for i in hit:
                i["file_version"] = {
                    "original_file_name": strs[0], "file_description": strs[1],
                    "file_version": strs[2], "product_name": strs[5],
                    "company_name": strs[6], "product_version": strs[7]}
        else:
            continue
        if not hit:
            unmatched[e.opcode] += 1
    return order, dict(unmatched), by_time_only


# --------------------------------------------------------------------------
# CLR method ranges (section F.3), for the named-leaf share


def clr_ranges(events):
    """JIT code ranges per process from MethodLoadVerbose and the rundown's
    MethodDC*Verbose events (fmt:427-442, F.3; E.4 fmt:388-390)."""
    ranges = defaultdict(list)  # pid -> [(start, end, name)]
    for e in events:
        if e.family != "eventheader" or e.guid not in (CLR_RUNTIME, CLR_RUNDOWN):
            continue
        if e.guid == CLR_RUNTIME and e.eid not in (141, 143):
            continue
        if e.guid == CLR_RUNDOWN and e.eid not in (141, 142, 143, 144):
            continue
        b = e.payload
        if len(b) < 36:
            continue
        start, size = struct.unpack_from("<QI", b, 16)
        if size:
            ranges[e.pid].append((start, start + size))
    for v in ranges.values():
        v.sort()
    return ranges


def in_ranges(lst, a):
    """Whether address a falls in one of the sorted [start, end) ranges."""
    i = bisect.bisect_right(lst, (a, float("inf")))
    # Ranges can overlap (rundown repeats loads): look a few back.
    return any(s <= a < e for s, e in lst[max(0, i - 64):i])


# --------------------------------------------------------------------------
# Reports


def fnv1a64(text):
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & ec.MASK64
    return h


def frame_census(samples, threads, procs, targets, images, P):
    """Every sample's frames (stack, else the IP) named `file!0xRVA` after the
    image of its process (else a kernel image) alive at the sample's time and
    covering the address, or `0xADDRESS` when none does (fmt:386-387, E.3). Returns frames
    per module (lower-case file name, "" for raw addresses) and a digest: the
    sum mod 2^64 of FNV-1a-64 of each sample's leaf-first labels joined by ';'.
    """
    by_owner = defaultdict(list)
    for i in images:
        by_owner[i["owner"]].append(i)

    def alive(i, t):
        return (i["load"] is None or i["load"] <= t) and (i["unload"] is None or t <= i["unload"])

    def name(a, owner, t):
        for key in (owner, ("kernel",)):
            for i in by_owner.get(key, ()):
                if i["base"] <= a < i["base"] + i["size"] and alive(i, t):
                    f = i["path"].replace("/", "\\").rsplit("\\", 1)[-1].lower()
                    return f, "%s!%#x" % (f, a - i["base"])
        return "", "%#x" % a

    per_module = Counter()
    digest = 0
    deep = 0  # samples with two frames or more
    for s in samples:
        tid = u32(s.payload, s.psize)
        inst, exact = threads.find(tid, s.ts)
        if inst is None:
            continue
        pinst = process_of(procs, inst["pid"], s.ts if exact else (inst["start"] or s.ts))
        owner = ("kernel",) if pinst is None else (pinst["id"], pinst["start"])
        tgt = targets.get((s.ts, tid))
        if tgt and tgt["cpus"]:
            frames = (tgt["kernel"] or []) + (tgt["user"] or [])
        else:
            frames = [ptr(s.payload, 0, s.psize)]
        labels = []
        deep += len(frames) >= 2
        for a in frames:
            m, lab = name(a, owner, s.ts)
            per_module[m] += 1
            labels.append(lab)
        digest = (digest + fnv1a64(";".join(labels))) & ec.MASK64
    return dict(sorted(per_module.items())), digest, deep


def module_key(i):
    name = i["path"].replace("/", "\\").rsplit("\\", 1)[-1].lower()
    return (name, i["size"], i["stamp"], i["checksum"])


def label(inst):
    return "Unknown" if inst is None else "%s (%d)" % (inst.get("name") or "", inst["id"])


def samples_report(path):
    events = read_events(path)
    P = 8
    procs, threads = build_lifetimes(events)
    samples = [e for e in events if is_kernel(e) and e.hook == 0x0F2E]
    by_process, by_thread = Counter(), Counter()
    outside, unknown = [], Counter()
    proc_of_thread = {}
    for s in samples:
        ip = ptr(s.payload, 0, s.psize)
        tid = u32(s.payload, s.psize)
        inst, exact = threads.find(tid, s.ts)
        if inst is None:
            unknown[tid] += 1
            by_process["Unknown"] += 1
            continue
        if not exact:
            outside.append({"ts": s.ts, "tid": tid, "cpu": s.cpu, "ip": "%#x" % ip,
                            "nearest_start": inst["start"], "nearest_end": inst["end"]})
        pinst = process_of(procs, inst["pid"], s.ts if exact else (inst["start"] or s.ts))
        plabel = label(pinst) if pinst else "pid %d" % inst["pid"]
        tkey = "%s tid %d start %s" % (plabel, tid, inst["start"])
        by_process[plabel] += 1
        by_thread[tkey] += 1
        proc_of_thread[tkey] = plabel
    targets, stack_stats = stack_targets(events, P)
    # A (ts, tid) pair shared by several samples (idle, tid 0) takes the stack
    # only for the sample on the stack event's CPU (fmt:301-302).
    pair_count = Counter((s.ts, u32(s.payload, s.psize)) for s in samples)
    with_stack = 0
    with_stack_ambiguous = 0
    # Frames over all samples: kernel + user halves, or the IP alone.
    frames_total = 0
    kernel_only = user_only = both = 0
    for s in samples:
        tid = u32(s.payload, s.psize)
        tgt = targets.get((s.ts, tid))
        cpus = tgt["cpus"] if tgt else None
        if not cpus:
            frames_total += 1
            continue
        k, u = tgt["kernel"] or [], tgt["user"] or []
        frames_total += len(k) + len(u)
        if k and u:
            both += 1
        elif k:
            kernel_only += 1
        else:
            user_only += 1
        if pair_count[(s.ts, tid)] > 1:
            with_stack_ambiguous += 1
            if s.cpu not in cpus:
                continue
        with_stack += 1
    # PerfView's TraceLog keeps a sample unless tid is 0 and it is not
    # executing a DPC or ISR (flags bits 0/1, fmt:275-276): comparable with the
    # "PerfInfo/Sample" count of PerfView's own baseline for this trace.
    perfview_kept = sum(1 for s in samples if u32(s.payload, s.psize) != 0
                        or struct.unpack_from("<H", s.payload, s.psize + 6)[0] & 3)
    images, unmatched, by_time_only = image_instances(events, procs)
    # FileVersion describes a file on disk: share it between the loads of one
    # file (same name and size; same link timestamp unless one of the events
    # lacks it, as rundown events of ntdll.dll do), e.g. Test.x64.exe is
    # described when cmd.exe maps it, not when Test.x64.exe loads it. TE
    # TraceLog.cs:1557-1582 does the same: the version goes on the
    # TraceModuleFile, one per file name (GetOrCreateModuleFile), which every
    # load of that file shares.
    versions = defaultdict(list)
    for i in images:
        if i["file_version"]:
            versions[module_key(i)[:2]].append((i["stamp"], i["file_version"]))

    class _Versions:
        def get(self, key, default):
            for stamp, v in versions.get(key[:2], ()):
                if stamp == key[2] or stamp == 0 or key[2] == 0:
                    return v
            return default

    module_version = _Versions()
    top = next(p for p, _ in by_process.most_common() if not p.startswith("Idle "))
    top_pid = int(top.rsplit("(", 1)[1].rstrip(")"))
    top_images = sorted(
        ({"base": "%#x" % i["base"], "size": "%#x" % i["size"], "path": i["path"],
          "file_version": module_version.get(module_key(i), {}).get("file_version"),
          "product_name": module_version.get(module_key(i), {}).get("product_name"),
          "file_version_at_this_load": bool(i["file_version"]),
          "pdb_guid": (i["pdb"] or {}).get("guid"), "pdb_age": (i["pdb"] or {}).get("age"),
          "pdb_name": (i["pdb"] or {}).get("name"), "kinds": i["kinds"]}
         for i in images if not i["kernel"] and i["pid"] == top_pid),
        key=lambda x: int(x["base"], 16))
    # Samples whose stack changes when inline walks are ordered by their
    # target's EventTimeStamp instead of the walk's own timestamp: listed, and
    # counted in the census like every other sample. The bytes decide for the
    # walk's own time (etl-format.md C.5 rule 4, line 306-310; TraceLog's
    # EmitStackOnExitFromKernel): tid 3780 logs kernel-only walks for its
    # samples at 1942908431 .. 1942973679, then at 1942978627 one user walk
    # whose EventTimeStamp is 1942908431, the first event of that stay in the
    # kernel, so all eight samples before 1942978627 share that user half;
    # the sample at 1942993684 gets the user walk logged at 1942996107
    # (EventTimeStamp 1942983680). Ordered by EventTimeStamp, the user walk of
    # the second stay would land on samples of the first.
    proxy, _ = stack_targets(events, P, inline_at_own_time=False)
    order_sensitive = sorted(
        (s.ts, u32(s.payload, s.psize)) for s in samples
        if (lambda a, b: (a and (a["kernel"], a["user"])) != (b and (b["kernel"], b["user"])))(
            targets.get((s.ts, u32(s.payload, s.psize))),
            proxy.get((s.ts, u32(s.payload, s.psize)))))
    frames_per_module, stack_digest, deep = frame_census(samples, threads, procs, targets,
                                                         images, P)
    # Leaf of the top process' samples in JIT code (CLR method ranges).
    ranges = clr_ranges(events).get(top_pid, [])
    top_samples = jit_leaf = 0
    for s in samples:
        tid = u32(s.payload, s.psize)
        inst, _ = threads.find(tid, s.ts)
        if inst is None or inst["pid"] != top_pid:
            continue
        top_samples += 1
        if in_ranges(ranges, ptr(s.payload, 0, s.psize)):
            jit_leaf += 1
    plist = [{"pid": pid, "name": inst.get("name"), "start": inst["start"], "end": inst["end"]}
             for pid in sorted(procs.by_id) for inst in procs.by_id[pid]]
    return {
        "file": os.path.basename(path),
        "processes": plist,
        "samples": len(samples),
        "samples_per_process": dict(sorted(by_process.items())),
        "samples_per_thread": dict(sorted(by_thread.items())),
        "thread_lifetimes": sum(len(v) for v in threads.by_id.values()),
        "samples_outside_every_lifetime": outside,
        "samples_with_unknown_tid": dict(unknown),
        "samples_kept_by_perfview_rule": perfview_kept,
        "samples_with_stack": with_stack,
        "samples_with_stack_halves": {"kernel_and_user": both, "kernel_only": kernel_only,
                                      "user_only": user_only},
        "frames_over_all_samples": frames_total,
        "samples_sensitive_to_inline_walk_order": order_sensitive,
        "frames_per_module": frames_per_module,
        "samples_with_two_or_more_frames": deep,
        "stack_digest": "%#018x" % stack_digest,
        "samples_sharing_ts_tid_with_a_stack": with_stack_ambiguous,
        "stack_join": stack_stats,
        "top_process": top,
        "top_process_images": top_images,
        "ktc_unmatched_by_opcode": unmatched,
        "file_versions_matched_by_time_only": by_time_only,
        "top_process_samples": top_samples,
        "top_process_samples_ip_in_clr_method": jit_leaf,
    }


def rundown_report(path):
    events = read_events(path)
    procs, threads = build_lifetimes(events)
    images, _, _ = image_instances(events, procs)
    plist = []
    for pid in sorted(procs.by_id):
        for inst in procs.by_id[pid]:
            plist.append({"pid": pid, "name": inst.get("name"), "start": inst["start"],
                          "end": inst["end"], "start_kind": inst["start_kind"],
                          "end_kind": inst["end_kind"], "dcend": inst.get("dcend", False),
                          "kinds": inst["kinds"]})
    tlist = []
    for tid in sorted(threads.by_id):
        for inst in threads.by_id[tid]:
            tlist.append({"tid": tid, "pid": inst["pid"], "start": inst["start"],
                          "end": inst["end"], "start_kind": inst["start_kind"],
                          "end_kind": inst["end_kind"]})
    ilist = [{"pid": i["pid"], "kernel": i["kernel"], "base": "%#x" % i["base"],
              "size": "%#x" % i["size"], "path": i["path"], "load": i["load"],
              "unload": i["unload"], "kinds": i["kinds"]} for i in images]
    return {
        "file": os.path.basename(path),
        "processes": plist,
        "threads": tlist,
        "images": ilist,
        "counts": {
            "process_instances": len(plist),
            "thread_instances": len(tlist),
            "image_instances": len(ilist),
            "kernel_images": sum(1 for i in ilist if i["kernel"]),
            "images_unloaded": sum(1 for i in ilist if i["unload"] is not None),
            "processes_ended": sum(1 for p in plist if p["end"] is not None),
            "threads_ended": sum(1 for t in tlist if t["end"] is not None),
        },
    }


def main(argv):
    if len(argv) != 2 or argv[0] not in ("samples", "rundown"):
        print(__doc__, file=sys.stderr)
        return 2
    rep = samples_report(argv[1]) if argv[0] == "samples" else rundown_report(argv[1])
    print(json.dumps(rep, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
