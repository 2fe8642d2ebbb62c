//! Command-line behaviour: input forms, output formats and versions, exit codes.

use crate::common::*;

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn directories_list_files_and_weighted_inputs_are_equivalent() {
    let dir = tempdir();
    let d = dir.path();
    let a = raw("clang22/ir-basic-run1.profraw");
    let b = raw("clang22/ir-basic-run2.profraw");
    // Reference: explicit files and a weight.
    let r = d.join("ref.profdata");
    let w = format!("--weighted-input=3,{}", b.display());
    assert_ok(
        &run_ours([a.as_os_str(), w.as_ref(), "-o".as_ref(), r.as_os_str()]),
        "reference",
    );
    // A list file with a comment, a blank line and a weight.
    let list = d.join("inputs.txt");
    std::fs::write(
        &list,
        format!("# the inputs\n{}\n\n3,{}\n", a.display(), b.display()),
    )
    .unwrap();
    let l = d.join("list.profdata");
    assert_ok(
        &run_ours([
            "-f".as_ref(),
            list.as_os_str(),
            "-o".as_ref(),
            l.as_os_str(),
        ]),
        "list file",
    );
    assert_eq!(std::fs::read(&r).unwrap(), std::fs::read(&l).unwrap());
    // `pgo-merge merge ...` is the same command.
    let m = d.join("merge.profdata");
    assert_ok(
        &run_ours([
            "merge".as_ref(),
            a.as_os_str(),
            w.as_ref(),
            "-o".as_ref(),
            m.as_os_str(),
        ]),
        "merge alias",
    );
    assert_eq!(std::fs::read(&r).unwrap(), std::fs::read(&m).unwrap());
    // A directory is walked for .profraw files (sorted), skipping other files.
    let sub = d.join("profiles/nested");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(&a, d.join("profiles/a.profraw")).unwrap();
    std::fs::copy(&b, sub.join("b.profraw")).unwrap();
    std::fs::write(d.join("profiles/notes.txt"), "not a profile").unwrap();
    let o1 = d.join("dir.profdata");
    let out = run_ours([
        d.join("profiles").as_os_str(),
        "-o".as_ref(),
        o1.as_os_str(),
    ]);
    assert_ok(&out, "directory input");
    let o2 = d.join("files.profdata");
    assert_ok(
        &run_ours([a.as_os_str(), b.as_os_str(), "-o".as_ref(), o2.as_os_str()]),
        "files",
    );
    assert_eq!(std::fs::read(&o1).unwrap(), std::fs::read(&o2).unwrap());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wrote") && stderr.contains("2 of 2 inputs"),
        "{stderr}"
    );
}

#[test]
fn output_format_and_version_options() {
    let dir = tempdir();
    let d = dir.path();
    let a = raw("clang19/ir-basic-run1.profraw");
    let version_of = |p: &std::path::Path| {
        let b = std::fs::read(p).unwrap();
        u64::from_le_bytes(b[8..16].try_into().unwrap()) & 0xffff_ffff
    };
    for (args, v) in [
        (vec![], 13),
        (vec!["--format-version", "7"], 7),
        (vec!["--format-version", "10"], 10),
        (vec!["--target-llvm", "14"], 7),
        (vec!["--target-llvm", "15"], 8),
        (vec!["--target-llvm", "16"], 9),
        (vec!["--target-llvm", "17"], 10),
        (vec!["--target-llvm", "18"], 11),
        (vec!["--target-llvm", "19"], 12),
        (vec!["--target-llvm", "21"], 12),
        (vec!["--target-llvm", "22"], 13),
        (vec!["--target-llvm", "23"], 14),
        (vec!["--format-version", "14"], 14),
    ] {
        let o = d.join("o.profdata");
        let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|s| s.as_ref()).collect();
        all.extend([a.as_os_str(), "-o".as_ref(), o.as_os_str()]);
        assert_ok(&run_ours(&all), &format!("{args:?}"));
        assert_eq!(version_of(&o), v, "{args:?}");
    }
    // The extension picks the text format; --text forces it.
    let t = d.join("o.proftext");
    assert_ok(
        &run_ours([a.as_os_str(), "-o".as_ref(), t.as_os_str()]),
        "text by extension",
    );
    assert!(
        std::fs::read_to_string(&t)
            .unwrap()
            .starts_with("# IR level Instrumentation Flag\n:ir\n")
    );
    let t2 = d.join("o2.data");
    assert_ok(
        &run_ours([
            "--text".as_ref(),
            a.as_os_str(),
            "-o".as_ref(),
            t2.as_os_str(),
        ]),
        "--text",
    );
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&t2).unwrap());
}

