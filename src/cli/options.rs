//! Turns command-line arguments into library options: resolves inputs (files, directories,
//! list files, weights) and the output format and version.

use std::path::{Path, PathBuf};

use super::args::{FailureModeArg, MergeArgs, OutputFormatArg};
use crate::backends::profdata::{self, ProfdataOptions};
use crate::backends::proftext::ProftextOptions;
use crate::passes::remap::Remapping;
use crate::passes::{FailureMode, InputSpec, MergeOptions, Weight, filter};

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Indexed profile.
    Profdata,
    /// Text profile.
    Proftext,
}

/// Everything a merge run needs.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Inputs in order.
    pub inputs: Vec<InputSpec>,
    /// Output path.
    pub output: PathBuf,
    /// Output format.
    pub output_format: OutputFormat,
    /// Merge options.
    pub merge: MergeOptions,
    /// Indexed-writer options.
    pub profdata: ProfdataOptions,
    /// Text-writer options.
    pub proftext: ProftextOptions,
    /// `--function`: names to keep.
    pub keep: Option<regex::Regex>,
    /// `--no-function`: names to drop.
    pub drop: Option<regex::Regex>,
}

/// Why a plan could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError {
    /// The message.
    pub message: String,
    /// True for a usage error (exit 2), false for an unusable input (exit 1).
    pub usage: bool,
}

impl From<String> for PlanError {
    fn from(message: String) -> Self {
        PlanError {
            message,
            usage: true,
        }
    }
}

impl From<&str> for PlanError {
    fn from(message: &str) -> Self {
        PlanError {
            message: message.into(),
            usage: true,
        }
    }
}

fn input_error(message: String) -> PlanError {
    PlanError {
        message,
        usage: false,
    }
}

/// Resolves arguments into a plan, or explains what is wrong with them. `llvm_mode` is true
/// when running as `llvm-profdata` (standard output is then the default output).
pub fn plan(a: &MergeArgs, llvm_mode: bool) -> Result<Plan, PlanError> {
    plan_without(a, llvm_mode, None)
}

/// [`plan`], leaving out the files in `converted` (GraalVM inputs already merged and
/// converted by the caller); then a directory holding only such files is not an error, and
/// the plan may have no inputs.
pub fn plan_without(
    a: &MergeArgs,
    llvm_mode: bool,
    converted: Option<&std::collections::HashSet<PathBuf>>,
) -> Result<Plan, PlanError> {
    let output = match &a.output {
        Some(o) => o.clone(),
        None if llvm_mode || a.dump_input_file_list => PathBuf::from("-"),
        None => {
            return Err("the following required argument was not provided: --output <FILE>".into());
        }
    };
    let mut inputs = Vec::new();
    let tolerate = converted.is_some();
    for p in &a.inputs {
        add_path(p, Weight::ONE, &output, llvm_mode, tolerate, &mut inputs)?;
    }
    for w in &a.weighted_inputs {
        let (weight, file) = parse_weighted(w).map_err(PlanError::from)?;
        add_path(
            Path::new(file),
            weight,
            &output,
            llvm_mode,
            tolerate,
            &mut inputs,
        )?;
    }
    for list in &a.input_files {
        let text = std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?;
        for (n, line) in text.lines().enumerate() {
            let Some((weight, file)) = list_line(line) else {
                continue;
            };
            add_path(
                Path::new(file),
                weight,
                &output,
                llvm_mode,
                tolerate,
                &mut inputs,
            )
            .map_err(|e| PlanError {
                message: format!("{}:{}: {}", list.display(), n + 1, e.message),
                usage: e.usage,
            })?;
        }
    }
    if let Some(skip) = converted {
        inputs.retain(|i| !skip.contains(&i.path));
    }
    if inputs.is_empty() && !a.dump_input_file_list && converted.is_none() {
        return Err("no input files".into());
    }
    let remapping = match &a.remapping_file {
        Some(f) => {
            let text = std::fs::read_to_string(f)
                .map_err(|e| input_error(format!("{}: {e}", f.display())))?;
            Some(std::sync::Arc::new(
                Remapping::parse(&text).map_err(|e| input_error(e.with_path(f).to_string()))?,
            ))
        }
        None => None,
    };

    let output_format = if a.text {
        OutputFormat::Proftext
    } else {
        match a.output_format {
            Some(OutputFormatArg::Profdata) => OutputFormat::Profdata,
            Some(OutputFormatArg::Proftext) => OutputFormat::Proftext,
            // iprof runs are routed to cli::iprof before planning; LLVM inputs cannot be
            // converted to iprof yet.
            Some(OutputFormatArg::Iprof) => {
                return Err(
                    "--output-format iprof needs GraalVM .iprof inputs; converting LLVM \
                            profiles to iprof is not implemented yet"
                        .into(),
                );
            }
            // llvm-profdata writes an indexed profile whatever the output is called; natively
            // a `.proftext`/`.txt` output name asks for text.
            None if llvm_mode => OutputFormat::Profdata,
            None => match output.extension().and_then(|e| e.to_str()) {
                Some("proftext") | Some("txt") => OutputFormat::Proftext,
                _ => OutputFormat::Profdata,
            },
        }
    };
    let version = match (a.format_version, a.target_llvm) {
        _ if a.write_prev_version => 11,
        (Some(v), _) => {
            if !(profdata::OLDEST_WRITTEN..=profdata::NEWEST_WRITTEN).contains(&v) {
                return Err(format!(
                    "--format-version {v}: this build writes index versions {} to {}",
                    profdata::OLDEST_WRITTEN,
                    profdata::NEWEST_WRITTEN
                )
                .into());
            }
            v
        }
        (None, Some(m)) => profdata::version_for_llvm(m).ok_or_else(|| {
            format!("--target-llvm {m}: LLVM {m} reads index versions older than 7, which this build does not write (LLVM 12 or later is needed)")
        })?,
        (None, None) => profdata::DEFAULT_VERSION,
    };
    Ok(Plan {
        inputs,
        output,
        output_format,
        merge: MergeOptions {
            failure_mode: match a.failure_mode {
                FailureModeArg::Any => FailureMode::Any,
                FailureModeArg::All => FailureMode::All,
                FailureModeArg::Warn => FailureMode::Warn,
            },
            threads: a.threads,
            window: 0,
            weight_all_values: a.weight_all_values,
            temporal_reservoir_size: a.temporal_reservoir_size,
            temporal_max_trace_length: a.temporal_max_trace_length,
            remapping,
            raw_layouts: true,
        },
        profdata: ProfdataOptions {
            version,
            sparse: a.sparse,
            keep_vtable_symbols: a.keep_vtable_symbols,
            preserve_record_order: false,
        },
        proftext: ProftextOptions {
            sparse: a.sparse,
            keep_vtable_symbols: a.keep_vtable_symbols,
            llvm_compatible: a.llvm_compatible || llvm_mode,
        },
        keep: a
            .function
            .as_deref()
            .map(filter::compile)
            .transpose()
            .map_err(|e| PlanError::from(e.to_string()))?,
        drop: a
            .no_function
            .as_deref()
            .map(filter::compile)
            .transpose()
            .map_err(|e| PlanError::from(e.to_string()))?,
    })
}

