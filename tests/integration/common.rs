//! Shared helpers for the integration tests: paths, running our binary, finding the real LLVM
//! tools, and comparing `llvm-profdata show` outputs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The crate root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `testdata/profraw/<rel>`.
pub fn raw(rel: &str) -> PathBuf {
    root().join("testdata/profraw").join(rel)
}

/// All `.profraw` files under `testdata/profraw/<producer>`, sorted.
pub fn raws_of(producer: &str) -> Vec<PathBuf> {
    files_with_extension(&raw(producer), "profraw")
}

/// The files of `dir` (not below it) whose extension is `ext`, sorted; none if `dir` cannot
/// be read.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The first `n` lines where `a` and `b` differ, each as `line N: <la>: .. / <lb>: ..`, for
/// a failure message.
pub fn differing_lines(a: &str, b: &str, n: usize, la: &str, lb: &str) -> String {
    let pad = " ".repeat(la.len().max(lb.len()) + 7);
    a.lines()
        .zip(b.lines())
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .take(n)
        .map(|(i, (x, y))| format!("line {}: {la}: {x:?}\n{pad}{lb}: {y:?}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A fresh temporary directory for one test.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("pgo-merge-test-")
        .tempdir()
        .expect("temp dir")
}

/// Our binary.
pub fn pgo_merge() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pgo-merge"))
}

/// Runs our binary with `args`.
pub fn run_ours<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    pgo_merge().args(args).output().expect("run pgo-merge")
}

/// Asserts that a command succeeded, printing its output otherwise.
pub fn assert_ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({:?})\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// True when the CI asked for every tool to be present (missing tools then fail the test
/// instead of skipping it).
pub fn tools_required() -> bool {
    std::env::var_os("PGO_MERGE_REQUIRE_TOOLS").is_some_and(|v| v == "1")
}

/// Finds an executable on PATH. If it is missing, prints a loud SKIPPED line (or panics when
/// tools are required) and returns None.
pub fn tool(name: &str, test: &str) -> Option<PathBuf> {
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if tools_required() {
        panic!("{test}: required tool `{name}` is not on PATH (PGO_MERGE_REQUIRE_TOOLS=1)");
    }
    eprintln!("SKIPPED {test}: `{name}` is not installed (see .ci/run for how CI installs it)");
    None
}

/// The folder of third-party test files that the repository does not hold:
/// `../shared/testdata-external` beside the repository (CI has the same layout), or the folder
/// named by `PGO_MERGE_TESTDATA_EXTERNAL`.
pub fn external_dir() -> PathBuf {
    match std::env::var_os("PGO_MERGE_TESTDATA_EXTERNAL") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => root().join("../shared/testdata-external"),
    }
}

/// `rel` (e.g. `jitdump/x.dump`) in the third-party folder of [`external_dir`]. If it is
/// missing, prints a loud SKIPPED line and returns None (whether tools are required or not:
/// these are data files, not tools).
pub fn external(rel: &str, test: &str) -> Option<PathBuf> {
    let p = external_dir().join(rel);
    if p.is_file() {
        return Some(p);
    }
    eprintln!(
        "SKIPPED {test}: third-party test file {} is absent (it lives in shared/testdata-external/ beside the repository)",
        p.display()
    );
    None
}

/// Runs a tool and returns its output.
pub fn run(tool: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()))
}

/// The `show` views compared between our files and LLVM's: the standard command (with
/// and without CS records), the full text dump, binary IDs and temporal traces.
pub const SHOW_VIEWS: &[&[&str]] = &[
    &[
        "show",
        "--all-functions",
        "--counts",
        "--ic-targets",
        "--memop-sizes",
        "--detailed-summary",
    ],
    &[
        "show",
        "--all-functions",
        "--counts",
        "--ic-targets",
        "--memop-sizes",
        "--detailed-summary",
        "--showcs",
    ],
    &["show", "--text"],
    &["show", "--binary-ids"],
    &["show", "--temporal-profile-traces"],
];

/// Runs one `show` view of `file` with `llvm_profdata`; returns stdout with the file name
/// removed (so two files can be compared), or stderr prefixed by "FAILED:".
pub fn show(llvm_profdata: &Path, view: &[&str], file: &Path) -> String {
    let out = Command::new(llvm_profdata)
        .args(view)
        .arg(file)
        .output()
        .expect("run llvm-profdata show");
    let name = file.display().to_string();
    if !out.status.success() {
        return format!(
            "FAILED: {}",
            String::from_utf8_lossy(&out.stderr).replace(&name, "FILE")
        );
    }
    String::from_utf8_lossy(&out.stdout).replace(&name, "FILE")
}

/// Asserts that every show view of `ours` equals that of `theirs` (both read by the same
/// tool), with a readable diff on failure.
pub fn assert_same_show(llvm_profdata: &Path, ours: &Path, theirs: &Path, what: &str) {
    compare_views(llvm_profdata, ours, theirs, what, &[], false);
}

/// As [`assert_same_show`], skipping the views whose first option is in `skip`.
pub fn assert_same_show_except(
    llvm_profdata: &Path,
    ours: &Path,
    theirs: &Path,
    what: &str,
    skip: &[&str],
) {
    compare_views(llvm_profdata, ours, theirs, what, skip, false);
}

/// As [`assert_same_show`], but per-function blocks of `--all-functions` listings may come in
/// any order (needed for files written by llvm-profdata 16 and older, whose function order
/// follows a hash map's iteration).
pub fn assert_same_show_unordered(llvm_profdata: &Path, ours: &Path, theirs: &Path, what: &str) {
    compare_views(llvm_profdata, ours, theirs, what, &[], true);
}

