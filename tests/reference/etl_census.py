#!/usr/bin/env python3
"""Independent reference decoder for ETW .etl files (stdlib only).

Written from ../shared/docs/etl-format.md, the MS-XCA specification and a
reading of the trace bytes, without looking at the Rust reader, so that its
counts can serve as expected values for the Rust tests.

Usage:
    python3 tests/reference/etl_census.py FILE...            # JSON census per file
    python3 tests/reference/etl_census.py --decompress-to DIR FILE...
        # also write DIR/<name> with every compressed buffer stored
        # uncompressed (BufferSize = SavedOffset, flag 0x40 cleared), which
        # readers that cannot decompress (etl-parser) can read.
    python3 tests/reference/etl_census.py --decompress-to DIR --etl-parser FILE...
        # also read DIR/<name> with the PyPI peer `etl-parser` (pip install
        # etl-parser; it cannot decompress) and report under "etl_parser"
        # whether its counts agree. It skips the header buffer, so events
        # must equal ours minus "header_buffer_events", and only the header
        # hooks (0x0000, 0x0005, 0x0050 ...) of that buffer may differ.

The census: buffers, compressed_buffers, events (header buffer included),
kernel_hooks ("0x%04x" -> count; system/compact/perfinfo headers) and the
same split by header type, providers (GUID -> count; EventHeader and
full/instance headers), provider_opcodes (full/instance) and
provider_event_ids (EventHeader), header_types, min/max_timestamp, the
log-file header fields, a digest of every event's other fields and payload
bytes, and errors (empty when every buffer and event decoded).
"""

import json
import os
import struct
import sys
import zlib
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone

BUFFER_HEADER_LEN = 0x48
FLAG_COMPRESSED = 0x0040
FLAG_PROCESSOR_INDEX = 0x0020

# Marker HeaderType byte -> (name, pointer size, header family).
HEADER_TYPES = {
    0x01: ("system32", 4, "system"),
    0x02: ("system64", 8, "system"),
    0x03: ("compact32", 4, "compact"),
    0x04: ("compact64", 8, "compact"),
    0x10: ("perfinfo32", 4, "perfinfo"),
    0x11: ("perfinfo64", 8, "perfinfo"),
    0x0A: ("full32", 4, "full"),
    0x14: ("full64", 8, "full"),
    0x0B: ("instance32", 4, "instance"),
    0x15: ("instance64", 8, "instance"),
    0x12: ("eventheader32", 4, "eventheader"),
    0x13: ("eventheader64", 8, "eventheader"),
}


class DecodeError(Exception):
    pass


# --------------------------------------------------------------------------
# MS-XCA "plain LZ77" (COMPRESSION_FORMAT_XPRESS), after the pseudocode in
# [MS-XCA] 2.4.4. Literal runs are copied in one slice for speed.


