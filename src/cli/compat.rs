//! llvm-profdata's command-line spellings.
//!
//! LLVM's option parser accepts long options with one or two dashes (`-failure-mode=all`,
//! `--failure-mode all`), boolean options with an explicit value (`-sparse=true`), and
//! enum-valued options spelled as bare flags (`-instr`, `-text`, `-binary`). This module
//! rewrites such arguments into the `--name=value` form our clap definitions understand.
//!
//! Run as `llvm-profdata` ([`dropin_normalize`]), exactly llvm-profdata 22's options are
//! accepted, no more and no fewer: the tables below list every option its `merge`, `show` and
//! `overlap` take (from `llvm-profdata-22 SUBCOMMAND --help-hidden`), each either mapped to
//! ours or refused with the reason it is not implemented — never silently ignored. Unknown
//! options are reported as llvm-profdata reports them, with its "Did you mean" suggestion.
//! Run as `pgo-merge` ([`normalize`]), our own options are accepted too, and llvm-profdata's
//! spellings of them.

use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;

use pgo_merge::pipeline::inputs::split_os;
use pgo_merge::pipeline::sample::FsDiscriminatorPass;

/// What an llvm-profdata option does here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Does {
    /// Our option with this long name.
    Ours(&'static str),
    /// Prints the help.
    Help,
    /// Prints the version.
    Version,
    /// Accepted and ignored, as llvm-profdata ignores it in this subcommand.
    Ignored,
    /// Not implemented; the reason.
    No(&'static str),
}

/// One llvm-profdata option.
#[derive(Debug, Clone, Copy)]
pub struct LlvmOption {
    /// Its name, without dashes.
    pub name: &'static str,
    /// The value placeholder llvm-profdata's help shows (`<string>`), or None for a flag.
    /// A single-letter alias has the value of the option it stands for.
    pub value: Option<&'static str>,
    /// llvm-profdata's description.
    pub help: &'static str,
    /// What it does here.
    pub does: Does,
    /// Listed by `--help-hidden` (and so a "Did you mean" candidate). Unlisted options are
    /// LLVM's global options that the subcommand accepts (`--write-prev-version`).
    pub listed: bool,
}

const fn ours(name: &'static str, value: Option<&'static str>, help: &'static str) -> LlvmOption {
    LlvmOption {
        name,
        value,
        help,
        does: Does::Ours(name),
        listed: true,
    }
}

const fn alias(name: &'static str, of: &'static str, value: Option<&'static str>) -> LlvmOption {
    LlvmOption {
        name,
        value,
        help: "",
        does: Does::Ours(of),
        listed: true,
    }
}

const fn no(
    name: &'static str,
    value: Option<&'static str>,
    help: &'static str,
    why: &'static str,
) -> LlvmOption {
    LlvmOption {
        name,
        value,
        help,
        does: Does::No(why),
        listed: true,
    }
}

const fn unlisted(mut o: LlvmOption) -> LlvmOption {
    o.listed = false;
    o
}

const S: Option<&str> = Some("<string>");
const UINT: Option<&str> = Some("<uint>");
const ULONG: Option<&str> = Some("<ulong>");
const VALUE: Option<&str> = Some("<value>");

const CORRELATE: &str =
    "profile correlation is not supported: merge profiles written without -profile-correlate";
const MEMPROF: &str = "MemProf profiles are not supported";

/// The options of `llvm-profdata merge` (LLVM 22).
pub const MERGE: &[LlvmOption] = &[
    no(
        "binary-file",
        S,
        "For merge, use the provided unstripped binary to correlate the raw profile.",
        CORRELATE,
    ),
    ours(
        "compress-all-sections",
        None,
        "Compress all sections when writing the profile (only meaningful for -extbinary)",
    ),
    ours(
        "convert-sample-profile-layout",
        VALUE,
        "Convert the generated profile to a profile with a new layout",
    ),
    no(
        "debug-info",
        S,
        "For show, read and extract profile metadata from debug info and show the functions it found. For merge, use the provided debug info to correlate the raw profile.",
        CORRELATE,
    ),
    no("debuginfod", None, "Enable debuginfod", CORRELATE),
    ours(
        "drop-profile-symbol-list",
        None,
        "Drop the profile symbol list when merging AutoFDO profiles (only meaningful for -sample)",
    ),
    ours(
        "dump-input-file-list",
        None,
        "Dump the list of input files and their weights, then exit",
    ),
    ours("binary", None, "Binary encoding"),
    ours(
        "extbinary",
        None,
        "Extensible binary encoding (default; for instrumentation profiles the same as --binary)",
    ),
    ours("text", None, "Text encoding"),
    ours("gcc", None, "GCC encoding (only meaningful for -sample)"),
    alias("f", "input-files", S),
    ours(
        "failure-mode",
        VALUE,
        "Failure mode: warn (do not fail and just print warnings), any (fail if any profile is invalid), all (fail only if all profiles are invalid)",
    ),
    ours(
        "function",
        S,
        "Only functions matching the filter are shown in the output.",
    ),
    ours(
        "gen-partial-profile",
        None,
        "Generate a partial profile (only meaningful for -extbinary)",
    ),
    ours(
        "input-files",
        S,
        "Path to file containing newline-separated [<weight>,]<filename> entries",
    ),
    ours("instr", None, "Instrumentation profile (default)"),
    ours("sample", None, "Sample profile"),
    no(
        "instr-prof-cold-threshold",
        UINT,
        "User specified cold threshold for instr profile which will override the cold threshold got from profile summary.",
        "supplementing with sample profiles is not supported",
    ),
    alias("j", "num-threads", UINT),
    ours(
        "keep-vtable-symbols",
        None,
        "If true, keep the vtable symbols in indexed profiles",
    ),
    no(
        "max-debug-info-correlation-warnings",
        UINT,
        "The maximum number of warnings to emit when correlating profile from debug info (0 = no limit)",
        CORRELATE,
    ),
    no(
        "memprof-full-schema",
        None,
        "Use the full schema for serialization",
        MEMPROF,
    ),
    no(
        "memprof-random-hotness",
        None,
        "Generate random hotness values",
        MEMPROF,
    ),
    no(
        "memprof-random-hotness-seed",
        UINT,
        "Random hotness seed to use (0 to generate new seed)",
        MEMPROF,
    ),
    no(
        "memprof-version",
        VALUE,
        "Specify the version of the memprof format to use",
        MEMPROF,
    ),
    ours(
        "no-function",
        S,
        "Exclude functions matching the filter from the output.",
    ),
    ours(
        "num-threads",
        UINT,
        "Number of merge threads to use (default: autodetect)",
    ),
    alias("o", "output", Some("<output>")),
    ours("output", Some("<output>"), "Output file"),
    ours(
        "output-size-limit",
        ULONG,
        "Trim cold functions until profile size is below specified limit in bytes.",
    ),
    ours(
        "prof-sym-list",
        S,
        "Path to file containing the list of function symbols used to populate profile symbol list",
    ),
    no(
        "profiled-binary",
        S,
        "Path to binary from which the profile was collected.",
        MEMPROF,
    ),
    alias("r", "remapping-file", Some("<file>")),
    ours("remapping-file", Some("<file>"), "Symbol remapping file"),
    ours(
        "sample-frame-depth-for-cold-context",
        UINT,
        "Keep the last K frames while merging cold profile. 1 means the context-less base profile",
    ),
    ours(
        "sample-merge-cold-context",
        None,
        "Merge context sample profiles whose count is below cold threshold",
    ),
    ours(
        "sample-trim-cold-context",
        None,
        "Trim context sample profiles whose count is below cold threshold",
    ),
    ours(
        "sparse",
        None,
        "Generate a sparse profile (only meaningful for -instr)",
    ),
    ours(
        "split-layout",
        None,
        "Split the profile to two sections with one containing sample profiles with inlined functions and the other without (only meaningful for -extbinary)",
    ),
    no(
        "suppl-min-size-threshold",
        UINT,
        "If the size of a function is smaller than the threshold, assume it can be inlined by PGO early inliner and it won't be adjusted based on sample profile.",
        "supplementing with sample profiles is not supported",
    ),
    no(
        "supplement-instr-with-sample",
        S,
        "Supplement an instr profile with sample profile, to correct the profile unrepresentativeness issue.",
        "supplementing with sample profiles is not supported",
    ),
    ours(
        "temporal-profile-max-trace-length",
        ULONG,
        "The maximum length of a single temporal profile trace (default: 10000)",
    ),
    ours(
        "temporal-profile-trace-reservoir-size",
        ULONG,
        "The maximum number of stored temporal profile traces (default: 100)",
    ),
    ours(
        "use-md5",
        None,
        "Choose to use MD5 to represent string in name table (only meaningful for -extbinary)",
    ),
    ours("weighted-input", S, "<weight>,<filename>"),
    no(
        "zero-counter-threshold",
        Some("<number>"),
        "For the function which is cold in instr profile but hot in sample profile, if the ratio of the number of zero counters divided by the total number of counters is above the threshold, the profile of the function will be regarded as being harmful for performance and will be dropped.",
        "supplementing with sample profiles is not supported",
    ),
    // LLVM's global options that matter to merge.
    unlisted(ours(
        "write-prev-version",
        None,
        "Write the previous index version (11)",
    )),
    unlisted(no(
        "correlate",
        VALUE,
        "The correlation kind (debug-info or binary) to use when fetching debug info or binaries",
        CORRELATE,
    )),
    unlisted(no(
        "debug-file-directory",
        S,
        "Directories to search for object files by build ID",
        CORRELATE,
    )),
    unlisted(ours(
        "fs-discriminator-pass",
        VALUE,
        "Zero out the discriminator bits for the FS discriminator pass beyond this value",
    )),
    // A hidden option of LLVM's sample-profile reader, which llvm-profdata links in.
    unlisted(ours(
        "profile-isfs",
        None,
        "Profile uses flow sensitive discriminators",
    )),
];

/// The options of `llvm-profdata show` (LLVM 22).
pub const SHOW: &[LlvmOption] = &[
    ours("all-functions", None, "Details for each and every function"),
    ours("binary-ids", None, "Show binary ids in the profile."),
    ours("counts", None, "Show counter values for shown functions"),
    ours(
        "covered",
        None,
        "Show only the functions that have been executed.",
    ),
    no(
        "debug-info",
        S,
        "For show, read and extract profile metadata from debug info and show the functions it found. For merge, use the provided debug info to correlate the raw profile.",
        CORRELATE,
    ),
    ours("detailed-summary", None, "Show detailed profile summary"),
    ours(
        "detailed-summary-cutoffs",
        Some("<800000,901000,999999>"),
        "Cutoff percentages (times 10000) for generating detailed summary",
    ),
    ours(
        "function",
        S,
        "Only functions matching the filter are shown in the output.",
    ),
    ours(
        "hot-func-list",
        None,
        "Show profile summary of a list of hot functions",
    ),
    ours(
        "ic-targets",
        None,
        "Show indirect call site target values for shown functions",
    ),
    ours(
        "json",
        None,
        "Show sample profile data in the JSON format (deprecated, please use --show-format=json)",
    ),
    ours(
        "list-below-cutoff",
        None,
        "Only output names of functions whose max count values are below the cutoff value",
    ),
    no(
        "max-debug-info-correlation-warnings",
        UINT,
        "The maximum number of warnings to emit when correlating profile from debug info (0 = no limit)",
        CORRELATE,
    ),
    ours(
        "memop-sizes",
        None,
        "Show the profiled sizes of the memory intrinsic calls for shown functions",
    ),
    alias("o", "output", Some("<output>")),
    ours("output", Some("<output>"), "Output file"),
    ours("profile-version", None, "Show profile version. "),
    no(
        "profiled-binary",
        S,
        "Path to binary from which the profile was collected.",
        MEMPROF,
    ),
    ours("instr", None, "Instrumentation profile (default)"),
    ours("sample", None, "Sample profile"),
    no("memory", None, "MemProf memory access profile", MEMPROF),
    ours(
        "show-format",
        VALUE,
        "Emit output in the selected format if supported: text (default) or json (yaml is not implemented)",
    ),
    ours(
        "show-prof-sym-list",
        None,
        "Show profile symbol list if it exists in the profile. ",
    ),
    ours(
        "show-sec-info-only",
        None,
        "Show the information of each section in the sample profile.",
    ),
    ours(
        "show-vtables",
        None,
        "Show vtable names for shown functions",
    ),
    ours("showcs", None, "Show context sensitive counts"),
    ours(
        "temporal-profile-traces",
        None,
        "Show temporal profile traces in the profile.",
    ),
    ours("text", None, "Show instr profile data in text dump format"),
    ours(
        "topn",
        UINT,
        "Show the list of functions with the largest internal counts",
    ),
    ours(
        "value-cutoff",
        UINT,
        "Set the count value cutoff. Functions with the maximum count less than this value will not be printed out. (Default is 0)",
    ),
    unlisted(LlvmOption {
        name: "write-prev-version",
        value: None,
        help: "",
        does: Does::Ignored,
        listed: false,
    }),
    unlisted(no(
        "correlate",
        VALUE,
        "The correlation kind (debug-info or binary) to use when fetching debug info or binaries",
        CORRELATE,
    )),
    unlisted(no(
        "debug-file-directory",
        S,
        "Directories to search for object files by build ID",
        CORRELATE,
    )),
    unlisted(ours(
        "fs-discriminator-pass",
        VALUE,
        "Zero out the discriminator bits for the FS discriminator pass beyond this value",
    )),
    unlisted(ours(
        "profile-isfs",
        None,
        "Profile uses flow sensitive discriminators",
    )),
];

/// The options of `llvm-profdata overlap` (LLVM 22).
pub const OVERLAP: &[LlvmOption] = &[
    ours(
        "cs",
        None,
        "For context sensitive PGO counts. Does not work with CSSPGO.",
    ),
    ours(
        "function",
        S,
        "Only functions matching the filter are shown in the output.",
    ),
    alias("o", "output", Some("<output>")),
    ours("output", Some("<output>"), "Output file"),
    ours("instr", None, "Instrumentation profile (default)"),
    ours("sample", None, "Sample profile"),
    ours(
        "similarity-cutoff",
        ULONG,
        "For sample profiles, list function names for overlapped functions with similarities below the cutoff (percentage times 10000).",
    ),
    ours(
        "value-cutoff",
        ULONG,
        "Function level overlap information for every function in test profile with max count value greater than the parameter value",
    ),
    unlisted(LlvmOption {
        name: "write-prev-version",
        value: None,
        help: "",
        does: Does::Ignored,
        listed: false,
    }),
    unlisted(no(
        "correlate",
        VALUE,
        "The correlation kind (debug-info or binary) to use when fetching debug info or binaries",
        CORRELATE,
    )),
    unlisted(no(
        "debug-file-directory",
        S,
        "Directories to search for object files by build ID",
        CORRELATE,
    )),
    unlisted(ours(
        "fs-discriminator-pass",
        VALUE,
        "Zero out the discriminator bits for the FS discriminator pass beyond this value",
    )),
    unlisted(ours(
        "profile-isfs",
        None,
        "Profile uses flow sensitive discriminators",
    )),
];

/// The generic options every subcommand takes (listed first: with equal distances,
/// llvm-profdata suggests `-h` before the subcommand's single-letter options).
pub const GENERIC: &[LlvmOption] = &[
    LlvmOption {
        name: "h",
        value: None,
        help: "Alias for --help",
        does: Does::Help,
        listed: true,
    },
    LlvmOption {
        name: "help",
        value: None,
        help: "Display available options (--help-hidden for more)",
        does: Does::Help,
        listed: true,
    },
    LlvmOption {
        name: "help-hidden",
        value: None,
        help: "Display all available options",
        does: Does::Help,
        listed: true,
    },
    LlvmOption {
        name: "help-list",
        value: None,
        help: "Display list of available options (--help-list-hidden for more)",
        does: Does::Help,
        listed: true,
    },
    LlvmOption {
        name: "help-list-hidden",
        value: None,
        help: "Display list of all available options",
        does: Does::Help,
        listed: true,
    },
    no(
        "print-all-options",
        None,
        "Print all option values after command line parsing",
        "LLVM's option dump is not implemented",
    ),
    no(
        "print-options",
        None,
        "Print non-default options after command line parsing",
        "LLVM's option dump is not implemented",
    ),
    LlvmOption {
        name: "version",
        value: None,
        help: "Display the version of this program",
        does: Does::Version,
        listed: false,
    },
];

/// llvm-profdata's description of a subcommand and its usage line after the program name.
pub fn subcommand_text(sub: &str) -> Option<(&'static str, &'static str)> {
    Some(match sub {
        "merge" => (
            "Takes several profiles and merge them together. See detailed documentation in https://llvm.org/docs/CommandGuide/llvm-profdata.html#profdata-merge",
            "merge [options] <filename...>",
        ),
        "show" => (
            "Takes a profile data file and displays the profiles. See detailed documentation in https://llvm.org/docs/CommandGuide/llvm-profdata.html#profdata-show",
            "show [options] <profdata-file>",
        ),
        "overlap" => (
            "Computes and displays the overlap between two profiles. See detailed documentation in https://llvm.org/docs/CommandGuide/llvm-profdata.html#profdata-overlap",
            "overlap [options] <base profile file> <test profile file>",
        ),
        _ => return None,
    })
}

/// The options table of an llvm-profdata subcommand.
pub fn table(sub: &str) -> &'static [LlvmOption] {
    match sub {
        "merge" => MERGE,
        "show" => SHOW,
        "overlap" => OVERLAP,
        _ => &[],
    }
}

