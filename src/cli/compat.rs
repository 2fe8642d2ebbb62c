//! llvm-profdata's command-line spellings.
//!
//! LLVM's option parser accepts long options with one or two dashes (`-failure-mode=all`,
//! `--failure-mode all`), boolean options with an explicit value (`-sparse=true`), and
//! enum-valued options spelled as bare flags (`-instr`, `-text`, `-binary`). This module
//! rewrites such arguments into the `--name[=value]` form our clap definitions understand, and
//! rejects, with a clear message, the llvm-profdata options we do not implement — they are
//! never silently ignored.

/// llvm-profdata options we know but do not implement, with the reason given to the user.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "sample",
        "sample (AutoFDO) profiles are not supported; pgo-merge handles instrumentation profiles",
    ),
    ("memory", "MemProf profiles are not supported"),
    ("gcc", "GCC sample profiles are not supported"),
    (
        "debug-info",
        "correlation with debug info is not supported: merge profiles written without -profile-correlate",
    ),
    (
        "binary-file",
        "correlation with a binary is not supported: merge profiles written without -profile-correlate",
    ),
    ("correlate", "profile correlation is not supported"),
    ("debuginfod", "profile correlation is not supported"),
    (
        "debug-file-directory",
        "profile correlation is not supported",
    ),
    ("profiled-binary", "MemProf profiles are not supported"),
    (
        "supplement-instr-with-sample",
        "supplementing with sample profiles is not supported",
    ),
    (
        "zero-counter-threshold",
        "supplementing with sample profiles is not supported",
    ),
    (
        "suppl-min-size-threshold",
        "supplementing with sample profiles is not supported",
    ),
    (
        "instr-prof-cold-threshold",
        "supplementing with sample profiles is not supported",
    ),
    ("output-size-limit", "--output-size-limit is not supported"),
    (
        "prof-sym-list",
        "profile symbol lists are sample-profile features",
    ),
    (
        "compress-all-sections",
        "an extbinary sample-profile option",
    ),
    ("use-md5", "an extbinary sample-profile option"),
    ("split-layout", "an extbinary sample-profile option"),
    ("gen-partial-profile", "an extbinary sample-profile option"),
    ("convert-sample-profile-layout", "a sample-profile option"),
    ("drop-profile-symbol-list", "a sample-profile option"),
    ("sample-merge-cold-context", "a sample-profile option"),
    ("sample-trim-cold-context", "a sample-profile option"),
    (
        "sample-frame-depth-for-cold-context",
        "a sample-profile option",
    ),
    ("memprof-version", "MemProf profiles are not supported"),
    ("memprof-full-schema", "MemProf profiles are not supported"),
    (
        "memprof-random-hotness",
        "MemProf profiles are not supported",
    ),
    (
        "random-seed",
        "temporal traces are sampled with LLVM's default seed only",
    ),
    (
        "max-debug-info-correlation-warnings",
        "profile correlation is not supported",
    ),
    ("fs-discriminator-pass", "a sample-profile option"),
    ("show-prof-sym-list", "a sample-profile option"),
    ("show-sec-info-only", "a sample-profile option"),
    ("show-composite-info-only", "a sample-profile option"),
    ("similarity-cutoff", "a sample-profile option"),
    ("num-test-traces", "the order subcommand is not supported"),
];

