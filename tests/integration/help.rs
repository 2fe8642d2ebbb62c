//! What a newcomer reads first: `--help` with every option under a heading that says what it
//! is for, a man page whose SYNOPSIS shows `-o FILE`, and a `--version` that says which LLVM
//! releases read the default output.

use crate::common::{assert_ok, index_version, man_rendered, pgo_merge, raw, run_ours, tempdir};

/// A help text cut into its sections: (heading, the options listed under it). An option is a
/// line indented by 2 (`-o, --output`) or 6 (`    --text`) spaces that starts with `-`;
/// descriptions are indented further or follow on the same line.
fn sections(help: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            out.push((line.trim_end_matches(':').to_string(), Vec::new()));
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if (indent == 2 || indent == 6)
            && line.trim_start().starts_with('-')
            && let Some((_, options)) = out.last_mut()
        {
            let names = line.trim_start().split("  ").next().unwrap_or_default();
            options.push(names.to_string());
        }
    }
    out
}

/// The heading an option (`--name`, as help lists it) is under.
fn heading_of<'a>(sections: &'a [(String, Vec<String>)], option: &str) -> Option<&'a str> {
    sections
        .iter()
        .find(|(_, opts)| {
            opts.iter()
                .any(|o| o.split([',', ' ']).any(|w| w == option))
        })
        .map(|(h, _)| h.as_str())
}

/// Where merge's options are: under headings named for what they are for, `Options` keeping
/// only `-h` and `-V`.
const MERGE_HEADINGS: &[(&str, &[&str])] = &[
    (
        "Inputs",
        &[
            "--weighted-input",
            "--input-files",
            "--failure-mode",
            "--remapping-file",
        ],
    ),
    (
        "Output",
        &["--output", "--output-format", "--text", "--function"],
    ),
    (
        "LLVM instrumentation profiles",
        &[
            "--format-version",
            "--target-llvm",
            "--sparse",
            "--strict-target",
        ],
    ),
    (
        "LLVM sample profiles",
        &["--sample", "--use-md5", "--sample-trim-cold-context"],
    ),
    (
        "GraalVM .iprof profiles",
        &["--max-context-depth", "--cold-threshold", "--lenient"],
    ),
    ("Run", &["--threads", "--no-progress", "--quiet"]),
];

/// Checks that every option of `help` is under a heading of its own, that `Options` holds only
/// help and version, and that `headings` come in this order.
fn assert_grouped(what: &str, help: &str, headings: &[&str]) {
    let s = sections(help);
    let names: Vec<&str> = s.iter().map(|(h, _)| h.as_str()).collect();
    let at = |h: &str| names.iter().position(|n| *n == h);
    let mut last = 0;
    for h in headings {
        let i = at(h).unwrap_or_else(|| panic!("{what}: no heading {h:?} in {names:?}\n{help}"));
        assert!(i >= last, "{what}: {h:?} out of order in {names:?}");
        last = i;
    }
    let options = s.iter().find(|(h, _)| h == "Options").map(|(_, o)| o);
    for o in options.into_iter().flatten() {
        assert!(
            o.contains("--help") || o.contains("--version"),
            "{what}: {o} has no heading of its own:\n{help}"
        );
    }
    let listed: usize = s.iter().map(|(_, o)| o.len()).sum();
    assert!(listed > headings.len(), "{what}: {s:?}");
}

#[test]
fn help_lists_every_option_under_a_heading() {
    let headings: Vec<&str> = MERGE_HEADINGS.iter().map(|(h, _)| *h).collect();
    for args in [
        &["--help"][..],
        &["-h"],
        &["merge", "--help"],
        &["merge", "-h"],
    ] {
        let out = run_ours(args);
        assert_ok(&out, &format!("{args:?}"));
        let help = String::from_utf8_lossy(&out.stdout);
        assert_grouped(&format!("{args:?}"), &help, &headings);
        let s = sections(&help);
        for (heading, options) in MERGE_HEADINGS {
            for o in *options {
                assert_eq!(
                    heading_of(&s, o),
                    Some(*heading),
                    "{args:?}: {o} is not under {heading}:\n{help}"
                );
            }
        }
    }
    let show = run_ours(["show", "--help"]);
    let show = String::from_utf8_lossy(&show.stdout);
    assert_grouped(
        "show",
        &show,
        &["Functions", "Details", "Output", "LLVM sample profiles"],
    );
    let s = sections(&show);
    for (o, h) in [
        ("--topn", "Functions"),
        ("--counts", "Details"),
        ("--json", "Output"),
        ("--show-sec-info-only", "LLVM sample profiles"),
        ("--fs-discriminator-pass", "LLVM sample profiles"),
    ] {
        assert_eq!(heading_of(&s, o), Some(h), "show {o}:\n{show}");
    }
    let overlap = run_ours(["overlap", "--help"]);
    let overlap = String::from_utf8_lossy(&overlap.stdout);
    assert_grouped(
        "overlap",
        &overlap,
        &["Functions", "Output", "LLVM sample profiles"],
    );
    let s = sections(&overlap);
    for (o, h) in [
        ("--value-cutoff", "Functions"),
        ("--output", "Output"),
        ("--similarity-cutoff", "LLVM sample profiles"),
    ] {
        assert_eq!(heading_of(&s, o), Some(h), "overlap {o}:\n{overlap}");
    }
}

