//! Drop-in mode: our binary run as `llvm-profdata` accepts its spellings and prints what it
//! prints; `cargo pgo`-style builds work through it.

use std::process::Command;

use crate::common::*;

/// Merges with the real llvm-profdata-22 and with the drop-in, same arguments; asserts equal
/// output files and exit codes.
fn same_merge(args: &[&str], files: &[std::path::PathBuf], tag: &str) {
    let Some(p22) = tool("llvm-profdata-22", "drop-in merge") else {
        return;
    };
    let (_g, ours) = dropin();
    let dir = tempdir();
    let a = dir.path().join("llvm.out");
    let b = dir.path().join("ours.out");
    let run = |bin: &std::path::Path, out: &std::path::Path| {
        run_full(
            Command::new(bin)
                .arg("merge")
                .args(args)
                .arg(format!("-o={}", out.display()))
                .args(files),
        )
    };
    let x = run(&p22, &a);
    let y = run(&ours, &b);
    assert_eq!(
        x.0, y.0,
        "{tag}: exit codes differ\nllvm: {}\nours: {}",
        x.2, y.2
    );
    if x.0 == 0 {
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{tag}: outputs differ"
        );
    }
}

#[test]
fn merge_spellings_match_llvm_profdata() {
    let p = |n: &str| raw(&format!("clang22/{n}.profraw"));
    let two = [p("ir-basic-run1"), p("ir-basic-run2")];
    same_merge(&["-sparse", "-instr", "-binary"], &two, "single-dash flags");
    same_merge(&["--sparse=true", "--num-threads=1"], &two, "explicit bool");
    same_merge(&["-failure-mode=all", "-j", "1"], &two, "failure mode");
    same_merge(&["--text"], &two, "text output");
    same_merge(&["-text", "--sparse"], &two, "sparse text");
    same_merge(&["--write-prev-version"], &two, "previous version");
    same_merge(
        &["-function=op_", "-no-function=xor"],
        &two,
        "function filters",
    );
    same_merge(
        &[
            "--temporal-profile-trace-reservoir-size=1",
            "-temporal-profile-max-trace-length=3",
        ],
        &[p("temporal-run1"), p("temporal-run2")],
        "temporal options",
    );
    let w = format!("-weighted-input=3,{}", p("ir-basic-run2").display());
    same_merge(
        &[w.as_str(), "-num-threads=1"],
        &[p("ir-basic-run1")],
        "weighted input",
    );
    let dir = tempdir();
    let list = dir.path().join("list.txt");
    std::fs::write(
        &list,
        format!(
            "# inputs\n{}\n2,{}\n",
            p("ir-basic-run1").display(),
            p("vtable-run1").display()
        ),
    )
    .unwrap();
    let f = format!("-input-files={}", list.display());
    same_merge(&[f.as_str(), "-j=1"], &[], "input file list");
    let remap = dir.path().join("remap.txt");
    std::fs::write(
        &remap,
        "# rename\nmain renamed_main\nbasic.c;op_add op_add_renamed\n",
    )
    .unwrap();
    let r = format!("-remapping-file={}", remap.display());
    same_merge(&[r.as_str(), "-j", "1"], &two, "remapping file");
    // A bad input: both fail with exit code 1 under the default failure mode.
    same_merge(
        &[],
        &[p("ir-basic-run1"), root().join("README.md")],
        "bad input",
    );
}

#[test]
fn unsupported_options_and_subcommands_fail_clearly() {
    let (_g, ours) = dropin();
    let f = raw("clang22/ir-basic-run1.profraw");
    for (args, needle) in [
        (vec!["merge", "-debug-info=a.out"], "debug-info"),
        (vec!["merge", "--sample"], "sample"),
        (vec!["merge", "-gen-partial-profile"], "gen-partial-profile"),
        (vec!["merge", "-no-such-thing"], "unknown option"),
        (vec!["show", "--show-prof-sym-list"], "show-prof-sym-list"),
        (vec!["order"], "order"),
    ] {
        let (code, _, err) = run_full(Command::new(&ours).args(&args).arg(&f));
        assert_eq!(code, 1, "{args:?} should fail with 1: {err}");
        assert!(
            err.contains(needle),
            "{args:?}: message should name {needle:?}: {err}"
        );
    }
}

