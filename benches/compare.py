#!/usr/bin/env python3
"""Side-by-side comparison of `pgo-merge` and `llvm-profdata merge` (issue 7).

    python3 benches/compare.py run FILES_OR_DIRS... [--rounds 5] [--threads 1,2] [--check]
    python3 benches/compare.py workload sqlite-raw|sqlite-indexed|sqlite-text|ripgrep-raw|sample-synthetic [--check] ...
    python3 benches/compare.py scaling [--grid 10000:1,10,100,1000 100000:1,10,100 ...]

`run` merges the same inputs (directories: their *.profraw files, sorted) with both tools,
alternating which goes first, for several rounds and each thread count, and prints for each
tool the median wall time, CPU time (user + system) and peak RSS, their ratios, and the time
of `cat` of the same files (the reading limit: the files are in the page cache, so that is
what copying their bytes out of the kernel costs). Both tools get the inputs as an
`--input-files` list, write to a file under --work, and run with no progress output. With
--check the outputs are compared byte for byte with `llvm-profdata merge --num-threads=1`
(the result we reproduce at every thread count).

`workload NAME` is `run` on a named set of real profiles, made first if its directory is empty
(see WORKLOADS: the script that makes each one, and where it puts the files), so that every
figure of docs/performance.md is one command.

`scaling` makes synthetic inputs with the generator (`cargo run --release --example
gen_profraw`), runs `run` on every (functions, files) cell of the grid and prints a Markdown
table with the time per input byte and the peak memory of both tools.

Timings on a shared machine are noisy: compare ratios and medians of alternating runs, not
single numbers. Figures, machine and dates: docs/performance.md.

The pgo-merge measured by default is target/release/pgo-merge (`cargo build --release`,
stripped). Timing needs no symbols; to profile the same code with perf, build
`cargo build --profile profiling` (same optimisation settings, with symbols) and pass
`--pgo-merge target/profiling/pgo-merge`.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# The LLVM profile files a directory argument contributes.
EXTENSIONS = (".profraw", ".profdata", ".proftext", ".afdo")

# Named workloads: their directory under --bench-dir, and how they are made when it is empty:
# by the named script (in benches/), or, "derived", by benches/sqlite-derived.sh from the
# raw sqlite profiles (which benches/sqlite-workload.sh makes first if needed).
WORKLOADS = {
    # 198 raw profiles of the sqlite shell (6 workloads x 33 runs), made with clang-22.
    "sqlite-raw": ("sqlite", "sqlite-workload.sh"),
    # The same 198 runs, each as its own indexed profile (llvm-profdata-22 merge).
    "sqlite-indexed": ("sqlite-indexed", "derived"),
    # The same 198 runs, each as its own text profile (llvm-profdata-22 merge --text).
    "sqlite-text": ("sqlite-text", "derived"),
    # 24 raw profiles of ripgrep 14.1.1 built by rustc with -Cprofile-generate (13k functions,
    # 1.8 MB each), searching cargo's registry sources.
    "ripgrep-raw": ("ripgrep", "ripgrep-workload.sh"),
    # 200 sample profiles (extbinary) of a synthetic program of 20,000 functions; merged with
    # `--sample` by both tools (SAMPLE_WORKLOADS).
    "sample-synthetic": ("sample-synthetic", "sample-synthetic.sh"),
}
# Workloads of sample profiles: both tools get `--sample` (llvm-profdata also `--extbinary`,
# which is its default; pgo-merge writes extbinary by default too).
SAMPLE_WORKLOADS = {"sample-synthetic"}


def expand(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(
                os.path.join(d, f)
                for d, _, fs in os.walk(p)
                for f in fs
                if f.endswith(EXTENSIONS)
            )
        else:
            out.append(p)
    return out


def workload_files(name, bench_dir):
    """The files of a named workload, made by its script first if there are none."""
    sub, maker = WORKLOADS[name]
    d = os.path.join(bench_dir, sub)
    files = expand([d]) if os.path.isdir(d) else []
    if not files:
        if maker == "derived":
            raw = os.path.join(bench_dir, "sqlite")
            if not (os.path.isdir(raw) and expand([raw])):
                subprocess.run(["bash", os.path.join(HERE, "sqlite-workload.sh"), raw], check=True)
            subprocess.run(
                ["bash", os.path.join(HERE, "sqlite-derived.sh"), raw,
                 os.path.join(bench_dir, "sqlite-indexed"), os.path.join(bench_dir, "sqlite-text")],
                check=True,
            )
        else:
            subprocess.run(["bash", os.path.join(HERE, maker), d], check=True)
        files = expand([d])
    return files


def measure(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd; returns (wall s, cpu s, peak RSS KiB).

    The peak RSS comes from GNU time's %M: a child forked by this Python process would report
    Python's own resident set as its peak (Linux keeps the high-water mark across exec), one
    forked by `time` does not. CPU time is the wait4 total of `time` and its child.
    """
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t0 = time.perf_counter()
        p = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd,
            stdout=stdout,
            stderr=subprocess.PIPE,
        )
        err = p.stderr.read().decode(errors="replace")
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.stderr.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            sys.exit(f"compare.py: {' '.join(cmd[:3])} ... failed ({p.returncode}):\n{err}")
        rss = int(tf.read().split()[-1])
    return wall, ru.ru_utime + ru.ru_stime, rss


