//! `--target-llvm N` writes what `llvm-profdata-N merge` writes, byte for byte, for every raw,
//! indexed and text input of testdata/ and of the third-party llvm-peer folder that
//! llvm-profdata-N reads; every file written for N (also from inputs N cannot read) is read
//! by llvm-profdata-N `show`; what N cannot hold is left out with a warning, or refused with
//! `--strict-target`; multi-input merges of clang-14 profiles equal llvm-profdata-14's.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Every raw, indexed and text profile of testdata/ and of the llvm-peer folder (the latter
/// after a SKIPPED line when it is absent), sorted.
fn inputs(test: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(d) = std::fs::read_dir(dir) else {
            return;
        };
        for e in d.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".profraw")
                    || name.ends_with(".profdata")
                    || name.ends_with(".proftext")
                    || name.ends_with(".profdata.v1")
                {
                    out.push(p);
                }
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join("testdata/profraw"), &mut v);
    walk(&root().join("testdata/profdata"), &mut v);
    let peer = external_dir().join("llvm-peer");
    if peer.is_dir() {
        walk(&peer, &mut v);
    } else {
        eprintln!(
            "SKIPPED {test}: the third-party folder {} is absent (only testdata/ is compared)",
            peer.display()
        );
    }
    v.sort();
    v
}

/// Inputs on which we differ from llvm-profdata on purpose unless `--failure-mode=warn` is
/// given (docs/llvm-profdata-compat.md, deliberate differences 3 and 4): a counter-count
/// conflict and an empty file are errors natively.
fn needs_warn_mode(p: &Path) -> bool {
    let n = p.file_name().unwrap().to_string_lossy();
    n.contains("counter-mismatch") || n.contains("-empty.")
}

fn llvm_merge(tool: &Path, input: &Path, out: &Path) -> bool {
    Command::new(tool)
        .args(["merge", "--num-threads=1", "-o"])
        .arg(out)
        .arg(input)
        .output()
        .unwrap()
        .status
        .success()
}

/// True unless `f` is a raw profile of a version llvm-profdata-`n` does not read (each reads
/// one raw version; asking it costs a process per file and release).
fn may_read(n: u32, f: &Path) -> bool {
    if f.extension().is_none_or(|e| e != "profraw") || std::fs::metadata(f).unwrap().len() < 16 {
        return true;
    }
    match raw_version(f) {
        7 => n == 13,
        8 => (14..=17).contains(&n),
        9 => n == 18,
        10 => (19..=22).contains(&n),
        11 => n >= 23,
        _ => false,
    }
}

/// `llvm-profdata show` of `file` (which reads every record), or its error.
fn readable(tool: &Path, file: &Path) -> Result<(), String> {
    let out = Command::new(tool).arg("show").arg(file).output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The comparison for release `n`, with its figures printed: inputs, inputs llvm-profdata-N
/// reads, byte-identical outputs, and inputs for which LLVM N's own output is unreadable.
fn check_target(n: u32) {
    let test = format!("--target-llvm {n} against llvm-profdata-{n}");
    let Some(tool) = tool(&format!("llvm-profdata-{n}"), &test) else {
        return;
    };
    let dir = tempdir();
    let (mut total, mut written, mut read, mut same, mut theirs_unreadable) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for (i, f) in inputs(&test).iter().enumerate() {
        total += 1;
        let theirs = dir.path().join(format!("{i}-llvm.profdata"));
        let ours = dir.path().join(format!("{i}-ours.profdata"));
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "merge".as_ref(),
            "--target-llvm".as_ref(),
            f.as_os_str(),
            "-o".as_ref(),
            ours.as_os_str(),
        ];
        let version = n.to_string();
        args.insert(2, version.as_ref());
        if needs_warn_mode(f) {
            args.push("--failure-mode=warn".as_ref());
        }
        let out = run_ours(&args);
        let name = f.strip_prefix(root()).unwrap_or(f).display().to_string();
        if !out.status.success() {
            // An input we refuse must be one that llvm-profdata-N refuses too.
            let err = String::from_utf8_lossy(&out.stderr);
            if llvm_merge(&tool, f, &theirs) {
                failures.push(format!(
                    "{name}: llvm-profdata-{n} merges it, we fail: {err}"
                ));
            }
            continue;
        }
        written += 1;
        // Every file we write for N is read by N: shown here unless it is byte-identical to
        // an output of LLVM N that N reads (then one `show` proves both).
        let identical = may_read(n, f) && llvm_merge(&tool, f, &theirs) && {
            read += 1;
            std::fs::read(&theirs).unwrap() == std::fs::read(&ours).unwrap()
        };
        let theirs_ok = identical && readable(&tool, &theirs).is_ok();
        if identical && theirs_ok {
            same += 1;
            continue;
        }
        if let Err(e) = readable(&tool, &ours) {
            failures.push(format!("{name}: llvm-profdata-{n} cannot read ours: {e}"));
            continue;
        }
        if !theirs.exists() {
            continue; // LLVM N does not read the input.
        }
        match readable(&tool, &theirs) {
            Err(e) => {
                // LLVM N wrote a file it cannot read itself; ours (read above) is the fix.
                theirs_unreadable += 1;
                eprintln!(
                    "{test}: {name}: llvm-profdata-{n} writes a file it cannot read ({}); ours \
                     is readable",
                    e.trim()
                );
            }
            Ok(()) => failures.push(format!("{name}: bytes differ from llvm-profdata-{n}'s")),
        }
    }
    eprintln!(
        "{test}: {total} inputs, {read} read by llvm-profdata-{n}, {same} byte-identical, \
         {theirs_unreadable} where LLVM's own output is unreadable; all {written} outputs \
         read by llvm-profdata-{n} show"
    );
    assert!(failures.is_empty(), "{test}:\n{}", failures.join("\n"));
    assert!(read > 10, "{test}: only {read} inputs read");
    assert_eq!(same + theirs_unreadable, read);
}