/// The option `name` of subcommand `sub` (or a generic one).
fn find(sub: &str, name: &str) -> Option<&'static LlvmOption> {
    table(sub).iter().chain(GENERIC).find(|o| o.name == name)
}

/// Levenshtein distance in characters, as LLVM's `StringRef::edit_distance` with
/// replacements allowed.
pub fn edit_distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(a, b)
}

/// Edit distance in characters counting a swap of two neighbouring characters as one edit
/// (optimal string alignment), for telling typos of a word apart.
pub fn typo_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// How an option is written on a command line: `-x` for one letter, else `--name`.
fn dashed(name: &str) -> String {
    if name.chars().count() == 1 {
        format!("-{name}")
    } else {
        format!("--{name}")
    }
}

/// llvm-profdata's "Did you mean" for the unknown option `arg` (without dashes, with any
/// `=value`): the listed option nearest by edit distance, the first of equals; options that
/// take a value are compared with the name only and suggested with the value.
fn nearest(sub: &str, arg: &str) -> Option<String> {
    let (lhs, rhs) = arg.split_once('=').unwrap_or((arg, ""));
    let mut best: Option<(usize, String)> = None;
    for o in GENERIC.iter().chain(table(sub)).filter(|o| o.listed) {
        let permit_value = o.value.is_some();
        let flag = if permit_value { lhs } else { arg };
        let d = edit_distance(o.name, flag);
        if best.as_ref().is_none_or(|(b, _)| d < *b) {
            let s = if rhs.is_empty() || !permit_value {
                o.name.to_string()
            } else {
                format!("{}={rhs}", o.name)
            };
            best = Some((d, s));
        }
    }
    best.map(|(_, s)| s)
}

