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
        (vec!["merge", "--debuginfod"], "debuginfod"),
        (vec!["merge", "--sample", "-gcc"], "gcc"),
        (
            vec!["merge", "-no-such-thing"],
            "Unknown command line argument",
        ),
        (vec!["show", "--memory"], "memory"),
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

/// A directory holding a link `name` (e.g. `llvm-profdata-19`) to our binary, kept alive with
/// the returned guard.
fn dropin_named(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempdir();
    let link = dir.path().join(name);
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
    (dir, link)
}

/// stderr with the `Try: '<argv0> --help'` hint's program path left out (the real tool runs
/// from its own directory).
fn without_argv0(stderr: &str) -> String {
    let re = regex::Regex::new(r"Try: '[^']*'").unwrap();
    re.replace_all(stderr, "Try: 'PROGRAM --help'").into_owned()
}

/// The option names (`--sparse`, `-o`) of an llvm-profdata-style help text, leaving out the
/// section of our help that names LLVM's options accepted unlisted.
fn option_names(help: &str) -> std::collections::BTreeSet<String> {
    let re = regex::Regex::new(r"^\s+(--?[A-Za-z0-9][A-Za-z0-9-]*)").unwrap();
    let mut unlisted = false;
    help.lines()
        .filter(|l| {
            if !l.starts_with(' ') && l.ends_with(':') {
                unlisted = l.starts_with("LLVM's options that llvm-profdata accepts");
            }
            !unlisted
        })
        .filter_map(|l| re.captures(l).map(|c| c[1].to_string()))
        .collect()
}

/// `merge -help` (one dash), `--help`, `-h` and `--help-hidden` print llvm-profdata-style help
/// (as llvm-profdata does), naming exactly llvm-profdata 22's options: each either
/// implemented or listed as not implemented.
#[test]
fn help_is_llvm_profdata_style_and_names_exactly_its_options() {
    let Some(p22) = tool("llvm-profdata-22", "drop-in help") else {
        return;
    };
    let (_g, ours) = dropin();
    // LLVM's global options that the subcommands accept and our help names: accepted by the
    // real tool, absent from its subcommand help.
    let globals = [
        "--write-prev-version",
        "--correlate",
        "--debug-file-directory",
        "--fs-discriminator-pass",
        "--profile-isfs",
        "--version",
    ];
    for sub in ["merge", "show", "overlap"] {
        let (rc, real, _) = run_full(Command::new(&p22).args([sub, "--help-hidden"]));
        assert_eq!(rc, 0);
        let real_names = option_names(&real);
        assert!(real_names.contains("--help"), "{sub}: {real}");
        for spelling in ["-help", "--help", "-h", "--help-hidden", "-help-list"] {
            let (a_rc, a_out, _) = run_full(Command::new(&p22).args([sub, spelling]));
            let (b_rc, b_out, b_err) = run_full(Command::new(&ours).args([sub, spelling]));
            assert_eq!((a_rc, b_rc), (0, 0), "{sub} {spelling}: {b_err}");
            let head = |s: &str| s.lines().take(5).collect::<Vec<_>>().join("\n");
            assert_eq!(head(&a_out), head(&b_out), "{sub} {spelling}");
            assert!(
                b_out.contains("Not implemented by pgo-merge"),
                "{sub} {spelling}: the help must say what is not implemented:\n{b_out}"
            );
            let ours_names: std::collections::BTreeSet<String> = option_names(&b_out)
                .into_iter()
                .filter(|n| !globals.contains(&n.as_str()))
                .collect();
            assert_eq!(
                ours_names, real_names,
                "{sub} {spelling}: our help must name exactly llvm-profdata's options"
            );
        }
        for g in globals {
            let arg = match g {
                "--correlate" => "--correlate=binary".to_string(),
                "--debug-file-directory" => "--debug-file-directory=/nonexistent".into(),
                "--fs-discriminator-pass" => "--fs-discriminator-pass=Base".into(),
                _ => g.to_string(),
            };
            let (_, _, err) = run_full(Command::new(&p22).args([sub, &arg]));
            assert!(
                !err.contains("Unknown command line argument"),
                "{sub} {arg}: llvm-profdata-22 no longer takes it: {err}"
            );
        }
    }
    // The native help is not what the drop-in prints.
    let (_, out, _) = run_full(Command::new(&ours).args(["merge", "--help"]));
    assert!(!out.contains("--target-llvm") && !out.contains("Usage: pgo-merge"));
}

