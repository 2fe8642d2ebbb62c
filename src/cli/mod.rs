//! The command-line front end: argument parsing (`args`), turning arguments into library
//! options (`options`), and the progress bar (`progress`).

pub mod args;
pub mod options;
pub mod progress;

use std::io::Write;

use crate::backends::{profdata, proftext};
use crate::output::write_atomic;
use crate::passes::merge_files;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code when the work failed (bad input, conflict, I/O error).
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for a usage error (bad options).
pub const EXIT_USAGE: i32 = 2;

/// Runs the merge command; returns the process exit code. Messages go to stderr.
pub fn run_merge(args: args::MergeArgs) -> i32 {
    let plan = match options::plan(&args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            return EXIT_USAGE;
        }
    };
    let bar = progress::Progress::new(plan.inputs.len(), args.no_progress || args.quiet);
    let tick = |n: usize| bar.set(n);
    let merged = match merge_files(&plan.inputs, &plan.merge, Some(&tick)) {
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
    let (bytes, warnings) = match plan.output_format {
        options::OutputFormat::Profdata => match profdata::write(&merged.profile, &plan.profdata) {
            Ok(x) => x,
            Err(e) => {
                let _ = writeln!(err, "pgo-merge: error: {e}");
                return EXIT_FAILURE;
            }
        },
        options::OutputFormat::Proftext => (
            proftext::write(&merged.profile, &plan.proftext).into_bytes(),
            Vec::new(),
        ),
    };
    if !args.quiet {
        for w in &warnings {
            let _ = writeln!(err, "pgo-merge: warning: {w}");
        }
    }
    if let Err(e) = write_atomic(&plan.output, &bytes) {
        let _ = writeln!(err, "pgo-merge: error: {e}");
        return EXIT_FAILURE;
    }
    if !args.quiet {
        let what = match plan.output_format {
            options::OutputFormat::Profdata => {
                format!("indexed profile, version {}", plan.profdata.version)
            }
            options::OutputFormat::Proftext => "text profile".into(),
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