#[test]
fn target_llvm_13_is_llvm_profdata_13() {
    check_target(13);
}

#[test]
fn target_llvm_14_is_llvm_profdata_14() {
    check_target(14);
}

#[test]
fn target_llvm_18_is_llvm_profdata_18() {
    check_target(18);
}

#[test]
fn target_llvm_19_is_llvm_profdata_19() {
    check_target(19);
}

#[test]
fn target_llvm_22_is_llvm_profdata_22() {
    check_target(22);
}

#[test]
fn target_llvm_23_is_llvm_profdata_23() {
    check_target(23);
}

/// The vtable text input of LLVM's own tests: llvm-profdata-22 `--write-prev-version` keeps
/// its vtable sites in index version 11, which LLVM 18 cannot read; ours leaves them out with
/// one warning saying how many, and `--strict-target` refuses instead.
#[test]
fn vtable_sites_are_left_out_for_llvm_18_and_refused_when_strict() {
    let test = "vtable value sites for LLVM 18";
    let Some(input) = external("llvm-peer/llvm-profdata-vtable-value-prof.proftext", test) else {
        return;
    };
    let (Some(p22), Some(p18)) = (
        tool("llvm-profdata-22", test),
        tool("llvm-profdata-18", test),
    ) else {
        return;
    };
    let dir = tempdir();
    let theirs = dir.path().join("theirs.profdata");
    let out = Command::new(&p22)
        .args(["merge", "--write-prev-version", "-o"])
        .arg(&theirs)
        .arg(&input)
        .output()
        .unwrap();
    assert_ok(&out, "llvm-profdata-22 --write-prev-version");
    assert!(
        readable(&p18, &theirs).is_err(),
        "llvm-profdata-18 now reads LLVM 22's version-11 vtable file; update this test"
    );
    for args in [&["--write-prev-version"][..], &["--target-llvm", "18"]] {
        let ours = dir.path().join("ours.profdata");
        let mut a: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_ref()).collect();
        a.extend([input.as_os_str(), "-o".as_ref(), ours.as_os_str()]);
        let out = run_ours(&a);
        assert_ok(&out, "pgo-merge");
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| l.contains("vtable")).collect();
        assert_eq!(
            lines.len(),
            1,
            "{args:?}: one vtable warning expected:\n{err}"
        );
        assert!(
            lines[0].contains("2 vtable value sites (4 values) of 1 function"),
            "{}",
            lines[0]
        );
        readable(&p18, &ours).unwrap_or_else(|e| panic!("{args:?}: LLVM 18 cannot read: {e}"));
        // The rest of the profile is all there: LLVM 18's show equals LLVM 22's of its own
        // file except for the vtable lines LLVM 18 does not print.
        std::fs::remove_file(&ours).unwrap();

        a.push("--strict-target".as_ref());
        let out = run_ours(&a);
        assert_eq!(out.status.code(), Some(1), "{args:?} --strict-target");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("cannot hold vtable value profiles") && err.contains("--strict-target"),
            "{err}"
        );
        assert!(!ours.exists(), "--strict-target left an output");
    }
}

