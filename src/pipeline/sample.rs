//! Sample-profile merges (`pgo-merge --sample`, `llvm-profdata merge --sample`): inputs read
//! in parallel windows, folded in input order by [`SampleMerger`], written by a sample
//! back-end.
//!
//! Memory is bounded by the merged profile plus one window of inputs being parsed (each
//! parsed input is folded and dropped before the next window is read), not by the number
//! of inputs. The output does not depend on the thread count: inputs are folded in order.

use std::path::PathBuf;

use rayon::prelude::*;

use super::inputs::{Collector, Select, Sources};
use super::output::{self, Destination};
use super::{InputSpec, MergeOutcome, Message, Progress, Written, request_error};
use crate::backends::sample as writers;
pub use crate::backends::sample::extbinary::ExtBinaryOptions;
pub use crate::backends::sample::show::SampleShowOptions;
use crate::error::{Error, Result, Warning};
use crate::frontends::InputFile;
use crate::frontends::sample::{self as readers, ReadOptions, TextDialect};
pub use crate::ir::sample::SampleFormat;
use crate::ir::sample::SampleProfile;
use crate::passes::Weight;
use crate::passes::merge::FailureMode;
pub use crate::passes::sample::{ColdContextOptions, SampleLayout};
use crate::passes::sample::{SampleMerger, convert_layout, trim_cold_contexts};

/// The LLVM release whose behaviour a sample merge follows when none is named.
pub const DEFAULT_TARGET_LLVM: u32 = 22;

/// What to merge, how and where to write it. `Default` is llvm-profdata's defaults (an
/// extbinary output) with no inputs.
#[derive(Debug, Clone)]
pub struct SampleMergeRequest {
    /// Input files, or directories (every regular file under them, as llvm-profdata).
    pub inputs: Vec<PathBuf>,
    /// Weighted inputs; sample profiles take whole weights (≥ 1), as in LLVM.
    pub weighted_inputs: Vec<(Weight, PathBuf)>,
    /// Files listing inputs, one `FILE` or `W,FILE` per line.
    pub input_lists: Vec<PathBuf>,
    /// The output file (`-` is standard output); `None` is standard output in
    /// llvm-profdata mode and an error otherwise.
    pub output: Option<PathBuf>,
    /// The output encoding.
    pub output_format: SampleFormat,
    /// The LLVM release whose reader and writer to follow (text dialect); default
    /// [`DEFAULT_TARGET_LLVM`].
    pub target_llvm: Option<u32>,
    /// What to do with inputs that cannot be read.
    pub failure_mode: FailureMode,
    /// Leave the inputs' profile symbol lists out of the output.
    pub drop_profile_symbol_list: bool,
    /// Cold-context trimming and merging of context-sensitive profiles.
    pub cold_contexts: ColdContextOptions,
    /// Convert the merged profile to this layout (`--convert-sample-profile-layout`).
    pub layout: Option<SampleLayout>,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// llvm-profdata's conventions (standard output by default).
    pub llvm_profdata: bool,
    /// Extbinary writer options (`--use-md5`, `--compress-all-sections`,
    /// `--gen-partial-profile`, `--split-layout`); ignored by the other encodings.
    pub extbinary: ExtBinaryOptions,
    /// A file of symbols, one a line, added to the profile symbol list
    /// (`--prof-sym-list`; extbinary only).
    pub prof_sym_list: Option<PathBuf>,
}

impl Default for SampleMergeRequest {
    fn default() -> Self {
        SampleMergeRequest {
            inputs: Vec::new(),
            weighted_inputs: Vec::new(),
            input_lists: Vec::new(),
            output: None,
            output_format: SampleFormat::ExtBinary,
            target_llvm: None,
            failure_mode: FailureMode::Any,
            drop_profile_symbol_list: false,
            cold_contexts: ColdContextOptions::default(),
            layout: None,
            threads: 0,
            llvm_profdata: false,
            extbinary: ExtBinaryOptions::default(),
            prof_sym_list: None,
        }
    }
}

/// The merged profile of a request, before it is written.
#[derive(Debug)]
pub struct SampleMerged {
    /// The profile.
    pub profile: SampleProfile,
    /// Inputs merged.
    pub inputs_merged: usize,
    /// Inputs there were.
    pub inputs_total: usize,
    /// Warnings and skipped inputs, in order.
    pub messages: Vec<Message>,
}

