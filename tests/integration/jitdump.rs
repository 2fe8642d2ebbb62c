//! Sampled JIT code: our jitdump resolver against `perf inject --jit` on real node runs
//! (testdata/jit/, made by testdata/jit/regenerate.sh), the symbolize command, and the
//! perf-map fallback against perf's own perf-map symbolisation.

use std::path::{Path, PathBuf};

use pgo_merge::frontends::code_regions::{jitdump_source, perf_map_source};
use pgo_merge::frontends::jitdump::{JitDumpReader, Record};
use pgo_merge::frontends::perf_script::{PerfScriptReader, ScriptFrame};
use pgo_merge::passes::symbolize::{SourceKind, Symbolizer, SymbolizerBuilder};

use crate::common::{assert_ok, root, run_ours, tempdir};

/// `testdata/jit/<rel>`.
pub fn jit(rel: &str) -> PathBuf {
    root().join("testdata/jit").join(rel)
}

/// The decompressed bytes of `testdata/jit/<rel>.gz`.
pub fn jit_gz(rel: &str) -> Vec<u8> {
    crate::iprof::gunzip(&jit(&format!("{rel}.gz")))
}

/// GEN_ELF_TEXT_OFFSET: where perf inject puts the code in each jitted ELF file, so the
/// address perf script prints for an injected frame is `ip - code_addr + 0x80`.
const GEN_ELF_TEXT_OFFSET: u64 = 0x80;

fn symbolizer(scenario: &str) -> (Symbolizer, Vec<u8>) {
    let dump = jit_gz(&format!("{scenario}/jit.dump"));
    let mut b = SymbolizerBuilder::new();
    b.add_source(jitdump_source(Path::new("jit.dump"), &dump).expect("read jitdump"))
        .expect("add regions");
    (b.build().expect("index"), dump)
}

#[derive(Debug, Default)]
struct Agreement {
    samples: u64,
    /// Frames perf left [unknown] in the raw text.
    unknown: u64,
    /// Of those, named by our resolver (all must agree with perf inject).
    resolved: u64,
    /// Resolved frames whose address had been loaded more than once.
    in_reused_ranges: u64,
    /// Resolved frames that ignoring load times would have named differently.
    timeless_would_differ: u64,
    /// Frames perf inject named from a jitted ELF that we left unresolved.
    missed: u64,
    disagreements: Vec<String>,
}

/// Walks the raw and injected `perf script` texts of one recording in lockstep and checks
/// every frame our resolver names against perf's injected frame.
fn compare(scenario: &str, raw_name: &str, injected_name: &str) -> Agreement {
    let (sym, _) = symbolizer(scenario);
    let raw = jit_gz(&format!("{scenario}/{raw_name}"));
    let inj = jit_gz(&format!("{scenario}/{injected_name}"));
    let mut r = PerfScriptReader::new(&raw);
    let mut i = PerfScriptReader::new(&inj);
    let (mut rf, mut jf): (Vec<ScriptFrame<'_>>, Vec<ScriptFrame<'_>>) = (Vec::new(), Vec::new());
    let mut a = Agreement::default();
    let (mut hits, mut batch) = (Vec::new(), Vec::new());
    loop {
        let rh = r.next_sample(&mut rf).expect("raw text");
        let ih = i.next_sample(&mut jf).expect("injected text");
        let (Some(rh), Some(ih)) = (rh, ih) else {
            assert!(rh.is_none() && ih.is_none(), "sample counts differ");
            break;
        };
        a.samples += 1;
        assert_eq!(
            (rh.pid, rh.tid, rh.time_ns),
            (ih.pid, ih.tid, ih.time_ns),
            "line {}",
            rh.line
        );
        // The batched lookup `symbolize` uses answers as the per-frame one checked below.
        let queries: Vec<(u64, u64)> = rf
            .iter()
            .filter(|f| f.is_unknown())
            .map(|f| (f.ip, rh.time_upper()))
            .collect();
        sym.resolve_batch(rh.pid, &queries, 0, &mut hits, &mut batch);
        let single: Vec<Option<u32>> = queries
            .iter()
            .map(|&(ip, t)| sym.resolve(rh.pid, ip, t, 0).map(|r| r.symbol_id))
            .collect();
        let batched: Vec<Option<u32>> = batch.iter().map(|r| r.map(|r| r.symbol_id)).collect();
        assert_eq!(single, batched, "raw line {}", rh.line);
        assert_eq!(
            rf.len(),
            jf.len(),
            "frame counts differ at raw line {}",
            rh.line
        );
        for (k, (f, g)) in rf.iter().zip(&jf).enumerate() {
            if !f.is_unknown() {
                continue;
            }
            a.unknown += 1;
            let perf_jitted = g.dso.is_some_and(|d| d.contains("/jitted-"));
            let Some(res) = sym.resolve(rh.pid, f.ip, rh.time_upper(), 0) else {
                if perf_jitted {
                    a.missed += 1;
                    a.disagreements.push(format!(
                        "raw line {} frame {k}: {:#x} unresolved by us, perf inject says {} ({:?})",
                        rh.line, f.ip, g.sym, g.dso
                    ));
                }
                continue;
            };
            assert_eq!(res.symbol.kind, SourceKind::JitDump);
            a.resolved += 1;
            let idx = res.symbol.code_index.unwrap_or(u64::MAX);
            let want_ip = f.ip - res.symbol.start + GEN_ELF_TEXT_OFFSET;
            let want_dso = format!("-{idx}.so");
            if g.sym != res.name()
                || g.ip != want_ip
                || !g.dso.is_some_and(|d| d.ends_with(&want_dso))
            {
                a.disagreements.push(format!(
                    "raw line {} frame {k}: ours {:?} (code_index {idx}, ip {want_ip:#x}), perf \
                     inject {:?} (ip {:#x}, {:?})",
                    rh.line,
                    res.name(),
                    g.sym,
                    g.ip,
                    g.dso
                ));
            }
            let covering = sym.all_jit_covering(rh.pid.unwrap_or(0), f.ip);
            if covering.len() > 1 {
                a.in_reused_ranges += 1;
            }
            if let Some(latest) = sym.resolve(rh.pid, f.ip, u64::MAX, 0)
                && latest.name() != res.name()
            {
                a.timeless_would_differ += 1;
            }
        }
    }
    a
}

