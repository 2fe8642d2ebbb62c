//! llvm-profdata 22's options of `merge`, `show` and `overlap`, each mapped to ours or
//! refused with the reason.

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
pub(super) fn find(sub: &str, name: &str) -> Option<&'static LlvmOption> {
    table(sub).iter().chain(GENERIC).find(|o| o.name == name)
}