/// What each index version cannot hold, one warning line per kind, from clang-22 profiles
/// with MC/DC bitmaps, temporal traces, binary IDs and vtable sites written for LLVM 14; and
/// the flags LLVM 13 does not know. Binary IDs are dropped without a warning, as
/// llvm-profdata-14 drops them.
#[test]
fn one_warning_per_kind_left_out() {
    let dir = tempdir();
    let out_file = dir.path().join("o.profdata");
    let cases: [(&[&str], &[&str]); 4] = [
        (&["clang22/mcdc.profraw"], &["cannot hold MC/DC bitmaps"]),
        (
            &[
                "clang22/temporal-run1.profraw",
                "clang22/temporal-run2.profraw",
            ],
            &["cannot hold temporal traces"],
        ),
        (
            &["clang22/vtable-run1.profraw"],
            &["cannot hold vtable value profiles"],
        ),
        (
            &["clang19/entry-coverage.profraw"],
            &["does not know the profile flags single-byte-coverage, function-entry-only"],
        ),
    ];
    for (i, (files, expect)) in cases.iter().enumerate() {
        let target = if i == 3 { "13" } else { "14" };
        let paths: Vec<PathBuf> = files.iter().map(|f| raw(f)).collect();
        let mut a: Vec<&std::ffi::OsStr> = vec!["--target-llvm".as_ref(), target.as_ref()];
        a.extend(paths.iter().map(|p| p.as_os_str()));
        a.extend(["-o".as_ref(), out_file.as_os_str()]);
        let out = run_ours(&a);
        assert_ok(&out, &format!("{files:?}"));
        let err = String::from_utf8_lossy(&out.stderr);
        let left_out: Vec<&str> = err.lines().filter(|l| l.contains("left out")).collect();
        assert_eq!(left_out.len(), expect.len(), "{files:?}:\n{err}");
        for (l, e) in left_out.iter().zip(expect.iter()) {
            assert!(l.contains(e), "{files:?}: expected {e:?} in {l:?}");
            assert!(
                l.contains(&format!("LLVM {target} (index version 7)")),
                "{l}"
            );
        }
        if let Some(t) = tool(&format!("llvm-profdata-{target}"), "one warning per kind") {
            readable(&t, &out_file).unwrap();
        }
    }
}

/// Multi-input merges of clang-14 profiles (raw, indexed and text, weighted, front-end and
/// IR-level) with `--target-llvm 14` equal llvm-profdata-14's single-threaded merges byte for
/// byte: the StringMap order then depends on the order names arrive from several inputs.
#[test]
fn clang14_multi_input_merges_are_llvm_profdata_14() {
    let test = "clang-14 multi-input merges";
    let Some(p14) = tool("llvm-profdata-14", test) else {
        return;
    };
    let pd = |f: &str| root().join("testdata/profdata").join(f);
    let mut cases: Vec<Vec<(u32, PathBuf)>> = vec![
        vec![
            (1, raw("clang14/ir-basic-run1.profraw")),
            (1, raw("clang14/ir-basic-run2.profraw")),
        ],
        vec![
            (1, raw("clang14/ir-basic-run2.profraw")),
            (3, raw("clang14/ir-basic-run1.profraw")),
            (1, raw("clang14/two-tu.profraw")),
            (1, raw("clang14/merge-pool.profraw")),
            (2, raw("clang14/exe-and-shlib.profraw")),
        ],
        vec![
            (1, raw("clang14/fe-basic.profraw")),
            (1, raw("clang14/fe-basic-m32.profraw")),
            (1, pd("clang14-fe-llvm14.proftext")),
        ],
        vec![
            (1, pd("clang14-ir-llvm14.profdata")),
            (1, raw("clang14/ir-basic-run2.profraw")),
            (1, pd("clang14-exe-shlib-llvm14.proftext")),
            (1, pd("clang14-cs-llvm14.profdata")),
        ],
    ];
    for name in [
        "profparser-misc-stable.profraw",
        "profparser-misc-stable2.profraw",
    ] {
        if let Some(p) = external(&format!("llvm-peer/{name}"), test) {
            cases.push(vec![(1, p)]);
        }
    }
    if cases.len() == 6 {
        let (a, b) = (cases[4][0].1.clone(), cases[5][0].1.clone());
        cases.truncate(4);
        cases.push(vec![(1, a.clone()), (2, b.clone())]);
        cases.push(vec![(1, b), (1, a)]);
    }
    let dir = tempdir();
    let mut same = 0;
    // Every case plain, and the second also with --sparse (names left out of the table were
    // still in LLVM's map, so they shape the order).
    let runs = (0..cases.len()).map(|i| (i, false)).chain([(1, true)]);
    for (i, sparse) in runs {
        let case = &cases[i];
        let theirs = dir.path().join(format!("{i}-{sparse}-llvm.profdata"));
        let ours = dir.path().join(format!("{i}-{sparse}-ours.profdata"));
        let mut llvm = Command::new(&p14);
        llvm.args(["merge", "--num-threads=1", "-o"]).arg(&theirs);
        let mut a: Vec<String> = vec!["--target-llvm".into(), "14".into()];
        if sparse {
            llvm.arg("--sparse");
            a.push("--sparse".into());
        }
        for (w, p) in case {
            llvm.arg(format!("--weighted-input={w},{}", p.display()));
            a.push("-w".into());
            a.push(format!("{w},{}", p.display()));
        }
        a.extend(["-o".into(), ours.display().to_string()]);
        assert_ok(
            &llvm.output().unwrap(),
            &format!("llvm-profdata-14 case {i}"),
        );
        assert_ok(&run_ours(&a), &format!("pgo-merge case {i}"));
        assert!(
            std::fs::read(&theirs).unwrap() == std::fs::read(&ours).unwrap(),
            "case {i} ({case:?}, sparse {sparse}): bytes differ from llvm-profdata-14's"
        );
        same += 1;
    }
    eprintln!("{test}: {same} merges byte-identical to llvm-profdata-14 --num-threads=1");
}

