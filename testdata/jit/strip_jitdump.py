#!/usr/bin/env python3
"""Shrinks a jitdump to what the tests need, keeping its meaning for the recorded samples.

Usage: strip_jitdump.py IN OUT [INJECTED_PERF_SCRIPT_TEXT...]

* The machine code of every CODE_LOAD (its last code_size bytes) is zeroed; UNWINDING_INFO
  records are dropped (the tests use addresses, sizes, times, pids, tids and names).
* With injected texts (`perf script` output after `perf inject --jit`), only the loads
  whose code_index perf used for some frame (`jitted-PID-INDEX.so`) are kept, with the
  DEBUG_INFO record just before each. A load perf never used is not the answer for any
  sampled frame (perf picks the last load covering the address), so dropping it changes
  no frame that perf named; frames perf left unknown stay unknown.
"""
import re
import struct
import sys

src, dst, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
data = open(src, "rb").read()
magic = struct.unpack_from("<I", data, 0)[0]
end = "<" if magic == 0x4A695444 else ">"
hdr_size = struct.unpack_from(end + "I", data, 8)[0]
used = None
if texts:
    used = set()
    pat = re.compile(rb"/jitted-\d+-(\d+)\.so\)")
    for t in texts:
        used.update(int(m.group(1)) for m in pat.finditer(open(t, "rb").read()))
out = bytearray(data[:hdr_size])
pending_debug = None
pos = hdr_size
while pos + 16 <= len(data):
    rid, size = struct.unpack_from(end + "II", data, pos)
    if size < 16 or pos + size > len(data):
        break
    rec = bytearray(data[pos:pos + size])
    pos += size
    if rid == 0:  # CODE_LOAD
        code_size, code_index = struct.unpack_from(end + "QQ", rec, 40)
        if used is not None and code_index not in used:
            pending_debug = None
            continue
        if code_size <= size - 56:
            rec[size - code_size:] = bytes(code_size)
        if pending_debug is not None:
            out += pending_debug
            pending_debug = None
        out += rec
    elif rid == 2:  # DEBUG_INFO: belongs to the next CODE_LOAD
        pending_debug = rec
    elif rid == 4:  # UNWINDING_INFO
        continue
    else:
        out += rec
open(dst, "wb").write(out)
