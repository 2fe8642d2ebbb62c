//! Command-line arguments: the clap definitions that parse the arguments are also the source
//! of `--help`, the shell completions and the man page ([`cli`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::LazyLock;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use pgo_merge::pipeline;
use pgo_merge::pipeline::sample::FsDiscriminatorPass;

/// What the tool is, in one line: the same for `-h`, `--help`, the man page and the
/// completions.
pub const ABOUT: &str = "Merge, convert and inspect profile-guided-optimisation profiles: LLVM \
                         (.profraw, .profdata, .proftext), GraalVM Native Image (.iprof) and \
                         sampled JIT code";

/// The exit-code rule, printed at the end of every `--help`.
pub const EXIT_CODES: &str = "Exit codes: 0 success; 1 the work failed (an input or input list \
    is missing, unreadable or corrupt, inputs conflict, an I/O error); 2 usage error (a bad \
    option or combination of options, no inputs). Run as llvm-profdata (the drop-in), every \
    failure exits with 1.";

/// What `pgo-merge --help` ends with: the drop-in setup and the exit codes.
pub const AFTER_HELP: &str = "Drop-in for llvm-profdata: run through a link named \
    llvm-profdata (e.g. `ln -s $(which pgo-merge) ~/bin/llvm-profdata`, first on PATH), it \
    takes llvm-profdata's merge, show and overlap options; a link named llvm-profdata-N writes \
    profiles for LLVM N, as does PGO_MERGE_TARGET_LLVM=N for a link without a version.\n\n\
    Outputs replace their file atomically (never partly written); PGO_MERGE_SYNC_OUTPUT=1 also \
    syncs each one to disk before it replaces the file, for outputs that must survive a power \
    loss.\n\n\
    Exit codes: 0 success; 1 the work failed (an input or input list is missing, unreadable or \
    corrupt, inputs conflict, an I/O error); 2 usage error (a bad option or combination of \
    options, no inputs). Run as llvm-profdata (the drop-in), every failure exits with 1.";

/// What `--version` prints after `pgo-merge `: the version, and which LLVM releases read the
/// `.profdata` that merge writes by default, or for which one it writes when
/// `PGO_MERGE_TARGET_LLVM` names one (`--target-llvm` writes for others).
pub fn version() -> &'static str {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        let env = std::env::var(super::dropin::TARGET_ENV).ok();
        version_text(env.as_deref())
    });
    &TEXT
}

/// [`version`]'s text for the value of `PGO_MERGE_TARGET_LLVM` (`env`; unset, empty or not a
/// number: the default, as merge's error about a bad value is merge's to give).
pub fn version_text(env: Option<&str>) -> String {
    let ours = env!("CARGO_PKG_VERSION");
    let v = pipeline::DEFAULT_INDEX_VERSION;
    let default = match pipeline::oldest_llvm_reading(v) {
        Some(llvm) => format!("version {v} by default, read by LLVM {llvm} and later"),
        None => format!("version {v} by default"),
    };
    let target = super::dropin::target("pgo-merge", env).ok().flatten();
    match target.and_then(|t| Some((t.llvm, pipeline::index_version_for_llvm(t.llvm)?))) {
        Some((llvm, iv)) => format!(
            "{ours} (writes indexed profiles version {iv} for LLVM {llvm}, as {}={llvm} asks; \
             {default})",
            super::dropin::TARGET_ENV
        ),
        None => {
            format!("{ours} (writes indexed profiles {default}; --target-llvm M writes for LLVM M)")
        }
    }
}

/// Each command's synopsis after `pgo-merge COMMAND`, as the man page shows it (merge's is
/// also that of `pgo-merge` without a command). Every argument a command requires is named
/// (a test checks it).
pub const SYNOPSES: &[(&str, &str)] = &[
    ("merge", "[OPTIONS] INPUT... -o FILE"),
    ("show", "[OPTIONS] FILE..."),
    ("overlap", "[OPTIONS] BASE TEST"),
    ("order", "[OPTIONS] PROFILE..."),
    ("symbolize", "[OPTIONS] --perf-script FILE -o FILE"),
    ("completions", "SHELL"),
    ("man", ""),
    ("help", "[COMMAND]"),
];

/// The synopsis of command `name` ([`SYNOPSES`]; empty for no such command).
pub fn synopsis(name: &str) -> &'static str {
    SYNOPSES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, s)| s)
}

/// The names of the subcommands, as `pgo-merge --help` lists them (`help` is clap's).
pub const SUBCOMMANDS: &[&str] = &[
    "merge",
    "show",
    "overlap",
    "order",
    "symbolize",
    "completions",
    "man",
    "help",
];

/// The headings of `--help` and of the man page's option lists. clap shows the headings of a
/// command in the order their first options are declared, so each command's fields are in
/// the order of its headings' first use; `-h` and `-V` stay under "Options".
pub mod heading {
    /// merge: what is read and how (weights, lists, unusable inputs, renaming).
    pub const INPUTS: &str = "Inputs";
    /// merge: what is written, where, and which functions; show and overlap: the report.
    pub const OUTPUT: &str = "Output";
    /// merge: the indexed (.profdata) and text output of LLVM instrumentation profiles.
    pub const LLVM_INSTR: &str = "LLVM instrumentation profiles";
    /// merge, show, overlap: LLVM sample profiles (`--sample`).
    pub const LLVM_SAMPLE: &str = "LLVM sample profiles";
    /// merge: GraalVM Native Image profiles (.iprof).
    pub const GRAALVM: &str = "GraalVM .iprof profiles";
    /// merge: threads, progress and messages.
    pub const RUN: &str = "Run";
    /// show and overlap: which functions are reported.
    pub const FUNCTIONS: &str = "Functions";
    /// show: what is shown of each function or profile.
    pub const DETAILS: &str = "Details";
    /// order: how the order is computed.
    pub const ORDERING: &str = "Ordering";
}

