//! Wide hostile shapes, compared byte for byte with llvm-profdata-22: a sample body line
//! with tens of thousands of call targets (in the writer's plain shape, and in LLVM's full
//! grammar with repeated names, whose last count wins), an LLVM 22 `vtables` line as long,
//! and an indexed profile of tens of thousands of records of one name. Each took time
//! quadratic in its width (100,000: 42–45 s, against about a second for llvm-profdata);
//! the timings at n and 2n are `benches/hostile.py`'s (docs/performance.md), not a test's.
//! Here: the outputs are still llvm-profdata's.

use std::ffi::OsString;

use crate::common::*;
use crate::sample_options::{dropin_named, merge};

/// Width of each shape: large enough that a quadratic check would show in the test's time,
/// small enough for a debug build.
const WIDTH: usize = 20_000;

fn compare(test: &str, input_name: &str, input: &[u8], args: &[&str]) {
    let Some(real) = tool("llvm-profdata-22", test) else {
        return;
    };
    let (_keep, ours) = dropin_named("llvm-profdata-22");
    let dir = tempdir();
    let input_path = dir.path().join(input_name);
    std::fs::write(&input_path, input).unwrap();
    let mut a: Vec<OsString> = args.iter().map(OsString::from).collect();
    a.push(input_path.into());
    let theirs = merge(&real, &a, &dir.path().join("theirs")).expect("llvm-profdata-22");
    let mine = merge(&ours, &a, &dir.path().join("ours")).expect("ours");
    assert!(
        mine == theirs,
        "{test} {args:?}: ours differs from llvm-profdata-22\n{}",
        differing_lines(
            &String::from_utf8_lossy(&mine),
            &String::from_utf8_lossy(&theirs),
            5,
            "ours",
            "llvm-profdata-22"
        )
    );
}

#[test]
fn a_line_of_many_call_targets_reads_as_llvm_reads_it() {
    let test = "a_line_of_many_call_targets_reads_as_llvm_reads_it";
    // Plain names, distinct: the flat reader's shape.
    let targets: Vec<String> = (0..WIDTH).map(|i| format!("t{i}:{}", i % 7 + 1)).collect();
    let plain = format!("f:{WIDTH}:1\n 1: {WIDTH} {}\n", targets.join(" "));
    // Names with a colon, each twice (the second count wins), in LLVM's full grammar.
    let mut twice: Vec<String> = (0..WIDTH / 2)
        .map(|i| format!("n{i}:x:{}", i % 5 + 1))
        .collect();
    twice.extend(
        (0..WIDTH / 2)
            .rev()
            .map(|i| format!("n{i}:x:{}", i % 3 + 10)),
    );
    let full = format!("g:{WIDTH}:1\n 2: {WIDTH} {}\n", twice.join(" "));
    for fmt in ["--text", "--extbinary"] {
        compare(test, "plain.txt", plain.as_bytes(), &["--sample", fmt]);
        compare(test, "full.txt", full.as_bytes(), &["--sample", fmt]);
    }
}

#[test]
fn a_long_vtables_line_reads_as_llvm_22_reads_it() {
    let types: Vec<String> = (0..WIDTH)
        .map(|i| format!("_ZTV{i}:{}", i % 4 + 1))
        .collect();
    let text = format!("f:10:1\n 1: 10\n 1: vtables {}\n", types.join(" "));
    compare(
        "a_long_vtables_line_reads_as_llvm_22_reads_it",
        "vt.txt",
        text.as_bytes(),
        &["--sample", "--text"],
    );
}

#[test]
fn many_records_of_one_name_write_as_llvm_writes_them() {
    let mut text = String::from(":ir\n");
    for i in 0..WIDTH as u64 {
        let hash = i.wrapping_mul(2_654_435_761) % (1 << 63) + 1;
        text.push_str(&format!(
            "same\n# Func Hash:\n{hash}\n# Num Counters:\n1\n# Counter Values:\n{}\n\n",
            i + 1
        ));
    }
    let test = "many_records_of_one_name_write_as_llvm_writes_them";
    compare(test, "same.proftext", text.as_bytes(), &[]);
    compare(test, "same.proftext", text.as_bytes(), &["--text"]);
}
