//! Micro-benchmarks of the pipeline stages: raw reading, merging and indexed writing, on the
//! real profiles in `testdata/` and on synthetic profiles of a 10 000-function binary (the
//! generator of `benches/gen-profraw/src/main.rs`). Numbers for the comparison with llvm-profdata come
//! from `benches/compare.py` (see docs/performance.md), not from here.

use std::path::PathBuf;

use criterion::{Criterion, Throughput, black_box, criterion_group, criterion_main};
use pgo_merge::backends::profdata::{self, ProfdataOptions};
use pgo_merge::frontends::profraw::layout::RawLayout;
use pgo_merge::frontends::{self, profraw::NameCache};
use pgo_merge::passes::{MergeOptions, Weight};
use pgo_merge::pipeline::{InputSpec, merge_files};

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
        .map(|p| InputSpec::new(p.clone(), Weight::ONE))
        .collect();
    let mut opts = MergeOptions::default();
    opts.threads = 1;
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

#[allow(dead_code)]
#[path = "gen-profraw/src/main.rs"]
mod gen_profraw;

/// Synthetic inputs: 16 runs of a 10 000-function binary (about 2.2 MB each).
fn synthetic(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let binary = gen_profraw::Binary::new(10_000, 1);
    let mut files = Vec::new();
    let mut total = 0u64;
    for run in 0..16 {
        let mut buf = Vec::new();
        gen_profraw::write_run(&binary, run, 1, &mut buf);
        let path = dir.path().join(format!("run-{run}.profraw"));
        std::fs::write(&path, &buf).expect("write");
        total += buf.len() as u64;
        files.push((path, buf));
    }
    let one = &files[0].1;
    let mut g = c.benchmark_group("synthetic 10k functions");
    g.throughput(Throughput::Bytes(one.len() as u64));
    g.bench_function("full reader, 1 file", |b| {
        b.iter(|| {
            let cache = NameCache::new();
            black_box(frontends::read(one, &cache).expect("read"));
        })
    });
    let cache = NameCache::new();
    let r = frontends::read(one, &cache).expect("read");
    let layout = RawLayout::learn(one, r.profile.kind, r.profile.names.clone()).expect("layout");
    let other = &files[1].1;
    g.bench_function("layout scan, 1 file", |b| {
        b.iter(|| black_box(layout.scan(other).expect("same binary")))
    });
    g.throughput(Throughput::Bytes(total));
    let specs: Vec<InputSpec> = files
        .iter()
        .map(|(p, _)| InputSpec::new(p.clone(), Weight::ONE))
        .collect();
    for threads in [1, 2] {
        let mut opts = MergeOptions::default();
        opts.threads = threads;
        g.bench_function(format!("merge_files 16 files, {threads} thread(s)"), |b| {
            b.iter(|| black_box(merge_files(&specs, &opts, None).expect("merge")))
        });
    }
    let merged = merge_files(&specs, &MergeOptions::default(), None)
        .expect("merge")
        .profile;
    g.throughput(Throughput::Elements(merged.records.len() as u64));
    g.bench_function("profdata writer v13", |b| {
        b.iter(|| black_box(profdata::write(&merged, &ProfdataOptions::default()).expect("write")))
    });
    g.finish();
}

criterion_group!(benches, bench, synthetic);
criterion_main!(benches);