/// The synopses the man page must show (as `man` renders them).
const SYNOPSES: &[&str] = &[
    "pgo-merge [OPTIONS] INPUT... -o FILE",
    "pgo-merge merge [OPTIONS] INPUT... -o FILE",
    "pgo-merge show [OPTIONS] FILE...",
    "pgo-merge overlap [OPTIONS] BASE TEST",
    "pgo-merge symbolize [OPTIONS] --perf-script FILE -o FILE",
    "pgo-merge completions SHELL",
];

#[test]
fn man_page_synopsis_shows_the_output_option() {
    let out = run_ours(["man"]);
    assert_ok(&out, "man");
    let page = String::from_utf8_lossy(&out.stdout).into_owned();
    // In the roff source: `-o` (bold) in the SYNOPSIS section.
    let synopsis = page
        .split("\n.SH SYNOPSIS\n")
        .nth(1)
        .and_then(|s| s.split("\n.SH ").next())
        .unwrap_or_else(|| panic!("no SYNOPSIS:\n{page}"));
    assert!(synopsis.contains("\\fB\\-o\\fR"), "{synopsis}");
    // As man shows it.
    let Some(text) = man_rendered(page.as_bytes(), "man_page_synopsis_shows_the_output_option")
    else {
        return;
    };
    let shown = text
        .split("\nSYNOPSIS\n")
        .nth(1)
        .and_then(|s| s.split("\nDESCRIPTION\n").next())
        .unwrap_or_else(|| panic!("no SYNOPSIS:\n{text}"));
    let lines: Vec<&str> = shown.lines().map(str::trim).collect();
    for s in SYNOPSES {
        assert!(lines.contains(s), "SYNOPSIS lacks {s:?}:\n{shown}");
    }
    // Each command's section repeats its synopsis.
    for s in &SYNOPSES[1..] {
        assert_eq!(
            text.lines().filter(|l| l.trim() == *s).count(),
            2,
            "{s:?} in SYNOPSIS and in its command's section:\n{text}"
        );
    }
    // The options under their headings, as subsections of OPTIONS.
    for h in ["OPTIONS", "   INPUTS", "   LLVM SAMPLE PROFILES", "   RUN"] {
        assert!(text.lines().any(|l| l == h), "no {h:?}:\n{text}");
    }
}

/// `--version` names the index version merge writes by default and the oldest LLVM release
/// that reads it, and both are true: a default merge writes that version, `--target-llvm`
/// of that release writes it too, and of the release before an older one. With
/// PGO_MERGE_TARGET_LLVM set, it names the version written for that release, and a merge
/// writes it.
#[test]
fn version_says_which_llvm_reads_the_default_output() {
    const ENV: &str = "PGO_MERGE_TARGET_LLVM";
    let ours = |args: &[String], env: Option<&str>| {
        let mut cmd = pgo_merge();
        cmd.args(args).env_remove(ENV);
        if let Some(v) = env {
            cmd.env(ENV, v);
        }
        cmd.output().expect("run pgo-merge")
    };
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let out = ours(&strings(&["--version"]), None);
    assert_ok(&out, "--version");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let number_after = |text: &str, what: &str| -> u32 {
        let rest = text
            .split(what)
            .nth(1)
            .unwrap_or_else(|| panic!("--version lacks {what:?}: {text}"));
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().unwrap_or_else(|_| panic!("{text}"))
    };
    assert!(
        text.starts_with(&format!("pgo-merge {} (", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    let version = number_after(&text, "writes indexed profiles version ");
    let llvm = number_after(&text, "read by LLVM ");
    assert!(text.contains(&format!("LLVM {llvm} and later")), "{text}");
    // The same line for -V and for each command.
    for args in [&["-V"][..], &["show", "--version"], &["merge", "-V"]] {
        let out = ours(&strings(args), None);
        assert_eq!(String::from_utf8_lossy(&out.stdout), text, "{args:?}");
    }
    let dir = tempdir();
    let input = raw("clang22/ir-basic-run1.profraw");
    let written = |name: &str, extra: &[String], env: Option<&str>| -> u32 {
        let path = dir.path().join(name);
        let mut args = vec![
            input.display().to_string(),
            "-o".into(),
            path.display().to_string(),
        ];
        args.extend(extra.iter().cloned());
        assert_ok(&ours(&args, env), name);
        index_version(&path)
    };
    assert_eq!(written("default.profdata", &[], None), version, "{text}");
    let target = |m: u32| vec!["--target-llvm".to_string(), m.to_string()];
    assert_eq!(written("target.profdata", &target(llvm), None), version);
    assert!(
        written("older.profdata", &target(llvm - 1), None) < version,
        "LLVM {} reads version {version} already: {text}",
        llvm - 1
    );
    // For the release PGO_MERGE_TARGET_LLVM names.
    let out = ours(&strings(&["--version"]), Some("19"));
    let for19 = String::from_utf8_lossy(&out.stdout).into_owned();
    let v19 = number_after(&for19, "writes indexed profiles version ");
    assert!(
        for19.contains(&format!("version {v19} for LLVM 19")),
        "{for19}"
    );
    assert_eq!(written("env19.profdata", &[], Some("19")), v19, "{for19}");
}
