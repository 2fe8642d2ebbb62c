//! Shared by `benches/iprof.rs` and `examples/iprof_copies.rs`: the real 4 MB iprof file by
//! another author (tommyettinger/assorted-benchmarks), which the repository does not hold, and
//! copies of it with shuffled ids (the workload of issue 4's speed and memory acceptance).
//!
//! The file is read from `../shared/testdata-external/iprof/` beside the repository (or from
//! the folder named by `PGO_MERGE_TESTDATA_EXTERNAL`, as in the tests). When it is absent the
//! benchmarks stop with a message saying so: they do not fall back to a smaller file, whose
//! timings would not be comparable with the recorded ones.

use std::path::{Path, PathBuf};

use pgo_merge::backends::iprof as writer;
use pgo_merge::frontends::iprof as reader;
use pgo_merge::ir::java_symbols::{MethodId, TypeId};
use pgo_merge::passes::normalise::renumbered;

/// The real 0.4.0 file (3,988,557 bytes).
pub fn real_file() -> Vec<u8> {
    let dir = match std::env::var_os("PGO_MERGE_TESTDATA_EXTERNAL") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata-external"),
    };
    let p = dir.join("iprof/tommyettinger-assorted-benchmarks.default.iprof");
    std::fs::read(&p).unwrap_or_else(|e| {
        panic!(
            "the iprof benchmarks need the real profile {} ({e}); it is third-party data kept \
             in shared/testdata-external/ beside the repository, not in the repository",
            p.display()
        )
    })
}

/// A deterministic permutation of 0..n (xorshift-driven Fisher–Yates).
pub fn permutation(n: usize, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n as u32).collect();
    let mut s = seed | 1;
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let j = (s % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// Writes `n` copies of the profile in `data`, each with its own permutation of type and
/// method ids, to `dir/copyNN.iprof`; returns their paths.
pub fn shuffled_copies(data: &[u8], n: usize, dir: &Path) -> Vec<PathBuf> {
    let p = reader::read_profile(data).expect("read");
    (0..n)
        .map(|k| {
            let t: Vec<TypeId> = permutation(p.symbols.type_count(), 7 + k as u64)
                .into_iter()
                .map(TypeId)
                .collect();
            let m: Vec<MethodId> = permutation(p.symbols.method_count(), 1000 + k as u64)
                .into_iter()
                .map(MethodId)
                .collect();
            let q = renumbered(&p, &t, &m);
            let path = dir.join(format!("copy{k:02}.iprof"));
            std::fs::write(&path, writer::to_vec(&q)).expect("write");
            path
        })
        .collect()
}
