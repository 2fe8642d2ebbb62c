//! Every raw version in testdata (v4, v5, v7, v8, v9, v10, v11; 32/64-bit) read by us gives the
//! same profile as the llvm-profdata that reads that version, and one pgo-merge run merges
//! raw versions that no single llvm-profdata reads together.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// For each file of `producer`: merge it with its own llvm-profdata and with us, then show
/// both with `viewer` (a tool that reads both index versions).
fn check_producer(
    producer: &str,
    own: &str,
    ours_version_args: &[&str],
    viewer: &str,
    unordered: bool,
) {
    let test = format!("raw versions: {producer}");
    let Some(own_tool) = tool(own, &test) else {
        return;
    };
    let Some(viewer_tool) = tool(viewer, &test) else {
        return;
    };
    let dir = tempdir();
    let mut n = 0;
    for f in raws_of(producer) {
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let theirs = dir.path().join(format!("{stem}-llvm.profdata"));
        let ours = dir.path().join(format!("{stem}-ours.profdata"));
        let out = Command::new(&own_tool)
            .arg("merge")
            .arg("-o")
            .arg(&theirs)
            .arg(&f)
            .output()
            .unwrap();
        if !out.status.success() {
            // Debug-info correlation files need the binary; llvm-profdata refuses them.
            assert!(
                stem.contains("correlate"),
                "{own} cannot merge {}: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            let out = run_ours([f.as_os_str(), "-o".as_ref(), ours.as_os_str()]);
            assert_ok(&out, "pgo-merge on a correlation-mode file");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains("correlation"),
                "expected a warning about correlation: {err}"
            );
            continue;
        }
        let mut args: Vec<&std::ffi::OsStr> =
            ours_version_args.iter().map(|s| s.as_ref()).collect();
        args.extend([f.as_os_str(), "-o".as_ref(), ours.as_os_str()]);
        let out = run_ours(&args);
        assert_ok(&out, &format!("pgo-merge {}", f.display()));
        if unordered {
            // llvm-profdata before LLVM 17 lists functions in StringMap order, which depends
            // on its insertion history; without --target-llvm we write them sorted, so compare
            // the function blocks as a set (with it, the order is LLVM's: compared in order).
            assert_same_show_unordered(&viewer_tool, &ours, &theirs, &format!("{producer}/{stem}"));
        } else {
            assert_same_show(&viewer_tool, &ours, &theirs, &format!("{producer}/{stem}"));
        }
        n += 1;
    }
    assert!(n > 0);
    eprintln!("{test}: {n} files show identically");
}

#[test]
fn raw_v4_clang9() {
    check_producer("clang9", "llvm-profdata-9", &[], "llvm-profdata-22", true);
}

#[test]
fn raw_v5_clang11() {
    check_producer("clang11", "llvm-profdata-11", &[], "llvm-profdata-22", true);
}

#[test]
fn raw_v7_clang13() {
    check_producer(
        "clang13",
        "llvm-profdata-13",
        &["--target-llvm", "13"],
        "llvm-profdata-13",
        false,
    );
}

/// The acceptance point for clang-14: `--target-llvm 14` output shows identically in
/// llvm-profdata-14.
#[test]
fn raw_v8_clang14_target_llvm_14() {
    check_producer(
        "clang14",
        "llvm-profdata-14",
        &["--target-llvm", "14"],
        "llvm-profdata-14",
        false,
    );
}

#[test]
fn raw_v9_clang18() {
    check_producer(
        "clang18",
        "llvm-profdata-18",
        &["--target-llvm", "18"],
        "llvm-profdata-18",
        false,
    );
}

#[test]
fn raw_v11_clang23() {
    check_producer(
        "clang23",
        "llvm-profdata-23",
        &[],
        "llvm-profdata-23",
        false,
    );
}

/// clang-14 (raw v8), clang-19 (raw v10) and rustc (raw v10) profiles merged in one run. No
/// single llvm-profdata reads both raw versions; the reference is llvm-profdata-14's indexed
/// output of the v8 file merged by llvm-profdata-22 with the v10 files, which must be
/// byte-identical to ours.
#[test]
fn cross_version_merge() {
    let test = "cross-version merge";
    let Some(p14) = tool("llvm-profdata-14", test) else {
        return;
    };
    let Some(p22) = tool("llvm-profdata-22", test) else {
        return;
    };
    let dir = tempdir();
    let v8 = raw("clang14/ir-basic-run1.profraw");
    let v10a = raw("clang19/ir-basic-run2.profraw");
    let v10b = raw("rustc/ir-run1.profraw");
    // No single llvm-profdata reads them all.
    let out = Command::new(&p22)
        .args(["merge", "-o"])
        .arg(dir.path().join("x"))
        .arg(&v8)
        .arg(&v10a)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "llvm-profdata-22 unexpectedly read raw v8"
    );
    let out = Command::new(&p14)
        .args(["merge", "-o"])
        .arg(dir.path().join("y"))
        .arg(&v8)
        .arg(&v10a)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "llvm-profdata-14 unexpectedly read raw v10"
    );

    let staged = dir.path().join("v8.profdata");
    let out = Command::new(&p14)
        .args(["merge", "-o"])
        .arg(&staged)
        .arg(&v8)
        .output()
        .unwrap();
    assert_ok(&out, "llvm-profdata-14 merge");
    let theirs = dir.path().join("theirs.profdata");
    let out = Command::new(&p22)
        .args(["merge", "--num-threads=1", "-o"])
        .arg(&theirs)
        .arg(&staged)
        .arg(&v10a)
        .arg(&v10b)
        .output()
        .unwrap();
    assert_ok(&out, "llvm-profdata-22 merge");
    let ours = dir.path().join("ours.profdata");
    let out = run_ours([
        v8.as_os_str(),
        v10a.as_os_str(),
        v10b.as_os_str(),
        "-o".as_ref(),
        ours.as_os_str(),
    ]);
    assert_ok(&out, "pgo-merge cross-version");
    // Everything LLVM's two-step merge keeps is identical; in addition we keep the clang-14
    // build ID, which LLVM 14's index version 7 cannot carry.
    assert_same_show_except(&p22, &ours, &theirs, test, &["--binary-ids"]);
    let ids = |p: &Path| show(&p22, &["show", "--binary-ids"], p);
    let (o, t) = (ids(&ours), ids(&theirs));
    for line in t.lines().skip_while(|l| !l.starts_with("Binary IDs")) {
        assert!(o.contains(line), "binary ID {line} missing from ours");
    }
    assert_eq!(
        o.lines().count(),
        t.lines().count() + 1,
        "ours should have exactly one more binary ID:\n{o}\n{t}"
    );
}
