//! The merge job: LLVM merges, iprof merges, and conversions between the two, from one
//! [`MergeRequest`].
//!
//! Routing: a run is an iprof run when the output is `.iprof` (by name or
//! [`OutputFormat::Iprof`]) or every input is an iprof profile; a run whose inputs include
//! iprof profiles and whose output is an LLVM profile merges the iprof inputs, converts them
//! and merges the result with the LLVM inputs. Inputs named like LLVM profiles are not
//! opened to route a run (a merge of thousands of `.profraw` files opens each once); other
//! files are recognised by their first bytes.

#[cfg(feature = "iprof")]
use std::io::Write;
use std::path::{Path, PathBuf};

use super::inputs::{
    Collect, Collected, Collector, Family, Select, Sources, has_iprof_extension, has_llvm_extension,
};
#[cfg(feature = "iprof")]
use super::iprof::{IprofMergeOptions, IprofMergeOutput, merge_iprof_files};
#[cfg(feature = "iprof")]
use super::merge_files;
use super::output::{self, Destination};
use super::{
    InputSpec, MergedMemory, Message, Progress, ReadOptions, merge_files_correlating, request_error,
};
#[cfg(feature = "iprof")]
use crate::backends::iprof as iprof_writer;
use crate::backends::profdata::{self, ProfdataOptions};
use crate::backends::proftext::{self, ProftextOptions};
use crate::codec::indexed_header::RELEASES;
use crate::codec::magic::{last_release_writing_raw, raw_version};
use crate::error::{Error, ErrorKind, Result, Warning};
#[cfg(feature = "iprof")]
use crate::frontends::open::IprofReadOptions;
use crate::frontends::open::{CorrelateKind, Correlator, FormatKind, InputPairing, LlvmReader};
use crate::ir::Profile;
#[cfg(feature = "iprof")]
use crate::ir::iprof::IprofProfile;
#[cfg(feature = "iprof")]
use crate::passes::convert::{ConvertReport, ToLlvmOptions, iprof_to_llvm, llvm_to_iprof};
#[cfg(feature = "regex")]
use crate::passes::filter;
use crate::passes::merge::{FailureMode, MergeOptions, MergeOutput, merge_profiles};
use crate::passes::normalise::NormalizeMode;
use crate::passes::remap::Remapping;
#[cfg(feature = "iprof")]
use crate::passes::trim::TrimOptions;
use crate::passes::trim::{ColdThreshold, TrimStats};
use crate::passes::{Weight, llvm_normalise};

/// The output format of a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// LLVM indexed profile (`.profdata`).
    Profdata,
    /// LLVM text profile (`.proftext`).
    Proftext,
    /// GraalVM Native Image profile (`.iprof`).
    Iprof,
}

/// What to merge, how, and where to write it. `Default` is a plain merge with
/// llvm-profdata's defaults and no inputs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct MergeRequest {
    /// Input files or directories (weight 1). Directories are searched recursively: for
    /// `*.profraw` and `*.profdata` (with [`MergeRequest::llvm_profdata`], every regular
    /// file), and for `*.iprof`/`*.iprof.gz` when GraalVM profiles are involved.
    pub inputs: Vec<PathBuf>,
    /// Weighted inputs.
    pub weighted_inputs: Vec<(Weight, PathBuf)>,
    /// Files listing inputs, one `FILE` or `W,FILE` per line (`#` comments).
    pub input_lists: Vec<PathBuf>,
    /// The output file (`-` is standard output). `None` is standard output in
    /// llvm-profdata mode and an error otherwise.
    pub output: Option<PathBuf>,
    /// The output format; `None` chooses by the output's name (`.proftext`/`.txt` text,
    /// `.iprof` iprof, anything else indexed; always indexed in llvm-profdata mode).
    pub output_format: Option<OutputFormat>,
    /// Index version of an indexed output (7–14).
    pub format_version: Option<u32>,
    /// Write the newest index version this LLVM release reads.
    pub target_llvm: Option<u32>,
    /// Write index version 11 (llvm-profdata's `--write-prev-version`).
    pub write_prev_version: bool,
    /// Refuse to write what the index version or LLVM release written for cannot hold
    /// (vtable value sites, MC/DC bitmaps, temporal traces, binary IDs, profile flags)
    /// instead of leaving it out with a warning.
    pub strict_target: bool,
    /// Drop functions (iprof: entries) whose counts are all zero.
    pub sparse: bool,
    /// What to do with unusable inputs.
    pub failure_mode: FailureMode,
    /// Worker threads (0 = one per core); the output does not depend on it.
    pub threads: usize,
    /// Weight value counts that an input adds to a site for the first time.
    pub weight_all_values: bool,
    /// Keep vtable names (llvm-profdata's `--keep-vtable-symbols`).
    pub keep_vtable_symbols: bool,
    /// Temporal traces kept.
    pub temporal_reservoir_size: u64,
    /// Longest temporal trace kept.
    pub temporal_max_trace_length: u64,
    /// Scale each input before merging so that the inputs contribute equally (LLVM: see
    /// [`crate::passes::llvm_normalise`]; iprof: per section, see
    /// [`crate::passes::normalise`]).
    pub normalize: NormalizeMode,
    /// iprof: fold contexts deeper than this many frames (sampling stacks excepted).
    pub max_context_depth: Option<u32>,
    /// iprof: shorten sampling stacks deeper than this many frames.
    pub max_sampling_depth: Option<u32>,
    /// iprof: fold contexts colder than this into their method's context-free entry.
    pub cold_threshold: Option<ColdThreshold>,
    /// iprof: keep types and methods nothing references.
    pub keep_all_symbols: bool,
    /// iprof to LLVM: one record per calling context instead of one per method.
    pub keep_contexts: bool,
    /// iprof: drop bad entries with a warning instead of failing.
    pub lenient: bool,
    /// Keep only functions whose names match this regular expression.
    pub function: Option<String>,
    /// Drop functions whose names match this regular expression.
    pub no_function: Option<String>,
    /// A symbol remapping file (`old new` per line).
    pub remapping_file: Option<PathBuf>,
    /// Text output exactly as llvm-profdata prints it.
    pub llvm_compatible: bool,
    /// llvm-profdata's conventions: standard output by default, every file of a directory,
    /// always an indexed output unless text is asked for.
    pub llvm_profdata: bool,
    /// Binaries that lightweight raw profiles (`-mllvm -profile-correlate=binary`) are
    /// completed from (`--binary-file`), each profile with the one whose build ID it
    /// carries. Empty: such profiles' counters are left out with a warning.
    pub binary_files: Vec<PathBuf>,
    /// Binaries (or their separate debug files) built with `-g -mllvm
    /// -profile-correlate=debug-info` (or clang 14–17's `-debug-info-correlate`), whose
    /// DWARF completes lightweight raw profiles as [`MergeRequest::binary_files`] do
    /// (`--debug-info`).
    pub debug_info_files: Vec<PathBuf>,
    /// Binaries named for the inputs a pattern matches (`--binary-for GLOB BIN`,
    /// `--debug-info-for GLOB BIN`): such an input is completed from that binary only, not
    /// routed by build ID; for binaries without a build ID when several are named.
    pub input_pairings: Vec<InputPairing>,
    /// Directories holding `.build-id` trees where the binary of a lightweight profile that
    /// no named binary matches is looked up by build ID (`--debug-file-directory`).
    pub debug_file_directories: Vec<PathBuf>,
    /// How binaries found in [`MergeRequest::debug_file_directories`] are read
    /// (`--correlate`); required with them, as llvm-profdata requires it.
    pub correlate: Option<CorrelateKind>,
    /// Warnings shown about counters the debug info describes incompletely, 0 for all
    /// (`--max-debug-info-correlation-warnings`, 5 by default as in llvm-profdata).
    pub max_correlation_warnings: usize,
    /// Supplement the merged profile with a sample profile before writing it
    /// (`--supplement-instr-with-sample`).
    pub supplement: Option<super::supplement::Supplement>,
}

