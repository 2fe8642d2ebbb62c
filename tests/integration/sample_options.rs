//! `merge --sample --remapping-file` and `--output-size-limit` against the real tools: our
//! drop-in (named `llvm-profdata-19` / `-22` / `-23`) and the real llvm-profdata of
//! that release run with the same arguments on the same inputs, and the outputs compared
//! byte for byte (text, binary, extbinary); where llvm-profdata fails (a limit that cannot
//! be met), we must fail too. Inputs: the profiles of testdata/sample, the third-party
//! folder's, and larger generated ones (hundreds of functions, probe-based and
//! context-sensitive, so that pruning goes through several rounds and the extbinary
//! metadata follows LLVM's hash map after erasures).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// A directory holding a link `name` to our binary (the drop-in of that release).
pub(crate) fn dropin_named(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let link = dir.path().join(name);
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
    (dir, link)
}

/// Runs `tool merge ARGS -o OUT`: the output's bytes, or the error output.
pub(crate) fn merge(tool: &Path, args: &[OsString], out: &Path) -> Result<Vec<u8>, String> {
    let _ = std::fs::remove_file(out);
    let o = Command::new(tool)
        .arg("merge")
        .args(args)
        .arg("-o")
        .arg(out)
        .env_remove("PGO_MERGE_TARGET_LLVM")
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
    if o.status.success() {
        Ok(std::fs::read(out).unwrap_or_default())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// Compares the real tool and ours on `args`; returns a failure description, if any.
pub(crate) fn compare(real: &Path, ours: &Path, args: &[OsString], dir: &Path) -> Option<String> {
    let theirs = merge(real, args, &dir.join("theirs.out"));
    let mine = merge(ours, args, &dir.join("ours.out"));
    let what = args
        .iter()
        .map(|a| {
            let s = a.to_string_lossy();
            s.rsplit('/').next().unwrap_or(&s).to_string()
        })
        .collect::<Vec<_>>()
        .join(" ");
    match (theirs, mine) {
        (Ok(t), Ok(m)) if t == m => None,
        (Ok(t), Ok(m)) => Some(format!(
            "{what}: outputs differ ({} vs our {} bytes, first difference at byte {})",
            t.len(),
            m.len(),
            t.iter()
                .zip(&m)
                .position(|(a, b)| a != b)
                .unwrap_or(t.len().min(m.len()))
        )),
        (Err(t), Err(m)) => {
            if t.contains("Too much profile data")
                && !(m.contains("--output-size-limit") && m.contains("Too much profile data"))
            {
                Some(format!("{what}: both fail, but ours does not say why: {m}"))
            } else {
                None
            }
        }
        // A remapped context-sensitive profile as extbinary: we refuse what llvm-profdata
        // writes but cannot read back.
        (Ok(_), Err(m)) if m.contains("no reader can read back") => {
            let shown = run(
                real,
                &[
                    "show".as_ref(),
                    "--sample".as_ref(),
                    dir.join("theirs.out").as_os_str(),
                ],
            );
            shown.status.success().then(|| {
                format!("{what}: we refuse it as unreadable, but llvm-profdata reads it back")
            })
        }
        (Ok(_), Err(m)) => Some(format!("{what}: llvm-profdata writes it, we fail: {m}")),
        (Err(t), Ok(_)) => Some(format!("{what}: llvm-profdata fails ({t}), we write")),
    }
}

pub(crate) fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

pub(crate) fn sample_dir() -> PathBuf {
    root().join("testdata/sample")
}

fn options_dir() -> PathBuf {
    root().join("testdata/sample/options")
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A probe-based text profile of `n` functions (equal totals included, inlined callees with
/// their own checksums), written into `dir`.
pub(crate) fn generated_probe(dir: &Path, n: usize, seed: u64) -> PathBuf {
    let mut r = Rng(seed);
    let mut s = String::new();
    for i in 0..n {
        let total = match r.below(4) {
            0 => 500,
            1 => 7,
            _ => 1 + r.below(100_000),
        };
        s += &format!("fn_{i}_{}:{total}:{}\n", r.below(1000), r.below(50));
        s += &format!(" 1: {}\n", total / 2);
        s += &format!(" 2: {} callee_{}:{}\n", total / 3, i % 17, total / 4);
        if i % 5 == 0 {
            s += &format!(" 3: inl_{}:{}\n  1: {}\n", i % 7, total / 5, total / 5);
            s += &format!("  !CFGChecksum: {}\n", 1 + r.below(1 << 40));
        }
        s += &format!(" !CFGChecksum: {}\n", 1 + r.below(1 << 50));
    }
    let p = dir.join("generated-probe.proftext");
    std::fs::write(&p, s).unwrap();
    p
}

/// A context-sensitive probe-based text profile of `n` distinct contexts (one checksum per
/// leaf function, attributes on some), written into `dir`.
pub(crate) fn generated_cs(dir: &Path, n: usize, seed: u64) -> PathBuf {
    let mut r = Rng(seed);
    let mut seen = std::collections::HashSet::new();
    let mut checksums = std::collections::HashMap::new();
    let mut s = String::new();
    while seen.len() < n {
        let total = if r.below(3) == 0 {
            300
        } else {
            1 + r.below(100_000)
        };
        let leaf = format!("leaf{}", r.below(60));
        let mut frames: Vec<String> = (0..r.below(4))
            .map(|_| format!("f{}:{}", r.below(40), 1 + r.below(9)))
            .collect();
        frames.push(leaf.clone());
        let context = frames.join(" @ ");
        if !seen.insert(context.clone()) {
            continue;
        }
        let checksum = *checksums
            .entry(leaf)
            .or_insert_with(|| 1 + r.below(1 << 40));
        s += &format!("[{context}]:{total}:{}\n 1: {total}\n", r.below(10));
        s += &format!(" !CFGChecksum: {checksum}\n");
        let attributes = r.below(4);
        if attributes != 0 {
            s += &format!(" !Attributes: {attributes}\n");
        }
    }
    let p = dir.join("generated-cs.proftext");
    std::fs::write(&p, s).unwrap();
    p
}

/// The third-party inputs of these tests that are present.
pub(crate) fn external_inputs(test: &str, names: &[&str]) -> Vec<PathBuf> {
    names
        .iter()
        .filter_map(|n| external(&format!("llvm-sample/{n}"), test))
        .collect()
}

/// Output encodings and whether `input` can be written in them (llvm-profdata refuses
/// `--binary` for context-sensitive and probe-based profiles; those cases are compared too,
/// as both refusing).
pub(crate) const FORMATS: [&str; 3] = ["--text", "--binary", "--extbinary"];

fn check_size_limits(version: &str) {
    let test = format!("sample_size_limits_match_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let mut inputs: Vec<Vec<PathBuf>> = [
        "flat.prof.txt",
        "probe.prof.txt",
        "cs.prof.txt",
        "cs-probe.prof.txt",
        "real-autofdo.prof.txt",
        "real-probe.profgen.extbinary.afdo",
    ]
    .iter()
    .map(|n| vec![sample_dir().join(n)])
    .collect();
    inputs.push(vec![options_dir().join("uniq-cold.proftext")]);
    inputs.push(vec![
        sample_dir().join("flat.prof.txt"),
        sample_dir().join("flat-second.prof.txt"),
        sample_dir().join("real-autofdo.prof.txt"),
    ]);
    inputs.push(vec![generated_probe(dir.path(), 300, 5)]);
    inputs.push(vec![generated_cs(dir.path(), 250, 7)]);
    for p in external_inputs(
        &test,
        &[
            "profparser-sample-profile.proftext",
            "profparser-FUnique.afdotext",
            "profparser-cs-sample-preinline-probe.proftext",
            "llvm-pseudo-probe-stale-profile-renaming.prof",
            "derived-sample-profile.md5.extbinary.afdo",
        ],
    ) {
        inputs.push(vec![p]);
    }
    let (mut compared, mut failures) = (0, Vec::new());
    for files in &inputs {
        for format in FORMATS {
            // The size of the whole output, when the real tool writes one.
            let mut args = os(&["--sample", format]);
            args.extend(files.iter().map(OsString::from));
            let Ok(full) = merge(&real, &args, &dir.path().join("full.out")) else {
                if let Some(f) = compare(&real, &ours, &args, dir.path()) {
                    failures.push(f);
                }
                continue;
            };
            let full = full.len() as u64;
            let mut limits = vec![
                full,
                full - 1,
                full * 9 / 10,
                full / 2,
                full / 5,
                full / 20,
                1,
            ];
            limits.dedup();
            for limit in limits {
                let mut a = os(&["--sample", format, &format!("--output-size-limit={limit}")]);
                a.extend(files.iter().map(OsString::from));
                compared += 1;
                if let Some(f) = compare(&real, &ours, &a, dir.path()) {
                    failures.push(f);
                }
            }
        }
    }
    // Extbinary options, and the limit with a remapping file.
    let flat = sample_dir().join("flat.prof.txt");
    let probe = generated_probe(dir.path(), 120, 11);
    let symbols = format!(
        "--prof-sym-list={}",
        sample_dir().join("prof-sym-list.txt").display()
    );
    let mut variants: Vec<(Vec<&str>, &PathBuf)> = vec![
        (vec!["--use-md5"], &flat),
        (vec!["--compress-all-sections"], &flat),
        (vec![symbols.as_str()], &flat),
        (vec!["--gen-partial-profile", "--use-md5"], &probe),
        (vec!["--compress-all-sections"], &probe),
    ];
    if version != "19" {
        // LLVM 19 has no --split-layout.
        variants.push((vec!["--split-layout"], &flat));
        variants.push((vec!["--split-layout", "--compress-all-sections"], &probe));
    }
    for (extra, input) in variants {
        for limit in [900, 600, 400, 3000, 2000] {
            let mut a = os(&[
                "--sample",
                "--extbinary",
                &format!("--output-size-limit={limit}"),
            ]);
            a.extend(os(&extra));
            a.push(input.into());
            compared += 1;
            if let Some(f) = compare(&real, &ours, &a, dir.path()) {
                failures.push(f);
            }
        }
    }
    let remap = options_dir().join("testdata.remap");
    for format in FORMATS {
        for limit in [700, 400] {
            let a = vec![
                OsString::from("--sample"),
                format.into(),
                format!("--output-size-limit={limit}").into(),
                "-r".into(),
                remap.clone().into(),
                flat.clone().into(),
                sample_dir().join("flat-second.prof.txt").into(),
            ];
            compared += 1;
            if let Some(f) = compare(&real, &ours, &a, dir.path()) {
                failures.push(f);
            }
        }
    }
    assert_no_differences(
        compared,
        150,
        &failures,
        &format!("llvm-profdata-{version}"),
    );
}

#[test]
fn sample_size_limits_match_llvm_profdata_22() {
    check_size_limits("22");
}

#[test]
fn sample_size_limits_match_llvm_profdata_19() {
    check_size_limits("19");
}

#[test]
fn sample_size_limits_match_llvm_profdata_23() {
    check_size_limits("23");
}

fn check_remapping(version: &str) {
    let test = format!("sample_remapping_matches_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let remap = options_dir().join("testdata.remap");
    let s = |n: &str| sample_dir().join(n);
    // (inputs, extra options); every case in every output encoding.
    let mut cases: Vec<(Vec<PathBuf>, Vec<&str>)> = vec![
        (vec![s("flat.prof.txt")], vec![]),
        (vec![s("flat.prof.txt"), s("flat-second.prof.txt")], vec![]),
        (vec![s("probe.prof.txt")], vec![]),
        (vec![s("real-autofdo.prof.txt")], vec![]),
        (vec![s("real-probe.profgen.extbinary.afdo")], vec![]),
        (
            vec![s("real-autofdo.profgen.extbinary.afdo")],
            vec!["--use-md5"],
        ),
        (vec![s("preinlined.prof.txt")], vec![]),
        (vec![s("fs-discriminators.prof.txt")], vec![]),
        // Context-sensitive inputs: their contexts become their leaf functions; flattened
        // or nested, the profile is no longer context-sensitive.
        (
            vec![s("cs.prof.txt")],
            vec!["--convert-sample-profile-layout=flat"],
        ),
        (
            vec![s("cs-probe.prof.txt")],
            vec!["--convert-sample-profile-layout=nest"],
        ),
        (
            vec![s("cs-probe.prof.txt")],
            vec!["--sample-trim-cold-context"],
        ),
        (vec![generated_probe(dir.path(), 200, 3)], vec![]),
    ];
    let weighted = format!(
        "--weighted-input=3,{}",
        s("real-autofdo.prof.txt").display()
    );
    cases.push((vec![s("flat.prof.txt")], vec![weighted.as_str()]));
    let mut text_only: Vec<PathBuf> = vec![s("cs.prof.txt"), s("cs-probe.prof.txt")];
    text_only.push(generated_cs(dir.path(), 200, 9));
    let (mut compared, mut failures) = (0, Vec::new());
    let mut run = |files: &[PathBuf], extra: &[&str], format: &str, remap: &Path| {
        let mut a = os(&["--sample", format, "-r"]);
        a.push(remap.into());
        a.extend(os(extra));
        a.extend(files.iter().map(OsString::from));
        compared += 1;
        if let Some(f) = compare(&real, &ours, &a, dir.path()) {
            failures.push(f);
        }
    };
    for (files, extra) in &cases {
        for format in FORMATS {
            run(files, extra, format, &remap);
        }
    }
    for f in &text_only {
        run(std::slice::from_ref(f), &[], "--text", &remap);
    }
    if let Some(p) = external("llvm-sample/profparser-sample-remap.proftext", &test) {
        for format in FORMATS {
            run(
                std::slice::from_ref(&p),
                &[],
                format,
                &options_dir().join("profparser.remap"),
            );
        }
    }
    for p in external_inputs(
        &test,
        &[
            "profparser-sample-profile.proftext",
            "profparser-inline-samples.afdo",
            "llvm-pseudo-probe-stale-profile-renaming.prof",
            "profparser-cs-sample-preinline.proftext",
            // Names read as MD5 hashes are not renamed.
            "derived-sample-profile.md5.extbinary.afdo",
        ],
    ) {
        for format in FORMATS {
            run(std::slice::from_ref(&p), &[], format, &remap);
        }
    }
    assert_no_differences(compared, 40, &failures, &format!("llvm-profdata-{version}"));
}

#[test]
fn sample_remapping_matches_llvm_profdata_22() {
    check_remapping("22");
}

#[test]
fn sample_remapping_matches_llvm_profdata_19() {
    check_remapping("19");
}

#[test]
fn sample_remapping_matches_llvm_profdata_23() {
    check_remapping("23");
}

/// A remapped context-sensitive profile written as extbinary: llvm-profdata writes a file
/// that it cannot read back; we refuse with a request error that says so.
#[test]
fn remapped_context_sensitive_extbinary_is_refused() {
    let test = "remapped_context_sensitive_extbinary_is_refused";
    let dir = tempdir();
    let remap = options_dir().join("testdata.remap");
    let input = sample_dir().join("cs.prof.txt");
    let out = dir.path().join("o.afdo");
    let o = run_ours([
        OsString::from("merge"),
        "--sample".into(),
        "--extbinary".into(),
        "--remapping-file".into(),
        remap.clone().into(),
        input.clone().into(),
        "-o".into(),
        out.clone().into(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no reader can read back"), "{err}");
    assert!(!out.exists());
    let Some(real) = tool("llvm-profdata-22", test) else {
        return;
    };
    let written = merge(
        &real,
        &[
            "--sample".into(),
            "--extbinary".into(),
            "-r".into(),
            remap.into(),
            input.into(),
        ],
        &out,
    )
    .expect("llvm-profdata writes it");
    assert!(!written.is_empty());
    let shown = run(
        &real,
        &["show".as_ref(), "--sample".as_ref(), out.as_os_str()],
    );
    assert!(
        !shown.status.success(),
        "llvm-profdata now reads its remapped context-sensitive extbinary back: allow it here"
    );
}

/// Bad remapping files: errors with the file and line, never a panic; llvm-profdata refuses
/// the same files.
#[test]
fn bad_remapping_files_are_errors_with_lines() {
    let test = "bad_remapping_files_are_errors_with_lines";
    let dir = tempdir();
    let input = sample_dir().join("flat.prof.txt");
    let real = tool("llvm-profdata-22", test);
    for (text, line) in [
        (&b"a b\nonly_one\n"[..], 2),
        (&b"# comment\n\na b c\n"[..], 3),
        (&b"a  b\n"[..], 1),
        (&b" a b\n"[..], 1),
        (&b"a b\r\n\r\nx \n"[..], 3),
    ] {
        let remap = dir.path().join("bad.remap");
        std::fs::write(&remap, text).unwrap();
        let args = vec![
            OsString::from("--sample"),
            "--text".into(),
            "-r".into(),
            remap.clone().into(),
            input.clone().into(),
        ];
        let mut a = vec![OsString::from("merge")];
        a.extend(args.iter().cloned());
        a.extend(["-o".into(), dir.path().join("o.txt").into()]);
        let o = run_ours(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("bad.remap: line {line}: remapping file")),
            "{:?}: {err}",
            String::from_utf8_lossy(text)
        );
        if let Some(real) = &real {
            let theirs = merge(real, &args, &dir.path().join("t.txt"));
            let e = theirs.expect_err("llvm-profdata refuses it too");
            assert!(e.contains(&format!("bad.remap:{line}")), "{e}");
        }
    }
    // A missing file.
    let o = run_ours([
        OsString::from("merge"),
        "--sample".into(),
        "-r".into(),
        dir.path().join("missing.remap").into(),
        input.into(),
        "-o".into(),
        dir.path().join("o.afdo").into(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("missing.remap"),
        "{err}"
    );
}

/// A limit no output fits: an error naming the option and llvm-profdata's wording, no output
/// file; and the option is for sample merges only.
#[test]
fn unmeetable_size_limit_is_an_error() {
    let dir = tempdir();
    let out = dir.path().join("o.txt");
    let o = run_ours([
        OsString::from("merge"),
        "--sample".into(),
        "--text".into(),
        "--output-size-limit=10".into(),
        sample_dir().join("flat.prof.txt").into(),
        "-o".into(),
        out.clone().into(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--output-size-limit=10 cannot be met")
            && err.contains("Too much profile data"),
        "{err}"
    );
    assert!(!out.exists());
    let o = run_ours([
        OsString::from("merge"),
        "--output-size-limit=10".into(),
        root().join("testdata/profdata").into(),
        "-o".into(),
        out.into(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--sample"));
}

/// `--convert-sample-profile-layout=flat` written as extbinary: the function metadata
/// follows llvm-profdata's map (flattening replays its walk), for nested, probe-based and
/// context-sensitive inputs.
fn check_flat_extbinary(version: &str) {
    let test = format!("flattened_extbinary_matches_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let mut inputs: Vec<PathBuf> = [
        "flat.prof.txt",
        "probe.prof.txt",
        "cs.prof.txt",
        "cs-probe.prof.txt",
        "preinlined.prof.txt",
        "real-probe.profgen.extbinary.afdo",
    ]
    .iter()
    .map(|n| sample_dir().join(n))
    .collect();
    inputs.push(generated_cs(dir.path(), 250, 7));
    inputs.push(generated_probe(dir.path(), 200, 13));
    inputs.extend(external_inputs(
        &test,
        &[
            "profparser-cs-sample-preinline-probe.proftext",
            "profparser-sample-flatten-profile-cs.proftext",
            "llvm-pseudo-probe-stale-profile-renaming.prof",
        ],
    ));
    let mut failures = Vec::new();
    for input in &inputs {
        let mut a = os(&[
            "--sample",
            "--extbinary",
            "--convert-sample-profile-layout=flat",
        ]);
        a.push(input.into());
        if let Some(f) = compare(&real, &ours, &a, dir.path()) {
            failures.push(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn flattened_extbinary_matches_llvm_profdata_22() {
    check_flat_extbinary("22");
}

#[test]
fn flattened_extbinary_matches_llvm_profdata_19() {
    check_flat_extbinary("19");
}

#[test]
fn flattened_extbinary_matches_llvm_profdata_23() {
    check_flat_extbinary("23");
}

/// A context-sensitive text profile of `n` contexts whose callers often have profiles of
/// their own (each context's prefixes are likely contexts too), so that nesting inlines
/// some contexts into their callers and promotes others; probe-based if `probe`.
fn generated_cs_nested(dir: &Path, n: usize, seed: u64, probe: bool) -> PathBuf {
    let mut r = Rng(seed);
    let mut seen = std::collections::HashSet::new();
    let mut s = String::new();
    while seen.len() < n {
        let depth = r.below(4) as usize;
        let mut frames: Vec<String> = (0..depth)
            .map(|_| format!("f{}:{}", r.below(12), 1 + r.below(4)))
            .collect();
        let leaf = if r.below(2) == 0 {
            format!("leaf{}", r.below(20))
        } else {
            format!("f{}", r.below(12))
        };
        frames.push(leaf.clone());
        let context = frames.join(" @ ");
        if !seen.insert(context.clone()) {
            continue;
        }
        let total = if r.below(3) == 0 {
            300
        } else {
            1 + r.below(100_000)
        };
        s += &format!("[{context}]:{total}:{}\n 1: {total}\n", r.below(10));
        s += &format!(" 2: {} {leaf}:{}\n", total / 3, total / 4);
        for k in 3..7 {
            s += &format!(" {k}: {} f{}:{}\n", total / 5, r.below(12), total / 6);
        }
        if probe {
            s += &format!(" !CFGChecksum: {}\n", 1 + leaf.len() as u64 * 7919);
        }
        let attributes = r.below(4);
        if attributes != 0 {
            s += &format!(" !Attributes: {attributes}\n");
        }
    }
    let p = dir.join(format!("generated-cs-nested-{seed}.proftext"));
    std::fs::write(&p, s).unwrap();
    p
}

/// `--convert-sample-profile-layout=nest` of context-sensitive profiles written as
/// extbinary: LLVM converts its map in place (inserting the promoted profiles, erasing every
/// context, in the order of its walk), and writes the function metadata in the order that
/// leaves; ours replays it. Alone, merged, size-limited, with MD5 names and compressed, and
/// from MD5-named extbinary inputs.
fn check_nest_extbinary(version: &str) {
    let test = format!("nested_extbinary_matches_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let d = dir.path();
    let mut inputs: Vec<Vec<PathBuf>> = vec![
        vec![sample_dir().join("cs.prof.txt")],
        vec![sample_dir().join("cs-probe.prof.txt")],
        vec![generated_cs(d, 250, 7)],
        vec![generated_cs_nested(d, 40, 1, false)],
        vec![generated_cs_nested(d, 300, 2, true)],
        vec![generated_cs_nested(d, 900, 3, false)],
        vec![
            generated_cs_nested(d, 200, 4, false),
            generated_cs_nested(d, 200, 5, false),
        ],
    ];
    // The same profiles read from extbinary files with MD5 names, as the real tool writes them.
    let md5 = d.join("md5.afdo");
    let mut a = os(&["merge", "--sample", "--extbinary", "--use-md5"]);
    a.push(generated_cs_nested(d, 300, 6, true).into());
    a.extend(os(&["-o"]));
    a.push(md5.clone().into());
    let made = Command::new(&real)
        .args(&a)
        .status()
        .expect("run the real tool");
    assert!(made.success());
    inputs.push(vec![md5]);
    for p in external_inputs(
        &test,
        &[
            "profparser-cs-sample.proftext",
            "profparser-cs-sample-preinline.proftext",
            "profparser-cs-sample-preinline-probe.proftext",
            "llvm-profile-mismatch-cs.prof",
        ],
    ) {
        inputs.push(vec![p]);
    }
    let variants: [&[&str]; 4] = [
        &["--extbinary"],
        &["--extbinary", "--use-md5", "--compress-all-sections"],
        &["--extbinary", "--output-size-limit=4000"],
        &["--text"],
    ];
    let (mut compared, mut failures) = (0usize, Vec::new());
    for files in &inputs {
        for variant in variants {
            let mut a = os(&["--sample", "--convert-sample-profile-layout=nest"]);
            a.extend(os(variant));
            a.extend(files.iter().map(OsString::from));
            compared += 1;
            if let Some(f) = compare(&real, &ours, &a, d) {
                failures.push(f);
            }
        }
    }
    assert_no_differences(compared, 30, &failures, &format!("llvm-profdata-{version}"));
}

#[test]
fn nested_extbinary_matches_llvm_profdata_22() {
    check_nest_extbinary("22");
}

#[test]
fn nested_extbinary_matches_llvm_profdata_19() {
    check_nest_extbinary("19");
}

#[test]
fn nested_extbinary_matches_llvm_profdata_23() {
    check_nest_extbinary("23");
}