/// `pgo-merge [COMMAND] ...`: the whole command line. Without a command, the arguments are
/// those of `merge`.
#[derive(Debug, Parser)]
#[command(
    name = "pgo-merge",
    version = version(),
    about = ABOUT,
    long_about = None,
    after_help = AFTER_HELP,
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    subcommand_value_name = "COMMAND",
    subcommand_help_heading = "Commands"
)]
pub struct Cli {
    /// The command (default: merge).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The arguments of the default command, merge.
    #[command(flatten)]
    pub merge: MergeArgs,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Merge or convert profiles into one (the default command: `pgo-merge IN... -o OUT`
    /// is `pgo-merge merge IN... -o OUT`)
    #[command(after_help = EXIT_CODES)]
    Merge(Box<MergeArgs>),
    /// Describe profiles: LLVM raw (.profraw), indexed (.profdata) and text (.proftext)
    /// profiles, GraalVM .iprof (.iprof.gz), jitdumps, perf maps and .NET r2rmaps
    #[command(after_help = EXIT_CODES)]
    Show(ShowArgs),
    /// Compare two profiles (as llvm-profdata overlap)
    #[command(after_help = EXIT_CODES)]
    Overlap(OverlapArgs),
    /// Order functions for the linker from temporal profiles (as llvm-profdata order)
    #[command(after_help = EXIT_CODES)]
    Order(OrderArgs),
    /// Turn sampled JIT code (perf script + jitdump / perf map / r2rmap) into a profile
    #[command(after_help = EXIT_CODES)]
    Symbolize(SymbolizeArgs),
    /// Print a completion script for SHELL (e.g. `pgo-merge completions bash >
    /// /etc/bash_completion.d/pgo-merge`)
    #[command(after_help = EXIT_CODES)]
    Completions(CompletionsArgs),
    /// Print the man page (roff; e.g. `pgo-merge man > pgo-merge.1`, or `pgo-merge man |
    /// man -l -`)
    #[command(after_help = EXIT_CODES)]
    Man(ManArgs),
}

/// `pgo-merge completions SHELL`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `pgo-merge man` (no arguments).
#[derive(Debug, Args)]
pub struct ManArgs {}

/// The whole command tree: `pgo-merge` with its commands.
pub fn cli() -> clap::Command {
    Cli::command()
}

/// The command `name` (`merge`, `show`, ...) as it parses on its own, shown as `pgo-merge
/// NAME` in its help and errors.
pub fn subcommand(name: &str) -> clap::Command {
    // Built, so that it has what the tree gives its commands (`--version`).
    let mut tree = cli();
    tree.build();
    let sub = tree
        .find_subcommand(name)
        .cloned()
        .unwrap_or_else(|| panic!("no subcommand {name}"));
    sub.bin_name(format!("pgo-merge {name}"))
        .display_name("pgo-merge")
}

/// Merge profiles into one indexed (or text, or iprof) profile.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Input profiles, or directories searched recursively (following symbolic links) for
    /// .profraw, .profdata, .iprof and .iprof.gz files (and .proftext when GraalVM profiles
    /// are among them). The format of each input is detected from its content.
    pub inputs: Vec<PathBuf>,

