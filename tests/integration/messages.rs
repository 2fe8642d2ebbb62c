//! What a user reads when something is not as expected: output paths that cannot be written,
//! text files that are not profiles, mixed GraalVM and LLVM inputs, binary IDs, function
//! hashes, empty raw profiles. Each case asserts the message and the exit code (1 for a
//! problem with an input or output, 2 for a usage error), and, where llvm-profdata has an
//! answer, that the drop-in gives the same one.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use crate::common::*;

fn code(out: &std::process::Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Our binary with `args` (as strings or paths).
fn ours(args: &[&OsStr]) -> std::process::Output {
    run_ours(args)
}

// ---- outputs -----------------------------------------------------------------------------

/// An output whose directory is missing, whose "directory" is a file, which is itself a
/// directory, or whose directory is not writable is reported by the output's name and the
/// reason, never by the name of the temporary file the output is first written to; the exit
/// code is 1 (as llvm-profdata's) and nothing is written.
#[test]
fn output_paths_that_cannot_be_written() {
    let dir = tempdir();
    let d = dir.path();
    let input = raw("clang22/ir-basic-run1.profraw");
    let iprof = root().join("testdata/iprof/small-v1.1.0.iprof");
    std::fs::write(d.join("afile"), "x").unwrap();
    std::fs::create_dir(d.join("adir")).unwrap();
    let missing = d.join("missing");
    let cases: Vec<(Vec<&OsStr>, std::path::PathBuf, String)> = vec![
        (
            vec!["merge".as_ref(), input.as_os_str(), "-o".as_ref()],
            missing.join("out.profdata"),
            format!(
                "cannot write the output: the directory {} does not exist",
                missing.display()
            ),
        ),
        (
            vec![
                "merge".as_ref(),
                "--text".as_ref(),
                input.as_os_str(),
                "-o".as_ref(),
            ],
            missing.join("out.proftext"),
            "does not exist".into(),
        ),
        (
            vec!["merge".as_ref(), iprof.as_os_str(), "-o".as_ref()],
            missing.join("out.iprof"),
            "does not exist".into(),
        ),
        (
            vec!["show".as_ref(), input.as_os_str(), "-o".as_ref()],
            missing.join("report.txt"),
            "does not exist".into(),
        ),
        (
            vec!["merge".as_ref(), input.as_os_str(), "-o".as_ref()],
            d.join("afile/out.profdata"),
            format!(
                "cannot write the output: {} is not a directory",
                d.join("afile").display()
            ),
        ),
        (
            vec!["merge".as_ref(), input.as_os_str(), "-o".as_ref()],
            d.join("adir"),
            "the output is a directory".into(),
        ),
    ];
    for (args, output, expected) in &cases {
        let mut a = args.clone();
        a.push(output.as_os_str());
        let out = ours(&a);
        let err = stderr(&out);
        assert_eq!(code(&out), 1, "{a:?}: {err}");
        assert!(
            err.starts_with(&format!("pgo-merge: error: {}: ", output.display()))
                && err.contains(expected.as_str()),
            "{a:?}: expected the output's name and {expected:?}:\n{err}"
        );
        assert!(!err.contains(".pgo-merge-"), "{a:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{a:?}: one line expected:\n{err}");
    }
    assert!(!missing.exists());
    assert_eq!(std::fs::read_dir(d.join("adir")).unwrap().count(), 0);

    // The drop-in says the same, with llvm-profdata's exit code.
    let (_g, dropin) = dropin();
    let out = Command::new(&dropin)
        .args(["merge", "-o"])
        .arg(missing.join("x.profdata"))
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
    if let Some(p22) = tool("llvm-profdata-22", "output_paths_that_cannot_be_written") {
        let out = Command::new(p22)
            .args(["merge", "-o"])
            .arg(missing.join("x.profdata"))
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(code(&out), 1, "llvm-profdata-22: {}", stderr(&out));
    }

    // A directory without write permission. Root may write anyway: then the binary runs as
    // the unprivileged user 65534 through `setpriv`, if there is one.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ro = d.join("read-only");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        let root_user = std::fs::write(ro.join("probe"), "").is_ok();
        let setpriv = std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("setpriv"))
                .find(|p| p.is_file())
        });
        let bin = env!("CARGO_BIN_EXE_pgo-merge");
        let cmd = match (root_user, setpriv) {
            (false, _) => Some(Command::new(bin)),
            (true, Some(sp)) => {
                let mut c = Command::new(sp);
                c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
                Some(c)
            }
            (true, None) => None,
        };
        match cmd {
            None => eprintln!(
                "output_paths_that_cannot_be_written: running as root without setpriv; the \
                 read-only directory case is not tested"
            ),
            Some(mut cmd) => {
                let o = ro.join("out.profdata");
                let out = cmd
                    .args([
                        "merge".as_ref(),
                        input.as_os_str(),
                        "-o".as_ref(),
                        o.as_os_str(),
                    ])
                    .output()
                    .unwrap();
                let err = stderr(&out);
                assert_eq!(code(&out), 1, "{err}");
                assert!(
                    err.contains(&format!(
                        "{}: cannot write the output: no permission to create files in the \
                         directory {}",
                        o.display(),
                        ro.display()
                    )),
                    "{err}"
                );
            }
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// An existing output that is not a regular file (a FIFO here; `/dev/null` alike) is written
/// in place, as llvm-profdata writes it, and stays what it was: the atomic write's rename would
/// replace it (for `/dev/null`, run as root, the device itself).
#[cfg(unix)]
#[test]
fn an_output_that_is_a_pipe_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempdir();
    let fifo = dir.path().join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED an_output_that_is_a_pipe_is_written_in_place: mkfifo failed");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let input = root().join("testdata/profdata/clang22-ir-llvm22.profdata");
    let out = ours(&[
        "merge".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        fifo.as_os_str(),
    ]);
    assert_ok(&out, "merge into a FIFO");
    let got = reader.join().unwrap();
    let file = dir.path().join("out.profdata");
    assert_ok(
        &ours(&[
            "merge".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            file.as_os_str(),
        ]),
        "merge into a file",
    );
    assert_eq!(got, std::fs::read(&file).unwrap());
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "the FIFO was replaced"
    );
}

