//! `merge --sample --function/--no-function` against the real tools: our drop-in and the
//! real llvm-profdata of each release run with the same filters on the same inputs (flat,
//! probe-based, context-sensitive, MD5-named), and the outputs compared byte for byte in
//! every encoding. The filters match names, hashes printed in decimal and calling contexts
//! (`f3:4 @ leaf12`); a removed context-sensitive profile also changes the order of the
//! extbinary function metadata, which follows LLVM's map after erasures.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::common::*;
use crate::sample_options::{
    FORMATS, compare, dropin_named, external_inputs, generated_cs, generated_probe, os, sample_dir,
};

/// Filters: each a list of arguments.
const FILTERS: [&[&str]; 6] = [
    &["--function=a"],
    &["--no-function=^f1"],
    &["--function=leaf1", "--no-function=leaf12"],
    &["--function=checksum_table"],
    &["--no-function=_"],
    &["--function=^1"],
];

fn check_filters(version: &str) {
    let test = format!("sample_filters_match_llvm_profdata_{version}");
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
    ]
    .iter()
    .map(|n| sample_dir().join(n))
    .collect();
    inputs.push(generated_cs(dir.path(), 120, 5));
    inputs.push(generated_probe(dir.path(), 80, 11));
    // An MD5-named input, written by the real tool: names are matched through their hash.
    let md5 = dir.path().join("flat.md5.afdo");
    let made = run(
        &real,
        &[
            "merge".as_ref(),
            "--sample".as_ref(),
            "--extbinary".as_ref(),
            "--use-md5".as_ref(),
            sample_dir().join("flat.prof.txt").as_os_str(),
            "-o".as_ref(),
            md5.as_os_str(),
        ],
    );
    assert!(made.status.success(), "make the MD5 input");
    inputs.push(md5);
    inputs.extend(external_inputs(
        &test,
        &["profparser-cs-sample-preinline-probe.proftext"],
    ));
    let mut failures = Vec::new();
    let mut compared = 0;
    for input in &inputs {
        for filter in FILTERS {
            for format in FORMATS.iter().copied().chain(["--use-md5"]) {
                let mut a = os(&["--sample"]);
                if format == "--use-md5" {
                    a.extend(os(&["--extbinary", "--use-md5"]));
                } else {
                    a.push(OsString::from(format));
                }
                a.extend(os(filter));
                a.push(input.into());
                compared += 1;
                if let Some(f) = compare(&real, &ours, &a, dir.path()) {
                    failures.push(f);
                }
            }
        }
    }
    assert_no_differences(
        compared,
        100,
        &failures,
        &format!("llvm-profdata-{version}"),
    );
}

#[test]
fn sample_filters_match_llvm_profdata_19() {
    check_filters("19");
}

#[test]
fn sample_filters_match_llvm_profdata_22() {
    check_filters("22");
}

#[test]
fn sample_filters_match_llvm_profdata_23() {
    check_filters("23");
}

/// The count llvm-profdata prints, and a bad pattern: an error naming it, before any input
/// is read.
#[test]
fn sample_filter_reports_and_refuses_bad_patterns() {
    let dir = tempdir();
    let out = dir.path().join("o.txt");
    let o = run_ours([
        "merge".as_ref(),
        "--sample".as_ref(),
        "--text".as_ref(),
        "--no-function=_".as_ref(),
        sample_dir().join("flat.prof.txt").as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_ok(&o, "filtered merge");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("of 5 functions in the original profile are filtered."),
        "{err}"
    );
    let o = run_ours([
        "merge".as_ref(),
        "--sample".as_ref(),
        "--function=(".as_ref(),
        "missing.prof.txt".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("invalid function filter \"(\""), "{err}");
}

/// A flat and a context-sensitive text profile where some top-level profiles have no
/// samples: `(file name, text, the regex naming exactly those)`.
fn with_empty_profiles() -> [(&'static str, String, &'static str); 2] {
    let flat = "hot:1200:10\n 1: 10\n 2: 900 callee:900\n 3: 290\n\
                cold_a:0:0\n 1: 0\n\
                warm:50:5\n 1: 50\n\
                cold_b:0:0\n\
                tail:7:1\n 2: 7\n"
        .to_string();
    let mut cs = String::new();
    for i in 0..24 {
        let (total, leaf) = if i % 3 == 0 {
            (0, format!("nil{i}"))
        } else {
            (100 * i + 7, format!("leaf{i}"))
        };
        let context = match i % 4 {
            0 => format!("main:{i} @ {leaf}"),
            1 => format!("main:{i} @ mid{}:2 @ {leaf}", i % 5),
            2 => leaf,
            _ => format!("root:1 @ mid{}:{} @ {leaf}", i % 5, i % 7 + 1),
        };
        cs += &format!("[{context}]:{total}:0\n 1: {total}\n");
    }
    [
        ("empty-flat.prof.txt", flat, "^cold_[ab]$"),
        ("empty-cs.prof.txt", cs, "nil"),
    ]
}

/// Natively, `--sparse` drops the top-level profiles without samples: the output is
/// llvm-profdata's with `--no-function` naming exactly those, in every encoding. As
/// `llvm-profdata`, the drop-in ignores `--sparse` with `--sample`, as the real tool does.
#[test]
fn sample_sparse_drops_empty_profiles() {
    let test = "sample_sparse_drops_empty_profiles";
    let Some(real) = tool("llvm-profdata-22", test) else {
        return;
    };
    let (_guard, dropin) = dropin_named("llvm-profdata-22");
    let dir = tempdir();
    let mut failures = Vec::new();
    let mut compared = 0;
    for (name, text, empty) in with_empty_profiles() {
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        for format in ["--text", "--extbinary", "--binary"] {
            let theirs = dir.path().join("theirs.out");
            let ours = dir.path().join("ours.out");
            let _ = std::fs::remove_file(&theirs);
            let made = run(
                &real,
                &[
                    "merge".as_ref(),
                    "--sample".as_ref(),
                    format.as_ref(),
                    format!("--no-function={empty}").as_ref(),
                    input.as_os_str(),
                    "-o".as_ref(),
                    theirs.as_os_str(),
                ],
            );
            if !made.status.success() {
                // llvm-profdata refuses --binary for context-sensitive profiles.
                continue;
            }
            let o = run_ours([
                "merge".as_ref(),
                "--sample".as_ref(),
                "--sparse".as_ref(),
                format.as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
                ours.as_os_str(),
            ]);
            assert_ok(&o, "native --sparse");
            compared += 1;
            if std::fs::read(&theirs).unwrap() != std::fs::read(&ours).unwrap() {
                failures.push(format!("{name} {format}: native --sparse differs"));
            }
            let mut a = os(&["--sample", "--sparse", format]);
            a.push(input.clone().into());
            compared += 1;
            if let Some(f) = compare(&real, &dropin, &a, dir.path()) {
                failures.push(format!("drop-in: {f}"));
            }
        }
    }
    assert_no_differences(compared, 8, &failures, "llvm-profdata-22");
}