/// Builders for the usual requests (the type is `#[non_exhaustive]`: start from
/// [`MergeRequest::new`] or `default()` and set fields or chain these).
impl MergeRequest {
    /// A merge writing `output` (`-` for standard output), with no input yet and every
    /// option at its default.
    pub fn new(output: impl Into<PathBuf>) -> Self {
        MergeRequest {
            output: Some(output.into()),
            ..MergeRequest::default()
        }
    }

    /// Adds an input of weight 1.
    #[must_use]
    pub fn input(mut self, path: impl Into<PathBuf>) -> Self {
        self.inputs.push(path.into());
        self
    }

    /// Adds an input whose counts are multiplied by `weight`.
    #[must_use]
    pub fn weighted_input(mut self, weight: Weight, path: impl Into<PathBuf>) -> Self {
        self.weighted_inputs.push((weight, path.into()));
        self
    }

    /// Sets the output format (else chosen from the output's name).
    #[must_use]
    pub fn output_format(mut self, format: OutputFormat) -> Self {
        self.output_format = Some(format);
        self
    }
}

impl Default for MergeRequest {
    fn default() -> Self {
        let m = MergeOptions::default();
        MergeRequest {
            inputs: Vec::new(),
            weighted_inputs: Vec::new(),
            input_lists: Vec::new(),
            output: None,
            output_format: None,
            format_version: None,
            target_llvm: None,
            write_prev_version: false,
            strict_target: false,
            sparse: false,
            failure_mode: FailureMode::Any,
            threads: 0,
            weight_all_values: false,
            keep_vtable_symbols: false,
            temporal_reservoir_size: m.temporal_reservoir_size,
            temporal_max_trace_length: m.temporal_max_trace_length,
            normalize: NormalizeMode::None,
            max_context_depth: None,
            max_sampling_depth: None,
            cold_threshold: None,
            keep_all_symbols: false,
            keep_contexts: false,
            lenient: false,
            function: None,
            no_function: None,
            remapping_file: None,
            llvm_compatible: false,
            llvm_profdata: false,
            binary_files: Vec::new(),
            input_pairings: Vec::new(),
            debug_info_files: Vec::new(),
            debug_file_directories: Vec::new(),
            correlate: None,
            max_correlation_warnings: 5,
            supplement: None,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Written {
    /// An indexed profile of this index version.
    Profdata {
        /// Index version.
        version: u32,
    },
    /// A text profile.
    Proftext,
    /// A sample profile (AutoFDO, CSSPGO) in this encoding.
    #[cfg(feature = "sample")]
    Sample {
        /// The encoding.
        format: crate::ir::sample::SampleFormat,
    },
    /// An iprof profile.
    Iprof {
        /// Its format version (`1.0.0`, `1.1.0`).
        version: String,
        /// Profile entries written.
        entries: usize,
        /// Methods written.
        methods: usize,
        /// Types written.
        types: usize,
        /// What trimming did, when trimming was asked for.
        trim: Option<TrimStats>,
        /// The size reduction line (`input → output bytes, entries, methods`).
        reduction: String,
    },
}

/// The result of a merge job.
#[derive(Debug)]
#[non_exhaustive]
pub struct MergeOutcome {
    /// Where the output went (`-` for standard output).
    pub output: PathBuf,
    /// What was written.
    pub written: Written,
    /// Records of an LLVM output.
    pub records: usize,
    /// Inputs merged.
    pub inputs_merged: usize,
    /// Inputs there were (merged or skipped).
    pub inputs_total: usize,
    /// Warnings, skipped inputs and conversion notes, in order.
    pub messages: Vec<Message>,
    /// The merged profile, kept for [`merge_keeping_memory`].
    pub(crate) memory: MergedMemory,
}

/// The sources of a request's inputs.
fn sources(r: &MergeRequest) -> Sources {
    Sources {
        inputs: r.inputs.clone(),
        weighted: r.weighted_inputs.clone(),
        lists: r.input_lists.clone(),
    }
}

/// The first option of `r` that applies to GraalVM profiles only, if any is set.
fn iprof_only_option(r: &MergeRequest) -> Option<&'static str> {
    if r.max_context_depth.is_some() {
        Some("--max-context-depth")
    } else if r.max_sampling_depth.is_some() {
        Some("--max-sampling-depth")
    } else if r.cold_threshold.is_some() {
        Some("--cold-threshold")
    } else if r.keep_all_symbols {
        Some("--keep-all-symbols")
    } else if r.lenient {
        Some("--lenient")
    } else if r.keep_contexts {
        Some("--keep-contexts")
    } else {
        None
    }
}

/// True if the request asks for an LLVM output (by format, or an output named `.profdata`,
/// `.proftext` or `.txt`).
fn explicit_llvm_output(r: &MergeRequest) -> bool {
    matches!(
        r.output_format,
        Some(OutputFormat::Profdata | OutputFormat::Proftext)
    ) || r.output.as_deref().is_some_and(|o| {
        matches!(
            o.extension().and_then(|e| e.to_str()),
            Some("profdata" | "proftext" | "txt")
        )
    })
}

/// How the LLVM merge of `r` selects its inputs, `output` being its output.
fn llvm_selection<'a>(r: &MergeRequest, output: &'a Path, require_found: bool) -> Collect<'a> {
    Collect {
        select: if r.llvm_profdata {
            Select::EveryFile
        } else {
            Select::Llvm
        },
        output: Some(output),
        require_found,
        regular_lists_only: false,
        missing_to_merge: missing_to_merge(r.llvm_profdata, r.failure_mode),
        family: native_family(r, Family::Llvm),
    }
}