/// A merge of clang 14's raw profiles: for LLVM 14 (by `--target-llvm 14`, or natively by
/// `PGO_MERGE_TARGET_LLVM=14`) it is quiet, as llvm-profdata-14 is, even with
/// `--strict-target` (binary IDs, which index version 7 cannot hold, are not needed by the
/// compiler); with no release named it warns that LLVM 14 cannot read the default output.
/// Profiles of LLVM 19–22 (raw version 10, which LLVM 22 writes too) get no such warning.
#[test]
fn old_raw_profiles_say_when_their_compiler_cannot_read_the_merge() {
    let dir = tempdir();
    let inputs = [
        raw("clang14/ir-basic-run1.profraw"),
        raw("clang14/ir-basic-run2.profraw"),
    ];
    let merge = |extra: &[&str], env: Option<&str>, out: &Path| {
        let mut cmd = crate::common::pgo_merge();
        cmd.args(&inputs).arg("-o").arg(out).args(extra);
        cmd.env_remove("PGO_MERGE_TARGET_LLVM");
        if let Some(v) = env {
            cmd.env("PGO_MERGE_TARGET_LLVM", v);
        }
        let o = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{extra:?}: {err}");
        err
    };
    let (by_flag, by_env, default) = (
        dir.path().join("flag.profdata"),
        dir.path().join("env.profdata"),
        dir.path().join("default.profdata"),
    );
    let err = merge(&["--target-llvm", "14", "--strict-target"], None, &by_flag);
    assert!(!err.contains("warning"), "{err}");
    let err = merge(&[], Some("14"), &by_env);
    assert!(!err.contains("warning"), "{err}");
    assert_eq!(
        std::fs::read(&by_flag).unwrap(),
        std::fs::read(&by_env).unwrap()
    );
    assert_eq!(index_version(&by_env), 7);
    let err = merge(&[], None, &default);
    assert!(
        err.contains("every input is a raw profile of LLVM 17 or older (raw version 8)")
            && err.contains("only LLVM 22 and later read")
            && err.contains("--target-llvm"),
        "{err}"
    );
    if let Some(t) = tool("llvm-profdata-14", "quiet merges for LLVM 14") {
        readable(&t, &by_flag).unwrap();
        let theirs = dir.path().join("theirs.profdata");
        let mut a: Vec<&std::ffi::OsStr> =
            vec!["merge".as_ref(), "-o".as_ref(), theirs.as_os_str()];
        a.extend(inputs.iter().map(|p| p.as_os_str()));
        let o = run(&t, &a);
        assert!(o.status.success() && o.stderr.is_empty(), "{o:?}");
        assert_eq!(
            std::fs::read(&theirs).unwrap(),
            std::fs::read(&by_flag).unwrap()
        );
    }
    let current = [raw("clang22/mcdc.profraw")];
    let o = run_ours([current[0].as_os_str(), "-o".as_ref(), default.as_os_str()]);
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("every input"),
        "{o:?}"
    );
}
