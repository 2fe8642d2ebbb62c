#!/usr/bin/env python3
"""Synthetic LLVM sample profiles (AutoFDO text) of one imaginary program, one per run.

    python3 benches/gen_sample_profiles.py --functions 20000 --files 200 --out DIR [--seed 1]

Writes DIR/run-NNN.txt. The program is fixed by the seed: every function has a mangled-looking
name, a body of source lines (line offsets from the function's start, some with a
discriminator), call sites with one to three call targets, and inlined callees (other
functions of the program, nested up to three deep) at some lines. Function hotness follows a
Zipf-like law, and a run holds the hottest 30% of the functions and 40% of the others, as a
profile of one run of a real program holds what that run executed; counts are the
function's base counts times a per-run scale and a per-function noise. Totals are the sums of what lies below (body samples and
inlined totals), head samples a share of the first line's count.

The shape (functions, lines per function, call targets, inlining, the share of functions
present per run) follows what AutoFDO profiles of large programs look like; it is for
measuring merges (benches/sample-synthetic.sh turns the text into extbinary files with
llvm-profdata), not a model of any particular program.
"""

import argparse
import math
import os
import random

NAMESPACES = ["core", "net", "io", "db", "util", "http", "json", "sched", "mem", "rpc"]
WORDS = ["read", "write", "parse", "emit", "flush", "merge", "apply", "visit", "lookup",
         "insert", "erase", "grow", "hash", "encode", "decode", "run", "step", "poll"]


def mangled(rng, i):
    ns = rng.choice(NAMESPACES)
    cls = rng.choice(WORDS).capitalize() + rng.choice(WORDS).capitalize()
    fn = rng.choice(WORDS) + "_" + rng.choice(WORDS) + str(i)
    return f"_ZN{len(ns)}{ns}{len(cls)}{cls}{len(fn)}{fn}Ev"


class Body:
    """A function body (or an inlined copy): lines, call sites and inlined callees."""

    def __init__(self, rng, names, depth):
        n = max(1, min(200, int(rng.expovariate(1 / 8)) + 1))
        offsets = sorted(rng.sample(range(0, 3 * n + 1), n))
        self.lines = []  # (offset, discriminator, weight, targets)
        for off in offsets:
            disc = rng.choice([1, 2, 3]) if rng.random() < 0.1 else 0
            targets = []
            if rng.random() < 0.2:
                targets = rng.sample(names, rng.choice([1, 1, 1, 2, 3]))
            shares = [rng.random() + 0.1 for _ in targets]
            shares = [x / sum(shares) for x in shares]
            loc = f"{off}.{disc}" if disc else f"{off}"
            self.lines.append((loc, rng.random() ** 2, list(zip(targets, shares))))
        self.inlined = []  # (offset, callee, share of the caller's scale, Body)
        if depth < 3:
            for _ in range(rng.choice([0, 0, 0, 0, 1, 1, 2, 3] if depth == 0 else [0, 0, 1])):
                off = rng.randrange(0, 3 * n + 1)
                body = Body(rng, names, depth + 1)
                self.inlined.append((off, rng.choice(names), rng.uniform(0.2, 0.9), body))
            self.inlined.sort(key=lambda x: (x[0], x[1]))

    def render(self, scale, indent, out):
        """Appends this body's lines at `indent` spaces; returns (total, first line count)."""
        total, first = 0, None
        lines = []
        pad = " " * indent
        for loc, w, targets in self.lines:
            c = int(scale * w)
            if c == 0:
                continue
            rest = "".join(f" {t}:{max(1, int(c * s))}" for t, s in targets)
            lines.append(f"{pad}{loc}: {c}{rest}")
            total += c
            if first is None:
                first = c
        for off, callee, share, body in self.inlined:
            sub = []
            t, _ = body.render(scale * share, indent + 1, sub)
            if t == 0:
                continue
            lines.append(f"{pad}{off}: {callee}:{t}")
            lines.extend(sub)
            total += t
        out.extend(lines)
        return total, first or 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=20000)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    names = [mangled(rng, i) for i in range(a.functions)]
    bodies = [Body(rng, names, 0) for _ in names]
    # Hotness by rank (Zipf-like): base sample count of the hottest function ~2M.
    order = list(range(a.functions))
    rng.shuffle(order)
    hot = {f: 2_000_000 / (rank + 1) ** 1.1 for rank, f in enumerate(order)}
    rank_of = {f: rank for rank, f in enumerate(order)}
    os.makedirs(a.out, exist_ok=True)
    for r in range(a.files):
        run = random.Random(a.seed * 1_000_003 + r)
        scale = math.exp(run.gauss(0, 0.3))
        out = []
        for f, name in enumerate(names):
            # The hottest 30% run in every run, the others in 40% of the runs.
            if rank_of[f] > 0.3 * a.functions and run.random() > 0.4:
                continue
            base = hot[f] * scale * run.uniform(0.7, 1.3)
            lines = []
            total, first = bodies[f].render(base, 1, lines)
            if total == 0:
                continue
            head = int(first * run.uniform(0.3, 1.0))
            out.append(f"{name}:{total}:{head}")
            out.extend(lines)
        with open(os.path.join(a.out, f"run-{r:03}.txt"), "w") as fh:
            fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