/// The family a native run keeps of a directory holding both (see [`Collect::family`]);
/// none for llvm-profdata's rule (every file of a directory is an input).
fn native_family(r: &MergeRequest, family: Family) -> Option<Family> {
    (!r.llvm_profdata).then_some(family)
}

/// Whether a named input that does not exist goes to the merge, to be skipped with a warning
/// under `--failure-mode all|warn` as any other unusable input (natively), rather than fail
/// the run at once (under `any`, and always in the drop-in, as llvm-profdata fails).
pub(crate) fn missing_to_merge(llvm_profdata: bool, mode: FailureMode) -> bool {
    !llvm_profdata && mode != FailureMode::Any
}

/// The inputs a merge of `r` would read, in order, as `--dump-input-file-list` prints them:
/// those the merge routes, GraalVM profiles converted for an LLVM output after the LLVM
/// inputs (the order their counts are added in).
pub fn plan_inputs(r: &MergeRequest) -> Result<Vec<InputSpec>> {
    let mut collector = Collector::new();
    let output = r.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let llvm_inputs = |collector: &mut Collector, require_found| {
        let how = llvm_selection(r, &output, require_found);
        collector.collect(&sources(r), &how).map(|c| c.inputs)
    };
    match plan_route(r, &mut collector)? {
        Route::Llvm => llvm_inputs(&mut collector, !r.llvm_profdata),
        Route::ToIprof { inputs, .. } => Ok(inputs),
        Route::IprofToLlvm { inputs, kinds, .. } => {
            let is_iprof = |k: &Option<FormatKind>| *k == Some(FormatKind::Iprof);
            let iprof: Vec<InputSpec> = (inputs.iter().zip(&kinds))
                .filter(|(_, k)| is_iprof(k))
                .map(|(i, _)| i.clone())
                .collect();
            let mut all = llvm_inputs(&mut collector, false)?;
            all.retain(|i| !iprof.iter().any(|g| g.path == i.path));
            all.extend(iprof);
            Ok(all)
        }
    }
}

/// Runs a merge: routes it, reads and merges the inputs, converts if needed and writes the
/// output. Errors about the request itself are [`ErrorKind::Request`].
///
/// An empty input fails the merge ([`ErrorKind::Empty`], with a hint saying how to skip such
/// inputs) unless [`MergeRequest::failure_mode`] skips bad inputs; with
/// [`MergeRequest::llvm_profdata`], empty files are skipped with a warning each, as
/// llvm-profdata skips them (silently), and a merge of nothing but empty files writes an
/// empty profile.
pub fn merge(r: &MergeRequest, progress: &dyn Progress) -> Result<MergeOutcome> {
    let (outcome, memory) = merge_keeping_memory(r, progress)?;
    drop(memory);
    Ok(outcome)
}

/// [`merge`], handing back the memory of the merged profile instead of freeing it: a
/// process that exits next can leave it to the system ([`MergedMemory::leak`]), which saves
/// freeing it piece by piece (with a million functions, a million names and records: a few
/// per cent of the run). Dropping it frees it as [`merge`] does.
pub fn merge_keeping_memory(
    r: &MergeRequest,
    progress: &dyn Progress,
) -> Result<(MergeOutcome, MergedMemory)> {
    let mut outcome = merge_routed(r, progress).map_err(|e| {
        if matches!(e.kind(), ErrorKind::Empty) && r.failure_mode == FailureMode::Any {
            e.with_hint(EMPTY_HINT)
        } else {
            e
        }
    })?;
    let memory = std::mem::take(&mut outcome.memory);
    Ok((outcome, memory))
}

/// What to do about an empty input: a process killed before it wrote its profile leaves one.
const EMPTY_HINT: &str = "--failure-mode=warn skips empty inputs (a process that ends before \
                          writing its profile leaves one)";

fn merge_routed(r: &MergeRequest, progress: &dyn Progress) -> Result<MergeOutcome> {
    // Files a directory walk skipped (FIFOs, sockets, devices, dangling links) reach the
    // messages through each collection's warnings.
    route(r, &mut Collector::new(), progress)
}

