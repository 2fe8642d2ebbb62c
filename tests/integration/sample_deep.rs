//! Sample profiles as deep as llvm-profdata takes them: a calling context of 20,000 frames
//! (`--convert-sample-profile-layout=nest` once overflowed the stack on it), and inlined
//! callees nested 20,000 levels deep, written and read back in every encoding (our readers
//! once refused more than 256 levels of text and 128 of binary, below what `nest` writes).
//! Every run of ours has the default 8 MiB stack limit and must succeed, never die of a
//! signal; outputs are compared byte for byte with llvm-profdata-19, -22 and -23 where those
//! succeed (they overflow their own stack at some depth: see docs/sample-profiles.md).

use std::ffi::{OsStr, OsString};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// Nesting depth of the binary and extbinary cases (the issue's).
const LEVELS: usize = 20_000;

/// Nesting depth of the text cases: text indents every line by its depth, so its size grows
/// with the square of the depth (20,000 levels take 400 MB); 4,000 levels (16 MB) are far
/// past the former limit and quick to check.
const TEXT_LEVELS: usize = 4_000;

/// Nesting depth of the JSON case (see its test).
const JSON_LEVELS: usize = 500;

/// Nesting depth of the `show` dump case (see its test).
const SHOW_LEVELS: usize = 2_000;

/// The default stack limit of a Linux process (`ulimit -s`), in bytes.
const DEFAULT_STACK: u64 = 8 << 20;

