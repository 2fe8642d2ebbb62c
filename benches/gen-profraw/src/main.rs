//! Generator of synthetic raw profiles for the benchmarks (issue 7): the `.profraw` files that
//! many runs of one (imaginary) instrumented program would write.
//!
//! ```text
//! cargo build --release --locked --manifest-path benches/gen-profraw/Cargo.toml --target-dir target/gen-profraw
//! target/gen-profraw/release/gen_profraw --functions 100000 --files 10 --out DIR [--seed S]
//! ```
//!
//! writes `DIR/run-00000.profraw` … : raw profile version 10 (what clang 19–22 and rustc write
//! and `llvm-profdata-22` reads), 64-bit little-endian, IR-level instrumentation. All files
//! share one binary: the same names section (zlib-compressed, as the runtime writes it), the
//! same data records (name hash, structural hash, counter pointers, value-site counts) and
//! binary ID; what differs between files is what differs between runs — the counter values,
//! the values seen at value sites, and, as with a position-independent executable under
//! ASLR, the load address (every `FunctionPointer` and indirect-call target moves by the same
//! per-run offset, and so does the header's BitmapDelta, the distance to the absent bitmap
//! section).
//!
//! Densities follow the sqlite shell built with clang-22 (`benches/sqlite-workload.sh`):
//! ~14.6 counters per function, ~30 % of functions with value sites (~3.5 sites each, 4 in
//! 5 of them indirect calls, the rest memory-operation sizes); per run about 40 % of the
//! functions execute, entry counts are heavy-tailed, and an executed site sees 1–6 values;
//! an indirect-call site's targets come from its own fixed set of 1–8 (one in ten outside the
//! binary), so merged sites stay as small as real programs' are.
//! Everything derives from `--seed` and the file number, so the same command writes the same
//! bytes.

// The binary is a set of parallel arrays indexed by function number.
#![allow(clippy::needless_range_loop)]

use std::io::Write;
use std::path::PathBuf;

use pgo_merge::codec::names_blob;
use pgo_merge::ir::name_hash::md5_hash;

/// splitmix64: small, fast, good enough for synthetic data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// The fixed part of the program: functions and their shapes.
pub struct Binary {
    names: Vec<Vec<u8>>,
    name_refs: Vec<u64>,
    cfg_hashes: Vec<u64>,
    num_counters: Vec<u32>,
    /// Indirect-call and mem-op sites.
    sites: Vec<[u16; 2]>,
    /// Probability that a run executes the function.
    hotness: Vec<f64>,
    /// Offset of each function from the load address.
    code_offsets: Vec<u64>,
    names_blob: Vec<u8>,
    binary_id: [u8; 20],
}

impl Binary {
    /// A program of `n` functions; everything derives from `seed`.
    pub fn new(n: usize, seed: u64) -> Binary {
        let mut r = Rng(seed ^ 0x5151_5151);
        let words = [
            "parse", "eval", "alloc", "free", "lookup", "insert", "hash", "cmp", "walk", "emit",
            "read", "write", "sort", "merge", "scan", "init", "drop", "visit", "lower", "fold",
        ];
        let mut names = Vec::with_capacity(n);
        let mut b = Binary {
            names: Vec::new(),
            name_refs: Vec::with_capacity(n),
            cfg_hashes: Vec::with_capacity(n),
            num_counters: Vec::with_capacity(n),
            sites: Vec::with_capacity(n),
            hotness: Vec::with_capacity(n),
            code_offsets: Vec::with_capacity(n),
            names_blob: Vec::new(),
            binary_id: [0; 20],
        };
        let mut code = 0x1000u64;
        for i in 0..n {
            let w1 = words[r.below(words.len() as u64) as usize];
            let w2 = words[r.below(words.len() as u64) as usize];
            // A mix of file-local (`file.c;name`) and global IR-PGO names, some of them long
            // (mangled C++/Rust names are).
            let name = match r.below(4) {
                0 => format!("src/module_{}.c;{w1}_{w2}_{i}", i % 997),
                1 => format!(
                    "_ZN5crate{}{w1}{}{w2}_{i}17h{:016x}E",
                    i % 89,
                    i % 7,
                    r.next()
                ),
                _ => format!("{w1}_{w2}_{i}"),
            };
            b.name_refs.push(md5_hash(name.as_bytes()));
            names.push(name.into_bytes());
            b.cfg_hashes.push(r.next() & 0x0fff_ffff_ffff_ffff);
            // 1 counter for a straight-line function, otherwise ~geometric around 16.
            let nc = if r.chance(0.25) {
                1
            } else {
                2 + (r.below(8) + r.below(8) + r.below(12) + r.below(12)) as u32
            };
            b.num_counters.push(nc);
            let sites = if r.chance(0.30) {
                let total = 1 + r.below(6) as u16;
                let memop = (0..total).filter(|_| r.chance(0.2)).count() as u16;
                [total - memop, memop]
            } else {
                [0, 0]
            };
            b.sites.push(sites);
            b.hotness.push(if r.chance(0.35) {
                0.95
            } else if r.chance(0.3) {
                0.3
            } else {
                0.02
            });
            b.code_offsets.push(code);
            code += 16 * (4 + r.below(200));
        }
        b.names_blob = names_blob::encode(names.iter().map(|n| n.as_slice()), true);
        b.names = names;
        for (k, byte) in b.binary_id.iter_mut().enumerate() {
            *byte = (seed.rotate_left(k as u32 * 3) ^ (k as u64 * 0x3b)) as u8;
        }
        b
    }
}