/// Picks the kind of merge (LLVM, iprof, or a conversion between them) and runs it.
fn route(
    r: &MergeRequest,
    collector: &mut Collector,
    progress: &dyn Progress,
) -> Result<MergeOutcome> {
    match plan_route(r, collector)? {
        Route::Llvm => merge_llvm(r, collector, None, progress),
        // Routing sees GraalVM inputs and outputs whatever the build: without the feature
        // that reads and writes them, the run is refused by name.
        #[cfg(not(feature = "iprof"))]
        Route::ToIprof {
            kinds, messages, ..
        }
        | Route::IprofToLlvm {
            kinds, messages, ..
        } => {
            drop((kinds, messages));
            Err(Error::new(ErrorKind::FeatureDisabled {
                what: "GraalVM .iprof",
                feature: "iprof",
            }))
        }
        #[cfg(feature = "iprof")]
        Route::ToIprof {
            inputs,
            kinds,
            messages,
        } => merge_to_iprof(r, inputs, &kinds, messages, progress),
        #[cfg(feature = "iprof")]
        Route::IprofToLlvm {
            inputs,
            kinds,
            mut messages,
        } => {
            let converted = iprof_for_llvm(r, &inputs, &kinds, &mut messages)?;
            merge_llvm(r, collector, Some((converted, messages)), progress)
        }
    }
}

/// Where a merge goes: the LLVM merge (whose selection is made there), the iprof merge, or
/// the LLVM merge with GraalVM profiles converted first. `inputs` are the GraalVM and LLVM
/// selection, `kinds` the format of each (`None`: not sniffed, taken as LLVM), `messages`
/// what the selection reported.
enum Route {
    Llvm,
    ToIprof {
        inputs: Vec<InputSpec>,
        kinds: Vec<Option<FormatKind>>,
        messages: Vec<Message>,
    },
    IprofToLlvm {
        inputs: Vec<InputSpec>,
        kinds: Vec<Option<FormatKind>>,
        messages: Vec<Message>,
    },
}

/// The format of each input, by content (`by_name`: an LLVM name is taken at its word).
fn kinds_of(inputs: &[InputSpec], by_name: bool) -> Vec<Option<FormatKind>> {
    inputs
        .iter()
        .map(|i| {
            if by_name && has_llvm_extension(&i.path) {
                None
            } else if has_iprof_extension(&i.path) && std::fs::metadata(&i.path).is_err() {
                // A missing GraalVM input (`--failure-mode all|warn`) is skipped by the
                // merge it would have been part of.
                Some(FormatKind::Iprof)
            } else {
                FormatKind::sniff_path(&i.path)
            }
        })
        .collect()
}

/// Decides where the merge of `r` goes (see [`Route`]).
fn plan_route(r: &MergeRequest, collector: &mut Collector) -> Result<Route> {
    if r.llvm_profdata {
        // llvm-profdata reads every input as an LLVM profile, and so does its drop-in.
        return Ok(Route::Llvm);
    }
    let out_iprof = r.output_format == Some(OutputFormat::Iprof)
        || r.output.as_deref().is_some_and(has_iprof_extension);
    let out_llvm = explicit_llvm_output(r);
    let src = sources(r);
    let missing = missing_to_merge(r.llvm_profdata, r.failure_mode);
    // A directory holding both families adds those of the output's family, LLVM unless
    // the output is an .iprof.
    let family = if out_iprof {
        Family::Iprof
    } else {
        Family::Llvm
    };
    let how = |select| Collect {
        select,
        output: r.output.as_deref(),
        require_found: false,
        regular_lists_only: true,
        missing_to_merge: missing,
        family: native_family(r, family),
    };
    // Only to route the run: what this selection skips is reported by the one that follows.
    let first = collector
        .collect(&src, &how(Select::Iprof))
        .unwrap_or_default()
        .inputs;
    let any_iprof = kinds_of(&first, true).contains(&Some(FormatKind::Iprof));
    if !any_iprof && !out_iprof {
        if let Some(flag) = iprof_only_option(r) {
            return Err(request_error(format!(
                "{flag} applies to GraalVM .iprof profiles only, and no input is one"
            )));
        }
        return Ok(Route::Llvm);
    }
    if out_iprof && out_llvm {
        return Err(request_error(
            "the output is both .iprof and an LLVM profile (--text, --output-format or the \
             output's name); choose one",
        ));
    }
    let Collected {
        inputs,
        warnings: messages,
    } = collector.collect(&src, &how(Select::IprofAndLlvm))?;
    let kinds = kinds_of(&inputs, false);
    let any_llvm = kinds.iter().any(|k| *k != Some(FormatKind::Iprof));
    if out_iprof || (!out_llvm && !any_llvm) {
        return Ok(Route::ToIprof {
            inputs,
            kinds,
            messages,
        });
    }
    if !out_llvm {
        return Err(request_error(
            "the inputs mix GraalVM .iprof and LLVM profiles: name the output format \
             (-o x.iprof, -o x.profdata, -o x.proftext or --output-format)",
        ));
    }
    Ok(Route::IprofToLlvm {
        inputs,
        kinds,
        messages,
    })
}

/// GraalVM inputs merged and converted to an LLVM profile. (Without the `iprof` feature
/// none is made, and [`merge_llvm`] is never handed one.)
struct Converted {
    profile: Profile<'static>,
    paths: std::collections::HashSet<PathBuf>,
    inputs_merged: usize,
}

/// The iprof merge options of a request.
#[cfg(feature = "iprof")]
fn iprof_options(r: &MergeRequest) -> IprofMergeOptions {
    IprofMergeOptions {
        threads: r.threads,
        read: IprofReadOptions {
            lenient: r.lenient,
            referenced_symbols_only: false,
        },
        failure_mode: r.failure_mode,
        normalize: r.normalize,
        trim: TrimOptions {
            max_depth: r.max_context_depth,
            max_sampling_depth: r.max_sampling_depth,
            cold_threshold: r.cold_threshold,
            sparse: r.sparse,
        },
        keep_all_symbols: r.keep_all_symbols,
    }
}

fn merge_messages(out: &mut Vec<Message>, warnings: Vec<Warning>, skipped: Vec<(PathBuf, Error)>) {
    out.extend(warnings.into_iter().map(Message::Warning));
    out.extend(skipped.into_iter().map(|(p, e)| Message::Skipped(p, e)));
}

#[cfg(feature = "iprof")]
fn report_messages(out: &mut Vec<Message>, what: &'static str, r: ConvertReport) {
    out.extend(
        r.lines
            .into_iter()
            .map(|line| Message::Conversion { what, line }),
    );
}