    /// A weighted input, `W,FILE`: every count of FILE is multiplied by W (a positive
    /// number; fractions are rounded half up). Repeatable.
    #[arg(
        short = 'w',
        long = "weighted-input",
        value_name = "W,FILE",
        value_parser = clap::value_parser!(OsString)
    )]
    #[arg(help_heading = heading::INPUTS)]
    pub weighted_inputs: Vec<OsString>,

    /// A file listing inputs, one per line as `FILE` or `W,FILE`; `#` starts a comment.
    #[arg(short = 'f', long = "input-files", value_name = "LIST")]
    #[arg(help_heading = heading::INPUTS)]
    pub input_files: Vec<PathBuf>,

    /// Output file (`-` for standard output). Written to a temporary file first and
    /// renamed, so a failed run leaves no partial output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    #[arg(help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,

    /// Output format; by default chosen from the output's extension (.proftext / .txt → text).
    #[arg(long = "output-format", value_enum)]
    #[arg(help_heading = heading::OUTPUT)]
    pub output_format: Option<OutputFormatArg>,

    /// Write the text format (same as --output-format proftext).
    #[arg(long = "text", conflicts_with = "output_format")]
    #[arg(help_heading = heading::OUTPUT)]
    pub text: bool,

    /// Index version of the .profdata output (7 to 14). Default 13.
    #[arg(
        long = "format-version",
        value_name = "N",
        conflicts_with = "target_llvm"
    )]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub format_version: Option<u32>,

    /// Write the newest index version that LLVM release M (12 and later) reads, e.g. 14 → 7,
    /// 19 → 12, 22 → 13.
    #[arg(long = "target-llvm", value_name = "M")]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub target_llvm: Option<u32>,

    /// Fail instead of leaving out, with a warning, what the index version written cannot
    /// hold (vtable value sites before 12, MC/DC bitmaps before 11, temporal traces before
    /// 10) or profile flags the LLVM release targeted does not know. (Binary IDs, which
    /// versions before 9 cannot hold, are dropped silently, as llvm-profdata drops them.)
    #[arg(long = "strict-target")]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub strict_target: bool,

    /// Drop functions whose counters are all zero.
    #[arg(long)]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub sparse: bool,

    /// What to do with inputs that cannot be used (missing, unreadable, corrupt): `any` fails
    /// on the first, `all` fails only if none can be used, `warn` never fails.
    #[arg(long = "failure-mode", value_enum, default_value_t = FailureModeArg::Any)]
    #[arg(help_heading = heading::INPUTS)]
    pub failure_mode: FailureModeArg,

    /// Also multiply by the input's weight the value counts an input adds to a value site
    /// for the first time (llvm-profdata leaves them unweighted).
    #[arg(long = "weight-all-values")]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub weight_all_values: bool,

    /// Keep vtable names in the output (as llvm-profdata --keep-vtable-symbols).
    #[arg(long = "keep-vtable-symbols")]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub keep_vtable_symbols: bool,

    /// Number of temporal traces kept.
    #[arg(
        long = "temporal-profile-trace-reservoir-size",
        value_name = "N",
        default_value_t = 100
    )]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub temporal_reservoir_size: u64,

    /// Longest temporal trace kept, in functions.
    #[arg(
        long = "temporal-profile-max-trace-length",
        value_name = "N",
        default_value_t = 10_000
    )]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub temporal_max_trace_length: u64,

    /// Scale each input before merging so that each contributes
    /// equally (GraalVM profiles per section): `total` makes the inputs' total counts equal, `max` their
    /// largest counts (inputs are scaled up to the largest input, never down).
    #[arg(long = "normalize", alias = "normalise", value_enum, default_value_t = NormalizeArg::None)]
    #[arg(help_heading = heading::INPUTS)]
    pub normalize: NormalizeArg,

    /// Keep only functions whose name matches this regular expression (applied to the merged
    /// profile, as llvm-profdata's option).
    #[arg(long = "function", value_name = "REGEX")]
    #[arg(help_heading = heading::OUTPUT)]
    pub function: Option<String>,

    /// Drop functions whose name matches this regular expression (wins over --function).
    #[arg(long = "no-function", value_name = "REGEX")]
    #[arg(help_heading = heading::OUTPUT)]
    pub no_function: Option<String>,

    /// A symbol remapping file: lines `old_name new_name` (`#` comments); records of
    /// `old_name` are merged as `new_name` (sample profiles: every name they hold, as
    /// llvm-profdata renames them).
    #[arg(short = 'r', long = "remapping-file", value_name = "FILE")]
    #[arg(help_heading = heading::INPUTS)]
    pub remapping_file: Option<PathBuf>,

    /// A binary built with `-mllvm -profile-correlate=binary` whose lightweight raw profiles
    /// are merged (repeatable): each profile is completed from the binary whose build ID it
    /// carries; one that matches none is an error naming both build IDs.
    #[arg(long = "binary-file", value_name = "FILE")]
    #[arg(help_heading = heading::INPUTS)]
    pub binary_file: Vec<PathBuf>,

    /// A binary (or its debug file) built with `-g -mllvm -profile-correlate=debug-info`
    /// (clang 14–17: `-mllvm -debug-info-correlate`) whose lightweight raw profiles are
    /// merged (repeatable): as --binary-file, from its DWARF.
    #[arg(long = "debug-info", value_name = "FILE")]
    #[arg(help_heading = heading::INPUTS)]
    pub debug_info: Vec<PathBuf>,

    /// The binary that the lightweight raw profiles among the inputs matching GLOB are
    /// completed from, instead of the binary their build ID names (repeatable; for
    /// binaries without a build ID). GLOB without `/` matches the file name, with `/` the
    /// path as given; `*` stops at `/`, `**` does not.
    #[arg(long = "binary-for", num_args = 2, value_names = ["GLOB", "FILE"])]
    #[arg(help_heading = heading::INPUTS)]
    pub binary_for: Vec<PathBuf>,

    /// As --binary-for, for a binary (or debug file) read as --debug-info reads it.
    #[arg(long = "debug-info-for", num_args = 2, value_names = ["GLOB", "FILE"])]
    #[arg(help_heading = heading::INPUTS)]
    pub debug_info_for: Vec<PathBuf>,

    /// A directory holding a `.build-id` tree (`.build-id/xx/rest-of-the-id.debug`) in
    /// which the binaries of lightweight raw profiles are looked up by build ID when no
    /// --binary-file or --debug-info matches (repeatable; needs --correlate).
    #[arg(long = "debug-file-directory", value_name = "DIR")]
    #[arg(help_heading = heading::INPUTS)]
    pub debug_file_directory: Vec<PathBuf>,

    /// How the binaries found by --debug-file-directory are read: for `binary` or
    /// `debug-info` correlation.
    #[arg(long = "correlate", value_enum, value_name = "KIND")]
    #[arg(help_heading = heading::INPUTS)]
    pub correlate: Option<CorrelateArg>,

    /// Warnings shown about counters the debug info describes incompletely (0: all).
    #[arg(
        long = "max-debug-info-correlation-warnings",
        value_name = "N",
        default_value_t = 5
    )]
    #[arg(help_heading = heading::INPUTS)]
    pub max_debug_info_correlation_warnings: usize,

    /// Supplement the instrumentation profile with this sample profile (any encoding):
    /// functions hot or warm in it but cold in the instrumentation profile get their counts
    /// scaled up, or dropped for a hot/warm mark, as llvm-profdata does.
    #[arg(long = "supplement-instr-with-sample", value_name = "SAMPLE_PROFILE")]
    #[arg(help_heading = heading::INPUTS)]
    pub supplement_instr_with_sample: Option<PathBuf>,

    /// With --supplement-instr-with-sample: a function with more than this fraction of zero
    /// counters gets a hot/warm mark instead of scaled counts [default: 0.7].
    #[arg(long = "zero-counter-threshold", value_name = "FRACTION")]
    #[arg(help_heading = heading::INPUTS)]
    pub zero_counter_threshold: Option<f32>,

    /// With --supplement-instr-with-sample: functions with fewer counters are left alone
    /// [default: 10].
    #[arg(long = "suppl-min-size-threshold", value_name = "N")]
    #[arg(help_heading = heading::INPUTS)]
    pub suppl_min_size_threshold: Option<u32>,

    /// With --supplement-instr-with-sample: the instrumentation cold threshold (largest
    /// count of a cold function); 0 (the default) takes it from the profile's summary.
    #[arg(long = "instr-prof-cold-threshold", value_name = "COUNT")]
    #[arg(help_heading = heading::INPUTS)]
    pub instr_prof_cold_threshold: Option<u32>,

    /// Write index version 11, as llvm-profdata's hidden option (same as --format-version 11).
    #[arg(long = "write-prev-version", conflicts_with_all = ["format_version", "target_llvm"])]
    #[arg(help_heading = heading::LLVM_INSTR)]
    pub write_prev_version: bool,

    /// Print the resolved `W,FILE` input list and exit (llvm-profdata's hidden option).
    #[arg(long = "dump-input-file-list")]
    #[arg(help_heading = heading::INPUTS)]
    pub dump_input_file_list: bool,

    /// Instrumentation profiles (the default; accepted for llvm-profdata compatibility).
    #[arg(long = "instr", hide = true, conflicts_with = "sample")]
    #[arg(help_heading = heading::INPUTS)]
    pub instr: bool,

    /// Merge LLVM sample profiles (AutoFDO, CSSPGO) instead of instrumentation profiles.
    /// The output is extbinary unless --text, --binary or an output named .txt, .proftext
    /// or .afdotext says otherwise.
    #[arg(long = "sample")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub sample: bool,

    /// Sample profiles: leave the inputs' profile symbol lists out of the output.
    #[arg(long = "drop-profile-symbol-list")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub drop_profile_symbol_list: bool,

    /// Sample profiles, extbinary output: name functions by the MD5 of their names (a
    /// fixed-length MD5 name table).
    #[arg(long = "use-md5")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub use_md5: bool,

    /// Sample profiles, extbinary output: compress every section (zlib).
    #[arg(long = "compress-all-sections")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub compress_all_sections: bool,

    /// Sample profiles, extbinary output: mark the profile partial (functions without
    /// samples are not taken to be cold).
    #[arg(long = "gen-partial-profile")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub gen_partial_profile: bool,

    /// Sample profiles, extbinary output: write profiles with inlined callees and those
    /// without in separate sections (LLVM 22 and later read it).
    #[arg(long = "split-layout")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub split_layout: bool,

    /// Sample profiles, extbinary output: write vtable type counts (`vtables` lines of LLVM
    /// 22's text format) after each body, as LLVM 22 and later do with this option.
    #[arg(long = "extbinary-write-vtable-type-prof")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub extbinary_write_vtable_type_prof: bool,

    /// Sample profiles: drop the coldest functions until the output is at most N bytes (as
    /// llvm-profdata, an error if no function fits); 0 is no limit.
    #[arg(long = "output-size-limit", value_name = "N")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub output_size_limit: Option<u64>,

    /// Sample profiles with flow-sensitive discriminators: keep the discriminator bits of
    /// the base and the passes up to PASS and clear the others: Base, Pass1, Pass2, Pass3
    /// or PassLast (all bits, the default), any case. Applies to inputs marked
    /// flow-sensitive (extbinary files that say so, text and binary ones with
    /// --profile-isfs), and to the body samples and call targets of every input when
    /// remapping (-r), as llvm-profdata.
    #[arg(
        long = "fs-discriminator-pass",
        value_name = "PASS",
        value_parser = parse_fs_pass
    )]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub fs_discriminator_pass: Option<FsDiscriminatorPass>,

    /// Sample profiles: read text and binary inputs as having flow-sensitive discriminators
    /// (LLVM's hidden --profile-isfs; extbinary files say so themselves): the
    /// --fs-discriminator-pass mask applies to them, and an extbinary output is marked
    /// flow-sensitive.
    #[arg(long = "profile-isfs")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub profile_is_fs: bool,

    /// Sample profiles, extbinary output: add the symbols listed in FILE (one per line) as
    /// the profile symbol list.
    #[arg(long = "prof-sym-list", value_name = "FILE")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub prof_sym_list: Option<PathBuf>,

    /// Context-sensitive sample profiles: drop context profiles whose total is below the
    /// cold threshold of the profile summary.
    #[arg(long = "sample-trim-cold-context")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub sample_trim_cold_context: bool,

    /// Context-sensitive sample profiles: merge cold context profiles into the profile of
    /// their last N frames (--sample-frame-depth-for-cold-context).
    #[arg(long = "sample-merge-cold-context")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub sample_merge_cold_context: bool,

    /// Frames kept when merging cold contexts (1: the function's base profile).
    #[arg(
        long = "sample-frame-depth-for-cold-context",
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub sample_frame_depth_for_cold_context: u32,

    /// Sample profiles: convert the merged profile to a layout: `flat` (inlined callees
    /// flattened into top-level profiles) or `nest` (context-sensitive profiles nested into
    /// their callers).
    #[arg(
        long = "convert-sample-profile-layout",
        value_enum,
        value_name = "LAYOUT"
    )]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub convert_sample_profile_layout: Option<SampleLayoutArg>,

    /// Indexed output (accepted for llvm-profdata compatibility; the default).
    #[arg(long = "binary", hide = true, conflicts_with = "text")]
    #[arg(help_heading = heading::OUTPUT)]
    pub binary: bool,

    /// Indexed output (llvm-profdata's default spelling for sample profiles; accepted).
    #[arg(long = "extbinary", hide = true, conflicts_with = "text")]
    #[arg(help_heading = heading::OUTPUT)]
    pub extbinary: bool,

    /// GCC's AutoFDO encoding as the output (llvm-profdata's spelling): GCC profiles are
    /// read, never written, so a `--sample` merge fails once its inputs are read, as
    /// llvm-profdata's does ("Profile encoding format unsupported for writing operations").
    #[arg(long = "gcc", hide = true, conflicts_with_all = ["text", "binary", "extbinary"])]
    #[arg(help_heading = heading::OUTPUT)]
    pub gcc: bool,

    /// Write exactly what llvm-profdata writes where our output would carry more (text
    /// output: unnamed indirect-call targets as `** External Symbol **`). Implied when run
    /// as `llvm-profdata`.
    #[arg(long = "llvm-compatible")]
    #[arg(help_heading = heading::OUTPUT)]
    pub llvm_compatible: bool,

    /// GraalVM .iprof only: fold calling contexts deeper than N frames into their innermost
    /// N frames (counts are summed). Sampling stacks are kept whole (see
    /// --max-sampling-depth).
    #[arg(long = "max-context-depth", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    #[arg(help_heading = heading::GRAALVM)]
    pub max_context_depth: Option<u32>,

    /// GraalVM .iprof only: shorten sampled call stacks (samplingProfiles, whole stacks by
    /// GraalVM's definition) deeper than N frames to their innermost N frames.
    #[arg(long = "max-sampling-depth", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    #[arg(help_heading = heading::GRAALVM)]
    pub max_sampling_depth: Option<u32>,

    /// GraalVM .iprof only: fold contexts whose counts sum to less than C into the
    /// context-free entry of their method (sampling stacks are never folded). C is a count (`100`), a fraction of the
    /// section's total (`0.001`) or a percentage (`0.1%`).
    #[arg(long = "cold-threshold", value_name = "C")]
    #[arg(help_heading = heading::GRAALVM)]
    pub cold_threshold: Option<String>,

    /// GraalVM .iprof only: keep types and methods that no profile entry references
    /// (by default they are removed from the output).
    #[arg(long = "keep-all-symbols")]
    #[arg(help_heading = heading::GRAALVM)]
    pub keep_all_symbols: bool,

    /// Converting GraalVM .iprof to an LLVM profile: keep each calling context as a record of
    /// its own (named `method<caller:bci<…`) instead of folding contexts into their methods.
    #[arg(long = "keep-contexts")]
    #[arg(help_heading = heading::GRAALVM)]
    pub keep_contexts: bool,

    /// GraalVM .iprof only: report bad entries (dangling ids, bad contexts, bad record
    /// lengths, duplicates) as warnings and drop them, instead of failing.
    #[arg(long = "lenient")]
    #[arg(help_heading = heading::GRAALVM)]
    pub lenient: bool,

    /// Worker threads (0 = one per core). The output does not depend on it.
    #[arg(
        short = 'j',
        long = "threads",
        alias = "num-threads",
        value_name = "N",
        default_value_t = 0
    )]
    #[arg(help_heading = heading::RUN)]
    pub threads: usize,

    /// Never show a progress bar.
    #[arg(long = "no-progress")]
    #[arg(help_heading = heading::RUN)]
    pub no_progress: bool,

    /// Print only errors.
    #[arg(short = 'q', long)]
    #[arg(help_heading = heading::RUN)]
    pub quiet: bool,
}

