use super::dropin::nearest;
use super::table::{Does, GLOBAL, table};
use super::*;
use crate::cli::args::subcommand;

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn text(args: Vec<OsString>) -> Vec<String> {
    args.into_iter()
        .map(|a| a.into_string().expect("UTF-8"))
        .collect()
}

fn n(args: &[&str], cmd: &clap::Command) -> Result<Vec<String>, String> {
    normalize(&os(args), cmd).map(text)
}

fn d(sub: &str, args: &[&str]) -> Result<Vec<String>, Stop> {
    dr(22, sub, args)
}

/// As the drop-in of release `r` rewrites `args` of `sub`.
fn dr(r: u32, sub: &str, args: &[&str]) -> Result<Vec<String>, Stop> {
    dropin_normalize(&dropin(r, sub), &os(args)).map(text)
}

fn dropin(release: u32, sub: &str) -> Dropin<'_> {
    Dropin {
        release,
        sub,
        prog: "llvm-profdata",
        argv0: "llvm-profdata",
    }
}

/// A file name that is not UTF-8 passes through both rewritings byte for byte, alone,
/// after an option or after its `=`.
#[cfg(unix)]
#[test]
fn file_names_are_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let name = OsStr::from_bytes(b"x\xff.profdata");
    let with = |prefix: &str| {
        let mut s = OsString::from(prefix);
        s.push(name);
        s
    };
    let merge = subcommand("merge");
    let args = vec![
        with("-o"),
        with("--output="),
        OsString::from("-o"),
        name.to_owned(),
        with("-weighted-input=2,"),
        name.to_owned(),
    ];
    assert_eq!(
        normalize(&args, &merge).unwrap(),
        vec![
            with("-o"),
            with("--output="),
            OsString::from("-o"),
            name.to_owned(),
            with("--weighted-input=2,"),
            name.to_owned(),
        ]
    );
    let args = vec![
        OsString::from("-o"),
        name.to_owned(),
        with("-input-files="),
        name.to_owned(),
    ];
    assert_eq!(
        dropin_normalize(&dropin(22, "merge"), &args).unwrap(),
        vec![with("--output="), with("--input-files="), name.to_owned()]
    );
}

#[test]
fn llvm_spellings() {
    let merge = subcommand("merge");
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
    assert!(n(&["-sprase"], &merge).unwrap_err().contains("--sparse"));
    assert_eq!(n(&["-help"], &merge).unwrap(), vec!["--help"]);
    assert_eq!(
        n(&["--", "-weird-file"], &merge).unwrap(),
        vec!["--", "-weird-file"]
    );
    let show = subcommand("show");
    assert_eq!(
        n(&["-all-functions", "-counts", "f"], &show).unwrap(),
        vec!["--all-functions", "--counts", "f"]
    );
}

#[test]
fn rejects_clearly() {
    let merge = subcommand("merge");
    // debuginfod is refused by the drop-in; merge --debug-info is passed on.
    assert!(matches!(
        d("merge", &["--debuginfod", "x"]),
        Err(Stop::Failed)
    ));
    assert_eq!(
        d("merge", &["-debug-info=a.out", "x"]).unwrap(),
        vec!["--debug-info=a.out", "x"]
    );
    assert!(
        n(&["-bogus"], &merge)
            .unwrap_err()
            .contains("unknown option")
    );
    assert!(n(&["---output=x"], &merge).is_err());
    assert!(n(&["-counts"], &merge).is_err());
}

/// Every option the drop-in maps to ours exists in our clap definition, and takes a value
/// exactly when llvm-profdata's does.
#[test]
fn tables_map_to_our_options() {
    for sub in ["merge", "show", "overlap"] {
        let cmd = subcommand(sub);
        for o in table(sub).iter().chain(GLOBAL) {
            if let Does::Ours(long) = o.does {
                let arg = cmd
                    .get_arguments()
                    .find(|a| {
                        a.get_long() == Some(long)
                            || a.get_all_aliases().is_some_and(|al| al.contains(&long))
                    })
                    .unwrap_or_else(|| panic!("{sub}: no --{long} for -{}", o.name));
                assert_eq!(
                    arg.get_action().takes_values(),
                    o.value.is_some(),
                    "{sub} --{long}"
                );
            }
        }
    }
}

#[test]
fn dropin_spellings() {
    assert_eq!(
        d(
            "merge",
            &["-o", "x", "-j", "2", "-sparse=0", "-r=m", "--text=1", "a"]
        )
        .unwrap(),
        vec![
            "--output=x",
            "--num-threads=2",
            "--remapping-file=m",
            "--text",
            "a"
        ]
    );
    assert_eq!(
        d("merge", &["-function", "-x", "--", "-a"]).unwrap(),
        vec!["--function=-x", "--", "-a"]
    );
    assert_eq!(d("merge", &["-help"]), Err(Stop::Help));
    assert_eq!(d("merge", &["--help-hidden"]), Err(Stop::Help));
    assert_eq!(d("merge", &["-hx"]), Err(Stop::Help));
    assert_eq!(d("show", &["--version"]), Err(Stop::Version));
    // Not llvm-profdata's: refused.
    for bad in [
        &["-w", "2,a"][..],
        &["--target-llvm=19"],
        &["-j1"],
        &["-q"],
        &["--sparse=yes"],
    ] {
        assert_eq!(d("merge", bad), Err(Stop::Failed), "{bad:?}");
    }
    // Sample merges are llvm-profdata's and ours.
    assert_eq!(
        d("merge", &["-sample", "f"]).unwrap(),
        vec!["--sample", "f"]
    );
    assert_eq!(d("overlap", &["--top-differences=3"]), Err(Stop::Failed));
    assert_eq!(
        d("show", &["--write-prev-version", "f"]).unwrap(),
        vec!["f"]
    );
}

