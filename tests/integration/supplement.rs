//! `merge --supplement-instr-with-sample`: an instrumentation profile adjusted with a sample
//! profile. Inputs in `testdata/supplement/` (hand-written text profiles covering every
//! branch: hot and warm functions scaled, pseudo hot/warm counts, `file;name` and `.__uniq.`
//! names, inlined instances, shared static names, size and zero-ratio limits, value sites),
//! the real indexed profile `testdata/profdata/clang19-ir-llvm19.profdata` and the real
//! sample profiles of `testdata/sample/`. For each llvm-profdata-N present our drop-in of that
//! name writes the same bytes, indexed and `--text`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::common::{root, run, run_ours, tempdir, tool};

fn data(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// (instrumentation profile, sample profile) pairs under test.
fn cases() -> Vec<(PathBuf, PathBuf)> {
    let s = |r: &str| data(&format!("supplement/{r}"));
    vec![
        (s("instr.proftext"), s("sample.prof.txt")),
        (s("instr-uniq.proftext"), s("sample-uniq.prof.txt")),
        (
            data("profdata/clang19-ir-llvm19.profdata"),
            s("basic.prof.txt"),
        ),
        (s("work.proftext"), data("sample/real-autofdo.prof.txt")),
        (
            s("work.proftext"),
            data("sample/real-autofdo.profgen.extbinary.afdo"),
        ),
        (s("work.proftext"), data("sample/real-probe.prof.txt")),
        // No non-zero counts on one side or the other: every threshold is 0.
        (s("zero.proftext"), s("basic.prof.txt")),
        (s("zero.proftext"), s("sample-zero.prof.txt")),
        (s("instr.proftext"), s("sample-empty.prof.txt")),
    ]
}

/// Option sets: the defaults, then each threshold moved both ways.
const OPTIONS: &[&[&str]] = &[
    &[],
    &["--suppl-min-size-threshold=1"],
    &["--suppl-min-size-threshold=30"],
    &[
        "--zero-counter-threshold=0.2",
        "--suppl-min-size-threshold=1",
    ],
    &["--zero-counter-threshold=0.95"],
    &[
        "--instr-prof-cold-threshold=5000",
        "--suppl-min-size-threshold=1",
    ],
    &["--instr-prof-cold-threshold=60", "--text"],
    &["--sparse"],
];

fn merge(
    exe: &Path,
    instr: &Path,
    sample: &Path,
    opts: &[&str],
    out: &Path,
) -> std::process::Output {
    let flag = format!("--supplement-instr-with-sample={}", sample.display());
    let mut args: Vec<&OsStr> = vec!["merge".as_ref(), flag.as_ref()];
    args.extend(opts.iter().map(OsStr::new));
    args.extend([instr.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    run(exe, &args)
}

/// Our drop-in called llvm-profdata-N writes what llvm-profdata-N writes, for every case and
/// option set, and warns about the same shared static names.
#[test]
fn supplementing_equals_llvm_profdata() {
    let test = "supplementing_equals_llvm_profdata";
    let d = tempdir();
    for v in [19, 22, 23] {
        let name = format!("llvm-profdata-{v}");
        let Some(llvm) = tool(&name, test) else {
            continue;
        };
        let link = d.path().join(&name);
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
        for (instr, sample) in cases() {
            for opts in OPTIONS {
                let theirs = d.path().join("theirs");
                let ours = d.path().join("ours");
                let what = format!(
                    "{name} {} with {} {opts:?}",
                    instr.display(),
                    sample.display()
                );
                let t = merge(&llvm, &instr, &sample, opts, &theirs);
                assert!(t.status.success(), "{what}: llvm-profdata failed");
                let o = merge(&link, &instr, &sample, opts, &ours);
                assert_same_output(&o, &ours, &theirs, &what);
                let dup = "Static function dup has multiple promoted names";
                assert_eq!(
                    String::from_utf8_lossy(&o.stderr).contains(dup),
                    String::from_utf8_lossy(&t.stderr).contains(dup),
                    "{what}: warnings differ"
                );
            }
        }
    }
}

/// Without any LLVM tool: the native merge adjusts what llvm-profdata adjusts (values
/// checked against llvm-profdata-19 once): pseudo hot and warm counts, counts scaled ×30 (hot)
/// and ×3 (warm, value sites too), static and `.__uniq.` names matched, small, shared and
/// doubly recorded functions left alone.
#[test]
fn native_supplement_adjusts_cold_functions() {
    let d = tempdir();
    let out = d.path().join("out.proftext");
    let o = run_ours([
        OsStr::new("merge"),
        data("supplement/instr.proftext").as_os_str(),
        OsStr::new("--supplement-instr-with-sample"),
        data("supplement/sample.prof.txt").as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("Static function dup has multiple promoted names, cannot adjust profile."),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let counts = |name: &str| -> Vec<String> {
        let start = text
            .find(&format!("\n{name}\n"))
            .unwrap_or_else(|| panic!("{name} missing:\n{text}"));
        let rec = &text[start + 1..];
        let rec = &rec[..rec.find("\n\n").unwrap_or(rec.len())];
        let values = rec.split("# Counter Values:\n").nth(1).unwrap();
        values
            .lines()
            .take_while(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    const HOT: &str = "18446744073709551615";
    const WARM: &str = "18446744073709551614";
    assert_eq!(counts("zero_fn")[0], HOT);
    assert_eq!(counts("zero_warm")[0], WARM);
    assert_eq!(counts("mostly_zero")[..2], [HOT, "0"]);
    assert_eq!(counts("a.c;static_fn")[0], HOT);
    assert_eq!(counts("x.cc;ccfn")[0], HOT);
    assert_eq!(counts("u.c;ufn.__uniq.12345")[0], HOT);
    assert_eq!(counts("hot_cold")[..3], ["30", "0", "30"]);
    assert_eq!(counts("inl_fn")[..2], ["0", "30"]);
    assert_eq!(counts("warm_fn")[..4], ["3", "3", "3", "0"]);
    assert_eq!(counts("Dir/H.H;header_fn")[0], "3");
    assert_eq!(counts("b.c;dup")[0], "0");
    assert_eq!(counts("small"), ["0", "0", "0"]);
    assert_eq!(counts("twice")[0], "0");
    assert_eq!(counts("not_in_samples")[0], "0");
    assert_eq!(counts("main")[0], "1000");
    assert!(text.contains("main:3\nhot_cold:3\n"), "{text}");
}

/// Natively several inputs are merged first and the merge supplemented: the same bytes as
/// llvm-profdata merging them and supplementing the result in a second run.
#[test]
fn native_supplement_of_several_inputs() {
    let test = "native_supplement_of_several_inputs";
    let Some(llvm) = tool("llvm-profdata-22", test) else {
        return;
    };
    let d = tempdir();
    let instr = data("supplement/instr.proftext");
    let sample = data("supplement/sample.prof.txt");
    let merged = d.path().join("merged.profdata");
    let two = [instr.as_os_str(), instr.as_os_str()];
    let mut args: Vec<&OsStr> = vec!["merge".as_ref()];
    args.extend(two);
    args.extend(["-o".as_ref(), merged.as_os_str()]);
    assert!(run(&llvm, &args).status.success());
    let theirs = d.path().join("theirs.profdata");
    assert!(
        merge(&llvm, &merged, &sample, &[], &theirs)
            .status
            .success()
    );
    let ours = d.path().join("ours.profdata");
    let flag = format!("--supplement-instr-with-sample={}", sample.display());
    let mut args: Vec<&OsStr> = vec!["merge".as_ref(), "--target-llvm=22".as_ref(), flag.as_ref()];
    args.extend(two);
    args.extend(["-o".as_ref(), ours.as_os_str()]);
    let o = run_ours(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::read(&ours).unwrap() == std::fs::read(&theirs).unwrap());
}

/// The drop-in keeps llvm-profdata's conditions (one input of weight 1, an output file)
/// with its messages; a bad sample profile is an error naming it, natively and in the
/// drop-in, and nothing is written.
#[test]
fn supplement_errors() {
    let d = tempdir();
    let link = d.path().join("llvm-profdata-22");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
    let instr = data("supplement/instr.proftext");
    let sample = data("supplement/sample.prof.txt");
    let out = d.path().join("out.profdata");
    let flag = format!("--supplement-instr-with-sample={}", sample.display());
    let i = instr.to_str().unwrap();
    let weighted = format!("--weighted-input=2,{i}");
    let o = out.to_str().unwrap();
    for (args, want) in [
        (
            vec!["merge", &flag, i, i, "-o", o],
            "expect one input to be an instr profile",
        ),
        (
            vec!["merge", &flag, &weighted, "-o", o],
            "expect instr profile doesn't have weight",
        ),
        (
            vec!["merge", &flag, i],
            "cannot write indexed profdata format to stdout",
        ),
        (
            vec!["merge", "--zero-counter-threshold=abc", &flag, i, "-o", o],
            "--zero-counter-threshold option: 'abc' value invalid for floating point argument!",
        ),
        (
            vec!["merge", "--sample", &flag, i, "-o", o],
            "--supplement-instr-with-sample",
        ),
    ] {
        let r = run(&link, &args.iter().map(OsStr::new).collect::<Vec<_>>());
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success() && err.contains(want), "{args:?}: {err}");
        assert!(!out.exists());
    }
    // The thresholds alone: ignored by the drop-in (as llvm-profdata does), refused natively.
    let zct = "--zero-counter-threshold=0.3";
    let r = run(
        &link,
        &[
            "merge".as_ref(),
            OsStr::new(zct),
            instr.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ],
    );
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    std::fs::remove_file(&out).unwrap();
    let r = run_ours([
        "merge".as_ref(),
        OsStr::new(zct),
        instr.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && err.contains("applies with --supplement-instr-with-sample only"),
        "{err}"
    );
    assert!(!out.exists());
    // A bad sample profile: named in the error, natively and in the drop-in.
    let bad = d.path().join("bad.prof");
    std::fs::write(&bad, b"\x00\x01garbage that is no sample profile\n").unwrap();
    let flag = format!("--supplement-instr-with-sample={}", bad.display());
    for exe in [link.clone(), PathBuf::from(env!("CARGO_BIN_EXE_pgo-merge"))] {
        let r = run(
            &exe,
            &[
                "merge".as_ref(),
                OsStr::new(&flag),
                instr.as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
            ],
        );
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(
            !r.status.success() && err.contains("bad.prof"),
            "{}: {err}",
            exe.display()
        );
        assert!(!out.exists());
    }
}

/// The sample profile in every encoding llvm-profdata-N writes (binary, extbinary, extbinary
/// with MD5 names: names then match nothing, as in llvm-profdata) and raw instrumentation
/// inputs (clang-19's, for 19 and 22: llvm-profdata-23 reads only raw version 11): the same
/// bytes as llvm-profdata-N.
#[test]
fn supplementing_from_other_encodings_equals_llvm_profdata() {
    let test = "supplementing_from_other_encodings_equals_llvm_profdata";
    let d = tempdir();
    let sample = data("supplement/sample.prof.txt");
    let basic = data("supplement/basic.prof.txt");
    for v in [19, 22, 23] {
        let name = format!("llvm-profdata-{v}");
        let Some(llvm) = tool(&name, test) else {
            continue;
        };
        let link = d.path().join(&name);
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
        let mut pairs = Vec::new();
        for (enc, flags) in [
            ("binary", &["--binary"][..]),
            ("extbinary", &["--extbinary"][..]),
            ("md5", &["--extbinary", "--use-md5"][..]),
        ] {
            let out = d.path().join(format!("{enc}-{v}.afdo"));
            let mut args: Vec<&OsStr> = vec!["merge".as_ref(), "--sample".as_ref()];
            args.extend(flags.iter().map(OsStr::new));
            args.extend([sample.as_os_str(), "-o".as_ref(), out.as_os_str()]);
            assert!(run(&llvm, &args).status.success(), "{name} {enc}");
            pairs.push((data("supplement/instr.proftext"), out));
        }
        // An empty input: llvm-profdata counts it as the one input and writes an empty profile.
        let empty = d.path().join("empty.profraw");
        std::fs::write(&empty, b"").unwrap();
        pairs.push((empty, basic.clone()));
        if v != 23 {
            for raw in [
                "fe-basic.profraw",
                "cs-basic.profraw",
                "ir-basic-m32-run1.profraw",
            ] {
                pairs.push((data(&format!("profraw/clang19/{raw}")), basic.clone()));
            }
        }
        for (instr, sample) in pairs {
            let theirs = d.path().join("theirs");
            let ours = d.path().join("ours");
            let opts = ["--suppl-min-size-threshold=1"];
            let what = format!("{name} {} with {}", instr.display(), sample.display());
            assert!(
                merge(&llvm, &instr, &sample, &opts, &theirs)
                    .status
                    .success(),
                "{what}"
            );
            let o = merge(&link, &instr, &sample, &opts, &ours);
            assert_same_output(&o, &ours, &theirs, &what);
        }
    }
}

/// Our run `o` succeeded and wrote to `ours` the bytes llvm-profdata wrote to `theirs`.
fn assert_same_output(o: &std::process::Output, ours: &Path, theirs: &Path, what: &str) {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        std::fs::read(ours).unwrap() == std::fs::read(theirs).unwrap(),
        "{what}: our drop-in writes other bytes"
    );
}
