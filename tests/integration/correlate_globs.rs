//! Binaries named per input (`--binary-for GLOB BIN`, `--debug-info-for GLOB BIN`): for
//! lightweight raw profiles whose binary has no build ID, several such binaries in one merge.
//! The binaries are built at test time with clang-19 (`-Wl,--build-id=none`, and one with a
//! build ID); our one merge must equal what llvm-profdata writes for each binary alone
//! (one `--binary-file` or `--debug-info` each), merged afterwards.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{run, succeeded as ok, tempdir, tool};

const SRC_A: &str = "#include <stdlib.h>\n\
static int sq(int x) { return x * x; }\n\
int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += (i & 1) ? sq(i) : i; return s; }\n\
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 10; return work(n) == 7; }\n";

const SRC_B: &str = "#include <stdlib.h>\n\
static int cube(int x) { return x * x * x; }\n\
int other(int n) { int s = 0; for (int i = 0; i < n; i++) if (i % 3 == 0) s += cube(i); return s; }\n\
int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 10; return other(n) == 7; }\n";

fn os(p: &Path) -> &OsStr {
    p.as_os_str()
}

/// Our binary run in `dir` (so that relative input paths are "as given").
fn ours_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgo-merge"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run pgo-merge")
}

/// Builds `src` into `dir/name` with clang-19 for correlation `mode` (`binary` or
/// `debug-info`), with a build ID or not, and runs it once per argument of `runs`, writing
/// `dir/name-K.profraw`. Returns the binary and the raw profiles.
fn build_and_run(
    clang: &Path,
    dir: &Path,
    name: &str,
    src: &str,
    mode: &str,
    build_id: bool,
    runs: &[&str],
) -> (PathBuf, Vec<PathBuf>) {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let exe = dir.join(name);
    let correlate = format!("-profile-correlate={mode}");
    let link = if build_id {
        "-Wl,--build-id=sha1"
    } else {
        "-Wl,--build-id=none"
    };
    let mut args: Vec<&OsStr> = ["-O1", "-fprofile-generate", "-mllvm", &correlate]
        .into_iter()
        .map(OsStr::new)
        .collect();
    // Lightweight clang-19 binaries crash on indirect calls with value profiling on.
    args.extend(["-mllvm", "-disable-vp=true", link].map(OsStr::new));
    if mode == "debug-info" {
        args.push(OsStr::new("-g"));
    }
    args.extend([os(&c), OsStr::new("-o"), os(&exe)]);
    ok(run(clang, &args), &format!("clang-19 {name}"));
    let mut raws = Vec::new();
    for (k, arg) in runs.iter().enumerate() {
        let raw = dir.join(format!("{name}-{k}.profraw"));
        let status = Command::new(&exe)
            .arg(arg)
            .env("LLVM_PROFILE_FILE", &raw)
            .status()
            .unwrap();
        assert!(status.code().is_some(), "{name} {arg}: {status:?}");
        assert!(raw.is_file(), "{name} wrote no profile");
        raws.push(raw);
    }
    (exe, raws)
}

/// What llvm-profdata writes for each binary alone (`--binary-file` or `--debug-info` with
/// its own raw profiles), merged afterwards into one indexed profile `out`.
fn llvm_per_binary(llvm: &Path, dir: &Path, groups: &[(&str, &Path, &[PathBuf])], out: &Path) {
    let mut parts = Vec::new();
    for (k, (flag, binary, raws)) in groups.iter().enumerate() {
        let part = dir.join(format!("llvm-part-{k}.profdata"));
        let option = format!("{flag}={}", binary.display());
        let mut args: Vec<&OsStr> = vec![OsStr::new("merge"), OsStr::new(&option)];
        args.extend(raws.iter().map(|r| os(r)));
        args.extend([OsStr::new("-o"), os(&part)]);
        ok(run(llvm, &args), &format!("{} {option}", llvm.display()));
        parts.push(part);
    }
    let mut args: Vec<&OsStr> = vec![OsStr::new("merge")];
    args.extend(parts.iter().map(|p| os(p)));
    args.extend([OsStr::new("-o"), os(out)]);
    ok(run(llvm, &args), "merge of the per-binary outputs");
}

/// Two build-ID-less binaries (one read by binary correlation, one by debug info) and one
/// with a build ID, named per input in one merge: byte-identical to llvm-profdata-19 and 22
/// merging what each binary gives alone. Without the pairings the same merge is an error.
#[test]
fn binaries_named_per_input_merge_as_llvm_profdata_merges_each() {
    let test = "binaries_named_per_input_merge_as_llvm_profdata_merges_each";
    let Some(clang) = tool("clang-19", test) else {
        return;
    };
    let d = tempdir();
    let dir = d.path();
    let (a, a_raws) = build_and_run(&clang, dir, "a", SRC_A, "binary", false, &["20", "7"]);
    let (b, b_raws) = build_and_run(&clang, dir, "b", SRC_B, "debug-info", false, &["30"]);
    let (c, c_raws) = build_and_run(&clang, dir, "cid", SRC_A, "binary", true, &["5"]);
    let inputs = ["a-0.profraw", "a-1.profraw", "b-0.profraw", "cid-0.profraw"];
    for v in [19, 22] {
        let Some(llvm) = tool(&format!("llvm-profdata-{v}"), test) else {
            continue;
        };
        let theirs = dir.join(format!("theirs-{v}.profdata"));
        llvm_per_binary(
            &llvm,
            dir,
            &[
                ("--binary-file", &a, &a_raws),
                ("--debug-info", &b, &b_raws),
                ("--binary-file", &c, &c_raws),
            ],
            &theirs,
        );
        let out = format!("ours-{v}.profdata");
        let target = v.to_string();
        let mut args = vec!["merge", "--target-llvm", &target];
        args.extend(["--binary-for", "a-*.profraw", "a"]);
        args.extend(["--debug-info-for", "b-?.profraw", "b"]);
        // A binary with a build ID may be named per input too.
        args.extend(["--binary-for", "cid-*", "cid"]);
        args.extend(inputs);
        args.extend(["-o", &out]);
        ok(ours_in(dir, &args), "pgo-merge with pairings");
        assert_eq!(
            std::fs::read(dir.join(&out)).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "our merge differs from llvm-profdata-{v}'s per-binary merges"
        );
    }
    // The same binaries named without patterns: two lack a build ID, so no input can be
    // routed to them.
    let mut args = vec!["merge", "--binary-file", "a", "--debug-info", "b"];
    args.extend(["--binary-file", "cid"]);
    args.extend(inputs);
    args.extend(["-o", "x.profdata"]);
    let o = ours_in(dir, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && o.status.code() != Some(101), "{err}");
    assert!(err.contains("no build ID"), "{err}");
}

