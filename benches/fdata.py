#!/usr/bin/env python3
"""BOLT fdata merges: a generator of instrumentation-like profiles, and pgo-merge's
`merge-fdata` drop-in timed side by side with LLVM's `merge-fdata`.

    python3 benches/fdata.py gen DIR [--files 200] [--lines 5000] [--pool 1000000]
                                     [--functions 20000]
    python3 benches/fdata.py run DIR --pgo-merge BIN [--merge-fdata merge-fdata-19]
                                     [--rounds 3] [-j 2]

`gen` writes FILES profiles of LINES branch lines each, drawn from one pool of POOL
branches among FUNCTIONS functions (names as long as C++ ones); deterministic (seeded). The
defaults give about 90 MB and 630,000 distinct lines (the issue's workload: 200 files,
79 MB, 1,000,000 output lines).

`run` merges every `*.fdata` of DIR with both tools (ours through its native command line
with --target-llvm 19 and -j, so that both follow LLVM 19), alternating, output to a file, and prints the
median wall time, CPU time and peak RSS of each, their ratios, and whether the outputs have
the same lines (merge-fdata's order varies, so lines are compared sorted). LLVM's
merge-fdata uses every core; pass the same count to ours with -j.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def gen(args):
    rng = random.Random(20261128)
    os.makedirs(args.dir, exist_ok=True)
    names = [
        "_ZN%dpgo5bench%dFunction%dEv" % (len(str(i)), i, rng.randrange(10**6))
        for i in range(args.functions)
    ]
    pool = []
    for _ in range(args.pool):
        f = rng.randrange(len(names))
        g = f if rng.random() < 0.7 else rng.randrange(len(names))
        pool.append(
            "1 %s %x 1 %s %x" % (names[f], rng.randrange(4096), names[g], rng.randrange(4096))
        )
    total = 0
    for i in range(args.files):
        lines = [
            "%s %d %d\n" % (b, 0, rng.randrange(1, 10**6))
            for b in rng.sample(pool, args.lines)
        ]
        path = os.path.join(args.dir, "prof.%05d.fdata" % i)
        with open(path, "w") as f:
            f.writelines(lines)
        total += os.path.getsize(path)
    print("%d files, %.1f MB, %d branches in the pool" % (args.files, total / 1e6, len(pool)))


def measure(cmd, out):
    t0 = time.perf_counter()
    with open(out, "wb") as o:
        p = subprocess.Popen(cmd, stdout=o, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s" % " ".join(cmd))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def run(args):
    files = sorted(
        os.path.join(args.dir, f) for f in os.listdir(args.dir) if f.endswith(".fdata")
    )
    size = sum(os.path.getsize(f) for f in files)
    tmp = tempfile.mkdtemp(prefix="fdata-bench-")
    # The drop-in takes merge-fdata's options only: the thread count goes through the
    # native command line, with the same (LLVM 19) semantics and output on stdout.
    tools = {
        "merge-fdata": [args.merge_fdata] + files,
        "pgo-merge": [args.pgo_merge] + files + ["-j", str(args.j), "--target-llvm", "19", "-o", "-"],
    }
    results = {k: [] for k in tools}
    for r in range(args.rounds):
        order = list(tools) if r % 2 == 0 else list(reversed(tools))
        for k in order:
            results[k].append(measure(tools[k], os.path.join(tmp, k + ".out")))
    print("%d files, %.1f MB, %d rounds" % (len(files), size / 1e6, args.rounds))
    med = {}
    for k, v in results.items():
        med[k] = [statistics.median(x[i] for x in v) for i in range(3)]
        print("%-12s wall %7.3f s  cpu %7.3f s  peak RSS %8.1f MB  (%.1f ns/byte)"
              % (k, med[k][0], med[k][1], med[k][2], med[k][0] * 1e9 / size))
    a, b = med["merge-fdata"], med["pgo-merge"]
    print("pgo-merge / merge-fdata: wall %.3f, cpu %.3f, memory %.3f"
          % (b[0] / a[0], b[1] / a[1], b[2] / a[2]))

    def lines(k):
        with open(os.path.join(tmp, k + ".out")) as f:
            return sorted(f.read().splitlines())

    print("same lines: %s" % (lines("merge-fdata") == lines("pgo-merge")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("dir")
    g.add_argument("--files", type=int, default=200)
    g.add_argument("--lines", type=int, default=5000)
    g.add_argument("--pool", type=int, default=1000000)
    g.add_argument("--functions", type=int, default=20000)
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--pgo-merge", required=True)
    r.add_argument("--merge-fdata", default="merge-fdata-19")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("-j", type=int, default=os.cpu_count())
    a = ap.parse_args()
    gen(a) if a.cmd == "gen" else run(a)


if __name__ == "__main__":
    main()
