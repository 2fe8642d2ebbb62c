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