// ---- text files that are not profiles ----------------------------------------------------

/// A text file that does not start like a text profile (no `:` header, no name line followed
/// by a hash line) is an unrecognised format, exactly as a binary non-profile is; only real
/// text profiles get errors naming a line. llvm-profdata refuses these files too (with
/// "malformed ... function hash", or "truncated").
#[test]
fn text_files_that_are_not_profiles_are_unrecognised() {
    let dir = tempdir();
    let d = dir.path();
    let files = [
        ("notes.txt", b"hello world\nthis is notes\n".to_vec()),
        ("seven-bytes", b"line 2\n".to_vec()),
        (
            "Cargo.toml",
            std::fs::read(root().join("Cargo.toml")).unwrap(),
        ),
        ("negative.proftext", b"main\n-1\n1\n5\n".to_vec()),
    ];
    let p22 = tool(
        "llvm-profdata-22",
        "text_files_that_are_not_profiles_are_unrecognised",
    );
    for (name, bytes) in &files {
        let f = d.join(name);
        std::fs::write(&f, bytes).unwrap();
        let o = d.join("out.profdata");
        for args in [
            vec![
                "merge".as_ref(),
                f.as_os_str(),
                "-o".as_ref(),
                o.as_os_str(),
            ],
            vec!["show".as_ref(), f.as_os_str()],
        ] {
            let out = ours(&args);
            let err = stderr(&out);
            assert_eq!(code(&out), 1, "{name}: {err}");
            assert!(
                err.contains(&format!(
                    "{}: at offset 0x0: unrecognised file format (first bytes ",
                    f.display()
                )),
                "{name}: {err}"
            );
            assert!(!err.contains(": line "), "{name}: {err}");
        }
        assert!(!o.exists());
        if let Some(p22) = &p22 {
            let out = run(
                p22,
                &[
                    "merge".as_ref(),
                    f.as_os_str(),
                    "-o".as_ref(),
                    o.as_os_str(),
                ],
            );
            assert_eq!(
                code(&out),
                1,
                "llvm-profdata-22 took {name}: {}",
                stderr(&out)
            );
        }
    }
    // A text file shows how it starts.
    let out = ours(&["show".as_ref(), d.join("Cargo.toml").as_os_str()]);
    assert!(stderr(&out).contains("(\"[package\")"), "{}", stderr(&out));

    // Real text profiles with errors still name the line.
    for (text, line) in [
        (&b":ir\nmain\n12\nx\n"[..], "line 4: number of counters"),
        (b"main\n12\n2\n5\nsix\n", "line 5: counter"),
        (b":bogus\n", "line 1: header line"),
    ] {
        let f = d.join("bad.proftext");
        std::fs::write(&f, text).unwrap();
        let out = ours(&["show".as_ref(), f.as_os_str()]);
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains(line), "{line}: {}", stderr(&out));
    }
}

