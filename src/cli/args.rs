//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Merge LLVM raw profiles into one indexed (or text) profile.
///
/// Exit codes: 0 success; 1 a failure (bad or conflicting input, I/O error); 2 bad usage.
#[derive(Debug, Parser)]
#[command(name = "pgo-merge", version, about)]
pub struct MergeArgs {
    /// Input profiles, or directories searched recursively for .profraw and .profdata files.
    /// The format of each input is detected from its content.
    pub inputs: Vec<PathBuf>,

    /// Output file. Written to a temporary file first and renamed, so a failed run leaves
    /// no partial output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,

    /// A weighted input, `W,FILE`: every count of FILE is multiplied by W (a positive
    /// number; fractions are rounded half up). Repeatable.
    #[arg(short = 'w', long = "weighted-input", value_name = "W,FILE")]
    pub weighted_inputs: Vec<String>,

    /// A file listing inputs, one per line as `FILE` or `W,FILE`; `#` starts a comment.
    #[arg(short = 'f', long = "input-files", value_name = "LIST")]
    pub input_files: Vec<PathBuf>,

    /// Worker threads (0 = one per core). The output does not depend on it.
    #[arg(
        short = 'j',
        long = "threads",
        alias = "num-threads",
        value_name = "N",
        default_value_t = 0
    )]
    pub threads: usize,

    /// Output format; by default chosen from the output's extension (.proftext / .txt → text).
    #[arg(long = "output-format", value_enum)]
    pub output_format: Option<OutputFormatArg>,

    /// Write the text format (same as --output-format proftext).
    #[arg(long = "text", conflicts_with = "output_format")]
    pub text: bool,

    /// Index version of the .profdata output (7 to 13). Default 13.
    #[arg(
        long = "format-version",
        value_name = "N",
        conflicts_with = "target_llvm"
    )]
    pub format_version: Option<u32>,

    /// Write the newest index version that LLVM release M (12 and later) reads, e.g. 14 → 7,
    /// 19 → 12, 22 → 13.
    #[arg(long = "target-llvm", value_name = "M")]
    pub target_llvm: Option<u32>,

    /// Drop functions whose counters are all zero.
    #[arg(long)]
    pub sparse: bool,

    /// What to do with inputs that cannot be used: `any` fails on the first, `all` fails
    /// only if none can be used, `warn` never fails.
    #[arg(long = "failure-mode", value_enum, default_value_t = FailureModeArg::Any)]
    pub failure_mode: FailureModeArg,

    /// Also multiply by the input's weight the value counts an input adds to a value site
    /// for the first time (llvm-profdata leaves them unweighted).
    #[arg(long = "weight-all-values")]
    pub weight_all_values: bool,

    /// Keep vtable names in the output (as llvm-profdata --keep-vtable-symbols).
    #[arg(long = "keep-vtable-symbols")]
    pub keep_vtable_symbols: bool,

    /// Number of temporal traces kept.
    #[arg(
        long = "temporal-profile-trace-reservoir-size",
        value_name = "N",
        default_value_t = 100
    )]
    pub temporal_reservoir_size: u64,

    /// Longest temporal trace kept, in functions.
    #[arg(
        long = "temporal-profile-max-trace-length",
        value_name = "N",
        default_value_t = 10_000
    )]
    pub temporal_max_trace_length: u64,

    /// Never show a progress bar.
    #[arg(long = "no-progress")]
    pub no_progress: bool,

    /// Print only errors.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormatArg {
    /// LLVM indexed profile.
    Profdata,
    /// LLVM text profile.
    Proftext,
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
