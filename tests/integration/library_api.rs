//! The library as others build on it: the size of its error, what its public API lets a user
//! do from outside the crate.

/// `Error` is one word (a box), so every `Result` of the crate stays small.
#[test]
fn error_is_at_most_two_words() {
    assert!(std::mem::size_of::<pgo_merge::Error>() <= 16);
    assert!(std::mem::size_of::<pgo_merge::Result<()>>() <= 16);
}

use crate::common::{root, run_ours, tempdir};

/// The exit code of `out` and its standard error.
fn code_and_stderr(out: &std::process::Output) -> (Option<i32>, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A usage error (`ErrorKind::Usage`: a request that cannot work, here a report that would
/// overwrite its input) exits 2, as docs/usage.md says; it exited 1 before.
#[test]
fn usage_error_exits_2() {
    let d = tempdir();
    let iprof = d.path().join("small.iprof");
    std::fs::copy(root().join("testdata/iprof/small-v1.1.0.iprof"), &iprof).unwrap();
    let out = run_ours([
        "show".as_ref(),
        iprof.as_os_str(),
        "-o".as_ref(),
        iprof.as_os_str(),
    ]);
    let (code, err) = code_and_stderr(&out);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("Input file name cannot be the same as the output file name"),
        "{err}"
    );
}

/// An input that is a directory cannot be read: the work failed (exit 1), not the request;
/// the message is what it was.
#[test]
fn directory_input_exits_1() {
    let d = tempdir();
    let out = run_ours(["show".as_ref(), d.path().as_os_str()]);
    let (code, err) = code_and_stderr(&out);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("{}: is a directory", d.path().display())),
        "{err}"
    );
}

/// A profile the chosen output format cannot carry is a failure of the work (exit 1), not
/// a usage error.
#[test]
fn unwritable_profile_exits_1() {
    let d = tempdir();
    let cs = root().join("testdata/sample/cs.prof.txt");
    let out = run_ours([
        "merge".as_ref(),
        "--sample".as_ref(),
        "--binary".as_ref(),
        cs.as_os_str(),
        "-o".as_ref(),
        d.path().join("o.prof").as_os_str(),
    ]);
    let (code, err) = code_and_stderr(&out);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the binary sample format cannot hold"),
        "{err}"
    );
}

/// The library frees what it merged; only a caller that asks for the memory
/// (`merge_keeping_memory`, as the binary does) gets it back to leak or drop.
#[test]
fn merge_hands_back_memory_only_when_asked() {
    use pgo_merge::pipeline::{self, MergeRequest, NoProgress};
    let d = tempdir();
    let mut request = MergeRequest::default();
    request.inputs = vec![root().join("testdata/profraw/clang14/entry-coverage.profraw")];
    request.output = Some(d.path().join("m.profdata"));
    let outcome = pipeline::merge(&request, &NoProgress).unwrap();
    assert_eq!(outcome.inputs_merged, 1);
    let (outcome, memory) = pipeline::merge_keeping_memory(&request, &NoProgress).unwrap();
    assert_eq!(outcome.inputs_merged, 1);
    assert_eq!(format!("{memory:?}"), "MergedMemory(profile)");
    drop(memory);
}