/// `pgo-merge show`: describe profiles. Options are llvm-profdata's; the text output is what
/// llvm-profdata show prints for them.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Files to show: LLVM .profraw, .profdata and .proftext profiles, GraalVM .iprof and
    /// .iprof.gz profiles, jitdumps (jit-PID.dump), perf maps (perf-PID.map) and .NET r2rmaps.
    /// The format is detected from the content.
    #[arg(required_unless_present = "debug_info")]
    pub files: Vec<PathBuf>,
    /// Details for every function.
    #[arg(long = "all-functions")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub all_functions: bool,
    /// Counter values of the shown functions.
    #[arg(long)]
    #[arg(help_heading = heading::DETAILS)]
    pub counts: bool,
    /// Indirect-call targets of the shown functions.
    #[arg(long = "ic-targets")]
    #[arg(help_heading = heading::DETAILS)]
    pub ic_targets: bool,
    /// Vtable values of the shown functions.
    #[arg(long = "show-vtables")]
    #[arg(help_heading = heading::DETAILS)]
    pub show_vtables: bool,
    /// Memory-operation sizes of the shown functions.
    #[arg(long = "memop-sizes")]
    #[arg(help_heading = heading::DETAILS)]
    pub memop_sizes: bool,
    /// The detailed summary (cutoffs).
    #[arg(long = "detailed-summary")]
    #[arg(help_heading = heading::DETAILS)]
    pub detailed_summary: bool,
    /// Cutoffs of the detailed summary, parts per million, comma-separated.
    #[arg(
        long = "detailed-summary-cutoffs",
        value_delimiter = ',',
        value_name = "N,..."
    )]
    #[arg(help_heading = heading::DETAILS)]
    pub detailed_summary_cutoffs: Vec<u32>,
    /// Show context-sensitive records (IR profiles) instead of the others.
    #[arg(long)]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub showcs: bool,
    /// Dump the shown records as a text profile.
    #[arg(long)]
    #[arg(help_heading = heading::OUTPUT)]
    pub text: bool,
    /// JSON output, for every format (schemas/show.schema.json).
    #[arg(long, conflicts_with = "text")]
    #[arg(help_heading = heading::OUTPUT)]
    pub json: bool,
    /// `text` or `json` (llvm-profdata's spelling of --json).
    #[arg(long = "show-format", value_name = "FORMAT")]
    #[arg(help_heading = heading::OUTPUT)]
    pub show_format: Option<String>,
    /// Binary IDs.
    #[arg(long = "binary-ids")]
    #[arg(help_heading = heading::DETAILS)]
    pub binary_ids: bool,
    /// Temporal traces.
    #[arg(long = "temporal-profile-traces")]
    #[arg(help_heading = heading::DETAILS)]
    pub temporal_profile_traces: bool,
    /// The N functions with the largest counters (with --sample: the hot-function list,
    /// at most N rows).
    #[arg(long, default_value_t = 0, value_name = "N")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub topn: u32,
    /// Show functions whose name matches this regular expression (a substring when run as
    /// llvm-profdata).
    #[arg(long, value_name = "REGEX")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub function: Option<String>,
    /// Skip functions whose largest counter is below N.
    #[arg(long = "value-cutoff", default_value_t = 0, value_name = "N")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub value_cutoff: u64,
    /// Only list the functions below --value-cutoff.
    #[arg(long = "list-below-cutoff")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub list_below_cutoff: bool,
    /// Only print the names of functions that ran.
    #[arg(long)]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub covered: bool,
    /// The functions above the hot-count threshold.
    #[arg(long = "hot-func-list")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub hot_func_list: bool,
    /// Print the profile's version.
    #[arg(long = "profile-version")]
    #[arg(help_heading = heading::DETAILS)]
    pub profile_version: bool,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    #[arg(help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
    /// Instrumentation profiles (the only kind; accepted for llvm-profdata compatibility).
    #[arg(long = "instr", hide = true)]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub instr: bool,

    /// Show an LLVM sample profile (AutoFDO, CSSPGO) as llvm-profdata show --sample does.
    #[arg(long = "sample", conflicts_with = "instr")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub sample: bool,

    /// With --sample: show as llvm-profdata of LLVM release M does (the text dialect; 19 or
    /// 22, default 22).
    #[arg(long = "target-llvm", value_name = "M", requires = "sample")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub target_llvm: Option<u32>,

    /// With --sample: flow-sensitive discriminators.
    #[command(flatten)]
    pub fs: SampleFsArgs,

    /// With --sample: the profile symbol list after the functions (extbinary profiles that
    /// have one).
    #[arg(long = "show-prof-sym-list")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub show_prof_sym_list: bool,

    /// With --sample: only the section table of an extbinary profile (offsets, sizes,
    /// flags); other encodings get a warning and no output.
    #[arg(long = "show-sec-info-only")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub show_sec_info_only: bool,
    /// Instead of files, describe the profile counters that this binary's debug info holds
    /// (a build with `-g -mllvm -profile-correlate=debug-info`), as llvm-profdata does:
    /// the number of functions, with --show-prof-sym-list their names, with
    /// --detailed-summary the counters section's size, with --show-format=yaml every probe.
    #[arg(long = "debug-info", value_name = "BINARY")]
    #[arg(help_heading = heading::DETAILS)]
    pub debug_info: Option<PathBuf>,
    /// With --debug-info: warnings shown about incomplete counters DIEs (0: all).
    #[arg(
        long = "max-debug-info-correlation-warnings",
        value_name = "N",
        default_value_t = 5
    )]
    #[arg(help_heading = heading::DETAILS)]
    pub max_debug_info_correlation_warnings: usize,
}