/// What parsing llvm-profdata's arguments of a subcommand ended in, besides arguments for
/// clap.
#[derive(Debug, PartialEq, Eq)]
pub enum Stop {
    /// Print the subcommand's help and exit 0.
    Help,
    /// Print the version and exit 0.
    Version,
    /// These messages were printed to standard error already; exit 1.
    Failed,
}

/// One command-line argument seen as an option: its text up to the first `=` (dashes and
/// name; `None` if that is not UTF-8, so no option of ours) and the bytes after the `=`,
/// kept as given: a value may be a file name, and file names are bytes, not text.
fn split_option(a: &OsStr) -> (Option<&str>, Option<&OsStr>) {
    match split_os(a, b'=', false) {
        Some((head, value)) => (head.to_str(), Some(value)),
        None => (a.to_str(), None),
    }
}

/// `--LONG=VALUE` with VALUE's bytes as given.
fn long_with_value(long: &str, value: &OsStr) -> OsString {
    let mut s = OsString::from(format!("--{long}="));
    s.push(value);
    s
}

/// What the drop-in does with the known llvm-profdata option `o`, given as `a` with
/// `value` after its `=` (if any): pushes our spelling of it to `out`, taking its value from
/// `iter` when it has none; prints LLVM's message and returns false when it is refused.
fn dropin_option<'a>(
    o: &LlvmOption,
    value: Option<&OsStr>,
    iter: &mut impl Iterator<Item = &'a OsString>,
    out: &mut Vec<OsString>,
    prog: &str,
) -> Result<bool, Stop> {
    let requires_value = || {
        eprintln!(
            "{prog}: for the {} option: requires a value!",
            dashed(o.name)
        );
        false
    };
    let ok = match o.does {
        Does::Help => return Err(Stop::Help),
        Does::Version => return Err(Stop::Version),
        Does::No(why) => {
            eprintln!(
                "{prog}: error: {} is not implemented by pgo-merge's llvm-profdata \
                 drop-in: {why}",
                dashed(o.name)
            );
            if o.value.is_some() && value.is_none() {
                iter.next();
            }
            false
        }
        Does::Ignored => true,
        Does::Ours(long @ "fs-discriminator-pass") => {
            // An enum: LLVM checks the value against its spellings, case and all.
            match value.or_else(|| iter.next().map(OsString::as_os_str)) {
                None => requires_value(),
                Some(v)
                    if v.to_str()
                        .and_then(FsDiscriminatorPass::from_llvm_name)
                        .is_none() =>
                {
                    eprintln!(
                        "{prog}: for the {} option: Cannot find option named '{}'!",
                        dashed(o.name),
                        v.to_string_lossy()
                    );
                    false
                }
                Some(v) => {
                    out.push(long_with_value(long, v));
                    true
                }
            }
        }
        Does::Ours(long) if o.value.is_some() => {
            match value.or_else(|| iter.next().map(OsString::as_os_str)) {
                Some(v) => {
                    out.push(long_with_value(long, v));
                    true
                }
                None => requires_value(),
            }
        }
        Does::Ours(long) => match value.map(|v| v.to_str()) {
            None | Some(Some("true" | "TRUE" | "True" | "1")) => {
                out.push(format!("--{long}").into());
                true
            }
            Some(Some("false" | "FALSE" | "False" | "0")) => true,
            Some(v) => {
                eprintln!(
                    "{prog}: for the {} option: '{}' is invalid value for boolean argument! \
                     Try 0 or 1",
                    dashed(o.name),
                    v.map_or_else(|| "?".into(), str::to_string)
                );
                false
            }
        },
    };
    Ok(ok)
}

