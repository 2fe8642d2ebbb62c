//! GCC AutoFDO (`.gcov`/`.afdo`) sample profiles read by us and by llvm-profdata 19, 22 and
//! 23: every `merge --sample` output encoding, `show --sample` (text and JSON) and
//! `overlap --sample` must be the same bytes.
//!
//! Inputs: the real recordings of testdata/sample/gcov/ (made by AutoFDO's create_gcov from
//! perf samples, see its record.sh), LLVM's profparser-gcc-sample-profile.gcov from
//! shared/testdata-external/llvm-sample/ (SKIPPED when absent), and profiles written here by
//! [`Gcov`], our own writer of the format, for what the recordings lack (call targets, head
//! samples, aliases of a function, deep inline stacks, large counts, long names).

use std::path::{Path, PathBuf};
use std::process::Command;

use pgo_merge::frontends::sample::gcov;

use crate::common::*;

const RELEASES: [u32; 3] = [19, 22, 23];

/// A writer of GCC's AutoFDO format, for the tests: little-endian 32-bit words, 64-bit
/// counts as two words (low first), strings as a word count then NUL-padded words. It writes
/// what create_gcov writes: header `adcg*704` and a stamp, the name table (tag 0xaa000000),
/// the functions (tag 0xac000000), then empty module (0xae000000) and working-set
/// (0xaf000000) sections, which LLVM does not read. Section length words are written as 0
/// (LLVM ignores them).
struct Gcov {
    out: Vec<u8>,
}

/// One body location: its offset word, its count, its call targets (name index, count).
type Position = (u32, u64, Vec<(u64, u64)>);

/// One function profile: head samples (top level only), name index, positions (offset word,
/// count, call targets as (name index, count)), inlined call sites (offset word, callee).
struct Func {
    head: u64,
    name: u32,
    positions: Vec<Position>,
    callsites: Vec<(u32, Func)>,
}

impl Gcov {
    fn word(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    fn count(&mut self, v: u64) {
        self.word(v as u32);
        self.word((v >> 32) as u32);
    }

    fn file(names: &[String], functions: &[Func]) -> Vec<u8> {
        let mut g = Gcov { out: Vec::new() };
        g.out.extend_from_slice(b"adcg*704");
        g.word(0); // stamp
        g.word(gcov::TAG_NAMES);
        g.word(0);
        g.word(names.len() as u32);
        for n in names {
            let words = n.len() / 4 + 1;
            g.word(words as u32);
            let mut b = n.as_bytes().to_vec();
            b.resize(words * 4, 0);
            g.out.extend_from_slice(&b);
        }
        g.word(gcov::TAG_FUNCTIONS);
        g.word(0);
        g.word(functions.len() as u32);
        for f in functions {
            g.function(f, true);
        }
        g.word(gcov::TAG_MODULES);
        g.word(1);
        g.word(0); // no modules
        g.word(gcov::TAG_WORKING_SET);
        g.word(0);
        g.out
    }

    fn function(&mut self, f: &Func, top: bool) {
        if top {
            self.count(f.head);
        }
        self.word(f.name);
        self.word(f.positions.len() as u32);
        self.word(f.callsites.len() as u32);
        for (offset, count, targets) in &f.positions {
            self.word(*offset);
            self.word(targets.len() as u32);
            self.count(*count);
            for (name, calls) in targets {
                self.word(gcov::HIST_TYPE_INDIR_CALL_TOPN);
                self.count(*name);
                self.count(*calls);
            }
        }
        for (offset, callee) in &f.callsites {
            self.word(*offset);
            self.function(callee, false);
        }
    }
}

/// Names of several lengths (a multiple of 4 needs a whole word of NULs), one repeated.
fn names() -> Vec<String> {
    [
        "main",
        "_Z3fooi",
        "_Z3barv",
        "_ZN9namespace5Class6methodEv",
        "leaf",
        "_Z3fooi",
        "a",
        "_ZL12static_helperPKcm.llvm.123",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn offset(g: &mut Gen) -> u32 {
    let line = match g.below(8) {
        0 => 0xffff,
        1 => g.below(0x10000) as u32,
        _ => g.below(12) as u32,
    };
    let disc = match g.below(6) {
        0 => 0xffff,
        1 | 2 => 1 + g.below(4) as u32,
        _ => 0,
    };
    (line << 16) | disc
}

fn count(g: &mut Gen, big: bool) -> u64 {
    match g.below(10) {
        0 => 0,
        1 if big => u64::MAX / 3 + g.below(1000),
        2 => 1 + g.below(1_000_000),
        _ => g.below(100),
    }
}

fn func(g: &mut Gen, depth: u32, names: usize, big: bool) -> Func {
    let positions = (0..g.below(5))
        .map(|_| {
            let targets = (0..[0, 0, 1, 3][g.below(4) as usize])
                .map(|_| (g.below(names as u64), count(g, big)))
                .collect();
            (offset(g), count(g, big), targets)
        })
        .collect();
    let callsites = if depth < 4 {
        (0..g.below(3))
            .map(|_| (offset(g), func(g, depth + 1, names, big)))
            .collect()
    } else {
        Vec::new()
    };
    Func {
        head: count(g, big),
        name: g.below(names as u64) as u32,
        positions,
        callsites,
    }
}

/// A generated profile: up to 8 top-level functions (names repeat, so some are aliases),
/// inline stacks up to 5 deep; with `big`, counts large enough to saturate when added.
fn generated(seed: u64, big: bool) -> Vec<u8> {
    let mut g = Gen(seed);
    let names = names();
    let functions: Vec<Func> = (0..1 + g.below(8))
        .map(|_| func(&mut g, 0, names.len(), big))
        .collect();
    Gcov::file(&names, &functions)
}

/// The gcov inputs: the recordings, the third-party file if present, and generated ones
/// written to `dir`.
fn inputs(dir: &Path, test: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("testdata/sample/gcov"))
        .expect("testdata/sample/gcov")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "afdo"))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "recordings missing: {v:?}");
    if let Some(p) = external("llvm-sample/profparser-gcc-sample-profile.gcov", test) {
        v.push(p);
    }
    for (seed, big) in [(1, false), (2, false), (3, true), (4, false), (5, true)] {
        let p = dir.join(format!("generated-{seed}.gcov"));
        std::fs::write(&p, generated(seed, big)).unwrap();
        v.push(p);
    }
    v
}