/// One line of an input list (`-f FILE`): `None` for a blank line or a `#` comment, else
/// the weight (1 unless the line is `W,FILE` with a valid weight) and the file.
pub fn list_line(line: &str) -> Option<(Weight, &str)> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    Some(match line.split_once(',') {
        Some((w, f)) => match w.trim().parse::<Weight>() {
            Ok(weight) => (weight, f.trim()),
            Err(_) => (Weight::ONE, line),
        },
        None => (Weight::ONE, line),
    })
}

/// Adds the files found in a directory to `out`, sorted, leaving out `output` (a merge
/// never reads the file it is about to replace).
pub fn push_found(
    mut found: Vec<PathBuf>,
    output: Option<&Path>,
    weight: Weight,
    out: &mut Vec<InputSpec>,
) {
    found.sort();
    let out_canon = output.and_then(|o| std::fs::canonicalize(o).ok());
    for f in found {
        if out_canon.is_some() && std::fs::canonicalize(&f).ok() == out_canon {
            continue;
        }
        out.push(InputSpec { path: f, weight });
    }
}

/// Parses `W,FILE`.
pub fn parse_weighted(s: &str) -> Result<(Weight, &str), String> {
    let (w, f) = s
        .split_once(',')
        .ok_or_else(|| format!("--weighted-input {s:?}: expected W,FILE"))?;
    let weight = w
        .trim()
        .parse::<Weight>()
        .map_err(|e| format!("--weighted-input {s:?}: {e}"))?;
    if f.is_empty() {
        return Err(format!("--weighted-input {s:?}: the file name is empty"));
    }
    Ok((weight, f))
}

/// Adds `p` to `out`. A directory contributes the files under it, recursively, sorted by
/// path, except the output itself: natively its `.profraw` and `.profdata` files (an empty
/// result is an error), as llvm-profdata (`every_file`) all its regular files.
/// `tolerate_empty`: a directory without LLVM profiles is not an error (its GraalVM profiles
/// were taken elsewhere).
fn add_path(
    p: &Path,
    weight: Weight,
    output: &Path,
    every_file: bool,
    tolerate_empty: bool,
    out: &mut Vec<InputSpec>,
) -> Result<(), PlanError> {
    let meta = std::fs::metadata(p).map_err(|e| input_error(format!("{}: {e}", p.display())))?;
    if meta.is_dir() {
        let mut found = Vec::new();
        walk(p, every_file, &mut found)
            .map_err(|e| input_error(format!("{}: {e}", p.display())))?;
        if found.is_empty() && !every_file && !tolerate_empty {
            return Err(input_error(format!(
                "{}: the directory holds no .profraw or .profdata files",
                p.display()
            )));
        }
        push_found(found, Some(output), weight, out);
    } else {
        out.push(InputSpec {
            path: p.to_path_buf(),
            weight,
        });
    }
    Ok(())
}

fn walk(dir: &Path, every_file: bool, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&path, every_file, out)?;
        } else if every_file {
            // As llvm-profdata: every regular file, links to files included. Links to
            // directories are not followed (a link cycle would never end).
            if ft.is_file() || std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                out.push(path);
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("profraw") | Some("profdata")
        ) {
            // Anything named like a profile is taken, so that a link to a directory or a
            // special file named `x.profraw` is reported by name instead of silently skipped.
            out.push(path);
        }
    }
    Ok(())
}