/// Unknown options are reported as llvm-profdata reports them: same lines, same "Did you mean"
/// (for misspellings whose nearest option is unique), same exit code.
#[test]
fn unknown_options_get_llvm_profdatas_did_you_mean() {
    let Some(p22) = tool("llvm-profdata-22", "drop-in unknown options") else {
        return;
    };
    let (_g, ours) = dropin();
    let f = raw("clang22/ir-basic-run1.profraw");
    let dir = tempdir();
    let o = dir.path().join("o.profdata");
    let cases: &[&[&str]] = &[
        &["merge", "-sprase"],
        &["merge", "--sprase"],
        &["merge", "--spars"],
        &["merge", "-instrr"],
        &["merge", "--tex"],
        &["merge", "-bnary"],
        &["merge", "-num-thread=2"],
        &["merge", "--input-file=x"],
        &["merge", "-j1"],
        &["merge", "--failure-mod=all"],
        &["merge", "--functon=main"],
        &["merge", "-q"],
        &["merge", "-x"],
        &["merge", "--sparse=yes"],
        // llvm-profdata has no -w: `-w W,FILE` is refused as it refuses it.
        &["merge", "-w", "2,x"],
        &["show", "--sparse"],
        &["show", "--show-composite-info-only"],
        &["show", "--onlylistbelow"],
    ];
    for args in cases {
        let run = |bin: &std::path::Path| {
            let (rc, _, err) = run_full(Command::new(bin).args(*args).arg(&f).arg("-o").arg(&o));
            (rc, without_argv0(&err))
        };
        let real = run(&p22);
        let mine = run(&ours);
        assert_eq!(real.0, 1, "{args:?}: {}", real.1);
        assert_eq!(real, mine, "{args:?}");
    }
}

/// Options of pgo-merge that llvm-profdata does not have are refused in drop-in mode, as
/// llvm-profdata refuses them.
#[test]
fn native_only_options_are_refused_as_llvm_profdata_refuses_them() {
    let Some(p22) = tool("llvm-profdata-22", "drop-in native options") else {
        return;
    };
    let (_g, ours) = dropin();
    let f = raw("clang22/ir-basic-run1.profraw");
    let dir = tempdir();
    let o = dir.path().join("o.profdata");
    for args in [
        &["merge", "-w", "2,FILE"][..],
        &["merge", "--target-llvm=19"],
        &["merge", "--format-version=12"],
        &["merge", "--output-format=proftext"],
        &["merge", "--no-progress"],
        &["merge", "--quiet"],
        &["merge", "--lenient"],
        &["merge", "--threads=2"],
        &["overlap", "--top-differences=3"],
    ] {
        let args: Vec<String> = args
            .iter()
            .map(|a| a.replace("FILE", &f.display().to_string()))
            .collect();
        let (a_rc, _, a_err) = run_full(Command::new(&p22).args(&args).arg(&f).arg("-o").arg(&o));
        let (b_rc, _, b_err) = run_full(Command::new(&ours).args(&args).arg(&f).arg("-o").arg(&o));
        let refused = |e: &str| e.contains(&format!("Unknown command line argument '{}'", args[1]));
        if refused(&a_err) {
            assert_eq!((a_rc, b_rc), (1, 1), "{args:?}: {b_err}");
            assert!(refused(&b_err), "{args:?}: {b_err}");
        } else {
            // LLVM's global `--threads` is accepted (and ignored) by llvm-profdata; we refuse
            // it plainly instead of ignoring it.
            assert_eq!(args[1], "--threads=2", "{args:?}: {a_err}");
            assert_eq!(b_rc, 1, "{args:?}: {b_err}");
        }
    }
}

/// Index version of an indexed profile written by `cmd`.
fn written_version(cmd: &mut Command, out: &std::path::Path) -> u32 {
    let _ = std::fs::remove_file(out);
    assert_ok(&cmd.output().unwrap(), &format!("{cmd:?}"));
    index_version(out)
}