/// `pgo-merge order PROFILE...`: a function order for the linker from temporal traces.
#[derive(Debug, Args)]
pub struct OrderArgs {
    /// The profiles (raw, indexed or text; several are merged first, as merge merges them).
    #[arg(value_name = "PROFILE")]
    pub inputs: Vec<PathBuf>,
    /// Keep the last N traces aside and print how the order does on them (the area under
    /// their page-fault curve, 32 functions per page).
    #[arg(long = "num-test-traces", default_value_t = 0, value_name = "N")]
    #[arg(help_heading = heading::ORDERING)]
    pub num_test_traces: usize,
    /// Order as llvm-profdata of LLVM release M does (17–19 and 22+ differ; default 22).
    #[arg(long = "target-llvm", value_name = "M")]
    #[arg(help_heading = heading::ORDERING)]
    pub target_llvm: Option<u32>,
    /// With several inputs: how many traces the merge keeps (as merge's option).
    #[arg(
        long = "temporal-profile-trace-reservoir-size",
        value_name = "N",
        default_value_t = 100
    )]
    #[arg(help_heading = heading::INPUTS)]
    pub reservoir_size: u64,
    /// With several inputs: traces are cut to this many functions (as merge's option).
    #[arg(
        long = "temporal-profile-max-trace-length",
        value_name = "N",
        default_value_t = 10000
    )]
    #[arg(help_heading = heading::INPUTS)]
    pub max_trace_length: u64,
    /// How to write the order: llvm (llvm-profdata's text, which lld's
    /// --symbol-ordering-file takes), symbols (names only), ld64 (Mach-O `_` prefix, for
    /// -order_file), sections (`.text.NAME` per line, for gold's --section-ordering-file),
    /// gnu-ld (a script for GNU ld 2.43+'s --section-ordering-file).
    #[arg(long = "format", value_enum, default_value_t = OrderFormatArg::Llvm)]
    #[arg(help_heading = heading::OUTPUT)]
    pub format: OrderFormatArg,
    /// JSON output (schemas/order.schema.json).
    #[arg(long, conflicts_with = "format")]
    #[arg(help_heading = heading::OUTPUT)]
    pub json: bool,
    /// Write the order to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    #[arg(help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
    /// LLVM's global sample-profile options, which llvm-profdata order accepts and ignores.
    #[arg(long = "fs-discriminator-pass", hide = true, value_name = "PASS")]
    pub fs_discriminator_pass: Option<String>,
    /// See `fs_discriminator_pass`.
    #[arg(long = "profile-isfs", hide = true)]
    pub profile_is_fs: bool,
}