/// The rules: a pairing wins over build-ID routing for its inputs; an input matched by two
/// patterns is an error naming both; a pattern matching no input is a warning; a pairing
/// with a binary whose build ID the profile does not carry is the usual error; a pattern
/// with `/` matches the path as given; an invalid pattern is a usage error.
#[test]
fn pairing_rules() {
    let test = "pairing_rules";
    let Some(clang) = tool("clang-19", test) else {
        return;
    };
    let d = tempdir();
    let dir = d.path();
    std::fs::create_dir(dir.join("runs")).unwrap();
    let (_, _) = build_and_run(&clang, dir, "a", SRC_A, "binary", false, &["20"]);
    let (_, _) = build_and_run(&clang, dir, "cid", SRC_B, "binary", true, &["9"]);
    let more = format!("{SRC_B}int extra(int x) {{ return x > 2 ? x * other(x) : -x; }}\n");
    let (_, _) = build_and_run(&clang, dir, "more", &more, "binary", false, &[]);
    std::fs::rename(dir.join("a-0.profraw"), dir.join("runs/a-0.profraw")).unwrap();
    let fails = |args: &[&str], wanted: &[&str]| {
        let o = ours_in(dir, args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(
            !o.status.success() && o.status.code() != Some(101),
            "{args:?}: {err}"
        );
        for w in wanted {
            assert!(err.contains(w), "{args:?}: {w:?} not in {err}");
        }
    };
    // Two patterns for one input.
    fails(
        &[
            "merge",
            "--binary-for",
            "*.profraw",
            "a",
            "--binary-for",
            "runs/a-*",
            "a",
            "runs/a-0.profraw",
            "-o",
            "x",
        ],
        &["runs/a-0.profraw", "\"*.profraw\"", "\"runs/a-*\""],
    );
    // The pairing wins over routing by build ID: cid's profile carries cid's build ID, and
    // `a` (no build ID) is named for it, so it is an error even though --binary-file cid
    // would route it.
    fails(
        &[
            "merge",
            "--binary-file",
            "cid",
            "--binary-for",
            "cid-*",
            "a",
            "cid-0.profraw",
            "-o",
            "x",
        ],
        &["cid-0.profraw", "build ID", "a (no build ID)"],
    );
    // A binary with a build ID named for a profile without one: it did not write it.
    fails(
        &[
            "merge",
            "--binary-for",
            "runs/*",
            "cid",
            "runs/a-0.profraw",
            "-o",
            "x",
        ],
        &[
            "runs/a-0.profraw",
            "no build ID",
            "\"runs/*\"",
            "cid (build ID",
        ],
    );
    // Neither has a build ID, but the other binary has more counters than the profile:
    // it did not write it.
    fails(
        &[
            "merge",
            "--binary-for",
            "runs/*",
            "more",
            "runs/a-0.profraw",
            "-o",
            "x",
        ],
        &[
            "runs/a-0.profraw",
            "__llvm_prf_cnts",
            "more",
            "did not write it",
        ],
    );
    fails(
        &[
            "merge",
            "--binary-for",
            "[",
            "a",
            "cid-0.profraw",
            "-o",
            "x",
        ],
        &["--binary-for", "\"[\""],
    );
    // A pattern with `/` against the path as given; one matching nothing is a warning.
    let o = ok(
        ours_in(
            dir,
            &[
                "merge",
                "--binary-for",
                "runs/*.profraw",
                "a",
                "--binary-for",
                "nothing-*",
                "cid",
                "--binary-file",
                "cid",
                "runs/a-0.profraw",
                "cid-0.profraw",
                "-o",
                "y.profdata",
            ],
        ),
        "pairing by path",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning")
            && err.contains("\"nothing-*\"")
            && err.contains("matches no input"),
        "{err}"
    );
    assert!(!err.contains("runs/*.profraw"), "{err}");
    // `*` does not cross `/`: the input under runs/ is not matched by a pattern of the
    // current directory only.
    fails(
        &[
            "merge",
            "--binary-for",
            "./*.profraw",
            "a",
            "runs/a-0.profraw",
            "-o",
            "x",
        ],
        &["runs/a-0.profraw", "no build ID"],
    );
}
