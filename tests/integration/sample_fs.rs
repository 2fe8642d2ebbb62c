//! Flow-sensitive discriminators (`--fs-discriminator-pass`, `--profile-isfs`) against the
//! real tools: our drop-in named `llvm-profdata-19` / `-22` / `-23` and the real llvm-profdata
//! of that release run with the same arguments on the same inputs, outputs compared byte for
//! byte in every encoding (text, binary, extbinary with MD5 names and compression). Inputs:
//! the hand-written profiles of testdata/sample/fs and fs-discriminators.prof.txt, as text,
//! as binary, and as extbinary written by the real tool with and without the flow-sensitive
//! flag; alone and merged in both orders (the output's flag follows LLVM's global); with
//! remapping (which masks whatever the input) and layout conversion. `show --sample` and
//! `overlap --sample` read through the same mask and are compared too.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use crate::sample_options::{compare, dropin_named, os, sample_dir};

fn fs_dir() -> PathBuf {
    sample_dir().join("fs")
}

/// The text inputs of these tests, and whether each is probe-based.
fn text_inputs() -> Vec<(PathBuf, bool)> {
    vec![
        (fs_dir().join("collisions.prof.txt"), false),
        (fs_dir().join("cs.prof.txt"), false),
        (fs_dir().join("probe.prof.txt"), true),
        (fs_dir().join("vtables.prof.txt"), false),
        (sample_dir().join("fs-discriminators.prof.txt"), false),
    ]
}

/// `real merge --sample ARGS INPUT -o DIR/NAME`: the file, or None if the tool refuses
/// (`--binary` of context-sensitive and probe-based profiles).
fn made_by(real: &Path, args: &[&str], input: &Path, dir: &Path, name: &str) -> Option<PathBuf> {
    let out = dir.join(name);
    let ok = Command::new(real)
        .args(["merge", "--sample"])
        .args(args)
        .arg(input)
        .arg("-o")
        .arg(&out)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then_some(out)
}

