//! JIT symbolisation on multi-threaded runtimes (testdata/jit/{jvm-threads, node18-workers,
//! node20-workers, dotnet-threads}, made by testdata/jit/regenerate.sh): every frame that
//! perf names — with the perf map in place, or after `perf inject --jit` — we name the
//! same, frame by frame in every sample, in perf script's default layout (whose first
//! number is the thread id) and in `-F comm,pid,tid,time,ip,sym,dso`; JIT code inside a
//! file mapping (Debian's node 18) through `--show-mmap-events`; relative times and empty
//! input are reported; the iprof output is schema-valid with GraalVM-style names.

use std::path::Path;

use pgo_merge::frontends::code_regions::{jitdump_source, perf_map_source};
use pgo_merge::frontends::perf_script::PerfScriptReader;
use pgo_merge::ir::code::SampleSource;
use pgo_merge::passes::symbolize::{
    SampleResolver, SymbolizeOptions, Symbolizer, SymbolizerBuilder,
};

use crate::common::{assert_ok, run_ours, tempdir};
use crate::jitdump::jit_gz;

/// Where the JIT code of a recording is described.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Code {
    /// `jit.dump` (checked against `perf inject --jit`: frames in `jitted-PID-INDEX.so`).
    JitDump,
    /// `perf.map` (checked against perf's own use of the map).
    PerfMap,
}

/// The process id of a recording: the pid of the first sample of its `-F pid,tid` text.
pub(crate) fn recorded_pid(scenario: &str) -> u32 {
    let text = jit_gz(&format!("{scenario}/perf-script.raw.txt"));
    let mut r = PerfScriptReader::new(&text);
    let h = r.next_sample(&mut Vec::new()).unwrap().expect("a sample");
    h.pid.expect("PID/TID layout")
}

fn symbolizer(scenario: &str, code: Code, bytes: &[u8]) -> Symbolizer {
    let mut b = SymbolizerBuilder::new();
    match code {
        Code::JitDump => b
            .add_source(jitdump_source(Path::new("jit.dump"), bytes).expect("jitdump"))
            .unwrap(),
        // Named as the runtime names it, so that it applies to its process only.
        Code::PerfMap => {
            let name = format!("perf-{}.map", recorded_pid(scenario));
            b.add_source(perf_map_source(Path::new(&name), bytes))
                .unwrap()
        }
    }
    b.build().unwrap()
}

/// How the call chains of the raw and the expected text relate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Chains {
    /// Recorded by the kernel (frame pointers): the same frames in both texts.
    Same,
    /// Unwound by perf script (DWARF): the raw chain stops at the first JIT frame (no
    /// unwinding information for anonymous code), the injected one goes on, so the raw
    /// chain is the innermost part of the expected one.
    RawIsPrefix,
}

#[derive(Debug, Default)]
pub(crate) struct Agreement {
    pub(crate) samples: u64,
    /// Frames perf named (from the JIT code) in the expected text.
    pub(crate) perf_named: u64,
    /// Of those, named by us (the same name: checked).
    pub(crate) resolved: u64,
    /// Resolved frames in samples of a thread other than the process's main thread.
    pub(crate) resolved_other_threads: u64,
    /// With [`Chains::RawIsPrefix`]: frames of the expected chains beyond the raw ones
    /// (not in the text we read).
    pub(crate) beyond_raw: u64,
    pub(crate) disagreements: Vec<String>,
}

/// Resolves every sample of `raw` as `symbolize` does and compares each frame with the same
/// frame of `expected` (perf's own symbolisation).
fn compare(
    scenario: &str,
    code: Code,
    raw: &str,
    expected: &str,
    opts: SymbolizeOptions,
) -> Agreement {
    compare_chains(scenario, code, raw, expected, opts, Chains::Same)
}

