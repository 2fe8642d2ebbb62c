//! `pgo-merge [merge]`: merge arguments → [`MergeRequest`]; the outcome → messages.

use std::io::Write;

use pgo_merge::pipeline::inputs::{parse_llvm_weighted, parse_weighted};
use pgo_merge::pipeline::{
    self, ColdContextOptions, CorrelateKind, ExtBinaryOptions, FailureMode, MergeRequest,
    NormalizeMode, OutputFormat, SampleFormat, SampleLayout, SampleMergeRequest, Written,
};

use super::args::{
    CorrelateArg, FailureModeArg, MergeArgs, NormalizeArg, OutputFormatArg, SampleLayoutArg,
};
use super::dropin::Target;
use super::{EXIT_OK, Mode, messages, progress};

const PREFIX: &str = "pgo-merge";

/// The driver request of merge arguments.
fn request(a: &MergeArgs, mode: Mode) -> Result<MergeRequest, pgo_merge::Error> {
    if a.gcc {
        // llvm-profdata's message for an instrumentation merge with --gcc.
        return Err(pgo_merge::Error::new(pgo_merge::ErrorKind::Request(
            "unknown format is specified (--gcc, GCC's AutoFDO encoding, applies to sample \
             profiles only, and is never written)"
                .into(),
        )));
    }
    let sample_only = sample_only_options(a);
    if !sample_only.is_empty() {
        let (flags, verb) = (
            sample_only.join(", "),
            ["apply", "applies"][usize::from(sample_only.len() == 1)],
        );
        if mode == Mode::Native {
            return Err(pgo_merge::Error::new(pgo_merge::ErrorKind::Request(
                format!("{flags} {verb} to sample profiles: add --sample"),
            )));
        }
        messages::note(
            a.quiet,
            format_args!(
                "{PREFIX}: warning: {flags} {verb} to sample profiles (--sample); ignored, as \
                 llvm-profdata does"
            ),
        );
    }
    let mut weighted_inputs = Vec::with_capacity(a.weighted_inputs.len());
    for w in &a.weighted_inputs {
        // In the drop-in as llvm-profdata reads it (a whole number up to 2^64 − 1, the
        // file name as given; the drop-in refused other weights already), natively ours.
        let llvm = (mode == Mode::LlvmProfdata).then(|| parse_llvm_weighted(w));
        weighted_inputs.push(match llvm.flatten() {
            Some(parsed) => parsed,
            None => parse_weighted(w)?,
        });
    }
    let cold_threshold = a
        .cold_threshold
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: String| {
            pgo_merge::Error::new(pgo_merge::ErrorKind::Request(format!(
                "--cold-threshold: {e}"
            )))
        })?;
    let output_format = if a.text {
        Some(OutputFormat::Proftext)
    } else {
        a.output_format.map(|f| match f {
            OutputFormatArg::Profdata => OutputFormat::Profdata,
            OutputFormatArg::Proftext => OutputFormat::Proftext,
            OutputFormatArg::Iprof => OutputFormat::Iprof,
        })
    };
    Ok({
        let mut new_merge_request = MergeRequest::default();
        new_merge_request.inputs = a.inputs.clone();
        new_merge_request.weighted_inputs = weighted_inputs;
        new_merge_request.input_lists = a.input_files.clone();
        new_merge_request.output = a.output.clone();
        new_merge_request.output_format = output_format;
        new_merge_request.format_version = a.format_version;
        new_merge_request.target_llvm = target_llvm(a, mode)?;
        new_merge_request.write_prev_version = a.write_prev_version;
        new_merge_request.strict_target = a.strict_target;
        new_merge_request.sparse = a.sparse;
        new_merge_request.failure_mode = match a.failure_mode {
            FailureModeArg::Any => FailureMode::Any,
            FailureModeArg::All => FailureMode::All,
            FailureModeArg::Warn => FailureMode::Warn,
        };
        new_merge_request.threads = a.threads;
        new_merge_request.weight_all_values = a.weight_all_values;
        new_merge_request.keep_vtable_symbols = a.keep_vtable_symbols;
        new_merge_request.temporal_reservoir_size = a.temporal_reservoir_size;
        new_merge_request.temporal_max_trace_length = a.temporal_max_trace_length;
        new_merge_request.normalize = match a.normalize {
            NormalizeArg::None => NormalizeMode::None,
            NormalizeArg::Total => NormalizeMode::Total,
            NormalizeArg::Max => NormalizeMode::Max,
        };
        new_merge_request.max_context_depth = a.max_context_depth;
        new_merge_request.max_sampling_depth = a.max_sampling_depth;
        new_merge_request.cold_threshold = cold_threshold;
        new_merge_request.keep_all_symbols = a.keep_all_symbols;
        new_merge_request.keep_contexts = a.keep_contexts;
        new_merge_request.lenient = a.lenient;
        new_merge_request.function = a.function.clone();
        new_merge_request.no_function = a.no_function.clone();
        new_merge_request.remapping_file = a.remapping_file.clone();
        new_merge_request.binary_files = a.binary_file.clone();
        new_merge_request.debug_info_files = a.debug_info.clone();
        new_merge_request.input_pairings = input_pairings(a)?;
        new_merge_request.debug_file_directories = a.debug_file_directory.clone();
        new_merge_request.correlate = a.correlate.map(|c| match c {
            CorrelateArg::Binary => CorrelateKind::Binary,
            CorrelateArg::DebugInfo => CorrelateKind::DebugInfo,
        });
        new_merge_request.max_correlation_warnings = a.max_debug_info_correlation_warnings;
        new_merge_request.supplement = supplement(a, mode)?;
        new_merge_request.llvm_compatible = a.llvm_compatible;
        new_merge_request.llvm_profdata = mode == Mode::LlvmProfdata;
        new_merge_request
    })
}

