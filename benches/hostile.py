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

Without --shapes the script runs the first eight shapes below; concat-raw, many-files,
long-stack and nul-map run only when named.

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
  with distinct hashes, written as an indexed profile;
* concat-raw (20,000): one file of n raw profiles appended (`cat` of one clang 19 raw file
  n times, 27 MB at n), merged as an indexed profile (200 copies take milliseconds, below
  the noise of a shared machine, hence the larger default);
* many-files (2,000): n copies of one raw file in a directory, merged by naming the
  directory;
* long-stack (100,000): `pgo-merge symbolize` of a `perf script` text (default layout) of
  one sample whose call chain has n JIT frames, each named by its own line of a perf map,
  written as folded stacks; pgo-merge only (`-` in the llvm-profdata columns). Its cost
  grows with the square of n for now (500,000 frames take minutes: docs/performance.md);
* nul-map (100,000): a perf map of n lines where every second line is glued to the one
  before by a NUL instead of a newline (as some runtimes leave them: testdata/jit/nul-map), and
  n samples of three frames in those addresses, written as folded stacks; pgo-merge only.

For concat-raw, many-files, long-stack and nul-map the script also runs each tool once more
under `/usr/bin/time -f %M` and prints a second table of peak resident memory (KiB) at n
and 2n.