/// Merges the GraalVM inputs and converts them for an LLVM output.
#[cfg(feature = "iprof")]
fn iprof_for_llvm(
    r: &MergeRequest,
    inputs: &[InputSpec],
    kinds: &[Option<FormatKind>],
    messages: &mut Vec<Message>,
) -> Result<Converted> {
    let iprof: Vec<InputSpec> = inputs
        .iter()
        .zip(kinds)
        .filter(|(_, k)| **k == Some(FormatKind::Iprof))
        .map(|(i, _)| i.clone())
        .collect();
    let merged = merge_iprof_files(&iprof, &iprof_options(r), None)?;
    merge_messages(messages, merged.warnings, merged.skipped);
    let (profile, report) = iprof_to_llvm(
        &merged.profile,
        &ToLlvmOptions {
            keep_contexts: r.keep_contexts,
        },
    );
    report_messages(messages, "iprof to LLVM", report);
    Ok(Converted {
        profile,
        paths: iprof.into_iter().map(|i| i.path).collect(),
        inputs_merged: merged.inputs_merged,
    })
}

/// A warning when the indexed output was given no LLVM release (no `--target-llvm`,
/// `--format-version` or `PGO_MERGE_TARGET_LLVM`) and every input is a raw profile that
/// only LLVM releases older than the first to read the default index version write: the
/// compiler that made the profiles could not read the merge. Reads the first 16 bytes of
/// inputs until one is not such a raw profile (one, for profiles of a current compiler).
fn older_producers(r: &MergeRequest, plan: &LlvmPlan, inputs: &[InputSpec]) -> Option<Warning> {
    let defaulted = r.target_llvm.is_none() && r.format_version.is_none();
    if r.llvm_profdata
        || !defaulted
        || r.write_prev_version
        || plan.format != OutputFormat::Profdata
    {
        return None;
    }
    let version = plan.profdata.version;
    let (_, first_reader) = *RELEASES.iter().find(|(v, _)| *v == version)?;
    let mut newest: Option<(u32, u32)> = None;
    for input in inputs {
        let raw = raw_head_version(&input.path)?;
        let last = last_release_writing_raw(raw)?;
        if last >= first_reader {
            return None;
        }
        newest = newest.max(Some((last, raw)));
    }
    let (last, raw) = newest?;
    Some(Warning::new(format!(
        "every input is a raw profile of LLVM {last} or older (raw version {raw}), but the \
         output is index version {version}, which only LLVM {first_reader} and later read: \
         pass --target-llvm N (or set PGO_MERGE_TARGET_LLVM=N) with the major version of the \
         compiler that will read it"
    )))
}

/// The raw version of the regular file `path`, if it is a raw profile.
fn raw_head_version(path: &Path) -> Option<u32> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 16];
    std::io::Read::read_exact(&mut std::fs::File::open(path).ok()?, &mut head).ok()?;
    raw_version(&head)
}

/// The writers' options and the LLVM merge options of a request.
struct LlvmPlan {
    output: PathBuf,
    format: OutputFormat,
    merge: MergeOptions,
    profdata: ProfdataOptions,
    proftext: ProftextOptions,
    #[cfg(feature = "regex")]
    keep: Option<regex::Regex>,
    #[cfg(feature = "regex")]
    drop: Option<regex::Regex>,
}

fn llvm_plan(r: &MergeRequest) -> Result<LlvmPlan> {
    let output = match &r.output {
        Some(o) => o.clone(),
        None if r.llvm_profdata => PathBuf::from("-"),
        None => {
            return Err(request_error(
                "the following required argument was not provided: --output <FILE>",
            ));
        }
    };
    let remapping = match &r.remapping_file {
        Some(f) => {
            let text = std::fs::read(f).map_err(|e| Error::new(ErrorKind::Io(e)).with_path(f))?;
            Some(std::sync::Arc::new(
                Remapping::parse_bytes(&text).map_err(|e| e.with_path(f))?,
            ))
        }
        None => None,
    };
    let format = match r.output_format {
        // `route` sends every run with an .iprof output to the iprof merge, which converts
        // LLVM inputs; reaching this arm would be a routing bug, not a user error.
        Some(OutputFormat::Iprof) => {
            return Err(Error::new(ErrorKind::Internal(
                "internal error: an .iprof output was routed to the LLVM merge".into(),
            )));
        }
        Some(f) => f,
        // llvm-profdata writes an indexed profile whatever the output is called; natively
        // a `.proftext`/`.txt` output name asks for text.
        None if r.llvm_profdata => OutputFormat::Profdata,
        None => match output.extension().and_then(|e| e.to_str()) {
            Some("proftext" | "txt") => OutputFormat::Proftext,
            _ => OutputFormat::Profdata,
        },
    };
    let version = match (r.format_version, r.target_llvm) {
        _ if r.write_prev_version => 11,
        (Some(v), _) => {
            if !(profdata::OLDEST_WRITTEN..=profdata::NEWEST_WRITTEN).contains(&v) {
                return Err(request_error(format!(
                    "--format-version {v}: this build writes index versions {} to {}",
                    profdata::OLDEST_WRITTEN,
                    profdata::NEWEST_WRITTEN
                )));
            }
            v
        }
        (None, Some(m)) => profdata::version_for_llvm(m).ok_or_else(|| {
            request_error(format!(
                "--target-llvm {m}: LLVM {m} reads index versions older than 7, which this \
                 build does not write (LLVM 12 or later is needed)"
            ))
        })?,
        (None, None) => profdata::DEFAULT_VERSION,
    };
    #[cfg(feature = "regex")]
    let regex = |p: &Option<String>| {
        p.as_deref()
            .map(filter::compile)
            .transpose()
            .map_err(|e| request_error(e.to_string()))
    };
    #[cfg(not(feature = "regex"))]
    if r.function.is_some() || r.no_function.is_some() {
        return Err(Error::new(ErrorKind::FeatureDisabled {
            what: "function-name pattern (--function, --no-function)",
            feature: "regex",
        }));
    }
    Ok(LlvmPlan {
        output,
        format,
        merge: MergeOptions {
            failure_mode: r.failure_mode,
            threads: r.threads,
            weight_all_values: r.weight_all_values,
            temporal_reservoir_size: r.temporal_reservoir_size,
            temporal_max_trace_length: r.temporal_max_trace_length,
            remapping,
        },
        profdata: ProfdataOptions {
            version,
            sparse: r.sparse,
            keep_vtable_symbols: r.keep_vtable_symbols,
            preserve_record_order: false,
            llvm: r
                .target_llvm
                .filter(|_| r.format_version.is_none() && !r.write_prev_version),
            strict: r.strict_target,
        },
        proftext: ProftextOptions {
            sparse: r.sparse,
            keep_vtable_symbols: r.keep_vtable_symbols,
            llvm_compatible: r.llvm_compatible || r.llvm_profdata,
        },
        #[cfg(feature = "regex")]
        keep: regex(&r.function)?,
        #[cfg(feature = "regex")]
        drop: regex(&r.no_function)?,
    })
}

