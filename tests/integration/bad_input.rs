//! Bad input: truncated files at every offset, flipped and overwritten header bytes, sizes
//! that point past the end, counts that would overflow or allocate gigabytes, corrupted
//! records, value blocks, names and binary IDs, trailing garbage, empty and non-profile files,
//! directories. Each must give an error that names the file, the byte offset and what was
//! wrong; the CLI exits with 1, never panics, and leaves no output file (an older output file
//! stays as it was).
//!
//! Which prefixes of a file are complete (and must be read without error) is decided from
//! the format with the layout walker of `big_endian.rs`: a prefix is complete exactly when it
//! ends after the last value block of some profile and before the next profile's magic (only
//! zero padding removed).

use std::ffi::OsStr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pgo_merge::frontends::{self, profraw::NameCache};
use pgo_merge::passes::{FailureMode, MergeOptions, Weight};
use pgo_merge::pipeline::{InputSpec, merge_files};

use crate::big_endian::{RawLayout, to_big_endian, walk};
use crate::common::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// What reading some bytes through the library gave.
#[derive(Debug)]
enum Outcome {
    /// Read; number of records.
    Ok(usize),
    /// An error with its offset and message.
    Err { offset: Option<u64>, msg: String },
    /// The reader panicked.
    Panic(String),
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".into()
    }
}

/// `frontends::read` with a fresh name cache, panics caught.
fn read_lib(data: &[u8]) -> Outcome {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let cache = NameCache::new();
        frontends::read(data, &cache)
            .map(|r| r.profile.records.len())
            .map_err(|e| (e.offset(), e.to_string()))
    }));
    match r {
        Ok(Ok(n)) => Outcome::Ok(n),
        Ok(Err((offset, msg))) => Outcome::Err { offset, msg },
        Err(p) => Outcome::Panic(panic_text(p)),
    }
}

/// What `merge_files` gave for one input.
#[derive(Debug)]
enum MergeOutcome {
    Ok,
    Err {
        offset: Option<u64>,
        path: Option<PathBuf>,
        msg: String,
    },
    Panic(String),
}

fn merge_lib(paths: &[&Path], mode: FailureMode) -> MergeOutcome {
    let inputs: Vec<InputSpec> = paths
        .iter()
        .map(|p| InputSpec::new(p.to_path_buf(), Weight::ONE))
        .collect();
    let mut opts = MergeOptions::default();
    opts.failure_mode = mode;
    opts.threads = 1;
    match catch_unwind(AssertUnwindSafe(|| merge_files(&inputs, &opts, None))) {
        Ok(Ok(_)) => MergeOutcome::Ok,
        Ok(Err(e)) => MergeOutcome::Err {
            offset: e.offset(),
            path: e.path().map(Path::to_path_buf),
            msg: e.to_string(),
        },
        Err(p) => MergeOutcome::Panic(panic_text(p)),
    }
}

/// Prefix lengths that are complete files (see the module comment).
fn complete_prefix(layouts: &[RawLayout], len: usize, n: usize) -> bool {
    layouts.iter().enumerate().any(|(k, l)| {
        let next = layouts.get(k + 1).map_or(len, |m| m.start);
        l.end <= n && n <= next
    })
}

/// Fails with every problem listed (at most 100 shown).
fn report(test: &str, problems: &[String]) {
    if problems.is_empty() {
        return;
    }
    let shown: Vec<&str> = problems.iter().take(100).map(String::as_str).collect();
    panic!(
        "{test}: {} problem(s):\n  {}",
        problems.len(),
        shown.join("\n  ")
    );
}

