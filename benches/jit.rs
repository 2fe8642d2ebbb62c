//! JIT symbolisation benchmarks (issue 6's speed acceptance, side by side in one run):
//!
//! * `jit_1m_frames/parse`: parsing a `perf script` text (`-F comm,pid,tid,time,ip,sym,dso`,
//!   100,000 samples × 10 frames = 1,000,000 frames, 70% of them `[unknown]` JIT frames)
//!   with [`PerfScriptReader`], touching every frame;
//! * `jit_1m_frames/parse_resolve`: the same parse plus resolving every `[unknown]` frame
//!   against an index of 100,000 jitdump code regions (10% of the addresses loaded twice,
//!   by different functions, so time matters);
//! * `jit_1m_frames/resolve_only`: resolving the same frames from (address, time) pairs
//!   collected beforehand (the resolver's own cost, without the parse around it);
//! * `jit_1m_frames/symbolize`: the whole `symbolize` pass: parse, resolve and aggregate the
//!   distinct stacks (what `pgo-merge symbolize` does before writing);
//! * `jit_index/build_100k`: reading the synthetic jitdump's code regions and building the
//!   index.
//!
//! The inputs are generated deterministically in memory. Run with `cargo bench --bench jit`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use pgo_merge::frontends::code_regions::jitdump_source;
use pgo_merge::frontends::perf_script::{PerfScriptReader, ScriptFrame};
use pgo_merge::passes::symbolize::{SymbolizeOptions, Symbolizer, SymbolizerBuilder, symbolize};

const REGIONS: u64 = 100_000;
const SAMPLES: u64 = 100_000;
const FRAMES_PER_SAMPLE: u64 = 10;
const PID: u32 = 4242;
const BASE: u64 = 0x7f00_0000_0000;
/// Start of the sampling window (ns); the loads are spread over [T0 - 1 s, T0 + 10 s).
const T0: u64 = 5_000_000_000_000;

/// The pid and the (address, time) pairs of a sample's `[unknown]` frames.
type SampleQueries = (Option<u32>, Vec<(u64, u64)>);

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A region: (start, size, load time).
fn regions() -> Vec<(u64, u64, u64, String)> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut v = Vec::with_capacity(REGIONS as usize);
    let first = REGIONS - REGIONS / 10;
    for i in 0..first {
        let size = 64 + rng.next() % 960;
        v.push((
            BASE + i * 1024,
            size,
            T0 - 1_000_000_000 + i * 10_000,
            format!(
                "JS:*fn{i} /app/src/module{}.js:{}:{}",
                i % 50,
                i % 997 + 1,
                i % 80 + 1
            ),
        ));
    }
    // 10% of the addresses are reused later by other functions.
    for k in 0..REGIONS / 10 {
        let i = (rng.next() % first) as usize;
        let (start, _, _, _) = v[i];
        let size = 64 + rng.next() % 960;
        v.push((
            start,
            size,
            T0 + 1_000_000_000 + k * 50_000,
            format!("JS:^again{k} /app/src/late.js:{}:1", k + 1),
        ));
    }
    v
}

/// The regions as a little-endian jitdump (CODE_LOADs without code bytes).
fn jitdump(regions: &[(u64, u64, u64, String)]) -> Vec<u8> {
    let mut d = Vec::new();
    let u32_ = |d: &mut Vec<u8>, v: u32| d.extend_from_slice(&v.to_le_bytes());
    let u64_ = |d: &mut Vec<u8>, v: u64| d.extend_from_slice(&v.to_le_bytes());
    d.extend_from_slice(b"DTiJ");
    u32_(&mut d, 1);
    u32_(&mut d, 40);
    u32_(&mut d, 62);
    u32_(&mut d, 0);
    u32_(&mut d, PID);
    u64_(&mut d, 0);
    u64_(&mut d, 0);
    for (i, (start, size, t, name)) in regions.iter().enumerate() {
        u32_(&mut d, 0);
        u32_(&mut d, (56 + name.len() + 1) as u32);
        u64_(&mut d, *t);
        u32_(&mut d, PID);
        u32_(&mut d, PID);
        u64_(&mut d, *start);
        u64_(&mut d, *start);
        u64_(&mut d, *size);
        u64_(&mut d, i as u64);
        d.extend_from_slice(name.as_bytes());
        d.push(0);
    }
    d
}