#[test]
fn show_and_overlap_match_llvm_profdata_on_raw_files() {
    let Some(p22) = tool("llvm-profdata-22", "drop-in show/overlap") else {
        return;
    };
    let (_g, ours) = dropin();
    let views: &[&[&str]] = &[
        &[
            "--all-functions",
            "--counts",
            "--ic-targets",
            "--memop-sizes",
            "--show-vtables",
            "--detailed-summary",
        ],
        &["--all-functions", "--counts", "--showcs"],
        &["--text", "--all-functions"],
        &[
            "--binary-ids",
            "--temporal-profile-traces",
            "--profile-version",
        ],
        &["--topn=3", "--value-cutoff=5"],
        &["--covered"],
        &["--function=main", "--counts"],
        &[
            "--hot-func-list",
            "--list-below-cutoff",
            "--value-cutoff=20",
        ],
        &["-all-functions", "-detailed-summary-cutoffs=500000,990000"],
    ];
    let mut n = 0;
    for producer in ["clang22", "clang19", "rustc"] {
        for f in raws_of(producer) {
            for v in views {
                let a = run_full(Command::new(&p22).arg("show").args(*v).arg(&f));
                let b = run_full(Command::new(&ours).arg("show").args(*v).arg(&f));
                assert_eq!(a, b, "show {v:?} {}", f.display());
                n += 1;
            }
        }
    }
    let p = |n: &str| raw(&format!("clang22/{n}.profraw"));
    for (base, test) in [
        ("ir-basic-run1", "ir-basic-run2"),
        ("vtable-run1", "vtable-run2"),
        ("ir-basic-run1", "two-tu"),
        ("ir-basic-run1", "merge-pool"),
    ] {
        for opts in [&[][..], &["--value-cutoff=1"][..], &["-function=main"][..]] {
            let a = run_full(
                Command::new(&p22)
                    .arg("overlap")
                    .args(opts)
                    .arg(p(base))
                    .arg(p(test)),
            );
            let b = run_full(
                Command::new(&ours)
                    .arg("overlap")
                    .args(opts)
                    .arg(p(base))
                    .arg(p(test)),
            );
            assert_eq!(a, b, "overlap {opts:?} {base} {test}");
            n += 1;
        }
    }
    eprintln!("{n} show/overlap outputs identical to llvm-profdata-22");
}

/// `cargo pgo` runs `llvm-profdata merge -o merged.profdata DIR` between an instrumented and an
/// optimised rustc build; with our binary first on PATH the build gets no warnings.
#[test]
fn cargo_pgo_style_build_through_the_drop_in() {
    let Some(rustc) = tool("rustc", "cargo pgo style") else {
        return;
    };
    let (g, _ours) = dropin();
    let dir = tempdir();
    let d = dir.path();
    let src = root().join("testdata/src/rust/pgo.rs");
    let data = d.join("pgo-profiles");
    assert_ok(
        &Command::new(&rustc)
            .args(["-O", "--edition=2021", "-Ccodegen-units=1"])
            .arg(format!("-Cprofile-generate={}", data.display()))
            .arg(&src)
            .arg("-o")
            .arg(d.join("instrumented"))
            .output()
            .unwrap(),
        "instrumented build",
    );
    for args in [&["4"][..], &["7", "rect", "dot", "circle"][..]] {
        assert_ok(
            &Command::new(d.join("instrumented"))
                .args(args)
                .output()
                .unwrap(),
            "run",
        );
    }
    let path = format!(
        "{}:{}",
        g.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let merged = d.join("merged.profdata");
    let out = Command::new("llvm-profdata")
        .env("PATH", &path)
        .args(["merge", "-o"])
        .arg(&merged)
        .arg(&data)
        .output()
        .unwrap();
    assert_ok(&out, "llvm-profdata merge through PATH");
    let out = Command::new(&rustc)
        .args(["-O", "--edition=2021", "-Ccodegen-units=1"])
        .arg(format!("-Cprofile-use={}", merged.display()))
        .arg("-Cllvm-args=-pgo-warn-missing-function")
        .arg(&src)
        .arg("-o")
        .arg(d.join("optimised"))
        .output()
        .unwrap();
    assert_ok(&out, "optimised build");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.trim().is_empty(), "rustc warned:\n{err}");
}
