//! Writes synthetic LLVM text sample profiles of realistic shape for benchmarks:
//! `cargo run --release --example gen_sample_profiles -- DIR COUNT FUNCTIONS [SEED]`.
//!
//! Every profile has FUNCTIONS top-level functions drawn from one program's 1.5 × FUNCTIONS
//! names (so profiles overlap as runs of one program do), each with 5–40 body lines (some
//! with discriminators and call targets) and a few inlined callees two levels deep; counts
//! are heavy-tailed. Deterministic for a seed.

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

fn body(g: &mut Gen, out: &mut String, indent: usize, depth: u32, names: u64) -> u64 {
    let pad = " ".repeat(indent);
    let mut total = 0;
    for _ in 0..5 + g.below(36) {
        let c = g.count();
        total += c;
        let _ = write!(out, "{pad}{}", g.below(200));
        if g.below(5) == 0 {
            let _ = write!(out, ".{}", 1 + g.below(8));
        }
        let _ = write!(out, ": {c}");
        if g.below(6) == 0 {
            for _ in 0..1 + g.below(3) {
                let _ = write!(out, " {}:{}", name(g.below(names)), 1 + g.below(c + 1));
            }
        }
        out.push('\n');
    }
    if depth < 2 {
        for _ in 0..g.below(3) {
            let callee = name(g.below(names));
            let mut inner = String::new();
            let t = body(g, &mut inner, indent + 1, depth + 1, names);
            total += t;
            let _ = writeln!(out, "{pad}{}: {callee}:{t}", g.below(200));
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
            let total = body(&mut g, &mut lines, 1, 0, names);
            let _ = writeln!(out, "{}:{total}:{}", name(f), g.count());
            out.push_str(&lines);
        }
        std::fs::write(dir.join(format!("p{p:04}.txt")), out).expect("write");
    }
}
