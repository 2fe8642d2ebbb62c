//! The `overlap` job: llvm-profdata's overlap figures of two LLVM profiles, and the
//! functions whose share of the total count differs most.

use std::path::{Path, PathBuf};

use super::output::{self, Destination};
use super::request_error;
use crate::backends::overlap as overlap_report;
use crate::error::Result;
use crate::frontends::open::{FormatKind, InputFile, LlvmReader};
use crate::passes::Weight;
use crate::passes::merge::{FailureMode, MergeOptions, merge_profiles};
use crate::passes::overlap::{OverlapOptions, overlap as compare};

/// What to compare.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OverlapRequest {
    /// The base profile.
    pub base: PathBuf,
    /// The test profile.
    pub test: PathBuf,
    /// Compare context-sensitive records.
    pub cs: bool,
    /// Function-level figures for functions whose count is at least this.
    pub value_cutoff: Option<u64>,
    /// Function-level figures for functions whose name contains this.
    pub function: Option<String>,
    /// How many of the largest differences to list (never in llvm-profdata mode).
    pub top_differences: usize,
    /// Where the report goes (`None` or `-`: standard output).
    pub output: Option<PathBuf>,
    /// llvm-profdata's output exactly.
    pub llvm_profdata: bool,
    /// The llvm-profdata release whose text to print (the drop-in's); None for the newest.
    pub llvm_release: Option<u32>,
    /// A JSON document instead of text: `schemas/overlap.schema.json` for LLVM
    /// instrumentation profiles, `schemas/bolt-overlap.schema.json` for BOLT profiles.
    pub json: bool,
}

/// Refuses an output that is `base` or `test` (by name or, through other names, as the same
/// file): the report would replace the profile it describes. llvm-profdata truncates the
/// base before it reads it; `show` refuses such an output in both tools.
pub(crate) fn refuse_output_input(base: &Path, test: &Path, output: Option<&Path>) -> Result<()> {
    let Some(o) = output.filter(|o| o.as_os_str() != "-") else {
        return Ok(());
    };
    match [base, test]
        .into_iter()
        .find(|i| super::inputs::same_file(i, o))
    {
        Some(same) => Err(request_error(format!(
            "{}: Input file name cannot be the same as the output file name!",
            same.display()
        ))),
        None => Ok(()),
    }
}

/// Compares the two profiles of `r` and writes the report.
pub fn overlap(r: &OverlapRequest) -> Result<()> {
    refuse_output_input(&r.base, &r.test, r.output.as_deref())?;
    #[cfg(not(feature = "json"))]
    if r.json {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::FeatureDisabled {
                what: "JSON output",
                feature: "json",
            },
        ));
    }
    let reader = LlvmReader::new();
    let bf = InputFile::open(&r.base)?.inflated()?;
    let tf = InputFile::open(&r.test)?.inflated()?;
    for f in [&bf, &tf] {
        FormatKind::sniff(f.bytes()).check_feature(f.bytes())?;
    }
    #[cfg(feature = "bolt")]
    if super::bolt_show::sniff(bf.bytes()).is_some()
        || super::bolt_show::sniff(tf.bytes()).is_some()
    {
        return overlap_bolt(r, &bf, &tf);
    }
    let b = reader.read(bf.bytes()).map_err(|e| bf.or_changed(e))?;
    let t = reader.read(tf.bytes()).map_err(|e| tf.or_changed(e))?;
    // llvm-profdata loads the base into a writer, which merges records sharing a key.
    let merged = merge_profiles(
        &[(&b.profile, Weight::ONE, r.base.as_path())],
        &MergeOptions {
            threads: 1,
            failure_mode: FailureMode::Warn,
            ..MergeOptions::default()
        },
    )?
    .profile;
    let opts = OverlapOptions {
        cs: r.cs,
        value_cutoff: r.value_cutoff.unwrap_or(u64::MAX),
        name_filter: r.function.clone(),
    };
    let res = compare(&merged, &t.profile, &opts);
    // The comparison read both files' bytes: they must still be the files'.
    bf.check_unchanged()?;
    tf.check_unchanged()?;
    let base_name = r.base.display().to_string();
    let test_name = r.test.display().to_string();
    let report = overlap_report::OverlapReport {
        base_name: &base_name,
        test_name: &test_name,
        program: &res.program,
        functions: &res.functions,
        zero_side: res.zero_side,
        differences: &res.differences,
        // llvm-profdata's report has no such list.
        top_differences: if r.llvm_profdata {
            0
        } else {
            r.top_differences
        },
        #[cfg(feature = "json")]
        context_sensitive: r.cs,
        llvm_release: r.llvm_release,
    };
    #[cfg(feature = "json")]
    let out = if r.json {
        json_text(&overlap_report::json(&report))
    } else {
        overlap_report::text(&report)
    };
    #[cfg(not(feature = "json"))]
    let out = overlap_report::text(&report);
    let dest = Destination::of(r.output.as_deref().unwrap_or(std::path::Path::new("-")));
    output::write_bytes(&dest, out.as_bytes())
}

/// A JSON document as written: pretty-printed, with a final newline.
#[cfg(feature = "json")]
pub(crate) fn json_text(v: &serde_json::Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    s
}

/// `overlap` of two BOLT profiles (fdata or YAML): the report of `pipeline::bolt_show`.
#[cfg(feature = "bolt")]
fn overlap_bolt(r: &OverlapRequest, bf: &InputFile, tf: &InputFile) -> Result<()> {
    if r.cs {
        return Err(request_error(
            "--cs applies to LLVM profiles, not to BOLT profiles",
        ));
    }
    let out = super::bolt_show::overlap(&super::bolt_show::BoltOverlapRequest {
        base: (r.base.as_path(), bf.bytes()),
        test: (r.test.as_path(), tf.bytes()),
        function: r.function.as_deref(),
        value_cutoff: r.value_cutoff,
        top_differences: r.top_differences,
        json: r.json,
    })
    // A file that changed while it was read: that, rather than what its bytes gave.
    .map_err(|e| match e.path() {
        Some(p) if p == r.test.as_path() => tf.or_changed(e),
        Some(_) => bf.or_changed(e),
        None => e,
    })?;
    // The report was made from both files' bytes: they must still be the files'.
    bf.check_unchanged()?;
    tf.check_unchanged()?;
    let dest = Destination::of(r.output.as_deref().unwrap_or(Path::new("-")));
    output::write_bytes(&dest, out.as_bytes())
}