def xca_decompress(src, out_len):
    """Decompress `src` (bytes) into exactly `out_len` bytes.

    Returns (output, consumed_input_bytes). Raises DecodeError on a
    malformed stream or a length mismatch.
    """
    out = bytearray()
    n = len(src)
    pos = 0
    flags = 0
    flag_count = 0
    half_byte_pos = None  # position of the shared length nibble byte
    while len(out) < out_len:
        if flag_count == 0:
            if pos + 4 > n:
                break
            flags = struct.unpack_from("<I", src, pos)[0]
            pos += 4
            flag_count = 32
        # Run of literal flags (0 bits) from bit flag_count-1 downward.
        remaining = flags & ((1 << flag_count) - 1)
        run = flag_count - remaining.bit_length()
        if run:
            run = min(run, n - pos, out_len - len(out))
            if run == 0:
                break
            out += src[pos : pos + run]
            pos += run
            flag_count -= run
            continue
        flag_count -= 1
        if pos + 2 > n:
            break
        token = struct.unpack_from("<H", src, pos)[0]
        pos += 2
        length = token & 7
        offset = (token >> 3) + 1
        if length == 7:
            if half_byte_pos is None:
                if pos >= n:
                    raise DecodeError("truncated length nibble")
                length = src[pos] & 0x0F
                half_byte_pos = pos
                pos += 1
            else:
                length = src[half_byte_pos] >> 4
                half_byte_pos = None
            if length == 15:
                if pos >= n:
                    raise DecodeError("truncated length byte")
                length = src[pos]
                pos += 1
                if length == 255:
                    if pos + 2 > n:
                        raise DecodeError("truncated length u16")
                    length = struct.unpack_from("<H", src, pos)[0]
                    pos += 2
                    if length == 0:
                        if pos + 4 > n:
                            raise DecodeError("truncated length u32")
                        length = struct.unpack_from("<I", src, pos)[0]
                        pos += 4
                    if length < 15 + 7:
                        raise DecodeError("bad long match length")
                    length -= 15 + 7
                length += 15
            length += 7
        length += 3
        start = len(out) - offset
        if start < 0:
            raise DecodeError(f"match offset {offset} before output start")
        if len(out) + length > out_len:
            raise DecodeError("match runs past the expected output length")
        if offset >= length:
            out += out[start : start + length]
        else:
            chunk = out[start:]
            reps, rest = divmod(length, offset)
            out += chunk * reps + chunk[:rest]
    if len(out) != out_len:
        raise DecodeError(f"decompressed {len(out)} bytes, expected {out_len}")
    return bytes(out), pos


# --------------------------------------------------------------------------
# Buffers and events


def guid_str(b, off):
    d1, d2, d3 = struct.unpack_from("<IHH", b, off)
    d4 = b[off + 8 : off + 16]
    return "%08x-%04x-%04x-%s-%s" % (d1, d2, d3, d4[:2].hex(), d4[2:].hex())


def walk_buffers(data):
    """Yield (index, offset, header dict) stepping by each BufferSize.

    Where the events of a buffer end, and which CPU wrote it, follow two
    sources outside this project:
    - dissect.etl (PyPI, c_etl.py `BufferHeader`) reads every buffer's event
      area up to `FilledBytes`, the u32 at 0x30. In the traces here it equals
      SavedOffset (0x04) except in header buffers: Windows 7 files leave
      SavedOffset 0 there, and Windows 10 relogged files count the EventTrace
      extension events after SavedOffset in 0x30 only. Compressed buffers
      decompress to SavedOffset - 0x48 bytes (etl-format.md A.4).
    - ETW_BUFFER_CONTEXT (evntrace.h) at 0x28 is a union of
      {UCHAR ProcessorNumber; UCHAR Alignment} and USHORT ProcessorIndex;
      BufferFlag 0x0020 (ETW_BUFFER_FLAG_PROCESSOR_INDEX, ntwmi.h) says the
      u16 form is in use. Without it the CPU is the byte at 0x28.
    """
    off = 0
    index = 0
    while off < len(data):
        if off + BUFFER_HEADER_LEN > len(data):
            raise DecodeError(f"truncated buffer header at {off:#x}")
        size, saved_offset = struct.unpack_from("<II", data, off)
        if size == 0:
            break
        if size < BUFFER_HEADER_LEN or off + size > len(data):
            raise DecodeError(f"bad BufferSize {size} at {off:#x}")
        processor_number = data[off + 0x28]
        (processor_index,) = struct.unpack_from("<H", data, off + 0x28)
        (filled_bytes,) = struct.unpack_from("<I", data, off + 0x30)
        flags, btype = struct.unpack_from("<HH", data, off + 0x34)
        compressed = bool(flags & FLAG_COMPRESSED)
        yield index, off, {
            "size": size,
            # End of the event area from buffer start, in uncompressed terms.
            "end": saved_offset if compressed else filled_bytes,
            "cpu": processor_index if flags & FLAG_PROCESSOR_INDEX else processor_number,
            "flags": flags,
            "type": btype,
        }
        off += size
        index += 1