/// The sample profile to supplement with, and its thresholds (`--supplement-instr-with-sample`).
fn supplement(
    a: &MergeArgs,
    mode: Mode,
) -> Result<Option<pipeline::supplement::Supplement>, pgo_merge::Error> {
    let tuning = [
        (
            a.zero_counter_threshold.is_some(),
            "--zero-counter-threshold",
        ),
        (
            a.suppl_min_size_threshold.is_some(),
            "--suppl-min-size-threshold",
        ),
        (
            a.instr_prof_cold_threshold.is_some(),
            "--instr-prof-cold-threshold",
        ),
    ];
    let Some(path) = &a.supplement_instr_with_sample else {
        // llvm-profdata ignores them then; natively they would do nothing, so they are refused.
        if mode == Mode::Native
            && let Some((_, flag)) = tuning.iter().find(|(set, _)| *set)
        {
            return Err(pgo_merge::Error::new(pgo_merge::ErrorKind::Request(
                format!("{flag} applies with --supplement-instr-with-sample only"),
            )));
        }
        return Ok(None);
    };
    let iprof_out = a.output_format == Some(OutputFormatArg::Iprof)
        || a.output.as_ref().is_some_and(|o| {
            let name = o.to_string_lossy();
            name.ends_with(".iprof") || name.ends_with(".iprof.gz")
        });
    if mode == Mode::Native
        && iprof_out
        && a.output_format != Some(OutputFormatArg::Profdata)
        && !a.text
    {
        return Err(pgo_merge::Error::new(pgo_merge::ErrorKind::Request(
            "--supplement-instr-with-sample writes LLVM profiles only, not .iprof".into(),
        )));
    }
    let mut options = pipeline::supplement::SupplementOptions::default();
    if let Some(n) = a.suppl_min_size_threshold {
        options.min_size = n;
    }
    if let Some(f) = a.zero_counter_threshold {
        options.zero_counter_threshold = f;
    }
    if let Some(n) = a.instr_prof_cold_threshold {
        options.instr_cold_threshold = n;
    }
    Ok(Some(pipeline::supplement::Supplement::new(path, options)))
}

/// The first option of `a` that a sample merge does not take, if any.
/// The options given that apply to sample merges only. llvm-profdata ignores them in an
/// instrumentation merge, and so does the drop-in (with a warning); natively they are an
/// error.
/// The LLVM release the output is for: `--target-llvm`, else (natively, when neither
/// `--format-version` nor `--write-prev-version` names the version)
/// `PGO_MERGE_TARGET_LLVM`, which the drop-in has read already.
fn target_llvm(a: &MergeArgs, mode: Mode) -> Result<Option<u32>, pgo_merge::Error> {
    if a.target_llvm.is_some()
        || mode != Mode::Native
        || a.format_version.is_some()
        || a.write_prev_version
    {
        return Ok(a.target_llvm);
    }
    let env = std::env::var(super::dropin::TARGET_ENV).ok();
    super::dropin::target("pgo-merge", env.as_deref())
        .map(|t| t.map(|t| t.llvm))
        .map_err(|e| pgo_merge::Error::new(pgo_merge::ErrorKind::Request(e)))
}