fn put64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn pad8(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
}

/// Writes the profile of run `run` into `out`.
pub fn write_run(b: &Binary, run: u64, seed: u64, out: &mut Vec<u8>) {
    out.clear();
    let n = b.names.len();
    let mut r = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ run.wrapping_mul(0x9e37));
    // ASLR: a page-aligned load address per run.
    let base = 0x5555_0000_0000u64 + (r.below(1 << 28) << 12);
    let total_counters: u64 = b.num_counters.iter().map(|&c| u64::from(c)).sum();
    let data_bytes = 64 * n as u64;
    let counters_bytes = 8 * total_counters;
    // In memory the counters come first, then the data records (as with lld and GNU ld).
    let counters_delta = 0u64.wrapping_sub(counters_bytes);

    // Header (16 words, version 10).
    put64(out, 0xff6c_7072_6f66_7281);
    put64(out, 10 | (1 << 56)); // IR-level
    put64(out, 32); // binary IDs: 8 + 20 + 4 padding
    put64(out, n as u64);
    put64(out, 0);
    put64(out, total_counters);
    put64(out, 0);
    put64(out, 0); // no MC/DC bitmaps
    put64(out, 0);
    put64(out, b.names_blob.len() as u64);
    put64(out, counters_delta);
    // BitmapDelta: with no bitmap section its start symbol is null, so this is `0 − data
    // start`, which moves with the load address (as in every run of a real PIE).
    put64(out, 0u64.wrapping_sub(base + 0x70_0000));
    put64(out, base + 0x80_0000);
    put64(out, 0); // vtables
    put64(out, 0);
    put64(out, 2); // ValueKindLast
    put64(out, 20);
    out.extend_from_slice(&b.binary_id);
    pad8(out);

    // Data records.
    let mut off = 0u64;
    for i in 0..n {
        put64(out, b.name_refs[i]);
        put64(out, b.cfg_hashes[i]);
        let rec = 64 * i as u64;
        put64(out, counters_delta.wrapping_add(off).wrapping_sub(rec));
        put64(out, 0); // BitmapPtr: no bitmap bytes
        put64(out, base + b.code_offsets[i]);
        put64(out, 0); // Values: the runtime's pointer, not used by readers
        out.extend_from_slice(&b.num_counters[i].to_le_bytes());
        out.extend_from_slice(&b.sites[i][0].to_le_bytes());
        out.extend_from_slice(&b.sites[i][1].to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // vtable sites
        out.extend_from_slice(&0u16.to_le_bytes()); // padding
        out.extend_from_slice(&0u32.to_le_bytes()); // bitmap bytes
        off += 8 * u64::from(b.num_counters[i]);
    }
    debug_assert_eq!(out.len() as u64, 128 + 32 + data_bytes);

    // Counters.
    let mut executed = vec![false; n];
    for i in 0..n {
        let nc = b.num_counters[i];
        executed[i] = r.chance(b.hotness[i]);
        if !executed[i] {
            out.extend(std::iter::repeat_n(0u8, 8 * nc as usize));
            continue;
        }
        // Heavy-tailed entry counts: 1 to ~10^6.
        let bits = r.below(21);
        let entry = 1 + r.below(1 << bits);
        for k in 0..nc {
            let c = if k == 0 {
                entry
            } else if r.chance(0.3) {
                0
            } else {
                let loops = 1 + r.below(4);
                r.below(entry.saturating_mul(loops) + 1)
            };
            put64(out, c);
        }
    }

    // Names.
    out.extend_from_slice(&b.names_blob);
    pad8(out);

    // Value-profile blocks, one per record with sites, in record order.
    for i in 0..n {
        let [ic, memop] = b.sites[i];
        if ic == 0 && memop == 0 {
            continue;
        }
        let block_at = out.len();
        put64(out, 0); // TotalSize and NumValueKinds, patched below
        let mut kinds = 0u32;
        for (kind, nsites) in [(0u32, ic), (1u32, memop)] {
            if nsites == 0 {
                continue;
            }
            kinds += 1;
            let mut sites: Vec<Vec<(u64, u64)>> = Vec::with_capacity(nsites as usize);
            for site in 0..nsites {
                let mut vals: Vec<(u64, u64)> = Vec::new();
                // What a call site can reach is a property of the program, not of the run:
                // each indirect-call site has its own 1–8 possible targets (one in ten
                // outside the binary), of which a run sees some.
                let mut cands = Rng(seed ^ (i as u64) << 20 ^ u64::from(site) << 4 ^ 0xca11);
                let ncands = 1 + cands.below(8);
                if executed[i] && r.chance(0.8) {
                    let k = 1 + r.below(if kind == 0 { 4 } else { 6 });
                    for _ in 0..k {
                        let v = if kind == 0 {
                            let mut t = Rng(cands.0 ^ r.below(ncands).wrapping_mul(0x9e37_79b9));
                            if t.chance(0.1) {
                                base + 0x7f_0000 + 16 * t.below(4096) // not a function
                            } else {
                                base + b.code_offsets[t.below(n as u64) as usize]
                            }
                        } else {
                            [
                                0u64, 1, 2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256, 512, 1024,
                            ][r.below(16) as usize]
                        };
                        if !vals.iter().any(|&(x, _)| x == v) {
                            let bits = r.below(16);
                            vals.push((v, 1 + r.below(1 << bits)));
                        }
                    }
                }
                sites.push(vals);
            }
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&u32::from(nsites).to_le_bytes());
            for s in &sites {
                out.push(s.len() as u8);
            }
            pad8(out);
            for s in &sites {
                for &(v, c) in s {
                    put64(out, v);
                    put64(out, c);
                }
            }
        }
        let total = (out.len() - block_at) as u32;
        out[block_at..block_at + 4].copy_from_slice(&total.to_le_bytes());
        out[block_at + 4..block_at + 8].copy_from_slice(&kinds.to_le_bytes());
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: gen_profraw --functions N --files K --out DIR [--seed S] [--first I]\n\
         writes DIR/run-I.profraw … DIR/run-(I+K-1).profraw"
    );
    std::process::exit(2)
}

