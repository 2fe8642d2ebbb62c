//! The driver: the only layer that opens files, picks front-ends, runs passes in order and
//! hands the result to a back-end.
//!
//! Each job takes one request and gives one outcome:
//!
//! | job | request | outcome |
//! |---|---|---|
//! | merge / convert ([`merge()`]) | [`MergeRequest`] | [`MergeOutcome`] |
//! | describe ([`show()`]) | [`ShowRequest`] | the report, written; reader warnings |
//! | compare ([`overlap()`]) | [`OverlapRequest`] | the report, written |
//! | order functions ([`order()`]) | [`OrderRequest`] | the order, written; warnings |
//! | merge sample profiles ([`merge_sample()`]) | [`SampleMergeRequest`] | [`MergeOutcome`] |
//! | describe a sample profile ([`show_sample()`]) | [`SampleShowRequest`] | the report, written; warnings |
//! | compare sample profiles ([`overlap_sample()`]) | [`SampleOverlapRequest`] | the report, written |
//! | symbolise JIT samples ([`symbolize()`]) | [`SymbolizeRequest`] | [`SymbolizeOutcome`] |
//!
//! Outcomes carry what happened as [`Message`]s, in the order it happened: warnings,
//! skipped inputs, what a conversion could not carry. The binary prints them; a library
//! user reads them. Lower-level entry points ([`merge_files`], [`iprof::merge_iprof_files`])
//! serve callers that bring their own list of inputs.
//!
//! # Example: merge an iprof profile and an LLVM profile into an indexed profile
//!
//! ```no_run
//! use pgo_merge::pipeline::{self, MergeRequest, OutputFormat};
//!
//! let request = MergeRequest::new("merged.profdata")
//!     .input("app.iprof")
//!     .input("native.profdata")
//!     .output_format(OutputFormat::Profdata);
//! let outcome = pipeline::merge(&request, &pipeline::NoProgress)?;
//! for m in &outcome.messages {
//!     eprintln!("{m}");
//! }
//! println!("{} records from {} inputs", outcome.records, outcome.inputs_merged);
//! # Ok::<(), pgo_merge::Error>(())
//! ```

#[cfg(feature = "bolt")]
pub mod bolt;
#[cfg(feature = "bolt")]
mod bolt_show;
pub mod inputs;
#[cfg(feature = "iprof")]
pub mod iprof;
mod llvm;
pub mod merge;
pub mod order;
pub mod output;
pub mod overlap;
#[cfg(feature = "sample")]
pub mod sample;
pub mod show;
pub mod supplement;
#[cfg(feature = "jit")]
pub mod symbolize;

use std::fmt;
use std::path::PathBuf;

use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::open::InputFile;
use crate::passes::Weight;

pub use crate::backends::show::{FunctionFilter, ShowOptions};
pub use crate::frontends::open::{CorrelateKind, InputPairing};
pub use crate::passes::merge::{FailureMode, MergeOptions, MergeOutput};
pub use crate::passes::normalise::NormalizeMode;
pub use crate::passes::trim::ColdThreshold;
pub use llvm::{ReadOptions, merge_files, merge_files_correlating, merge_files_with};
pub use merge::{
    MergeOutcome, MergeRequest, OutputFormat, Written, merge, merge_in_memory,
    merge_keeping_memory, plan_inputs,
};
pub use order::{OrderFormat, OrderRequest, order};
pub use overlap::{OverlapRequest, overlap};
#[cfg(feature = "sample")]
pub use sample::{
    ColdContextOptions, ExtBinaryOptions, SampleFormat, SampleLayout, SampleMergeRequest,
    SampleOverlapOptions, SampleOverlapRequest, SampleShowOptions, SampleShowRequest, merge_sample,
    overlap_sample, show_sample,
};
pub use show::{ShowRequest, show};
#[cfg(feature = "jit")]
pub use symbolize::{SymbolizeFormat, SymbolizeOutcome, SymbolizeRequest, symbolize};

/// The index version of a `.profdata` output when neither an index version nor an LLVM
/// release is asked for.
pub const DEFAULT_INDEX_VERSION: u32 = crate::backends::profdata::DEFAULT_VERSION;