/// Every text profile of the test data, and the smallest ones LLVM accepts (comments only, a
/// header only), are still read as text profiles; the empty ones give what llvm-profdata-22
/// gives, byte for byte.
#[test]
fn text_profiles_are_still_recognised() {
    let dir = tempdir();
    let d = dir.path();
    let texts = profdata_files("proftext");
    assert!(texts.len() > 20, "{texts:?}");
    for f in &texts {
        let out = ours(&["show".as_ref(), f.as_os_str()]);
        assert_ok(&out, &f.display().to_string());
    }
    let p22 = tool("llvm-profdata-22", "text_profiles_are_still_recognised");
    for (name, text) in [
        ("comments.proftext", &b"# nothing measured yet\n\n"[..]),
        ("header.proftext", b"# IR level Instrumentation Flag\n:ir\n"),
        ("crlf.proftext", b"main\r\n0x10\r\n1\r\n7\r\n"),
    ] {
        let f = d.join(name);
        std::fs::write(&f, text).unwrap();
        let o = d.join(format!("{name}.ours"));
        assert_ok(
            &ours(&[
                "merge".as_ref(),
                f.as_os_str(),
                "-o".as_ref(),
                o.as_os_str(),
            ]),
            name,
        );
        if let Some(p22) = &p22 {
            let l = d.join(format!("{name}.llvm"));
            assert_ok(
                &run(
                    p22,
                    &[
                        "merge".as_ref(),
                        f.as_os_str(),
                        "-o".as_ref(),
                        l.as_os_str(),
                    ],
                ),
                name,
            );
            assert_eq!(
                std::fs::read(&o).unwrap(),
                std::fs::read(&l).unwrap(),
                "{name}"
            );
        }
    }
}

// ---- GraalVM and LLVM inputs together ----------------------------------------------------

