//! Merging sample profiles of different kinds (flat, context-sensitive, probe-based,
//! pre-inlined, flow-sensitive) and encodings (text, binary, extbinary, GCC's), in both orders, as llvm-profdata 19, 22 and 23
//! do: the same refusals and, where they merge, the same bytes.
//!
//! llvm-profdata's kind check compares its `ProfileIsProbeBased` and `ProfileIsCS` statics
//! before and after reading each input, and each reader sets them its own way (text assigns
//! them, extbinary only raises CS and sets probe-based from a non-empty metadata section,
//! binary leaves them): so a flat extbinary profile may follow a CS one, not precede it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Our profiles of each kind, as text, extbinary and (where LLVM writes it) binary.
fn files() -> Vec<PathBuf> {
    let dir = root().join("testdata/sample");
    let mut v = Vec::new();
    for kind in [
        "flat",
        "cs",
        "probe",
        "cs-probe",
        "preinlined",
        "fs-discriminators",
        "real-probe",
    ] {
        v.push(dir.join(format!("{kind}.prof.txt")));
        v.push(dir.join(format!("llvm22/{kind}.extbinary.afdo")));
        let b = dir.join(format!("llvm22/{kind}.binary.afdo"));
        if b.is_file() {
            v.push(b);
        }
    }
    // GCC's encoding (a real create_gcov recording): its reader leaves the statics alone.
    v.push(dir.join("gcov/work-O2.afdo"));
    for p in &v {
        assert!(p.is_file(), "{} is missing", p.display());
    }
    v
}

fn merge(
    mut cmd: Command,
    target: &[String],
    out_enc: &str,
    a: &Path,
    b: &Path,
    out: &Path,
) -> bool {
    cmd.arg("merge")
        .args(target)
        .args(["--sample", out_enc])
        .arg(a)
        .arg(b)
        .arg("-o")
        .arg(out)
        .output()
        .expect("run")
        .status
        .success()
}

#[test]
fn mixed_kinds_merge_or_fail_as_llvm() {
    let dir = tempdir();
    let files = files();
    let name = |p: &Path| {
        let parent = p.parent().unwrap().file_name().unwrap().to_string_lossy();
        format!("{parent}/{}", p.file_name().unwrap().to_string_lossy())
    };
    let (mut compared, mut merged_mixed, mut refused) = (0usize, 0usize, 0usize);
    let mut diffs = Vec::new();
    for release in [19u32, 22, 23] {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample kinds") else {
            continue;
        };
        let encodings: &[&str] = if release == 22 {
            &["--extbinary", "--text"]
        } else {
            &["--extbinary"]
        };
        for a in &files {
            for b in &files {
                if a == b {
                    continue;
                }
                let kind = |p: &Path| name(p).split('.').next().unwrap().to_string();
                let mixed = kind(a).rsplit('/').next() != kind(b).rsplit('/').next();
                for enc in encodings {
                    let (t, o) = (dir.path().join("theirs"), dir.path().join("ours"));
                    let theirs = merge(Command::new(&tool), &[], enc, a, b, &t);
                    let target = [format!("--target-llvm={release}")];
                    let ours = merge(pgo_merge(), &target, enc, a, b, &o);
                    compared += 1;
                    let what = format!("llvm-profdata-{release} {enc} {} {}", name(a), name(b));
                    match (theirs, ours) {
                        (false, false) => refused += 1,
                        (true, true) => {
                            if std::fs::read(&t).unwrap() != std::fs::read(&o).unwrap() {
                                diffs.push(format!("{what}: different bytes"));
                            } else if mixed {
                                merged_mixed += 1;
                            }
                        }
                        (t, o) => diffs.push(format!("{what}: llvm ok {t}, ours ok {o}")),
                    }
                }
            }
        }
    }
    if compared == 0 {
        return;
    }
    // Both outcomes must occur, or the check proves little.
    assert!(
        merged_mixed > 50 && refused > 50,
        "{merged_mixed} mixed merges, {refused} refusals"
    );
    assert_no_differences(compared, 500, &diffs, "llvm-profdata");
}