/// The oldest LLVM release (major version) that reads index version `version`: the first
/// whose `llvm-profdata merge` writes it (each release reads the versions up to the one it
/// writes). `None` for a version this build does not write.
pub fn oldest_llvm_reading(version: u32) -> Option<u32> {
    crate::codec::indexed_header::RELEASES
        .iter()
        .find(|&&(v, _)| v == version)
        .map(|&(_, llvm)| llvm)
}

/// The index version a merge writes for LLVM release `llvm` (`--target-llvm`): the newest
/// that release reads; `None` before LLVM 12, whose versions this build does not write.
pub fn index_version_for_llvm(llvm: u32) -> Option<u32> {
    crate::backends::profdata::version_for_llvm(llvm)
}

/// The memory of a merged profile that [`merge_keeping_memory`] hands back. Dropping it
/// frees the memory; [`MergedMemory::leak`] leaves it to the system instead, for a process
/// that exits next.
#[derive(Default)]
pub struct MergedMemory(Option<Box<dyn std::any::Any + Send>>);

impl MergedMemory {
    /// Memory that `value` holds.
    pub(crate) fn keep<T: Send + 'static>(value: T) -> Self {
        MergedMemory(Some(Box::new(value)))
    }

    /// Never frees the memory: it stays allocated until the process exits. Only for a
    /// process that exits right after (the command line does): anything else leaks it.
    pub fn leak(self) {
        if let Some(b) = self.0 {
            std::mem::forget(b);
        }
    }
}

impl fmt::Debug for MergedMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "MergedMemory(profile)"
        } else {
            "MergedMemory(none)"
        })
    }
}

/// One input of a merge: a file and its weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// The file.
    pub path: PathBuf,
    /// Its weight.
    pub weight: Weight,
    /// Found by walking a directory rather than named by the user: read only if it is a
    /// regular file, and opened without ever waiting (see [`InputSpec::open`]).
    pub found_in_directory: bool,
}

impl InputSpec {
    /// An input the user named: `path` with weight `weight`.
    pub fn new(path: impl Into<PathBuf>, weight: Weight) -> InputSpec {
        InputSpec {
            path: path.into(),
            weight,
            found_in_directory: false,
        }
    }

    /// Opens the input: a file found in a directory only if it is a regular file, without
    /// waiting ([`InputFile::open_regular`]), anything named by the user as it is (a FIFO is
    /// read as a pipe, [`InputFile::open`]); gzip-compressed inputs inflated
    /// ([`InputFile::inflated`]).
    pub fn open(&self) -> Result<InputFile> {
        let file = if self.found_in_directory {
            InputFile::open_regular(&self.path)
        } else {
            InputFile::open(&self.path)
        };
        file?.inflated()
    }
}

/// Something a job reports besides its result, in the order it happened.
#[derive(Debug)]
#[non_exhaustive]
pub enum Message {
    /// A warning.
    Warning(Warning),
    /// An input that was skipped (`--failure-mode all|warn`), and why.
    Skipped(PathBuf, Error),
    /// A line of a conversion report (`what` is `"iprof to LLVM"` or `"LLVM to iprof"`):
    /// something a format could not carry.
    Conversion {
        /// Which conversion.
        what: &'static str,
        /// The line.
        line: String,
    },
    /// The inputs mix GraalVM and LLVM profiles: one side was converted to the other's
    /// format and merged with it (`into_llvm`: the GraalVM profiles' Java methods became LLVM
    /// records of an LLVM output; otherwise the LLVM records became entries of an iprof output).
    Mixed {
        /// GraalVM `.iprof` inputs.
        iprof: usize,
        /// LLVM inputs.
        llvm: usize,
        /// The output is an LLVM profile.
        into_llvm: bool,
    },
    /// `--function` / `--no-function` removed functions (always printed, as llvm-profdata
    /// prints it).
    Filtered {
        /// Functions removed.
        removed: usize,
        /// Functions before filtering.
        total: usize,
    },
}

