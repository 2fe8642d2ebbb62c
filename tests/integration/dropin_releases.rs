//! The llvm-profdata drop-in follows the release it is named after (`llvm-profdata-N`):
//! exactly that release's options (from its `--help-hidden`, compared live and with a
//! recorded listing), its value checks and wording, its reading of `--weighted-input`, and
//! its `show` text; each compared with the real llvm-profdata 14, 19, 22 and 23.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// The releases the drop-in has option tables for.
const RELEASES: [u32; 5] = [14, 19, 21, 22, 23];

/// The clang release whose recordings (testdata/profraw/clangN) release `n`'s tests read:
/// its own, or for 21 (no clang-21 here; llvm-profdata-21 reads 19's raw version) 19's.
fn recorded_by(n: u32) -> u32 {
    if n == 21 { 19 } else { n }
}

/// A directory holding a link `llvm-profdata-N` to our binary, kept alive with the guard.
fn ours_named(n: u32) -> (tempfile::TempDir, PathBuf) {
    let dir = tempdir();
    let link = dir.path().join(format!("llvm-profdata-{n}"));
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pgo-merge"), &link).expect("symlink");
    (dir, link)
}

/// `--name[=<kind>]` of each option line of an llvm-profdata-style help, leaving out the
/// section of our help that names LLVM's options accepted unlisted and, when `skip_generic`,
/// the "Generic Options" section.
fn listed(help: &str, skip_generic: bool) -> BTreeSet<String> {
    let re = regex::Regex::new(r"^ +(-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*(=<[^>]*>)?)").unwrap();
    let mut skip = false;
    help.lines()
        .filter(|l| {
            if !l.starts_with(' ') && l.ends_with(':') {
                skip = l.starts_with("LLVM's options that llvm-profdata accepts")
                    || (skip_generic && *l == "Generic Options:");
            }
            !skip
        })
        .filter_map(|l| re.captures(l).map(|c| c[1].to_string()))
        .collect()
}

/// What `BIN SUB --help-hidden` lists.
fn help_listing(bin: &Path, sub: &str) -> BTreeSet<String> {
    let (rc, out, err) = run_full(Command::new(bin).args([sub, "--help-hidden"]));
    assert_eq!(rc, 0, "{} {sub} --help-hidden: {err}", bin.display());
    listed(&out, false)
}

/// The recorded listing (testdata/llvm-profdata-options/listings.txt, made by its
/// regenerate.sh) of release `n`'s subcommand `sub`.
fn recorded(n: u32, sub: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("testdata/llvm-profdata-options/listings.txt"))
        .expect("recorded listings");
    let prefix = format!("{n} {sub} ");
    text.lines()
        .filter_map(|l| l.strip_prefix(&prefix).map(str::to_string))
        .collect()
}

/// Acceptance (no tool needed): for each release and subcommand, the drop-in named after the
/// release lists exactly the options the real release lists, as recorded.
#[test]
fn option_tables_match_the_recorded_listings() {
    for n in RELEASES {
        let (_g, ours) = ours_named(n);
        for sub in ["merge", "show", "overlap"] {
            let want = recorded(n, sub);
            assert!(want.len() > 5, "{n} {sub}: no recorded listing");
            assert_eq!(help_listing(&ours, sub), want, "llvm-profdata-{n} {sub}");
        }
    }
    // A release between two tables follows the lower one: 20 lists 19's options.
    let (_g, ours20) = ours_named(20);
    assert_eq!(help_listing(&ours20, "merge"), recorded(19, "merge"));
}

/// LLVM 14's own options: what `llvm-profdata-14 SUB --help-hidden` lists apart from LLVM's
/// global options, which sanstats-14 (the same build, one option of its own) lists outside
/// its generic ones.
fn llvm14_own(real: &Path, sanstats: &Path, sub: &str) -> BTreeSet<String> {
    let (rc, out, _) = run_full(Command::new(sanstats).arg("--help-hidden"));
    assert_eq!(rc, 0);
    let globals = listed(&out, true);
    help_listing(real, sub)
        .into_iter()
        .filter(|o| !globals.contains(o))
        .collect()
}

