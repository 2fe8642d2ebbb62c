//! llvm-profdata's options of `merge`, `show`, `overlap` and `order` in the releases the drop-in
//! follows (14, 19, 22 and 23: [`RELEASES`]), each mapped to ours or refused with the reason.
//!
//! One table per subcommand holds every option of every release, each with the first and
//! last release that has it (as `llvm-profdata-N SUBCOMMAND --help-hidden` lists it, or as
//! the release accepts it unlisted) and, where an older release words it differently, that
//! release's help text. A release between two of [`RELEASES`] follows the nearer lower one;
//! one below the oldest follows the oldest.

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
    /// Accepted and ignored where llvm-profdata ignores it (instrumentation jobs, `show`,
    /// `overlap`); in `merge --sample`, our option with this long name (a flag).
    InSampleMerge(&'static str),
}

/// The llvm-profdata releases whose options the tables below record (from each release's
/// `--help-hidden` and what it accepts unlisted).
pub const RELEASES: [u32; 5] = [14, 19, 21, 22, 23];

/// The release of [`RELEASES`] whose options the drop-in of LLVM release `llvm` takes: the
/// nearest lower one, or the oldest for a release below it.
pub fn table_release(llvm: u32) -> u32 {
    RELEASES
        .iter()
        .rev()
        .copied()
        .find(|&r| r <= llvm)
        .unwrap_or(RELEASES[0])
}

/// The last release of all (options still present).
const NOW: u32 = u32::MAX;

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
    /// The first release (of [`RELEASES`]) that has it.
    pub first: u32,
    /// The last release that has it ([`u32::MAX`]: still present).
    pub last: u32,
    /// The help text of the releases up to and including `.0`, where it differs from
    /// [`Self::help`].
    pub older_help: Option<(u32, &'static str)>,
    /// The values an enum option takes (`<value>`), each with the first release taking it;
    /// empty for other options.
    pub values: &'static [(&'static str, u32)],
}

impl LlvmOption {
    /// True if release `r` (one of [`RELEASES`]) has this option.
    pub fn in_release(&self, r: u32) -> bool {
        (self.first..=self.last).contains(&r)
    }

    /// Its help text in release `r`.
    pub fn help_in(&self, r: u32) -> &'static str {
        match self.older_help {
            Some((last, text)) if r <= last => text,
            _ => self.help,
        }
    }

    /// The values of an enum option that release `r` takes.
    pub fn values_in(&self, r: u32) -> impl Iterator<Item = &'static str> + '_ {
        self.values
            .iter()
            .filter(move |(_, first)| *first <= r)
            .map(|(v, _)| *v)
    }

    /// Only in releases `first` and later.
    const fn since(mut self, first: u32) -> Self {
        self.first = first;
        self
    }

    /// Only in releases up to `last`.
    const fn until(mut self, last: u32) -> Self {
        self.last = last;
        self
    }

    /// Worded `text` up to release `last`.
    const fn help_until(mut self, last: u32, text: &'static str) -> Self {
        self.older_help = Some((last, text));
        self
    }

    /// An enum option taking `values`.
    const fn values(mut self, values: &'static [(&'static str, u32)]) -> Self {
        self.values = values;
        self
    }
}

/// An option of every release, doing `does`.
const fn opt(
    name: &'static str,
    value: Option<&'static str>,
    help: &'static str,
    does: Does,
) -> LlvmOption {
    LlvmOption {
        name,
        value,
        help,
        does,
        listed: true,
        first: RELEASES[0],
        last: NOW,
        older_help: None,
        values: &[],
    }
}

const fn ours(name: &'static str, value: Option<&'static str>, help: &'static str) -> LlvmOption {
    opt(name, value, help, Does::Ours(name))
}

const fn alias(name: &'static str, of: &'static str, value: Option<&'static str>) -> LlvmOption {
    opt(name, value, "", Does::Ours(of))
}

const fn no(
    name: &'static str,
    value: Option<&'static str>,
    help: &'static str,
    why: &'static str,
) -> LlvmOption {
    opt(name, value, help, Does::No(why))
}

const fn unlisted(mut o: LlvmOption) -> LlvmOption {
    o.listed = false;
    o
}

const S: Option<&str> = Some("<string>");
const UINT: Option<&str> = Some("<uint>");
const ULONG: Option<&str> = Some("<ulong>");
const VALUE: Option<&str> = Some("<value>");

const DEBUGINFOD: &str = "debuginfod is not used (pgo-merge makes no network requests): put \
     the binaries in a .build-id tree and name it with --debug-file-directory";