/// The read options of a request.
fn read_options(r: &SampleMergeRequest) -> ReadOptions {
    ReadOptions {
        text: TextDialect::for_llvm(r.target_llvm.unwrap_or(DEFAULT_TARGET_LLVM)),
    }
}

/// The weight of an input as a whole number, or a request error.
fn whole_weight(i: &InputSpec) -> Result<u64> {
    if !i.weight.is_integer() {
        return Err(request_error(format!(
            "{}: sample profiles take whole weights (1, 2, …), as llvm-profdata; {} is not one",
            i.path.display(),
            i.weight
        )));
    }
    Ok(i.weight.rounded())
}

/// Reads and merges the inputs of `r` (no output written).
pub fn merge_sample_profiles(
    r: &SampleMergeRequest,
    progress: &dyn Progress,
) -> Result<SampleMerged> {
    let sources = Sources {
        inputs: r.inputs.clone(),
        weighted: r.weighted_inputs.clone(),
        lists: r.input_lists.clone(),
    };
    let output = r.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let inputs =
        Collector::new().collect(&sources, Select::EveryFile, Some(&output), false, false)?;
    if inputs.is_empty() {
        return Err(request_error("no input files"));
    }
    if r.cold_contexts.frame_depth == 0 {
        return Err(request_error(
            "--sample-frame-depth-for-cold-context must be at least 1 (1 keeps the base profile)",
        ));
    }
    let weights = inputs
        .iter()
        .map(whole_weight)
        .collect::<Result<Vec<u64>>>()?;
    let options = read_options(r);
    let (pool, threads) = super::worker_pool(r.threads)?;
    progress.start(inputs.len());
    let mut merger = SampleMerger::new();
    let mut messages = Vec::new();
    let mut failed = 0usize;
    // The inputs merged, in order, to name them in the merge's warnings.
    let mut merged_paths: Vec<&PathBuf> = Vec::new();
    // One parsed input per thread in flight: a parsed input is several times its file's
    // size, and the fold (serial, in input order) keeps up with the parsers.
    let window = threads.max(1);
    let mut done = 0usize;
    for (chunk_no, chunk) in inputs.chunks(window).enumerate() {
        let read: Vec<Result<SampleProfile>> =
            pool.install(|| chunk.par_iter().map(|i| read_one(i, &options)).collect());
        for (k, res) in read.into_iter().enumerate() {
            let index = chunk_no * window + k;
            let input = &inputs[index];
            match res {
                Ok(profile) => {
                    merger
                        .add(profile, weights[index])
                        .map_err(|e| e.with_path(&input.path))?;
                    merged_paths.push(&input.path);
                }
                Err(e) => {
                    if r.failure_mode == FailureMode::Any {
                        return Err(e);
                    }
                    failed += 1;
                    messages.push(Message::Skipped(input.path.clone(), e));
                }
            }
            done += 1;
            progress.set(done);
        }
    }
    progress.finish();
    if failed == inputs.len() {
        return Err(Error::new(crate::error::ErrorKind::Request(
            "no profile can be merged: every input failed to read".into(),
        )));
    }
    let merged_inputs = merger.inputs();
    let (mut profile, issues) = merger.finish();
    for issue in issues {
        let mut w = Warning::new(issue.kind.message());
        w.function = Some(issue.context.to_string());
        if let Some(p) = merged_paths.get(issue.input) {
            w = w.with_path(p);
        }
        messages.push(Message::Warning(w));
    }
    trim_cold_contexts(&mut profile, &r.cold_contexts)?;
    if let Some(layout) = r.layout {
        convert_layout(&mut profile, layout);
    }
    if r.drop_profile_symbol_list {
        profile.symbol_list = None;
    }
    Ok(SampleMerged {
        profile,
        inputs_merged: merged_inputs,
        inputs_total: inputs.len(),
        messages,
    })
}