/// The version in the drop-in's name picks the LLVM version merge writes for; for a name
/// without one, PGO_MERGE_TARGET_LLVM does; llvm-profdata's `--write-prev-version` wins; and
/// `--version` says which LLVM version it writes for.
#[test]
fn the_name_or_environment_picks_the_llvm_version() {
    let dir = tempdir();
    let out = dir.path().join("o.profdata");
    let f = raw("clang19/ir-basic-run1.profraw");
    let native = |m: &str| {
        written_version(
            pgo_merge()
                .args(["--target-llvm", m])
                .arg(&f)
                .arg("-o")
                .arg(&out),
            &out,
        )
    };
    for m in ["14", "18", "19", "21", "22", "23"] {
        let (_g, link) = dropin_named(&format!("llvm-profdata-{m}"));
        let mut merge = Command::new(&link);
        merge
            .env("PGO_MERGE_TARGET_LLVM", "12")
            .args(["merge", "-o"])
            .arg(&out)
            .arg(&f);
        assert_eq!(written_version(&mut merge, &out), native(m), "{m}");
        let (rc, v, _) = run_full(Command::new(&link).arg("--version"));
        assert_eq!(rc, 0);
        assert!(
            v.contains(&format!("LLVM version {m}")) && v.contains(&format!("llvm-profdata-{m}")),
            "{v}"
        );
        // llvm-profdata's own option wins over the name (LLVM 14 has none: the drop-ins
        // following its options, 14 and 18, refuse it as it does).
        let mut prev = Command::new(&link);
        prev.args(["merge", "--write-prev-version", "-o"])
            .arg(&out)
            .arg(&f);
        if ["14", "18"].contains(&m) {
            let (rc, _, err) = run_full(&mut prev);
            assert_eq!(rc, 1, "{m}: {err}");
            assert!(err.contains("Unknown command line argument '--write-prev-version'"));
        } else {
            assert_eq!(written_version(&mut prev, &out), 11);
        }
    }
    let (_g, link) = dropin();
    for m in ["14", "19"] {
        let mut merge = Command::new(&link);
        merge
            .env("PGO_MERGE_TARGET_LLVM", m)
            .args(["merge", "-o"])
            .arg(&out)
            .arg(&f);
        assert_eq!(written_version(&mut merge, &out), native(m), "env {m}");
        let (_, v, _) = run_full(
            Command::new(&link)
                .env("PGO_MERGE_TARGET_LLVM", m)
                .arg("--version"),
        );
        assert!(
            v.contains(&format!("LLVM version {m}")) && v.contains("PGO_MERGE_TARGET_LLVM"),
            "{v}"
        );
    }
    // Neither: the default, which `--version` names as LLVM 22's.
    let mut merge = Command::new(&link);
    merge
        .env_remove("PGO_MERGE_TARGET_LLVM")
        .args(["merge", "-o"])
        .arg(&out)
        .arg(&f);
    assert_eq!(written_version(&mut merge, &out), native("22"));
    let (_, v, _) = run_full(
        Command::new(&link)
            .env_remove("PGO_MERGE_TARGET_LLVM")
            .arg("--version"),
    );
    assert!(
        v.contains("LLVM version 22") && v.contains("default"),
        "{v}"
    );
    // A bad value is an error that names the variable; a version this build cannot write
    // says where it came from.
    let (rc, _, err) = run_full(
        Command::new(&link)
            .env("PGO_MERGE_TARGET_LLVM", "nineteen")
            .args(["merge", "-o"])
            .arg(&out)
            .arg(&f),
    );
    assert_eq!(rc, 1);
    assert!(err.contains("PGO_MERGE_TARGET_LLVM=\"nineteen\""), "{err}");
    let (_g11, link11) = dropin_named("llvm-profdata-11");
    let (rc, _, err) = run_full(
        Command::new(&link11)
            .args(["merge", "-o"])
            .arg(&out)
            .arg(&f),
    );
    assert_eq!(rc, 1);
    assert!(
        err.contains("LLVM 12 or later") && err.contains("program name llvm-profdata-11"),
        "{err}"
    );
    // show does not care about the target.
    let (rc, _, err) = run_full(Command::new(&link11).arg("show").arg(&f));
    assert_eq!(rc, 0, "{err}");
}

