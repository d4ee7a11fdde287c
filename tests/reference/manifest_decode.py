#!/usr/bin/env python3
"""Independent reference: a manifest provider's events of an .etl decoded
with its public instrumentation manifest (stdlib only).

Reads the manifest with xml.etree (not the Rust XML walker), walks the
trace with etl_census.py's buffer and event walkers (written without the
Rust reader), and decodes each EventHeader payload of the provider by the
manifest's template for the event's id and version: the expected values of
the schema-pack tests come from here, never from etlscope's own output.

    python3 tests/reference/manifest_decode.py TRACE MANIFEST [--first N]

Prints JSON: the provider, events per "Task/Opcode" name (the task's and
opcode's messages, as TDH shows them), events whose payload the template
did not read exactly, and the first N events (default 3) of each event id
with their field values (integers in decimal, pointers 0x-hex, binary as
hex, strings as text).
"""

import json
import struct
import sys
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict

sys.path.insert(0, __import__("os").path.dirname(__file__))
import etl_census as ec  # noqa: E402

NS = "{http://schemas.microsoft.com/win/2004/08/events}"


def local(tag):
    return tag.split("}", 1)[-1]


def load_manifest(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    root = ET.fromstring(text)
    strings = {}
    for el in root.iter():
        if local(el.tag) == "string" and el.get("id") is not None:
            strings.setdefault(el.get("id"), el.get("value"))

    def msg(el, fallback):
        m = el.get("message")
        if m and m.startswith("$(string.") and m.endswith(")"):
            return strings.get(m[9:-1], fallback)
        return m or fallback

    prov = next(el for el in root.iter() if local(el.tag) == "provider")
    guid = prov.get("guid").strip("{}").lower()
    tasks, opcodes, templates = {}, {}, {}
    for el in prov.iter():
        t = local(el.tag)
        if t == "task":
            tasks[el.get("name")] = msg(el, el.get("name"))
            for op in el.iter():
                if local(op.tag) == "opcode":
                    opcodes[(el.get("name"), op.get("name"))] = msg(op, op.get("name"))
        elif t == "template":
            fields = []
            for d in el:
                if local(d.tag) != "data":
                    raise SystemExit(f"template {el.get('tid')}: {local(d.tag)} not read here")
                fields.append((d.get("name"), d.get("inType"), d.get("length")))
            templates[el.get("tid")] = fields
    events = {}
    for el in prov.iter():
        if local(el.tag) != "event":
            continue
        key = (int(el.get("value"), 0), int(el.get("version", "0"), 0))
        task = el.get("task", "")
        op = el.get("opcode", "")
        opname = op[4:] if op.startswith("win:") else opcodes.get((task, op), op)
        name = tasks.get(task, task)
        if opname and opname != "Info":
            name = f"{name}/{opname}" if name else opname
        events.setdefault(key, (name, templates.get(el.get("template"), [])))
    return guid, prov.get("name"), events


def decode(fields, b, psize):
    out = OrderedDict()
    pos = 0
    for name, ty, length in fields:
        ty = ty.replace("win:", "")
        if ty in ("UInt8", "Int8", "UInt16", "Int16", "UInt32", "Int32", "UInt64",
                  "Int64", "HexInt32", "HexInt64", "Boolean"):
            fmt = {"UInt8": "<B", "Int8": "<b", "UInt16": "<H", "Int16": "<h",
                   "UInt32": "<I", "Int32": "<i", "HexInt32": "<I", "Boolean": "<I",
                   "UInt64": "<Q", "Int64": "<q", "HexInt64": "<Q"}[ty]
            (v,) = struct.unpack_from(fmt, b, pos)
            pos += struct.calcsize(fmt)
            out[name] = hex(v) if ty.startswith("Hex") else str(v)
        elif ty == "Pointer":
            (v,) = struct.unpack_from("<Q" if psize == 8 else "<I", b, pos)
            pos += psize
            out[name] = hex(v)
        elif ty == "Binary":
            n = int(out[length]) if length in out else int(length)
            out[name] = b[pos:pos + n].hex()
            pos += n
        elif ty == "UnicodeString":
            end = pos
            while end + 1 < len(b) and b[end:end + 2] != b"\0\0":
                end += 2
            out[name] = b[pos:end].decode("utf-16-le")
            # The terminator, when the payload has one.
            pos = min(end + 2, len(b)) if end + 1 < len(b) else len(b)
        elif ty == "AnsiString":
            end = b.find(b"\0", pos)
            end = len(b) if end < 0 else end
            out[name] = b[pos:end].decode("latin-1")
            pos = min(end + 1, len(b))
        else:
            raise SystemExit(f"type {ty} not read here")
    if pos > len(b):
        raise struct.error("past the payload")
    return out, pos


def main(argv):
    first = 3
    if "--first" in argv:
        i = argv.index("--first")
        first = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    trace, manifest = argv[1], argv[2]
    guid, pname, events = load_manifest(manifest)
    with open(trace, "rb") as f:
        data = f.read()
    names = Counter()
    inexact = Counter()
    samples = {}
    for _i, off, h in ec.walk_buffers(data):
        p = ec.buffer_payload(data, off, h)
        for ev in ec.walk_events(p):
            if ev.get("guid") != guid or ev["family"] != "eventheader":
                continue
            psize = ec.HEADER_TYPES[p[ev["offset"] + 2]][1]
            _pid, _tid, version, *_rest, payload = ec.event_fields(p, ev)
            key = (ev["id"], version)
            name, fields = events.get(key, (f"EventID({ev['id']})", []))
            names[name] += 1
            try:
                values, used = decode(fields, payload, psize)
            except (struct.error, KeyError, ValueError):
                values, used = None, -1
            if used != len(payload):
                inexact[name] += 1
            s = samples.setdefault(str(ev["id"]), [])
            if len(s) < first:
                s.append({"ts": ev["ts"], "name": name, "fields": values})
    json.dump({"provider": pname, "guid": guid, "names": dict(sorted(names.items())),
               "inexact": dict(inexact), "first": samples}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv)