fn sample_only_options(a: &MergeArgs) -> Vec<&'static str> {
    [
        (a.drop_profile_symbol_list, "--drop-profile-symbol-list"),
        (a.use_md5, "--use-md5"),
        (a.compress_all_sections, "--compress-all-sections"),
        (a.gen_partial_profile, "--gen-partial-profile"),
        (a.split_layout, "--split-layout"),
        (
            a.extbinary_write_vtable_type_prof,
            "--extbinary-write-vtable-type-prof",
        ),
        (a.output_size_limit.is_some(), "--output-size-limit"),
        (a.fs_discriminator_pass.is_some(), "--fs-discriminator-pass"),
        (a.profile_is_fs, "--profile-isfs"),
        (a.prof_sym_list.is_some(), "--prof-sym-list"),
        (a.sample_trim_cold_context, "--sample-trim-cold-context"),
        (a.sample_merge_cold_context, "--sample-merge-cold-context"),
        (
            a.convert_sample_profile_layout.is_some(),
            "--convert-sample-profile-layout",
        ),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect()
}

fn instr_only_option(a: &MergeArgs) -> Option<&'static str> {
    [
        (
            a.output_format == Some(OutputFormatArg::Iprof),
            "--output-format iprof",
        ),
        (a.format_version.is_some(), "--format-version"),
        (a.write_prev_version, "--write-prev-version"),
        (a.weight_all_values, "--weight-all-values"),
        (a.normalize != NormalizeArg::None, "--normalize"),
        (a.max_context_depth.is_some(), "--max-context-depth"),
        (a.max_sampling_depth.is_some(), "--max-sampling-depth"),
        (a.cold_threshold.is_some(), "--cold-threshold"),
        (a.keep_all_symbols, "--keep-all-symbols"),
        (a.keep_contexts, "--keep-contexts"),
        (a.lenient, "--lenient"),
        (
            a.supplement_instr_with_sample.is_some(),
            "--supplement-instr-with-sample",
        ),
    ]
    .into_iter()
    .find_map(|(set, name)| set.then_some(name))
}