/// Opens and reads one input; errors carry its path.
fn read_one(i: &InputSpec, options: &ReadOptions) -> Result<SampleProfile> {
    let file = InputFile::open(&i.path)?;
    let profile =
        readers::read(file.bytes(), options).map_err(|e| file.or_changed(e).with_path(&i.path))?;
    file.check_unchanged().map_err(|e| e.with_path(&i.path))?;
    Ok(profile)
}

/// The bytes of `profile` in `format`, extbinary with llvm-profdata's default options.
pub fn encode(profile: &SampleProfile, format: SampleFormat) -> Result<Vec<u8>> {
    encode_with(profile, format, &ExtBinaryOptions::default())
}

/// The bytes of `profile` in `format` (`extbinary` options apply to the extbinary encoding).
pub fn encode_with(
    profile: &SampleProfile,
    format: SampleFormat,
    extbinary: &ExtBinaryOptions,
) -> Result<Vec<u8>> {
    match format {
        SampleFormat::Text => Ok(writers::write_text(profile)),
        SampleFormat::Binary => writers::binary::write(profile),
        SampleFormat::ExtBinary => writers::extbinary::write(profile, extbinary),
        other => Err(request_error(format!(
            "writing {} sample profiles is not supported; use --text, --binary or --extbinary",
            other.name()
        ))),
    }
}

/// Adds the symbols of `path` (one a line, trimmed, blank lines skipped, as llvm-profdata's
/// `--prof-sym-list` reads them) to the profile symbol list.
fn add_symbol_list_file(profile: &mut SampleProfile, path: &std::path::Path) -> Result<()> {
    let text = std::fs::read(path).map_err(|e| Error::new(e.into()).with_path(path))?;
    let list = profile.symbol_list.get_or_insert_with(Default::default);
    for line in text.split(|&b| b == b'\n') {
        let t = line.trim_ascii();
        if !t.is_empty() {
            list.names.insert(t.into());
        }
    }
    Ok(())
}

/// Runs a sample merge: reads, merges and writes.
pub fn merge_sample(r: &SampleMergeRequest, progress: &dyn Progress) -> Result<MergeOutcome> {
    let output = match (&r.output, r.llvm_profdata) {
        (Some(o), _) => o.clone(),
        (None, true) => PathBuf::from("-"),
        (None, false) => {
            return Err(request_error(
                "no output: name one with -o FILE (- for standard output)",
            ));
        }
    };
    // Refuse an output we cannot write before reading anything.
    encode_with(&SampleProfile::new(), r.output_format, &r.extbinary)?;
    let mut merged = merge_sample_profiles(r, progress)?;
    if let Some(list) = &r.prof_sym_list {
        add_symbol_list_file(&mut merged.profile, list)?;
    }
    let bytes = encode_with(&merged.profile, r.output_format, &r.extbinary)?;
    output::write_bytes(&Destination::of(&output), &bytes)?;
    Ok(MergeOutcome {
        output,
        written: Written::Sample {
            format: r.output_format,
        },
        records: merged.profile.functions.len(),
        inputs_merged: merged.inputs_merged,
        inputs_total: merged.inputs_total,
        messages: merged.messages,
    })
}

/// What `show --sample` shows.
#[derive(Debug, Clone, Default)]
pub struct SampleShowRequest {
    /// The profile.
    pub file: PathBuf,
    /// What to print.
    pub options: SampleShowOptions,
    /// The LLVM release whose reader and report to follow.
    pub target_llvm: Option<u32>,
    /// Where the report goes (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
}

/// Reads one sample profile and writes its `show --sample` report.
pub fn show_sample(r: &SampleShowRequest) -> Result<()> {
    if let Some(o) = &r.output
        && super::show::same_file(&r.file, o)
    {
        return Err(request_error(format!(
            "{}: Input file name cannot be the same as the output file name!",
            r.file.display()
        )));
    }
    let input = InputSpec {
        path: r.file.clone(),
        weight: Weight::ONE,
    };
    let options = ReadOptions {
        text: TextDialect::for_llvm(r.target_llvm.unwrap_or(DEFAULT_TARGET_LLVM)),
    };
    let profile = read_one(&input, &options)?;
    let report = writers::show::show(&profile, &r.options);
    let dest = Destination::of(r.output.as_deref().unwrap_or(std::path::Path::new("-")));
    output::write_bytes(&dest, report.as_bytes())
}