/// A merge of GraalVM and LLVM profiles says in one line what it mixed, whichever way the
/// conversion goes; a merge of one kind says nothing of the sort.
#[test]
fn mixing_iprof_and_llvm_profiles_says_so() {
    let dir = tempdir();
    let d = dir.path();
    let iprof = root().join("testdata/iprof/small-v1.1.0.iprof");
    let a = raw("clang22/ir-basic-run1.profraw");
    let b = raw("clang22/ir-basic-run2.profraw");
    let o = d.join("out.profdata");
    let out = ours(&[
        "merge".as_ref(),
        iprof.as_os_str(),
        a.as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(
        err.lines().next(),
        Some(
            "pgo-merge: note: mixing 1 GraalVM .iprof profile (Java methods, converted) with 1 \
             LLVM profile into one LLVM profile"
        ),
        "{err}"
    );
    let o = d.join("out.iprof");
    let out = ours(&[
        "merge".as_ref(),
        iprof.as_os_str(),
        a.as_os_str(),
        b.as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "note: mixing 2 LLVM profiles (native functions, converted) with 1 GraalVM .iprof \
             profile into one GraalVM .iprof profile"
        ),
        "{}",
        stderr(&out)
    );
    let (x, y) = (d.join("x.profdata"), d.join("y.profdata"));
    for args in [
        vec![a.as_os_str(), b.as_os_str(), "-o".as_ref(), x.as_os_str()],
        vec![iprof.as_os_str(), "-o".as_ref(), y.as_os_str()],
    ] {
        let mut full = vec![OsStr::new("merge")];
        full.extend(args);
        let out = ours(&full);
        assert_ok(&out, "one kind");
        assert!(!stderr(&out).contains("mixing"), "{}", stderr(&out));
    }

    // The library reports it as a message of the outcome.
    use pgo_merge::pipeline::{self, MergeRequest, Message};
    let outcome = pipeline::merge(
        &{
            let mut new_merge_request = MergeRequest::default();
            new_merge_request.inputs = vec![iprof.clone(), a.clone()];
            new_merge_request.output = Some(d.join("lib.profdata"));
            new_merge_request
        },
        &pipeline::NoProgress,
    )
    .unwrap();
    assert!(
        matches!(
            outcome.messages.first(),
            Some(Message::Mixed {
                iprof: 1,
                llvm: 1,
                into_llvm: true
            })
        ),
        "{:?}",
        outcome.messages
    );
}

// ---- show --binary-ids -------------------------------------------------------------------

/// The `--binary-ids` lines of `show`, from the line `Binary IDs:` on (empty if none).
fn binary_id_lines(out: &std::process::Output) -> String {
    let s = String::from_utf8_lossy(&out.stdout);
    match s.find("Binary IDs:") {
        Some(i) => s[i..].to_string(),
        None => String::new(),
    }
}

/// `show --binary-ids` prints nothing for a raw profile without binary IDs, as llvm-profdata
/// does; an indexed profile always gets the `Binary IDs:` header. Compared with the
/// llvm-profdata that reads each file (13 for the clang 13 files, ten of which have no binary
/// IDs; 22 for a clang 22 file with its binary IDs removed and for indexed profiles).
#[test]
fn show_binary_ids_only_when_there_are_some() {
    let dir = tempdir();
    let d = dir.path();
    // A clang 22 raw file (version 10, header 16 words) without its binary IDs.
    let mut b = std::fs::read(raw("clang22/ir-basic-run1.profraw")).unwrap();
    let ids = u64::from_le_bytes(b[16..24].try_into().unwrap()) as usize;
    assert!(ids > 0);
    b.drain(128..128 + ids);
    b[16..24].copy_from_slice(&0u64.to_le_bytes());
    let no_ids = d.join("no-ids.profraw");
    std::fs::write(&no_ids, &b).unwrap();
    let (_g, dropin) = dropin();
    let show = |bin: &Path, f: &Path| {
        Command::new(bin)
            .args(["show", "--binary-ids"])
            .arg(f)
            .output()
            .unwrap()
    };
    // Ours, natively and as the drop-in, without the real tools.
    for bin in [Path::new(env!("CARGO_BIN_EXE_pgo-merge")), &dropin] {
        let out = show(bin, &no_ids);
        assert_ok(&out, "show --binary-ids");
        assert_eq!(
            binary_id_lines(&out),
            "",
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let out = show(bin, &raw("clang22/ir-basic-run1.profraw"));
        assert!(binary_id_lines(&out).starts_with("Binary IDs: \n"));
    }
    let mut files: Vec<(std::path::PathBuf, &str)> = vec![(no_ids.clone(), "llvm-profdata-22")];
    for f in raws_of("clang13") {
        files.push((f, "llvm-profdata-13"));
    }
    files.push((
        root().join("testdata/profdata/clang14-ir-llvm14.profdata"),
        "llvm-profdata-22",
    ));
    files.push((
        root().join("testdata/profdata/clang22-ir-llvm22.profdata"),
        "llvm-profdata-22",
    ));
    let mut without = 0;
    for (f, reader) in &files {
        let Some(real) = tool(reader, "show_binary_ids_only_when_there_are_some") else {
            continue;
        };
        let theirs = show(&real, f);
        assert_ok(
            &theirs,
            &format!("{reader} show --binary-ids {}", f.display()),
        );
        let mine = show(&dropin, f);
        assert_ok(&mine, &format!("show --binary-ids {}", f.display()));
        assert_eq!(
            binary_id_lines(&mine),
            binary_id_lines(&theirs),
            "{}",
            f.display()
        );
        if binary_id_lines(&theirs).is_empty() {
            without += 1;
        }
    }
    if tool(
        "llvm-profdata-13",
        "show_binary_ids_only_when_there_are_some",
    )
    .is_some()
    {
        // The eight clang 13 files built without a build ID, and the crafted one.
        assert!(without >= 9, "{without} files without binary IDs");
    }
}

// ---- the top 4 bits of function hashes ---------------------------------------------------

/// rustc's coverage profiles (front-end records with rustc's own 64-bit hashes, read only by
/// llvm-cov) get no warning about the top 4 bits of their hashes, as llvm-profdata gives none,
/// and are written as llvm-profdata-22 writes them. A clang 21-or-earlier front-end profile,
/// whose MD5-based hashes clang 22 will not match in an index version 13 profile, still gets
/// the warning.
#[test]
fn function_hash_warnings_only_where_clang_would_miss_functions() {
    let dir = tempdir();
    let d = dir.path();
    let p22 = tool(
        "llvm-profdata-22",
        "function_hash_warnings_only_where_clang_would_miss_functions",
    );
    for f in [
        raw("rustc/coverage.profraw"),
        raw("rustc-nightly/coverage.profraw"),
    ] {
        for target in ["22", "19"] {
            let o = d.join(format!("rust-{target}.profdata"));
            let out = ours(&[
                "merge".as_ref(),
                "--target-llvm".as_ref(),
                target.as_ref(),
                f.as_os_str(),
                "-o".as_ref(),
                o.as_os_str(),
            ]);
            assert_ok(&out, "rustc coverage");
            assert!(
                !stderr(&out).contains("warning"),
                "{}: {}",
                f.display(),
                stderr(&out)
            );
        }
        if let Some(p22) = &p22 {
            let l = d.join("llvm.profdata");
            let out = run(
                p22,
                &[
                    "merge".as_ref(),
                    f.as_os_str(),
                    "-o".as_ref(),
                    l.as_os_str(),
                ],
            );
            assert_ok(&out, "llvm-profdata-22");
            assert_eq!(stderr(&out), "", "llvm-profdata-22 warned");
            assert_eq!(
                std::fs::read(&l).unwrap(),
                std::fs::read(d.join("rust-22.profdata")).unwrap()
            );
        }
    }
    let o = d.join("clang19-fe.profdata");
    let out = ours(&[
        "merge".as_ref(),
        raw("clang19/fe-basic.profraw").as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_ok(&out, "clang 19 front-end profile");
    assert!(
        stderr(&out).contains(
            "warning: front-end profile: 2 of 9 functions (e.g. main) have hashes that use the \
             top 4 bits"
        ),
        "{}",
        stderr(&out)
    );
    // Clang 22's own front-end hashes leave the top bits clear: no warning at version 13.
    let out = ours(&[
        "merge".as_ref(),
        raw("clang22/fe-basic.profraw").as_os_str(),
        "-o".as_ref(),
        d.join("clang22-fe.profdata").as_os_str(),
    ]);
    assert_ok(&out, "clang 22 front-end profile");
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
}

// ---- empty raw profiles ------------------------------------------------------------------

/// An empty `.profraw` (a process killed before it wrote its profile) in a profile directory:
/// natively the merge refuses it (exit 1) and says how to skip such files, and skips it with
/// a warning under `--failure-mode=warn`; the drop-in does what llvm-profdata does (skips it,
/// under every failure mode, even when it is the only input) and says so in one line naming
/// the file. Outputs are byte-identical to llvm-profdata-22's.
#[test]
fn empty_profraw_in_a_profile_directory() {
    let dir = tempdir();
    let d = dir.path();
    let profiles = d.join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    for f in ["ir-run1.profraw", "ir-run2.profraw"] {
        std::fs::copy(raw(&format!("rustc/{f}")), profiles.join(f)).unwrap();
    }
    let empty = profiles.join("killed.profraw");
    std::fs::write(&empty, b"").unwrap();

    // Natively: refused, with the way out.
    let o = d.join("native.profdata");
    let out = ours(&[
        "merge".as_ref(),
        profiles.as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{}: at offset 0x0: the file is empty; --failure-mode=warn skips empty inputs",
            empty.display()
        )),
        "{err}"
    );
    assert!(!o.exists());
    let out = ours(&[
        "merge".as_ref(),
        "--failure-mode=warn".as_ref(),
        profiles.as_os_str(),
        "-o".as_ref(),
        o.as_os_str(),
    ]);
    assert_ok(&out, "--failure-mode=warn");
    assert!(
        stderr(&out).contains(&format!("warning: skipped: {}", empty.display())),
        "{}",
        stderr(&out)
    );

    // The drop-in.
    let (_g, dropin) = dropin();
    let only_empty = d.join("only-empty");
    std::fs::create_dir(&only_empty).unwrap();
    std::fs::write(only_empty.join("a.profraw"), b"").unwrap();
    let p22 = tool("llvm-profdata-22", "empty_profraw_in_a_profile_directory");
    for failure_mode in [None, Some("any"), Some("warn"), Some("all")] {
        for input in [&profiles, &only_empty] {
            let mut args: Vec<String> = vec!["merge".into()];
            if let Some(m) = failure_mode {
                args.push(format!("--failure-mode={m}"));
            }
            let ours_out = d.join("dropin.profdata");
            let out = Command::new(&dropin)
                .args(&args)
                .arg("-o")
                .arg(&ours_out)
                .arg(input)
                .output()
                .unwrap();
            let err = stderr(&out);
            assert_eq!(code(&out), 0, "{args:?} {}: {err}", input.display());
            let warnings: Vec<&str> = err.lines().filter(|l| l.contains("empty")).collect();
            assert_eq!(warnings.len(), 1, "{err}");
            assert!(
                warnings[0].contains("warning: skipped: ") && warnings[0].contains(".profraw"),
                "{err}"
            );
            if let Some(p22) = &p22 {
                let theirs = d.join("llvm.profdata");
                let out = Command::new(p22)
                    .args(&args)
                    .arg("-o")
                    .arg(&theirs)
                    .arg(input)
                    .output()
                    .unwrap();
                assert_ok(&out, "llvm-profdata-22 with an empty input");
                assert_eq!(
                    std::fs::read(&theirs).unwrap(),
                    std::fs::read(&ours_out).unwrap(),
                    "{args:?} {}",
                    input.display()
                );
            }
        }
    }
    // The merged profile is the one llvm-profdata-22 makes without the empty file.
    if let Some(p22) = &p22 {
        let without = d.join("without");
        std::fs::create_dir(&without).unwrap();
        for f in ["ir-run1.profraw", "ir-run2.profraw"] {
            std::fs::copy(profiles.join(f), without.join(f)).unwrap();
        }
        let theirs = d.join("without.profdata");
        assert_ok(
            &run(
                p22,
                &[
                    "merge".as_ref(),
                    "-o".as_ref(),
                    theirs.as_os_str(),
                    without.as_os_str(),
                ],
            ),
            "llvm-profdata-22 without the empty file",
        );
        let mine = d.join("with.profdata");
        assert_ok(
            &Command::new(&dropin)
                .args(["merge", "-o"])
                .arg(&mine)
                .arg(&profiles)
                .output()
                .unwrap(),
            "drop-in with the empty file",
        );
        assert_eq!(
            std::fs::read(&theirs).unwrap(),
            std::fs::read(&mine).unwrap()
        );
    }
}