const MEMPROF: &str = "MemProf profiles are not supported";

/// The options of `llvm-profdata merge` (LLVM 22).
pub const MERGE: &[LlvmOption] = &[
    ours(
        "binary-file",
        S,
        "For merge, use the provided unstripped binary to correlate the raw profile.",
    ).since(19).help_until(19, "For merge, use the provided unstripped bianry to correlate the raw profile."),
    ours(
        "compress-all-sections",
        None,
        "Compress all sections when writing the profile (only meaningful for -extbinary)",
    ),
    ours(
        "convert-sample-profile-layout",
        VALUE,
        "Convert the generated profile to a profile with a new layout",
    ).since(19).values(&[("nest", 19), ("flat", 19)]),
    ours(
        "debug-info",
        S,
        "For show, read and extract profile metadata from debug info and show the functions it found. For merge, use the provided debug info to correlate the raw profile.",
    ).help_until(14, "Use the provided debug info to correlate the raw profile."),
    no("debuginfod", None, "Enable debuginfod", DEBUGINFOD).since(21),
    // LLVM's global options, taken by merge (show, overlap and order ignore them: GLOBAL).
    unlisted(ours(
        "correlate",
        VALUE,
        "The correlation kind (debug-info or binary) to use when fetching debug info or binaries",
    ))
    .since(21),
    unlisted(ours(
        "debug-file-directory",
        S,
        "Directories to search for object files by build ID",
    ))
    .since(21),
    ours(
        "drop-profile-symbol-list",
        None,
        "Drop the profile symbol list when merging AutoFDO profiles (only meaningful for -sample)",
    ).since(19),
    ours(
        "dump-input-file-list",
        None,
        "Dump the list of input files and their weights, then exit",
    ),
    ours("binary", None, "Binary encoding").help_until(14, "Binary encoding (default)"),
    ours(
        "extbinary",
        None,
        "Extensible binary encoding (default; for instrumentation profiles the same as --binary)",
    ),
    no(
        "compbinary",
        None,
        "Compact binary encoding",
        "the compact binary sample encoding (LLVM 14 and earlier) is not implemented",
    )
    .until(14),
    ours("text", None, "Text encoding"),
    ours("gcc", None, "GCC encoding (only meaningful for -sample)"),
    alias("f", "input-files", S),
    ours(
        "failure-mode",
        VALUE,
        "Failure mode: warn (do not fail and just print warnings), any (fail if any profile is invalid), all (fail only if all profiles are invalid)",
    ).values(&[("any", 14), ("all", 14), ("warn", 19)]),
    ours(
        "function",
        S,
        "Only functions matching the filter are shown in the output.",
    ).since(19),
    ours(
        "gen-partial-profile",
        None,
        "Generate a partial profile (only meaningful for -extbinary)",
    ),
    no(
        "gen-cs-nested-profile",
        None,
        "Generate nested function profiles for CSSPGO",
        "LLVM 14's nested CSSPGO profile generation is not implemented (LLVM 15 and later: --convert-sample-profile-layout=nest)",
    )
    .until(14),
    ours(
        "input-files",
        S,
        "Path to file containing newline-separated [<weight>,]<filename> entries",
    ),
    ours("instr", None, "Instrumentation profile (default)"),
    ours("sample", None, "Sample profile"),
    ours(
        "instr-prof-cold-threshold",
        UINT,
        "User specified cold threshold for instr profile which will override the cold threshold got from profile summary.",
    ),
    alias("j", "num-threads", UINT),
    ours(
        "keep-vtable-symbols",
        None,
        "If true, keep the vtable symbols in indexed profiles",
    ).since(19),
    ours(
        "max-debug-info-correlation-warnings",
        UINT,
        "The maximum number of warnings to emit when correlating profile from debug info (0 = no limit)",
    ).since(19),
    no(
        "memprof-full-schema",
        None,
        "Use the full schema for serialization",
        MEMPROF,
    ).since(19),
    no(
        "memprof-random-hotness",
        None,
        "Generate random hotness values",
        MEMPROF,
    ).since(21),
    no(
        "memprof-random-hotness-seed",
        UINT,
        "Random hotness seed to use (0 to generate new seed)",
        MEMPROF,
    ).since(21),
    no(
        "memprof-version",
        VALUE,
        "Specify the version of the memprof format to use",
        MEMPROF,
    ).since(19),
    ours(
        "no-function",
        S,
        "Exclude functions matching the filter from the output.",
    ).since(19),
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
    ).since(19),
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
    ).since(19),
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
    ).since(21),
    ours(
        "suppl-min-size-threshold",
        UINT,
        "If the size of a function is smaller than the threshold, assume it can be inlined by PGO early inliner and it won't be adjusted based on sample profile.",
    ),
    ours(
        "supplement-instr-with-sample",
        S,
        "Supplement an instr profile with sample profile, to correct the profile unrepresentativeness issue.",
    ),
    ours(
        "temporal-profile-max-trace-length",
        ULONG,
        "The maximum length of a single temporal profile trace (default: 10000)",
    ).since(19),
    ours(
        "temporal-profile-trace-reservoir-size",
        ULONG,
        "The maximum number of stored temporal profile traces (default: 100)",
    ).since(19),
    ours(
        "use-md5",
        None,
        "Choose to use MD5 to represent string in name table (only meaningful for -extbinary)",
    ),
    ours("weighted-input", S, "<weight>,<filename>"),
    ours(
        "zero-counter-threshold",
        Some("<number>"),
        "For the function which is cold in instr profile but hot in sample profile, if the ratio of the number of zero counters divided by the total number of counters is above the threshold, the profile of the function will be regarded as being harmful for performance and will be dropped.",
    ).help_until(14, "For the function which is cold in instr profile but hot in sample profile, if the ratio of the number of zero counters divided by the the total number of counters is above the threshold, the profile of the function will be regarded as being harmful for performance and will be dropped."),
    // LLVM's global option that matters to merge only; the others are in GLOBAL.
    unlisted(ours(
        "write-prev-version",
        None,
        "Write the previous index version (11)",
    )).since(19),
];