/// Acceptance: for each of llvm-profdata 14, 19, 22 and 23 and each of merge, show and
/// overlap, the options the real tool lists are the drop-in's (and the recorded listing is
/// up to date).
#[test]
fn option_tables_match_each_real_release() {
    let test = "option tables against the real releases";
    for n in RELEASES {
        let Some(real) = tool(&format!("llvm-profdata-{n}"), test) else {
            continue;
        };
        let sanstats = if n == 14 {
            match tool("sanstats-14", test) {
                Some(s) => Some(s),
                None => continue,
            }
        } else {
            None
        };
        let (_g, ours) = ours_named(n);
        for sub in ["merge", "show", "overlap"] {
            let theirs = match &sanstats {
                Some(s) => llvm14_own(&real, s, sub),
                None => help_listing(&real, sub),
            };
            let mine = help_listing(&ours, sub);
            let missing: Vec<_> = theirs.difference(&mine).collect();
            let extra: Vec<_> = mine.difference(&theirs).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "llvm-profdata-{n} {sub}: the drop-in lacks {missing:?} and lists {extra:?} \
                 in addition"
            );
            // The help's head (overview, subcommand, usage) is the release's too.
            let head = |bin: &Path| {
                let (_, out, _) = run_full(Command::new(bin).args([sub, "--help"]));
                out.lines()
                    .take(6)
                    .collect::<Vec<_>>()
                    .join("\n")
                    .replace(&format!("llvm-profdata-{n} "), "llvm-profdata ")
            };
            assert_eq!(head(&real), head(&ours), "llvm-profdata-{n} {sub} --help");
            assert_eq!(
                theirs,
                recorded(n, sub),
                "llvm-profdata-{n} {sub}: testdata/llvm-profdata-options is out of date \
                 (run its regenerate.sh)"
            );
        }
    }
}