/// Rewrites the arguments of llvm-profdata subcommand `sub` (`merge`, `show`, `overlap`) into
/// arguments for our clap definition of it, accepting exactly llvm-profdata's options.
/// `prog` prefixes messages (llvm-profdata's program name) and `argv0` is named in its "Try:"
/// hint. Messages go to standard error as they come, as llvm-profdata prints them. Arguments
/// are bytes: a file name, alone or as an option's value, passes unchanged whatever it holds.
pub fn dropin_normalize(
    sub: &str,
    args: &[OsString],
    prog: &str,
    argv0: &str,
) -> Result<Vec<OsString>, Stop> {
    let mut out = Vec::with_capacity(args.len());
    let mut failed = false;
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        if a == "--" {
            out.push(a.clone());
            out.extend(iter.cloned());
            break;
        }
        if a == "-" || !a.as_encoded_bytes().starts_with(b"-") {
            out.push(a.clone());
            continue;
        }
        let (head, value) = split_option(a);
        let head = head.unwrap_or("");
        let name = head
            .strip_prefix("--")
            .unwrap_or(&head[1.min(head.len())..]);
        if let Some(o) = find(sub, name) {
            failed |= !dropin_option(o, value, &mut iter, &mut out, prog)?;
            continue;
        }
        let shown = a.to_string_lossy();
        let body = shown.strip_prefix("--").unwrap_or(&shown[1..]);
        // As LLVM: an unknown `-xyz` whose first letter is a single-letter option is taken
        // as that option grouped with others; `-h...` prints the help, and an option that
        // needs a value cannot be grouped.
        let mut suggest_for = body.to_string();
        if body.chars().count() > 1
            && let Some(c) = body.chars().next()
            && let Some(o) = find(sub, &c.to_string()).filter(|o| o.listed)
        {
            if o.does == Does::Help {
                return Err(Stop::Help);
            }
            if o.value.is_some() {
                eprintln!("{prog}: for the -{c} option: may not occur within a group!");
                suggest_for = c.to_string();
            }
        }
        eprintln!("{prog}: Unknown command line argument '{shown}'.  Try: '{argv0} --help'");
        if let Some(s) = nearest(sub, &suggest_for) {
            eprintln!("{prog}: Did you mean '{}'?", dashed(&s));
        }
        failed = true;
    }
    if failed { Err(Stop::Failed) } else { Ok(out) }
}

