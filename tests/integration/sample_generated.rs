//! Generated sample profiles (deterministic, written at test time) merged by us and by
//! `llvm-profdata-19`, `-22` and `-23`: context-sensitive profiles whose counts span seven
//! orders of magnitude, so that many contexts are cold, with each cold-context option; and
//! nested (inlined) flat profiles with discriminators, call targets and equal totals, merged
//! with weights. The outputs must be the same bytes: text, and with the cold-context options
//! binary and extbinary too (MD5 names, compressed sections, partial profile, split layout),
//! whose function metadata follows LLVM's profile map after trimming.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use crate::common::*;

const NAMES: [&str; 7] = [
    "main",
    "_Z3fooi",
    "_Z3bari",
    "_Z3bazv",
    "_Z4quuxi",
    "_Z5leafAv",
    "_Z5leafBv",
];

/// A context-sensitive profile: up to 40 contexts 1–4 frames deep, counts of magnitude 1 to
/// 10^7, call targets, attributes; with `probe`, a checksum per function.
fn cs_profile(seed: u64, probe: bool) -> String {
    let mut g = Gen(seed);
    let mut out = String::new();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..40 {
        let depth = 1 + g.below(4);
        let mut frames = Vec::new();
        let mut leaf = 0;
        for d in 0..depth {
            let n = g.below(NAMES.len() as u64) as usize;
            if d + 1 < depth {
                let mut f = format!("{}:{}", NAMES[n], 1 + g.below(9));
                if g.below(4) == 0 {
                    let _ = write!(f, ".{}", 1 + g.below(3));
                }
                frames.push(f);
            } else {
                frames.push(NAMES[n].to_string());
                leaf = n;
            }
        }
        let ctx = format!("[{}]", frames.join(" @ "));
        if !seen.insert(ctx.clone()) {
            continue;
        }
        let mag = [1, 3, 20, 500, 100_000, 10_000_000][g.below(6) as usize];
        let mut lines = String::new();
        let mut total = 0;
        for j in 0..1 + g.below(4) {
            let c = g.below(mag) + u64::from(g.below(3) != 0);
            total += c;
            let _ = write!(lines, " {}: {c}", j + g.below(3));
            if g.below(3) == 0 {
                let t = NAMES[g.below(NAMES.len() as u64) as usize];
                let _ = write!(lines, " {t}:{}", g.below(mag) + 1);
            }
            lines.push('\n');
        }
        let _ = writeln!(out, "{ctx}:{total}:{}", g.below(mag));
        out.push_str(&lines);
        if probe {
            let _ = writeln!(out, " !CFGChecksum: {}", 1000 + leaf);
        }
        if g.below(3) == 0 {
            let _ = writeln!(out, " !Attributes: {}", 1 + g.below(2));
        }
    }
    out
}

/// A probe-based context-sensitive profile whose cold contexts of one function disagree on
/// its checksum: which of them a merged cold profile takes in (LLVM merges a profile with
/// another checksum not at all) depends on the order LLVM takes them in.
fn cs_checksum_mismatches(seed: u64) -> String {
    let mut g = Gen(seed);
    let mut out = String::from("[main]:100000000:0\n 1: 100000000\n !CFGChecksum: 5\n");
    for i in 1..=30 {
        let c = 1 + g.below(20);
        let _ = writeln!(
            out,
            "[main:{i} @ _Z3fooi]:{c}:0\n 1: {c}\n 2: {}\n !CFGChecksum: {}",
            g.below(9),
            100 + g.below(4)
        );
        let c = 1 + g.below(20);
        let _ = writeln!(
            out,
            "[main:{i} @ _Z3bari:{} @ _Z3fooi]:{c}:0\n 3: {c}\n !CFGChecksum: {}",
            1 + g.below(3),
            100 + g.below(4)
        );
    }
    out
}

/// A nested profile: functions with body lines (discriminators, call targets with equal
/// counts), inlined callees up to three deep (several at one site), repeated functions and
/// equal totals.
fn nested_profile(seed: u64) -> String {
    fn body(g: &mut Gen, out: &mut String, indent: usize, depth: u32) {
        let pad = " ".repeat(indent);
        for _ in 0..1 + g.below(4) {
            let _ = write!(out, "{pad}{}", g.below(12));
            if g.below(3) == 0 {
                let _ = write!(out, ".{}", 1 + g.below(4));
            }
            let _ = write!(out, ": {}", g.below(50));
            for _ in 0..g.below(3) {
                let t = NAMES[g.below(NAMES.len() as u64) as usize];
                let _ = write!(out, " {t}:{}", 1 + g.below(3));
            }
            out.push('\n');
        }
        if depth < 3 {
            for _ in 0..g.below(3) {
                let callee = NAMES[g.below(NAMES.len() as u64) as usize];
                let _ = writeln!(out, "{pad}{}: {callee}:{}", g.below(6), g.below(100));
                body(g, out, indent + 1, depth + 1);
            }
        }
    }
    let mut g = Gen(seed);
    let mut out = String::new();
    for _ in 0..12 {
        let name = NAMES[g.below(NAMES.len() as u64) as usize];
        let _ = writeln!(out, "{name}:{}:{}", 10 * g.below(5), g.below(7));
        body(&mut g, &mut out, 1, 0);
    }
    out
}

