//! A profile with names merged with one whose names are MD5 hashes (written by the real
//! llvm-profdata with `--use-md5` at test time), against llvm-profdata 19, 22 and 23: our
//! drop-in and the real tool run with the same arguments, outputs compared byte for byte.
//!
//! LLVM keys its profile map by the hash of a function (or of a calling context), so a
//! function read by name from one input and by its MD5 from the other is one profile, under
//! the spelling of the input that brought it first; inlined callees and call targets, keyed
//! by the function itself, keep a name and its hash apart. LLVM 23 hashes the names of
//! context frames another way, so there the contexts of a context-sensitive merge stay two
//! (but meet again where a context becomes a plain function: flattening, nesting, the
//! context-less summary). Every input order, flat, probe-based and context-sensitive inputs,
//! the same profile and an overlapping one, every output encoding and the layout options.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::common::{assert_no_differences, tempdir, tool};
use crate::sample_options::{compare, dropin_named, generated_cs, generated_probe, os, sample_dir};

/// Output options compared for every merge; the second element is false for options
/// llvm-profdata-19 lacks.
const OUTPUTS: [(&[&str], bool); 18] = [
    (&["--text"], true),
    (&["--binary"], true),
    (&["--extbinary"], true),
    (&["--extbinary", "--use-md5"], true),
    (&["--extbinary", "--compress-all-sections"], true),
    (
        &["--extbinary", "--use-md5", "--compress-all-sections"],
        true,
    ),
    (&["--extbinary", "--gen-partial-profile"], true),
    (&["--extbinary", "--split-layout"], false),
    (&["--text", "--convert-sample-profile-layout=flat"], true),
    (
        &["--extbinary", "--convert-sample-profile-layout=flat"],
        true,
    ),
    (&["--text", "--convert-sample-profile-layout=nest"], true),
    (
        &["--extbinary", "--convert-sample-profile-layout=nest"],
        true,
    ),
    (&["--text", "--sample-trim-cold-context"], true),
    // (llvm-profdata crashes on profiles without contexts here, and we refuse them: both
    // fail, which counts as agreeing.)
    (&["--text", "--sample-merge-cold-context"], true),
    // Trimmed and merged cold contexts in the encodings whose function metadata follows
    // LLVM's profile map.
    (&["--binary", "--sample-trim-cold-context"], true),
    (&["--extbinary", "--sample-trim-cold-context"], true),
    (
        &["--extbinary", "--use-md5", "--sample-merge-cold-context"],
        true,
    ),
    (
        &[
            "--extbinary",
            "--sample-trim-cold-context",
            "--sample-merge-cold-context",
            "--sample-frame-depth-for-cold-context=2",
        ],
        true,
    ),
];