/// Merges the LLVM inputs (and the converted GraalVM ones, if any) and writes an LLVM
/// profile.
fn merge_llvm(
    r: &MergeRequest,
    collector: &mut Collector,
    converted: Option<(Converted, Vec<Message>)>,
    progress: &dyn Progress,
) -> Result<MergeOutcome> {
    let (converted, mut messages) = match converted {
        Some((c, m)) => (Some(c), m),
        None => (None, Vec::new()),
    };
    let output_for_walk = r.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    // A directory holding only GraalVM profiles is fine when they were taken already.
    let require_found = !r.llvm_profdata && converted.is_none();
    let how = llvm_selection(r, &output_for_walk, require_found);
    let Collected {
        mut inputs,
        warnings,
    } = collector.collect(&sources(r), &how)?;
    // A file the GraalVM selection skipped was reported then.
    let reported: std::collections::HashSet<String> =
        messages.iter().map(ToString::to_string).collect();
    messages.extend(
        warnings
            .into_iter()
            .filter(|w| !reported.contains(&w.to_string())),
    );
    if let Some(c) = &converted {
        inputs.retain(|i| !c.paths.contains(&i.path));
    }
    // Before empty inputs are dropped: llvm-profdata counts them.
    if r.supplement.is_some() && r.llvm_profdata {
        super::supplement::check_llvm_request(r.output.as_deref(), &inputs)?;
    }
    let empty = if r.llvm_profdata {
        drop_empty_inputs(&mut inputs, &mut messages)
    } else {
        0
    };
    if inputs.is_empty() && converted.is_none() && empty == 0 {
        return Err(request_error("no input files"));
    }
    if let Some(c) = &converted
        && !inputs.is_empty()
    {
        messages.insert(
            0,
            Message::Mixed {
                iprof: c.paths.len(),
                llvm: inputs.len(),
                into_llvm: true,
            },
        );
    }
    let mut plan = llvm_plan(r)?;
    if converted.is_none()
        && let Some(w) = older_producers(r, &plan, &inputs)
    {
        messages.push(Message::Warning(w));
    }
    if r.normalize != NormalizeMode::None {
        // Normalising scales every count, new values of a site included.
        plan.merge.weight_all_values = true;
    }
    let correlator = correlator(r, &inputs, &mut messages)?;
    let normalised;
    let inputs = if r.normalize != NormalizeMode::None && !inputs.is_empty() {
        let (weighted, warnings) = llvm_normalise_inputs(&inputs, r.normalize, &correlator)?;
        messages.extend(warnings);
        normalised = weighted;
        &normalised
    } else {
        &inputs
    };
    progress.start(inputs.len());
    let tick = |n: usize| progress.set(n);
    let merged = match (&converted, inputs.is_empty()) {
        (Some(c), true) => merge_profiles(
            &[(&c.profile, Weight::ONE, Path::new("iprof inputs"))],
            &plan.merge,
        ),
        _ => merge_files_correlating(
            inputs,
            &plan.merge,
            &ReadOptions::default(),
            &correlator,
            Some(&tick),
        ),
    };
    progress.finish();
    let mut merged = merged
        .and_then(|m| with_converted(m, converted.as_ref(), !inputs.is_empty(), &plan.merge))?;
    if converted.is_some() {
        // The receiver-type names of converted iprof profiles are part of the mapping.
        plan.profdata.keep_vtable_symbols = true;
        plan.proftext.keep_vtable_symbols = true;
        if plan.format == OutputFormat::Profdata && plan.profdata.version < 12 {
            messages.push(Message::Conversion {
                what: "iprof to LLVM",
                line: format!(
                    "index version {} has no vtable-names section: the receiver types of \
                     virtual-invoke profiles are written as hashes only (use version 12 or \
                     later to keep their names)",
                    plan.profdata.version
                ),
            });
        }
    }
    merge_messages(
        &mut messages,
        std::mem::take(&mut merged.warnings),
        std::mem::take(&mut merged.skipped),
    );
    #[cfg(feature = "regex")]
    if plan.keep.is_some() || plan.drop.is_some() {
        let (removed, total) =
            filter::retain(&mut merged.profile, plan.keep.as_ref(), plan.drop.as_ref());
        messages.push(Message::Filtered { removed, total });
    }
    if let Some(s) = &r.supplement {
        super::supplement::apply(s, r.target_llvm, &mut merged.profile, &mut messages)?;
    }
    let writer_warnings = write_llvm(&plan, &merged)?;
    messages.extend(writer_warnings.into_iter().map(Message::Warning));
    let records = merged.profile.records.len();
    Ok(MergeOutcome {
        output: plan.output.clone(),
        written: match plan.format {
            OutputFormat::Profdata => Written::Profdata {
                version: plan.profdata.version,
            },
            _ => Written::Proftext,
        },
        records,
        inputs_merged: merged.inputs_merged,
        inputs_total: inputs.len() + empty + converted.as_ref().map_or(0, |c| c.paths.len()),
        messages,
        memory: MergedMemory::keep(merged.profile),
    })
}