/// LLVM's global options that every subcommand of llvm-profdata accepts (those that matter
/// to it), after each subcommand's own in [`options`].
pub const GLOBAL: &[LlvmOption] = &[
    // Global options of LLVM 22+ that only merge uses: show, overlap and order take them and
    // do nothing with them, as llvm-profdata does (its value is still checked).
    unlisted(opt(
        "correlate",
        VALUE,
        "The correlation kind (debug-info or binary) to use when fetching debug info or binaries",
        Does::Ignored,
    ))
    .since(21)
    .values(&[("", 22), ("debug-info", 22), ("binary", 22)]),
    unlisted(opt(
        "debug-file-directory",
        S,
        "Directories to search for object files by build ID",
        Does::Ignored,
    ))
    .since(21),
    unlisted(ours(
        "fs-discriminator-pass",
        VALUE,
        "Zero out the discriminator bits for the FS discriminator pass beyond this value",
    )).since(19),
    // A hidden option of LLVM's sample-profile reader, which llvm-profdata links in.
    unlisted(ours(
        "profile-isfs",
        None,
        "Profile uses flow sensitive discriminators",
    )),
    // LLVM 14 lists it as its own; later releases take it as LLVM's global option (below).
    ours(
        "fs-discriminator-pass",
        VALUE,
        "Zero out the discriminator bits for the FS discrimiantor pass beyond this value. The enum values are defined in Support/Discriminator.h",
    )
    .until(14),
    // LLVM's sample-profile writer option (LLVM 22 and later).
    unlisted(opt(
        "extbinary-write-vtable-type-prof",
        None,
        "Write vtable type profiles in extbinary sample profiles",
        Does::InSampleMerge("extbinary-write-vtable-type-prof"),
    ))
    .since(22),
];

/// The options of `llvm-profdata show` (LLVM 22).
pub const SHOW: &[LlvmOption] = &[
    ours("all-functions", None, "Details for each and every function").help_until(14, "Details for every function"),
    ours("binary-ids", None, "Show binary ids in the profile."),
    ours("counts", None, "Show counter values for shown functions"),
    ours(
        "covered",
        None,
        "Show only the functions that have been executed.",
    ),
    ours(
        "debug-info",
        S,
        "For show, read and extract profile metadata from debug info and show the functions it found. For merge, use the provided debug info to correlate the raw profile.",
    ).help_until(14, "Read and extract profile metadata from debug info and show the functions it found."),
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
    ).help_until(14, "Details for matching functions"),
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
    ).since(19),
    ours(
        "list-below-cutoff",
        None,
        "Only output names of functions whose max count values are below the cutoff value",
    ),
    ours(
        "max-debug-info-correlation-warnings",
        UINT,
        "The maximum number of warnings to emit when correlating profile from debug info (0 = no limit)",
    ).since(19),
    ours(
        "memop-sizes",
        None,
        "Show the profiled sizes of the memory intrinsic calls for shown functions",
    ),
    alias("o", "output", Some("<output>")),
    ours("output", Some("<output>"), "Output file"),
    ours("profile-version", None, "Show profile version. ").since(19),
    no(
        "profiled-binary",
        S,
        "Path to binary from which the profile was collected.",
        MEMPROF,
    ).since(19),
    ours("instr", None, "Instrumentation profile (default)"),
    ours("sample", None, "Sample profile"),
    no("memory", None, "MemProf memory access profile", MEMPROF),
    ours(
        "show-format",
        VALUE,
        "Emit output in the selected format if supported: text (default) or json (yaml is not implemented)",
    ).since(19).values(&[("text", 19), ("json", 19), ("yaml", 19)]),
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
    ).since(19),
    ours("showcs", None, "Show context sensitive counts"),
    ours(
        "temporal-profile-traces",
        None,
        "Show temporal profile traces in the profile.",
    ).since(19),
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
    unlisted(opt("write-prev-version", None, "", Does::Ignored)).since(19),
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
    ).help_until(14, "Function level overlap information for matching functions. For CSSPGO this takes a a function name with calling context"),
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
    unlisted(opt("write-prev-version", None, "", Does::Ignored)).since(19),
];

