//! Paths on hostile systems: file names that are not UTF-8, symbolic links inside input
//! directories (to files, to directories, to nothing, in loops), outputs that are one of the
//! inputs, outputs that are standard output or standard error when those are pipes, sockets
//! or redirected files, and input-list entries that do not exist. Where the behaviour is
//! llvm-profdata's, llvm-profdata-22 runs live beside ours (and its drop-in). Every run that
//! writes to a pipe or socket has a time limit: a hang fails the test instead of blocking it.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// How long any one run may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(120);

const LLVM: &str = "llvm-profdata-22";

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A path in `dir` whose name is the bytes `name` (not UTF-8, some of them).
fn bytes_path(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(OsStr::from_bytes(name))
}

/// `prefix` followed by the bytes of `path`.
fn joined(prefix: &str, path: &Path) -> OsString {
    let mut s = OsString::from(prefix);
    s.push(path.as_os_str());
    s
}

/// The names in `dir`, as bytes, sorted.
fn names(dir: &Path) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_vec())
        .collect();
    v.sort();
    v
}

/// Runs `cmd` with `stdout` as its standard output (a pipe when `None`) and its standard error
/// a pipe, reading both to the end on threads; fails the test (after killing the process) if
/// it has not ended within [`HANG`].
fn run_limited(cmd: &mut Command, stdout: Option<Stdio>) -> Output {
    let piped = stdout.is_none();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(stdout.unwrap_or_else(Stdio::piped))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out_reader = drain(
        child
            .stdout
            .take()
            .filter(|_| piped)
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err_reader = drain(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if t0.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} did not end within {HANG:?} (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// Our binary (or, with `dropin`, our binary as `llvm-profdata`), run in `dir` with `args`.
fn ours_in(dir: &Path, dropin: Option<&Path>, args: &[&OsStr]) -> Output {
    let mut c = match dropin {
        Some(link) => Command::new(link),
        None => pgo_merge(),
    };
    run_limited(c.current_dir(dir).args(args), None)
}

/// llvm-profdata-22 run in `dir` with `args`.
fn llvm_in(dir: &Path, llvm: &Path, args: &[&OsStr]) -> Output {
    run_limited(Command::new(llvm).current_dir(dir).args(args), None)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

// ---- file names that are not UTF-8 -------------------------------------------------------

/// Inputs, outputs, weighted inputs and input-list lines whose names are not UTF-8 name
/// exactly those files, natively and in the drop-in: the output is written under its own
/// name (nothing else appears in the directory) and is llvm-profdata-22's output of the same
/// command, byte for byte; `--dump-input-file-list` prints the bytes of the names.
#[test]
fn file_names_that_are_not_utf8() {
    let test = "file_names_that_are_not_utf8";
    let dir = tempdir();
    let d = dir.path();
    let input = bytes_path(d, b"in-\xff\xfe.profraw");
    std::fs::copy(raw("clang19/ir-basic-run1.profraw"), &input).unwrap();
    let list = bytes_path(d, b"list-\xe9");
    let mut line = b"2,".to_vec();
    line.extend_from_slice(input.file_name().unwrap().as_bytes());
    line.extend_from_slice(b"\n# a comment\n");
    std::fs::write(&list, &line).unwrap();
    let out = bytes_path(d, b"out-\xff.profdata");
    let name_of = |p: &Path| p.file_name().unwrap().as_bytes().to_vec();
    let before = names(d);
    let ours_cases: Vec<Vec<OsString>> = vec![
        vec![input.clone().into(), "-o".into(), out.clone().into()],
        vec![input.clone().into(), joined("--output=", &out)],
        vec![input.clone().into(), joined("-o", &out)],
        vec![joined("-w2,", &input), "-o".into(), out.clone().into()],
        vec![
            "-f".into(),
            list.clone().into(),
            "-o".into(),
            out.clone().into(),
        ],
        vec![
            joined("--input-files=", &list),
            "-o".into(),
            out.clone().into(),
        ],
    ];
    let (_g, link) = dropin();
    let dropin_cases: Vec<Vec<OsString>> = vec![
        vec![
            "merge".into(),
            input.clone().into(),
            "-o".into(),
            out.clone().into(),
        ],
        vec![
            "merge".into(),
            input.clone().into(),
            joined("-output=", &out),
        ],
        vec![
            "merge".into(),
            joined("-weighted-input=2,", &input),
            joined("-o=", &out),
        ],
        vec![
            "merge".into(),
            "-f".into(),
            list.clone().into(),
            "-o".into(),
            out.clone().into(),
        ],
    ];
    let mut made = Vec::new();
    for (args, dropin) in ours_cases
        .iter()
        .map(|a| (a, None))
        .chain(dropin_cases.iter().map(|a| (a, Some(link.as_path()))))
    {
        let _ = std::fs::remove_file(&out);
        let args: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
        let o = ours_in(d, dropin, &args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        let mut expected = before.clone();
        expected.push(name_of(&out));
        expected.sort();
        assert_eq!(names(d), expected, "{args:?}: files in the directory");
        made.push((
            args.iter().map(|a| a.to_os_string()).collect::<Vec<_>>(),
            std::fs::read(&out).unwrap(),
        ));
    }
    // Each drop-in command gives llvm-profdata-22's bytes.
    let Some(llvm) = tool(LLVM, test) else {
        return;
    };
    for (args, bytes) in made.iter().filter(|(a, _)| a[0] == "merge") {
        let _ = std::fs::remove_file(&out);
        let args: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
        let l = llvm_in(d, &llvm, &args);
        assert_eq!(code(&l), 0, "{LLVM} {args:?}: {}", stderr(&l));
        assert_eq!(
            &std::fs::read(&out).unwrap(),
            bytes,
            "{args:?}: not {LLVM}'s bytes"
        );
    }
    // The list as llvm-profdata dumps it: the name's bytes.
    for dropin in [Some(link.as_path()), None] {
        let args = [
            os("merge"),
            os("-f"),
            list.as_os_str(),
            os("--dump-input-file-list"),
        ];
        let ours = ours_in(d, dropin, &args);
        let theirs = llvm_in(d, &llvm, &args);
        assert_eq!(code(&ours), 0, "{}", stderr(&ours));
        assert_eq!(ours.stdout, theirs.stdout, "--dump-input-file-list");
    }
}

/// `show`, `overlap` and `symbolize` read and write files whose names are not UTF-8; the
/// messages show such names lossily, but never touch a file of the lossy name.
#[test]
fn show_overlap_symbolize_take_names_that_are_not_utf8() {
    let dir = tempdir();
    let d = dir.path();
    let input = bytes_path(d, b"p\xff.profraw");
    std::fs::copy(raw("clang19/ir-basic-run1.profraw"), &input).unwrap();
    let report = bytes_path(d, b"r\xff.txt");
    let map = bytes_path(d, b"perf-42\xff.map");
    std::fs::write(&map, "7f0000001000 100 hot_fn\n").unwrap();
    let script = bytes_path(d, b"script\xff.txt");
    std::fs::write(
        &script,
        "java 42/42 100.000001:\n\t7f0000001010 [unknown] ([unknown])\n\t1234 main (/usr/bin/java)\n\n",
    )
    .unwrap();
    let folded = bytes_path(d, b"s\xff.folded");
    let cases: Vec<Vec<&OsStr>> = vec![
        vec![os("show"), input.as_os_str(), os("-o"), report.as_os_str()],
        vec![
            os("overlap"),
            input.as_os_str(),
            input.as_os_str(),
            os("-o"),
            report.as_os_str(),
        ],
        vec![
            os("symbolize"),
            os("--perf-map"),
            map.as_os_str(),
            os("--perf-script"),
            script.as_os_str(),
            os("-o"),
            folded.as_os_str(),
        ],
    ];
    for args in cases {
        let before = names(d);
        let out = ours_in(d, None, &args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        let written = args.last().unwrap();
        assert!(!std::fs::read(written).unwrap().is_empty(), "{args:?}");
        let mut expected = before;
        let name = Path::new(written).file_name().unwrap().as_bytes().to_vec();
        if !expected.contains(&name) {
            expected.push(name);
            expected.sort();
        }
        assert_eq!(names(d), expected, "{args:?}: files in the directory");
    }
    assert_eq!(
        std::fs::read_to_string(&folded).unwrap(),
        "java;main;hot_fn 1\n"
    );
}

// ---- symbolic links in input directories -------------------------------------------------

/// A profile directory as build systems leave them: a subdirectory, a link to a directory
/// elsewhere, a link to a file elsewhere, a dangling link named like a profile and a FIFO
/// named like one. llvm-profdata-22 follows both links and skips the dangling link and the
/// FIFO; so do the drop-in (same bytes) and the native merge (same files), each skip with a
/// warning naming the file.
#[test]
fn links_in_input_directories_are_followed() {
    let test = "links_in_input_directories_are_followed";
    let dir = tempdir();
    let d = dir.path();
    let run1 = raw("clang19/ir-basic-run1.profraw");
    let run2 = raw("clang19/ir-basic-run2.profraw");
    let profiles = d.join("profiles");
    std::fs::create_dir_all(profiles.join("sub")).unwrap();
    std::fs::create_dir_all(d.join("elsewhere/deeper")).unwrap();
    std::fs::copy(&run1, profiles.join("sub/a.profraw")).unwrap();
    std::fs::copy(&run2, d.join("elsewhere/deeper/b.profraw")).unwrap();
    std::fs::copy(&run2, d.join("c.profraw")).unwrap();
    symlink("../elsewhere", profiles.join("linked-dir")).unwrap();
    symlink("../c.profraw", profiles.join("linked-file.profraw")).unwrap();
    symlink("../nowhere.profraw", profiles.join("dangling.profraw")).unwrap();
    let fifo = profiles.join("fifo.profraw");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let all_three = [
        profiles.join("sub/a.profraw"),
        d.join("elsewhere/deeper/b.profraw"),
        d.join("c.profraw"),
    ];
    // What the three files merged give, natively (named one by one).
    let reference = d.join("reference.profdata");
    let mut args: Vec<&OsStr> = all_three.iter().map(|p| p.as_os_str()).collect();
    args.extend([os("-o"), reference.as_os_str()]);
    assert_ok(&ours_in(d, None, &args), "reference");
    let expected_warnings = |err: &str| {
        for skipped in ["dangling.profraw", "fifo.profraw"] {
            assert!(
                err.lines()
                    .any(|l| l.contains("warning") && l.contains(skipped) && l.contains("skipped")),
                "no warning for {skipped}:\n{err}"
            );
        }
    };
    let native = d.join("native.profdata");
    let out = ours_in(
        d,
        None,
        &[profiles.as_os_str(), os("-o"), native.as_os_str()],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    expected_warnings(&stderr(&out));
    assert!(
        stderr(&out).contains("from 3 of 3 inputs"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&native).unwrap(),
        std::fs::read(&reference).unwrap()
    );

    let (_g, link) = dropin();
    let dropped = d.join("dropin.profdata");
    let args = [
        os("merge"),
        profiles.as_os_str(),
        os("-o"),
        dropped.as_os_str(),
    ];
    let out = ours_in(d, Some(&link), &args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    expected_warnings(&stderr(&out));
    let Some(llvm) = tool(LLVM, test) else {
        return;
    };
    let theirs = d.join("llvm.profdata");
    let out = llvm_in(
        d,
        &llvm,
        &[
            os("merge"),
            profiles.as_os_str(),
            os("-o"),
            theirs.as_os_str(),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&dropped).unwrap(),
        std::fs::read(&theirs).unwrap()
    );
    // The same files, whatever the order each tool lists them in.
    let list = |o: &Output| {
        let mut v: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    let args = [
        os("merge"),
        os("--dump-input-file-list"),
        profiles.as_os_str(),
    ];
    let ours = list(&ours_in(d, Some(&link), &args));
    assert_eq!(ours, list(&llvm_in(d, &llvm, &args)));
    assert_eq!(ours.len(), 3, "{ours:?}");
}

/// A link to a directory that holds it: llvm-profdata-22 follows it until the system's limit
/// on links in a path (40) and merges the file 41 times. We follow it once, warn, and merge
/// the file once, natively and in the drop-in; nothing hangs or recurses without end.
#[test]
fn link_loops_end_with_a_warning() {
    let dir = tempdir();
    let d = dir.path();
    let tree = d.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    std::fs::copy(
        raw("clang19/ir-basic-run1.profraw"),
        tree.join("sub/a.profraw"),
    )
    .unwrap();
    symlink("..", tree.join("sub/up")).unwrap();
    symlink(".", tree.join("self")).unwrap();
    let reference = d.join("reference.profdata");
    assert_ok(
        &ours_in(
            d,
            None,
            &[
                tree.join("sub/a.profraw").as_os_str(),
                os("-o"),
                reference.as_os_str(),
            ],
        ),
        "reference",
    );
    let (_g, link) = dropin();
    for dropin in [None, Some(link.as_path())] {
        let o = d.join("o.profdata");
        let mut args = vec![tree.as_os_str(), os("-o"), o.as_os_str()];
        if dropin.is_some() {
            args.insert(0, os("merge"));
        }
        let out = ours_in(d, dropin, &args);
        assert_eq!(code(&out), 0, "{dropin:?}: {}", stderr(&out));
        let err = stderr(&out);
        for l in ["sub/up", "self"] {
            assert!(
                err.lines().any(|x| x.contains(l) && x.contains("loop")),
                "{dropin:?}: no warning for {l}:\n{err}"
            );
        }
        assert_eq!(
            std::fs::read(&o).unwrap(),
            std::fs::read(&reference).unwrap(),
            "{dropin:?}"
        );
    }
}

// ---- outputs that are inputs -------------------------------------------------------------

/// `overlap -o` naming one of its inputs, by any name (itself, `./` before it, a hard link, a
/// symbolic link): refused, the input untouched, natively and in the drop-in, for
/// instrumentation and sample profiles. (llvm-profdata-22 truncates the base and then fails
/// to read it.)
#[test]
fn overlap_refuses_to_overwrite_an_input() {
    let dir = tempdir();
    let d = dir.path();
    let base = d.join("base.profraw");
    let test_file = d.join("test.profraw");
    std::fs::copy(raw("clang19/ir-basic-run1.profraw"), &base).unwrap();
    std::fs::copy(raw("clang19/ir-basic-run2.profraw"), &test_file).unwrap();
    std::fs::hard_link(&base, d.join("hard.profraw")).unwrap();
    symlink("test.profraw", d.join("soft.profraw")).unwrap();
    let sbase = d.join("base.prof.txt");
    let stest = d.join("test.prof.txt");
    std::fs::copy(root().join("testdata/sample/flat.prof.txt"), &sbase).unwrap();
    std::fs::copy(root().join("testdata/sample/flat-second.prof.txt"), &stest).unwrap();
    std::fs::hard_link(&sbase, d.join("shard.txt")).unwrap();
    let originals: Vec<(PathBuf, Vec<u8>)> = [&base, &test_file, &sbase, &stest]
        .iter()
        .map(|p| (p.to_path_buf(), std::fs::read(p).unwrap()))
        .collect();
    let (_g, link) = dropin();
    for dropin in [None, Some(link.as_path())] {
        for (sample, output) in [
            (false, "base.profraw"),
            (false, "./base.profraw"),
            (false, "hard.profraw"),
            (false, "soft.profraw"),
            (false, "test.profraw"),
            (true, "./base.prof.txt"),
            (true, "shard.txt"),
        ] {
            let (b, t) = if sample {
                ("base.prof.txt", "test.prof.txt")
            } else {
                ("base.profraw", "test.profraw")
            };
            let mut args = vec![os("overlap"), os(b), os(t), os("-o"), os(output)];
            if sample {
                args.insert(1, os("--sample"));
            }
            let out = ours_in(d, dropin, &args);
            let err = stderr(&out);
            assert_ne!(code(&out), 0, "{dropin:?} {args:?}: accepted\n{err}");
            assert!(
                err.contains("cannot be the same as the output"),
                "{dropin:?} {args:?}: {err}"
            );
            for (p, bytes) in &originals {
                assert_eq!(
                    &std::fs::read(p).unwrap(),
                    bytes,
                    "{dropin:?} {args:?}: {p:?} changed"
                );
            }
        }
    }
}

/// `merge -o P` where P is also an input merges into P, as llvm-profdata does (a running total
/// kept in one file): every input is read before the output replaces it. But a directory
/// never contributes the output, also when it reaches the output by another name (a hard
/// link in the directory).
#[test]
fn merge_into_an_input_and_directories_skip_the_output() {
    let test = "merge_into_an_input_and_directories_skip_the_output";
    let dir = tempdir();
    let d = dir.path();
    let run1 = raw("clang19/ir-basic-run1.profraw");
    let total = d.join("total.profdata");
    std::fs::copy(
        root().join("testdata/profdata/clang19-ir-llvm19.profdata"),
        &total,
    )
    .unwrap();
    let start = std::fs::read(&total).unwrap();
    let out = ours_in(
        d,
        None,
        &[
            os("total.profdata"),
            run1.as_os_str(),
            os("-o"),
            os("total.profdata"),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let ours = std::fs::read(&total).unwrap();
    if let Some(llvm) = tool(LLVM, test) {
        std::fs::write(&total, &start).unwrap();
        let (_g, link) = dropin();
        let args = [
            os("merge"),
            os("total.profdata"),
            run1.as_os_str(),
            os("-o"),
            os("total.profdata"),
        ];
        let out = ours_in(d, Some(&link), &args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let dropped = std::fs::read(&total).unwrap();
        std::fs::write(&total, &start).unwrap();
        let out = llvm_in(d, &llvm, &args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(dropped, std::fs::read(&total).unwrap(), "drop-in vs {LLVM}");
        assert_eq!(ours, dropped, "native vs drop-in");
    }
    // A directory holding a hard link to the output: the link is the output, not an input.
    let profiles = d.join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    std::fs::copy(&run1, profiles.join("a.profraw")).unwrap();
    let reference = d.join("reference.profdata");
    assert_ok(
        &ours_in(
            d,
            None,
            &[profiles.as_os_str(), os("-o"), reference.as_os_str()],
        ),
        "reference",
    );
    let o = d.join("o.profdata");
    std::fs::write(&o, &start).unwrap();
    std::fs::hard_link(&o, profiles.join("previous.profdata")).unwrap();
    let out = ours_in(d, None, &[profiles.as_os_str(), os("-o"), o.as_os_str()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("from 1 of 1 inputs"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read(&o).unwrap(),
        std::fs::read(&reference).unwrap()
    );
}

// ---- standard output and standard error as outputs ---------------------------------------

/// Every writer (merge indexed and text, merge --sample, show, overlap, symbolize; natively
/// and in the drop-in) writes to `-o /dev/stdout`, `-o /proc/self/fd/1` and `-o /dev/stderr`
/// when they are pipes, to a socket as standard output, and to `/dev/stdout` redirected to a
/// file: the bytes are those written to a file. (llvm-profdata-22 writes show, overlap and
/// text reports to a pipe; its indexed merge fails there with "Illegal seek", and it cannot
/// open a socket.)
#[test]
fn standard_streams_as_outputs() {
    let dir = tempdir();
    let d = dir.path();
    let run1 = raw("clang19/ir-basic-run1.profraw");
    let run2 = raw("clang19/ir-basic-run2.profraw");
    let sample = root().join("testdata/sample/flat.prof.txt");
    std::fs::write(d.join("perf-42.map"), "7f0000001000 100 hot_fn\n").unwrap();
    std::fs::write(
        d.join("script.txt"),
        "java 42/42 100.000001:\n\t7f0000001010 [unknown] ([unknown])\n\t1234 main (/usr/bin/java)\n\n",
    )
    .unwrap();
    let (_g, link) = dropin();
    let r1 = run1.as_os_str();
    let r2 = run2.as_os_str();
    // Each writer: (drop-in?, arguments before `-o OUTPUT`, arguments after).
    let writers: Vec<(bool, Vec<&OsStr>, Vec<&OsStr>)> = vec![
        (false, vec![os("merge"), r1, r2], vec![]),
        (false, vec![os("merge"), r1, os("--text")], vec![]),
        (
            false,
            vec![os("merge"), os("--sample"), sample.as_os_str()],
            vec![],
        ),
        (false, vec![os("show"), r1], vec![]),
        (false, vec![os("overlap"), r1, r2], vec![]),
        (
            false,
            vec![
                os("symbolize"),
                os("--perf-map"),
                os("perf-42.map"),
                os("--perf-script"),
                os("script.txt"),
                os("--output-format"),
                os("folded"),
            ],
            vec![],
        ),
        (true, vec![os("merge"), r1, r2], vec![]),
        (
            true,
            vec![os("show"), os("--counts"), os("--all-functions"), r1],
            vec![],
        ),
        (true, vec![os("overlap"), r1, r2], vec![]),
    ];
    for (dropin, before, after) in &writers {
        let dropin = dropin.then_some(link.as_path());
        let run = |output: &str, stdout: Option<Stdio>| {
            let mut c = match dropin {
                Some(l) => Command::new(l),
                None => pgo_merge(),
            };
            c.current_dir(d)
                .args(before)
                .args([os("-o"), os(output)])
                .args(after);
            run_limited(&mut c, stdout)
        };
        let file = d.join("expected.out");
        let out = run(file.to_str().unwrap(), None);
        assert_eq!(code(&out), 0, "{before:?} -o FILE: {}", stderr(&out));
        let expected = std::fs::read(&file).unwrap();
        assert!(!expected.is_empty(), "{before:?}");
        for path in ["/dev/stdout", "/proc/self/fd/1"] {
            let out = run(path, None);
            assert_eq!(
                code(&out),
                0,
                "{before:?} -o {path} (pipe): {}",
                stderr(&out)
            );
            assert_eq!(out.stdout, expected, "{before:?} -o {path} (pipe)");
        }
        // Standard error: the report, then our note on it (native merges say what they wrote).
        let out = run("/dev/stderr", None);
        assert_eq!(code(&out), 0, "{before:?} -o /dev/stderr: {}", stderr(&out));
        assert!(
            out.stderr.starts_with(&expected),
            "{before:?} -o /dev/stderr"
        );
        // A socket as standard output.
        let (mut mine, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let reader = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = mine.read_to_end(&mut v);
            v
        });
        let out = run(
            "/dev/stdout",
            Some(Stdio::from(std::os::fd::OwnedFd::from(theirs))),
        );
        let got = reader.join().unwrap();
        assert_eq!(
            code(&out),
            0,
            "{before:?} -o /dev/stdout (socket): {}",
            stderr(&out)
        );
        assert_eq!(got, expected, "{before:?} -o /dev/stdout (socket)");
        // Standard output redirected to a file, which holds something already.
        let redirected = d.join("redirected.out");
        std::fs::write(&redirected, vec![b'x'; expected.len() * 2 + 100]).unwrap();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&redirected)
            .unwrap();
        let out = run("/dev/stdout", Some(Stdio::from(f)));
        assert_eq!(
            code(&out),
            0,
            "{before:?} -o /dev/stdout (file): {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::read(&redirected).unwrap(),
            expected,
            "{before:?} -o /dev/stdout (file)"
        );
    }
}

// ---- input-list entries that do not exist ------------------------------------------------

/// A list entry (or a plain input) that does not exist: llvm-profdata-22 fails, whatever the
/// failure mode, and so does the drop-in. Natively it is an unusable input like any other:
/// the error under `any` (naming the list and line), skipped with a warning under `all` and
/// `warn`; under `all` a run where no input is left fails.
#[test]
fn missing_list_entries_follow_the_failure_mode() {
    let test = "missing_list_entries_follow_the_failure_mode";
    let dir = tempdir();
    let d = dir.path();
    std::fs::copy(raw("clang19/ir-basic-run1.profraw"), d.join("a.profraw")).unwrap();
    std::fs::write(d.join("list"), "a.profraw\nmissing.profraw\n").unwrap();
    std::fs::write(
        d.join("only-missing"),
        "# nothing here exists\nmissing.profraw\n",
    )
    .unwrap();
    let reference = d.join("reference.profdata");
    assert_ok(
        &ours_in(d, None, &[os("a.profraw"), os("-o"), reference.as_os_str()]),
        "reference",
    );
    let reference = std::fs::read(&reference).unwrap();
    let o = d.join("o.profdata");
    let run = |dropin: Option<&Path>, mode: &str, how: &[&str]| {
        let _ = std::fs::remove_file(&o);
        let mode = format!("--failure-mode={mode}");
        let mut args: Vec<&OsStr> = how.iter().map(|s| os(s)).collect();
        args.extend([os(&mode), os("-o"), o.as_os_str()]);
        if dropin.is_some() {
            args.insert(0, os("merge"));
        }
        ours_in(d, dropin, &args)
    };
    for how in [
        &["-f", "list"][..],
        &["a.profraw", "missing.profraw"],
        &["a.profraw", "-w", "2,missing.profraw"],
    ] {
        let out = run(None, "any", how);
        assert_eq!(code(&out), 1, "{how:?} any: {}", stderr(&out));
        assert!(
            stderr(&out).contains("missing.profraw: No such file"),
            "{}",
            stderr(&out)
        );
        if how[0] == "-f" {
            assert!(stderr(&out).contains("list:2: "), "{}", stderr(&out));
        }
        assert!(!o.exists());
        for mode in ["all", "warn"] {
            let out = run(None, mode, how);
            assert_eq!(code(&out), 0, "{how:?} {mode}: {}", stderr(&out));
            assert!(
                stderr(&out).contains("warning: skipped: missing.profraw: No such file"),
                "{how:?} {mode}: {}",
                stderr(&out)
            );
            assert_eq!(std::fs::read(&o).unwrap(), reference, "{how:?} {mode}");
        }
    }
    let out = run(None, "all", &["-f", "only-missing"]);
    assert_eq!(code(&out), 1, "only missing, all: {}", stderr(&out));
    let out = run(None, "warn", &["-f", "only-missing"]);
    assert_eq!(code(&out), 0, "only missing, warn: {}", stderr(&out));
    // The drop-in fails as llvm-profdata-22 fails, in every mode.
    let llvm = tool(LLVM, test);
    let (_g, link) = dropin();
    for mode in ["any", "all", "warn"] {
        let out = run(Some(&link), mode, &["-f", "list"]);
        assert_eq!(code(&out), 1, "drop-in {mode}: {}", stderr(&out));
        assert!(stderr(&out).contains("missing.profraw"), "{}", stderr(&out));
        assert!(!o.exists());
        if let Some(llvm) = &llvm {
            let m = format!("--failure-mode={mode}");
            let out = llvm_in(
                d,
                llvm,
                &[
                    os("merge"),
                    os("-f"),
                    os("list"),
                    os(&m),
                    os("-o"),
                    o.as_os_str(),
                ],
            );
            assert_eq!(code(&out), 1, "{LLVM} {mode}: {}", stderr(&out));
        }
    }
}