/// The drop-in's handling of what llvm-profdata skips: inputs that are not regular files
/// (with a warning each) and empty inputs (a process killed before it wrote its profile
/// leaves one; llvm-profdata skips them without a word, the drop-in says so). Returns the
/// number of empty inputs dropped.
fn drop_empty_inputs(inputs: &mut Vec<InputSpec>, messages: &mut Vec<Message>) -> usize {
    let dropped = super::inputs::drop_non_regular(inputs);
    messages.extend(dropped.into_iter().map(Message::Warning));
    let mut empty = 0;
    inputs.retain(|i| {
        let is_empty = std::fs::metadata(&i.path).is_ok_and(|m| m.is_file() && m.len() == 0);
        if is_empty {
            empty += 1;
            messages.push(Message::Skipped(
                i.path.clone(),
                Error::at(0, ErrorKind::Empty).with_path(&i.path),
            ));
        }
        !is_empty
    });
    empty
}

/// Writes the merged profile as the plan says (indexed, streamed to a file; or text);
/// returns the writer's warnings.
fn write_llvm(plan: &LlvmPlan, merged: &MergeOutput) -> Result<Vec<Warning>> {
    let dest = Destination::of(&plan.output);
    let writer_warnings = match plan.format {
        OutputFormat::Profdata => {
            let mut o = plan.profdata.clone();
            // A release asked for gets its own bytes: llvm-profdata re-inserts the records of
            // an indexed input, so its layout is kept only when no release is named.
            o.preserve_record_order = merged.sole_input_indexed && o.llvm.is_none();
            match &dest {
                Destination::Stdout => {
                    let (bytes, warnings) = profdata::write(&merged.profile, &o)?;
                    output::write_bytes(&dest, &bytes)?;
                    warnings
                }
                // Streamed to the file: the output is never held in memory as a whole.
                Destination::File(path) => {
                    let mut warnings = Vec::new();
                    output::write_atomic_with(path, |f| {
                        warnings = profdata::write_to(&merged.profile, &o, f)?;
                        Ok(())
                    })?;
                    warnings
                }
            }
        }
        _ => {
            let text = proftext::write(&merged.profile, &plan.proftext);
            output::write_bytes(&dest, text.as_bytes())?;
            Vec::new()
        }
    };
    Ok(writer_warnings)
}

/// The binaries of `r` that lightweight raw profiles are completed from, read once; their
/// warnings go to `messages`, with one per pairing pattern that matches none of `inputs`.
fn correlator(
    r: &MergeRequest,
    inputs: &[InputSpec],
    messages: &mut Vec<Message>,
) -> Result<Correlator> {
    let binaries: Vec<(CorrelateKind, PathBuf)> = r
        .binary_files
        .iter()
        .map(|p| (CorrelateKind::Binary, p.clone()))
        .chain(
            r.debug_info_files
                .iter()
                .map(|p| (CorrelateKind::DebugInfo, p.clone())),
        )
        .collect();
    let (correlator, warnings) = Correlator::new(&binaries, r.max_correlation_warnings)?;
    messages.extend(warnings.into_iter().map(Message::Warning));
    let (mut correlator, warnings) =
        correlator.with_pairings(&r.input_pairings, r.max_correlation_warnings)?;
    messages.extend(warnings.into_iter().map(Message::Warning));
    for pattern in correlator.check_pairings(inputs.iter().map(|i| i.path.as_path()))? {
        messages.push(Message::Warning(Warning::new(format!(
            "the input pattern {pattern:?} (--binary-for, --debug-info-for) matches no input"
        ))));
    }
    match (r.correlate, r.debug_file_directories.is_empty()) {
        (Some(kind), false) => {
            correlator = correlator.with_build_id_trees(r.debug_file_directories.clone(), kind)?;
        }
        (None, false) => {
            return Err(request_error(
                "--debug-file-directory needs --correlate=binary or --correlate=debug-info: \
                 how the binaries found there are to be read",
            ));
        }
        (Some(_), true) => {
            return Err(request_error(
                "--correlate needs --debug-file-directory: the .build-id trees to look \
                 binaries up in (debuginfod is not used)",
            ));
        }
        (None, true) => {}
    }
    Ok(correlator)
}

/// `--normalize` for LLVM inputs: each input's weight multiplied by the factor that makes
/// its total equal to the largest input's (see [`llvm_normalise`]). Reads every input once
/// for its total; an unreadable input is left to the merge, which reports it.
fn llvm_normalise_inputs(
    inputs: &[InputSpec],
    mode: NormalizeMode,
    correlator: &Correlator,
) -> Result<(Vec<InputSpec>, Vec<Message>)> {
    let reader = LlvmReader::new();
    let mut totals = Vec::with_capacity(inputs.len());
    for i in inputs {
        let t = i
            .open()
            .and_then(|f| correlator.apply(f))
            .ok()
            .and_then(|f| {
                let t = reader
                    .read(f.bytes())
                    .ok()
                    .map(|r| llvm_normalise::total(&r.profile, mode));
                // A file that changed is left to the merge too.
                t.filter(|_| f.check_unchanged().is_ok())
            });
        totals.push(t);
    }
    let factors = llvm_normalise::factors(&totals);
    let mut messages = Vec::new();
    let out = inputs
        .iter()
        .zip(factors)
        .map(|(i, f)| {
            let (weight, exact) = i.weight.times(f.0, f.1);
            if !exact {
                messages.push(Message::Warning(
                    Warning::new(format!(
                        "normalisation factor {}/{} does not fit 64-bit weights with weight {}; \
                         rounded",
                        f.0, f.1, i.weight
                    ))
                    .with_path(&i.path),
                ));
            }
            InputSpec {
                weight,
                ..i.clone()
            }
        })
        .collect();
    Ok((out, messages))
}