/// The options of `llvm-profdata order` (LLVM 17 and later; the same in 19, 22 and 23).
pub const ORDER: &[LlvmOption] = &[
    ours(
        "num-test-traces",
        UINT,
        "Keep aside the last <num-test-traces> traces in the profile when computing the function order and instead use them to evaluate that order",
    ),
    alias("o", "output", Some("<output>")),
    ours("output", Some("<output>"), "Output file"),
    unlisted(opt("write-prev-version", None, "", Does::Ignored)).since(19),
];

/// The generic options every subcommand takes (listed first: with equal distances,
/// llvm-profdata suggests `-h` before the subcommand's single-letter options).
pub const GENERIC: &[LlvmOption] = &[
    opt("h", None, "Alias for --help", Does::Help),
    opt(
        "help",
        None,
        "Display available options (--help-hidden for more)",
        Does::Help,
    ),
    opt(
        "help-hidden",
        None,
        "Display all available options",
        Does::Help,
    ),
    opt(
        "help-list",
        None,
        "Display list of available options (--help-list-hidden for more)",
        Does::Help,
    ),
    opt(
        "help-list-hidden",
        None,
        "Display list of all available options",
        Does::Help,
    ),
    // Accepted and without effect: llvm-profdata never prints its option values.
    opt(
        "print-all-options",
        None,
        "Print all option values after command line parsing",
        Does::Ignored,
    ),
    opt(
        "print-options",
        None,
        "Print non-default options after command line parsing",
        Does::Ignored,
    ),
    opt(
        "version",
        None,
        "Display the version of this program",
        Does::Version,
    )
    .until(14),
    unlisted(opt(
        "version",
        None,
        "Display the version of this program",
        Does::Version,
    ))
    .since(19),
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
        "order" => (
            "Reads temporal profiling traces from a profile and outputs a function order that reduces the number of page faults for those traces. See detailed documentation in https://llvm.org/docs/CommandGuide/llvm-profdata.html#profdata-order",
            "order [options] <profdata-file>",
        ),
        _ => return None,
    })
}

/// The options table of an llvm-profdata subcommand, every release's.
pub fn table(sub: &str) -> &'static [LlvmOption] {
    match sub {
        "merge" => MERGE,
        "show" => SHOW,
        "overlap" => OVERLAP,
        "order" => ORDER,
        _ => &[],
    }
}

/// The options of subcommand `sub` in release `r` (one of [`RELEASES`]): its own, then
/// LLVM's [`GLOBAL`] ones it does not have itself (merge's `--correlate` is its own).
pub fn options(r: u32, sub: &str) -> impl Iterator<Item = &'static LlvmOption> {
    let own = table(sub);
    let global = if own.is_empty() { &[][..] } else { GLOBAL };
    own.iter()
        .chain(
            global
                .iter()
                .filter(move |g| !own.iter().any(|o| o.name == g.name && o.in_release(r))),
        )
        .filter(move |o| o.in_release(r))
}

/// The generic options of release `r`.
pub fn generic(r: u32) -> impl Iterator<Item = &'static LlvmOption> {
    GENERIC.iter().filter(move |o| o.in_release(r))
}

/// The option `name` of subcommand `sub` (or a generic one) in release `r`.
pub(super) fn find(r: u32, sub: &str, name: &str) -> Option<&'static LlvmOption> {
    options(r, sub).chain(generic(r)).find(|o| o.name == name)
}
