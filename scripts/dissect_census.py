"""Census of .etl files as the PyPI decoder dissect.etl reads them.

dissect.etl (Fox-IT) is a second independent reader: unlike etl-parser it
decompresses buffers and reads Windows 7 header buffers (it ends every
buffer's events at FilledBytes, 0x30). Prints one JSON object per file:
buffers, events, min/max raw timestamps, pid/tid sums over the events whose
header carries them (wrapping at 2^64), and events per header kind, in the
same terms as tests/reference/etl_census.py so check-peers.py can compare.
"""
import json
import sys

from dissect.etl.etl import ETL

KIND = {  # dissect header class -> the reference's header family
    "SystemHeader": "system",
    "CompactSystemHeader": "system",
    "PerfinfoTraceHeader": "perfinfo",
    "EventTraceHeader": "full",
    "EventInstanceGUIDHeader": "instance",
    "EventHeader": "eventheader",
}
MASK = (1 << 64) - 1


def census(path):
    out = {"buffers": 0, "events": 0, "min_timestamp": None, "max_timestamp": None,
           "pid_sum": 0, "tid_sum": 0, "families": {}}
    with open(path, "rb") as fh:
        for buf in ETL(fh).buffers():
            out["buffers"] += 1
            for rec in buf:
                h = rec.header
                out["events"] += 1
                fam = KIND.get(type(h).__name__, type(h).__name__)
                out["families"][fam] = out["families"].get(fam, 0) + 1
                ts = h.time_delta
                if out["min_timestamp"] is None or ts < out["min_timestamp"]:
                    out["min_timestamp"] = ts
                if out["max_timestamp"] is None or ts > out["max_timestamp"]:
                    out["max_timestamp"] = ts
                for field, key in (("process_id", "pid_sum"), ("thread_id", "tid_sum")):
                    v = getattr(h, field, None)
                    if isinstance(v, int):
                        out[key] = (out[key] + (v & 0xFFFFFFFF)) & MASK
    return out


if __name__ == "__main__":
    print(json.dumps({p: census(p) for p in sys.argv[1:]}, indent=1))