#[test]
fn usage_errors_exit_with_2_and_explain() {
    let dir = tempdir();
    let o = dir.path().join("o.profdata");
    let a = raw("clang19/ir-basic-run1.profraw");
    let cases: Vec<(Vec<&std::ffi::OsStr>, &str)> = vec![
        (vec![a.as_os_str()], "--output"),
        (vec!["-o".as_ref(), o.as_os_str()], "no input files"),
        (
            vec![
                "--format-version".as_ref(),
                "6".as_ref(),
                a.as_os_str(),
                "-o".as_ref(),
                o.as_os_str(),
            ],
            "index versions 7 to 14",
        ),
        (
            vec![
                "--target-llvm".as_ref(),
                "11".as_ref(),
                a.as_os_str(),
                "-o".as_ref(),
                o.as_os_str(),
            ],
            "LLVM 12 or later",
        ),
        (
            vec![
                "--weighted-input=0,x".as_ref(),
                "-o".as_ref(),
                o.as_os_str(),
            ],
            "invalid weight",
        ),
        (
            vec![
                "--weighted-input=abc".as_ref(),
                "-o".as_ref(),
                o.as_os_str(),
            ],
            "W,FILE",
        ),
        (
            vec!["--no-such-option".as_ref(), "-o".as_ref(), o.as_os_str()],
            "--no-such-option",
        ),
    ];
    for (args, msg) in cases {
        let out = run_ours(&args);
        assert_eq!(
            code(&out),
            2,
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(msg),
            "{args:?}: expected {msg:?} in: {stderr}"
        );
        assert!(!o.exists());
    }
    // A missing input is a bad input (1), not a usage error.
    let out = run_ours([
        "/no/such/file.profraw".as_ref(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_eq!(code(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/file.profraw"));
    // --help documents the exit codes.
    let out = run_ours(["--help"]);
    assert_eq!(code(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Exit codes"));
}

#[test]
fn mixing_ir_and_front_end_profiles_is_refused() {
    let dir = tempdir();
    let o = dir.path().join("o.profdata");
    let ir = raw("clang22/ir-basic-run1.profraw");
    let fe = raw("clang22/fe-basic.profraw");
    let out = run_ours([ir.as_os_str(), fe.as_os_str(), "-o".as_ref(), o.as_os_str()]);
    assert_eq!(code(&out), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&fe.display().to_string()) && stderr.contains("front-end"),
        "{stderr}"
    );
    assert!(!o.exists());
    // With --failure-mode=all the conflicting input is skipped with a warning.
    let out = run_ours([
        "--failure-mode=all".as_ref(),
        ir.as_os_str(),
        fe.as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_ok(&out, "failure-mode all");
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped"));
}

#[test]
fn counter_count_conflict_names_both_files() {
    let dir = tempdir();
    let d = dir.path();
    let a = raw("clang22/ir-basic-run1.profraw");
    let mut bytes = std::fs::read(&a).unwrap();
    // Record 0 of a v10 64-bit file starts after the 128-byte header and the binary IDs.
    let ids = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    let num_data = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    // Lower NumCounters of the first record that has more than one counter: the file stays
    // valid (its counters still fit) but the record no longer matches run1's.
    let rec = (0..num_data)
        .map(|i| 128 + ids + 64 * i)
        .find(|&r| u32::from_le_bytes(bytes[r + 48..r + 52].try_into().unwrap()) > 1)
        .expect("a record with several counters");
    let nc = u32::from_le_bytes(bytes[rec + 48..rec + 52].try_into().unwrap());
    bytes[rec + 48..rec + 52].copy_from_slice(&(nc - 1).to_le_bytes());
    let b = d.join("patched.profraw");
    std::fs::write(&b, &bytes).unwrap();
    let o = d.join("o.profdata");
    let out = run_ours([a.as_os_str(), b.as_os_str(), "-o".as_ref(), o.as_os_str()]);
    assert_eq!(code(&out), 1, "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&a.display().to_string())
            && stderr.contains(&b.display().to_string())
            && stderr.contains("number of counters"),
        "{stderr}"
    );
    assert!(!o.exists());
    let out = run_ours([
        "--failure-mode=warn".as_ref(),
        a.as_os_str(),
        b.as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_ok(&out, "failure-mode warn");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not merged"));
}

/// Outputs are written to a temporary file and renamed; they must still get the permissions
/// of an ordinary new file (0666 less the umask), not the temporary file's private 0600.
#[cfg(unix)]
#[test]
fn outputs_get_the_permissions_of_a_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let d = dir.path();
    // What this process's umask gives a new file.
    let probe = d.join("probe");
    std::fs::File::create(&probe).unwrap();
    let expected = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
    // Our own small iprof file (the output's mode does not depend on the input).
    let iprof = crate::iprof::iprof_data("small-v1.1.0.iprof");
    let cases: [(&str, Vec<std::path::PathBuf>); 3] = [
        ("out.profdata", vec![raw("clang22/ir-basic-run1.profraw")]),
        ("out.proftext", vec![raw("clang22/ir-basic-run1.profraw")]),
        ("out.iprof", vec![iprof]),
    ];
    for (name, inputs) in cases {
        let out = d.join(name);
        let mut args: Vec<&std::ffi::OsStr> = inputs.iter().map(|p| p.as_os_str()).collect();
        args.extend(["-o".as_ref(), out.as_os_str()]);
        assert_ok(&run_ours(args), name);
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode, expected,
            "{name}: mode {mode:o}, a new file gets {expected:o}"
        );
    }
}

/// The commands `pgo-merge --help` must list (clap's `help` included).
const COMMANDS: [&str; 7] = [
    "merge",
    "show",
    "overlap",
    "symbolize",
    "completions",
    "man",
    "help",
];

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `--help` and `-h` list every command, describe the tool in the same words, and document
/// the exit codes; `help` is `--help`, and `help COMMAND` is `COMMAND --help`.
#[test]
fn help_lists_every_command_and_describes_the_tool_once() {
    let long = run_ours(["--help"]);
    let short = run_ours(["-h"]);
    assert_eq!((code(&long), code(&short)), (0, 0));
    let (long, short) = (stdout(&long), stdout(&short));
    for text in [&long, &short] {
        let commands = text
            .split("Commands:")
            .nth(1)
            .and_then(|t| t.split("\n\n").next())
            .unwrap_or_else(|| panic!("no Commands section:\n{text}"));
        for c in COMMANDS {
            assert!(
                commands.lines().any(|l| l.trim_start().starts_with(c)),
                "{c} is not listed:\n{commands}"
            );
        }
        assert!(text.contains("Exit codes: 0 success; 1 "), "{text}");
        assert!(
            text.contains("llvm-profdata-N"),
            "the drop-in setup: {text}"
        );
    }
    let about = |t: &str| t.split("\n\n").next().unwrap_or_default().to_string();
    assert_eq!(about(&long), about(&short));
    assert!(about(&long).contains(".iprof"), "{long}");
    // `--help` after other arguments describes the whole tool too (merge is the default).
    assert_eq!(stdout(&run_ours(["x.profraw", "--help"])), long);
    assert_eq!(stdout(&run_ours(["help"])), long);
    for c in COMMANDS.iter().filter(|c| **c != "help") {
        let a = run_ours(["help", c]);
        let b = run_ours([c, "--help"]);
        assert_eq!((code(&a), code(&b)), (0, 0), "{c}");
        assert_eq!(stdout(&a), stdout(&b), "help {c}");
        assert!(
            stdout(&a).contains(&format!("Usage: pgo-merge {c}")),
            "{}",
            stdout(&a)
        );
    }
    // No arguments: what the tool is and its commands, on stderr, as a usage error.
    let none = pgo_merge().output().unwrap();
    assert_eq!(code(&none), 2);
    assert!(stderr(&none).contains("Commands:") && stderr(&none).contains("symbolize"));
}

/// `show --help` names every format show reads; the inputs' help names `.iprof` in
/// directories, and a directory of `.iprof` files is indeed merged.
#[test]
fn help_names_every_format() {
    let show = stdout(&run_ours(["show", "--help"]));
    for f in [
        ".profraw",
        ".profdata",
        ".proftext",
        ".iprof",
        ".iprof.gz",
        "jitdump",
        "perf map",
        "r2rmap",
    ] {
        assert!(show.contains(f), "show --help omits {f}:\n{show}");
    }
    let merge = stdout(&run_ours(["merge", "--help"]));
    let inputs = merge
        .split("Arguments:")
        .nth(1)
        .and_then(|t| t.split("Options:").next())
        .unwrap_or_default();
    assert!(
        inputs.contains(".iprof") && inputs.contains(".iprof.gz"),
        "{inputs}"
    );
    // What the help says: a directory's .iprof files are found.
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("profiles")).unwrap();
    let src = crate::iprof::iprof_data("small-v1.1.0.iprof");
    std::fs::copy(&src, d.join("profiles/a.iprof")).unwrap();
    let (x, y) = (d.join("dir.iprof"), d.join("file.iprof"));
    assert_ok(
        &run_ours([d.join("profiles").as_os_str(), "-o".as_ref(), x.as_os_str()]),
        "directory of .iprof",
    );
    assert_ok(
        &run_ours([src.as_os_str(), "-o".as_ref(), y.as_os_str()]),
        "the .iprof file",
    );
    assert_eq!(std::fs::read(&x).unwrap(), std::fs::read(&y).unwrap());
}

/// A misspelt command is recognised as one, unless a file of that name exists.
#[test]
fn misspelt_commands_are_recognised() {
    for (typo, meant) in [
        ("shwo", "show"),
        ("mrege", "merge"),
        ("ovelrap", "overlap"),
        ("symbolise", "symbolize"),
        ("completion", "completions"),
        ("Show", "show"),
    ] {
        let out = run_ours([typo, "x.profraw", "-o", "x.profdata"]);
        assert_eq!(code(&out), 2, "{typo}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!("did you mean '{meant}'")) && err.contains(typo),
            "{typo}: {err}"
        );
        let out = run_ours(["help", typo]);
        assert_eq!(code(&out), 2);
        assert!(stderr(&out).contains(&format!("did you mean '{meant}'")));
    }
    // Not close to any command: an input file that does not exist (exit 1).
    let out = run_ours(["frobnicate", "-o", "x.profdata"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("frobnicate: No such file"),
        "{}",
        stderr(&out)
    );
    // A file named like a typo is an input.
    let dir = tempdir();
    std::fs::copy(
        raw("clang22/ir-basic-run1.profraw"),
        dir.path().join("shwo"),
    )
    .unwrap();
    let out = pgo_merge()
        .current_dir(dir.path())
        .args(["shwo", "-o", "out.profdata"])
        .output()
        .unwrap();
    assert_ok(&out, "an input named shwo");
    assert!(dir.path().join("out.profdata").is_file());
}

/// `completions SHELL` and `man` print what clap_complete and clap_mangen generate from the
/// argument definitions: non-empty, naming every command.
#[test]
fn completions_and_man_page_name_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run_ours(["completions", shell]);
        assert_ok(&out, shell);
        let script = stdout(&out);
        assert!(script.len() > 1000, "{shell}: {script}");
        for c in COMMANDS {
            assert!(script.contains(c), "{shell} completions omit {c}");
        }
        // Options of the commands are completed too.
        assert!(script.contains("target-llvm") && script.contains("perf-script"));
    }
    let out = run_ours(["completions", "tcsh"]);
    assert_eq!(code(&out), 2);
    let out = run_ours(["man"]);
    assert_ok(&out, "man");
    let page = stdout(&out);
    assert!(
        page.starts_with(".ie") && page.contains(".TH PGO-MERGE 1"),
        "{page}"
    );
    for c in COMMANDS {
        assert!(
            page.contains(&format!("pgo\\-merge {c}")),
            "man page omits {c}"
        );
    }
    // Rendered by man itself: the sections a reader expects.
    let Some(text) = man_rendered(page.as_bytes(), "man page rendering") else {
        return;
    };
    for s in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "COMMANDS",
        "PGO-MERGE SHOW",
        "EXIT STATUS",
        "PGO_MERGE_TARGET_LLVM",
        "--value-cutoff",
        "--perf-script",
    ] {
        assert!(text.contains(s), "rendered man page lacks {s}:\n{text}");
    }
    for c in COMMANDS {
        assert!(text.contains(&format!("pgo-merge {c}")), "{c}");
    }
}

/// The exit-code rule: 0 success; 1 the work failed (a missing or unreadable input or input
/// list, a corrupt input, an I/O error); 2 a usage error (a bad option or combination, no
/// inputs). Run as llvm-profdata, every failure exits with 1.
#[test]
fn exit_codes_follow_one_rule() {
    let dir = tempdir();
    let d = dir.path();
    let a = raw("clang22/ir-basic-run1.profraw");
    let o = d.join("o.profdata");
    let corrupt = d.join("corrupt.profraw");
    let bytes = std::fs::read(&a).unwrap();
    std::fs::write(&corrupt, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::create_dir(d.join("empty-dir")).unwrap();
    let iprof = crate::iprof::iprof_data("small-v1.1.0.iprof");
    let s = |p: &std::path::Path| p.display().to_string();
    let list = d.join("no-such-list.txt");
    let cases: Vec<(Vec<String>, i32, String)> = vec![
        // Success.
        (vec![s(&a), "-o".into(), s(&o)], 0, String::new()),
        // The work failed.
        (
            vec!["/no/such/input.profraw".into(), "-o".into(), s(&o)],
            1,
            "/no/such/input.profraw: No such file".into(),
        ),
        (
            vec!["-f".into(), s(&list), "-o".into(), s(&o)],
            1,
            format!("{}: cannot read the input list", s(&list)),
        ),
        (
            vec!["-f".into(), s(d), "-o".into(), s(&o)],
            1,
            format!("{}: cannot read the input list", s(d)),
        ),
        (vec![s(&corrupt), "-o".into(), s(&o)], 1, s(&corrupt)),
        (
            vec![s(&d.join("empty-dir")), "-o".into(), s(&o)],
            1,
            s(&d.join("empty-dir")),
        ),
        (
            vec![s(&a), "-o".into(), s(&d.join("no/such/dir/o.profdata"))],
            1,
            "error".into(),
        ),
        (
            vec![
                s(&iprof),
                "/no/such/b.iprof".into(),
                "-o".into(),
                s(&d.join("o.iprof")),
            ],
            1,
            "/no/such/b.iprof".into(),
        ),
        (
            vec!["show".into(), "/no/such/input.profraw".into()],
            1,
            "/no/such/input.profraw".into(),
        ),
        (
            vec!["overlap".into(), s(&a), "/no/such/input.profraw".into()],
            1,
            "/no/such/input.profraw".into(),
        ),
        (
            vec![
                "symbolize".into(),
                "--perf-map".into(),
                "/no/such/perf-1.map".into(),
                "--perf-script".into(),
                "/no/such/script.txt".into(),
                "-o".into(),
                s(&d.join("o.folded")),
            ],
            1,
            "/no/such/".into(),
        ),
        // Usage errors.
        (vec!["--sparse=maybe".into(), s(&a)], 2, "maybe".into()),
        (
            vec!["--bogus".into(), s(&a), "-o".into(), s(&o)],
            2,
            "--bogus".into(),
        ),
        (
            vec![
                "--text".into(),
                "--output-format=profdata".into(),
                s(&a),
                "-o".into(),
                s(&o),
            ],
            2,
            "cannot be used with".into(),
        ),
        (vec!["-o".into(), s(&o)], 2, "no input files".into()),
        (vec!["show".into()], 2, "FILES".into()),
        (
            vec!["show".into(), "--bogus".into(), s(&a)],
            2,
            "--bogus".into(),
        ),
        (
            vec![
                "symbolize".into(),
                "--perf-script".into(),
                s(&a),
                "-o".into(),
                s(&d.join("o.folded")),
            ],
            2,
            "--jitdump".into(),
        ),
        (vec!["completions".into()], 2, "SHELL".into()),
    ];
    for (args, expected, needle) in &cases {
        let _ = std::fs::remove_file(&o);
        let out = run_ours(args);
        assert_eq!(code(&out), *expected, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(needle.as_str()),
            "{args:?}: {needle:?} not in {}",
            stderr(&out)
        );
    }
    // The drop-in: every failure exits with 1.
    let (_g, link) = dropin();
    let dropin_cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["merge".into(), "-f".into(), s(&list), "-o".into(), s(&o)],
            "input list",
        ),
        (
            vec![
                "merge".into(),
                "/no/such/input.profraw".into(),
                "-o".into(),
                s(&o),
            ],
            "/no/such",
        ),
        (
            vec!["merge".into(), s(&corrupt), "-o".into(), s(&o)],
            "corrupt",
        ),
        (vec!["merge".into(), "--bogus".into(), s(&a)], "--bogus"),
        (vec!["merge".into(), "-o".into(), s(&o)], "no input files"),
        (
            vec!["merge".into(), "--sparse=maybe".into(), s(&a)],
            "maybe",
        ),
        (vec!["show".into()], "FILES"),
        (vec![], "No subcommand"),
    ];
    for (args, needle) in dropin_cases {
        let out = std::process::Command::new(&link)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(code(&out), 1, "drop-in {args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(needle),
            "drop-in {args:?}: {}",
            stderr(&out)
        );
    }
}

/// A reader that closes the pipe early (`| head`) ends the program as it ends `cat`: by
/// SIGPIPE, with nothing on stderr; before, `--dump-input-file-list` panicked (exit 101) and
/// `show --json` printed "Broken pipe" and exited 1.
#[test]
fn a_closed_stdout_ends_the_program_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let profdata = root().join("testdata/profdata/clang19-ir-llvm19.profdata");
    let raws = raws_of("clang19");
    let mut dump: Vec<std::ffi::OsString> = vec!["--dump-input-file-list".into()];
    dump.extend(raws.iter().map(|p| p.clone().into_os_string()));
    let cases: [(&str, Vec<std::ffi::OsString>); 3] = [
        ("--dump-input-file-list", dump),
        (
            "show --json",
            vec!["show".into(), "--json".into(), profdata.clone().into()],
        ),
        (
            "show --all-functions",
            vec!["show".into(), "--all-functions".into(), profdata.into()],
        ),
    ];
    for (what, args) in cases {
        // The read end is closed before the program starts, so its first write meets EPIPE.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = pgo_merge()
            .args(&args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("run pgo-merge");
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGPIPE),
            "{what}: {:?}, stderr: {}",
            out.status,
            stderr(&out)
        );
        assert!(out.stderr.is_empty(), "{what}: {}", stderr(&out));
    }
}

/// An .iprof given to a step that reads LLVM profiles only is told how to convert it, not
/// that conversion is missing (the same binary converts).
#[test]
fn an_iprof_in_an_llvm_only_step_names_the_conversion() {
    let iprof = root().join("testdata/iprof/small-v1.1.0.iprof");
    let profdata = root().join("testdata/profdata/clang19-ir-llvm19.profdata");
    let out = run_ours(["overlap".as_ref(), profdata.as_os_str(), iprof.as_os_str()]);
    let err = stderr(&out);
    assert_ne!(code(&out), 0, "{err}");
    assert!(!err.contains("not implemented"), "{err}");
    assert!(err.contains("convert it first"), "{err}");
}