/// The driver request of a `--sample` merge.
fn sample_request(a: &MergeArgs, mode: Mode) -> Result<SampleMergeRequest, pgo_merge::Error> {
    if let Some(flag) = instr_only_option(a) {
        return Err(pgo_merge::Error::new(pgo_merge::ErrorKind::Request(
            format!("{flag} does not apply to sample profiles (--sample)"),
        )));
    }
    let mut weighted_inputs = Vec::with_capacity(a.weighted_inputs.len());
    for w in &a.weighted_inputs {
        // In the drop-in as llvm-profdata reads it (a whole number up to 2^64 − 1, the
        // file name as given; the drop-in refused other weights already), natively ours.
        let llvm = (mode == Mode::LlvmProfdata).then(|| parse_llvm_weighted(w));
        weighted_inputs.push(match llvm.flatten() {
            Some(parsed) => parsed,
            None => parse_weighted(w)?,
        });
    }
    let named_text = mode == Mode::Native
        && a.output.as_deref().is_some_and(|o| {
            matches!(
                o.extension().and_then(|e| e.to_str()),
                Some("txt" | "proftext" | "afdotext")
            )
        });
    let output_format = if a.gcc {
        SampleFormat::Gcc
    } else if a.text || a.output_format == Some(OutputFormatArg::Proftext) {
        SampleFormat::Text
    } else if a.binary || a.output_format == Some(OutputFormatArg::Profdata) {
        SampleFormat::Binary
    } else if a.extbinary || !named_text {
        SampleFormat::ExtBinary
    } else {
        SampleFormat::Text
    };
    Ok({
        let mut new_sample_merge_request = SampleMergeRequest::default();
        new_sample_merge_request.inputs = a.inputs.clone();
        new_sample_merge_request.weighted_inputs = weighted_inputs;
        new_sample_merge_request.input_lists = a.input_files.clone();
        new_sample_merge_request.output = a.output.clone();
        new_sample_merge_request.output_format = output_format;
        new_sample_merge_request.target_llvm = a.target_llvm;
        new_sample_merge_request.failure_mode = match a.failure_mode {
            FailureModeArg::Any => FailureMode::Any,
            FailureModeArg::All => FailureMode::All,
            FailureModeArg::Warn => FailureMode::Warn,
        };
        new_sample_merge_request.drop_profile_symbol_list = a.drop_profile_symbol_list;
        new_sample_merge_request.cold_contexts = {
            let mut new_cold_context_options = ColdContextOptions::default();
            new_cold_context_options.trim = a.sample_trim_cold_context;
            new_cold_context_options.merge = a.sample_merge_cold_context;
            new_cold_context_options.frame_depth = a.sample_frame_depth_for_cold_context;
            new_cold_context_options
        };
        new_sample_merge_request.layout = a.convert_sample_profile_layout.map(|l| match l {
            SampleLayoutArg::Flat => SampleLayout::Flat,
            SampleLayoutArg::Nest => SampleLayout::Nest,
        });
        new_sample_merge_request.threads = a.threads;
        new_sample_merge_request.llvm_profdata = mode == Mode::LlvmProfdata;
        new_sample_merge_request.extbinary = {
            let mut new_ext_binary_options = ExtBinaryOptions::default();
            new_ext_binary_options.use_md5 = a.use_md5;
            new_ext_binary_options.compress_all_sections = a.compress_all_sections;
            new_ext_binary_options.partial = a.gen_partial_profile;
            new_ext_binary_options.split_layout = a.split_layout;
            new_ext_binary_options.vtable_types = a.extbinary_write_vtable_type_prof;
            new_ext_binary_options
        };
        new_sample_merge_request.prof_sym_list = a.prof_sym_list.clone();
        new_sample_merge_request.remapping_file = a.remapping_file.clone();
        new_sample_merge_request.output_size_limit = a.output_size_limit.unwrap_or(0);
        new_sample_merge_request.function = a.function.clone();
        new_sample_merge_request.no_function = a.no_function.clone();
        new_sample_merge_request.sparse = a.sparse;
        new_sample_merge_request.fs_discriminator_pass =
            a.fs_discriminator_pass.unwrap_or_default();
        new_sample_merge_request.profile_is_fs = a.profile_is_fs;
        new_sample_merge_request
    })
}

/// Runs a `--sample` merge; returns the process exit code.
fn run_sample_merge(args: &MergeArgs, mode: Mode) -> i32 {
    let req = match sample_request(args, mode) {
        Ok(r) => r,
        Err(e) => return messages::error(PREFIX, &e, mode),
    };
    let bar = progress::Bar::new(args.no_progress || args.quiet);
    let outcome = match pipeline::merge_sample(&req, &bar) {
        Ok(o) => o,
        Err(e) => return messages::error(PREFIX, &e, mode),
    };
    messages::print(PREFIX, &outcome.messages, args.quiet);
    if let Written::Sample { format } = outcome.written
        && outcome.output.as_os_str() != "-"
        && mode == Mode::Native
    {
        messages::note(
            args.quiet,
            format_args!(
                "{PREFIX}: wrote {} ({} sample profile; {} functions from {} of {} inputs)",
                outcome.output.display(),
                format.name(),
                outcome.records,
                outcome.inputs_merged,
                outcome.inputs_total
            ),
        );
    }
    EXIT_OK
}