def med(xs):
    return statistics.median(xs)


def run(files, rounds, threads, pgo, llvm, work, check, quiet=False, sample=False):
    os.makedirs(work, exist_ok=True)
    lst = os.path.join(work, "inputs.txt")
    with open(lst, "w") as f:
        f.write("".join(p + "\n" for p in files))
    total = sum(os.path.getsize(p) for p in files)
    out_l = os.path.join(work, "llvm.profdata")
    out_o = os.path.join(work, "ours.profdata")
    # Sample profiles: `merge --sample --extbinary` and `pgo-merge --sample`.
    lmode = ["--sample", "--extbinary"] if sample else []
    omode = ["--sample"] if sample else []
    # Warm the page cache.
    measure(["cat"] + files)
    if check:
        measure([llvm, "merge", *lmode, "--num-threads=1", "-o", out_l, "--input-files", lst])
    res = {}
    for t in threads:
        cmds = {
            "llvm": [llvm, "merge", *lmode, f"--num-threads={t}", "-o", out_l, "--input-files", lst],
            "ours": [pgo, "-q", *omode, "-j", str(t), "-o", out_o, "--input-files", lst],
        }
        if check:
            measure(cmds["ours"])
            ref = os.path.join(work, "ref.profdata")
            measure([llvm, "merge", *lmode, "--num-threads=1", "-o", ref, "--input-files", lst])
            with open(ref, "rb") as a, open(out_o, "rb") as b:
                if a.read() != b.read():
                    sys.exit(f"compare.py: output with -j {t} differs from llvm-profdata --num-threads=1")
        samples = {"llvm": [], "ours": [], "cat": []}
        for r in range(rounds):
            order = ["llvm", "ours"] if r % 2 == 0 else ["ours", "llvm"]
            for k in order:
                samples[k].append(measure(cmds[k]))
            samples["cat"].append(measure(["cat"] + files))
        res[t] = {
            k: {
                "wall": med([s[0] for s in v]),
                "cpu": med([s[1] for s in v]),
                "rss_kib": med([s[2] for s in v]),
            }
            for k, v in samples.items()
        }
        if not quiet:
            report(len(files), total, t, res[t], rounds)
    return total, res


def report(nfiles, total, t, r, rounds):
    l, o, c = r["llvm"], r["ours"], r["cat"]
    print(f"\n{nfiles} files, {total / 1e6:.1f} MB, {t} thread(s), median of {rounds} rounds")
    print(f"{'':24}{'wall s':>10}{'cpu s':>10}{'peak RSS MiB':>14}{'ns/byte':>10}")
    for name, x in (
        (f"llvm-profdata -j{t}", l),
        (f"pgo-merge -j{t}", o),
        ("cat (reading limit)", c),
    ):
        print(
            f"{name:24}{x['wall']:10.3f}{x['cpu']:10.3f}{x['rss_kib'] / 1024:14.1f}"
            f"{x['wall'] * 1e9 / total:10.2f}"
        )
    print(
        f"llvm/ours: wall {l['wall'] / o['wall']:.2f}x, cpu {l['cpu'] / o['cpu']:.2f}x, "
        f"RSS {l['rss_kib'] / o['rss_kib']:.2f}x; ours/cat wall {o['wall'] / c['wall']:.2f}x"
    )