/// stderr with the program path of the `Try:` hint left out (the real 22 and 23 run from
/// their own directory) and, for LLVM 14, without its "Did you mean" line (it also weighs
/// LLVM's ~2000 code-generation options, which the drop-in does not take).
fn comparable(stderr: &str, n: u32) -> String {
    let re = regex::Regex::new(r"(Try|Run): '?[^' ]*?(llvm-profdata[^' ]*)").unwrap();
    let s = re.replace_all(stderr, "$1: PROGRAM");
    let s = s.replace(&format!("llvm-profdata-{n}"), "llvm-profdata");
    s.lines()
        .filter(|l| n > 14 || !l.contains("Did you mean"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// One run of `bin` with `args`, `-o OUT` appended for merge: exit code, stdout, stderr and
/// the output's bytes (empty if none).
fn run_case(bin: &Path, args: &[&str], out: &Path) -> (i32, String, String, Vec<u8>) {
    let _ = std::fs::remove_file(out);
    let mut c = Command::new(bin);
    c.args(args);
    if args[0] == "merge" {
        c.arg("-o").arg(out);
    }
    let (rc, stdout, stderr) = run_full(&mut c);
    (rc, stdout, stderr, std::fs::read(out).unwrap_or_default())
}

/// Runs `args` with the real llvm-profdata-N and the drop-in named after it; asserts the
/// same exit code, stderr (see [`comparable`]), stdout and output bytes. Returns the
/// real tool's exit code, or None if it is not installed.
fn same_as_release(n: u32, args: &[&str], what: &str) -> Option<i32> {
    let real = tool(&format!("llvm-profdata-{n}"), what)?;
    let (_g, ours) = ours_named(n);
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = run_case(&real, args, &out);
    let b = run_case(&ours, args, &out);
    assert_eq!(
        (a.0, comparable(&a.2, n)),
        (b.0, comparable(&b.2, n)),
        "llvm-profdata-{n} {args:?} ({what}): exit code or message"
    );
    assert_eq!(a.1, b.1, "llvm-profdata-{n} {args:?} ({what}): stdout");
    assert!(
        a.3 == b.3,
        "llvm-profdata-{n} {args:?} ({what}): output bytes"
    );
    Some(a.0)
}

fn text_profile() -> String {
    root()
        .join("testdata/profdata/clang14-ir-llvm14.proftext")
        .display()
        .to_string()
}

/// Acceptance: `--weighted-input` as each release reads it: a blank before or after the
/// weight, 0, a sign, 2^64 are "input weight must be a positive integer"; a blank after the
/// comma is part of the file name; weights up to 2^64 − 1 are taken.
#[test]
fn weights_are_read_as_each_release_reads_them() {
    let t = text_profile();
    let refused = [
        format!("--weighted-input= 3,{t}"),
        format!("--weighted-input=3 ,{t}"),
        format!("--weighted-input=0,{t}"),
        format!("--weighted-input=-1,{t}"),
        format!("--weighted-input=+3,{t}"),
        format!("--weighted-input=1.5,{t}"),
        format!("--weighted-input=0x3,{t}"),
        format!("--weighted-input=18446744073709551616,{t}"),
    ];
    let missing = [
        format!("--weighted-input=3, {t}"),
        "--weighted-input=3".into(),
    ];
    let taken = [
        format!("--weighted-input=03,{t}"),
        format!("--weighted-input=4294967296,{t}"),
    ];
    for n in RELEASES {
        for a in &refused {
            let Some(rc) = same_as_release(n, &["merge", a], "weights") else {
                break;
            };
            assert_eq!(rc, 1, "{n} {a}");
        }
        for a in missing.iter().chain(&taken) {
            let Some(rc) = same_as_release(n, &["merge", a], "weights") else {
                break;
            };
            assert_eq!(
                rc,
                i32::from(a.contains(", ") || !a.contains(',')),
                "{n} {a}"
            );
        }
    }
}

/// The `FILE: FUNCTION: counter overflow` lines of a merge's stderr, whatever the prefix.
fn overflow_lines(stderr: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"(\S+: [^ ]+: counter overflow)").unwrap();
    re.captures_iter(stderr).map(|c| c[1].to_string()).collect()
}

/// Acceptance: weights of 10^18 and up to 2^64 − 1 are taken and the counts saturate, with
/// llvm-profdata's warning for each function (ours adds "counts saturated" after it), and the
/// same output bytes (LLVM 14 saturates at 2^64 − 1, later releases and ours at 2^64 − 3:
/// for 14 the bytes are not compared).
#[test]
fn huge_weights_saturate_as_each_release_does() {
    let t = text_profile();
    for n in RELEASES {
        let Some(real) = tool(&format!("llvm-profdata-{n}"), "huge weights") else {
            continue;
        };
        let (_g, ours) = ours_named(n);
        let dir = tempdir();
        let out = dir.path().join("out");
        for w in [
            "999999999999999999",
            "1000000000000000000",
            "18446744073709551615",
        ] {
            let arg = format!("--weighted-input={w},{t}");
            let a = run_case(&real, &["merge", &arg], &out);
            let b = run_case(&ours, &["merge", &arg], &out);
            assert_eq!((a.0, b.0), (0, 0), "{n} {w}: {}", b.2);
            let warned = overflow_lines(&a.2);
            assert!(!warned.is_empty(), "{n} {w}: {}", a.2);
            assert_eq!(warned, overflow_lines(&b.2), "{n} {w}: warnings");
            if n > 14 {
                assert!(
                    a.3 == b.3,
                    "llvm-profdata-{n} weight {w}: output bytes differ"
                );
            }
        }
    }
}

/// Acceptance: `merge --sample --split-layout` is an unknown option for 14 and 19, as they
/// say, and writes the same bytes as 21, 22 and 23.
#[test]
fn split_layout_exists_from_21() {
    let flat = root().join("testdata/sample/flat.prof.txt");
    let f = flat.display().to_string();
    for n in RELEASES {
        let Some(rc) = same_as_release(n, &["merge", "--sample", "--split-layout", &f], "split")
        else {
            continue;
        };
        assert_eq!(rc, i32::from(n < 21), "llvm-profdata-{n}");
    }
}

/// Acceptance: `--extbinary-write-vtable-type-prof` is LLVM 22's and 23's (unlisted): taken
/// and ignored in instrumentation merges as they do; 14 and 19 do not know it. In `merge
/// --sample` it writes type counts into extbinary output (compared byte for byte in
/// `sample_vtables`); here, that the drop-in takes it there and gives it effect.
#[test]
fn vtable_type_profile_option_from_22() {
    let t = text_profile();
    for n in RELEASES {
        let args = ["merge", "--extbinary-write-vtable-type-prof", &t];
        let Some(rc) = same_as_release(n, &args, "vtable type profiles") else {
            continue;
        };
        assert_eq!(rc, i32::from(n < 22), "llvm-profdata-{n}");
    }
    let input = root().join("testdata/sample/vtables.prof.txt");
    for n in [22, 23] {
        let (_g, ours) = ours_named(n);
        let dir = tempdir();
        let write = |flag: &[&str], name: &str| {
            let out = dir.path().join(name);
            let (rc, _, err) = run_full(
                Command::new(&ours)
                    .args(["merge", "--sample"])
                    .args(flag)
                    .arg(&input)
                    .arg("-o")
                    .arg(&out),
            );
            assert_eq!(rc, 0, "{err}");
            std::fs::read(out).expect("output")
        };
        let with = write(&["--extbinary-write-vtable-type-prof"], "with.afdo");
        let without = write(&[], "without.afdo");
        let off = write(&["--extbinary-write-vtable-type-prof=false"], "off.afdo");
        assert_eq!(off, without, "llvm-profdata-{n}");
        assert!(with.len() > without.len(), "llvm-profdata-{n}");
        assert!(
            memchr_find(&with, b"_ZTV4Leaf").is_some()
                && memchr_find(&without, b"_ZTV4Leaf").is_none(),
            "llvm-profdata-{n}: the vtable names join the name table"
        );
    }
}

/// Where `needle` first occurs in `hay`.
fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Acceptance: `--sample-frame-depth-for-cold-context=0`, which llvm-profdata takes (and
/// then writes an empty context its own reader cannot read), is refused in sample merges in
/// llvm-profdata's error format; in instrumentation merges, where llvm-profdata ignores it,
/// it is ignored.
#[test]
fn zero_frame_depth_is_refused_in_sample_merges() {
    let cs = root().join("testdata/sample/cs.prof.txt");
    let t = text_profile();
    for n in RELEASES {
        let (_g, ours) = ours_named(n);
        let dir = tempdir();
        let (rc, out, err) = run_full(
            Command::new(&ours)
                .args([
                    "merge",
                    "--sample",
                    "--sample-merge-cold-context",
                    "--sample-frame-depth-for-cold-context=0",
                ])
                .arg(&cs)
                .arg("-o")
                .arg(dir.path().join("o.afdo")),
        );
        assert_eq!((rc, out.as_str()), (1, ""), "{n}: {err}");
        assert!(
            err.starts_with("error: --sample-frame-depth-for-cold-context=0 is not supported")
                && err.lines().count() == 1,
            "{n}: {err}"
        );
        same_as_release(
            n,
            &["merge", "--sample-frame-depth-for-cold-context=0", &t],
            "frame depth 0 in an instrumentation merge",
        );
    }
    // Why: llvm-profdata-22 cuts a cold context to nothing and writes `[]`, which its own
    // text reader crashes on (SIGSEGV in the summary's MD5 of the empty name).
    let Some(real) = tool("llvm-profdata-22", "frame depth 0") else {
        return;
    };
    let dir = tempdir();
    let cold = dir.path().join("cold.txt");
    std::fs::write(
        &cold,
        "[main:1 @ foo:2 @ bar]:100000000:1\n 1: 100000000\n[main:3 @ baz:4 @ qux]:1:0\n 1: 1\n",
    )
    .unwrap();
    let out = dir.path().join("out.txt");
    let (rc, _, err) = run_full(
        Command::new(&real)
            .args([
                "merge",
                "--sample",
                "--text",
                "--sample-merge-cold-context",
                "--sample-frame-depth-for-cold-context=0",
            ])
            .arg(&cold)
            .arg("-o")
            .arg(&out),
    );
    assert_eq!(rc, 0, "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("\n[]:1:0\n"), "{written}");
}

/// Acceptance: bad values and unknown options are refused as each release refuses them, in
/// its words (uint, ulong and enum values; LLVM 14 names the subcommand with the program);
/// values LLVM's parsers take (`0x2`) are taken.
#[test]
fn values_are_checked_as_each_release_checks_them() {
    let t = text_profile();
    let merge: &[&[&str]] = &[
        &["-j=x"],
        &["--num-threads=-1"],
        &["-j=99999999999"],
        &["-j=0x2"],
        &["--failure-mode=bogus"],
        &["--failure-mode=warn"],
        &["--sparse=yes"],
        &["--output-size-limit=x"],
        &["-sprase"],
        &["--function=main"],
        &["--write-prev-version"],
        &["--temporal-profile-max-trace-length=0x10"],
        &["--convert-sample-profile-layout=bogus"],
    ];
    let show: &[&[&str]] = &[
        &["--topn=x"],
        &["--topn=0x3"],
        &["--value-cutoff=-1"],
        &["--show-format=bogus"],
        &["--show-format=yaml"],
        &["--detailed-summary-cutoffs=500000,x"],
        &["--detailed-summary-cutoffs=0x7a120"],
        &["--show-vtables"],
        &["--profile-version"],
    ];
    for n in RELEASES {
        for (sub, cases) in [("merge", merge), ("show", show)] {
            for case in cases {
                let mut args = vec![sub];
                args.extend_from_slice(case);
                args.push(&t);
                if same_as_release(n, &args, "values").is_none() {
                    break;
                }
            }
        }
    }
}

/// Acceptance: `show` of raw, indexed and text profiles prints what the release the drop-in
/// is named after prints (19 and 14: no `instrument_loop_entries`, the block count and total
/// only with `--detailed-summary`, in their wording and order).
#[test]
fn show_prints_what_each_release_prints() {
    let views: &[&[&str]] = &[
        &[],
        &["--detailed-summary", "--topn=2", "--value-cutoff=3"],
        &["--all-functions", "--counts"],
        &[
            "--hot-func-list",
            "--list-below-cutoff",
            "--value-cutoff=20",
        ],
        &["--ic-targets", "--memop-sizes", "--all-functions"],
        &[
            "--function=main",
            "--detailed-summary-cutoffs=500000,990000",
        ],
    ];
    for n in RELEASES {
        let mut files = vec![
            raw(&format!("clang{}/ir-basic-run1.profraw", recorded_by(n))),
            raw(&format!("clang{}/fe-basic.profraw", recorded_by(n))),
            // Functions of equal counts: --topn's order of ties.
            raw(&format!("clang{}/entry-coverage.profraw", recorded_by(n))),
            root().join("testdata/profdata/clang14-ir-llvm14.profdata"),
            root().join("testdata/profdata/clang14-ir-llvm14.proftext"),
        ];
        if n >= 19 {
            files.push(root().join("testdata/profdata/rustc-ir-llvm19.profdata"));
        }
        for f in &files {
            assert!(f.is_file(), "{}", f.display());
            let f = f.display().to_string();
            for v in views {
                let mut args = vec!["show"];
                args.extend_from_slice(v);
                args.push(&f);
                if same_as_release(n, &args, "show").is_none() {
                    return;
                }
            }
        }
    }
}

/// Without a subcommand, or with one the release does not have, the drop-in says what the
/// release says (LLVM 14: "No command specified!" and its usage line; LLVM 19 misspells the
/// program in its hint).
#[test]
fn top_level_messages_per_release() {
    for n in RELEASES {
        let Some(real) = tool(&format!("llvm-profdata-{n}"), "top-level messages") else {
            continue;
        };
        let (_g, ours) = ours_named(n);
        // `order` exists from LLVM 17: without a profile it opens the empty file name.
        for args in [&[][..], &["bogus"], &["order"]] {
            let (a_rc, a_out, a_err) = run_full(Command::new(&real).args(args));
            let (b_rc, b_out, b_err) = run_full(Command::new(&ours).args(args));
            assert_eq!(
                (a_rc, a_out, comparable(&a_err, n)),
                (b_rc, b_out, comparable(&b_err, n)),
                "llvm-profdata-{n} {args:?}"
            );
        }
    }
}

/// `overlap` of instrumentation profiles prints what the release prints (before 22 its
/// heading says "infomation").
#[test]
fn overlap_prints_what_each_release_prints() {
    let indexed = root().join("testdata/profdata/clang14-ir-llvm14.profdata");
    for n in RELEASES {
        let run1 = raw(&format!("clang{}/ir-basic-run1.profraw", recorded_by(n)));
        let run2 = raw(&format!("clang{}/ir-basic-run2.profraw", recorded_by(n)));
        for pair in [[&run1, &run2], [&indexed, &run1]] {
            let (a, b) = (pair[0].display().to_string(), pair[1].display().to_string());
            for opts in [&[][..], &["--value-cutoff=1"], &["--function=main"]] {
                let mut args = vec!["overlap"];
                args.extend_from_slice(opts);
                args.extend([a.as_str(), b.as_str()]);
                if same_as_release(n, &args, "overlap").is_none() {
                    return;
                }
            }
        }
    }
}

/// Options llvm-profdata takes and does nothing with: `--print-options` and
/// `--print-all-options` (it never prints its option values), and LLVM 22+'s global
/// `--correlate` and `--debug-file-directory` outside merge (their values still checked, and
/// a separate value still taken). The drop-in refused them.
#[test]
fn options_without_effect_are_taken_as_each_release_takes_them() {
    let t = text_profile();
    let both = ["--print-options", "--print-all-options"];
    for n in RELEASES {
        for opt in both {
            same_as_release(n, &["show", opt, &t], "options without effect");
            same_as_release(n, &["merge", opt, &t], "options without effect");
            same_as_release(n, &["overlap", opt, &t, &t], "options without effect");
        }
        if n < 22 {
            continue;
        }
        for case in [
            &["show", "--correlate=binary", &t][..],
            &["show", "--correlate=bogus", &t],
            &["show", "--debug-file-directory", "/tmp", &t],
            &["overlap", "--correlate=debug-info", &t, &t],
            &["overlap", "--debug-file-directory=/tmp", &t, &t],
        ] {
            same_as_release(n, case, "options without effect");
        }
    }
}

/// Sample profiles where releases differ: the detailed summary's wording (21 prints 22's),
/// overlap's "infomation" (21 and earlier), ` !Flat` (21 takes it) and `vtables` lines (22
/// reads them as type counts, earlier releases as an inlined callee), compared with each
/// release.
#[test]
fn sample_views_follow_each_release() {
    let s = |n: &str| root().join("testdata/sample").join(n).display().to_string();
    let dir = tempdir();
    let flat_marker = dir.path().join("flat-marker.prof.txt");
    std::fs::write(&flat_marker, "f:10:1\n 1: 10\n !Flat\n").expect("write");
    let fm = flat_marker.display().to_string();
    let cases: Vec<Vec<String>> = vec![
        vec![
            "show".into(),
            "--sample".into(),
            "--detailed-summary".into(),
            s("real-autofdo.prof.txt"),
        ],
        vec![
            "show".into(),
            "--sample".into(),
            "--detailed-summary".into(),
            s("cs.prof.txt"),
        ],
        vec![
            "overlap".into(),
            "--sample".into(),
            s("flat.prof.txt"),
            s("flat-second.prof.txt"),
        ],
        vec![
            "merge".into(),
            "--sample".into(),
            "--text".into(),
            s("vtables.prof.txt"),
        ],
        vec!["show".into(), "--sample".into(), s("vtables.prof.txt")],
    ];
    for n in RELEASES {
        for c in &cases {
            let args: Vec<&str> = c.iter().map(String::as_str).collect();
            if same_as_release(n, &args, "sample_views_follow_each_release").is_none() {
                break;
            }
        }
        // Before 21 both refuse ` !Flat` (each in its own words).
        let args = ["merge", "--sample", "--text", fm.as_str()];
        if n >= 21 {
            same_as_release(n, &args, "sample_views_follow_each_release");
        } else if let Some(real) = tool_quietly(&format!("llvm-profdata-{n}")) {
            let (_g, ours) = ours_named(n);
            let out = dir.path().join("out");
            assert_ne!(run_case(&real, &args, &out).0, 0, "llvm-profdata-{n}");
            assert_ne!(run_case(&ours, &args, &out).0, 0, "ours as {n}");
        }
    }
}

/// An executable on PATH, or None (the loud SKIPPED line comes from [`same_as_release`]).
fn tool_quietly(name: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
