//! iprof benchmarks:
//!
//! * `iprof_parse/*`: parsing the real 4 MB 0.4.0 profile (third-party data read from
//!   `../shared/testdata-external/iprof/`; without it the benchmarks stop with a message, see
//!   `support/iprof_copies.rs`) into the typed model with serde_json and with simd-json (which
//!   needs a mutable copy of the input, so its time includes that copy). The faster one is the
//!   reader's parser.
//! * `iprof_merge20/*`: the speed acceptance test of issue 4, side by side: serde_json
//!   parsing 20 copies of that file with shuffled ids into the typed model on one thread,
//!   against `merge_iprof_files` merging the same 20 files (parallel parsing, validation,
//!   IR mapping, merge, canonical form) and writing the output.
//!
//! Run with `cargo bench --bench iprof`.

#[path = "support/iprof_copies.rs"]
mod iprof_copies;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use iprof_copies::{real_file, shuffled_copies};
use pgo_merge::backends::iprof as writer;
use pgo_merge::frontends::iprof::{self as reader, Document};
use pgo_merge::passes::Weight;
use pgo_merge::pipeline::InputSpec;
use pgo_merge::pipeline::iprof::{IprofMergeOptions, merge_iprof_files};

fn parse(c: &mut Criterion) {
    let data = real_file();
    let mut g = c.benchmark_group("iprof_parse");
    g.sample_size(20);
    g.throughput(criterion::Throughput::Bytes(data.len() as u64));
    g.bench_function("serde_json", |b| {
        b.iter(|| {
            let d: Document<'_> = serde_json::from_slice(black_box(&data)).expect("parse");
            black_box(d.methods.map(|m| m.len()))
        })
    });
    g.bench_function("simd_json", |b| {
        b.iter(|| {
            let mut buf = black_box(&data).clone();
            let d: Document<'_> = simd_json::serde::from_slice(&mut buf).expect("parse");
            black_box(d.methods.map(|m| m.len()))
        })
    });
    g.bench_function("read_into_ir", |b| {
        b.iter(|| {
            black_box(
                reader::read_profile(black_box(&data))
                    .expect("read")
                    .entry_count(),
            )
        })
    });
    g.bench_function("read_into_ir_referenced_only", |b| {
        let o = reader::ReadOptions {
            referenced_symbols_only: true,
            ..Default::default()
        };
        b.iter(|| {
            black_box(
                reader::read(black_box(&data), o)
                    .expect("read")
                    .profile
                    .entry_count(),
            )
        })
    });
    g.finish();
}

fn merge20(c: &mut Criterion) {
    let data = real_file();
    let dir = tempfile::tempdir().expect("tempdir");
    let files = shuffled_copies(&data, 20, dir.path());
    let inputs: Vec<InputSpec> = files
        .iter()
        .map(|p| InputSpec::new(p.clone(), Weight::ONE))
        .collect();
    let mut g = c.benchmark_group("iprof_merge20");
    g.sample_size(10);
    g.bench_function("serde_json_parse_only_1_thread", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for f in &files {
                let bytes = std::fs::read(f).expect("read");
                let d: Document<'_> = serde_json::from_slice(&bytes).expect("parse");
                n += d.methods.map_or(0, |m| m.len());
            }
            black_box(n)
        })
    });
    g.bench_function("merge_and_write", |b| {
        b.iter(|| {
            let out =
                merge_iprof_files(&inputs, &IprofMergeOptions::default(), None).expect("merge");
            let mut sink = writer::CountingSink::default();
            writer::write(&out.profile, &mut std::io::BufWriter::new(&mut sink)).expect("write");
            black_box(out.profile.entry_count())
        })
    });
    g.finish();
}

criterion_group!(benches, parse, merge20);
criterion_main!(benches);