/// Runs a command; its stdout and output file (if `out` is given) or its failure.
fn outcome(cmd: &mut Command, out: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(o) = out {
        let _ = std::fs::remove_file(o);
    }
    let r = cmd.output().expect("run");
    if !r.status.success() {
        return Err(String::from_utf8_lossy(&r.stderr).into_owned());
    }
    let mut bytes = r.stdout;
    if let Some(o) = out {
        bytes.extend(std::fs::read(o).unwrap_or_default());
    }
    Ok(bytes)
}

/// Runs `args` (with `-o OUT` appended when `out`) with llvm-profdata-`release` and with our
/// binary for that release; None if both fail or both give the same bytes.
fn compare(tool: &Path, release: u32, args: &[String], out: Option<&Path>) -> Option<String> {
    let mut full: Vec<String> = args.to_vec();
    if let Some(o) = out {
        full.extend(["-o".into(), o.display().to_string()]);
    }
    let theirs = outcome(Command::new(tool).args(&full), out);
    let mut ours_args = full.clone();
    ours_args.insert(1, format!("--target-llvm={release}"));
    let ours = outcome(
        Command::new(env!("CARGO_BIN_EXE_pgo-merge")).args(&ours_args),
        out,
    );
    match (&theirs, &ours) {
        (Ok(a), Ok(b)) if a == b => None,
        (Err(_), Err(_)) => None,
        _ => Some(format!(
            "llvm-profdata-{release} {args:?}:\n{}",
            differing_lines(
                &String::from_utf8_lossy(&theirs.unwrap_or_else(String::into_bytes)),
                &String::from_utf8_lossy(&ours.unwrap_or_else(String::into_bytes)),
                6,
                "llvm",
                "ours"
            )
        )),
    }
}

const ENCODINGS: &[&[&str]] = &[
    &["--text"],
    &["--binary"],
    &["--extbinary"],
    &["--extbinary", "--use-md5"],
    &["--extbinary", "--compress-all-sections"],
    &["--extbinary", "--use-md5", "--compress-all-sections"],
];