/// Runs a merge; returns the process exit code. Messages go to stderr. `target` is the LLVM
/// version the drop-in writes for when its name or environment chose it (already in
/// `args.target_llvm`), named in the message if that version cannot be written.
pub fn run_merge(args: MergeArgs, mode: Mode, target: Option<&Target>) -> i32 {
    if mode == Mode::Native && super::bolt::wants_fdata(&args) {
        return super::bolt::run_native(&args);
    }
    if args.sample && !args.dump_input_file_list {
        return run_sample_merge(&args, mode);
    }
    let req = match request(&args, mode) {
        Ok(r) => r,
        Err(e) => return messages::error(PREFIX, &e, mode),
    };
    let error = |e: &pgo_merge::Error| {
        let code = messages::error(PREFIX, e, mode);
        if let Some(t) = target
            && e.is_request_error()
            && e.to_string().contains("--target-llvm")
        {
            eprintln!(
                "{PREFIX}: note: LLVM {} is the target {}; name the drop-in after a \
                 supported LLVM version or unset {}",
                t.llvm,
                t.source(),
                super::dropin::TARGET_ENV
            );
        }
        code
    };
    if args.dump_input_file_list {
        return match pipeline::plan_inputs(&req) {
            Ok(inputs) => {
                // The paths as they are, bytes and all (as llvm-profdata prints them): the
                // list is for scripts to read back.
                let mut out = std::io::stdout().lock();
                for i in &inputs {
                    let mut line = format!("{},", i.weight).into_bytes();
                    line.extend_from_slice(i.path.as_os_str().as_encoded_bytes());
                    line.push(b'\n');
                    if let Err(e) = out.write_all(&line) {
                        return error(&pgo_merge::Error::new(pgo_merge::ErrorKind::Io(e)));
                    }
                }
                EXIT_OK
            }
            Err(e) => error(&e),
        };
    }
    let quiet = args.quiet;
    let bar = progress::Bar::new(args.no_progress || quiet);
    let outcome = match pipeline::merge_keeping_memory(&req, &bar) {
        Ok((o, memory)) => {
            // The process ends after the merge: its memory goes back to the system then,
            // without being freed piece by piece.
            memory.leak();
            o
        }
        Err(e) => return error(&e),
    };
    messages::print(PREFIX, &outcome.messages, quiet);
    let to_file = outcome.output.as_os_str() != "-";
    match &outcome.written {
        Written::Iprof {
            version,
            entries,
            methods,
            types,
            trim,
            reduction,
        } => {
            messages::note(
                quiet,
                format_args!(
                    "{PREFIX}: wrote {} (iprof {version}; {entries} entries, {methods} methods, \
                     {types} types from {} of {} inputs)",
                    outcome.output.display(),
                    outcome.inputs_merged,
                    outcome.inputs_total
                ),
            );
            if let Some(t) = trim {
                messages::note(
                    quiet,
                    format_args!(
                        "{PREFIX}: trimmed: {} deep contexts shortened, {} sampling stacks \
                         shortened, {} cold contexts folded, {} zero entries dropped",
                        t.folded_deep, t.folded_sampling, t.folded_cold, t.dropped_zero
                    ),
                );
            }
            messages::note(quiet, format_args!("{PREFIX}: {reduction}"));
        }
        Written::Profdata { version } if to_file && mode == Mode::Native => messages::note(
            quiet,
            format_args!(
                "{PREFIX}: wrote {} (indexed profile, version {version}; {} records from {} of \
                 {} inputs)",
                outcome.output.display(),
                outcome.records,
                outcome.inputs_merged,
                outcome.inputs_total
            ),
        ),
        Written::Proftext if to_file && mode == Mode::Native => messages::note(
            quiet,
            format_args!(
                "{PREFIX}: wrote {} (text profile; {} records from {} of {} inputs)",
                outcome.output.display(),
                outcome.records,
                outcome.inputs_merged,
                outcome.inputs_total
            ),
        ),
        _ => {}
    }
    EXIT_OK
}

/// The pairings of `--binary-for GLOB FILE` and `--debug-info-for GLOB FILE`, in the order
/// given (clap collects each option's values two by two).
fn input_pairings(a: &MergeArgs) -> Result<Vec<pipeline::InputPairing>, pgo_merge::Error> {
    let mut out = Vec::new();
    for (values, kind, option) in [
        (&a.binary_for, CorrelateKind::Binary, "--binary-for"),
        (
            &a.debug_info_for,
            CorrelateKind::DebugInfo,
            "--debug-info-for",
        ),
    ] {
        for pair in values.chunks(2) {
            let [glob, binary] = pair else {
                return Err(pgo_merge::Error::new(pgo_merge::ErrorKind::Usage(format!(
                    "{option} takes two values: GLOB FILE"
                ))));
            };
            let pattern = glob.to_str().ok_or_else(|| {
                pgo_merge::Error::new(pgo_merge::ErrorKind::Usage(format!(
                    "{option}: the pattern {} is not UTF-8",
                    glob.display()
                )))
            })?;
            out.push(pipeline::InputPairing {
                pattern: pattern.to_owned(),
                kind,
                binary: binary.clone(),
            });
        }
    }
    Ok(out)
}
