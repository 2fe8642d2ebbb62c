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

    python3 benches/gen_sample_profiles.py --shape uniform --functions 10000 --files 200 --out DIR

writes the older, simpler shape of docs/sample-profiles.md's text-merge table instead
(DIR/pNNNN.txt): every profile has FUNCTIONS top-level functions drawn from the program's
1.5 x FUNCTIONS; a function has the same structure in every profile (5-40 body lines, some
with discriminators and call targets, a few inlined callees two levels deep), only its
counts (heavy-tailed, uniformly drawn) vary. Deterministic for a seed (an xorshift generator).
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


MASK = (1 << 64) - 1


class XorShift:
    """The xorshift64 generator of the uniform shape."""

    def __init__(self, state):
        self.state = state & MASK

    def next(self):
        x = self.state
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        self.state = x
        return x

    def below(self, n):
        return self.next() % max(n, 1)

    def count(self):
        """Heavy-tailed counts: mostly small, some very large."""
        mag = self.below(7)
        return self.below(10**mag + 1)


def uniform_name(i):
    return f"_ZN4app6module{i % 97}8functionEv{i}"


def uniform_body(shape, counts, out, indent, depth, names):
    """Appends one function's lines (structure from `shape`, counts from `counts`); returns
    its total."""
    pad = " " * indent
    total = 0
    line = 0
    for _ in range(5 + shape.below(36)):
        line += 1 + shape.below(4)
        c = counts.count()
        total += c
        text = f"{pad}{line}"
        if shape.below(5) == 0:
            text += f".{1 + shape.below(8)}"
        text += f": {c}"
        if shape.below(6) == 0:
            for _ in range(1 + shape.below(3)):
                text += f" {uniform_name(shape.below(names))}:{1 + counts.below(c + 1)}"
        out.append(text)
    if depth < 2:
        for _ in range(shape.below(3)):
            callee = uniform_name(shape.below(names))
            at = 1 + shape.below(max(line, 1))
            inner = []
            t = uniform_body(shape, counts, inner, indent + 1, depth + 1, names)
            total += t
            out.append(f"{pad}{at}: {callee}:{t}")
            out.extend(inner)
    return total


def uniform(a):
    names = a.functions * 3 // 2
    os.makedirs(a.out, exist_ok=True)
    for p in range(a.files):
        g = XorShift(((a.seed * 0x9E3779B97F4A7C15) & MASK) ^ (p + 1) ^ 0x5555)
        out = []
        seen = set()
        while len(seen) < a.functions:
            f = g.below(names)
            if f in seen:
                continue
            seen.add(f)
            lines = []
            shape = XorShift(a.seed ^ (((f + 1) * 0xD1B54A32D192ED03) & MASK))
            total = uniform_body(shape, g, lines, 1, 0, names)
            out.append(f"{uniform_name(f)}:{total}:{g.count()}")
            out.extend(lines)
        with open(os.path.join(a.out, f"p{p:04}.txt"), "w") as fh:
            fh.write("".join(x + "\n" for x in out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=20000)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--shape", choices=["zipf", "uniform"], default="zipf",
                    help="zipf (default): the benchmark's shape; uniform: the older one")
    a = ap.parse_args()
    if a.shape == "uniform":
        uniform(a)
        return
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