#[test]
fn gcov_profiles_merge_and_show_as_llvm() {
    let test = "gcov_profiles_merge_and_show_as_llvm";
    let dir = tempdir();
    let files = inputs(dir.path(), test);
    let text = root().join("testdata/sample/flat.prof.txt");
    let ext = root().join("testdata/sample/real-autofdo.profgen.extbinary.afdo");
    let out = dir.path().join("out");
    let mut compared = 0;
    let mut diffs = Vec::new();
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), test) else {
            continue;
        };
        let s = |p: &Path| p.display().to_string();
        for (i, f) in files.iter().enumerate() {
            let next = &files[(i + 1) % files.len()];
            let mut jobs: Vec<(Vec<String>, bool)> = Vec::new();
            let merge = |enc: &[&str], rest: Vec<String>| {
                let mut a: Vec<String> = vec!["merge".into(), "--sample".into()];
                a.extend(enc.iter().map(|s| s.to_string()));
                a.extend(rest);
                (a, true)
            };
            for enc in ENCODINGS {
                jobs.push(merge(enc, vec![s(f)]));
            }
            for enc in [&["--text"][..], &["--extbinary"]] {
                jobs.push(merge(enc, vec![format!("--weighted-input=3,{}", s(f))]));
                jobs.push(merge(enc, vec![s(f), s(&text)]));
                jobs.push(merge(
                    enc,
                    vec![s(&ext), format!("--weighted-input=2,{}", s(f))],
                ));
                jobs.push(merge(enc, vec![s(f), s(next)]));
            }
            for view in [
                &[][..],
                &["--show-format=json"],
                &["--detailed-summary"],
                &["--hot-func-list"],
                &["--show-prof-sym-list"],
                &["--show-sec-info-only"],
                &["--function=main"],
            ] {
                let mut a: Vec<String> = vec!["show".into(), "--sample".into()];
                a.extend(view.iter().map(|s| s.to_string()));
                a.push(s(f));
                jobs.push((a, false));
            }
            for other in [next, &text] {
                jobs.push((
                    vec!["overlap".into(), "--sample".into(), s(f), s(other)],
                    false,
                ));
            }
            for (args, to_file) in jobs {
                compared += 1;
                let o = to_file.then_some(out.as_path());
                diffs.extend(compare(&tool, release, &args, o));
            }
        }
    }
    if compared == 0 {
        return;
    }
    eprintln!("{test}: {compared} comparisons");
    assert_no_differences(compared, 100, &diffs, "llvm-profdata");
}

/// Every cut of a gcov file before the end of its function section is an error naming the
/// file and an offset, never a panic; cuts after it (the module and working-set sections,
/// which LLVM does not read) read as the whole file. llvm-profdata 23 agrees on which cuts
/// fail, at every word boundary.
#[test]
fn truncated_gcov_files_are_errors_with_offsets() {
    let test = "truncated_gcov_files_are_errors_with_offsets";
    let dir = tempdir();
    let files = inputs(dir.path(), test);
    let llvm = tool("llvm-profdata-23", test);
    let cut = dir.path().join("cut.gcov");
    let mut checked = 0;
    let mut diffs = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let whole = gcov::read(&data).expect("whole file reads");
        let first_ok = (0..=data.len())
            .find(|&n| gcov::read(&data[..n]).is_ok())
            .unwrap();
        // create_gcov always writes the module section after the functions.
        assert_eq!(
            data.get(first_ok..first_ok + 4),
            Some(&gcov::TAG_MODULES.to_le_bytes()[..]),
            "{}: the first cut that reads should be the end of the functions",
            f.display()
        );
        for n in 0..=data.len() {
            match gcov::read(&data[..n]) {
                Err(e) => {
                    assert!(n < first_ok);
                    assert!(e.offset().is_some(), "{}: cut {n}: {e}", f.display());
                }
                Ok(p) => {
                    assert!(n >= first_ok);
                    assert_eq!(p.functions, whole.functions);
                }
            }
        }
        // Through the binary: the message names the file and an offset.
        std::fs::write(&cut, &data[..first_ok - 1]).unwrap();
        let (code, _, err) = run_full(
            pgo_merge()
                .args(["merge", "--sample", "--text", "-o", "-"])
                .arg(&cut),
        );
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("cut.gcov") && err.contains("at offset 0x"),
            "{err}"
        );
        // llvm-profdata on a sample of the cuts (each run is a process): every word of the
        // header, then every ninth word, and the cuts around the end of the functions.
        if let Some(llvm) = &llvm {
            let cuts = (0..64).step_by(4).chain((64..first_ok).step_by(36)).chain([
                first_ok - 4,
                first_ok - 1,
                first_ok,
                first_ok + 4,
            ]);
            for n in cuts.filter(|&n| n <= data.len()) {
                std::fs::write(&cut, &data[..n]).unwrap();
                checked += 1;
                let args: Vec<String> = ["show", "--sample", &cut.display().to_string()]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                diffs.extend(compare(llvm, 23, &args, None));
            }
        }
    }
    if llvm.is_some() {
        assert_no_differences(checked, 50, &diffs, "llvm-profdata-23");
    }
}

/// Corrupting one byte of a generated file at a time never panics (errors or reads).
#[test]
fn corrupted_gcov_files_never_panic() {
    let data = generated(7, true);
    for i in 0..data.len() {
        for v in [0u8, 1, 7, 0x80, 0xff] {
            let mut c = data.clone();
            c[i] = v;
            let _ = gcov::read(&c);
        }
    }
}

