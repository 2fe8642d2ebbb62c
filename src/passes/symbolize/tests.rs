use std::borrow::Cow;
use std::path::Path;

use super::*;
use crate::error::Result;
use crate::ir::code::{CodeRegion, SampleHeader};
use crate::ir::code::{CodeSource, SampleFrame, SampleSource, UNKNOWN};

fn load(name: &'static str, start: u64, size: u64, time: u64, index: u64) -> CodeRegion<'static> {
    CodeRegion {
        name: Cow::Borrowed(name),
        start,
        end: start + size,
        load_time: Some(time),
        code_index: Some(index),
    }
}

fn sym() -> Symbolizer {
    let mut s = SymbolizerBuilder::new();
    s.add_source(CodeSource {
        path: Path::new("jit-4242.dump").into(),
        kind: SourceKind::JitDump,
        pid: Some(4242),
        regions: vec![
            // Loaded 500 ns into the microsecond the sample below is taken in.
            load("JS:*hot /app/a.js:3:1", 0x1000, 0x100, 1_000_000_500, 1),
            load(
                "Ljava/lang/String;::hashCode",
                0x1000,
                0x80,
                2_000_000_000,
                2,
            ),
            // A zero-size load: a symbol, no region.
            load("nothing", 0x4000, 0, 2_000_000_000, 3),
        ],
        threads: vec![4242],
        warnings: vec![crate::error::Warning::at(0x28, "something")],
    })
    .unwrap();
    s.build().unwrap()
}

/// Samples given in memory: (header, frames) per sample.
struct Samples(std::vec::IntoIter<(SampleHeader<'static>, Vec<SampleFrame<'static>>)>);

impl SampleSource<'static> for Samples {
    fn next_sample(
        &mut self,
        frames: &mut Vec<SampleFrame<'static>>,
    ) -> Result<Option<SampleHeader<'static>>> {
        frames.clear();
        Ok(self.0.next().map(|(h, f)| {
            frames.extend(f);
            h
        }))
    }
}

/// A sample of process 4242 at `micros` µs, printed with µs precision.
fn sample(
    comm: &'static str,
    micros: u64,
    frames: &[(u64, &'static str)],
) -> (SampleHeader<'static>, Vec<SampleFrame<'static>>) {
    let h = SampleHeader {
        comm,
        pid: Some(4242),
        tid: Some(7),
        id: None,
        time_ns: Some(micros * 1000),
        time_unit_ns: 1000,
        line: 1,
    };
    let f = frames
        .iter()
        .map(|&(ip, sym)| SampleFrame {
            ip,
            sym,
            sym_off: None,
            dso: None,
            absolute: false,
        })
        .collect();
    (h, f)
}

#[test]
fn sources_warnings_and_symbols() {
    let s = sym();
    assert_eq!(s.symbol_count(), 3);
    let warnings: Vec<String> = s.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings, ["jit-4242.dump: at offset 0x28: something"]);
    assert_eq!(
        s.sources,
        vec![SourceStats {
            path: "jit-4242.dump".into(),
            kind: Some(SourceKind::JitDump),
            pid: Some(4242),
            regions: 2,
        }]
    );
}

#[test]
fn sample_time_is_the_end_of_its_unit() {
    let samples = Samples(vec![sample("node", 1_000_000, &[(0x1010, UNKNOWN)])].into_iter());
    let st = symbolize(&sym(), samples, &SymbolizeOptions::default()).unwrap();
    assert_eq!(st.stats.resolved_jitdump, 1);
    assert_eq!(st.folded_lines(), vec!["node;JS:*hot /app/a.js:3:1 1"]);
}

#[test]
fn slack_reuse_and_folded_names() {
    let s = sym();
    // Before any load: unresolved unless the slack reaches the first load.
    assert!(s.resolve(Some(4242), 0x1010, 999_000_000, 0).is_none());
    let r = s
        .resolve(Some(4242), 0x1010, 999_000_000, 2_000_000)
        .unwrap();
    assert!(r.early && r.name() == "JS:*hot /app/a.js:3:1");
    // After the second load: the reused start is the Java method; the tail beyond its
    // 0x80 bytes still belongs to the first load.
    assert_eq!(
        s.resolve(Some(4242), 0x1010, 3_000_000_000, 0)
            .unwrap()
            .name(),
        "Ljava/lang/String;::hashCode"
    );
    assert_eq!(
        s.resolve(Some(4242), 0x10a0, 3_000_000_000, 0)
            .unwrap()
            .name(),
        "JS:*hot /app/a.js:3:1"
    );
    // Another process's samples are not resolved with this dump.
    assert!(s.resolve(Some(1), 0x1010, 3_000_000_000, 0).is_none());
    let frames = [(0x1010, UNKNOWN), (0x99, "main")];
    let samples = Samples(
        vec![
            sample("java", 3_000_000, &frames),
            sample("java", 3_000_001, &frames),
        ]
        .into_iter(),
    );
    let st = symbolize(&s, samples, &SymbolizeOptions::default()).unwrap();
    // `;` inside a name is written as `:` in folded stacks.
    assert_eq!(
        st.folded_lines(),
        vec!["java;main;Ljava/lang/String:::hashCode 2"]
    );
    let p = st.to_iprof();
    let ms = method_samples(&p);
    // Every method has a return type (a placeholder when the name has none).
    assert_eq!(ms[0].method, "java.lang.String.hashCode()(unknown)");
    assert_eq!((ms[0].self_samples, ms[0].total_samples), (2, 2));
    assert_eq!((ms[1].self_samples, ms[1].total_samples), (0, 2));
}

#[test]
fn map_sources_later_regions_win() {
    let map = |path: &str, pid, regions: &[(&'static str, u64, u64)]| CodeSource {
        path: Path::new(path).into(),
        kind: SourceKind::PerfMap,
        pid,
        regions: regions
            .iter()
            .map(|&(n, start, end)| CodeRegion {
                name: Cow::Borrowed(n),
                start,
                end,
                load_time: None,
                code_index: None,
            })
            .collect(),
        threads: Vec::new(),
        warnings: Vec::new(),
    };
    let mut b = SymbolizerBuilder::new();
    b.add_source(map("a.map", None, &[("a", 0x10, 0x20), ("b", 0x18, 0x20)]))
        .unwrap();
    b.add_source(map("perf-5.map", Some(5), &[("c", 0x30, 0x34)]))
        .unwrap();
    let s = b.build().unwrap();
    let name = |pid, addr| s.resolve(pid, addr, 0, 0).map(|r| r.name());
    assert_eq!(name(Some(1), 0x11), Some("a"));
    assert_eq!(name(Some(1), 0x19), Some("b"));
    assert_eq!(name(Some(5), 0x19), Some("b"));
    assert_eq!(name(Some(5), 0x31), Some("c"));
    assert_eq!(name(Some(1), 0x31), None);
    assert_eq!(name(None, 0x31), Some("c"));
    assert!(!s.resolve(Some(5), 0x31, 0, 0).unwrap().from_jitdump);
}