/// Adds the converted GraalVM profile (if any) to the merge of the LLVM inputs.
fn with_converted(
    merged: MergeOutput,
    converted: Option<&Converted>,
    any_llvm: bool,
    opts: &MergeOptions,
) -> Result<MergeOutput> {
    let Some(c) = converted else {
        return Ok(merged);
    };
    if !any_llvm {
        let mut m = merged;
        m.inputs_merged = c.inputs_merged;
        return Ok(m);
    }
    let mut both = merge_profiles(
        &[
            (&merged.profile, Weight::ONE, Path::new("LLVM inputs")),
            (&c.profile, Weight::ONE, Path::new("iprof inputs")),
        ],
        opts,
    )?;
    both.warnings.splice(0..0, merged.warnings);
    both.skipped = merged.skipped;
    both.inputs_merged = merged.inputs_merged + c.inputs_merged;
    both.sole_input_indexed = false;
    Ok(both)
}

/// An iprof run: merges the GraalVM inputs (and the LLVM ones, converted) into an iprof.
#[cfg(feature = "iprof")]
fn merge_to_iprof(
    r: &MergeRequest,
    inputs: Vec<InputSpec>,
    kinds: &[Option<FormatKind>],
    mut messages: Vec<Message>,
    progress: &dyn Progress,
) -> Result<MergeOutcome> {
    if inputs.is_empty() {
        return Err(request_error("no input files"));
    }
    let (iprof_inputs, llvm_inputs): (Vec<_>, Vec<_>) = inputs
        .iter()
        .zip(kinds)
        .partition(|(_, k)| **k == Some(FormatKind::Iprof));
    let iprof_inputs: Vec<InputSpec> = iprof_inputs.into_iter().map(|(i, _)| i.clone()).collect();
    let llvm_inputs: Vec<InputSpec> = llvm_inputs.into_iter().map(|(i, _)| i.clone()).collect();
    if r.format_version.is_some() || r.target_llvm.is_some() {
        return Err(request_error(
            "--format-version and --target-llvm apply to LLVM outputs only",
        ));
    }
    let Some(output) = r.output.clone() else {
        return Err(request_error("an output file is required (-o FILE)"));
    };
    if r.remapping_file.is_some() || r.function.is_some() || r.no_function.is_some() {
        return Err(request_error(
            "--remapping-file, --function and --no-function apply to LLVM outputs only",
        ));
    }
    let opts = iprof_options(r);
    if !iprof_inputs.is_empty() && !llvm_inputs.is_empty() {
        messages.push(Message::Mixed {
            iprof: iprof_inputs.len(),
            llvm: llvm_inputs.len(),
            into_llvm: false,
        });
    }
    progress.start(iprof_inputs.len());
    let tick = |n: usize| progress.set(n);
    let merged = if iprof_inputs.is_empty() {
        Ok(IprofMergeOutput::default())
    } else {
        merge_iprof_files(&iprof_inputs, &opts, Some(&tick))
    };
    progress.finish();
    let mut merged = merged?;
    merge_messages(
        &mut messages,
        std::mem::take(&mut merged.warnings),
        std::mem::take(&mut merged.skipped),
    );
    if !llvm_inputs.is_empty() {
        let (p, n) = llvm_as_iprof(r, &llvm_inputs, &mut messages)?;
        crate::passes::iprof_merge::merge_owned(
            &mut merged.profile,
            p,
            &crate::passes::iprof_merge::InputScale::default(),
        );
        merged.profile = crate::passes::normalise::canonicalize_owned(
            std::mem::take(&mut merged.profile),
            r.keep_all_symbols,
        );
        merged.inputs_merged += n;
        merged.input_bytes += llvm_inputs
            .iter()
            .filter_map(|i| std::fs::metadata(&i.path).ok())
            .map(|m| m.len())
            .sum::<u64>();
    }
    let written = write_iprof(&Destination::of(&output), &merged.profile)?;
    let p = &merged.profile;
    Ok(MergeOutcome {
        written: Written::Iprof {
            version: iprof_writer::output_version(p).to_string(),
            entries: p.entry_count(),
            methods: p.symbols.method_count(),
            types: p.symbols.type_count(),
            trim: opts.trim.is_active().then_some(merged.trim),
            reduction: merged.size_reduction(written).to_string(),
        },
        output,
        records: 0,
        inputs_merged: merged.inputs_merged,
        inputs_total: inputs.len(),
        messages,
        memory: MergedMemory::default(),
    })
}

/// Merges LLVM inputs and converts them for an iprof output.
#[cfg(feature = "iprof")]
fn llvm_as_iprof(
    r: &MergeRequest,
    inputs: &[InputSpec],
    messages: &mut Vec<Message>,
) -> Result<(IprofProfile, usize)> {
    let opts = MergeOptions {
        failure_mode: r.failure_mode,
        threads: r.threads,
        ..Default::default()
    };
    let merged = merge_files(inputs, &opts, None)?;
    merge_messages(messages, merged.warnings, merged.skipped);
    let (p, report) = llvm_to_iprof(&merged.profile);
    report_messages(messages, "LLVM to iprof", report);
    Ok((p, merged.inputs_merged))
}

/// Streams an iprof profile to `dest`; returns the bytes written.
#[cfg(feature = "iprof")]
pub(crate) fn write_iprof(dest: &Destination, p: &IprofProfile) -> Result<u64> {
    let mut counter = 0u64;
    output::write_stream(dest, |w| {
        let mut counting = Counting(w, &mut counter);
        let mut b = std::io::BufWriter::with_capacity(1 << 16, &mut counting);
        iprof_writer::write(p, &mut b)?;
        b.flush()
    })?;
    Ok(counter)
}

/// Writes to `W` and counts the bytes.
#[cfg(feature = "iprof")]
struct Counting<'c, W: Write>(W, &'c mut u64);

#[cfg(feature = "iprof")]
impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        *self.1 += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Merges LLVM profiles already in memory, in order (library use: the same semantics as a
/// merge of files), on `opts.threads` worker threads (as many as the system starts: the
/// output's warnings say why not all).
pub fn merge_in_memory(
    inputs: &[(&Profile<'_>, Weight, &Path)],
    opts: &MergeOptions,
) -> Result<MergeOutput> {
    let (workers, warnings) = crate::sys::threads::Workers::start(opts.threads);
    let mut out = workers.install(|| merge_profiles(inputs, opts))?;
    out.warnings.splice(0..0, warnings);
    Ok(out)
}