/// llvm-profdata-style help of subcommand `sub`: its options, those not implemented, and
/// the generic ones.
pub fn dropin_help(sub: &str, prog: &str) -> String {
    let (desc, usage) = subcommand_text(sub).unwrap_or(("", ""));
    let shown = |o: &LlvmOption| match o.value {
        Some(v) if o.name.len() > 1 => format!("--{}={v}", o.name),
        _ => dashed(o.name),
    };
    let all: Vec<&LlvmOption> = table(sub)
        .iter()
        .chain(GENERIC)
        .filter(|o| o.listed || matches!(o.does, Does::Ours(_)))
        .collect();
    let width = all.iter().map(|o| shown(o).len()).max().unwrap_or(0) + 2;
    let line = |s: &mut String, o: &LlvmOption, text: &str| {
        let _ = writeln!(s, "  {:<width$} - {text}", shown(o));
    };
    let describe = |o: &LlvmOption| -> String {
        match o.does {
            Does::Ours(target) if o.help.is_empty() => format!("Alias for --{target}"),
            _ => o.help.to_string(),
        }
    };
    let mut s = String::new();
    let _ = writeln!(s, "OVERVIEW: LLVM profile data\n");
    let _ = writeln!(s, "SUBCOMMAND '{sub}': {desc}\n");
    let _ = writeln!(s, "USAGE: {prog} {usage}\n");
    let _ = writeln!(s, "OPTIONS:\n\nGeneral options:\n");
    for o in table(sub)
        .iter()
        .filter(|o| matches!(o.does, Does::Ours(_)))
    {
        line(&mut s, o, &describe(o));
    }
    let _ = writeln!(
        s,
        "\nNot implemented by pgo-merge's drop-in (refused with an error, never ignored):\n"
    );
    for o in table(sub)
        .iter()
        .chain(GENERIC)
        .filter(|o| matches!(o.does, Does::No(_)))
    {
        if let Does::No(why) = o.does {
            line(&mut s, o, why);
        }
    }
    let _ = writeln!(s, "\nGeneric Options:\n");
    for o in GENERIC
        .iter()
        .filter(|o| matches!(o.does, Does::Help | Does::Version))
    {
        line(&mut s, o, o.help);
    }
    let _ = writeln!(
        s,
        "\nThis is pgo-merge's llvm-profdata drop-in: the options above are llvm-profdata's \
         spellings; LLVM's global code-generation options, which llvm-profdata accepts and \
         ignores, are not accepted. `{prog} --version` says which LLVM version merge writes for."
    );
    s
}