/// `file` converted by `real` to extbinary with MD5 names, into `dir`.
fn md5_copy(real: &Path, file: &Path, dir: &Path, n: usize) -> PathBuf {
    let out = dir.join(format!("md5-{n}.afdo"));
    let o = std::process::Command::new(real)
        .args(["merge", "--sample", "--extbinary", "--use-md5"])
        .arg(file)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", real.display()));
    assert!(
        o.status.success(),
        "{} --use-md5 of {}: {}",
        real.display(),
        file.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn check(version: &str) {
    let test = format!("sample_md5_names_merge_as_llvm_profdata_{version}");
    let Some(real) = tool(&format!("llvm-profdata-{version}"), &test) else {
        return;
    };
    let (_guard, ours) = dropin_named(&format!("llvm-profdata-{version}"));
    let dir = tempdir();
    let sub = |name: &str| {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let s = |n: &str| sample_dir().join(n);
    // (names, the profile converted to MD5 names, context-sensitive): the same profile, or
    // one that overlaps it.
    let pairs: Vec<(PathBuf, PathBuf, bool)> = vec![
        (s("flat.prof.txt"), s("flat.prof.txt"), false),
        (s("flat.prof.txt"), s("flat-second.prof.txt"), false),
        (s("probe.prof.txt"), s("probe.prof.txt"), false),
        (
            s("real-autofdo.prof.txt"),
            s("real-autofdo.profgen.extbinary.afdo"),
            false,
        ),
        (
            s("real-probe.prof.txt"),
            s("real-probe.profgen.extbinary.afdo"),
            false,
        ),
        (s("preinlined.prof.txt"), s("preinlined.prof.txt"), true),
        (s("cs.prof.txt"), s("cs.prof.txt"), true),
        (s("cs-probe.prof.txt"), s("cs-probe.prof.txt"), true),
        (
            generated_probe(&sub("p1"), 150, 21),
            generated_probe(&sub("p1"), 150, 21),
            false,
        ),
        // Two generated context-sensitive profiles: the same names in other contexts, with
        // other checksums (mismatches are reported, and compared, too).
        (
            generated_cs(&sub("c1"), 120, 5),
            generated_cs(&sub("c2"), 120, 6),
            true,
        ),
        (
            generated_cs(&sub("c3"), 120, 5),
            generated_cs(&sub("c3"), 120, 5),
            true,
        ),
    ];
    let (mut compared, mut failures) = (0, Vec::new());
    for (n, (names, other, cs)) in pairs.iter().enumerate() {
        let md5 = md5_copy(&real, other, dir.path(), n);
        let weighted = format!("--weighted-input=2,{}", names.display());
        let orders: [Vec<OsString>; 3] = [
            vec![names.into(), md5.clone().into()],
            vec![md5.clone().into(), names.into()],
            vec![names.into(), md5.clone().into(), weighted.into()],
        ];
        for inputs in &orders {
            for (opts, in_19) in OUTPUTS {
                if (!in_19 && version == "19") || (*cs && opts.contains(&"--split-layout")) {
                    // llvm-profdata-19 has no --split-layout; a context-sensitive split
                    // layout is refused by us (llvm-profdata cannot read it back).
                    continue;
                }
                let mut args = os(&["--sample"]);
                args.extend(os(opts));
                args.extend(inputs.iter().cloned());
                compared += 1;
                if let Some(f) = compare(&real, &ours, &args, dir.path()) {
                    failures.push(f);
                }
            }
        }
    }
    assert_no_differences(
        compared,
        300,
        &failures,
        &format!("llvm-profdata-{version}"),
    );
}

#[test]
fn sample_md5_names_merge_as_llvm_profdata_19() {
    check("19");
}

#[test]
fn sample_md5_names_merge_as_llvm_profdata_22() {
    check("22");
}

#[test]
fn sample_md5_names_merge_as_llvm_profdata_23() {
    check("23");
}

/// The name kept is the first input's: a name when the input with names comes first, the
/// hash when the MD5 input does; either way the two are one profile.
#[test]
fn sample_md5_names_first_spelling_is_kept() {
    let test = "sample_md5_names_first_spelling_is_kept";
    let Some(real) = tool("llvm-profdata-22", test) else {
        return;
    };
    let dir = tempdir();
    let names = sample_dir().join("flat-second.prof.txt");
    let md5 = md5_copy(&real, &names, dir.path(), 0);
    let merged = |inputs: [&Path; 2]| -> String {
        let out = dir.path().join("out.txt");
        let o = crate::common::run_ours(
            [
                "--sample".as_ref(),
                "--target-llvm".as_ref(),
                "22".as_ref(),
                "--text".as_ref(),
                inputs[0].as_os_str(),
                inputs[1].as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
            ]
            .iter(),
        );
        crate::common::assert_ok(&o, "merge");
        std::fs::read_to_string(&out).unwrap()
    };
    let tops = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.split(':').next().unwrap_or_default().to_string())
            .collect()
    };
    let alone = std::fs::read_to_string(&names).unwrap();
    let names_first = merged([&names, &md5]);
    let md5_first = merged([&md5, &names]);
    assert_eq!(
        tops(&names_first).len(),
        tops(&alone).len(),
        "{names_first}"
    );
    assert_eq!(tops(&md5_first).len(), tops(&alone).len(), "{md5_first}");
    let hash_of_hash_step = pgo_merge::ir::name_hash::md5_hash(b"hash_step").to_string();
    assert!(tops(&names_first).contains(&"hash_step".to_string()));
    assert!(tops(&md5_first).contains(&hash_of_hash_step));
}