#[test]
fn suggestions_as_llvm() {
    assert_eq!(nearest(22, "merge", "sprase").as_deref(), Some("sparse"));
    assert_eq!(
        nearest(22, "merge", "num-thread=2").as_deref(),
        Some("num-threads=2")
    );
    assert_eq!(nearest(22, "merge", "w").as_deref(), Some("h"));
    assert_eq!(nearest(22, "merge", "bnary").as_deref(), Some("binary"));
    assert_eq!(nearest(22, "show", "sparse").as_deref(), Some("sample"));
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    assert_eq!(typo_distance("shwo", "show"), 1);
    assert_eq!(edit_distance("shwo", "show"), 2);
}

#[test]
fn releases_between_tables_follow_the_lower_one() {
    use super::table::table_release;
    assert_eq!(
        [9, 14, 18, 19, 20, 21, 22, 23, 30].map(table_release),
        [14, 14, 14, 19, 19, 21, 22, 23, 23]
    );
}

/// Each release's options: what it lacks is unknown to its drop-in, with its wording.
#[test]
fn options_per_release() {
    assert_eq!(
        dr(19, "merge", &["--sample", "--split-layout", "f"]),
        Err(Stop::Failed)
    );
    assert_eq!(
        dr(22, "merge", &["--sample", "--split-layout", "f"]).unwrap(),
        vec!["--sample", "--split-layout", "f"]
    );
    assert_eq!(dr(14, "merge", &["--function=x"]), Err(Stop::Failed));
    assert_eq!(
        dr(14, "merge", &["--write-prev-version"]),
        Err(Stop::Failed)
    );
    assert_eq!(dr(14, "merge", &["--compbinary"]), Err(Stop::Failed));
    assert_eq!(
        dr(14, "merge", &["--fs-discriminator-pass=Pass1"]).unwrap(),
        vec!["--fs-discriminator-pass=Pass1"]
    );
    assert_eq!(dr(14, "merge", &["--failure-mode=warn"]), Err(Stop::Failed));
    assert_eq!(
        dr(19, "merge", &["--failure-mode=warn"]).unwrap(),
        vec!["--failure-mode=warn"]
    );
    // Known to 22 and later: ignored outside `merge --sample`, ours in it (first, before
    // any `--`).
    for r in [14, 19] {
        assert_eq!(
            dr(r, "merge", &["--extbinary-write-vtable-type-prof"]),
            Err(Stop::Failed)
        );
    }
    assert_eq!(
        dr(22, "merge", &["--extbinary-write-vtable-type-prof", "f"]).unwrap(),
        vec!["f"]
    );
    assert_eq!(
        dr(
            23,
            "merge",
            &["--sample", "--extbinary-write-vtable-type-prof", "--", "f"]
        )
        .unwrap(),
        vec!["--extbinary-write-vtable-type-prof", "--sample", "--", "f"]
    );
    assert_eq!(
        dr(
            22,
            "merge",
            &["--sample", "--extbinary-write-vtable-type-prof=0", "f"]
        )
        .unwrap(),
        vec!["--sample", "f"]
    );
    assert_eq!(
        dr(22, "show", &["--extbinary-write-vtable-type-prof=1", "f"]).unwrap(),
        vec!["f"]
    );
    assert_eq!(nearest(14, "merge", "sprase").as_deref(), Some("sparse"));
    assert_eq!(nearest(14, "show", "verson").as_deref(), Some("version"));
}

/// Values as LLVM's parsers read them: radix from the prefix, the whole text, within range.
#[test]
fn values_as_llvm_reads_them() {
    use super::dropin::llvm_unsigned;
    let max = u64::from(u32::MAX);
    assert_eq!(llvm_unsigned("12", max), Some(12));
    assert_eq!(llvm_unsigned("0x1F", max), Some(31));
    assert_eq!(llvm_unsigned("0b101", max), Some(5));
    assert_eq!(llvm_unsigned("0o17", max), Some(15));
    assert_eq!(llvm_unsigned("017", max), Some(15));
    assert_eq!(llvm_unsigned("0", max), Some(0));
    for bad in ["", "x", "-1", "+1", " 1", "1 ", "0x", "09", "4294967296"] {
        assert_eq!(llvm_unsigned(bad, max), None, "{bad:?}");
    }
    assert_eq!(
        llvm_unsigned("18446744073709551615", u64::MAX),
        Some(u64::MAX)
    );
    assert_eq!(
        d("merge", &["-j=0x2", "--output-size-limit=010"]).unwrap(),
        vec!["--num-threads=2", "--output-size-limit=8"]
    );
    assert_eq!(d("merge", &["-j=x"]), Err(Stop::Failed));
    assert_eq!(
        d("show", &["--detailed-summary-cutoffs=0x10,20"]).unwrap(),
        vec!["--detailed-summary-cutoffs=16,20"]
    );
    // Frame depth 0: dropped where LLVM ignores it, refused in sample merges.
    assert_eq!(
        d("merge", &["--sample-frame-depth-for-cold-context=0", "f"]).unwrap(),
        vec!["f"]
    );
    assert_eq!(
        d(
            "merge",
            &["--sample", "--sample-frame-depth-for-cold-context=0", "f"]
        ),
        Err(Stop::Failed)
    );
}

#[test]
fn no_option_is_listed_twice_in_a_subcommand() {
    use super::table::{RELEASES, options};
    for r in RELEASES {
        for sub in ["merge", "show", "overlap", "order"] {
            let names: Vec<&str> = options(r, sub).map(|o| o.name).collect();
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(names.len(), unique.len(), "{r} {sub}: {names:?}");
        }
    }
}
