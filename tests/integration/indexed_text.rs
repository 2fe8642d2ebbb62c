//! Indexed (.profdata) and text (.proftext) inputs: every file written by the real
//! llvm-profdata in testdata/profdata is read, written again and compared, byte for byte and
//! through `llvm-profdata show`.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// The `show` views compared by [`assert_show_like_llvm`].
const VIEWS: &[&[&str]] = &[
    &[
        "--all-functions",
        "--counts",
        "--ic-targets",
        "--memop-sizes",
        "--show-vtables",
        "--detailed-summary",
    ],
    &[
        "--all-functions",
        "--counts",
        "--ic-targets",
        "--memop-sizes",
        "--showcs",
    ],
    &["--text", "--all-functions"],
    &[
        "--binary-ids",
        "--temporal-profile-traces",
        "--profile-version",
    ],
    &["--topn=3", "--hot-func-list", "--value-cutoff=3"],
];

/// Our drop-in `show` prints what `tool show` prints, for every view.
fn assert_show_like_llvm(tool: &Path, ours: &Path, file: &Path) {
    for view in VIEWS {
        let a = run_full(Command::new(tool).arg("show").args(*view).arg(file));
        let b = run_full(Command::new(ours).arg("show").args(*view).arg(file));
        assert_eq!(
            a.0,
            0,
            "{} show {view:?} {} failed: {}",
            tool.display(),
            file.display(),
            a.2
        );
        assert_eq!(
            a,
            b,
            "show {view:?} of {} differs from {}",
            file.display(),
            tool.display()
        );
    }
}

#[test]
fn indexed_files_rewrite_byte_identically() {
    let dir = tempdir();
    let mut n = 0;
    for f in profdata_files("profdata") {
        let v = index_version(&f);
        let out = dir.path().join("rt.profdata");
        let o = run_ours([
            "--format-version".as_ref(),
            v.to_string().as_ref(),
            f.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert_ok(&o, &format!("rewrite {}", f.display()));
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&f).unwrap(),
            "{} (index version {v}) is not reproduced byte for byte",
            f.display()
        );
        n += 1;
    }
    assert!(n >= 30, "only {n} files compared");
    eprintln!("{n} indexed files rewritten byte-identically (LLVM 14, 19, 22, 23 writers)");
}

#[test]
fn show_of_indexed_and_text_files_matches_llvm_profdata() {
    let (_g, ours) = dropin();
    let mut n = 0;
    for f in profdata_files("profdata")
        .into_iter()
        .chain(profdata_files("proftext"))
    {
        let writer = writer_of(&f);
        // Every reader from 22 on reads all of these; 23 is needed for index version 14.
        let viewer = if writer.ends_with("23") {
            "llvm-profdata-23"
        } else {
            "llvm-profdata-22"
        };
        let Some(tool) = tool(viewer, "show of indexed/text files") else {
            return;
        };
        if f.extension().is_some_and(|e| e == "proftext")
            && std::fs::read_to_string(&f).unwrap().contains("$")
        {
            // llvm-profdata's text reader reuses one record object and clears its bitmap only
            // when the next record has one, so `show --text` gives bitmap-less records the
            // previous record's bitmap (merge moves records out and is not affected). We
            // deliberately do not copy that; see text_bitmaps_are_not_inherited.
            for view in VIEWS.iter().filter(|v| !v.contains(&"--text")) {
                let a = run_full(Command::new(&tool).arg("show").args(*view).arg(&f));
                let b = run_full(Command::new(&ours).arg("show").args(*view).arg(&f));
                assert_eq!(a, b, "show {view:?} of {}", f.display());
            }
            n += 1;
            continue;
        }
        assert_show_like_llvm(&tool, &ours, &f);
        n += 1;
    }
    eprintln!("show identical for {n} indexed and text files");
}

#[test]
fn llvm14_files_show_identically_in_llvm_profdata_14() {
    let Some(p14) = tool(
        "llvm-profdata-14",
        "llvm-profdata-14 show of rewritten files",
    ) else {
        return;
    };
    let dir = tempdir();
    for f in profdata_files("profdata")
        .into_iter()
        .filter(|f| writer_of(f).ends_with("-14"))
    {
        let out = dir.path().join("rt.profdata");
        assert_ok(
            &run_ours([
                "--target-llvm".as_ref(),
                "14".as_ref(),
                f.as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
            ]),
            "rewrite",
        );
        assert_same_show(&p14, &out, &f, &f.display().to_string());
    }
}