def buffer_payload(data, off, h, stats=None):
    """Event area of one buffer: bytes [0x48, end) in uncompressed terms."""
    want = h["end"] - BUFFER_HEADER_LEN
    if want < 0:
        raise DecodeError(f"event area end {h['end']} < 0x48 at {off:#x}")
    if h["flags"] & FLAG_COMPRESSED:
        src = data[off + BUFFER_HEADER_LEN : off + h["size"]]
        payload, consumed = xca_decompress(src, want)
        if stats is not None:
            # Input bytes the decoder left unread (a trailing flag word is normal).
            stats[str(len(src) - consumed)] += 1
        return payload
    if h["end"] > h["size"]:
        raise DecodeError(f"FilledBytes past BufferSize at {off:#x}")
    return data[off + BUFFER_HEADER_LEN : off + h["end"]]


def walk_events(p):
    """Yield event dicts from one buffer's event area; returns end position.

    Each event starts 8-aligned; stop at the end of the area or at the
    0xFFFFFFFF fill pattern.
    """
    pos = 0
    n = len(p)
    while pos + 4 <= n:
        if p[pos : pos + 4] == b"\xff\xff\xff\xff":
            break
        htype = p[pos + 2]
        marker = p[pos + 3]
        if htype not in HEADER_TYPES:
            raise DecodeError(f"unknown header type {htype:#x} at +{pos:#x}")
        name, psize, family = HEADER_TYPES[htype]
        if marker & 0x80 == 0:
            raise DecodeError(f"marker flags {marker:#x} lack 0x80 at +{pos:#x}")
        ev = {"type": name, "family": family, "offset": pos}
        if family in ("system", "compact", "perfinfo"):
            size, hook = struct.unpack_from("<HH", p, pos + 4)
            ev["hook"] = hook
            if family == "perfinfo":
                ev["ts"] = struct.unpack_from("<q", p, pos + 8)[0]
            else:
                ev["ts"] = struct.unpack_from("<q", p, pos + 0x10)[0]
        else:
            size = struct.unpack_from("<H", p, pos)[0]
            ev["ts"] = struct.unpack_from("<q", p, pos + 0x10)[0]
            ev["guid"] = guid_str(p, pos + 0x18)
            if family == "eventheader":
                ev["id"] = struct.unpack_from("<H", p, pos + 0x28)[0]
                ev["opcode"] = p[pos + 0x2D]
            else:
                ev["opcode"] = p[pos + 4]
        if size == 0 or pos + size > n:
            raise DecodeError(f"event size {size} at +{pos:#x} runs past {n:#x}")
        ev["size"] = size
        yield ev
        pos = (pos + size + 7) & ~7
    return pos


HEADER_LEN = {"system": 0x20, "compact": 0x18, "perfinfo": 0x10, "full": 0x30,
              "instance": 0x48, "eventheader": 0x50}
MASK64 = (1 << 64) - 1


def event_fields(p, ev):
    """Header fields beyond the census keys, and the payload bytes.

    Returns (pid, tid, version, level, task, keyword, opcode, event_id,
    extended item types, payload). pid/tid are None for perfinfo headers.
    """
    o = ev["offset"]
    fam = ev["family"]
    start = o + HEADER_LEN[fam]
    pid = tid = None
    level = task = keyword = event_id = 0
    ext = []
    if fam in ("system", "compact"):
        version = struct.unpack_from("<H", p, o)[0]
        tid, pid = struct.unpack_from("<II", p, o + 8)
        opcode = ev["hook"] & 0xFF
    elif fam == "perfinfo":
        raw = struct.unpack_from("<H", p, o)[0]
        version = raw & 0xFF
        # Top bits of the version: PEBS index (+8) and PMC counters (+8 each).
        start += (8 if raw & 0x8000 else 0) + 8 * ((raw >> 8) & 7)
        opcode = ev["hook"] & 0xFF
    elif fam in ("full", "instance"):
        opcode, level, version = struct.unpack_from("<BBH", p, o + 4)
        tid, pid = struct.unpack_from("<II", p, o + 8)
    else:
        flags = struct.unpack_from("<H", p, o + 4)[0]
        tid, pid = struct.unpack_from("<II", p, o + 8)
        event_id, version, _channel, level, opcode, task, keyword = struct.unpack_from(
            "<HBBBBHQ", p, o + 0x28)
        if flags & 0x0001:
            # Extended items: u16 reserved, u16 type, u16 linkage, u16 size, data;
            # each 8-aligned; the payload follows the last one.
            q = start
            while True:
                _r, etype, link, dsize = struct.unpack_from("<HHHH", p, q)
                ext.append(etype)
                q = (q + 8 + dsize + 7) & ~7
                if not link & 1:
                    break
            start = q
    end = o + ev["size"]
    if start > end:
        raise DecodeError(f"header runs past event end at +{o:#x}")
    return pid, tid, version, level, task, keyword, opcode, event_id, ext, p[start:end]