fn assert_agrees(a: &Agreement, what: &str) {
    eprintln!("{what}: {a:?}");
    assert!(
        a.disagreements.is_empty(),
        "{what}: {} of {} resolved frames disagree with perf inject --jit:\n{}",
        a.disagreements.len(),
        a.resolved,
        a.disagreements
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(
        a.missed, 0,
        "{what}: frames perf inject named that we did not"
    );
}

#[test]
fn node_work_frames_agree_with_perf_inject() {
    let a = compare(
        "node-work",
        "perf-script.raw.txt",
        "perf-script.injected.txt",
    );
    assert_agrees(&a, "node-work (-F comm,pid,tid,time,ip,sym,dso)");
    assert!(a.samples > 300 && a.resolved > 3000, "{a:?}");
    // The default field layout (period, event, sym+off) gives the same frames.
    let d = compare(
        "node-work",
        "perf-script.raw.default.txt",
        "perf-script.injected.default.txt",
    );
    assert_agrees(&d, "node-work (default fields)");
    assert_eq!((d.samples, d.resolved), (a.samples, a.resolved));
}

#[test]
fn node_code_reuse_frames_agree_with_perf_inject() {
    let (sym, dump) = symbolizer("node-reuse");
    // The recording really reuses code addresses: some address was loaded by functions of
    // different names (the `roundN` functions of successive rounds, freed by gc()).
    let mut r = JitDumpReader::new(&dump).unwrap();
    let mut by_addr: std::collections::HashMap<u64, Vec<String>> = Default::default();
    while let Ok(Some((_, rec))) = r.next_record() {
        if let Record::CodeLoad(l) = rec {
            by_addr
                .entry(l.code_addr)
                .or_default()
                .push(l.name_lossy().into_owned());
        }
    }
    let reused_diff = by_addr
        .values()
        .filter(|v| v.iter().any(|n| n != &v[0]))
        .count();
    assert!(
        reused_diff >= 10,
        "only {reused_diff} addresses reused by other functions"
    );
    drop(sym);
    let a = compare(
        "node-reuse",
        "perf-script.raw.txt",
        "perf-script.injected.txt",
    );
    assert_agrees(&a, "node-reuse");
    // Samples landed in reused code, and load times mattered for them: resolving by address
    // alone would have named these frames wrongly (perf inject agrees with us on all).
    assert!(a.in_reused_ranges > 100, "{a:?}");
    assert!(a.timeless_would_differ > 50, "{a:?}");
    let d = compare(
        "node-reuse",
        "perf-script.raw.default.txt",
        "perf-script.injected.default.txt",
    );
    assert_agrees(&d, "node-reuse (default fields)");
}

/// Perf maps are the time-less fallback: on a `--perf-basic-prof` run our resolution of the
/// frames perf left unknown (map moved away) equals perf's own map symbolisation.
#[test]
fn node_perf_map_agrees_with_perf() {
    let map = jit_gz("node-perfmap/perf.map");
    let raw = jit_gz("node-perfmap/perf-script.raw.txt");
    let named = jit_gz("node-perfmap/perf-script.mapped.txt");
    let mut b = SymbolizerBuilder::new();
    b.add_source(perf_map_source(Path::new("perf.map"), &map))
        .unwrap();
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
    let sym = b.build().unwrap();
    let mut r = PerfScriptReader::new(&raw);
    let mut m = PerfScriptReader::new(&named);
    let (mut rf, mut mf) = (Vec::new(), Vec::new());
    let (mut resolved, mut bad) = (0u64, Vec::new());
    while let (Some(rh), Some(_)) = (
        r.next_sample(&mut rf).unwrap(),
        m.next_sample(&mut mf).unwrap(),
    ) {
        for (f, g) in rf.iter().zip(&mf) {
            if !f.is_unknown() {
                continue;
            }
            match sym.resolve(rh.pid, f.ip, rh.time_upper(), 0) {
                Some(res) => {
                    resolved += 1;
                    if res.name() != g.sym {
                        bad.push(format!(
                            "line {}: ours {:?}, perf {:?}",
                            rh.line,
                            res.name(),
                            g.sym
                        ));
                    }
                }
                None if !g.is_unknown() => bad.push(format!(
                    "line {}: {:#x} unresolved, perf {:?}",
                    rh.line, f.ip, g.sym
                )),
                None => {}
            }
        }
    }
    assert!(resolved > 1000, "{resolved}");
    assert!(
        bad.is_empty(),
        "{}",
        bad.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// `symbolize` end to end: folded stacks keep perf's names, JIT names replace `[unknown]`,
/// and the iprof output carries the same sample total as the folded output.
#[test]
fn symbolize_command_writes_folded_and_iprof() {
    let dir = tempdir();
    let dump = dir.path().join("jit-1.dump");
    let script = dir.path().join("perf.txt");
    std::fs::write(&dump, jit_gz("node-work/jit.dump")).unwrap();
    std::fs::write(&script, jit_gz("node-work/perf-script.raw.txt")).unwrap();
    let folded = dir.path().join("out.folded");
    let out = run_ours([
        "symbolize".as_ref(),
        "--jitdump".as_ref(),
        dump.as_os_str(),
        "--perf-script".as_ref(),
        script.as_os_str(),
        "-o".as_ref(),
        folded.as_os_str(),
    ]);
    assert_ok(&out, "symbolize → folded");
    // The command resolves exactly the frames checked against perf inject above.
    let checked = compare(
        "node-work",
        "perf-script.raw.txt",
        "perf-script.injected.txt",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(" {} resolved by jitdump,", checked.resolved)),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&folded).unwrap();
    let mut total = 0u64;
    for line in text.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("count");
        total += count.parse::<u64>().expect("number");
        assert!(
            stack.starts_with("node;") || stack.starts_with("V8 "),
            "{line}"
        );
    }
    let samples = text.lines().count();
    assert!(samples > 50);
    assert!(text.contains(";JS:*fib "), "fib resolved");
    assert!(text.contains("Builtins_JSEntry;"), "perf's own names kept");
    let iprof = dir.path().join("out.iprof");
    let out = run_ours([
        "symbolize".as_ref(),
        "--jitdump".as_ref(),
        dump.as_os_str(),
        "--perf-script".as_ref(),
        script.as_os_str(),
        "-o".as_ref(),
        iprof.as_os_str(),
    ]);
    assert_ok(&out, "symbolize → iprof");
    let bytes = std::fs::read(&iprof).unwrap();
    crate::iprof::assert_schema_valid(&bytes);
    let p = pgo_merge::frontends::iprof::read_profile(&bytes).unwrap();
    let sum: u64 = p.samples.values().sum();
    assert_eq!(sum, total);
    let fib = p
        .symbols
        .methods()
        .find(|(_, m)| m.name == "fib")
        .map(|(id, _)| p.symbols.signature_names(id))
        .expect("fib method");
    assert!(
        fib[0].ends_with("/work.js"),
        "declaring type is the script: {fib:?}"
    );
    // show lists per-method self/total samples.
    let out = run_ours(["show".as_ref(), iprof.as_os_str()]);
    assert_ok(&out, "show out.iprof");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("self") && s.contains("work.js.fib"), "{s}");
}
