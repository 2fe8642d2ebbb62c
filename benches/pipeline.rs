//! Micro-benchmarks of the pipeline stages on the real profiles in `testdata/`: raw reading,
//! merging and indexed writing. Numbers for the comparison with llvm-profdata come from the
//! comparison script (see README), not from here.

use std::path::PathBuf;

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use pgo_merge::backends::profdata::{self, ProfdataOptions};
use pgo_merge::frontends::{self, profraw::NameCache};
use pgo_merge::passes::{InputSpec, MergeOptions, Weight, merge_files};

fn inputs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/profraw/clang22");
    [
        "ir-basic-run1",
        "ir-basic-run2",
        "merge-pool",
        "two-tu",
        "vtable-run1",
        "vtable-run2",
    ]
    .iter()
    .map(|n| dir.join(format!("{n}.profraw")))
    .collect()
}

fn bench(c: &mut Criterion) {
    let files = inputs();
    let bytes: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("testdata"))
        .collect();
    let total: u64 = bytes.iter().map(|b| b.len() as u64).sum();

    let mut g = c.benchmark_group("raw_reader");
    g.throughput(Throughput::Bytes(total));
    g.bench_function("read 6 profraws, cold name cache", |b| {
        b.iter(|| {
            let cache = NameCache::new();
            for data in &bytes {
                black_box(frontends::read(data, &cache).expect("read"));
            }
        })
    });
    g.bench_function("read 6 profraws, warm name cache", |b| {
        let cache = NameCache::new();
        b.iter(|| {
            for data in &bytes {
                black_box(frontends::read(data, &cache).expect("read"));
            }
        })
    });
    g.finish();

    let specs: Vec<InputSpec> = files
        .iter()
        .map(|p| InputSpec {
            path: p.clone(),
            weight: Weight::ONE,
        })
        .collect();
    let opts = MergeOptions {
        threads: 1,
        ..MergeOptions::default()
    };
    let mut g = c.benchmark_group("merge");
    g.throughput(Throughput::Bytes(total));
    g.bench_function("merge_files 6 inputs, 1 thread", |b| {
        b.iter(|| black_box(merge_files(&specs, &opts, None).expect("merge")))
    });
    g.finish();

    let merged = merge_files(&specs, &opts, None).expect("merge").profile;
    c.bench_function("profdata writer v13", |b| {
        b.iter(|| black_box(profdata::write(&merged, &ProfdataOptions::default()).expect("write")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