fn set64(d: &mut [u8], at: usize, v: u64) {
    d[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
fn set32(d: &mut [u8], at: usize, v: u32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
fn get64(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap())
}
fn get32(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}
/// Writes a pointer-sized field.
fn set_ptr(d: &mut [u8], l: &RawLayout, at: usize, v: u64) {
    if l.w64 {
        set64(d, at, v)
    } else {
        set32(d, at, v as u32)
    }
}
fn get_ptr(d: &[u8], l: &RawLayout, at: usize) -> u64 {
    if l.w64 {
        get64(d, at)
    } else {
        u64::from(get32(d, at))
    }
}

fn read_file(rel: &str) -> Vec<u8> {
    std::fs::read(raw(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn code(out: &std::process::Output) -> Option<i32> {
    out.status.code()
}

/// Runs our binary with a 512 MiB address-space limit (and at most 2 malloc arenas, so that
/// the worker threads' arena reservations do not eat the limit) and a timeout; returns the output and
/// how long it took. A run that tries to allocate gigabytes aborts (and fails the caller's
/// exit-code check); one that hangs is killed.
fn run_limited(args: &[&OsStr], timeout: Duration) -> (std::process::Output, Duration) {
    let t0 = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 524288 && exec \"$0\" \"$@\"")
        .env("MALLOC_ARENA_MAX", "2")
        .arg(env!("CARGO_BIN_EXE_pgo-merge"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if t0.elapsed() > timeout {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().expect("output");
    (out, t0.elapsed())
}

// ---------------------------------------------------------------------------------------------
// Truncation at every offset

/// The files walked: the brief's set (v10 64-bit IR with value data, v10 -m32, v8, v11,
/// exe-and-shlib, MC/DC, temporal) plus one of every other raw version and layout feature.
const TRUNCATED: &[&str] = &[
    "clang22/ir-basic-run1.profraw",
    "clang22/ir-basic-m32-run1.profraw",
    "clang14/ir-basic-run2.profraw",
    "clang23/ir-basic-run1.profraw",
    "clang22/exe-and-shlib.profraw",
    "clang23/exe-and-shlib.profraw",
    "clang22/mcdc.profraw",
    "clang22/temporal-run1.profraw",
];
const TRUNCATED_EXTRA: &[&str] = &[
    "clang9/ir-basic-run1.profraw",
    "clang11/ir-basic-m32-run1.profraw",
    "clang13/exe-and-shlib.profraw",
    "clang14/entry-coverage.profraw",
    "clang14/exe-and-shlib.profraw",
    "clang18/mcdc-m32.profraw",
    "clang22/vtable-run1.profraw",
    "clang22/vtable-m32.profraw",
    "clang22/block-coverage.profraw",
    "clang22/debuginfo-correlate.profraw",
    "clang22/uncompressed-names.profraw",
    "clang23/mcdc-m32.profraw",
    "rustc/coverage.profraw",
    "be:clang22/ir-basic-run1.profraw",
    "be:clang22/vtable-m32.profraw",
    "be:clang23/exe-and-shlib.profraw",
    "be:clang14/ir-basic-m32-run2.profraw",
];

/// Reads every prefix of `rel` through `frontends::read` (and, if `via_merge`, through
/// `merge_files` on a file); returns the problems found.
fn walk_truncations(rel: &str, via_merge: bool, dir: &Path) -> Vec<String> {
    // "be:FILE" = the big-endian conversion of FILE (same layout).
    let (data, layouts) = match rel.strip_prefix("be:") {
        Some(f) => {
            let le = read_file(f);
            (to_big_endian(&le), walk(&le))
        }
        None => {
            let d = read_file(rel);
            let l = walk(&d);
            (d, l)
        }
    };
    let mut problems = Vec::new();
    let file = dir.join(rel.replace(['/', ':'], "-"));
    for n in 0..=data.len() {
        let prefix = &data[..n];
        let complete = complete_prefix(&layouts, data.len(), n);
        let lib = read_lib(prefix);
        match (&lib, complete) {
            (Outcome::Panic(p), _) => problems.push(format!("{rel} cut at {n:#x}: PANIC: {p}")),
            (Outcome::Ok(_), true) => {}
            (Outcome::Ok(r), false) => problems.push(format!(
                "{rel} cut at {n:#x}: read without error ({r} records) but the prefix is incomplete"
            )),
            (Outcome::Err { msg, .. }, true) => problems.push(format!(
                "{rel} cut at {n:#x}: the prefix is a complete file but reading fails: {msg}"
            )),
            (Outcome::Err { offset: None, msg }, false) => problems.push(format!(
                "{rel} cut at {n:#x}: error without an offset: {msg}"
            )),
            (
                Outcome::Err {
                    offset: Some(o),
                    msg,
                },
                false,
            ) => {
                if *o > n as u64 {
                    problems.push(format!(
                        "{rel} cut at {n:#x}: error offset {o:#x} is past the end of the data: {msg}"
                    ));
                }
                if !msg.contains(&format!("at offset {o:#x}: ")) {
                    problems.push(format!(
                        "{rel} cut at {n:#x}: message lacks its offset: {msg}"
                    ));
                }
            }
        }
        if !via_merge {
            continue;
        }
        std::fs::write(&file, prefix).unwrap();
        match (merge_lib(&[&file], FailureMode::Any), &lib) {
            (MergeOutcome::Panic(p), _) => {
                problems.push(format!("{rel} cut at {n:#x}: merge_files PANIC: {p}"))
            }
            (MergeOutcome::Ok, Outcome::Ok(_)) => {}
            (MergeOutcome::Ok, _) => problems.push(format!(
                "{rel} cut at {n:#x}: merge_files succeeded, read did not"
            )),
            (MergeOutcome::Err { msg, .. }, Outcome::Ok(_)) => problems.push(format!(
                "{rel} cut at {n:#x}: read succeeded, merge_files failed: {msg}"
            )),
            (MergeOutcome::Err { offset, path, msg }, _) => {
                if path.as_deref() != Some(file.as_path()) {
                    problems.push(format!(
                        "{rel} cut at {n:#x}: merge_files error path {path:?}: {msg}"
                    ));
                }
                if !msg.starts_with(&format!("{}: ", file.display())) {
                    problems.push(format!("{rel} cut at {n:#x}: merge_files message does not start with the path: {msg}"));
                }
                // Empty files have offset 0 too; every error about bytes carries one.
                let lib_offset = match &lib {
                    Outcome::Err { offset, .. } => *offset,
                    _ => None,
                };
                if offset != lib_offset || !msg.contains("at offset 0x") {
                    problems.push(format!(
                        "{rel} cut at {n:#x}: merge_files offset {offset:?} vs read {lib_offset:?}: {msg}"
                    ));
                }
            }
        }
    }
    // Sanity: the whole file reads (and has records, except correlation-mode files).
    assert!(
        matches!(read_lib(&data), Outcome::Ok(n) if n > 0) || rel.contains("correlate"),
        "{rel}"
    );
    problems
}

/// The brief's files, every prefix, through `frontends::read` and `merge_files`.
#[test]
fn truncated_at_every_offset_library_and_merge_files() {
    let dir = tempdir();
    let t0 = Instant::now();
    let mut problems = Vec::new();
    let mut prefixes = 0;
    for rel in TRUNCATED {
        prefixes += read_file(rel).len() + 1;
        problems.extend(walk_truncations(rel, true, dir.path()));
    }
    eprintln!(
        "truncation: {prefixes} prefixes of {} files in {:?}",
        TRUNCATED.len(),
        t0.elapsed()
    );
    report(
        "truncated_at_every_offset_library_and_merge_files",
        &problems,
    );
}

/// One file of every other raw version and feature, every prefix, through `frontends::read`.
#[test]
fn truncated_at_every_offset_other_versions() {
    let dir = tempdir();
    let mut problems = Vec::new();
    for rel in TRUNCATED_EXTRA {
        problems.extend(walk_truncations(rel, false, dir.path()));
    }
    report("truncated_at_every_offset_other_versions", &problems);
}

/// The same through the CLI for a sample of offsets (every 7th, plus every section boundary
/// and its neighbours): exit code 1, the path and "at offset 0x" on stderr, no output file,
/// and an output file that existed before is left unchanged.
#[test]
fn truncated_files_cli() {
    let dir = tempdir();
    let d = dir.path();
    let mut problems = Vec::new();
    let mut runs = 0;
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run1.profraw",
        "clang23/exe-and-shlib.profraw",
        "clang14/ir-basic-run2.profraw",
    ] {
        let data = read_file(rel);
        let layouts = walk(&data);
        let mut cuts: Vec<usize> = (0..data.len()).step_by(7).collect();
        for l in &layouts {
            for b in l.boundaries() {
                cuts.extend([b.saturating_sub(1), b, b + 1]);
            }
        }
        cuts.retain(|&n| n <= data.len());
        cuts.sort_unstable();
        cuts.dedup();
        let input = d.join(format!("cut-{}", rel.replace('/', "-")));
        for (i, &n) in cuts.iter().enumerate() {
            std::fs::write(&input, &data[..n]).unwrap();
            let output = d.join("out.profdata");
            let _ = std::fs::remove_file(&output);
            let previous = i % 2 == 1;
            if previous {
                std::fs::write(&output, b"previous output").unwrap();
            }
            let out = run_ours([input.as_os_str(), "-o".as_ref(), output.as_os_str()]);
            runs += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what = format!("{rel} cut at {n:#x}");
            if complete_prefix(&layouts, data.len(), n) {
                if code(&out) != Some(0) {
                    problems.push(format!(
                        "{what}: complete prefix, exit {:?}: {stderr}",
                        code(&out)
                    ));
                }
                continue;
            }
            if code(&out) != Some(1) {
                problems.push(format!(
                    "{what}: exit code {:?}, expected 1: {stderr}",
                    code(&out)
                ));
            }
            if !stderr.contains(&input.display().to_string()) || !stderr.contains("at offset 0x") {
                problems.push(format!(
                    "{what}: stderr lacks the path or the offset: {stderr}"
                ));
            }
            if stderr.contains("panicked") {
                problems.push(format!("{what}: PANIC: {stderr}"));
            }
            match (previous, std::fs::read(&output)) {
                (false, Ok(_)) => problems.push(format!("{what}: an output file was written")),
                (true, Ok(b)) if b != b"previous output" => {
                    problems.push(format!("{what}: the existing output file was changed"))
                }
                (true, Err(_)) => {
                    problems.push(format!("{what}: the existing output file was removed"))
                }
                _ => {}
            }
        }
    }
    // No temporary files are left behind.
    let left: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("cut-") && n != "out.profdata")
        .collect();
    assert!(
        left.is_empty(),
        "files left in the output directory: {left:?}"
    );
    eprintln!("truncated_files_cli: {runs} runs");
    report("truncated_files_cli", &problems);
}

// ---------------------------------------------------------------------------------------------
// Crafted corruptions

/// One corrupted input and what its error must say.
struct Case {
    name: String,
    bytes: Vec<u8>,
    /// Every fragment must be in the message.
    frags: Vec<String>,
    /// Accepted error offsets (empty: any offset, but there must be one).
    offsets: Vec<u64>,
}

fn case(name: impl Into<String>, bytes: Vec<u8>, frags: &[&str], offsets: &[u64]) -> Case {
    Case {
        name: name.into(),
        bytes,
        frags: frags.iter().map(|s| s.to_string()).collect(),
        offsets: offsets.to_vec(),
    }
}

/// Checks each case through `frontends::read`, `merge_files` and the CLI.
fn check_cases(test: &str, cases: &[Case]) {
    let dir = tempdir();
    let mut problems = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let what = format!("[{}]", c.name);
        // Library.
        let t0 = Instant::now();
        let lib = read_lib(&c.bytes);
        let took = t0.elapsed();
        if took > Duration::from_secs(2) {
            problems.push(format!("{what}: reading took {took:?}"));
        }
        let offset = match &lib {
            Outcome::Panic(p) => {
                problems.push(format!("{what}: PANIC: {p}"));
                continue;
            }
            Outcome::Ok(n) => {
                problems.push(format!("{what}: read without error ({n} records)"));
                continue;
            }
            Outcome::Err { offset: None, msg } => {
                problems.push(format!("{what}: error without offset: {msg}"));
                continue;
            }
            Outcome::Err {
                offset: Some(o),
                msg,
            } => {
                if !c.offsets.is_empty() && !c.offsets.contains(o) {
                    problems.push(format!(
                        "{what}: offset {o:#x}, expected one of {:x?}: {msg}",
                        c.offsets
                    ));
                }
                for f in &c.frags {
                    if !msg.contains(f.as_str()) {
                        problems.push(format!("{what}: message lacks {f:?}: {msg}"));
                    }
                }
                *o
            }
        };
        // merge_files: the same error, with the path.
        let input = dir.path().join(format!("case{i}.profraw"));
        std::fs::write(&input, &c.bytes).unwrap();
        match merge_lib(&[&input], FailureMode::Any) {
            MergeOutcome::Err {
                offset: o,
                path,
                msg,
            } => {
                if o != Some(offset) || path.as_deref() != Some(input.as_path()) {
                    problems.push(format!("{what}: merge_files error {o:?} {path:?}: {msg}"));
                }
            }
            other => problems.push(format!("{what}: merge_files gave {other:?}")),
        }
        // CLI: exit 1, path, offset and text on stderr, no output; under a memory limit.
        let output = dir.path().join(format!("case{i}.profdata"));
        let (out, took) = run_limited(
            &[input.as_os_str(), "-o".as_ref(), output.as_os_str()],
            Duration::from_secs(30),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        if code(&out) != Some(1) {
            problems.push(format!(
                "{what}: CLI exit {:?} ({:?}) after {took:?}, expected 1: {stderr}",
                code(&out),
                out.status
            ));
        }
        let want = format!("{}: at offset {offset:#x}: ", input.display());
        if !stderr.contains(&want) {
            problems.push(format!("{what}: CLI stderr lacks {want:?}: {stderr}"));
        }
        if output.exists() {
            problems.push(format!("{what}: CLI wrote an output file"));
        }
    }
    eprintln!("{test}: {} cases", cases.len());
    report(test, &problems);
}

/// A testdata file's bytes and the layout of each of its profiles.
fn load(rel: &str) -> (Vec<u8>, Vec<RawLayout>) {
    let d = read_file(rel);
    let l = walk(&d);
    (d, l)
}

#[test]
fn crafted_magic_versions_and_trailing_data() {
    let mut cases = Vec::new();
    let (d, _) = load("clang22/ir-basic-run1.profraw");
    let len = d.len() as u64;
    // Magic.
    for at in [0, 1, 6, 7] {
        let mut b = d.clone();
        b[at] ^= 0x01;
        cases.push(case(
            format!("magic byte {at} flipped"),
            b,
            &["unrecognised file format"],
            &[0],
        ));
    }
    // A 64-bit file whose magic says 32-bit: its records do not fit the 32-bit layout.
    let mut b = d.clone();
    b[1] = b'R';
    cases.push(case("64-bit file with the 32-bit magic", b, &[], &[]));
    // Unsupported version numbers, with and without flag bits.
    for v in [0u64, 1, 2, 3, 6, 12, 0xffff, 0x0100_0000_0000_000c] {
        let mut b = d.clone();
        set64(&mut b, 8, v);
        let shown = v & 0xffff_ffff;
        cases.push(case(
            format!("version {v:#x}"),
            b,
            &[&format!("raw profile version {shown} is not supported")],
            &[8],
        ));
    }
    // Trailing data after the last profile.
    let mut b = d.clone();
    b.extend_from_slice(b"garbage!");
    cases.push(case(
        "trailing garbage",
        b,
        &["data after the last profile", "67 61 72 62"],
        &[len],
    ));
    let mut b = d.clone();
    b.extend_from_slice(&[0, 0, 0, 0, 0, b'x', b'y', b'z']);
    cases.push(case(
        "zeros then garbage",
        b,
        &["data after the last profile"],
        &[len + 5],
    ));
    let mut b = d.clone();
    b.extend_from_slice(&d[..7]);
    cases.push(case(
        "trailing partial magic",
        b,
        &["data after the last profile"],
        &[len],
    ));
    let mut b = d.clone();
    b.extend_from_slice(&d[..40]);
    cases.push(case(
        "trailing partial header",
        b,
        &["raw profile header"],
        &[len],
    ));
    let mut b = d.clone();
    b.extend_from_slice(&to_big_endian(&d));
    cases.push(case(
        "second profile big-endian",
        b,
        &["64-bit big-endian but the first is 64-bit little-endian"],
        &[len],
    ));
    let m32 = read_file("clang22/ir-basic-m32-run1.profraw");
    let mut b = d.clone();
    b.extend_from_slice(&m32);
    cases.push(case(
        "second profile 32-bit",
        b,
        &["32-bit little-endian"],
        &[len],
    ));
    // The second profile of exe-and-shlib with a broken magic.
    let (e, els) = load("clang22/exe-and-shlib.profraw");
    assert_eq!(els.len(), 2);
    let s2 = els[1].start;
    let mut b = e.clone();
    b[s2 + 2] ^= 0xff;
    cases.push(case(
        "second profile magic",
        b,
        &["do not start another raw profile"],
        &[s2 as u64],
    ));
    let mut b = e.clone();
    set64(&mut b, s2 + 8, 6);
    cases.push(case(
        "second profile version 6",
        b,
        &["version 6 is not supported"],
        &[s2 as u64 + 8],
    ));
    check_cases("crafted_magic_versions_and_trailing_data", &cases);
}

/// Values written into header size/count fields: far past the end, overflowing when
/// multiplied by a record size or added to an offset, and just one byte past the end.
fn huge_values(len: usize) -> [u64; 7] {
    [
        u64::MAX,
        1 << 63,
        (1 << 61) + 1,
        1 << 40,
        (1 << 32) + 8,
        u64::from(u32::MAX),
        len as u64 + 1,
    ]
}

/// Cases: each of `fields` (that the file's header has) set to each huge value; the error
/// must name the field and be at the header start or at the field.
fn huge_field_cases(files: &[&str], fields: &[&str]) -> Vec<Case> {
    let mut cases = Vec::new();
    for rel in files {
        let (d, ls) = load(rel);
        for l in &ls {
            for field in fields {
                let Some(&(_, at)) = l.header_fields.iter().find(|(n, _)| n == field) else {
                    continue;
                };
                for v in huge_values(d.len()) {
                    let mut b = d.clone();
                    set64(&mut b, at, v);
                    cases.push(case(
                        format!("{rel}@{:#x} {field} = {v:#x}", l.start),
                        b,
                        &[field],
                        &[l.start as u64, at as u64],
                    ));
                }
            }
        }
    }
    cases
}

const SIZE_FIELDS: &[&str] = &[
    "BinaryIdsSize",
    "NumData",
    "NumCounters",
    "NumBitmapBytes",
    "NumUniformCounters",
    "NamesSize",
    "NumVTables",
    "VNamesSize",
];
const PADDING_FIELDS: &[&str] = &[
    "PaddingBytesBeforeCounters",
    "PaddingBytesAfterCounters",
    "PaddingBytesAfterBitmapBytes",
    "PaddingBytesAfterUniformCounters",
];

/// Header size and count fields (v8–v11, 64- and 32-bit, both profiles of a two-profile file)
/// set to values that point past the end or overflow: a quick error naming the field at the
/// header or the field, no allocation explosion (the CLI runs under a 512 MiB address-space
/// limit in `check_cases`).
#[test]
fn crafted_huge_header_sizes() {
    let cases = huge_field_cases(
        &[
            "clang22/ir-basic-run1.profraw",
            "clang22/vtable-m32.profraw",
            "clang23/ir-basic-run1.profraw",
            "clang23/exe-and-shlib.profraw",
            "clang14/ir-basic-run1.profraw",
            "clang18/mcdc.profraw",
        ],
        SIZE_FIELDS,
    );
    check_cases("crafted_huge_header_sizes", &cases);
}

/// The same for the padding fields.
#[test]
fn crafted_huge_header_paddings() {
    // Regression: a too large padding field used to be blamed on the section before it.
    let cases = huge_field_cases(
        &[
            "clang22/ir-basic-run1.profraw",
            "clang22/vtable-m32.profraw",
            "clang23/ir-basic-run1.profraw",
            "clang14/ir-basic-run1.profraw",
        ],
        PADDING_FIELDS,
    );
    check_cases("crafted_huge_header_paddings", &cases);
}

/// The same on the older headers (v4: 8 words, v5: 10 words, v7).
#[test]
fn crafted_huge_header_fields_v4_v5_v7() {
    // Regression: errors about v4/v5 header fields used to carry the v7+ offsets of those
    // fields.
    let fields: Vec<&str> = SIZE_FIELDS.iter().chain(PADDING_FIELDS).copied().collect();
    let cases = huge_field_cases(
        &[
            "clang9/ir-basic-run1.profraw",
            "clang11/ir-basic-run1.profraw",
            "clang13/ir-basic-m32-run1.profraw",
        ],
        &fields,
    )
    .into_iter()
    // The padding naming bug is covered above; keep only the overflowing padding values here.
    .filter(|c| {
        !PADDING_FIELDS.iter().any(|p| c.name.contains(p))
            || c.name.ends_with("= 0xffffffffffffffff")
    })
    .collect::<Vec<_>>();
    check_cases("crafted_huge_header_fields_v4_v5_v7", &cases);
}

/// Fields a reader must ignore (NamesDelta; BitmapDelta without bitmap bytes) and the advisory
/// ValueKindLast: any value reads, with the same result as the original file.
#[test]
fn ignored_header_fields() {
    let dir = tempdir();
    let mut problems = Vec::new();
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run1.profraw",
        "clang23/exe-and-shlib.profraw",
        "clang14/ir-basic-run1.profraw",
    ] {
        let (d, ls) = load(rel);
        let input = dir.path().join("orig.profraw");
        std::fs::write(&input, &d).unwrap();
        let reference = dir.path().join("orig.profdata");
        assert_ok(
            &run_ours([input.as_os_str(), "-o".as_ref(), reference.as_os_str()]),
            rel,
        );
        for l in &ls {
            let mut fields = vec!["NamesDelta", "ValueKindLast"];
            if l.bitmap.0 == l.bitmap.1 && l.header_fields.iter().any(|(n, _)| *n == "BitmapDelta")
            {
                fields.push("BitmapDelta");
            }
            for field in fields {
                for v in [0, 1, 5, 1 << 63, u64::MAX] {
                    let mut b = d.clone();
                    set64(&mut b, l.field(field), v);
                    let what = format!("{rel}@{:#x} {field} = {v:#x}", l.start);
                    match read_lib(&b) {
                        Outcome::Ok(_) => {}
                        // Regression: ValueKindLast = u64::MAX made `h.value_kind_last + 1`
                        // overflow (a panic in debug builds) in src/frontends/profraw/mod.rs.
                        other => {
                            problems.push(format!("{what}: {other:?}"));
                            continue;
                        }
                    }
                    let input = dir.path().join("changed.profraw");
                    std::fs::write(&input, &b).unwrap();
                    let output = dir.path().join("changed.profdata");
                    let out = run_ours([input.as_os_str(), "-o".as_ref(), output.as_os_str()]);
                    if !out.status.success()
                        || std::fs::read(&output).ok() != std::fs::read(&reference).ok()
                    {
                        problems.push(format!(
                            "{what}: CLI exit {:?} or different output: {}",
                            code(&out),
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                }
            }
        }
    }
    report("ignored_header_fields", &problems);
}

#[test]
fn crafted_data_records() {
    let mut cases = Vec::new();
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run1.profraw",
        "clang23/ir-basic-run1.profraw",
        "clang14/ir-basic-run1.profraw",
    ] {
        let (d, ls) = load(rel);
        let l = &ls[0];
        let r0 = l.records[0].at;
        let r1 = l.records[1].at;
        let (cp, _) = l.record_field("CounterPtr");
        let (nc, _) = l.record_field("NumCounters");
        let counters_bytes = (l.counters.1 - l.counters.0) as u64;
        // CounterPtr past the counters.
        let mut b = d.clone();
        let p = get_ptr(&d, l, r0 + cp);
        set_ptr(&mut b, l, r0 + cp, p.wrapping_add(counters_bytes + 8));
        cases.push(case(
            format!("{rel}: CounterPtr past the counters"),
            b,
            &[
                "counter pointer",
                "is greater than the maximum counter offset",
            ],
            &[r0 as u64],
        ));
        // CounterPtr before the counters.
        let mut b = d.clone();
        set_ptr(&mut b, l, r0 + cp, p.wrapping_sub(4096));
        cases.push(case(
            format!("{rel}: CounterPtr before the counters"),
            b,
            &["is negative"],
            &[r0 as u64],
        ));
        // Record NumCounters 0 and huge.
        let mut b = d.clone();
        set32(&mut b, r1 + nc, 0);
        cases.push(case(
            format!("{rel}: record 1 NumCounters 0"),
            b,
            &["number of counters is zero"],
            &[r1 as u64],
        ));
        let mut b = d.clone();
        set32(&mut b, r0 + nc, u32::MAX);
        cases.push(case(
            format!("{rel}: record 0 NumCounters u32::MAX"),
            b,
            &["number of counters 4294967295 is greater than the maximum number of counters"],
            &[r0 as u64],
        ));
        // Header NumCounters 0: the first record's counters are outside the (empty) section.
        let mut b = d.clone();
        set64(&mut b, l.field("NumCounters"), 0);
        cases.push(case(
            format!("{rel}: header NumCounters 0"),
            b,
            &["maximum counter offset -1"],
            &[r0 as u64],
        ));
    }
    // MC/DC: bitmap pointer and size.
    for rel in ["clang22/mcdc.profraw", "clang22/mcdc-m32.profraw"] {
        let (d, ls) = load(rel);
        let l = &ls[0];
        let (bp, _) = l.record_field("BitmapPtr");
        let (nb, _) = l.record_field("NumBitmapBytes");
        let r = l
            .records
            .iter()
            .find(|r| get32(&d, r.at + nb) > 0)
            .expect("a record with bitmap bytes");
        let mut b = d.clone();
        let p = get_ptr(&d, l, r.at + bp);
        set_ptr(&mut b, l, r.at + bp, p.wrapping_add(1 << 20));
        cases.push(case(
            format!("{rel}: BitmapPtr past the bitmap"),
            b,
            &["maximum bitmap offset"],
            &[r.at as u64],
        ));
        let mut b = d.clone();
        set32(&mut b, r.at + nb, 1 << 30);
        cases.push(case(
            format!("{rel}: NumBitmapBytes 2^30"),
            b,
            &["number of bitmap bytes 1073741824 is greater than the maximum"],
            &[r.at as u64],
        ));
    }
    check_cases("crafted_data_records", &cases);
}

#[test]
fn crafted_value_blocks() {
    let mut cases = Vec::new();
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run1.profraw",
        "clang22/vtable-run1.profraw",
        "clang23/vtable-m32.profraw",
        "clang14/ir-basic-run2.profraw",
    ] {
        let (d, ls) = load(rel);
        let l = &ls[0];
        // The first block with the most value kinds.
        let most = l
            .value_blocks
            .iter()
            .map(|b| b.kinds.len())
            .max()
            .expect("value blocks");
        let blk = l
            .value_blocks
            .iter()
            .find(|b| b.kinds.len() == most)
            .unwrap();
        let at = blk.at;
        let set = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut b = d.clone();
            f(&mut b);
            b
        };
        cases.push(case(
            format!("{rel}: TotalSize 13"),
            set(&|b| set32(b, at, 13)),
            &["total size 13 is not a non-zero multiple of 8"],
            &[at as u64],
        ));
        cases.push(case(
            format!("{rel}: TotalSize 0"),
            set(&|b| set32(b, at, 0)),
            &["total size 0"],
            &[at as u64],
        ));
        cases.push(case(
            format!("{rel}: TotalSize past the end"),
            set(&|b| set32(b, at, 0xffff_fff8)),
            &["value profile block", "4294967288 bytes needed"],
            &[at as u64],
        ));
        cases.push(case(
            format!("{rel}: TotalSize smaller than the records"),
            set(&|b| set32(b, at, blk.total as u32 - 16)),
            &["past the block's total size"],
            &[],
        ));
        cases.push(case(
            format!("{rel}: NumValueKinds 4"),
            set(&|b| set32(b, at + 4, 4)),
            &["number of value kinds in a value profile block is 4"],
            &[at as u64 + 4],
        ));
        let (k0, _, _, _) = blk.kinds[0];
        cases.push(case(
            format!("{rel}: kind 7"),
            set(&|b| set32(b, k0, 7)),
            &["value kind 7 is not 0, 1 or 2"],
            &[k0 as u64],
        ));
        let (kl, _, _, counts) = *blk.kinds.last().unwrap();
        cases.push(case(
            format!("{rel}: NumValueSites u32::MAX"),
            set(&|b| set32(b, kl + 4, u32::MAX)),
            &["4294967295 site counts run past the block's total size"],
            &[kl as u64],
        ));
        cases.push(case(
            format!("{rel}: site count 255"),
            set(&|b| b[counts] = 255),
            &["values run past the block's total size"],
            &[kl as u64],
        ));
        if blk.kinds.len() >= 2 {
            cases.push(case(
                format!("{rel}: kind repeated"),
                set(&|b| set32(b, kl, get32(&d, k0))),
                &["appears twice"],
                &[kl as u64],
            ));
        }
        // The last block cut short by a smaller file: TotalSize past the end of the data.
        let last = l.value_blocks.last().unwrap();
        let mut b = d[..last.at + last.total - 8].to_vec();
        b.truncate(last.at + last.total - 8);
        cases.push(case(
            format!("{rel}: last block cut"),
            b,
            &["value profile block"],
            &[last.at as u64],
        ));
    }
    check_cases("crafted_value_blocks", &cases);
}

/// Re-frames the first names chunk as `ULEB(u) ULEB(c) payload[..c]`, keeping NamesSize.
fn reframe_names(d: &[u8], l: &RawLayout, u: u64) -> (Vec<u8>, usize) {
    let (s, e) = l.names;
    let mut p = s;
    let mut read_uleb = || {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = d[p];
            p += 1;
            v |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return v;
            }
        }
    };
    let _ = read_uleb();
    let c = read_uleb();
    assert!(c > 0, "compressed names expected");
    let payload = p;
    let uleb = |mut v: u64, out: &mut Vec<u8>| loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            break;
        }
        out.push(b | 0x80);
    };
    let mut chunk = Vec::new();
    uleb(u, &mut chunk);
    // Compressed length: whatever is left of NamesSize.
    let room = (e - s) - chunk.len() - 1;
    uleb(room as u64, &mut chunk);
    assert_eq!(
        chunk.len() + room,
        e - s,
        "ULEB of the compressed length must be 1 byte"
    );
    let new_payload = s + chunk.len();
    chunk.extend_from_slice(&d[payload..payload + room.min(e - payload)]);
    chunk.resize(e - s, 0);
    let mut b = d.to_vec();
    b[s..e].copy_from_slice(&chunk);
    (b, new_payload)
}