impl Message {
    /// True for messages that are printed even in quiet mode.
    pub fn always_shown(&self) -> bool {
        matches!(self, Message::Filtered { .. })
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Warning(w) => write!(f, "warning: {w}"),
            Message::Skipped(_, e) => write!(f, "warning: skipped: {e}"),
            Message::Conversion { what, line } => write!(f, "{what}: {line}"),
            Message::Mixed {
                iprof,
                llvm,
                into_llvm,
            } => {
                let n = |k: usize, what: &str| {
                    format!("{k} {what} profile{}", if k == 1 { "" } else { "s" })
                };
                if *into_llvm {
                    write!(
                        f,
                        "note: mixing {} (Java methods, converted) with {} into one LLVM profile",
                        n(*iprof, "GraalVM .iprof"),
                        n(*llvm, "LLVM")
                    )
                } else {
                    write!(
                        f,
                        "note: mixing {} (native functions, converted) with {} into one \
                         GraalVM .iprof profile",
                        n(*llvm, "LLVM"),
                        n(*iprof, "GraalVM .iprof")
                    )
                }
            }
            Message::Filtered { removed, total } => write!(
                f,
                "{removed} of {total} functions in the original profile are filtered."
            ),
        }
    }
}

/// Progress of a job over its inputs.
pub trait Progress: Sync {
    /// The job has `total` inputs.
    fn start(&self, total: usize);
    /// `done` inputs are finished.
    fn set(&self, done: usize);
    /// The inputs are all read.
    fn finish(&self);
}

/// No progress reporting.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: usize) {}
    fn set(&self, _: usize) {}
    fn finish(&self) {}
}

/// An error about the request itself (a usage error: exit code 2 for the binary).
pub(crate) fn request_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Request(message.into()))
}

/// What a build without a family's feature does with a request that needs it: refuses it,
/// naming the feature. (These run in builds without those features: `.ci/run` runs the
/// library's unit tests with no default features.)
#[cfg(all(test, not(all(feature = "json", feature = "iprof", feature = "regex"))))]
mod feature_tests {
    use super::*;

    /// The feature an error names, if it is [`ErrorKind::FeatureDisabled`].
    fn disabled_feature(r: Result<impl std::fmt::Debug>) -> Option<&'static str> {
        match r.expect_err("refused").kind() {
            ErrorKind::FeatureDisabled { feature, .. } => Some(feature),
            _ => None,
        }
    }

    #[cfg(not(feature = "json"))]
    #[test]
    fn json_reports_need_the_json_feature() {
        let raw = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/profraw/clang22/ir-basic-m32-run1.profraw");
        let show_request = ShowRequest {
            files: vec![raw.clone()],
            json: true,
            ..ShowRequest::default()
        };
        assert_eq!(disabled_feature(show(&show_request)), Some("json"));
        let overlap_request = OverlapRequest {
            base: raw.clone(),
            test: raw,
            json: true,
            ..OverlapRequest::default()
        };
        assert_eq!(disabled_feature(overlap(&overlap_request)), Some("json"));
    }

    #[cfg(not(feature = "iprof"))]
    #[test]
    fn graalvm_merges_need_the_iprof_feature() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.iprof");
        std::fs::write(&input, b"{\"types\": []}\n").unwrap();
        let mut request = MergeRequest::new(dir.path().join("out.profdata"));
        request.inputs = vec![input];
        assert_eq!(
            disabled_feature(merge(&request, &NoProgress)),
            Some("iprof")
        );
        // An .iprof output is refused the same way, whatever the inputs.
        let mut request = MergeRequest::new(dir.path().join("out.iprof"));
        request.inputs = vec![dir.path().join("a.iprof")];
        assert_eq!(
            disabled_feature(merge(&request, &NoProgress)),
            Some("iprof")
        );
    }

    #[cfg(not(feature = "regex"))]
    #[test]
    fn name_patterns_need_the_regex_feature() {
        let dir = tempfile::tempdir().unwrap();
        let raw = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/profraw/clang22/ir-basic-m32-run1.profraw");
        let mut request = MergeRequest::new(dir.path().join("out.profdata"));
        request.inputs = vec![raw];
        request.function = Some("main".into());
        assert_eq!(
            disabled_feature(merge(&request, &NoProgress)),
            Some("regex")
        );
    }
}
