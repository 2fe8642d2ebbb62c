#!/usr/bin/env python3
"""Runs a command and reports its peak memory, split the way a mapped input needs it split.

    python3 benches/peak_memory.py pgo-merge merge big.profraw -o out.profdata

/usr/bin/time's %M (the kernel's VmHWM) counts every resident page, those of a mapped input
file included: page cache that the kernel drops under pressure. This samples
/proc/PID/status every 2 ms and prints, on standard error, the peak RssAnon (the process's
own memory: heap, anonymous mappings), the peak RssFile (pages of mapped files, the inputs'
included), VmHWM and VmPeak (address space). Samples can miss a peak shorter than 2 ms.
"""
import subprocess
import sys
import time

KEYS = ("RssAnon", "RssFile", "VmHWM", "VmPeak")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    p = subprocess.Popen(sys.argv[1:])
    peak = dict.fromkeys(KEYS, 0)
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    k, _, v = line.partition(":")
                    if k in peak:
                        peak[k] = max(peak[k], int(v.split()[0]))
        except (OSError, ValueError):
            pass
        time.sleep(0.002)
    mb = {k: v // 1024 for k, v in peak.items()}
    print(
        f"exit {p.returncode}: peak anonymous {mb['RssAnon']} MB, peak file-backed "
        f"{mb['RssFile']} MB, VmHWM {mb['VmHWM']} MB, VmPeak {mb['VmPeak']} MB",
        file=sys.stderr,
    )
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