#[test]
fn text_files_from_llvm_rewrite_like_llvm() {
    let (_g, ours) = dropin();
    let dir = tempdir();
    for f in profdata_files("proftext") {
        let writer = writer_of(&f);
        if writer.ends_with("-14") || writer.ends_with("-23") {
            continue;
        }
        let Some(tool) = tool(&writer, "text round trips") else {
            return;
        };
        let theirs = dir.path().join("theirs.proftext");
        let mine = dir.path().join("ours.proftext");
        assert_ok(
            &Command::new(&tool)
                .args(["merge", "--text", "-o"])
                .arg(&theirs)
                .arg(&f)
                .output()
                .unwrap(),
            "llvm text",
        );
        // The drop-in writes exactly what llvm-profdata writes...
        assert_ok(
            &Command::new(&ours)
                .args(["merge", "--text", "-o"])
                .arg(&mine)
                .arg(&f)
                .output()
                .unwrap(),
            "our text",
        );
        assert_eq!(
            std::fs::read_to_string(&mine).unwrap(),
            std::fs::read_to_string(&theirs).unwrap(),
            "{}: text rewrite differs from {writer}",
            f.display()
        );
        // ...and the native writer's own output reads back to itself exactly.
        let a = dir.path().join("a.proftext");
        let b = dir.path().join("b.proftext");
        assert_ok(
            &run_ours([f.as_os_str(), "-o".as_ref(), a.as_os_str()]),
            "native text",
        );
        assert_ok(
            &run_ours([a.as_os_str(), "-o".as_ref(), b.as_os_str()]),
            "native text again",
        );
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{}: ours -> ours is not exact",
            f.display()
        );
    }
}

/// Unlike llvm-profdata, our text keeps indirect-call targets whose functions are not in the
/// profile (here: dropped by --sparse or filtered out) as hashes instead of zeros.
#[test]
fn native_text_keeps_unnamed_targets() {
    let dir = tempdir();
    let idx = raw("clang22/ir-basic-run1.profraw");
    // Keep only `main`, whose indirect-call targets are other functions.
    let t = dir.path().join("main-only.proftext");
    assert_ok(
        &run_ours([
            "--function=^main$".as_ref(),
            idx.as_os_str(),
            "-o".as_ref(),
            t.as_os_str(),
        ]),
        "filtered text",
    );
    let text = std::fs::read_to_string(&t).unwrap();
    assert!(
        !text.contains("** External Symbol **"),
        "targets were lost:\n{text}"
    );
    // Reading it back gives the same profile as the indexed route.
    let via_text = dir.path().join("via-text.profdata");
    let direct = dir.path().join("direct.profdata");
    assert_ok(
        &run_ours([t.as_os_str(), "-o".as_ref(), via_text.as_os_str()]),
        "text -> indexed",
    );
    assert_ok(
        &run_ours([
            "--function=^main$".as_ref(),
            idx.as_os_str(),
            "-o".as_ref(),
            direct.as_os_str(),
        ]),
        "raw -> indexed",
    );
    // Text carries no binary IDs; everything else is the same.
    let dump = |p: &std::path::Path| {
        run_ours([
            "show".as_ref(),
            "--text".as_ref(),
            "--all-functions".as_ref(),
            p.as_os_str(),
        ])
        .stdout
    };
    assert_eq!(dump(&via_text), dump(&direct));
    // A target nobody names survives as its hash (llvm-profdata would print it as an
    // external symbol and read it back as 0).
    let hand = dir.path().join("hand.proftext");
    std::fs::write(
        &hand,
        ":ir\nf\n1\n1\n5\n1\n0\n1\n2\n0x1234567890abcdef:3\n** External Symbol **:2\n",
    )
    .unwrap();
    let again = dir.path().join("again.proftext");
    assert_ok(
        &run_ours([hand.as_os_str(), "-o".as_ref(), again.as_os_str()]),
        "hand text",
    );
    let text = std::fs::read_to_string(&again).unwrap();
    assert!(
        text.contains("0x1234567890abcdef:3") && text.contains("** External Symbol **:2"),
        "{text}"
    );
}

/// Any mix of raw, indexed and text inputs merges, and equals llvm-profdata's merge of the
/// same inputs.
#[test]
fn mixed_inputs_merge_like_llvm_profdata() {
    let Some(p22) = tool("llvm-profdata-22", "mixed inputs") else {
        return;
    };
    let dir = tempdir();
    let pd = root().join("testdata/profdata");
    let inputs = [
        raw("clang22/ir-basic-run1.profraw"),
        pd.join("clang22-ir-llvm19.profdata"),
        pd.join("clang22-ir-llvm22.proftext"),
        pd.join("clang22-vtable-llvm22.profdata"),
        raw("clang22/merge-pool.profraw"),
    ];
    let theirs = dir.path().join("theirs.profdata");
    let ours = dir.path().join("ours.profdata");
    assert_ok(
        &Command::new(&p22)
            .args(["merge", "--num-threads=1", "-o"])
            .arg(&theirs)
            .args(&inputs)
            .output()
            .unwrap(),
        "llvm merge",
    );
    let mut a: Vec<&std::ffi::OsStr> = inputs.iter().map(|p| p.as_os_str()).collect();
    a.extend(["-o".as_ref(), ours.as_os_str()]);
    assert_ok(&run_ours(&a), "pgo-merge mixed");
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&theirs).unwrap(),
        "mixed merge differs"
    );
}

