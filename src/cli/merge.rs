//! `pgo-merge [merge]`: merge profiles and write the result.

use std::io::Write;

use super::args::MergeArgs;
use super::options::{self, OutputFormat};
use super::{EXIT_FAILURE, EXIT_OK, Mode, progress};
use crate::backends::{profdata, proftext};
use crate::output::write_atomic;
use std::path::Path;

use crate::passes::{MergeOutput, Weight, filter, merge_files, merge_profiles};

/// Writes `bytes` to `path`, or to standard output for `-`.
pub fn write_output(path: &std::path::Path, bytes: &[u8]) -> crate::Result<()> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()?;
        Ok(())
    } else {
        write_atomic(path, bytes)
    }
}

/// Writes a report to `output` (or standard output) and returns the exit code.
pub fn emit_report(output: Option<&std::path::Path>, text: &str) -> i32 {
    let res = match output {
        Some(p) => write_output(p, text.as_bytes()),
        None => {
            let mut so = std::io::stdout().lock();
            so.write_all(text.as_bytes())
                .and_then(|_| so.flush())
                .map_err(Into::into)
        }
    };
    match res {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            EXIT_FAILURE
        }
    }
}

/// Adds the converted GraalVM profile (if any) to the merge of the LLVM inputs.
fn with_converted(
    merged: MergeOutput,
    converted: Option<&super::iprof::Converted>,
    plan: &options::Plan,
) -> crate::Result<MergeOutput> {
    let Some(c) = converted else {
        return Ok(merged);
    };
    if plan.inputs.is_empty() {
        let mut m = merged;
        m.inputs_merged = c.inputs_merged;
        return Ok(m);
    }
    let mut both = merge_profiles(
        &[
            (&merged.profile, Weight::ONE, Path::new("LLVM inputs")),
            (&c.profile, Weight::ONE, Path::new("iprof inputs")),
        ],
        &plan.merge,
    )?;
    both.warnings.splice(0..0, merged.warnings);
    both.skipped = merged.skipped;
    both.inputs_merged = merged.inputs_merged + c.inputs_merged;
    both.sole_input_indexed = false;
    Ok(both)
}

/// Runs a merge; returns the process exit code. Messages go to stderr.
pub fn run_merge(args: MergeArgs, mode: Mode) -> i32 {
    // GraalVM .iprof inputs or output take their own pipeline; iprof inputs for an LLVM
    // output come back merged and converted.
    let converted = match super::iprof::route(&args, mode) {
        super::iprof::Route::Done(code) => return code,
        super::iprof::Route::Llvm(c) => c,
    };
    let skip = converted.as_ref().map(|c| &c.paths);
    let mut plan = match options::plan_without(&args, mode == Mode::LlvmProfdata, skip) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("pgo-merge: error: {}", e.message);
            return if e.usage {
                mode.usage_code()
            } else {
                EXIT_FAILURE
            };
        }
    };
    if args.dump_input_file_list {
        for i in &plan.inputs {
            println!("{},{}", i.weight, i.path.display());
        }
        return EXIT_OK;
    }
    let bar = progress::Progress::new(plan.inputs.len(), args.no_progress || args.quiet);
    let tick = |n: usize| bar.set(n);
    let merged = match (&converted, plan.inputs.is_empty()) {
        (Some(c), true) => merge_profiles(
            &[(&c.profile, Weight::ONE, Path::new("iprof inputs"))],
            &plan.merge,
        ),
        _ => merge_files(&plan.inputs, &plan.merge, Some(&tick)),
    };
    bar.finish();
    let mut merged = match merged.and_then(|m| with_converted(m, converted.as_deref(), &plan)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    };
    if converted.is_some() {
        // The receiver-type names of converted iprof profiles are part of the mapping.
        plan.profdata.keep_vtable_symbols = true;
        plan.proftext.keep_vtable_symbols = true;
        if plan.output_format == OutputFormat::Profdata && plan.profdata.version < 12 && !args.quiet
        {
            eprintln!(
                "pgo-merge: iprof to LLVM: index version {} has no vtable-names section: the \
                 receiver types of virtual-invoke profiles are written as hashes only (use \
                 version 12 or later to keep their names)",
                plan.profdata.version
            );
        }
    }
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    if !args.quiet {
        for w in &merged.warnings {
            let _ = writeln!(err, "pgo-merge: warning: {w}");
        }
        for (_, e) in &merged.skipped {
            let _ = writeln!(err, "pgo-merge: warning: skipped: {e}");
        }
    }
    if plan.keep.is_some() || plan.drop.is_some() {
        let (removed, total) =
            filter::retain(&mut merged.profile, plan.keep.as_ref(), plan.drop.as_ref());
        let _ = writeln!(
            err,
            "{removed} of {total} functions in the original profile are filtered."
        );
    }
    let to_stdout = plan.output.as_os_str() == "-";
    let written = match plan.output_format {
        OutputFormat::Profdata => {
            let mut o = plan.profdata.clone();
            o.preserve_record_order = merged.sole_input_indexed;
            if to_stdout {
                profdata::write(&merged.profile, &o).and_then(|(bytes, warnings)| {
                    write_output(&plan.output, &bytes).map(|()| warnings)
                })
            } else {
                // Streamed to the file: the output is never held in memory as a whole.
                profdata::write_file(&merged.profile, &o, &plan.output)
            }
        }
        OutputFormat::Proftext => {
            let text = proftext::write(&merged.profile, &plan.proftext);
            write_output(&plan.output, text.as_bytes()).map(|()| Vec::new())
        }
    };
    match written {
        Ok(warnings) => {
            if !args.quiet {
                for w in &warnings {
                    let _ = writeln!(err, "pgo-merge: warning: {w}");
                }
            }
        }
        Err(e) => {
            let _ = writeln!(err, "pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    }
    if !args.quiet && mode == Mode::Native && plan.output.as_os_str() != "-" {
        let what = match plan.output_format {
            OutputFormat::Profdata => format!("indexed profile, version {}", plan.profdata.version),
            OutputFormat::Proftext => "text profile".into(),
        };
        let _ = writeln!(
            err,
            "pgo-merge: wrote {} ({what}; {} records from {} of {} inputs)",
            plan.output.display(),
            merged.profile.records.len(),
            merged.inputs_merged,
            plan.inputs.len() + converted.as_ref().map_or(0, |c| c.paths.len())
        );
    }
    EXIT_OK
}