#[test]
fn crafted_names_and_binary_ids() {
    let mut cases = Vec::new();
    let (d, ls) = load("clang22/ir-basic-run1.profraw");
    let l = &ls[0];
    let ns = l.names.0;
    // names: `6f 50 78 da ...` (U = 0x6f, C = 0x50, zlib payload).
    assert_eq!(&d[ns + 2..ns + 4], &[0x78, 0xda]);
    let payload = ns + 2;
    let plen = d[ns + 1] as usize;
    let mut b = d.clone();
    for x in &mut b[payload + 10..payload + 20] {
        *x ^= 0x5a;
    }
    cases.push(case(
        "corrupted zlib data",
        b,
        &["compressed names"],
        &(payload as u64..(payload + plen) as u64 + 1).collect::<Vec<_>>(),
    ));
    let mut b = d.clone();
    b[payload] = 0x00;
    cases.push(case(
        "corrupted zlib header",
        b,
        &["compressed names"],
        &[payload as u64, payload as u64 + 1, payload as u64 + 2],
    ));
    let mut b = d.clone();
    b[payload + plen - 1] ^= 0xff;
    cases.push(case(
        "corrupted adler32",
        b,
        &["compressed names"],
        &(payload as u64..(payload + plen) as u64 + 1).collect::<Vec<_>>(),
    ));
    let mut b = d.clone();
    b[ns] += 1;
    cases.push(case(
        "uncompressed length one too large",
        b,
        &["inflates to 111 bytes, the chunk announced 112"],
        &[],
    ));
    let mut b = d.clone();
    b[ns] -= 1;
    cases.push(case(
        "uncompressed length one too small",
        b,
        &["more than the announced 110 bytes"],
        &[],
    ));
    let (b, p) = reframe_names(&d, l, 1 << 40);
    cases.push(case(
        "uncompressed length 2^40",
        b,
        &["uncompressed length of a zlib names chunk is 1099511627776, above the limit"],
        &[p as u64],
    ));
    let (b, p) = reframe_names(&d, l, 200_000);
    cases.push(case(
        "uncompressed length 200000 from a 78-byte stream",
        b,
        &["uncompressed length of a zlib names chunk is 200000"],
        &[p as u64],
    ));
    let mut b = d.clone();
    b[ns + 1] = 0x7f;
    cases.push(case(
        "compressed length past NamesSize",
        b,
        &["names chunk: zlib data"],
        &[payload as u64],
    ));
    // Uncompressed names: U past NamesSize.
    let (u, uls) = load("clang22/uncompressed-names.profraw");
    let un = uls[0].names.0;
    assert_eq!(u[un + 1], 0, "plain chunk expected");
    let mut b = u.clone();
    b[un] = 0x7f;
    cases.push(case(
        "plain names longer than NamesSize",
        b,
        &["names chunk: uncompressed names"],
        &[un as u64 + 2],
    ));

    // Binary IDs: length 0, too long, huge; BinaryIdsSize smaller than one entry.
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang14/ir-basic-run1.profraw",
        "clang23/exe-and-shlib.profraw",
    ] {
        let (d, ls) = load(rel);
        for l in &ls {
            let (at, len) = l.binary_id_entries[0];
            assert_eq!(len, 20);
            let mut b = d.clone();
            set64(&mut b, at, 0);
            cases.push(case(
                format!("{rel}@{:#x}: binary id length 0", l.start),
                b,
                &["binary id length is 0"],
                &[at as u64],
            ));
            for v in [25u64, 1 << 40, u64::MAX] {
                let mut b = d.clone();
                set64(&mut b, at, v);
                cases.push(case(
                    format!("{rel}@{:#x}: binary id length {v:#x}", l.start),
                    b,
                    &["binary ID bytes", &format!("{v} bytes needed, 24 left")],
                    &[at as u64 + 8],
                ));
            }
            let mut b = d.clone();
            set64(&mut b, l.field("BinaryIdsSize"), 4);
            cases.push(case(
                format!("{rel}@{:#x}: BinaryIdsSize 4", l.start),
                b,
                &["binary ID length"],
                &[at as u64],
            ));
        }
    }
    check_cases("crafted_names_and_binary_ids", &cases);
}

