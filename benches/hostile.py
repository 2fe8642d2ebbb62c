#!/usr/bin/env python3
"""How time grows on hostile input shapes: pgo-merge against llvm-profdata-22.

    python3 benches/hostile.py [--shapes deep-context,many-targets,...] [--rounds 3]
                               [--pgo-merge target/release/pgo-merge] [--llvm llvm-profdata-22]
                               [--scale 1.0]

Each shape is generated at a size n and at 2n, run with both tools (median wall time of
--rounds runs, alternating which tool goes first), and the script prints the times and the
ratio time(2n) / time(n) for each tool: about 2 for a linear cost (a little more for
n log n), about 4 for a quadratic one. Acceptance for pgo-merge: at most ~2.5. Where both
tools succeed, the outputs are compared byte for byte (`same` / `DIFFER`); a tool that dies
(LLVM recurses on its stack on the deep shapes) shows `failed`.

Shapes (n at --scale 1):

* deep-context (20,000 frames): one calling context `[f0:1 @ f1:1 @ ... @ fN]` of a text
  sample profile, `--convert-sample-profile-layout=nest` to extbinary;
* deep-nesting (10,000 levels): a binary sample profile of inlined callees nested n deep,
  written as extbinary;
* deep-nesting-text (2,000 levels): the same written as text, and deep-text-read (2,000
  levels): such a text read and written as binary. Text indents each line by its depth, so
  its size grows with the square of the depth: for these two the second size is n * sqrt(2)
  levels, which doubles the bytes of the text (the `2n` of the table is then that depth);
* many-targets (100,000): one text body line `1: N t0:1 t1:1 ...`, written as text;
* many-targets-full (100,000): the same with names holding a colon (`t0:x:1`), which only
  the full reader of LLVM's grammar takes;
* many-vtables (100,000): one LLVM 22 `1: vtables T0:1 T1:1 ...` line, written as text;
* same-name (100,000): an instrumentation text profile of n records of one function name
  with distinct hashes, written as an indexed profile.

Figures, machine and dates: docs/performance.md, "Hostile input shapes".
"""

import argparse
import os
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def deep_context(n):
    frames = " @ ".join("f%d:1" % i for i in range(n - 1))
    return ("[%s @ f%d]:100:10\n 1: 10\n" % (frames, n - 1)).encode()


def nested_binary(n):
    """SPF_Binary: f0 inlines f1 at 2.0, f1 inlines f2, ... n levels."""
    out = bytearray(uleb(0x5350524F463432FF) + uleb(103))
    for x in (n, 1, 10, n, 1, 0):  # summary without detailed entries
        out += uleb(x)
    out += uleb(n) + b"".join(b"f%d\0" % i for i in range(n))
    out += uleb(10) + uleb(0)  # head samples, name index
    for d in range(n):
        for x in (2 * n - d, 1, 1, 0, 1, 0):  # total; one body line 1.0: 1, no targets
            out += uleb(x)
        out += uleb(1) + uleb(2) + uleb(0) + uleb(d + 1) if d + 1 < n else uleb(0)
    return bytes(out)


def nested_text(n):
    """The text of `nested_binary(n)`: each level one space deeper."""
    out = ["f0:%d:10\n 1: 1\n" % (2 * n)]
    for d in range(1, n):
        out.append("%s2: f%d:%d\n%s1: 1\n" % (" " * d, d, 2 * n - d, " " * (d + 1)))
    return "".join(out).encode()


# Shapes whose bytes grow with the square of n: their second size is n * sqrt(2).
QUADRATIC_BYTES = {"deep-nesting-text", "deep-text-read"}


def many_targets(n, sep=""):
    targets = " ".join("t%d%s:1" % (i, sep) for i in range(n))
    return ("f:%d:1\n 1: %d %s\n" % (n, n, targets)).encode()


def many_vtables(n):
    types = " ".join("T%d:1" % i for i in range(n))
    return ("f:10:1\n 1: 10\n 1: vtables %s\n" % types).encode()


def same_name(n):
    out = [":ir\n"]
    for i in range(n):
        h = (i * 2654435761) % (1 << 63) + 1
        out.append("same\n# Func Hash:\n%d\n# Num Counters:\n1\n# Counter Values:\n%d\n\n" % (h, i + 1))
    return "".join(out).encode()


# name: (default n, generator, input suffix, arguments of `merge` before the input)
SHAPES = {
    "deep-context": (20000, deep_context, ".txt",
                     ["--sample", "--extbinary", "--convert-sample-profile-layout=nest"]),
    "deep-nesting": (10000, nested_binary, ".afdo", ["--sample", "--extbinary"]),
    "deep-nesting-text": (2000, nested_binary, ".afdo", ["--sample", "--text"]),
    "deep-text-read": (2000, nested_text, ".txt", ["--sample", "--binary"]),
    "many-targets": (100000, many_targets, ".txt", ["--sample", "--text"]),
    "many-targets-full": (100000, lambda n: many_targets(n, ":x"), ".txt", ["--sample", "--text"]),
    "many-vtables": (100000, many_vtables, ".txt", ["--sample", "--text"]),
    "same-name": (100000, same_name, ".proftext", []),
}


def run(cmd):
    """Wall seconds, or None if the command failed."""
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t if p.returncode == 0 else None


def measure(tools, args, inp, work, rounds):
    """Median time per tool (None if it failed) and whether the outputs are the same."""
    times = {name: [] for name in tools}
    for r in range(rounds):
        order = list(tools.items()) if r % 2 == 0 else list(tools.items())[::-1]
        for name, exe in order:
            out = os.path.join(work, name + ".out")
            t = run([exe, "merge"] + args + [inp, "-o", out])
            times[name].append(t)
    med = {n: (None if None in ts else statistics.median(ts)) for n, ts in times.items()}
    outs = [os.path.join(work, n + ".out") for n in tools]
    same = None
    if all(med[n] is not None for n in tools):
        with open(outs[0], "rb") as a, open(outs[1], "rb") as b:
            same = a.read() == b.read()
    return med, same


def fmt(t):
    return "failed" if t is None else "%.3f s" % t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every n")
    ap.add_argument("--pgo-merge", default=os.path.join(REPO, "target/release/pgo-merge"))
    ap.add_argument("--llvm", default="llvm-profdata-22")
    a = ap.parse_args()
    tools = {"pgo-merge": a.pgo_merge, "llvm-profdata": a.llvm}
    print("| shape | n, 2n | pgo-merge n | 2n | ratio | llvm-profdata n | 2n | ratio | outputs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="pgo-merge-hostile-") as work:
        for shape in a.shapes.split(","):
            n0, gen, suffix, args = SHAPES[shape]
            n = max(2, int(n0 * a.scale))
            res = []
            second = round(n * 2 ** 0.5) if shape in QUADRATIC_BYTES else 2 * n
            for size in (n, second):
                inp = os.path.join(work, "in" + suffix)
                with open(inp, "wb") as f:
                    f.write(gen(size))
                res.append(measure(tools, args, inp, work, a.rounds))
            cells = [shape, "%d, %d" % (n, second)]
            for name in tools:
                t1, t2 = res[0][0][name], res[1][0][name]
                ratio = "%.2f" % (t2 / t1) if t1 and t2 else "-"
                cells += [fmt(t1), fmt(t2), ratio]
            same = ["-" if s is None else ("same" if s else "DIFFER") for _, s in res]
            cells.append("n: %s, 2n: %s" % tuple(same))
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