/// The text formats of `order --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OrderFormatArg {
    /// llvm-profdata's text.
    Llvm,
    /// Names only.
    Symbols,
    /// ld64's -order_file.
    Ld64,
    /// `.text.NAME` section names.
    Sections,
    /// A section-ordering script for GNU ld 2.43+.
    GnuLd,
}

/// `pgo-merge overlap BASE TEST`: how similar two profiles are.
#[derive(Debug, Args)]
pub struct OverlapArgs {
    /// The base profile.
    pub base: PathBuf,
    /// The test profile.
    pub test: PathBuf,
    /// Also print function-level figures for functions whose largest test counter is at
    /// least N.
    #[arg(long = "value-cutoff", value_name = "N")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub value_cutoff: Option<u64>,
    /// Print function-level figures for functions whose name contains this string.
    #[arg(long, value_name = "NAME")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub function: Option<String>,
    /// Compare context-sensitive records.
    #[arg(long)]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub cs: bool,
    /// Number of functions listed with the largest differences (0 = none).
    #[arg(long = "top-differences", default_value_t = 10, value_name = "N")]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub top_differences: usize,
    /// JSON output (schemas/overlap.schema.json; BOLT profiles: schemas/bolt-overlap.schema.json).
    #[arg(long)]
    #[arg(help_heading = heading::OUTPUT)]
    pub json: bool,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    #[arg(help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
    /// Instrumentation profiles (the default; accepted for llvm-profdata compatibility).
    #[arg(long = "instr", hide = true)]
    #[arg(help_heading = heading::FUNCTIONS)]
    pub instr: bool,

