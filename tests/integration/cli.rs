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