fn text_of(tool: &Path, args: &[String]) -> Result<Vec<u8>, String> {
    let out = Command::new(tool).args(args).output().expect("run");
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Runs `merge --sample --text OPTIONS FILES -o -` with llvm-profdata-`release` and with our
/// binary for that release; returns the differences found.
fn compare(tool: &Path, release: u32, options: &[&str], files: &[String]) -> Option<String> {
    let mut args: Vec<String> = vec!["merge".into(), "--sample".into(), "--text".into()];
    args.extend(options.iter().map(|s| s.to_string()));
    args.extend(files.iter().cloned());
    args.extend(["-o".into(), "-".into()]);
    let theirs = text_of(tool, &args);
    let mut ours_args = args.clone();
    ours_args.insert(1, format!("--target-llvm={release}"));
    let ours = text_of(Path::new(env!("CARGO_BIN_EXE_pgo-merge")), &ours_args);
    match (theirs, ours) {
        (Ok(a), Ok(b)) if a == b => None,
        (Err(_), Err(_)) => None,
        (a, b) => Some(format!(
            "llvm-profdata-{release} {options:?} {files:?}:\n{}",
            differing_lines(
                &String::from_utf8_lossy(&a.unwrap_or_else(String::into_bytes)),
                &String::from_utf8_lossy(&b.unwrap_or_else(String::into_bytes)),
                6,
                "llvm",
                "ours"
            )
        )),
    }
}

/// Output encodings compared with the cold-context options (the function metadata of
/// extbinary follows LLVM's profile map, which trimming erases from and inserts into), and
/// whether llvm-profdata-19 has them. A context-sensitive split layout is left out: we refuse
/// it (llvm-profdata cannot read it back).
const OUTPUTS: [(&[&str], bool); 8] = [
    (&["--text"], true),
    (&["--binary"], true),
    (&["--extbinary"], true),
    (&["--extbinary", "--use-md5"], true),
    (&["--extbinary", "--compress-all-sections"], true),
    (
        &["--extbinary", "--use-md5", "--compress-all-sections"],
        true,
    ),
    (&["--extbinary", "--gen-partial-profile"], true),
    (&["--extbinary", "--split-layout"], false),
];

/// Runs `merge --sample OUTPUT OPTIONS FILES -o FILE` with llvm-profdata-`release` and with
/// our binary for that release, for each output encoding of [`OUTPUTS`] (the split layout
/// only when `split`); returns the number of comparisons and the differences found. Both
/// failing counts as agreeing.
fn compare_outputs(
    tool: &Path,
    release: u32,
    options: &[&str],
    files: &[String],
    split: bool,
    dir: &Path,
) -> (usize, Vec<String>) {
    let run = |exe: &Path, ours: bool, output: &[&str], to: &Path| -> Result<Vec<u8>, String> {
        let _ = std::fs::remove_file(to);
        let mut cmd = Command::new(exe);
        cmd.arg("merge");
        if ours {
            cmd.arg(format!("--target-llvm={release}"));
        }
        let o = cmd
            .arg("--sample")
            .args(output)
            .args(options)
            .args(files)
            .arg("-o")
            .arg(to)
            .env_remove("PGO_MERGE_TARGET_LLVM")
            .output()
            .expect("run");
        if o.status.success() {
            Ok(std::fs::read(to).unwrap_or_default())
        } else {
            Err(String::from_utf8_lossy(&o.stderr).into_owned())
        }
    };
    let (mut compared, mut diffs) = (0, Vec::new());
    for (output, in_19) in OUTPUTS {
        if (!in_19 && release == 19) || (!split && output.contains(&"--split-layout")) {
            continue;
        }
        compared += 1;
        let theirs = run(tool, false, output, &dir.join("theirs.out"));
        let ours = run(
            Path::new(env!("CARGO_BIN_EXE_pgo-merge")),
            true,
            output,
            &dir.join("ours.out"),
        );
        let what = format!("llvm-profdata-{release} {output:?} {options:?} {files:?}");
        match (theirs, ours) {
            (Ok(a), Ok(b)) if a == b => {}
            (Err(_), Err(_)) => {}
            (Ok(a), Ok(b)) => diffs.push(format!(
                "{what}: outputs differ ({} vs our {} bytes, first difference at byte {})",
                a.len(),
                b.len(),
                a.iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()))
            )),
            (a, b) => diffs.push(format!(
                "{what}: llvm {}, ours {}",
                a.map_or_else(|e| format!("fails ({})", e.trim()), |_| "writes".into()),
                b.map_or_else(|e| format!("fails ({})", e.trim()), |_| "writes".into()),
            )),
        }
    }
    (compared, diffs)
}