    /// Compare two LLVM sample profiles (AutoFDO, CSSPGO) as llvm-profdata overlap --sample
    /// does.
    #[arg(long = "sample", conflicts_with = "instr")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub sample: bool,

    /// With --sample: also list functions of both profiles whose similarity is below N
    /// parts per million (percentage times 10000).
    #[arg(long = "similarity-cutoff", default_value_t = 0, value_name = "N")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub similarity_cutoff: u64,

    /// With --sample: read the profiles as llvm-profdata of LLVM release M does (the text
    /// dialect; 19 or 22, default 22).
    #[arg(long = "target-llvm", value_name = "M", requires = "sample")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub target_llvm: Option<u32>,
    /// With --sample: flow-sensitive discriminators.
    #[command(flatten)]
    pub fs: SampleFsArgs,
}

/// The flow-sensitive discriminator options of `show` and `overlap` (those of `merge`
/// say more about what merging does with them).
#[derive(Debug, Args)]
pub struct SampleFsArgs {
    /// With --sample: the flow-sensitive discriminator bits kept (Base, Pass1, Pass2, Pass3
    /// or PassLast, any case), in profiles marked flow-sensitive, as in merge.
    #[arg(
        long = "fs-discriminator-pass",
        value_name = "PASS",
        value_parser = parse_fs_pass
    )]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub fs_discriminator_pass: Option<FsDiscriminatorPass>,

    /// With --sample: read text and binary profiles as having flow-sensitive
    /// discriminators (LLVM's hidden --profile-isfs), as in merge.
    #[arg(long = "profile-isfs")]
    #[arg(help_heading = heading::LLVM_SAMPLE)]
    pub profile_is_fs: bool,
}

/// A `--fs-discriminator-pass` value: llvm-profdata's spellings, in any case.
fn parse_fs_pass(s: &str) -> Result<FsDiscriminatorPass, String> {
    FsDiscriminatorPass::ALL
        .into_iter()
        .find(|p| p.llvm_name().eq_ignore_ascii_case(s))
        .ok_or_else(|| {
            let names: Vec<&str> = FsDiscriminatorPass::ALL
                .iter()
                .map(|p| p.llvm_name())
                .collect();
            format!("expected one of {}", names.join(", "))
        })
}

/// Sample profile layouts (`--convert-sample-profile-layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SampleLayoutArg {
    /// Nested profile, the input should be a CS flat profile.
    Nest,
    /// Profile with nested inlinees flattened out.
    Flat,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormatArg {
    /// LLVM indexed profile.
    Profdata,
    /// LLVM text profile.
    Proftext,
    /// GraalVM Native Image profile (JSON, format 1.0.0); needs .iprof inputs.
    Iprof,
}

/// `--normalize` values (GraalVM .iprof merges).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NormalizeArg {
    /// Plain (weighted) sums.
    None,
    /// Make each input's per-section total equal.
    Total,
    /// Make each input's per-section largest count equal.
    Max,
}

/// `--correlate` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CorrelateArg {
    /// Data records in the binary (`-profile-correlate=binary`).
    Binary,
    /// DWARF (`-profile-correlate=debug-info`).
    DebugInfo,
}

/// `--failure-mode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailureModeArg {
    /// Fail on the first bad input.
    Any,
    /// Fail only if every input is bad.
    All,
    /// Never fail because of inputs.
    Warn,
}

