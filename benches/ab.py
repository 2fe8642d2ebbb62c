#!/usr/bin/env python3
"""A/B timing of two pgo-merge binaries on the same merge, alternating runs.

    python3 benches/ab.py OLD NEW DIR_OR_FILES... [--rounds 11] [-j 1] [--sample]

Each round runs OLD then NEW (or NEW then OLD on odd rounds) on the same inputs (directories:
their *.profraw files, sorted, given as an `--input-files` list), output to a file, and
records wall time, CPU time (user + system, from wait4) and peak RSS. Prints the medians and
the median of the per-round NEW/OLD wall ratios, and checks that both outputs are identical.
Timings on a shared machine are noisy: use many rounds and read the ratio. `--sample` merges
sample profiles (`merge --sample`; directories then give their *.afdo files).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def expand(paths, ext):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(
                os.path.join(d, f)
                for d, _, fs in os.walk(p)
                for f in fs
                if f.endswith(ext)
            )
        else:
            out.append(p)
    return out


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("-j", "--threads", default="1")
    ap.add_argument("--sample", action="store_true", help="merge sample profiles (merge --sample)")
    a = ap.parse_args()
    files = expand(a.inputs, ".afdo" if a.sample else ".profraw")
    mode = ["--sample"] if a.sample else []
    with tempfile.TemporaryDirectory() as work:
        lst = os.path.join(work, "inputs.txt")
        with open(lst, "w") as f:
            f.write("".join(x + "\n" for x in files))
        outs = {k: os.path.join(work, k + ".profdata") for k in ("old", "new")}
        bins = {"old": a.old, "new": a.new}
        res = {"old": [], "new": []}
        for k in ("old", "new"):  # warm-up, also the output check
            run([bins[k], "merge", *mode, "-j", a.threads, "--input-files", lst, "-o", outs[k]])
        with open(outs["old"], "rb") as f1, open(outs["new"], "rb") as f2:
            same = f1.read() == f2.read()
        for r in range(a.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for k in order:
                res[k].append(run([bins[k], "merge", *mode, "-j", a.threads, "--input-files", lst, "-o", outs[k]]))
        size = sum(os.path.getsize(x) for x in files)
        print(f"{len(files)} files, {size / 1e6:.1f} MB, -j{a.threads}, {a.rounds} alternating rounds; outputs identical: {same}")
        for k in ("old", "new"):
            w = statistics.median(x[0] for x in res[k])
            c = statistics.median(x[1] for x in res[k])
            m = statistics.median(x[2] for x in res[k])
            print(f"{k}: wall {w:.4f} s  cpu {c:.4f} s  peak {m:.1f} MiB  ({bins[k]})")
        ratios = [n[0] / o[0] for o, n in zip(res["old"], res["new"])]
        cpu = [n[1] / o[1] for o, n in zip(res["old"], res["new"])]
        print(f"new/old wall: median {statistics.median(ratios):.3f} (per-round min {min(ratios):.3f}, max {max(ratios):.3f}); cpu: median {statistics.median(cpu):.3f}")
        try:
            print(f"load average: {os.getloadavg()}")
        except OSError:
            pass


if __name__ == "__main__":
    main()