/// Rewrites llvm-profdata spellings of the options `cmd` defines into `--name[=value]` form.
/// Arguments that are not options (and everything after `--`) pass unchanged; short options
/// pass unchanged (clap reads `-o FILE` and `-o=FILE`). Returns the message of the first
/// unsupported or unknown single-dash option; unknown double-dash options are left for clap
/// to report.
pub fn normalize(args: &[String], cmd: &clap::Command) -> Result<Vec<String>, String> {
    let lookup = |name: &str| -> Option<bool> {
        cmd.get_arguments().find_map(|a| {
            let matches = a.get_long() == Some(name)
                || a.get_all_aliases().is_some_and(|al| al.contains(&name));
            matches.then(|| a.get_action().takes_values())
        })
    };
    let mut out = Vec::with_capacity(args.len());
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "--" {
            out.push(a.clone());
            out.extend(iter.cloned());
            break;
        }
        if a == "-" || !a.starts_with('-') {
            out.push(a.clone());
            continue;
        }
        let body = a.trim_start_matches('-');
        let dashes = a.len() - body.len();
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if dashes == 1 && name.chars().count() == 1 {
            out.push(a.clone());
            continue;
        }
        if dashes > 2 || name.is_empty() {
            return Err(format!("unknown option {a:?}"));
        }
        if let Some((_, why)) = UNSUPPORTED.iter().find(|(n, _)| *n == name) {
            return Err(format!(
                "llvm-profdata option -{name} is not supported by pgo-merge: {why}"
            ));
        }
        match lookup(name) {
            Some(true) => out.push(match value {
                Some(v) => format!("--{name}={v}"),
                None => format!("--{name}"),
            }),
            Some(false) => match value {
                None | Some("true" | "TRUE" | "True" | "1") => out.push(format!("--{name}")),
                Some("false" | "FALSE" | "False" | "0") => {}
                Some(v) => return Err(format!("option -{name} takes no value (got {v:?})")),
            },
            None if dashes == 2 => out.push(a.clone()),
            // A short option with its value attached (`-j1`, `-oout.profdata`).
            None if short_takes_value(cmd, body.chars().next()) => out.push(a.clone()),
            None => return Err(format!("unknown option {a:?} (see --help)")),
        }
    }
    Ok(out)
}

/// True if `c` is a short option of `cmd` that takes a value.
fn short_takes_value(cmd: &clap::Command, c: Option<char>) -> bool {
    c.is_some_and(|c| {
        cmd.get_arguments()
            .any(|a| a.get_short() == Some(c) && a.get_action().takes_values())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{MergeArgs, ShowArgs};
    use clap::CommandFactory;

    fn n(args: &[&str], cmd: &clap::Command) -> Result<Vec<String>, String> {
        normalize(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>(), cmd)
    }

    #[test]
    fn llvm_spellings() {
        let merge = MergeArgs::command();
        assert_eq!(
            n(
                &[
                    "-failure-mode=all",
                    "-sparse",
                    "-o",
                    "x",
                    "a.profraw",
                    "-instr"
                ],
                &merge
            )
            .unwrap(),
            vec![
                "--failure-mode=all",
                "--sparse",
                "-o",
                "x",
                "a.profraw",
                "--instr"
            ]
        );
        assert_eq!(
            n(
                &[
                    "--sparse=false",
                    "-sparse=true",
                    "-num-threads=4",
                    "-weighted-input=2,a",
                    "-j2"
                ],
                &merge
            )
            .unwrap(),
            vec!["--sparse", "--num-threads=4", "--weighted-input=2,a", "-j2"]
        );
        assert_eq!(n(&["-j1", "-oout"], &merge).unwrap(), vec!["-j1", "-oout"]);
        assert!(n(&["-sprase"], &merge).is_err());
        assert_eq!(
            n(&["--", "-weird-file"], &merge).unwrap(),
            vec!["--", "-weird-file"]
        );
        let show = ShowArgs::command();
        assert_eq!(
            n(&["-all-functions", "-counts", "f"], &show).unwrap(),
            vec!["--all-functions", "--counts", "f"]
        );
    }

    #[test]
    fn rejects_clearly() {
        let merge = MergeArgs::command();
        let e = n(&["-debug-info=a.out"], &merge).unwrap_err();
        assert!(
            e.contains("not supported") && e.contains("debug-info"),
            "{e}"
        );
        let e = n(&["--sample"], &merge).unwrap_err();
        assert!(e.contains("sample"), "{e}");
        assert!(
            n(&["-bogus"], &merge)
                .unwrap_err()
                .contains("unknown option")
        );
        assert!(n(&["---output=x"], &merge).is_err());
        assert!(n(&["-counts"], &merge).is_err());
    }
}