/// Runs our binary (`program`: itself, or a drop-in link to it) with `args` under the
/// default 8 MiB stack limit.
fn ours(program: &Path, args: &[&OsStr]) -> Output {
    let mut c = Command::new(program);
    c.args(args).env_remove("PGO_MERGE_TARGET_LLVM");
    // SAFETY: only an async-signal-safe system call between fork and exec.
    unsafe {
        c.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: DEFAULT_STACK,
                rlim_max: DEFAULT_STACK,
            };
            if libc::setrlimit(libc::RLIMIT_STACK, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    c.output().expect("run pgo-merge")
}

/// Asserts that our run ended normally and succeeded: no signal (a stack overflow aborts),
/// no panic.
fn assert_succeeded(out: &Output, what: &str) {
    assert_eq!(
        out.status.signal(),
        None,
        "{what}: killed by a signal\nstderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ok(out, what);
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// Runs ours (`program`) with `args` and returns stdout, asserting success.
fn ours_ok(program: &Path, args: &[OsString], what: &str) -> Vec<u8> {
    let refs: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
    let out = ours(program, &refs);
    assert_succeeded(&out, what);
    out.stdout
}

/// The real llvm-profdata releases that are installed (none is required: each missing one
/// prints SKIPPED).
fn real_tools(test: &str) -> Vec<PathBuf> {
    ["llvm-profdata-19", "llvm-profdata-22", "llvm-profdata-23"]
        .into_iter()
        .filter_map(|t| tool(t, test))
        .collect()
}

/// A drop-in link to our binary named as the release the comparisons are with.
fn dropin() -> (tempfile::TempDir, PathBuf) {
    crate::sample_options::dropin_named("llvm-profdata-22")
}

/// Runs a real tool; its stdout, or None when it fails (LLVM recurses on its stack, so it
/// may overflow it on these shapes).
fn real(tool: &Path, args: &[OsString]) -> Result<Vec<u8>, String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", tool.display()));
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "{:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A binary (`SPF_Binary`) profile of one function `f0` that inlines `f1` at line 2, which
/// inlines `f2`, … `levels` deep; each level has one body line and a call target.
fn nested_binary(levels: usize) -> Vec<u8> {
    let mut v = Vec::new();
    uleb(&mut v, 0x5350_524f_4634_32ff);
    uleb(&mut v, 103);
    // Summary: total, max count, max function count, counts, functions, no detailed entries.
    for x in [levels as u64, 1, 10, levels as u64, 1, 0] {
        uleb(&mut v, x);
    }
    uleb(&mut v, levels as u64 + 1);
    for i in 0..levels {
        v.extend_from_slice(format!("f{i}\0").as_bytes());
    }
    v.extend_from_slice(b"target\0");
    uleb(&mut v, 10); // head samples
    uleb(&mut v, 0); // name index
    for d in 0..levels {
        // Total; one body record at 1.0 with 1 sample and one call target.
        for x in [(2 * levels - d) as u64, 1, 1, 0, 1, 1, levels as u64, 3] {
            uleb(&mut v, x);
        }
        if d + 1 < levels {
            for x in [1, 2, 0, d as u64 + 1] {
                uleb(&mut v, x); // one callsite at 2.0, callee f{d+1}
            }
        } else {
            uleb(&mut v, 0);
        }
    }
    v
}

/// The issue's calling context: `[f0:1 @ f1:1 @ … @ f19999]` with 100 samples.
fn deep_context(frames: usize) -> String {
    let mut s = String::from("[");
    for i in 0..frames - 1 {
        s.push_str(&format!("f{i}:1 @ "));
    }
    s.push_str(&format!("f{}]:100:10\n 1: 10\n", frames - 1));
    s
}

#[test]
fn a_context_of_20000_frames_nests_on_the_default_stack() {
    let test = "a_context_of_20000_frames_nests_on_the_default_stack";
    let dir = tempdir();
    let input = dir.path().join("d.txt");
    std::fs::write(&input, deep_context(LEVELS)).unwrap();
    let tools = real_tools(test);
    for fmt in ["--extbinary", "--text"] {
        let out = dir.path().join("ours.out");
        let mut args = os(&["merge", "--sample", fmt]);
        args.push(input.clone().into());
        args.extend(os(&["--convert-sample-profile-layout", "nest", "-o"]));
        args.push(out.clone().into());
        let native = PathBuf::from(env!("CARGO_BIN_EXE_pgo-merge"));
        ours_ok(&native, &args[1..], &format!("nest {fmt}"));
        let ours_bytes = std::fs::read(&out).unwrap();
        for t in &tools {
            let theirs = dir.path().join("theirs.out");
            args.pop();
            args.push(theirs.clone().into());
            if real(t, &args).is_ok() {
                assert!(
                    ours_bytes == std::fs::read(&theirs).unwrap(),
                    "nest {fmt}: ours differs from {}",
                    t.display()
                );
            }
        }
    }
}

/// Merges `input` into `fmt` with ours (and the real tools, compared where they succeed);
/// returns our output's path.
fn convert(dir: &Path, dropin: &Path, input: &Path, fmt: &str, tools: &[PathBuf]) -> PathBuf {
    let out = dir.join(format!("ours.{}", fmt.trim_start_matches('-')));
    let mut args = os(&["merge", "--sample", fmt]);
    args.push(input.into());
    args.push("-o".into());
    args.push(out.clone().into());
    ours_ok(dropin, &args, &format!("write {fmt}"));
    let ours_bytes = std::fs::read(&out).unwrap();
    let theirs = dir.join("theirs");
    for t in tools {
        args.pop();
        args.push(theirs.clone().into());
        if real(t, &args).is_ok() {
            assert!(
                ours_bytes == std::fs::read(&theirs).unwrap(),
                "{fmt} of {}: ours differs from {}",
                input.display(),
                t.display()
            );
        } else {
            eprintln!("{} fails on {fmt} of {}", t.display(), input.display());
        }
    }
    out
}

#[test]
fn deep_nesting_round_trips_in_every_encoding() {
    let test = "deep_nesting_round_trips_in_every_encoding";
    let tools = real_tools(test);
    let (_keep, dropin) = dropin();
    let dir = tempdir();
    for (levels, fmts) in [
        (LEVELS, &["--binary", "--extbinary"][..]),
        (TEXT_LEVELS, &["--text", "--binary", "--extbinary"][..]),
    ] {
        let input = dir.path().join(format!("nested{levels}.afdo"));
        std::fs::write(&input, nested_binary(levels)).unwrap();
        // The reference: the input as our binary writer writes it.
        let reference =
            std::fs::read(convert(dir.path(), &dropin, &input, "--binary", &tools)).unwrap();
        for fmt in fmts {
            let written = convert(dir.path(), &dropin, &input, fmt, &tools);
            let back = dir.path().join("back.afdo");
            let mut args = os(&["merge", "--sample", "--binary"]);
            args.push(written.into());
            args.push("-o".into());
            args.push(back.clone().into());
            ours_ok(
                &dropin,
                &args,
                &format!("read back {fmt} at {levels} levels"),
            );
            assert!(
                std::fs::read(&back).unwrap() == reference,
                "{fmt} at {levels} levels does not read back as written"
            );
        }
    }
}

/// The runs of `deep_nesting_shows_compares_flattens_and_remaps` on `input`.
fn passes_on(input: &Path, remap: &Path) -> Vec<Vec<OsString>> {
    let p = |x: &Path| OsString::from(x);
    let out = || vec!["-o".into(), "-".into()];
    vec![
        [os(&["overlap", "--sample"]), vec![p(input), p(input)]].concat(),
        [
            os(&[
                "merge",
                "--sample",
                "--text",
                "--convert-sample-profile-layout=flat",
            ]),
            vec![p(input)],
            out(),
        ]
        .concat(),
        [
            os(&["merge", "--sample", "--binary", "-r"]),
            vec![p(remap), p(input), p(input)],
            out(),
        ]
        .concat(),
        [
            os(&[
                "merge",
                "--sample",
                "--binary",
                "--output-size-limit=1000000",
            ]),
            vec![p(input)],
            out(),
        ]
        .concat(),
    ]
}

#[test]
fn deep_nesting_shows_compares_flattens_and_remaps() {
    let test = "deep_nesting_shows_compares_flattens_and_remaps";
    // `overlap --sample` words its title as LLVM 22 and 23 do (19 has a typo).
    let tools: Vec<PathBuf> = real_tools(test)
        .into_iter()
        .filter(|t| !t.ends_with("llvm-profdata-19"))
        .collect();
    let (_keep, dropin) = dropin();
    let dir = tempdir();
    // The chain as our binary writer writes it: with the detailed summary that
    // `nested_binary` leaves out (LLVM's overlap needs it).
    let chain = |levels: usize| {
        let raw = dir.path().join(format!("raw{levels}.afdo"));
        std::fs::write(&raw, nested_binary(levels)).unwrap();
        let path = dir.path().join(format!("nested{levels}.afdo"));
        let args = [
            os(&["merge", "--sample", "--binary"]),
            vec![raw.into(), "-o".into(), path.clone().into()],
        ]
        .concat();
        ours_ok(&dropin, &args, "binary");
        path
    };
    let remap = dir.path().join("remap.txt");
    std::fs::write(&remap, "f1 g1\nf1998 g2\nf19998 g3\n").unwrap();
    // 20,000 levels: ours alone. LLVM overflows its stack comparing them, and its flattening
    // and remapping copy every level with the levels below (minutes at this depth).
    for args in passes_on(&chain(LEVELS), &remap) {
        ours_ok(&dropin, &args, &format!("{:?}", &args[..3]));
    }
    // Compared with LLVM at depths it takes quickly. The dump indents each level by 4 more
    // spaces on several lines (20,000 levels print 5 GB), JSON by several steps per level.
    let shown = chain(SHOW_LEVELS);
    let mut runs = passes_on(&shown, &remap);
    runs.push([os(&["show", "--sample"]), vec![shown.clone().into()]].concat());
    runs.push(
        [
            os(&["show", "--sample", "--detailed-summary", "--hot-func-list"]),
            vec![shown.clone().into()],
        ]
        .concat(),
    );
    runs.push(
        [
            os(&["show", "--sample", "--show-format=json"]),
            vec![chain(JSON_LEVELS).into()],
        ]
        .concat(),
    );
    for args in &runs {
        let what = format!("{:?}", &args[..args.len().min(4)]);
        let mine = ours_ok(&dropin, args, &what);
        for t in &tools {
            match real(t, args) {
                Ok(theirs) => assert!(mine == theirs, "{what}: ours differs from {}", t.display()),
                Err(e) => panic!("{} fails on {what}: {e}", t.display()),
            }
        }
    }
}