/// Acceptance: with the drop-in named `llvm-profdata-19`, `llvm-profdata-19 merge -o
/// x.profdata DIR` (real clang-19 raw profiles) writes a profile that the real
/// llvm-profdata-19 shows and clang-19 uses without a warning; the unversioned drop-in's
/// profile (LLVM 22's index version) is refused by both, so the name is what makes it work.
#[test]
fn dropin_named_llvm_profdata_19_feeds_clang19() {
    let test = "llvm-profdata-19 drop-in with clang-19";
    let (Some(real19), Some(clang19)) = (tool("llvm-profdata-19", test), tool("clang-19", test))
    else {
        return;
    };
    let (g, _link) = dropin_named("llvm-profdata-19");
    let dir = tempdir();
    let d = dir.path();
    let profiles = d.join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    // The two runs of testdata/src/basic.c built by clang-19 (testdata/regenerate.sh).
    for run in ["ir-basic-run1", "ir-basic-run2"] {
        std::fs::copy(
            raw(&format!("clang19/{run}.profraw")),
            profiles.join(format!("{run}.profraw")),
        )
        .unwrap();
    }
    std::fs::copy(root().join("testdata/src/basic.c"), d.join("basic.c")).unwrap();
    // As a build script runs it: by name, through PATH, our link first.
    let path = format!(
        "{}:{}",
        g.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("llvm-profdata-19")
        .current_dir(d)
        .env("PATH", &path)
        .env_remove("PGO_MERGE_TARGET_LLVM")
        .args(["merge", "-o", "x.profdata", "profiles"])
        .output()
        .unwrap();
    assert_ok(&out, "llvm-profdata-19 (the drop-in) merge");
    let x = d.join("x.profdata");
    assert_eq!(
        index_version(&x),
        12,
        "LLVM 19 reads index versions up to 12"
    );
    let shown = Command::new(&real19).arg("show").arg(&x).output().unwrap();
    assert_ok(&shown, "the real llvm-profdata-19 show");
    assert!(String::from_utf8_lossy(&shown.stdout).contains("Total functions: 9"));
    let build = |profile: &str, exe: &str| {
        Command::new(&clang19)
            .current_dir(d)
            .args(["-O2", &format!("-fprofile-use={profile}")])
            .args([
                "-Werror=profile-instr-out-of-date",
                "-Werror=profile-instr-unprofiled",
                "-Werror=profile-instr-missing",
                "basic.c",
                "-o",
                exe,
            ])
            .output()
            .unwrap()
    };
    let out = build("x.profdata", "basic-opt");
    assert_ok(&out, "clang-19 -fprofile-use with the drop-in's profile");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.trim().is_empty(), "clang-19 warned:\n{err}");
    // The profile is applied: branch weights in the IR.
    let ir = Command::new(&clang19)
        .current_dir(d)
        .args([
            "-O2",
            "-fprofile-use=x.profdata",
            "-S",
            "-emit-llvm",
            "basic.c",
            "-o",
            "-",
        ])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&ir.stdout).contains("branch_weights"));
    // Control: the unversioned drop-in writes LLVM 22's index version, which clang-19 cannot
    // read.
    let (g2, _) = dropin();
    let out = Command::new(g2.path().join("llvm-profdata"))
        .current_dir(d)
        .env_remove("PGO_MERGE_TARGET_LLVM")
        .args(["merge", "-o", "x22.profdata", "profiles"])
        .output()
        .unwrap();
    assert_ok(&out, "unversioned drop-in");
    let out = build("x22.profdata", "basic-22");
    assert!(
        !out.status.success(),
        "clang-19 read index version {}: the control no longer shows anything",
        index_version(&d.join("x22.profdata"))
    );
}

/// llvm-profdata accepts the sample-only options of `merge`, `show` and `overlap` in
/// instrumentation jobs and ignores them; a build step that always passes them must not
/// break on the drop-in. Natively they are an error that says to add `--sample`.
#[test]
fn sample_only_options_are_ignored_in_instrumentation_jobs_as_llvm_profdata_does() {
    let files = [raw("clang22/ir-basic-run1.profraw")];
    assert!(files[0].is_file());
    let sym = tempdir();
    let list = sym.path().join("syms.txt");
    std::fs::write(&list, "main\n").unwrap();
    let list_opt = format!("--prof-sym-list={}", list.display());
    let options: [&str; 13] = [
        "--drop-profile-symbol-list",
        "--use-md5",
        "--compress-all-sections",
        "--gen-partial-profile",
        "--split-layout",
        "--output-size-limit=100",
        "--fs-discriminator-pass=Pass1",
        "--profile-isfs",
        &list_opt,
        "--sample-trim-cold-context",
        "--sample-merge-cold-context",
        "--sample-frame-depth-for-cold-context=2",
        "--convert-sample-profile-layout=flat",
    ];
    for opt in options {
        same_merge(&[opt], &files, opt);
    }
    same_merge(&options, &files, "all at once");
    // Natively: a request error naming the option (--sample-frame-depth-for-cold-context
    // has a default, so it is not refused on its own).
    let out = run_ours(
        ["merge", "--use-md5", "-o", "/dev/null"]
            .map(std::ffi::OsString::from)
            .into_iter()
            .chain([files[0].clone().into_os_string()]),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--use-md5 applies to sample profiles: add --sample"),
        "{err}"
    );
    // show and overlap, through the drop-in: the flow-sensitive options are ignored.
    let Some(p22) = tool("llvm-profdata-22", "drop-in show options") else {
        return;
    };
    let (_g, ours) = dropin();
    let dir = tempdir();
    let indexed = dir.path().join("a.profdata");
    assert_ok(
        &Command::new(&p22)
            .arg("merge")
            .arg(&files[0])
            .arg("-o")
            .arg(&indexed)
            .output()
            .unwrap(),
        "llvm-profdata-22 merge",
    );
    for args in [
        vec!["show", "--fs-discriminator-pass=Pass1", "--profile-isfs"],
        vec!["overlap", "--fs-discriminator-pass=Base", "--profile-isfs"],
    ] {
        let with_files = |bin: &std::path::Path| {
            let mut c = Command::new(bin);
            c.args(&args).arg(&indexed);
            if args[0] == "overlap" {
                c.arg(&indexed);
            }
            run_full(&mut c)
        };
        let (x, y) = (with_files(&p22), with_files(&ours));
        assert_eq!((x.0, &x.1), (y.0, &y.1), "{args:?}: {}\n{}", x.2, y.2);
    }
}
