"""Count the events the Python peer etl-parser (PyPI) reads in an .etl file.

Prints "<buffers> <events>": buffers including the header buffer (which
etl-parser sets aside), events outside the header buffer (etl-parser does
not report the header buffer's events). Used by check-etl-parser.sh and
bench-reader.sh.
"""
import sys
from etl.etl import IEtlFileObserver, build_from_stream

class Counter(IEtlFileObserver):
    def __init__(self):
        self.n = 0
    def on_event_record(self, event): self.n += 1
    def on_trace_record(self, event): self.n += 1
    def on_perfinfo_trace(self, obj): self.n += 1
    def on_system_trace(self, obj): self.n += 1
    def on_win_trace(self, obj): self.n += 1

with open(sys.argv[1], "rb") as f:
    etl_file = build_from_stream(f.read())
c = Counter()
etl_file.parse(c)
# etl-parser keeps the header buffer aside; add it back to count buffers.
print(len(etl_file.chunks) + 1, c.n)