/// Hand-made files at the edges of the format: a string length word whose ×4 wraps in 32
/// bits (LLVM reads 4 bytes), a zero-length string (LLVM: truncated), an empty profile, bytes
/// other than the module section after the functions, a non-NUL byte after the header.
fn crafted() -> Vec<(&'static str, Vec<u8>)> {
    fn w(v: u32) -> Vec<u8> {
        v.to_le_bytes().to_vec()
    }
    fn file(names: &[Vec<u8>], tail: &[Vec<u8>]) -> Vec<u8> {
        let mut d = b"adcg*704".to_vec();
        for part in [w(0), w(gcov::TAG_NAMES), w(0), w(names.len() as u32)] {
            d.extend(part);
        }
        for n in names {
            d.extend(n);
        }
        for part in [w(gcov::TAG_FUNCTIONS), w(0)] {
            d.extend(part);
        }
        for part in tail {
            d.extend(part);
        }
        d
    }
    // One function: head 5 (two words), name 0, one position, no call sites; 1: 9.
    let one = [
        w(1),
        w(5),
        w(0),
        w(0),
        w(1),
        w(0),
        w(1 << 16),
        w(0),
        w(9),
        w(0),
    ];
    let main = [w(2), b"main\0\0\0\0".to_vec()].concat();
    let mut after = file(std::slice::from_ref(&main), &one);
    after.extend(b"anything at all");
    let mut ninth = file(std::slice::from_ref(&main), &one);
    ninth[8] = b'X';
    vec![
        (
            "wrapping-length",
            file(&[[w(0x4000_0001), b"main".to_vec()].concat()], &one),
        ),
        ("zero-length", file(&[w(0)], &one)),
        ("empty", file(&[], &[w(0)])),
        ("bytes-after", after),
        ("ninth-byte", ninth),
    ]
}

/// What llvm-profdata recognises as gcc (exactly `adcg*704` then a NUL byte; other versions
/// are refused by both, as an unrecognised format) and the [`crafted`] files read as llvm-profdata
/// reads them.
#[test]
fn headers_and_edge_cases_read_as_llvm() {
    let test = "headers_and_edge_cases_read_as_llvm";
    let dir = tempdir();
    let good = generated(1, false);
    let mut files = Vec::new();
    for (k, head) in [&b"adcg*704"[..], b"adcg*804", b"adcg*A04", b"gcda*704"]
        .iter()
        .enumerate()
    {
        let mut d = good.clone();
        d[..8].copy_from_slice(head);
        files.push((format!("v{k}"), d));
    }
    files.extend(crafted().into_iter().map(|(n, d)| (n.to_string(), d)));
    let mut compared = 0;
    let mut diffs = Vec::new();
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), test) else {
            continue;
        };
        for (name, data) in &files {
            let p = dir.path().join(format!("{name}.gcov"));
            std::fs::write(&p, data).unwrap();
            let args: Vec<String> = ["show", "--sample", &p.display().to_string()]
                .iter()
                .map(|s| s.to_string())
                .collect();
            compared += 1;
            diffs.extend(compare(&tool, release, &args, None));
        }
    }
    if compared > 0 {
        assert_no_differences(compared, 20, &diffs, "llvm-profdata");
    }
}

/// `--gcc` names the encoding as an output, as llvm-profdata's does: a `--sample` merge fails
/// (GCC profiles are never written), and an instrumentation merge refuses the format.
#[test]
fn gcc_output_fails_as_llvm() {
    let test = "gcc_output_fails_as_llvm";
    let dir = tempdir();
    let (_g, dropin) = dropin();
    let gcov = root().join("testdata/sample/gcov/work-O2.afdo");
    let raw = raw("clang22/ir-basic-run1.profraw");
    let out = dir.path().join("out");
    let cases: [(&[&std::ffi::OsStr], &str); 2] = [
        (
            &[
                "merge".as_ref(),
                "--sample".as_ref(),
                "--gcc".as_ref(),
                gcov.as_os_str(),
            ],
            "Profile encoding format unsupported for writing operations",
        ),
        (
            &["merge".as_ref(), "--gcc".as_ref(), raw.as_os_str()],
            "unknown format is specified",
        ),
    ];
    for (args, needle) in cases {
        let (code, _, err) = run_full(Command::new(&dropin).args(args).arg("-o").arg(&out));
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        if let Some(llvm) = tool("llvm-profdata-23", test) {
            let (code, _, err) = run_full(Command::new(llvm).args(args).arg("-o").arg(&out));
            assert_eq!(code, 1, "llvm-profdata-23 {args:?}: {err}");
            assert!(err.contains(needle), "llvm-profdata-23 {args:?}: {err}");
        }
    }
}