/// [`compare`], with the raw chains related to the expected ones as `chains` says.
pub(crate) fn compare_chains(
    scenario: &str,
    code: Code,
    raw: &str,
    expected: &str,
    opts: SymbolizeOptions,
    chains: Chains,
) -> Agreement {
    let file = match code {
        Code::JitDump => "jit.dump",
        Code::PerfMap => "perf.map",
    };
    let bytes = jit_gz(&format!("{scenario}/{file}"));
    let sym = symbolizer(scenario, code, &bytes);
    let pid = recorded_pid(scenario);
    let raw_text = jit_gz(&format!("{scenario}/{raw}"));
    let exp_text = jit_gz(&format!("{scenario}/{expected}"));
    let mut r = PerfScriptReader::new(&raw_text);
    let mut e = PerfScriptReader::new(&exp_text);
    let mut rs = SampleResolver::new(&sym, &opts);
    let (mut rf, mut ef, mut out, mut maps) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut a = Agreement::default();
    loop {
        let rh = r.next_sample(&mut rf).expect("raw text");
        let eh = e.next_sample(&mut ef).expect("expected text");
        let (Some(rh), Some(eh)) = (rh, eh) else {
            assert!(
                rh.is_none() && eh.is_none(),
                "{scenario}: sample counts differ"
            );
            break;
        };
        r.take_mappings(&mut maps);
        for m in maps.drain(..) {
            rs.add_mapping(m);
        }
        a.samples += 1;
        assert_eq!(
            (rh.id, rh.pid, rh.tid, rh.time_ns),
            (eh.id, eh.pid, eh.tid, eh.time_ns),
            "{scenario} {raw} line {}",
            rh.line
        );
        match chains {
            Chains::Same => assert_eq!(rf.len(), ef.len(), "{scenario} {raw} line {}", rh.line),
            Chains::RawIsPrefix => {
                assert!(rf.len() <= ef.len(), "{scenario} {raw} line {}", rh.line);
                a.beyond_raw += (ef.len() - rf.len()) as u64;
            }
        }
        let thread = rh.tid.or(rh.id).expect("an id");
        rs.resolve_sample(&rh, &rf, &mut out);
        for (k, ((f, g), ours)) in rf.iter().zip(&ef).zip(&out).enumerate() {
            if !f.is_unknown() {
                continue;
            }
            let perf_name = match code {
                Code::JitDump => g.dso.is_some_and(|d| d.contains("/jitted-")),
                Code::PerfMap => !g.is_unknown(),
            };
            a.perf_named += u64::from(perf_name);
            let at = format!(
                "{raw} line {} frame {k} ({:#x}, {:?})",
                rh.line, f.ip, f.dso
            );
            match ours {
                Some(res) if perf_name => {
                    let same_code = match code {
                        Code::JitDump => res.symbol.code_index.is_some_and(|i| {
                            g.dso.is_some_and(|d| d.ends_with(&format!("-{i}.so")))
                        }),
                        Code::PerfMap => true,
                    };
                    if res.name() != g.sym || !same_code {
                        a.disagreements.push(format!(
                            "{at}: ours {:?} (code_index {:?}), perf {:?} ({:?})",
                            res.name(),
                            res.symbol.code_index,
                            g.sym,
                            g.dso
                        ));
                    } else {
                        a.resolved += 1;
                        a.resolved_other_threads += u64::from(thread != pid);
                    }
                }
                Some(res) => a.disagreements.push(format!(
                    "{at}: ours {:?}, perf left it {:?} ({:?})",
                    res.name(),
                    g.sym,
                    g.dso
                )),
                None if perf_name => a.disagreements.push(format!(
                    "{at}: unresolved by us, perf says {:?} ({:?})",
                    g.sym, g.dso
                )),
                None => {}
            }
        }
    }
    a
}