/// `pgo-merge symbolize`: resolve the JIT frames of sampled stacks (`perf script` text)
/// through jitdumps, perf maps and r2rmaps, and write a profile.
#[derive(Debug, Args)]
pub struct SymbolizeArgs {
    /// jitdump files (`jit-PID.dump`) written by the JIT runtime; each applies to the
    /// process named in its header.
    #[arg(long = "jitdump", value_name = "FILE", num_args = 1.., action = clap::ArgAction::Append)]
    pub jitdump: Vec<PathBuf>,

    /// perf symbol maps (`perf-PID.map`): time-less, used where no jitdump load covers an
    /// address. The pid is taken from the file name; a map named otherwise applies to every
    /// process. Repeatable.
    #[arg(long = "perf-map", value_name = "FILE")]
    pub perf_map: Vec<PathBuf>,

    /// .NET ReadyToRun maps, `FILE@BASE`: the image's load address BASE (hex with 0x, or
    /// decimal) is added to each RVA; without `@BASE` the RVAs are used as they are.
    /// Repeatable.
    #[arg(
        long = "r2rmap",
        value_name = "FILE[@BASE]",
        value_parser = clap::value_parser!(OsString)
    )]
    pub r2rmap: Vec<OsString>,

    /// The samples: `perf script` text (default fields, or `-F comm,pid,tid,time,ip,sym,dso`;
    /// with `--show-mmap-events` for JIT code inside file mappings), recorded with
    /// `perf record -k mono -g` so that sample times and jitdump times share a clock.
    #[arg(long = "perf-script", value_name = "FILE")]
    pub perf_script: PathBuf,

    /// Take every sample to be of process PID, whatever id the text prints (plain
    /// `perf script` prints thread ids; when all jitdumps and maps are of one process they
    /// apply to every sample anyway).
    #[arg(long = "pid", value_name = "PID")]
    pub pid: Option<u32>,

    /// Output: `.iprof` (GraalVM samplingProfiles) or `.folded` (folded stacks for flame-graph
    /// tools), chosen from the extension unless --output-format says.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,

    /// Output format (overrides the extension).
    #[arg(long = "output-format", value_enum)]
    pub output_format: Option<SymbolizeFormatArg>,

    /// Accept a jitdump load up to NS nanoseconds after a sample when no earlier load covers
    /// its address (writers stamp records slightly out of order). 0, the default, resolves
    /// exactly as `perf inject --jit` does.
    #[arg(long = "load-time-slack", value_name = "NS", default_value_t = 0)]
    pub load_time_slack: u64,

    /// Print only errors.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// Output formats of `symbolize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SymbolizeFormatArg {
    /// GraalVM .iprof with samplingProfiles.
    Iprof,
    /// Folded stacks: `comm;outer;…;inner COUNT` per line.
    Folded,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// merge, show and overlap mix families of profiles: each of their options is under a
    /// heading, only help and version stay under "Options".
    #[test]
    fn every_option_of_the_mixed_commands_has_a_heading() {
        for name in ["merge", "show", "overlap"] {
            let cmd = subcommand(name);
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.is_positional() || arg.is_hide_set() || id == "help" || id == "version" {
                    continue;
                }
                assert!(arg.get_help_heading().is_some(), "{name} --{id}");
            }
        }
        // pgo-merge without a command takes merge's options, with the same headings.
        let top = cli();
        assert!(
            top.get_arguments()
                .filter(|a| !a.is_positional() && !a.is_hide_set())
                .all(|a| a.get_help_heading().is_some())
        );
    }

    /// Each synopsis names every argument its command requires, and only options it has.
    #[test]
    fn synopses_name_what_each_command_requires() {
        assert_eq!(
            SYNOPSES.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            SUBCOMMANDS
        );
        for (name, synopsis) in SYNOPSES.iter().filter(|(n, _)| *n != "help") {
            let cmd = subcommand(name);
            let words: Vec<&str> = synopsis
                .split_whitespace()
                .map(|w| w.trim_matches(['[', ']', '.']))
                .collect();
            for arg in cmd.get_arguments().filter(|a| a.is_required_set()) {
                let named = match arg.get_long() {
                    Some(long) => words.contains(&format!("--{long}").as_str()),
                    None => {
                        let id = arg.get_id().as_str().to_uppercase();
                        words.contains(&id.trim_end_matches('S'))
                    }
                };
                let short = arg.get_short().map(|c| format!("-{c}"));
                let named = named || short.is_some_and(|s| words.contains(&s.as_str()));
                assert!(named, "{name}: {synopsis:?} omits {:?}", arg.get_id());
            }
            for option in words.iter().filter(|w| w.starts_with('-')) {
                let known = cmd.get_arguments().any(|a| {
                    a.get_long().is_some_and(|l| *option == format!("--{l}"))
                        || a.get_short().is_some_and(|c| *option == format!("-{c}"))
                });
                assert!(known, "{name}: {option} in its synopsis is no option of it");
            }
        }
    }

    /// The version line names the index version merge writes by default, or the one it
    /// writes for the release PGO_MERGE_TARGET_LLVM names.
    #[test]
    fn version_names_the_index_version_written() {
        let expected = format!("version {} by default", pipeline::DEFAULT_INDEX_VERSION);
        for env in [None, Some(""), Some("x"), Some("11")] {
            let v = version_text(env);
            assert!(v.starts_with(env!("CARGO_PKG_VERSION")), "{v}");
            assert!(
                v.contains(&expected) && v.contains("--target-llvm"),
                "{env:?}: {v}"
            );
        }
        let v = version_text(Some("19"));
        assert!(
            v.contains("version 12 for LLVM 19, as PGO_MERGE_TARGET_LLVM=19"),
            "{v}"
        );
        assert!(v.contains(&expected), "{v}");
    }
}