fn check_merges(version: &str) {
    let test = format!("sample_fs_discriminators_match_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let remap = fs_dir().join("fs.remap");
    let remap_arg = format!("--remapping-file={}", remap.display());
    let formats: [&[&str]; 4] = [
        &["--text"],
        &["--binary"],
        &["--extbinary"],
        &["--extbinary", "--use-md5", "--compress-all-sections"],
    ];
    let (mut compared, mut failures) = (0usize, Vec::new());
    for (n, (text, probe)) in text_inputs().into_iter().enumerate() {
        let d = dir.path();
        let fs_ext = made_by(
            &real,
            &["--extbinary", "--profile-isfs"],
            &text,
            d,
            &format!("{n}-fs.afdo"),
        )
        .expect("the real tool writes every input as flow-sensitive extbinary");
        let plain_ext = made_by(&real, &["--extbinary"], &text, d, &format!("{n}.afdo"))
            .expect("the real tool writes every input as extbinary");
        let binary = made_by(&real, &["--binary"], &text, d, &format!("{n}.binary.afdo"));
        let mut sets: Vec<Vec<PathBuf>> = vec![
            vec![text.clone()],
            vec![fs_ext.clone()],
            vec![text.clone(), fs_ext.clone()],
            vec![fs_ext.clone(), text.clone()],
            vec![fs_ext.clone(), plain_ext.clone()],
        ];
        if let Some(b) = binary {
            sets.push(vec![b.clone()]);
            sets.push(vec![fs_ext.clone(), b]);
        }
        let mut extras: Vec<Vec<&str>> = vec![
            vec![],
            vec!["--profile-isfs"],
            vec![remap_arg.as_str()],
            vec![remap_arg.as_str(), "--profile-isfs"],
            vec!["--convert-sample-profile-layout=nest"],
        ];
        // Not for the probe-based input: flattening there makes a top-level profile of the
        // unnamed callee LLVM's extbinary reader creates (see sample-profiles.md), which
        // llvm-profdata then writes from its hash map's empty key.
        if !probe {
            extras.push(vec!["--convert-sample-profile-layout=flat"]);
        }
        for files in &sets {
            for pass in ["Base", "Pass1", "PassLast"] {
                for extra in &extras {
                    for format in formats {
                        let mut a = os(&["--sample"]);
                        a.extend(os(format));
                        a.push(OsString::from(format!("--fs-discriminator-pass={pass}")));
                        a.extend(os(extra));
                        a.extend(files.iter().map(OsString::from));
                        compared += 1;
                        if let Some(f) = compare(&real, &ours, &a, d) {
                            failures.push(f);
                        }
                    }
                }
            }
        }
    }
    assert_no_differences(
        compared,
        1000,
        &failures,
        &format!("llvm-profdata-{version}"),
    );
}

#[test]
fn sample_fs_discriminators_match_llvm_profdata_22() {
    check_merges("22");
}

#[test]
fn sample_fs_discriminators_match_llvm_profdata_19() {
    check_merges("19");
}

#[test]
fn sample_fs_discriminators_match_llvm_profdata_23() {
    check_merges("23");
}

/// Runs `tool ARGS`: (exit code, standard output, standard error).
fn run_full(tool: &Path, args: &[OsString]) -> (Option<i32>, Vec<u8>, String) {
    let o = Command::new(tool)
        .args(args)
        .env_remove("PGO_MERGE_TARGET_LLVM")
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
    (
        o.status.code(),
        o.stdout,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `show --sample` and `overlap --sample` read through the same mask.
fn check_show_overlap(version: &str) {
    let test = format!("sample_fs_show_and_overlap_match_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let (mut compared, mut failures) = (0usize, Vec::new());
    for (n, (text, _)) in text_inputs().into_iter().enumerate() {
        let fs_ext = made_by(
            &real,
            &["--extbinary", "--profile-isfs"],
            &text,
            dir.path(),
            &format!("{n}-fs.afdo"),
        )
        .expect("the real tool writes every input as flow-sensitive extbinary");
        for input in [&text, &fs_ext] {
            for pass in ["Base", "Pass1", "PassLast"] {
                for isfs in [false, true] {
                    let views: [Vec<&std::ffi::OsStr>; 4] = [
                        vec!["show".as_ref(), "--sample".as_ref(), input.as_os_str()],
                        vec![
                            "show".as_ref(),
                            "--sample".as_ref(),
                            "--show-format=json".as_ref(),
                            input.as_os_str(),
                        ],
                        vec![
                            "show".as_ref(),
                            "--sample".as_ref(),
                            "--detailed-summary".as_ref(),
                            input.as_os_str(),
                        ],
                        vec![
                            "overlap".as_ref(),
                            "--sample".as_ref(),
                            input.as_os_str(),
                            text.as_os_str(),
                        ],
                    ];
                    for view in views {
                        let mut a: Vec<OsString> = view.iter().map(OsString::from).collect();
                        a.push(format!("--fs-discriminator-pass={pass}").into());
                        if isfs {
                            a.push("--profile-isfs".into());
                        }
                        compared += 1;
                        let theirs = run_full(&real, &a);
                        let mine = run_full(&ours, &a);
                        if theirs.0 != mine.0 || theirs.1 != mine.1 {
                            failures.push(format!(
                                "{}: exit {:?} vs our {:?}, outputs {}",
                                a.iter()
                                    .map(|s| s
                                        .to_string_lossy()
                                        .rsplit('/')
                                        .next()
                                        .unwrap_or("")
                                        .to_string())
                                    .collect::<Vec<_>>()
                                    .join(" "),
                                theirs.0,
                                mine.0,
                                if theirs.1 == mine.1 {
                                    "equal"
                                } else {
                                    "differ"
                                }
                            ));
                        }
                    }
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
fn sample_fs_show_and_overlap_match_llvm_profdata_22() {
    check_show_overlap("22");
}

#[test]
fn sample_fs_show_and_overlap_match_llvm_profdata_19() {
    check_show_overlap("19");
}

#[test]
fn sample_fs_show_and_overlap_match_llvm_profdata_23() {
    check_show_overlap("23");
}

/// The drop-in takes exactly llvm-profdata's spellings of the pass (case included) and says
/// what it does not take as llvm-profdata says it.
#[test]
fn sample_fs_pass_values_are_checked_as_llvm_profdata_checks_them() {
    let test = "sample_fs_pass_values_are_checked_as_llvm_profdata_checks_them";
    let Some(real) = tool("llvm-profdata-22", test) else {
        return;
    };
    let (_guard, ours) = dropin_named("llvm-profdata");
    let input = sample_dir().join("fs-discriminators.prof.txt");
    let dir = tempdir();
    let out = dir.path().join("o.txt");
    let cases: &[&[&str]] = &[
        &["--fs-discriminator-pass=pass1"],
        &["--fs-discriminator-pass=Pass4"],
        &["--fs-discriminator-pass="],
        &["--fs-discriminator-pass", "Pass1"],
        &["-fs-discriminator-pass=Base"],
        &["--fs-discriminator-pass=Pass3", "--profile-isfs=true"],
        &["--profile-isfs=2"],
        &["--profile-isfs=0", "--fs-discriminator-pass=Pass2"],
    ];
    for case in cases {
        let mut a = os(&["merge", "--sample", "--text"]);
        a.extend(os(case));
        a.push(input.clone().into());
        a.push("-o".into());
        a.push(out.clone().into());
        let theirs = run_full(&real, &a);
        let their_out = std::fs::read(&out).ok();
        let _ = std::fs::remove_file(&out);
        let mine = run_full(&ours, &a);
        let my_out = std::fs::read(&out).ok();
        let _ = std::fs::remove_file(&out);
        assert_eq!(
            theirs.0, mine.0,
            "{case:?}: exit codes; ours said {}",
            mine.2
        );
        assert_eq!(theirs.2, mine.2, "{case:?}: messages");
        if theirs.0 == Some(0) {
            assert_eq!(their_out, my_out, "{case:?}: outputs");
        }
    }
}

/// The native command line takes the pass in any case, and refuses other values clearly.
#[test]
fn native_fs_discriminator_pass() {
    let input = sample_dir().join("fs-discriminators.prof.txt");
    let dir = tempdir();
    let out = dir.path().join("o.txt");
    let o = run_ours([
        "merge".as_ref(),
        "--sample".as_ref(),
        "--text".as_ref(),
        "--profile-isfs".as_ref(),
        "--fs-discriminator-pass".as_ref(),
        "pass1".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    // 3.2952803840 keeps its low 14 bits (13824); 2.268435456 becomes 2 and adds up with 2.
    assert!(text.contains("\n 3.13824: 120000\n"), "{text}");
    assert!(text.contains("\n 2: 2800\n"), "{text}");
    let o = run_ours([
        "merge".as_ref(),
        "--sample".as_ref(),
        "--fs-discriminator-pass=pass4".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("pass4") && err.contains("Base, Pass1, Pass2, Pass3, PassLast"),
        "{err}"
    );
}