pub(crate) fn assert_agrees(a: &Agreement, what: &str) {
    eprintln!(
        "{what}: {} samples, perf named {} frames, we named {} ({} in other threads)",
        a.samples, a.perf_named, a.resolved, a.resolved_other_threads
    );
    assert!(
        a.disagreements.is_empty(),
        "{what}: {} disagreements with perf:\n{}",
        a.disagreements.len(),
        a.disagreements
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(a.resolved, a.perf_named, "{what}");
}

/// Both layouts of one recording agree with perf, frame by frame; JIT frames of threads
/// other than the main one are among them.
fn check_layouts(scenario: &str, code: Code, expected: &str, min_resolved: u64, min_other: u64) {
    let opts = SymbolizeOptions::default();
    let f = compare(
        scenario,
        code,
        "perf-script.raw.txt",
        &format!("perf-script.{expected}.txt"),
        opts,
    );
    assert_agrees(&f, &format!("{scenario} (-F comm,pid,tid,time,ip,sym,dso)"));
    let d = compare(
        scenario,
        code,
        "perf-script.raw.default.txt",
        &format!("perf-script.{expected}.default.txt"),
        opts,
    );
    assert_agrees(&d, &format!("{scenario} (default layout: thread ids)"));
    assert_eq!(
        (d.samples, d.resolved),
        (f.samples, f.resolved),
        "{scenario}"
    );
    assert!(f.resolved >= min_resolved, "{scenario}: {f:?}");
    assert!(
        d.resolved_other_threads >= min_other,
        "{scenario}: JIT frames of threads other than the main one: {d:?}"
    );
}

#[test]
fn jvm17_threads_agree_with_perf_map() {
    check_layouts("jvm-threads", Code::PerfMap, "mapped", 500, 500);
}

#[test]
fn node20_workers_agree_with_perf_inject() {
    check_layouts("node20-workers", Code::JitDump, "injected", 500, 300);
}

#[test]
fn dotnet31_threads_agree_with_perf_map() {
    check_layouts("dotnet-threads", Code::PerfMap, "mapped", 500, 50);
}

/// Debian's node 18 keeps V8's embedded builtins in libnode.so.108: perf prints their
/// frames relative to the file. Without the mappings they stay unknown (and we say how to
/// get them); with `--show-mmap-events` every frame perf inject names, we name the same.
#[test]
fn node18_workers_agree_with_perf_inject_through_mmap_events() {
    let opts = SymbolizeOptions::default();
    for (raw, exp) in [
        ("perf-script.raw.mmap.txt", "perf-script.injected.txt"),
        (
            "perf-script.raw.mmap.default.txt",
            "perf-script.injected.default.txt",
        ),
    ] {
        let a = compare("node18-workers", Code::JitDump, raw, exp, opts);
        assert_agrees(&a, &format!("node18-workers {raw}"));
        assert!(a.resolved > 500 && a.resolved_other_threads > 100, "{a:?}");
    }
    // Without the mappings, the frames in libnode.so.108 are what is missing.
    let a = compare(
        "node18-workers",
        Code::JitDump,
        "perf-script.raw.default.txt",
        "perf-script.injected.default.txt",
        opts,
    );
    let missed: Vec<&String> = a
        .disagreements
        .iter()
        .filter(|d| d.contains("unresolved by us"))
        .collect();
    assert_eq!(missed.len(), a.disagreements.len(), "{:?}", a.disagreements);
    assert!(missed.len() > 100);
    assert!(
        missed.iter().all(|d| d.contains("libnode.so.108")),
        "{missed:?}"
    );
}

pub(crate) fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub(crate) fn symbolize_cmd(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut v: Vec<&std::ffi::OsStr> = vec!["symbolize".as_ref()];
    v.extend_from_slice(args);
    run_ours(v)
}

/// The command: default-layout samples of all threads resolve (no warning); the summary
/// counts the mmap-event frames; `--pid` and the warning for ids that match no process.
#[test]
fn symbolize_command_default_layout_threads_and_pid() {
    let dir = tempdir();
    let d = dir.path();
    let dump = write(d, "jit-1.dump", &jit_gz("node18-workers/jit.dump"));
    let mmap = write(
        d,
        "mmap.txt",
        &jit_gz("node18-workers/perf-script.raw.mmap.default.txt"),
    );
    let out_f = d.join("o.folded");
    let out = symbolize_cmd(&[
        "--jitdump".as_ref(),
        dump.as_os_str(),
        "--perf-script".as_ref(),
        mmap.as_os_str(),
        "-o".as_ref(),
        out_f.as_os_str(),
    ]);
    assert_ok(&out, "symbolize node 18 with mmap events");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("warning"), "{err}");
    let injected = jit_gz("node18-workers/perf-script.injected.default.txt");
    let jitted = String::from_utf8_lossy(&injected)
        .matches("/jitted-")
        .count();
    assert!(
        err.contains(&format!(" {jitted} resolved by jitdump,"))
            && err.contains("lay inside file mappings (made absolute through the mmap events)"),
        "{jitted}: {err}"
    );
    // Without the mappings: a warning saying how to get them.
    let plain = write(
        d,
        "plain.txt",
        &jit_gz("node18-workers/perf-script.raw.default.txt"),
    );
    let out = symbolize_cmd(&[
        "--jitdump".as_ref(),
        dump.as_os_str(),
        "--perf-script".as_ref(),
        plain.as_os_str(),
        "-o".as_ref(),
        out_f.as_os_str(),
    ]);
    assert_ok(&out, "symbolize node 18 without mmap events");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--show-mmap-events"), "{err}");
    // Node 18 writes corrupted debug-info names too, and the warning says so.
    let out = run_ours(["show".as_ref(), dump.as_os_str()]);
    assert_ok(&out, "show node 18 jitdump");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("corrupted names node 18 and 20 write"),
        "{text}"
    );

    // A perf map of the process plus one of another: the maps belong to two processes, so
    // the default layout's thread ids of worker threads match neither; we say so, and
    // --pid fixes it.
    let pid = recorded_pid("jvm-threads");
    let map = write(
        d,
        &format!("perf-{pid}.map"),
        &jit_gz("jvm-threads/perf.map"),
    );
    let other = write(d, "perf-1.map", b"1000 10 other\n");
    let text = write(
        d,
        "jvm.txt",
        &jit_gz("jvm-threads/perf-script.raw.default.txt"),
    );
    let run = |extra: &[&std::ffi::OsStr]| {
        let mut a: Vec<&std::ffi::OsStr> = vec![
            "--perf-map".as_ref(),
            map.as_os_str(),
            "--perf-map".as_ref(),
            other.as_os_str(),
            "--perf-script".as_ref(),
            text.as_os_str(),
            "-o".as_ref(),
            out_f.as_os_str(),
        ];
        a.extend_from_slice(extra);
        let out = symbolize_cmd(&a);
        assert_ok(&out, "symbolize jvm");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run(&[]);
    assert!(
        err.contains("matches no process") && err.contains("-F comm,pid,tid,time,ip,sym,dso"),
        "{err}"
    );
    let pid_s = pid.to_string();
    let err2 = run(&["--pid".as_ref(), pid_s.as_ref()]);
    assert!(!err2.contains("warning"), "{err2}");
    let resolved = |e: &str| {
        e.split(" resolved by jitdump, ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .expect("count")
    };
    assert!(resolved(&err2) > resolved(&err) + 100, "{err}\n{err2}");
}

/// `perf script --reltime`: every sample lies before every load, so nothing resolves; the
/// run says why. An input with no sample is an error naming the file.
#[test]
fn relative_times_warn_and_empty_input_is_an_error() {
    let dir = tempdir();
    let d = dir.path();
    let dump = write(d, "jit-1.dump", &jit_gz("node20-workers/jit.dump"));
    let rel = write(
        d,
        "rel.txt",
        &jit_gz("node20-workers/perf-script.raw.reltime.default.txt"),
    );
    let out_f = d.join("o.folded");
    let out = symbolize_cmd(&[
        "--jitdump".as_ref(),
        dump.as_os_str(),
        "--perf-script".as_ref(),
        rel.as_os_str(),
        "-o".as_ref(),
        out_f.as_os_str(),
    ]);
    assert_ok(&out, "symbolize --reltime text");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(" 0 resolved by jitdump,"), "{err}");
    assert!(
        err.contains("loaded after their sample's time")
            && err.contains("--reltime")
            && err.contains("-k mono"),
        "{err}"
    );
    for (name, body) in [
        ("empty.txt", &b""[..]),
        ("comments.txt", b"# perf script header\n\n"),
    ] {
        let empty = write(d, name, body);
        let out = symbolize_cmd(&[
            "--jitdump".as_ref(),
            dump.as_os_str(),
            "--perf-script".as_ref(),
            empty.as_os_str(),
            "-o".as_ref(),
            out_f.as_os_str(),
        ]);
        assert!(!out.status.success(), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(name) && err.contains("no samples"), "{err}");
    }
}

