//! `overlap --sample` and the `show --sample` reports beyond the function dump
//! (`--hot-func-list`, `--topn`, `--show-prof-sym-list`, `--show-sec-info-only`,
//! `--detailed-summary`), against the real `llvm-profdata-19`, `-22` and `-23`: the same inputs,
//! the same bytes on standard output, the same refusals. Inputs: every sample profile of
//! testdata/sample/ (text, and the binary forms llvm-profdata and llvm-profgen wrote) and of
//! shared/testdata-external/llvm-sample/ (SKIPPED when absent).

use std::path::{Path, PathBuf};
use std::process::Command;

use pgo_merge::frontends::sample::{self as readers, ReadOptions, SampleEncoding, TextDialect};
use pgo_merge::ir::sample::{SampleFormat, SampleProfile};
use pgo_merge::pipeline::sample::{
    SampleOverlapOptions, SampleOverlapRequest, SampleShowOptions, SampleShowRequest,
};

use crate::common::*;

/// The releases compared.
const RELEASES: [u32; 3] = [19, 22, 23];

/// Every sample profile of testdata/sample/ and of the third-party folder that LLVM reads
/// (GCC `.gcov` inputs, which we do not read, left out), sorted.
fn sample_files(test: &str) -> Vec<PathBuf> {
    let ours = root().join("testdata/sample");
    let mut dirs = vec![ours.clone(), ours.join("llvm22"), ours.join("llvm19")];
    let ext = external_dir().join("llvm-sample");
    if ext.is_dir() {
        dirs.push(ext);
    } else {
        eprintln!(
            "SKIPPED {test} (third-party part): {} is absent (it lives in shared/testdata-external/ beside the repository)",
            ext.display()
        );
    }
    let mut v = Vec::new();
    for d in dirs {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let Ok(bytes) = std::fs::read(&p) else {
                continue;
            };
            if matches!(
                SampleEncoding::sniff(&bytes),
                SampleEncoding::Text | SampleEncoding::Binary | SampleEncoding::ExtBinary
            ) && !p.ends_with("prof-sym-list.txt")
                && p.extension().is_none_or(|x| x != "md")
            {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(v.len() >= 60, "only {} sample profiles found", v.len());
    v
}

fn read_options(release: u32) -> ReadOptions {
    ReadOptions {
        text: TextDialect::for_llvm(release),
        context_hash: pgo_merge::codec::llvm_hash::ContextHash::for_llvm(release),
        ..ReadOptions::default()
    }
}

/// `tool ARGS`: (exit status, or None if it died of a signal; stdout; stderr).
fn run_tool(tool: &Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, Vec<u8>, String) {
    let out = Command::new(tool)
        .args(args)
        .output()
        .expect("run llvm-profdata");
    (
        out.status.code().filter(|c| *c < 128),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What kind of profile a file is (context-sensitive, probe-based): LLVM compares only
/// profiles of one kind, so pairs of others are only checked to be refused.
fn kind(p: &SampleProfile) -> (bool, bool) {
    (p.flags.context_sensitive, p.flags.probe_based)
}

/// Our overlap report of two files (through the library, as the binary computes it), or
/// the error.
fn our_overlap(
    base: &Path,
    test: &Path,
    opts: &SampleOverlapOptions,
    release: u32,
    dir: &Path,
) -> Result<Vec<u8>, String> {
    let out = dir.join("ours.txt");
    let mut req = SampleOverlapRequest::default();
    req.base = base.to_path_buf();
    req.test = test.to_path_buf();
    req.options = opts.clone();
    req.target_llvm = Some(release);
    req.output = Some(out.clone());
    pgo_merge::pipeline::overlap_sample(&req).map_err(|e| e.to_string())?;
    Ok(std::fs::read(&out).expect("read our report"))
}

/// The views of `overlap --sample` compared: llvm-profdata's options and ours.
fn overlap_views() -> Vec<(Vec<&'static str>, SampleOverlapOptions)> {
    vec![
        (
            // Every function in the table, and every figure above it.
            vec!["--value-cutoff=0", "--similarity-cutoff=999999"],
            {
                let mut new_sample_overlap_options = SampleOverlapOptions::default();
                new_sample_overlap_options.value_cutoff = 0;
                new_sample_overlap_options.similarity_cutoff = 999_999;
                new_sample_overlap_options.function = String::new();
                new_sample_overlap_options
            },
        ),
        (vec!["--function=a", "--value-cutoff=500"], {
            let mut new_sample_overlap_options = SampleOverlapOptions::default();
            new_sample_overlap_options.value_cutoff = 500;
            new_sample_overlap_options.similarity_cutoff = 0;
            new_sample_overlap_options.function = "a".into();
            new_sample_overlap_options
        }),
    ]
}

/// The files every profile is compared with (as base and as test): ours, and a few
/// third-party ones of each kind and encoding.
fn is_partner(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = p
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str());
    (parent == Some("sample") && (name.ends_with(".prof.txt") || name.contains("profgen")))
        || [
            "profparser-sample-overlap-0.proftext",
            "profparser-sample-overlap-1.proftext",
            "derived-sample-profile.md5.extbinary.afdo",
            "derived-cs-sample-preinline-probe.extbinary.afdo",
            "llvm-composite-cs-profile.proftext",
        ]
        .contains(&name)
}

/// A binary profile without a summary section: llvm-profdata dereferences the missing
/// summary and crashes; we compute one.
fn lacks_summary(p: &SampleProfile) -> bool {
    p.format.is_some_and(|f| f != SampleFormat::Text) && p.stored_summary.is_none()
}

fn check_overlap(release: u32) {
    let test = format!("overlap --sample vs llvm-profdata-{release}");
    let Some(tool) = tool(&format!("llvm-profdata-{release}"), &test) else {
        return;
    };
    let files = sample_files(&test);
    let profiles: Vec<(PathBuf, SampleProfile)> = files
        .iter()
        .filter_map(|f| {
            let bytes = std::fs::read(f).ok()?;
            readers::read(&bytes, &read_options(release))
                .ok()
                .map(|p| (f.clone(), p))
        })
        .collect();
    let partners: Vec<&(PathBuf, SampleProfile)> =
        profiles.iter().filter(|(p, _)| is_partner(p)).collect();
    assert!(
        partners.len() >= 10,
        "only {} partner files",
        partners.len()
    );
    // Every profile against every partner, both ways; profiles of different kinds only
    // against the first partner (LLVM refuses them, and so must we).
    let mut pairs = Vec::new();
    for (i, x) in profiles.iter().enumerate() {
        for (k, p) in partners.iter().enumerate() {
            if kind(&x.1) == kind(&p.1) || k == 0 {
                pairs.push((i, x, *p));
                pairs.push((i + k, *p, x));
            }
        }
    }
    let views = overlap_views();
    let compared = std::sync::atomic::AtomicUsize::new(0);
    let diffs = std::sync::Mutex::new(Vec::new());
    let workers = 2;
    std::thread::scope(|scope| {
        for w in 0..workers {
            let (pairs, views, compared, diffs, tool) = (&pairs, &views, &compared, &diffs, &tool);
            scope.spawn(move || {
                let dir = tempdir();
                for (n, (seed, (base, bp), (test_file, tp))) in pairs.iter().enumerate() {
                    if n % workers != w {
                        continue;
                    }
                    // The first view on every pair; the second on a pair in four.
                    for (v, (args, opts)) in views.iter().enumerate() {
                        if v > 0 && seed % 4 != 0 {
                            continue;
                        }
                        let ours = our_overlap(base, test_file, opts, release, dir.path());
                        if lacks_summary(bp) || lacks_summary(tp) {
                            continue;
                        }
                        let mut cmd: Vec<&std::ffi::OsStr> =
                            vec!["overlap".as_ref(), "--sample".as_ref()];
                        cmd.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
                        cmd.push(base.as_os_str());
                        cmd.push(test_file.as_os_str());
                        let (code, theirs, err) = run_tool(tool, &cmd);
                        compared.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let what = format!(
                            "llvm-profdata-{release} overlap --sample {} {} {}",
                            args.join(" "),
                            base.display(),
                            test_file.display()
                        );
                        let diff = match (code, &ours) {
                            (None, _) => Some(format!("{what}: llvm-profdata crashed\n{err}")),
                            (Some(0), Ok(o)) if *o == theirs => None,
                            (Some(0), Ok(o)) => Some(format!(
                                "{what}:\n{}",
                                differing_lines(
                                    &String::from_utf8_lossy(&theirs),
                                    &String::from_utf8_lossy(o),
                                    6,
                                    "llvm",
                                    "ours"
                                )
                            )),
                            (Some(0), Err(e)) => Some(format!("{what}: we refused: {e}")),
                            (Some(_), Ok(_)) => {
                                Some(format!("{what}: LLVM refused ({err}), we did not"))
                            }
                            (Some(_), Err(_)) => None,
                        };
                        if let Some(d) = diff {
                            diffs.lock().unwrap().push(d);
                        }
                    }
                }
            });
        }
    });
    let compared = compared.into_inner();
    let diffs = diffs.into_inner().unwrap();
    assert_no_differences(compared, 500, &diffs, "");
}

#[test]
fn overlap_sample_is_llvm_profdata_19s() {
    check_overlap(19);
}

#[test]
fn overlap_sample_is_llvm_profdata_22s() {
    check_overlap(22);
}

#[test]
fn overlap_sample_is_llvm_profdata_23s() {
    check_overlap(23);
}

/// The `show --sample` views compared: llvm-profdata's options, and ours.
fn show_views() -> Vec<(Vec<&'static str>, SampleShowOptions, bool)> {
    let base = SampleShowOptions::default();
    vec![
        (
            vec!["--hot-func-list"],
            {
                let mut new_sample_show_options = base.clone();
                new_sample_show_options.hot_func_list = true;
                new_sample_show_options
            },
            false,
        ),
        (
            vec!["--topn=3", "--detailed-summary"],
            {
                let mut new_sample_show_options = base.clone();
                new_sample_show_options.topn = 3;
                new_sample_show_options.detailed_summary = true;
                new_sample_show_options
            },
            false,
        ),
        (
            vec!["--show-prof-sym-list", "--show-format=json"],
            {
                let mut new_sample_show_options = base.clone();
                new_sample_show_options.symbol_list = true;
                new_sample_show_options.json = true;
                new_sample_show_options
            },
            false,
        ),
        (
            vec!["--function=main"],
            {
                let mut new_sample_show_options = base.clone();
                new_sample_show_options.function = Some("main".into());
                new_sample_show_options
            },
            false,
        ),
        (vec!["--show-sec-info-only"], base.clone(), true),
    ]
}

fn check_show(release: u32) {
    let test = format!("show --sample reports vs llvm-profdata-{release}");
    let Some(tool) = tool(&format!("llvm-profdata-{release}"), &test) else {
        return;
    };
    let dir = tempdir();
    let out = dir.path().join("ours.txt");
    let mut diffs = Vec::new();
    let mut compared = 0usize;
    let mut crashes = 0usize;
    for f in sample_files(&test) {
        for (args, opts, sections) in show_views() {
            let mut cmd: Vec<&std::ffi::OsStr> = vec!["show".as_ref(), "--sample".as_ref()];
            cmd.extend(args.iter().map(|a| std::ffi::OsStr::new(*a)));
            cmd.push(f.as_os_str());
            let (code, theirs, err) = run_tool(&tool, &cmd);
            let _ = std::fs::remove_file(&out);
            let mut req = SampleShowRequest::default();
            req.file = f.clone();
            req.options = {
                let mut new_sample_show_options = opts;
                new_sample_show_options.llvm = release;
                new_sample_show_options
            };
            req.section_info_only = sections;
            req.target_llvm = Some(release);
            req.output = Some(out.clone());
            let ours = pgo_merge::pipeline::show_sample(&req)
                .map(|_| std::fs::read(&out).unwrap_or_default())
                .map_err(|e| e.to_string());
            compared += 1;
            let what = format!(
                "llvm-profdata-{release} show --sample {} {}",
                args.join(" "),
                f.display()
            );
            match (code, &ours) {
                // llvm-profdata crashes on a profile without a symbol list, and on an
                // extbinary file without a summary section; a symbol list must then be an
                // error here, the summary is computed.
                (None, Err(_)) => crashes += 1,
                (None, Ok(_)) if !args.contains(&"--show-prof-sym-list") => crashes += 1,
                (None, Ok(_)) => diffs.push(format!("{what}: LLVM crashed, we did not refuse")),
                (Some(0), Ok(o)) if *o == theirs => {}
                (Some(0), Ok(o)) => diffs.push(format!(
                    "{what}:\n{}",
                    differing_lines(
                        &String::from_utf8_lossy(&theirs),
                        &String::from_utf8_lossy(o),
                        6,
                        "llvm",
                        "ours"
                    )
                )),
                (Some(0), Err(e)) => diffs.push(format!("{what}: we refused: {e}")),
                (Some(_), Ok(_)) => diffs.push(format!("{what}: LLVM refused ({err}), we did not")),
                (Some(_), Err(_)) => {}
            }
        }
    }
    assert!(
        crashes > 0,
        "llvm-profdata crashes on text profiles with --show-prof-sym-list"
    );
    assert_no_differences(compared, 200, &diffs, "");
}

#[test]
fn show_sample_reports_are_llvm_profdata_19s() {
    check_show(19);
}

#[test]
fn show_sample_reports_are_llvm_profdata_22s() {
    check_show(22);
}

#[test]
fn show_sample_reports_are_llvm_profdata_23s() {
    check_show(23);
}

/// The section flags llvm-profdata names, on a file whose table has every flag bit set
/// (`--show-sec-info-only` reads the table only), and unknown section types.
#[test]
fn section_flags_and_types_are_named_as_llvm_names_them() {
    let src = root().join("testdata/sample/llvm22/flat.extbinary.afdo");
    let data = std::fs::read(&src).expect("read");
    let table = readers::extbinary::read_section_table(&data).expect("table");
    let at = table[0].entry_at as usize;
    let dir = tempdir();
    let mut files = Vec::new();
    for (name, edit) in [
        ("all-flags", 0u8),
        ("unknown-type", 1),
        ("invalid-type", 2),
        ("compressed-flat", 3),
    ] {
        let mut d = data.clone();
        for i in 0..table.len() {
            let e = at + 32 * i;
            let flags = u64::from_le_bytes(d[e + 8..e + 16].try_into().unwrap());
            let new = match edit {
                0 => flags | (0xff << 32) | 0xfe,
                3 => flags | 0x3,
                _ => flags,
            };
            d[e + 8..e + 16].copy_from_slice(&new.to_le_bytes());
        }
        match edit {
            1 => d[at..at + 8].copy_from_slice(&99u64.to_le_bytes()),
            2 => d[at..at + 8].copy_from_slice(&0u64.to_le_bytes()),
            _ => {}
        }
        let p = dir.path().join(format!("{name}.afdo"));
        std::fs::write(&p, d).unwrap();
        files.push(p);
    }
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "section flags") else {
            continue;
        };
        for f in &files {
            let (code, theirs, err) = run_tool(
                &tool,
                &[
                    "show".as_ref(),
                    "--sample".as_ref(),
                    "--show-sec-info-only".as_ref(),
                    f.as_os_str(),
                ],
            );
            assert_eq!(code, Some(0), "{}: {err}", f.display());
            let (c2, ours, e2) = run_full(
                pgo_merge()
                    .args(["show", "--sample", "--show-sec-info-only"])
                    .arg(f),
            );
            assert_eq!(c2, 0, "{e2}");
            assert_eq!(
                ours,
                String::from_utf8_lossy(&theirs),
                "llvm-profdata-{release}, {}",
                f.display()
            );
        }
    }
}

/// The drop-in and the native command line: llvm-profdata's spellings, `-o`, the release
/// from the program name (LLVM 19's "infomation"), errors.
#[test]
fn command_lines_of_the_dropin_and_native_overlap() {
    let ours_dir = root().join("testdata/sample");
    let (a, b) = (
        ours_dir.join("flat.prof.txt"),
        ours_dir.join("flat-second.prof.txt"),
    );
    let dir = tempdir();
    for release in RELEASES {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "overlap command lines") else {
            continue;
        };
        let link = dir.path().join(format!("llvm-profdata-{release}"));
        #[cfg(unix)]
        if !link.exists() {
            std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).unwrap();
        }
        for args in [
            vec!["overlap", "-sample", "-similarity-cutoff", "990000"],
            vec![
                "overlap",
                "--sample",
                "--value-cutoff=1",
                "--function",
                "ma",
            ],
            vec!["show", "-sample", "-hot-func-list", "-topn", "2"],
            vec!["show", "--sample", "-show-sec-info-only"],
        ] {
            let files: Vec<&Path> = if args[0] == "overlap" {
                vec![&a, &b]
            } else {
                vec![&a]
            };
            let theirs = run_full(Command::new(&tool).args(&args).args(&files));
            let ours = run_full(Command::new(&link).args(&args).args(&files));
            assert_eq!((theirs.0, &theirs.1), (ours.0, &ours.1), "{args:?}");
        }
        // Output to a file, natively.
        let out = dir.path().join(format!("ov{release}.txt"));
        let (c, _, e) = run_full(
            pgo_merge()
                .args(["overlap", "--sample", &format!("--target-llvm={release}")])
                .arg("-o")
                .arg(&out)
                .arg(&a)
                .arg(&b),
        );
        assert_eq!(c, 0, "{e}");
        let theirs = run_full(
            Command::new(&tool)
                .args(["overlap", "--sample"])
                .arg(&a)
                .arg(&b),
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), theirs.1);
    }
    // Misuse and bad input: clear errors, never a panic.
    let cs = ours_dir.join("cs.prof.txt");
    let (c, _, e) = run_full(pgo_merge().args(["overlap", "--sample"]).arg(&cs).arg(&a));
    assert_ne!(c, 0);
    assert!(
        e.contains("cannot compare CS profile with non-CS profile"),
        "{e}"
    );
    let bad = dir.path().join("bad.prof.txt");
    std::fs::write(&bad, "main:10:1\n 1: 5\n x\n").unwrap();
    let (c, _, e) = run_full(pgo_merge().args(["overlap", "--sample"]).arg(&a).arg(&bad));
    assert_ne!(c, 0);
    assert!(e.contains("bad.prof.txt") && e.contains("line 3"), "{e}");
    let missing = dir.path().join("missing.prof.txt");
    let (c, _, e) = run_full(
        pgo_merge()
            .args(["overlap", "--sample"])
            .arg(&missing)
            .arg(&a),
    );
    assert_ne!(c, 0);
    assert!(e.contains("missing.prof.txt"), "{e}");
    let (c, _, e) = run_full(
        pgo_merge()
            .args(["show", "--sample", "--show-prof-sym-list"])
            .arg(&a),
    );
    assert_ne!(c, 0);
    assert!(e.contains("no profile symbol list"), "{e}");
    let (c, _, e) = run_full(
        pgo_merge()
            .args(["overlap", "--similarity-cutoff=5"])
            .arg(&a)
            .arg(&b),
    );
    assert_ne!(c, 0);
    assert!(e.contains("--sample"), "{e}");
}