/// A counter above 2^56 makes the input corrupt (as in llvm-profdata 19+, which then merges
/// nothing from it); exactly 2^56 is fine. The reader only flags it; merge_files and the CLI
/// reject the file with its path and the counter's offset.
#[test]
fn implausibly_large_counter() {
    let dir = tempdir();
    let d = dir.path();
    let llvm = tool("llvm-profdata-22", "implausibly_large_counter");
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run1.profraw",
    ] {
        let (data, ls) = load(rel);
        let at = ls[0].counters.1 - 8;
        for (v, bad) in [(1u64 << 56, false), ((1 << 56) + 1, true), (u64::MAX, true)] {
            let mut b = data.clone();
            set64(&mut b, at, v);
            let input = d.join(format!("counter-{v:x}.profraw"));
            std::fs::write(&input, &b).unwrap();
            let output = d.join("out.profdata");
            let _ = std::fs::remove_file(&output);
            let out = run_ours([input.as_os_str(), "-o".as_ref(), output.as_os_str()]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if bad {
                assert_eq!(code(&out), Some(1), "{rel} counter {v:#x}: {stderr}");
                let want = format!("{}: at offset {at:#x}: ", input.display());
                assert!(
                    stderr.contains(&want) && stderr.contains("excessively large counter value"),
                    "{rel} counter {v:#x}: expected {want:?}: {stderr}"
                );
                assert!(!output.exists());
                // merge_files: the same error.
                match merge_lib(&[&input], FailureMode::Any) {
                    MergeOutcome::Err {
                        offset: Some(o),
                        path: Some(p),
                        ..
                    } if o == at as u64 && p == input => {}
                    other => panic!("{rel} counter {v:#x}: merge_files gave {other:?}"),
                }
            } else {
                assert_eq!(code(&out), Some(0), "{rel} counter {v:#x}: {stderr}");
            }
            // llvm-profdata agrees on accepting or rejecting the file.
            if let Some(t) = &llvm {
                let theirs = d.join("llvm.profdata");
                let o = Command::new(t)
                    .arg("merge")
                    .arg("-o")
                    .arg(&theirs)
                    .arg(&input)
                    .output()
                    .unwrap();
                assert_eq!(
                    o.status.success(),
                    !bad,
                    "{rel} counter {v:#x}: llvm-profdata-22: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Flipped header bits

/// Every bit of the header of several files flipped, one at a time: never a panic, every error
/// has an offset inside the file, the magic and the version number are always rejected, and
/// fields readers must ignore (NamesDelta; BitmapDelta without bitmap bytes) never cause an
/// error.
#[test]
fn flipped_header_bits() {
    let mut problems = Vec::new();
    let mut errors = 0;
    let mut total = 0;
    for rel in [
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run1.profraw",
        "clang23/vtable-run1.profraw",
        "clang14/ir-basic-run1.profraw",
        "clang22/mcdc.profraw",
        "clang22/exe-and-shlib.profraw",
    ] {
        let (d, ls) = load(rel);
        for l in &ls {
            for byte in l.start..l.start + l.header_size {
                let field = l
                    .header_fields
                    .iter()
                    .rev()
                    .find(|(_, o)| *o <= byte)
                    .unwrap()
                    .0;
                for bit in 0..8 {
                    let mut b = d.clone();
                    b[byte] ^= 1 << bit;
                    total += 1;
                    let what = format!("{rel}: bit {bit} of byte {byte:#x} ({field})");
                    match read_lib(&b) {
                        Outcome::Panic(p) => problems.push(format!("{what}: PANIC {p}")),
                        Outcome::Err { offset: None, msg } => {
                            problems.push(format!("{what}: error without offset: {msg}"))
                        }
                        Outcome::Err {
                            offset: Some(o),
                            msg,
                        } => {
                            errors += 1;
                            if o > b.len() as u64 {
                                problems.push(format!("{what}: offset {o:#x} past the end: {msg}"));
                            }
                            let ignored = field == "NamesDelta"
                                || (field == "BitmapDelta" && l.bitmap.0 == l.bitmap.1);
                            if ignored {
                                problems.push(format!(
                                    "{what}: an ignored field caused an error: {msg}"
                                ));
                            }
                        }
                        Outcome::Ok(_) => {
                            let must_fail =
                                field == "Magic" || (field == "Version" && byte - l.start < 12);
                            if must_fail {
                                problems.push(format!("{what}: read without error"));
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!("flipped_header_bits: {total} flips, {errors} errors");
    report("flipped_header_bits", &problems);
}

// ---------------------------------------------------------------------------------------------
// Not a profile at all

#[test]
fn empty_foreign_and_directory_inputs() {
    let dir = tempdir();
    let d = dir.path();
    let mut problems = Vec::new();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let random: Vec<u8> = (0..4096)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng >> 24) as u8 | 0x80
        })
        .collect();
    let elf = std::fs::read("/bin/ls")
        .map(|b| b[..4096].to_vec())
        .unwrap_or_else(|_| {
            let mut b = b"\x7fELF\x02\x01\x01\x00".to_vec();
            b.resize(64, 0);
            b
        });
    let profdata = {
        let o = d.join("real.profdata");
        assert_ok(
            &run_ours([
                raw("clang22/ir-basic-run1.profraw").as_os_str(),
                "-o".as_ref(),
                o.as_os_str(),
            ]),
            "profdata",
        );
        std::fs::read(&o).unwrap()
    };
    for (name, bytes, frag, offset) in [
        ("empty.profraw", Vec::new(), "the file is empty", 0),
        (
            "elf.profraw",
            elf,
            "unrecognised file format (first bytes 7f 45 4c 46",
            0,
        ),
        ("random.profraw", random, "unrecognised file format", 0),
        // A file cut inside a magic is reported as cut, not as a foreign format.
        (
            "one-byte.profraw",
            vec![0x81],
            "unexpected end of data reading profile magic",
            0,
        ),
        (
            "seven-bytes.profraw",
            read_file("clang22/ir-basic-run1.profraw")[..7].to_vec(),
            "unexpected end of data reading profile magic",
            0,
        ),
        (
            "two-random-bytes.profraw",
            vec![0x13, 0x37],
            "unrecognised file format",
            0,
        ),
        // The indexed magic alone: the indexed reader wants the version word at 8.
        (
            "indexed-magic-only.profraw",
            profdata[..8].to_vec(),
            "indexed profile header",
            8,
        ),
    ] {
        let input = d.join(name);
        std::fs::write(&input, &bytes).unwrap();
        match read_lib(&bytes) {
            Outcome::Err {
                offset: Some(o),
                msg,
            } if o == offset && msg.contains(frag) => {}
            other => problems.push(format!(
                "{name}: read gave {other:?}, expected an error at offset {offset} with {frag:?}"
            )),
        }
        let output = d.join("out.profdata");
        let _ = std::fs::remove_file(&output);
        let out = run_ours([input.as_os_str(), "-o".as_ref(), output.as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if code(&out) != Some(1)
            || !stderr.contains(&format!("{}: at offset 0x", input.display()))
            || !stderr.contains(frag)
            || output.exists()
        {
            problems.push(format!(
                "{name}: CLI exit {:?}, output exists {}: {stderr}",
                code(&out),
                output.exists()
            ));
        }
    }

    // Text that is not a profile: the text reader's error names the file and a line.
    let text = d.join("text.profraw");
    std::fs::write(&text, "hello, world\n").unwrap();
    let output = d.join("out.profdata");
    let _ = std::fs::remove_file(&output);
    let out = run_ours([text.as_os_str(), "-o".as_ref(), output.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if code(&out) != Some(1)
        || !stderr.contains(&format!("{}: ", text.display()))
        || output.exists()
    {
        problems.push(format!("CLI, text file: exit {:?}: {stderr}", code(&out)));
    }

    // A directory given to the library is an error naming it (no byte offset: nothing read).
    let sub = d.join("dir.profraw");
    std::fs::create_dir(&sub).unwrap();
    match merge_lib(&[&sub], FailureMode::Any) {
        MergeOutcome::Err {
            path: Some(p), msg, ..
        } if p == sub && msg.contains("is a directory") => {}
        other => problems.push(format!("library, directory input: {other:?}")),
    }
    // The CLI searches directories for profiles: a bad profile inside is named.
    let tree = d.join("tree");
    std::fs::create_dir_all(tree.join("nested")).unwrap();
    let bad = tree.join("nested/bad.profraw");
    std::fs::write(&bad, &read_file("clang22/ir-basic-run1.profraw")[..500]).unwrap();
    let _ = std::fs::remove_file(&output);
    let out = run_ours([tree.as_os_str(), "-o".as_ref(), output.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if code(&out) != Some(1)
        || !stderr.contains(&format!("{}: at offset 0x", bad.display()))
        || output.exists()
    {
        problems.push(format!(
            "CLI, directory holding a bad profile: exit {:?}: {stderr}",
            code(&out)
        ));
    }
    // A directory that holds no profile.
    let empty = d.join("empty-dir");
    std::fs::create_dir(&empty).unwrap();
    let out = run_ours([empty.as_os_str(), "-o".as_ref(), output.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // An input directory without profiles is a bad input (exit 1), named in the message.
    if code(&out) != Some(1) || !stderr.contains(&empty.display().to_string()) || output.exists() {
        problems.push(format!(
            "CLI, directory without profiles: exit {:?}: {stderr}",
            code(&out)
        ));
    }
    // A symlink named like a profile that points at a directory, inside a searched directory:
    // followed, as llvm-profdata follows it; the directory behind it is empty, so the
    // searched directory holds no profile.
    let links = d.join("links");
    std::fs::create_dir(&links).unwrap();
    std::os::unix::fs::symlink(&sub, links.join("link.profraw")).unwrap();
    let out = run_ours([links.as_os_str(), "-o".as_ref(), output.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if code(&out) != Some(1)
        || !stderr.contains(&format!("{}: the directory holds no", links.display()))
        || output.exists()
    {
        problems.push(format!(
            "CLI, symlink to a directory: exit {:?}: {stderr}",
            code(&out)
        ));
    }
    // A file that does not exist.
    let missing = d.join("missing.profraw");
    let out = run_ours([missing.as_os_str(), "-o".as_ref(), output.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A missing input file is an I/O error (exit 1), as the CLI documents.
    if code(&out) != Some(1) || !stderr.contains(&missing.display().to_string()) || output.exists()
    {
        problems.push(format!(
            "CLI, missing input file: exit {:?}: {stderr}",
            code(&out)
        ));
    }
    report("empty_foreign_and_directory_inputs", &problems);
}

// ---------------------------------------------------------------------------------------------
// --failure-mode

#[test]
fn failure_modes_with_one_good_and_one_bad_input() {
    let dir = tempdir();
    let d = dir.path();
    let good = raw("clang22/ir-basic-run1.profraw");
    let bad = d.join("bad.profraw");
    std::fs::write(&bad, &std::fs::read(&good).unwrap()[..700]).unwrap();
    let reference = d.join("good-only.profdata");
    assert_ok(
        &run_ours([good.as_os_str(), "-o".as_ref(), reference.as_os_str()]),
        "good input alone",
    );
    for (mode, order) in [("all", 0), ("warn", 0), ("all", 1), ("warn", 1)] {
        let output = d.join(format!("{mode}-{order}.profdata"));
        let mode_arg = format!("--failure-mode={mode}");
        let (a, b) = if order == 0 {
            (&good, &bad)
        } else {
            (&bad, &good)
        };
        let out = run_ours([
            mode_arg.as_ref(),
            a.as_os_str(),
            b.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
        ]);
        assert_ok(&out, &format!("{mode_arg} with one bad input"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("warning")
                && stderr.contains(&format!("{}: at offset 0x", bad.display())),
            "{mode_arg}: the warning must name the bad file and the offset: {stderr}"
        );
        assert!(stderr.contains("1 of 2 inputs"), "{mode_arg}: {stderr}");
        assert_eq!(
            std::fs::read(&output).unwrap(),
            std::fs::read(&reference).unwrap(),
            "{mode_arg}: output differs from the good input alone"
        );
    }
    // The default (any) and an explicit any: exit 1, error names the file, no output; an
    // existing output stays.
    for args in [vec![], vec!["--failure-mode=any"]] {
        let output = d.join("any.profdata");
        std::fs::write(&output, b"previous").unwrap();
        let mut all: Vec<&OsStr> = args.iter().map(|s| s.as_ref()).collect();
        all.extend([
            good.as_os_str(),
            bad.as_os_str(),
            "-o".as_ref(),
            output.as_os_str(),
        ]);
        let out = run_ours(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(&out), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{}: at offset 0x", bad.display())),
            "{args:?}: {stderr}"
        );
        assert_eq!(
            std::fs::read(&output).unwrap(),
            b"previous",
            "{args:?}: output changed"
        );
    }
    // --failure-mode=warn with only bad inputs writes an empty profile and exits 0, as
    // llvm-profdata does.
    let output = d.join("warn-bad.profdata");
    let out = run_ours([
        "--failure-mode=warn".as_ref(),
        bad.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
    ]);
    assert_ok(&out, "--failure-mode=warn, every input bad");
    assert!(
        output.exists()
            && String::from_utf8_lossy(&out.stderr).contains(&bad.display().to_string())
    );
    // --failure-mode=all with only bad inputs fails.
    let output = d.join("all-bad.profdata");
    let out = run_ours([
        "--failure-mode=all".as_ref(),
        bad.as_os_str(),
        bad.as_os_str(),
        "-o".as_ref(),
        output.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(&out), Some(1), "all, every input bad: {stderr}");
    assert!(
        stderr.contains(&bad.display().to_string()) && !output.exists(),
        "{stderr}"
    );
}

// ---------------------------------------------------------------------------------------------
// Property test: random mutations of real files

mod prop {
    use super::*;
    use proptest::prelude::*;

    const FILES: &[&str] = &[
        "clang22/ir-basic-run1.profraw",
        "clang22/ir-basic-m32-run2.profraw",
        "clang23/vtable-run1.profraw",
        "clang23/exe-and-shlib.profraw",
        "clang14/ir-basic-run1.profraw",
        "clang14/entry-coverage.profraw",
        "clang22/mcdc.profraw",
        "clang22/temporal-run1.profraw",
        "clang13/exe-and-shlib.profraw",
        "clang9/ir-basic-run1.profraw",
        "clang11/ir-basic-run1.profraw",
        "clang18/mcdc-m32.profraw",
    ];

    #[derive(Debug, Clone)]
    enum Mutation {
        /// Flip one bit; `front` puts it in the header and data records.
        FlipBit { pos: usize, bit: u8, front: bool },
        /// Overwrite one byte.
        SetByte { pos: usize, value: u8, front: bool },
        /// Overwrite an aligned u64 (or u32) with an interesting value.
        SetWord {
            pos: usize,
            value: u64,
            wide: bool,
            front: bool,
        },
        /// Delete a range.
        Delete { pos: usize, len: usize },
        /// Insert bytes.
        Insert { pos: usize, bytes: Vec<u8> },
    }

    fn interesting() -> impl Strategy<Value = u64> {
        prop_oneof![
            Just(0u64),
            Just(1),
            Just(u64::MAX),
            Just(u64::from(u32::MAX)),
            Just(1 << 63),
            Just(1 << 32),
            Just(0x7fff_ffff_ffff_fff8),
            0u64..4096,
            any::<u64>(),
        ]
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            3 => (any::<usize>(), 0u8..8, any::<bool>()).prop_map(|(pos, bit, front)| Mutation::FlipBit { pos, bit, front }),
            2 => (any::<usize>(), any::<u8>(), any::<bool>()).prop_map(|(pos, value, front)| Mutation::SetByte { pos, value, front }),
            3 => (any::<usize>(), interesting(), any::<bool>(), any::<bool>())
                .prop_map(|(pos, value, wide, front)| Mutation::SetWord { pos, value, wide, front }),
            1 => (any::<usize>(), 1usize..64).prop_map(|(pos, len)| Mutation::Delete { pos, len }),
            1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..32))
                .prop_map(|(pos, bytes)| Mutation::Insert { pos, bytes }),
        ]
    }

    fn apply(d: &mut Vec<u8>, front_len: usize, m: &Mutation) {
        if d.is_empty() {
            return;
        }
        let pick = |pos: usize, front: bool, len: usize| {
            if front {
                pos % front_len.min(len)
            } else {
                pos % len
            }
        };
        match m {
            Mutation::FlipBit { pos, bit, front } => {
                let p = pick(*pos, *front, d.len());
                d[p] ^= 1 << bit;
            }
            Mutation::SetByte { pos, value, front } => {
                let p = pick(*pos, *front, d.len());
                d[p] = *value;
            }
            Mutation::SetWord {
                pos,
                value,
                wide,
                front,
            } => {
                let w = if *wide { 8 } else { 4 };
                if d.len() < w {
                    return;
                }
                let p = pick(*pos, *front, d.len() - w + 1) / w * w;
                if *wide {
                    d[p..p + 8].copy_from_slice(&value.to_le_bytes());
                } else {
                    d[p..p + 4].copy_from_slice(&(*value as u32).to_le_bytes());
                }
            }
            Mutation::Delete { pos, len } => {
                let p = pos % d.len();
                let e = (p + len).min(d.len());
                d.drain(p..e);
            }
            Mutation::Insert { pos, bytes } => {
                let p = pos % (d.len() + 1);
                d.splice(p..p, bytes.iter().copied());
            }
        }
    }

    proptest! {
            #![proptest_config(ProptestConfig {
                cases: 256,
                failure_persistence: None,
                // Reproducible by default; PROPTEST_RNG_SEED=<n> explores other inputs.
                rng_seed: if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
                    ProptestConfig::default().rng_seed
                } else {
                    proptest::test_runner::RngSeed::Fixed(0x5eed_0fba_d1ed)
                },
                .. ProptestConfig::default()
            })]

            /// Reading a mutated real file never panics and every error has an offset inside the
            /// data; when it reads, merging and writing the result never panic either.
            #[test]
            fn mutated_profiles_never_panic(file in 0..FILES.len(), big_endian in any::<bool>(), muts in proptest::collection::vec(mutation(), 1..6)) {
                let mut d = std::fs::read(raw(FILES[file])).unwrap();
                let ls = walk(&d);
                if big_endian {
                    d = to_big_endian(&d);
                }
                // "Front" = header, binary IDs and data records of the first profile.
                let front_len = ls[0].data.1;
                for m in &muts {
                    apply(&mut d, front_len, m);
                }
                match read_lib(&d) {
                    Outcome::Panic(p) => prop_assert!(false, "PANIC reading {} (big-endian: {}) after {:?}: {}", FILES[file], big_endian, muts, p),
                    Outcome::Err { offset, msg } => {
                        prop_assert!(offset.is_some(), "error without offset: {}", msg);
                        prop_assert!(offset.unwrap() <= d.len() as u64, "offset past the end: {}", msg);
                    }
                    Outcome::Ok(_) => {
                        let r = catch_unwind(AssertUnwindSafe(|| {
                            let cache = NameCache::new();
                            let read = frontends::read(&d, &cache).unwrap();
                            let path = Path::new("mutated.profraw");
                            let merged = pgo_merge::passes::merge_profiles(
                                &[(&read.profile, Weight::ONE, path)],
                                &{ let mut new_merge_options = MergeOptions::default();
    new_merge_options.failure_mode = FailureMode::Warn;
    new_merge_options.threads = 1;
    new_merge_options },
                            );
                            if let Ok(m) = merged {
                                let _ = pgo_merge::backends::profdata::write(&m.profile, &Default::default());
                            }
                        }));
                        prop_assert!(r.is_ok(), "PANIC merging/writing {} (big-endian: {}) after {:?}: {}", FILES[file], big_endian, muts, panic_text(r.unwrap_err()));
                    }
                }
            }
        }
}