/// `symbolize -o x.iprof` of a recording (default layout), read back: schema-valid, every
/// signature of at least two types, read without warnings.
pub(crate) fn iprof_of(
    scenario: &str,
    code: Code,
    raw: &str,
) -> (pgo_merge::ir::iprof::IprofProfile, Vec<u8>) {
    let dir = tempdir();
    let d = dir.path();
    let (flag, file, bytes) = match code {
        Code::JitDump => (
            "--jitdump",
            "jit-1.dump".to_string(),
            jit_gz(&format!("{scenario}/jit.dump")),
        ),
        Code::PerfMap => (
            "--perf-map",
            format!("perf-{}.map", recorded_pid(scenario)),
            jit_gz(&format!("{scenario}/perf.map")),
        ),
    };
    let code_file = write(d, &file, &bytes);
    let text = write(d, "samples.txt", &jit_gz(&format!("{scenario}/{raw}")));
    let out_f = d.join("out.iprof");
    let out = symbolize_cmd(&[
        flag.as_ref(),
        code_file.as_os_str(),
        "--perf-script".as_ref(),
        text.as_os_str(),
        "-o".as_ref(),
        out_f.as_os_str(),
    ]);
    assert_ok(&out, &format!("symbolize {scenario} → iprof"));
    let bytes = std::fs::read(&out_f).unwrap();
    crate::iprof::assert_schema_valid(&bytes);
    let l = pgo_merge::frontends::iprof::read(&bytes, Default::default()).unwrap();
    assert!(l.warnings.is_empty(), "{scenario}: {:?}", l.warnings);
    let p = l.profile;
    for (id, m) in p.symbols.methods() {
        let sig = p.symbols.signature_names(id);
        assert!(
            sig.len() >= 2,
            "{scenario}: {} has signature {sig:?}",
            m.name
        );
    }
    (p, bytes)
}