def filetime_iso(ft):
    t = datetime(1601, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=ft // 10)
    frac = ft % 10_000_000
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%07dZ" % frac


def parse_logfile(payload, header_size):
    """TRACE_LOGFILE_HEADER at the first event's payload."""
    p = payload[header_size:]
    (buffer_size,) = struct.unpack_from("<I", p, 0)
    major, minor = p[4], p[5]
    (provider_version, ncpu) = struct.unpack_from("<II", p, 8)
    (end_time, timer_res, max_size, mode, written) = struct.unpack_from("<qIIII", p, 0x10)
    (ptr, lost, mhz) = struct.unpack_from("<III", p, 0x2C)
    tail = 0x38 + 2 * ptr + 176
    boot, freq, start, clock, buffers_lost = struct.unpack_from("<qqqII", p, tail)
    return {
        "buffer_size": buffer_size,
        "version": f"{major}.{minor}",
        "provider_version": provider_version,
        "cpus": ncpu,
        "end_time": end_time,
        "log_file_mode": mode,
        "buffers_written": written,
        "pointer_size": ptr,
        "events_lost": lost,
        "cpu_mhz": mhz,
        "boot_time": boot,
        "perf_freq": freq,
        "start_time": start,
        "start_time_iso": filetime_iso(start),
        "clock_type": clock,
        "buffers_lost": buffers_lost,
    }


def census(path, decompress_to=None):
    with open(path, "rb") as f:
        data = f.read()
    c = {
        "file": os.path.basename(path),
        "buffers": 0,
        "compressed_buffers": 0,
        "events": 0,
        "header_buffer_events": 0,
        "kernel_hooks": Counter(),
        "kernel_hooks_by_header": defaultdict(Counter),
        "providers": Counter(),
        "provider_opcodes": defaultdict(Counter),
        "provider_event_ids": defaultdict(Counter),
        "header_types": Counter(),
        "min_timestamp": None,
        "max_timestamp": None,
        "buffers_ending_short_of_saved_offset": 0,
        "xca_unread_input_bytes": Counter(),
        # Digests of every event's other header fields and payload, in file
        # order (buffers in file order, events in buffer order).
        "digest": {
            "events_per_cpu": Counter(),
            "pid_sum": 0,
            "tid_sum": 0,
            "version_sum": 0,
            "level_sum": 0,
            "task_sum": 0,
            "keyword_xor": 0,
            "opcode_sum": 0,
            "event_id_sum": 0,
            "extended_items": Counter(),
            "payload_bytes": 0,
            "payload_crc32": 0,
        },
        # The same, outside the header buffer, for comparison with etl-parser.
        "peer_view": {"pid_sum": 0, "tid_sum": 0, "payload_bytes": 0, "payload_crc32": 0},
        "errors": [],
    }
    rewritten = bytearray() if decompress_to else None
    for index, off, h in walk_buffers(data):
        c["buffers"] += 1
        compressed = bool(h["flags"] & FLAG_COMPRESSED)
        if compressed:
            c["compressed_buffers"] += 1
        try:
            p = buffer_payload(data, off, h, c["xca_unread_input_bytes"])
        except DecodeError as e:
            c["errors"].append({"offset": off, "message": str(e)})
            continue
        if rewritten is not None:
            if compressed:
                hdr = bytearray(data[off : off + BUFFER_HEADER_LEN])
                struct.pack_into("<I", hdr, 0, h["end"])
                struct.pack_into("<H", hdr, 0x34, h["flags"] & ~FLAG_COMPRESSED)
                rewritten += hdr + p
            else:
                rewritten += data[off : off + h["size"]]
        gen = walk_events(p)
        try:
            while True:
                ev = next(gen)
                count_event(c, ev)
                fields = event_fields(p, ev)
                digest_event(c["digest"], h["cpu"], fields)
                if index > 0:
                    peer_view(c["peer_view"], fields)
                if index == 0:
                    c["header_buffer_events"] += 1
                    if ev["offset"] == 0:
                        hsize = {"system": 0x20, "compact": 0x18}.get(ev["family"], 0x20)
                        c["logfile"] = parse_logfile(p[: ev["size"]], hsize)
        except StopIteration as stop:
            end = stop.value
            # The walk must end exactly at SavedOffset (aligned), or at 0xFF fill.
            if end < len(p) and p[end : end + 4] != b"\xff\xff\xff\xff":
                c["buffers_ending_short_of_saved_offset"] += 1
        except DecodeError as e:
            c["errors"].append({"offset": off, "message": f"buffer {index}: {e}"})
    if rewritten is not None:
        os.makedirs(decompress_to, exist_ok=True)
        with open(os.path.join(decompress_to, os.path.basename(path)), "wb") as f:
            f.write(rewritten)
    return finish(c)


def count_event(c, ev):
    c["events"] += 1
    c["header_types"][ev["type"]] += 1
    if "hook" in ev:
        key = "0x%04x" % ev["hook"]
        c["kernel_hooks"][key] += 1
        c["kernel_hooks_by_header"][ev["type"]][key] += 1
    else:
        g = ev["guid"]
        c["providers"][g] += 1
        if ev["family"] == "eventheader":
            c["provider_event_ids"][g][str(ev["id"])] += 1
        else:
            c["provider_opcodes"][g][str(ev["opcode"])] += 1
    ts = ev["ts"]
    if c["min_timestamp"] is None or ts < c["min_timestamp"]:
        c["min_timestamp"] = ts
    if c["max_timestamp"] is None or ts > c["max_timestamp"]:
        c["max_timestamp"] = ts


def digest_event(d, cpu, fields):
    pid, tid, version, level, task, keyword, opcode, event_id, ext, payload = fields
    d["events_per_cpu"][str(cpu)] += 1
    d["pid_sum"] += pid or 0
    d["tid_sum"] += tid or 0
    d["version_sum"] += version
    d["level_sum"] += level
    d["task_sum"] += task
    d["keyword_xor"] ^= keyword
    d["opcode_sum"] += opcode
    d["event_id_sum"] += event_id
    for t in ext:
        d["extended_items"][str(t)] += 1
    d["payload_bytes"] += len(payload)
    d["payload_crc32"] = zlib.crc32(payload, d["payload_crc32"])


def peer_view(d, fields):
    pid, tid, payload = fields[0], fields[1], fields[-1]
    d["pid_sum"] += pid or 0
    d["tid_sum"] += tid or 0
    d["payload_bytes"] += len(payload)
    d["payload_crc32"] = zlib.crc32(payload, d["payload_crc32"])


def finish(c):
    def plain(d):
        if isinstance(d, dict):
            return {k: plain(v) for k, v in sorted(d.items())}
        return d

    for k in ("kernel_hooks", "kernel_hooks_by_header", "providers", "provider_opcodes",
              "provider_event_ids", "header_types", "xca_unread_input_bytes"):
        if k in c:
            c[k] = plain(c[k])
    if "digest" in c:
        c["digest"] = plain(c["digest"])
    return c


# --------------------------------------------------------------------------
# Peer: airbus-cert etl-parser (PyPI `etl-parser`), uncompressed files only.


def etl_parser_census(path):
    """Count events with etl-parser's own record grammar.

    Uses its buffer (EtlLogFile) and record (ChunkParser) parsers directly
    rather than its observer API, whose MOF decoding rejects some hooks. Like
    etl-parser's EtlFile, it skips the header buffer (chunk 0).
    """
    from etl.etl import ChunkParser, EtlLogFile

    with open(path, "rb") as f:
        chunks = EtlLogFile.parse(f.read())
    counts = {"events": 0, "kernel_hooks": Counter(), "providers": Counter(),
              "provider_opcodes": defaultdict(Counter), "provider_event_ids": defaultdict(Counter),
              "peer_view": {"pid_sum": 0, "tid_sum": 0, "payload_bytes": 0, "payload_crc32": 0}}
    pv = counts["peer_view"]
    for chunk in chunks[1:]:
        for rec in ChunkParser.parse(chunk.payload):
            counts["events"] += 1
            v = rec.value
            if rec.type == "SystemTraceRecord":
                h = v.system_header.header
                ids, payload = v.system_header, v.mof_data
            elif rec.type == "PerfInfoTraceRecord":
                h = v.header
                ids, payload = None, v.mof_data
            else:
                h = None
                ids, payload = v.event_header, v.user_data
            if ids is not None:
                pv["pid_sum"] += ids.process_id
                pv["tid_sum"] += ids.thread_id
            pv["payload_bytes"] += len(payload)
            pv["payload_crc32"] = zlib.crc32(payload, pv["payload_crc32"])
            if h is not None:
                counts["kernel_hooks"]["0x%04x" % ((int(h.group) << 8) | h.type)] += 1
            elif rec.type == "TraceRecord":
                g = peer_guid(v.event_header.guid.inner)
                counts["providers"][g] += 1
                counts["provider_opcodes"][g][str(v.event_header["class"].type)] += 1
            elif rec.type == "EventRecord":
                g = peer_guid(v.event_header.provider_id.inner)
                counts["providers"][g] += 1
                counts["provider_event_ids"][g][str(v.event_header.event_descriptor.Id)] += 1
    return finish(counts)


def peer_guid(g):
    return "%08x-%04x-%04x-%s-%s" % (g.data1, g.data2, g.data3, bytes(g.data4[:2]).hex(),
                                     bytes(g.data4[2:]).hex())


def compare_with_peer(c, peer):
    """How etl-parser's counts relate to ours: it skips the header buffer."""
    return {
        "events_equal_minus_header_buffer": peer["events"] == c["events"] - c["header_buffer_events"],
        "providers_equal": peer["providers"] == c["providers"],
        "kernel_hooks_differ": {
            k: [c["kernel_hooks"].get(k, 0), peer["kernel_hooks"].get(k, 0)]
            for k in sorted(set(c["kernel_hooks"]) | set(peer["kernel_hooks"]))
            if c["kernel_hooks"].get(k, 0) != peer["kernel_hooks"].get(k, 0)
        },
        "provider_ids_equal": peer["provider_opcodes"] == c["provider_opcodes"]
        and peer["provider_event_ids"] == c["provider_event_ids"],
        "pids_tids_payloads_equal": peer["peer_view"] == c["peer_view"],
    }


def main(argv):
    decompress_to = None
    peer = False
    files = []
    it = iter(argv)
    for a in it:
        if a == "--decompress-to":
            decompress_to = next(it)
        elif a == "--etl-parser":
            peer = True
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    for path in files:
        c = census(path, decompress_to)
        if peer:
            src = os.path.join(decompress_to, os.path.basename(path)) if decompress_to else path
            c["etl_parser"] = compare_with_peer(c, etl_parser_census(src))
        print(json.dumps(c, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