/// 100k samples × 10 frames in perf script's `-F comm,pid,tid,time,ip,sym,dso` layout.
fn perf_script(regions: &[(u64, u64, u64, String)]) -> String {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut s = String::with_capacity(64 << 20);
    let natives = [
        "v8::internal::Execution::Call",
        "Builtins_JSEntryTrampoline",
        "v8::internal::(anonymous namespace)::Invoke",
        "node::LoadEnvironment",
        "__libc_start_call_main",
    ];
    for k in 0..SAMPLES {
        let t = T0 + k * 100_000 + rng.next() % 1000;
        let _ = writeln!(
            s,
            "node {PID}/{PID} {:>5}.{:06}: ",
            t / 1_000_000_000,
            (t % 1_000_000_000) / 1000
        );
        for f in 0..FRAMES_PER_SAMPLE {
            if f >= 7 {
                let n = natives[(rng.next() % natives.len() as u64) as usize];
                let _ = writeln!(
                    s,
                    "\t{:>16x} {n} (/usr/bin/node)",
                    0x800000 + rng.next() % 0x100000
                );
            } else {
                let (start, size, _, _) = &regions[(rng.next() % REGIONS) as usize];
                let ip = start + rng.next() % size;
                let _ = writeln!(s, "\t{ip:>16x} [unknown] (/tmp/perf-{PID}.map)");
            }
        }
        s.push('\n');
    }
    s
}

fn build(dump: &[u8]) -> Symbolizer {
    let mut b = SymbolizerBuilder::new();
    b.add_source(jitdump_source(Path::new("jit.dump"), dump).expect("jitdump"))
        .expect("regions");
    b.build().expect("index")
}

fn benches(c: &mut Criterion) {
    let regions = regions();
    let dump = jitdump(&regions);
    let script = perf_script(&regions);
    let sym = build(&dump);
    let bytes = script.len() as u64;

    let mut g = c.benchmark_group("jit_1m_frames");
    g.sample_size(10);
    g.throughput(criterion::Throughput::Elements(SAMPLES * FRAMES_PER_SAMPLE));
    g.bench_function("parse", |b| {
        b.iter(|| {
            let mut r = PerfScriptReader::new(black_box(script.as_bytes()));
            let mut frames: Vec<ScriptFrame<'_>> = Vec::new();
            let mut acc = 0u64;
            while let Some(h) = r.next_sample(&mut frames).expect("parse") {
                acc = acc.wrapping_add(h.time_upper());
                for f in &frames {
                    acc = acc.wrapping_add(f.ip ^ f.sym.len() as u64);
                }
            }
            black_box(acc)
        })
    });
    g.bench_function("parse_resolve", |b| {
        b.iter(|| {
            let mut r = PerfScriptReader::new(black_box(script.as_bytes()));
            let mut frames: Vec<ScriptFrame<'_>> = Vec::new();
            let (mut queries, mut hits, mut out) = (Vec::new(), Vec::new(), Vec::new());
            let mut acc = 0u64;
            while let Some(h) = r.next_sample(&mut frames).expect("parse") {
                acc = acc.wrapping_add(h.time_upper());
                let t = h.time_upper();
                queries.clear();
                for f in &frames {
                    acc = acc.wrapping_add(f.ip ^ f.sym.len() as u64);
                    if f.is_unknown() {
                        queries.push((f.ip, t));
                    }
                }
                sym.resolve_batch(h.pid, &queries, 0, &mut hits, &mut out);
                for res in out.iter().flatten() {
                    acc = acc.wrapping_add(u64::from(res.symbol_id));
                }
            }
            black_box(acc)
        })
    });
    // Resolution alone, on the (address, time) pairs collected from the text beforehand.
    let mut per_sample: Vec<SampleQueries> = Vec::new();
    {
        let mut r = PerfScriptReader::new(script.as_bytes());
        let mut frames: Vec<ScriptFrame<'_>> = Vec::new();
        while let Some(h) = r.next_sample(&mut frames).expect("parse") {
            let t = h.time_upper();
            let q = frames
                .iter()
                .filter(|f| f.is_unknown())
                .map(|f| (f.ip, t))
                .collect();
            per_sample.push((h.pid, q));
        }
    }
    g.bench_function("resolve_only", |b| {
        b.iter(|| {
            let (mut hits, mut out) = (Vec::new(), Vec::new());
            let mut acc = 0u64;
            for (pid, q) in &per_sample {
                sym.resolve_batch(*pid, black_box(q), 0, &mut hits, &mut out);
                for res in out.iter().flatten() {
                    acc = acc.wrapping_add(u64::from(res.symbol_id));
                }
            }
            black_box(acc)
        })
    });
    g.bench_function("symbolize", |b| {
        b.iter(|| {
            let s = symbolize(
                &sym,
                PerfScriptReader::new(black_box(script.as_bytes())),
                &SymbolizeOptions::default(),
            )
            .expect("symbolize");
            black_box(s.stacks.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("jit_index");
    g.sample_size(10);
    g.bench_function("build_100k", |b| {
        b.iter(|| black_box(build(black_box(&dump)).symbol_count()))
    });
    g.finish();
    eprintln!(
        "inputs: {} regions, jitdump {} bytes, perf script {} bytes, {} frames",
        regions.len(),
        dump.len(),
        bytes,
        SAMPLES * FRAMES_PER_SAMPLE
    );
}

criterion_group!(jit, benches);
criterion_main!(jit);
