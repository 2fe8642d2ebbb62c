//! `pgo-merge [merge]`: merge profiles and write the result.

use std::io::Write;

use super::args::MergeArgs;
use super::options::{self, OutputFormat};
use super::{EXIT_FAILURE, EXIT_OK, Mode, progress};
use crate::backends::{profdata, proftext};
use crate::output::write_atomic;
use crate::passes::{filter, merge_files};

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

/// Runs a merge; returns the process exit code. Messages go to stderr.
pub fn run_merge(args: MergeArgs, mode: Mode) -> i32 {
    // GraalVM .iprof inputs or output take their own pipeline.
    if let Some(code) = super::iprof::route(&args, mode) {
        return code;
    }
    let plan = match options::plan(&args, mode == Mode::LlvmProfdata) {
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
    let mut merged = match merge_files(&plan.inputs, &plan.merge, Some(&tick)) {
        Ok(m) => m,
        Err(e) => {
            bar.finish();
            eprintln!("pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    };
    bar.finish();
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
    let (bytes, warnings) = match plan.output_format {
        OutputFormat::Profdata => {
            let mut o = plan.profdata.clone();
            o.preserve_record_order = merged.sole_input_indexed;
            match profdata::write(&merged.profile, &o) {
                Ok(x) => x,
                Err(e) => {
                    let _ = writeln!(err, "pgo-merge: error: {e}");
                    return EXIT_FAILURE;
                }
            }
        }
        OutputFormat::Proftext => (
            proftext::write(&merged.profile, &plan.proftext).into_bytes(),
            Vec::new(),
        ),
    };
    if !args.quiet {
        for w in &warnings {
            let _ = writeln!(err, "pgo-merge: warning: {w}");
        }
    }
    if let Err(e) = write_output(&plan.output, &bytes) {
        let _ = writeln!(err, "pgo-merge: error: {e}");
        return EXIT_FAILURE;
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
            plan.inputs.len()
        );
    }
    EXIT_OK
}
