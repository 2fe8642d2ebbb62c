//! Writes synthetic LLVM text sample profiles of realistic shape for benchmarks:
//! `cargo run --release --example gen_sample_profiles -- DIR COUNT FUNCTIONS [SEED]`.
//!
//! Every profile has FUNCTIONS top-level functions drawn from one program's 1.5 × FUNCTIONS
//! functions. A function has the same shape in every profile, as in runs of one program: 5–40
//! body lines (some with discriminators and call targets) and a few inlined callees two
//! levels deep, all chosen from the function's number; only the counts (heavy-tailed) vary
//! from profile to profile. Deterministic for a seed.

use std::fmt::Write as _;
use std::path::PathBuf;

struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// Heavy-tailed counts: mostly small, some very large.
    fn count(&mut self) -> u64 {
        let mag = self.below(7) as u32;
        self.below(10u64.pow(mag) + 1)
    }
}

fn name(i: u64) -> String {
    format!("_ZN4app6module{}8functionEv{i}", i % 97)
}

/// The lines of one function: `shape` draws its structure (the same in every profile),
/// `counts` its counts.
fn body(
    shape: &mut Gen,
    counts: &mut Gen,
    out: &mut String,
    indent: usize,
    depth: u32,
    names: u64,
) -> u64 {
    let pad = " ".repeat(indent);
    let mut total = 0;
    let mut line = 0;
    for _ in 0..5 + shape.below(36) {
        line += 1 + shape.below(4);
        let c = counts.count();
        total += c;
        let _ = write!(out, "{pad}{line}");
        if shape.below(5) == 0 {
            let _ = write!(out, ".{}", 1 + shape.below(8));
        }
        let _ = write!(out, ": {c}");
        if shape.below(6) == 0 {
            for _ in 0..1 + shape.below(3) {
                let _ = write!(
                    out,
                    " {}:{}",
                    name(shape.below(names)),
                    1 + counts.below(c + 1)
                );
            }
        }
        out.push('\n');
    }
    if depth < 2 {
        for _ in 0..shape.below(3) {
            let callee = name(shape.below(names));
            let at = 1 + shape.below(line.max(1));
            let mut inner = String::new();
            let t = body(shape, counts, &mut inner, indent + 1, depth + 1, names);
            total += t;
            let _ = writeln!(out, "{pad}{at}: {callee}:{t}");
            out.push_str(&inner);
        }
    }
    total
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: gen_sample_profiles DIR COUNT FUNCTIONS [SEED]");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&args[1]);
    let count: u64 = args[2].parse().expect("COUNT");
    let functions: u64 = args[3].parse().expect("FUNCTIONS");
    let seed: u64 = args.get(4).map_or(1, |s| s.parse().expect("SEED"));
    std::fs::create_dir_all(&dir).expect("create DIR");
    let names = functions * 3 / 2;
    for p in 0..count {
        let mut g = Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (p + 1) ^ 0x5555);
        let mut out = String::new();
        let mut seen = std::collections::HashSet::new();
        while (seen.len() as u64) < functions {
            let f = g.below(names);
            if !seen.insert(f) {
                continue;
            }
            let mut lines = String::new();
            let mut shape = Gen(seed ^ (f + 1).wrapping_mul(0xd1b5_4a32_d192_ed03));
            let total = body(&mut shape, &mut g, &mut lines, 1, 0, names);
            let _ = writeln!(out, "{}:{total}:{}", name(f), g.count());
            out.push_str(&lines);
        }
        std::fs::write(dir.join(format!("p{p:04}.txt")), out).expect("write");
    }
}