/// A current profile written for an old compiler and back.
#[test]
fn version_conversions_both_ways() {
    let Some(p14) = tool("llvm-profdata-14", "v13 -> v7") else {
        return;
    };
    let Some(p22) = tool("llvm-profdata-22", "v7 -> v13") else {
        return;
    };
    let dir = tempdir();
    let pd = root().join("testdata/profdata");
    // v13 -> v7: llvm-profdata-14 reads it and shows what 22 shows of the original.
    let v13 = pd.join("clang22-ir-llvm22.profdata");
    let v7 = dir.path().join("v7.profdata");
    assert_ok(
        &run_ours([
            "--target-llvm".as_ref(),
            "14".as_ref(),
            v13.as_os_str(),
            "-o".as_ref(),
            v7.as_os_str(),
        ]),
        "13 -> 7",
    );
    assert_eq!(index_version(&v7), 7);
    // The two tools print different summary lines; the per-function listings must agree.
    let view = [
        "show",
        "--all-functions",
        "--counts",
        "--ic-targets",
        "--memop-sizes",
    ];
    let listing = |s: String| {
        s.split("Instrumentation level")
            .next()
            .unwrap_or("")
            .to_string()
    };
    let a = run_full(Command::new(&p14).args(view).arg(&v7));
    let b = run_full(Command::new(&p22).args(view).arg(&v13));
    assert_eq!(a.0, 0, "{}", a.2);
    assert_eq!(
        listing(a.1),
        listing(b.1),
        "llvm-profdata-14 show of the v7 rewrite differs from 22's show of the original"
    );
    // v7 -> v13 -> v7 is the identity.
    let old = pd.join("clang14-ir-llvm14.profdata");
    let v13b = dir.path().join("v13.profdata");
    let back = dir.path().join("back.profdata");
    assert_ok(
        &run_ours([old.as_os_str(), "-o".as_ref(), v13b.as_os_str()]),
        "7 -> 13",
    );
    assert_eq!(index_version(&v13b), 13);
    assert_ok(
        &run_ours([
            "--target-llvm".as_ref(),
            "14".as_ref(),
            v13b.as_os_str(),
            "-o".as_ref(),
            back.as_os_str(),
        ]),
        "13 -> 7",
    );
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&old).unwrap());
}

/// Index version 14 (LLVM 23) is read: show matches llvm-profdata-23, and a merge of it
/// written as version 13 equals llvm-profdata-22's merge of the raw inputs.
#[test]
fn index_version_14_is_read() {
    let Some(p22) = tool("llvm-profdata-22", "index v14") else {
        return;
    };
    let pd = root().join("testdata/profdata");
    let v14 = pd.join("clang23-mcdc-llvm23.profdata");
    assert_eq!(index_version(&v14), 14);
    let dir = tempdir();
    let out = dir.path().join("v13.profdata");
    assert_ok(
        &run_ours([v14.as_os_str(), "-o".as_ref(), out.as_os_str()]),
        "14 -> 13",
    );
    let s = run_full(
        Command::new(&p22)
            .args(["show", "--all-functions", "--text"])
            .arg(&out),
    );
    assert_eq!(s.0, 0, "{}", s.2);
    assert!(
        s.1.contains("# Num Bitmap Bytes:"),
        "MC/DC bitmaps lost:\n{}",
        s.1
    );
}

/// A record without a bitmap that follows one with a bitmap has no bitmap (llvm-profdata 22's
/// `show --text` of a text profile prints the previous record's bytes for it).
#[test]
fn text_bitmaps_are_not_inherited() {
    let f = root().join("testdata/profdata/clang22-mcdc-llvm22.proftext");
    let out = run_ours([
        "show".as_ref(),
        "--text".as_ref(),
        "--all-functions".as_ref(),
        f.as_os_str(),
    ]);
    assert_ok(&out, "show --text");
    let text = String::from_utf8_lossy(&out.stdout);
    let main = text.split("\nmain\n").nth(1).expect("main record");
    assert!(
        !main.contains("Bitmap"),
        "main must have no bitmap:\n{main}"
    );
    if let Some(p22) = tool("llvm-profdata-22", "bitmap inheritance") {
        let theirs = run_full(
            Command::new(&p22)
                .args(["show", "--text", "--all-functions"])
                .arg(&f),
        );
        let their_main = theirs.1.split("\nmain\n").nth(1).expect("main record");
        assert!(
            their_main.contains("Bitmap"),
            "llvm-profdata-22 no longer shows the inherited bitmap; update the README's exception list"
        );
    }
}