/// Splits a `show --all-functions` listing into the lines outside function blocks and the
/// sorted function blocks (a block starts at a two-space-indented `name:` line).
fn canonical(listing: &str) -> String {
    let mut head = Vec::new();
    let mut blocks: Vec<String> = Vec::new();
    let mut in_block = false;
    for line in listing.lines() {
        let starts_block =
            line.starts_with("  ") && !line.starts_with("   ") && line.ends_with(':');
        let inside = line.starts_with("    ");
        if starts_block {
            blocks.push(format!("{line}\n"));
            in_block = true;
        } else if in_block && inside {
            if let Some(b) = blocks.last_mut() {
                b.push_str(line);
                b.push('\n');
            }
        } else {
            in_block = false;
            head.push(line.to_string());
        }
    }
    blocks.sort();
    format!("{}\n--- blocks ---\n{}", head.join("\n"), blocks.concat())
}

fn compare_views(
    llvm_profdata: &Path,
    ours: &Path,
    theirs: &Path,
    what: &str,
    skip: &[&str],
    unordered: bool,
) {
    for view in SHOW_VIEWS {
        if view.get(1).is_some_and(|o| skip.contains(o)) {
            continue;
        }
        let mut a = show(llvm_profdata, view, theirs);
        // Older tools lack some options; compare only views the tool has.
        if a.starts_with("FAILED:") && a.contains("Unknown command line argument") {
            continue;
        }
        let mut b = show(llvm_profdata, view, ours);
        if unordered {
            a = canonical(&a);
            b = canonical(&b);
        }
        if a != b {
            let diff = differing_lines(&a, &b, 10, "llvm", "ours");
            panic!(
                "{what}: `{} {}` differs ({} vs {} lines)\n{}",
                llvm_profdata.display(),
                view.join(" "),
                a.lines().count(),
                b.lines().count(),
                diff
            );
        }
    }
}

/// Raw version of a raw profile file (low 32 bits of the version word of its first profile).
pub fn raw_version(path: &Path) -> u32 {
    let b = std::fs::read(path).expect("read");
    let le = u64::from_le_bytes(b[0..8].try_into().unwrap());
    let w = if le == 0xff6c_7072_6f66_7281 || le == 0xff6c_7072_6f66_5281 {
        u64::from_le_bytes(b[8..16].try_into().unwrap())
    } else {
        u64::from_be_bytes(b[8..16].try_into().unwrap())
    };
    (w & 0xffff_ffff) as u32
}

/// The llvm-profdata that reads raw version `v` (each reads only its own raw version).
pub fn llvm_profdata_for_raw(v: u32) -> &'static str {
    match v {
        4 => "llvm-profdata-9",
        5 => "llvm-profdata-11",
        7 => "llvm-profdata-13",
        8 => "llvm-profdata-14",
        9 => "llvm-profdata-18",
        10 => "llvm-profdata-22",
        11 => "llvm-profdata-23",
        _ => panic!("no llvm-profdata for raw version {v}"),
    }
}

/// A directory holding a symlink `llvm-profdata` to our binary (the drop-in mode), kept
/// alive with the returned guard.
pub fn dropin() -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let link = dir.path().join("llvm-profdata");
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
    (dir, link)
}

/// All files with extension `ext` under `testdata/profdata`, sorted.
pub fn profdata_files(ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("testdata/profdata"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The llvm-profdata that wrote a testdata/profdata file (from its `-llvmN.` suffix).
pub fn writer_of(path: &Path) -> String {
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let n = stem.rsplit("-llvm").next().unwrap_or("22").to_string();
    format!("llvm-profdata-{n}")
}

/// Index version of an indexed profile.
pub fn index_version(path: &Path) -> u32 {
    let b = std::fs::read(path).expect("read");
    (u64::from_le_bytes(b[8..16].try_into().unwrap()) & 0xffff_ffff) as u32
}

/// Runs a command and returns (exit code, stdout, stderr).
pub fn run_full(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Fails the test unless at least `at_least + 1` comparisons ran and none of them differed,
/// listing the differences (`against`: whose output they differ from, e.g. "llvm-profdata-22",
/// or empty).
pub fn assert_no_differences(compared: usize, at_least: usize, diffs: &[String], against: &str) {
    assert!(compared > at_least, "only {compared} comparisons");
    let from = if against.is_empty() {
        String::new()
    } else {
        format!(" from {against}")
    };
    assert!(
        diffs.is_empty(),
        "{} of {compared} differ{from}:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// A small deterministic generator for generated test profiles (a 64-bit LCG, high bits).
pub struct Gen(pub u64);

impl Gen {
    /// The next number, below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// The roff page `page` as `man -l` renders it (100 columns, no pager, C locale), or None
/// (a SKIPPED line) without `man`.
pub fn man_rendered(page: &[u8], test: &str) -> Option<String> {
    let man = tool("man", test)?;
    let dir = tempdir();
    let file = dir.path().join("pgo-merge.1");
    std::fs::write(&file, page).unwrap();
    let out = Command::new(man)
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C")
        .arg("-l")
        .arg(&file)
        .output()
        .unwrap();
    assert_ok(&out, "man -l");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `out` if its process succeeded; otherwise fails the test naming `what`, with the exit
/// status and the standard error.
pub fn succeeded(out: std::process::Output, what: &str) -> std::process::Output {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
