"""Reads `llvm-pdbutil dump --summary --symbols --section-headers` on stdin and
prints one tab-separated line per function: image, pdb, GUID (32 hex digits,
no dashes), age (hex), function name, RVA (hex), code size (decimal)."""
import re
import sys

image, pdb = sys.argv[1], sys.argv[2]
text = sys.stdin.read()
guid = re.search(r"GUID: \{([0-9A-F-]+)\}", text).group(1).replace("-", "")
age = int(re.search(r"Age: (\d+)", text).group(1))
# Section headers: their order gives the section numbers (1-based).
vas = [int(v, 16) for v in re.findall(r"([0-9A-Fa-f]+) virtual address", text)]
for name, sec, off, size in re.findall(
    r"S_GPROC32 \[size = \d+\] `([^`]+)`\n\s+parent = \d+, end = \d+, "
    r"addr = (\d+):(\d+), code size = (\d+)",
    text,
):
    rva = vas[int(sec) - 1] + int(off)
    print(f"{image}\t{pdb}\t{guid}\t{age:X}\t{name}\t{rva:X}\t{size}")