Figures, machine and dates: docs/performance.md, "Hostile input shapes".
"""

import argparse
import os
import shutil
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


RAW = os.path.join(REPO, "testdata/profraw/clang19/ir-basic-run1.profraw")


def concat_raw(n, d):
    """One file of n copies of RAW, end to end."""
    inp = os.path.join(d, "concat.profraw")
    with open(RAW, "rb") as f:
        raw = f.read()
    with open(inp, "wb") as f:
        for _ in range(n):
            f.write(raw)
    args = ["merge", inp]
    return args, args, ".profdata"


def many_files(n, d):
    """A directory of n copies of RAW."""
    src = os.path.join(d, "profiles")
    os.mkdir(src)
    with open(RAW, "rb") as f:
        raw = f.read()
    for i in range(n):
        with open(os.path.join(src, "p%d.profraw" % i), "wb") as f:
            f.write(raw)
    args = ["merge", src]
    return args, args, ".profdata"


JIT_BASE = 0x7F0000000000
PID = 4242


def perf_map_line(i):
    return "%x 10 JS:f%d" % (JIT_BASE + 0x10 * i, i)


def perf_frame(i):
    return "\t%16x [unknown] (/tmp/perf-%d.map)\n" % (JIT_BASE + 0x10 * i + 4, PID)


def perf_header(t):
    """A sample header of the default `perf script` layout."""
    return "node  %d/%d   %d.%06d:          1 cpu-clock:pppH: \n" % (PID, PID, 100 + t // 10**6, t % 10**6)


def symbolize_args(d, script, perf_map):
    sp, mp = os.path.join(d, "perf.script.txt"), os.path.join(d, "perf-%d.map" % PID)
    with open(sp, "w") as f:
        f.write(script)
    with open(mp, "wb") as f:
        f.write(perf_map)
    return ["symbolize", "--perf-script", sp, "--perf-map", mp]


def long_stack(n, d):
    """One sample of n frames, each its own perf-map entry (innermost first, as perf prints)."""
    script = perf_header(1) + "".join(perf_frame(i) for i in range(n)) + "\n"
    perf_map = "".join(perf_map_line(i) + "\n" for i in range(n)).encode()
    return symbolize_args(d, script, perf_map), None, ".folded"


def nul_map(n, d):
    """n perf-map lines, every second glued on by a NUL; n samples of three frames."""
    lines = [perf_map_line(i).encode() for i in range(n)]
    perf_map = b"".join(l + (b"\0" if i % 2 == 0 else b"\n") for i, l in enumerate(lines))
    samples = []
    for s in range(n):
        frames = ((s * 7919 + k * 104729) % n for k in range(3))
        samples.append(perf_header(s) + "".join(perf_frame(i) for i in frames) + "\n")
    return symbolize_args(d, "".join(samples), perf_map), None, ".folded"


# Shapes that make their own inputs in a directory: (default n, builder). A builder takes
# (n, directory) and returns (pgo-merge arguments, llvm-profdata arguments or None when
# llvm-profdata has no such command, output suffix); the script adds `-o OUT`. Each of
# these is also run once under /usr/bin/time for its peak resident memory.
BUILT = {
    "concat-raw": (20000, concat_raw),
    "many-files": (2000, many_files),
    "long-stack": (100000, long_stack),
    "nul-map": (100000, nul_map),
}

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


NOT_RUN = object()


def run(cmd):
    """Wall seconds, or None if the command failed."""
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t if p.returncode == 0 else None


def peak_rss(cmd, work):
    """Peak resident set of one run (KiB, from /usr/bin/time), or None if it failed."""
    rss = os.path.join(work, "rss.txt")
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        return None
    with open(rss) as f:
        return int(f.read().split()[-1])


def measure(cmds, work, rounds, rss=False):
    """Median time per tool (None if it failed, NOT_RUN if the tool has no command), whether
    the outputs are the same, and (with rss) each tool's peak RSS. `cmds` maps each tool to
    its command line without the output, or None; the output goes to work/TOOL + suffix."""
    cmds, suffix = cmds
    tools = [n for n, c in cmds.items() if c is not None]
    outs = {n: os.path.join(work, n + suffix) for n in tools}
    times = {name: [] for name in tools}
    for r in range(rounds):
        order = tools if r % 2 == 0 else tools[::-1]
        for name in order:
            times[name].append(run(cmds[name] + ["-o", outs[name]]))
    med = {n: NOT_RUN for n in cmds}
    med.update({n: (None if None in ts else statistics.median(ts)) for n, ts in times.items()})
    same = None
    if len(tools) == 2 and all(med[n] is not None for n in tools):
        with open(outs[tools[0]], "rb") as a, open(outs[tools[1]], "rb") as b:
            same = a.read() == b.read()
    mem = {n: NOT_RUN for n in cmds}
    if rss:
        mem.update({n: peak_rss(cmds[n] + ["-o", outs[n]], work) for n in tools})
    return med, same, mem


def commands(shape, size, tools, d):
    """Writes the inputs of `shape` at `size` into the directory `d`, and returns
    ({tool: command line without `-o OUT`, or None}, output suffix)."""
    if shape in BUILT:
        ours, llvm, suffix = BUILT[shape][1](size, d)
    else:
        _, gen, in_suffix, args = SHAPES[shape]
        inp = os.path.join(d, "in" + in_suffix)
        with open(inp, "wb") as f:
            f.write(gen(size))
        ours = llvm = ["merge"] + args + [inp]
        suffix = ".out"
    exes = list(tools.values())
    return {"pgo-merge": [exes[0]] + ours,
            "llvm-profdata": None if llvm is None else [exes[1]] + llvm}, suffix


def fmt(t):
    return "-" if t is NOT_RUN else "failed" if t is None else "%.3f s" % t


def fmt_kib(k):
    return "-" if k is NOT_RUN else "failed" if k is None else "%d" % k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", default=",".join(SHAPES),
                    help="comma-separated; default: the eight merge shapes of SHAPES; also: "
                    + ", ".join(BUILT))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every n")
    ap.add_argument("--pgo-merge", default=os.path.join(REPO, "target/release/pgo-merge"))
    ap.add_argument("--llvm", default="llvm-profdata-22")
    a = ap.parse_args()
    tools = {"pgo-merge": a.pgo_merge, "llvm-profdata": a.llvm}
    print("| shape | n, 2n | pgo-merge n | 2n | ratio | llvm-profdata n | 2n | ratio | outputs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    memory = []
    with tempfile.TemporaryDirectory(prefix="pgo-merge-hostile-") as work:
        for shape in a.shapes.split(","):
            n0 = BUILT[shape][0] if shape in BUILT else SHAPES[shape][0]
            n = max(2, int(n0 * a.scale))
            res = []
            second = round(n * 2 ** 0.5) if shape in QUADRATIC_BYTES else 2 * n
            for size in (n, second):
                d = tempfile.mkdtemp(dir=work)
                res.append(measure(commands(shape, size, tools, d), work, a.rounds,
                                   rss=shape in BUILT))
                shutil.rmtree(d)  # the inputs (up to 54 MB) go before the next are made
            cells = [shape, "%d, %d" % (n, second)]
            for name in tools:
                t1, t2 = res[0][0][name], res[1][0][name]
                ratio = "%.2f" % (t2 / t1) if fmt(t1).endswith(" s") and fmt(t2).endswith(" s") else "-"
                cells += [fmt(t1), fmt(t2), ratio]
            same = ["-" if s is None else ("same" if s else "DIFFER") for _, s, _ in res]
            cells.append("n: %s, 2n: %s" % tuple(same))
            print("| " + " | ".join(cells) + " |", flush=True)
            if shape in BUILT:
                memory.append([shape, "%d, %d" % (n, second)]
                              + [fmt_kib(res[i][2][t]) for t in tools for i in (0, 1)])
    if memory:
        print()
        print("| shape | n, 2n | pgo-merge peak RSS n (KiB) | 2n | llvm-profdata n | 2n |")
        print("|---|---:|---:|---:|---:|---:|")
        for cells in memory:
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