/// The methods named `name`, as (declaring type, signature).
pub(crate) fn methods_named<'p>(
    p: &'p pgo_merge::ir::iprof::IprofProfile,
    name: &str,
) -> Vec<Vec<&'p str>> {
    p.symbols
        .methods_named(name)
        .map(|id| p.symbols.signature_names(id))
        .collect()
}

#[test]
fn iprof_names_jvm_arrays_and_thunks() {
    let (p, _) = iprof_of("jvm-threads", Code::PerfMap, "perf-script.raw.default.txt");
    // Class.getName spelling of arrays, as GraalVM writes them.
    assert_eq!(
        methods_named(&p, "checksum"),
        vec![vec!["Threads", "int", "[B", "int"]]
    );
    assert_eq!(
        methods_named(&p, "sumGrid"),
        vec![vec!["Threads", "long", "[[I"]]
    );
    assert_eq!(
        methods_named(&p, "fib"),
        vec![vec!["Threads", "long", "int"]]
    );
    assert!(p.symbols.types().all(|(_, t)| !t.ends_with("[]")));
    // A C++ thunk perf named in libjvm.so: the target's class, a method of its own.
    assert_eq!(
        methods_named(&p, "non-virtual thunk to block_do"),
        vec![vec!["LIRGenerator", "(unknown)", "BlockBegin*"]]
    );
}

#[test]
fn iprof_names_v8_getters_and_setters() {
    for (scenario, raw) in [
        ("node20-workers", "perf-script.raw.default.txt"),
        ("node18-workers", "perf-script.raw.mmap.default.txt"),
    ] {
        let (p, _) = iprof_of(scenario, Code::JitDump, raw);
        for name in ["get area", "set side", "sumAreas"] {
            let m = methods_named(&p, name);
            assert_eq!(m.len(), 1, "{scenario} {name}: {m:?}");
            assert!(m[0][0].ends_with("/workers.js"), "{scenario} {name}: {m:?}");
            assert_eq!(m[0][1], "(unknown)", "{scenario}: {m:?}");
        }
        assert!(methods_named(&p, "get").is_empty(), "{scenario}");
    }
}