fn main() {
    let mut functions = 10_000usize;
    let mut files = 1u64;
    let mut first = 0u64;
    let mut seed = 1u64;
    let mut out_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--functions" => functions = val().parse().unwrap_or_else(|_| usage()),
            "--files" => files = val().parse().unwrap_or_else(|_| usage()),
            "--first" => first = val().parse().unwrap_or_else(|_| usage()),
            "--seed" => seed = val().parse().unwrap_or_else(|_| usage()),
            "--out" => out_dir = Some(PathBuf::from(val())),
            _ => usage(),
        }
    }
    let Some(dir) = out_dir else { usage() };
    if functions == 0 {
        usage();
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("gen_profraw: {}: {e}", dir.display());
        std::process::exit(1);
    }
    let b = Binary::new(functions, seed);
    let mut buf = Vec::new();
    let mut bytes = 0u64;
    for run in first..first + files {
        write_run(&b, run, seed, &mut buf);
        let path = dir.join(format!("run-{run:05}.profraw"));
        let res = std::fs::File::create(&path).and_then(|mut f| f.write_all(&buf));
        if let Err(e) = res {
            eprintln!("gen_profraw: {}: {e}", path.display());
            std::process::exit(1);
        }
        bytes += buf.len() as u64;
    }
    eprintln!(
        "gen_profraw: {files} files, {functions} functions each, {:.1} MB in {}",
        bytes as f64 / 1e6,
        dir.display()
    );
}