def scaling(args):
    gen = os.path.join(REPO, "target/gen-profraw/release/gen_profraw")
    if not os.path.exists(gen):
        # A crate of its own: it builds without the main crate's dev-dependencies.
        subprocess.run(
            [
                "cargo", "build", "--release", "--locked",
                "--manifest-path", "benches/gen-profraw/Cargo.toml",
                "--target-dir", "target/gen-profraw",
            ],
            cwd=REPO,
            check=True,
        )
    rows = []
    for cell in args.grid:
        fns, counts = cell.split(":")
        fns = int(fns)
        for n in (int(x) for x in counts.split(",")):
            d = os.path.join(args.work, f"syn-{fns}")
            have = sorted(f for f in os.listdir(d)) if os.path.isdir(d) else []
            if len(have) < n:
                subprocess.run(
                    [gen, "--functions", str(fns), "--files", str(n - len(have)),
                     "--first", str(len(have)), "--out", d],
                    check=True,
                )
            files = [os.path.join(d, f"run-{i:05}.profraw") for i in range(n)]
            total, res = run(
                files, args.rounds, args.threads, args.pgo_merge, args.llvm,
                os.path.join(args.work, "out"), args.check, quiet=True,
            )
            for t, r in res.items():
                row = {"functions": fns, "files": n, "bytes": total, "threads": t, **r}
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
            if args.cleanup_over and total > args.cleanup_over:
                shutil.rmtree(d)
    print(
        "\n| functions | files | input MB | threads | llvm-profdata ns/byte | pgo-merge ns/byte "
        "| speed-up | cat ns/byte | llvm-profdata peak MiB | pgo-merge peak MiB |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        b = r["bytes"]
        print(
            f"| {r['functions']:,} | {r['files']} | {b / 1e6:.1f} | {r['threads']} "
            f"| {r['llvm']['wall'] * 1e9 / b:.2f} | {r['ours']['wall'] * 1e9 / b:.2f} "
            f"| {r['llvm']['wall'] / r['ours']['wall']:.1f}x | {r['cat']['wall'] * 1e9 / b:.2f} "
            f"| {r['llvm']['rss_kib'] / 1024:.0f} | {r['ours']['rss_kib'] / 1024:.0f} |"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgo-merge", default=os.path.join(REPO, "target/release/pgo-merge"))
    ap.add_argument("--llvm", default="llvm-profdata-22")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "pgo-merge-bench"))
    ap.add_argument("--check", action="store_true", help="compare outputs with llvm-profdata -j1")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("inputs", nargs="+")
    r.add_argument("--sample", action="store_true", help="the inputs are sample profiles")
    w = sub.add_parser("workload")
    w.add_argument("name", choices=sorted(WORKLOADS))
    w.add_argument(
        "--bench-dir", default="/tmp/pgo-merge-bench",
        help="where the workloads' directories are (their scripts' defaults)",
    )
    s = sub.add_parser("scaling")
    s.add_argument(
        "--grid", nargs="+",
        default=["10000:1,10,100,1000", "100000:1,10,100", "1000000:1,10"],
        help="FUNCTIONS:FILES,FILES,... cells",
    )
    s.add_argument(
        "--cleanup-over", type=int, default=0,
        help="delete a generated set after use when it is larger than this many bytes",
    )
    args = ap.parse_args()
    for tool in (args.pgo_merge, args.llvm):
        if shutil.which(tool) is None and not os.path.exists(tool):
            sys.exit(f"compare.py: {tool} not found (cargo build --release, or --profile profiling?)")
    if args.cmd in ("run", "workload"):
        if args.cmd == "run":
            files = expand(args.inputs)
            sample = args.sample
        else:
            files = workload_files(args.name, args.bench_dir)
            sample = args.name in SAMPLE_WORKLOADS
        if not files:
            sys.exit("compare.py: no inputs")
        run(files, args.rounds, args.threads, args.pgo_merge, args.llvm,
            os.path.join(args.work, "out"), args.check, sample=sample)
    else:
        scaling(args)


if __name__ == "__main__":
    main()