#[test]
fn iprof_names_dotnet_without_il_syntax() {
    let (p, bytes) = iprof_of(
        "dotnet-threads",
        Code::PerfMap,
        "perf-script.raw.default.txt",
    );
    for (_, t) in p.symbols.types() {
        assert!(
            !t.contains("class ")
                && !t.contains("valuetype ")
                && !t.contains("/*")
                && !t.contains("MT: 0x")
                && !t.contains("[System.Private.CoreLib]")
                // .NET generics (with a `N arity) in `[…]`; C++ templates perf named in
                // libcoreclr.so (`ArrayHelpers<int>`) keep their `<…>`.
                && (!t.contains('`') || !t.contains('<'))
                // `!N` is replaced by the declaring type's argument; `!!N` (a method type
                // parameter, never instantiated in the name) stays.
                && (!t.starts_with('!') || t.starts_with("!!")),
            "{t}"
        );
    }
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("0x00007F"), "per-run pointers in the output");
    // The compiled expression tree that Parallel.For runs on pool threads.
    let lambda = methods_named(&p, "lambda_method");
    assert_eq!(
        lambda,
        vec![vec![
            "dynamicClass",
            "System.Void",
            "System.Runtime.CompilerServices.Closure",
            "System.Int32"
        ]]
    );
}

/// GraalVM's sampling profiles are whole stacks: --max-context-depth and --cold-threshold
/// leave them alone; --max-sampling-depth shortens them.
#[test]
fn sampling_stacks_are_trimmed_only_on_request() {
    let (p, bytes) = iprof_of(
        "node20-workers",
        Code::JitDump,
        "perf-script.raw.default.txt",
    );
    let depth = |p: &pgo_merge::ir::iprof::IprofProfile| {
        p.samples
            .keys()
            .map(|s| p.contexts.frames(*s).count())
            .max()
            .unwrap_or(0)
    };
    let deepest = depth(&p);
    assert!(deepest > 10, "{deepest}");
    let dir = tempdir();
    let input = write(dir.path(), "in.iprof", &bytes);
    let out = dir.path().join("out.iprof");
    let merged = |args: &[&str]| {
        let mut a: Vec<&std::ffi::OsStr> = vec![input.as_os_str(), "-o".as_ref(), out.as_os_str()];
        a.extend(args.iter().map(std::ffi::OsStr::new));
        let o = run_ours(a);
        assert_ok(&o, &format!("merge {args:?}"));
        pgo_merge::frontends::iprof::read_profile(&std::fs::read(&out).unwrap()).unwrap()
    };
    for args in [
        &["--max-context-depth", "1"][..],
        &["--cold-threshold", "50%"],
    ] {
        let m = merged(args);
        assert_eq!(depth(&m), deepest, "{args:?}");
        assert_eq!(m.samples.len(), p.samples.len(), "{args:?}");
    }
    let m = merged(&["--max-sampling-depth", "2"]);
    assert_eq!(depth(&m), 2);
    assert!(m.samples.len() < p.samples.len());
    let total = |p: &pgo_merge::ir::iprof::IprofProfile| p.samples.values().sum::<u64>();
    assert_eq!(total(&m), total(&p));
}

/// Reading an iprof whose methods have one-element signatures warns; two types with one
/// name that make contexts collide are named in the error.
#[test]
fn short_signatures_warn_and_same_named_types_are_named() {
    let short = br#"{"version":"1.0.0","types":[{"id":1,"name":"A"}],"methods":[{"id":5,"name":"m","signature":[1]}],"callCountProfiles":[{"ctx":"5:0","records":[1]}],"conditionalProfiles":[],"virtualInvokeProfiles":[],"instanceofProfiles":[],"samplingProfiles":[],"monitorProfiles":[]}"#;
    let l = pgo_merge::frontends::iprof::read(short, Default::default()).unwrap();
    let w: Vec<String> = l.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        w.iter().any(|w| w.contains("methods[0].signature")
            && w.contains("shorter than two")
            && w.contains("return type")),
        "{w:?}"
    );
    let dup = br#"{"version":"1.0.0","types":[{"id":1,"name":"A"},{"id":2,"name":"A"},{"id":3,"name":"void"}],"methods":[{"id":5,"name":"m","signature":[1,3]},{"id":6,"name":"m","signature":[2,3]}],"callCountProfiles":[{"ctx":"5:0","records":[1]},{"ctx":"6:0","records":[2]}],"conditionalProfiles":[],"virtualInvokeProfiles":[],"instanceofProfiles":[],"samplingProfiles":[],"monitorProfiles":[]}"#;
    let e = pgo_merge::frontends::iprof::read(dup, Default::default()).unwrap_err();
    let e = e.to_string();
    assert!(
        e.contains("duplicate context")
            && e.contains("types[0] (id 1) and types[1] (id 2) are both named \"A\""),
        "{e}"
    );
}