/// llvm-profdata's options that `pgo-merge` (native mode) recognises as llvm-profdata's but
/// does not implement, with the reason.
fn not_implemented(name: &str) -> Option<&'static str> {
    MERGE
        .iter()
        .chain(SHOW)
        .chain(OVERLAP)
        .chain(GENERIC)
        .find(|o| o.name == name)
        .and_then(|o| match o.does {
            Does::No(why) => Some(why),
            _ => None,
        })
}

/// The long option of `cmd` nearest to `name`, if it is close enough to be a typo of it.
pub fn similar_option(cmd: &clap::Command, name: &str) -> Option<String> {
    let names = cmd.get_arguments().flat_map(|a| {
        a.get_long()
            .into_iter()
            .chain(a.get_all_aliases().unwrap_or_default())
    });
    names
        .map(|n| (typo_distance(n, name), n))
        .filter(|(d, n)| *d <= 2.max(n.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.to_string())
}

/// Rewrites llvm-profdata spellings of the options `cmd` defines into `--name[=value]` form.
/// Arguments that are not options (and everything after `--`) pass unchanged; short options
/// pass unchanged (clap reads `-o FILE` and `-o=FILE`). Returns the message of the first
/// unsupported or unknown single-dash option; unknown double-dash options are left for clap
/// to report.
pub fn normalize(args: &[OsString], cmd: &clap::Command) -> Result<Vec<OsString>, String> {
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
        let bytes = a.as_encoded_bytes();
        if a == "-" || !bytes.starts_with(b"-") {
            out.push(a.clone());
            continue;
        }
        let dashes = bytes.iter().take_while(|&&b| b == b'-').count();
        let shown = a.to_string_lossy();
        // A short option with its value attached (`-j1`, `-oout.profdata`, `-o` and a file
        // name that is not UTF-8) when it is not a long option: clap takes it as it is.
        let short = bytes
            .get(1)
            .filter(|b| b.is_ascii())
            .map(|&b| char::from(b));
        let attached = dashes == 1 && short_takes_value(cmd, short);
        let (head, value) = split_option(a);
        let Some(name) = head.map(|h| &h[dashes.min(h.len())..]) else {
            if attached {
                out.push(a.clone());
                continue;
            }
            return Err(format!("unknown option {shown:?} (see --help)"));
        };
        if dashes == 1 && name.chars().count() == 1 {
            out.push(a.clone());
            continue;
        }
        if dashes > 2 || name.is_empty() {
            return Err(format!("unknown option {shown:?}"));
        }
        if name == "help" && value.is_none() {
            out.push("--help".into());
            continue;
        }
        if lookup(name).is_none()
            && let Some(why) = not_implemented(name)
        {
            return Err(format!(
                "llvm-profdata option -{name} is not supported by pgo-merge: {why}"
            ));
        }
        match lookup(name) {
            Some(true) => out.push(match value {
                Some(v) => long_with_value(name, v),
                None => format!("--{name}").into(),
            }),
            Some(false) => match value.map(|v| v.to_str()) {
                None | Some(Some("true" | "TRUE" | "True" | "1")) => {
                    out.push(format!("--{name}").into());
                }
                Some(Some("false" | "FALSE" | "False" | "0")) => {}
                Some(_) => {
                    return Err(format!(
                        "option -{name} takes no value (got {:?})",
                        value.unwrap_or_default().to_string_lossy()
                    ));
                }
            },
            None if dashes == 2 || attached => out.push(a.clone()),
            None => {
                return Err(match similar_option(cmd, name) {
                    Some(s) => {
                        format!("unknown option {shown:?}; did you mean --{s}? (see --help)")
                    }
                    None => format!("unknown option {shown:?} (see --help)"),
                });
            }
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
        dropin_normalize(sub, &os(args), "llvm-profdata", "llvm-profdata").map(text)
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
            dropin_normalize("merge", &args, "llvm-profdata", "llvm-profdata").unwrap(),
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
        let e = n(&["-debug-info=a.out"], &merge).unwrap_err();
        assert!(
            e.contains("not supported") && e.contains("debug-info"),
            "{e}"
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
            for o in table(sub) {
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
        assert_eq!(nearest("merge", "sprase").as_deref(), Some("sparse"));
        assert_eq!(
            nearest("merge", "num-thread=2").as_deref(),
            Some("num-threads=2")
        );
        assert_eq!(nearest("merge", "w").as_deref(), Some("h"));
        assert_eq!(nearest("merge", "bnary").as_deref(), Some("binary"));
        assert_eq!(nearest("show", "sparse").as_deref(), Some("sample"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(typo_distance("shwo", "show"), 1);
        assert_eq!(edit_distance("shwo", "show"), 2);
    }
}