#[test]
fn cold_context_options_match_llvm() {
    let dir = tempdir();
    let mut files = Vec::new();
    for seed in 1..=3 {
        for probe in [false, true] {
            let p = dir
                .path()
                .join(format!("cs{seed}{}.txt", if probe { "p" } else { "" }));
            std::fs::write(&p, cs_profile(seed, probe)).unwrap();
            files.push(p.display().to_string());
        }
    }
    let p = dir.path().join("mismatches.txt");
    std::fs::write(&p, cs_checksum_mismatches(7)).unwrap();
    files.push(p.display().to_string());
    let options: [&[&str]; 6] = [
        &[],
        &["--sample-trim-cold-context"],
        &["--sample-merge-cold-context"],
        &["--sample-merge-cold-context", "--sample-trim-cold-context"],
        &[
            "--sample-merge-cold-context",
            "--sample-frame-depth-for-cold-context=2",
        ],
        &[
            "--sample-trim-cold-context",
            "--sample-merge-cold-context",
            "--sample-frame-depth-for-cold-context=3",
        ],
    ];
    let mut failures = Vec::new();
    for release in [19, 22, 23] {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample cold contexts") else {
            continue;
        };
        // The options must change these profiles, or the comparison proves nothing.
        let plain = text_of(
            &tool,
            &[
                "merge".into(),
                "--sample".into(),
                "--text".into(),
                files[0].clone(),
                "-o".into(),
                "-".into(),
            ],
        )
        .unwrap();
        let trimmed = text_of(
            &tool,
            &[
                "merge".into(),
                "--sample".into(),
                "--text".into(),
                "--sample-merge-cold-context".into(),
                files[0].clone(),
                "-o".into(),
                "-".into(),
            ],
        )
        .unwrap();
        assert_ne!(plain, trimmed, "generated profile has no cold contexts");
        for f in &files {
            let args = ["merge", "--sample", "--text", f, "-o", "-"].map(String::from);
            if let Err(e) = text_of(&tool, &args) {
                panic!("llvm-profdata-{release} refuses generated {f}: {e}");
            }
        }
        let (mut compared, mut diffs) = (0, Vec::new());
        for opts in options {
            for (i, f) in files.iter().enumerate() {
                // Alone, and with the next profile of the same kind weighted 3.
                let mut sets = vec![vec![f.clone()]];
                if let Some(g) = files.get(i + 2).filter(|_| i + 2 < 6) {
                    sets.push(vec![f.clone(), format!("--weighted-input=3,{g}")]);
                }
                for set in sets {
                    let (n, d) = compare_outputs(&tool, release, opts, &set, false, dir.path());
                    compared += n;
                    diffs.extend(d);
                }
            }
        }
        if !diffs.is_empty() {
            failures.push(format!(
                "llvm-profdata-{release}: {} of {compared} comparisons differ:\n{}",
                diffs.len(),
                diffs.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The passes after trimming start from the map the trimmer left: a layout conversion, a
/// size limit and the function filters, in every encoding.
#[test]
fn cold_context_options_with_later_passes_match_llvm() {
    let dir = tempdir();
    let mut files = Vec::new();
    for (name, text) in [
        ("cs1p.txt", cs_profile(1, true)),
        ("cs2.txt", cs_profile(2, false)),
        ("mismatches.txt", cs_checksum_mismatches(7)),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        files.push(p.display().to_string());
    }
    let options: [&[&str]; 5] = [
        &[
            "--sample-merge-cold-context",
            "--convert-sample-profile-layout=nest",
        ],
        &[
            "--sample-trim-cold-context",
            "--sample-merge-cold-context",
            "--convert-sample-profile-layout=flat",
        ],
        &["--sample-merge-cold-context", "--output-size-limit=700"],
        &["--sample-trim-cold-context", "--no-function=_Z3fooi"],
        &[
            "--sample-merge-cold-context",
            "--sample-frame-depth-for-cold-context=2",
            "--function=main",
        ],
    ];
    let mut failures = Vec::new();
    for release in [19, 22, 23] {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample cold contexts") else {
            continue;
        };
        let (mut compared, mut diffs) = (0, Vec::new());
        for opts in options {
            for f in &files {
                let (n, d) = compare_outputs(
                    &tool,
                    release,
                    opts,
                    std::slice::from_ref(f),
                    false,
                    dir.path(),
                );
                compared += n;
                diffs.extend(d);
            }
        }
        if !diffs.is_empty() {
            failures.push(format!(
                "llvm-profdata-{release}: {} of {compared} comparisons differ:\n{}",
                diffs.len(),
                diffs.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn nested_profiles_merge_with_weights_as_llvm() {
    let dir = tempdir();
    let files: Vec<String> = (1..=6)
        .map(|seed| {
            let p = dir.path().join(format!("n{seed}.txt"));
            std::fs::write(&p, nested_profile(seed)).unwrap();
            p.display().to_string()
        })
        .collect();
    for release in [19, 22] {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample nested") else {
            continue;
        };
        let mut diffs = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let args = ["merge", "--sample", "--text", f, "-o", "-"].map(String::from);
            if let Err(e) = text_of(&tool, &args) {
                panic!("llvm-profdata-{release} refuses generated {f}: {e}");
            }
            diffs.extend(compare(&tool, release, &[], std::slice::from_ref(f)));
            let g = &files[(i + 1) % files.len()];
            let h = &files[(i + 2) % files.len()];
            diffs.extend(compare(
                &tool,
                release,
                &[],
                &[
                    f.clone(),
                    format!("--weighted-input=7,{g}"),
                    format!("--weighted-input=2,{h}"),
                ],
            ));
        }
        diffs.extend(compare(&tool, release, &[], &files));
        assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }
}

#[test]
fn layouts_and_cold_options_on_public_profiles_match_llvm() {
    let Some(files) = crate::sample_text::text_profiles("sample layouts") else {
        return;
    };
    let dir = tempdir();
    let mut all: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    for seed in [4, 5] {
        let p = dir.path().join(format!("cs{seed}.txt"));
        std::fs::write(&p, cs_profile(seed, seed == 5)).unwrap();
        all.push(p.display().to_string());
        let n = dir.path().join(format!("n{seed}.txt"));
        std::fs::write(&n, nested_profile(seed)).unwrap();
        all.push(n.display().to_string());
    }
    // Where llvm-profdata crashes (merging cold profiles without context), both fail: ours
    // with a request error.
    let options: [&[&str]; 5] = [
        &["--convert-sample-profile-layout=flat"],
        &["--convert-sample-profile-layout=nest"],
        &["--sample-trim-cold-context"],
        &[
            "--sample-merge-cold-context",
            "--convert-sample-profile-layout=nest",
        ],
        &[
            "--sample-trim-cold-context",
            "--convert-sample-profile-layout=flat",
        ],
    ];
    // The cold-context options again, in every output encoding (a context-sensitive input
    // not in the split layout).
    let cold: [&[&str]; 4] = [
        &["--sample-trim-cold-context"],
        &["--sample-merge-cold-context"],
        &["--sample-trim-cold-context", "--sample-merge-cold-context"],
        &[
            "--sample-merge-cold-context",
            "--sample-frame-depth-for-cold-context=2",
        ],
    ];
    let mut failures = Vec::new();
    for release in [19, 22, 23] {
        let Some(tool) = tool(&format!("llvm-profdata-{release}"), "sample layouts") else {
            continue;
        };
        let mut diffs = Vec::new();
        for opts in options {
            for f in &all {
                diffs.extend(compare(&tool, release, opts, std::slice::from_ref(f)));
            }
        }
        let mut compared = 0;
        for opts in cold {
            for f in &all {
                let cs = std::fs::read_to_string(f).is_ok_and(|t| t.starts_with('['));
                let (n, d) = compare_outputs(
                    &tool,
                    release,
                    opts,
                    std::slice::from_ref(f),
                    !cs,
                    dir.path(),
                );
                compared += n;
                diffs.extend(d);
            }
        }
        if !diffs.is_empty() {
            failures.push(format!(
                "llvm-profdata-{release}: {} differences ({compared} comparisons of \
                 encodings):\n{}",
                diffs.len(),
                diffs.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn merging_cold_profiles_without_context_is_a_request_error() {
    let dir = tempdir();
    let f = dir.path().join("flat.txt");
    let mut text = String::new();
    for (i, c) in [10_000_000u64, 1, 5, 10_000_000, 2].iter().enumerate() {
        let _ = writeln!(text, "f{i}:{c}:1\n 1: {c}");
    }
    std::fs::write(&f, text).unwrap();
    let out = run_ours([
        "--sample".as_ref(),
        "--text".as_ref(),
        "--sample-merge-cold-context".as_ref(),
        f.as_os_str(),
        "-o".as_ref(),
        "-".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("this profile has 3 cold functions without context"),
        "{err}"
    );
}
