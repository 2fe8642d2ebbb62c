//! The iprof side of `pgo-merge [merge]`: merging GraalVM Native Image profiles.
//!
//! [`route`] decides, before the LLVM pipeline runs, whether a run is an iprof run: it is
//! when the output is `.iprof` (`-o x.iprof` or `--output-format iprof`) or any input is an
//! iprof profile (detected from content). Mixing iprof and LLVM inputs is an error for now.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::args::{FailureModeArg, MergeArgs, NormalizeArg, OutputFormatArg};
use super::options::{list_line, parse_weighted, push_found};
use super::{EXIT_FAILURE, EXIT_OK, Mode, progress};
use crate::backends::iprof as writer;
use crate::detect::FormatKind;
use crate::frontends::iprof::ReadOptions;
use crate::passes::convert::{ConvertReport, ToLlvmOptions, iprof_to_llvm, llvm_to_iprof};
use crate::passes::iprof_merge::{IprofMergeOptions, merge_iprof_files};
use crate::passes::normalise::NormalizeMode;
use crate::passes::trim::{ColdThreshold, TrimOptions};
use crate::passes::{FailureMode, InputSpec, Weight};

fn iprof_only_flags(a: &MergeArgs) -> Option<&'static str> {
    if a.normalize != NormalizeArg::None {
        Some("--normalize")
    } else if a.max_context_depth.is_some() {
        Some("--max-context-depth")
    } else if a.cold_threshold.is_some() {
        Some("--cold-threshold")
    } else if a.keep_all_symbols {
        Some("--keep-all-symbols")
    } else if a.lenient {
        Some("--lenient")
    } else if a.keep_contexts {
        Some("--keep-contexts")
    } else {
        None
    }
}

fn has_iprof_extension(p: &Path) -> bool {
    let name = p.to_string_lossy();
    name.ends_with(".iprof") || name.ends_with(".iprof.gz")
}

fn has_llvm_extension(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("profraw" | "profdata" | "proftext")
    )
}

fn walk(dir: &Path, with_llvm: bool, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, with_llvm, out)?;
        } else if has_iprof_extension(&path) || (with_llvm && has_llvm_extension(&path)) {
            out.push(path);
        }
    }
    Ok(())
}

/// Resolves the inputs of an iprof run (directories: `*.iprof` and `*.iprof.gz`, and with
/// `with_llvm` also `*.profraw`, `*.profdata` and `*.proftext`, sorted).
fn collect_inputs(a: &MergeArgs, with_llvm: bool) -> Result<Vec<InputSpec>, String> {
    let mut out = Vec::new();
    let mut add = |p: &Path, weight: Weight| -> Result<(), String> {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(p, with_llvm, &mut found).map_err(|e| format!("{}: {e}", p.display()))?;
            push_found(found, a.output.as_deref(), weight, &mut out);
        } else {
            out.push(InputSpec {
                path: p.to_path_buf(),
                weight,
            });
        }
        Ok(())
    };
    for p in &a.inputs {
        add(p, Weight::ONE)?;
    }
    for w in &a.weighted_inputs {
        let (weight, file) = parse_weighted(w)?;
        add(Path::new(file), weight)?;
    }
    for list in &a.input_files {
        // Only regular files: a pipe read here would be empty for the LLVM path's planner.
        if !std::fs::metadata(list).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let text = std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?;
        for (n, line) in text.lines().enumerate() {
            let Some((weight, file)) = list_line(line) else {
                continue;
            };
            add(Path::new(file), weight)
                .map_err(|e| format!("{}:{}: {e}", list.display(), n + 1))?;
        }
    }
    Ok(out)
}

/// The format of a file from its first bytes, or `None` if it cannot be read or is not a
/// regular file (sniffing a pipe would consume what the real reader needs).
fn sniff_file(p: &Path) -> Option<FormatKind> {
    if !std::fs::metadata(p).ok()?.is_file() {
        return None;
    }
    let mut f = std::fs::File::open(p).ok()?;
    let mut head = [0u8; 512];
    let mut n = 0;
    while n < head.len() {
        match std::io::Read::read(&mut f, head.get_mut(n..)?) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(_) => return None,
        }
    }
    Some(FormatKind::sniff(head.get(..n)?))
}

/// Where a merge run goes.
pub enum Route {
    /// Handled here; the exit code.
    Done(i32),
    /// An LLVM run, for the LLVM path; with the GraalVM inputs already merged and converted
    /// when the run converts iprof to an LLVM profile.
    Llvm(Option<Box<Converted>>),
}

/// GraalVM inputs merged and converted to an LLVM profile, to be merged with the LLVM
/// inputs of the run.
pub struct Converted {
    /// The converted profile.
    pub profile: crate::ir::Profile<'static>,
    /// The iprof input files (the LLVM path leaves them out).
    pub paths: std::collections::HashSet<PathBuf>,
    /// Inputs merged.
    pub inputs_merged: usize,
}

/// True if the arguments ask for an LLVM output (`--text`, `--output-format
/// profdata|proftext`, or an output named `.profdata`, `.proftext`, `.txt`).
fn explicit_llvm_output(a: &MergeArgs) -> bool {
    a.text
        || matches!(
            a.output_format,
            Some(OutputFormatArg::Profdata | OutputFormatArg::Proftext)
        )
        || a.output.as_deref().is_some_and(|o| {
            matches!(
                o.extension().and_then(|e| e.to_str()),
                Some("profdata" | "proftext" | "txt")
            )
        })
}

/// Decides whether a run is an iprof run, an LLVM run, or a conversion, and runs the iprof
/// side of it.
pub fn route(a: &MergeArgs, mode: Mode) -> Route {
    let out_iprof = a.output_format == Some(OutputFormatArg::Iprof)
        || a.output.as_deref().is_some_and(has_iprof_extension);
    let out_llvm = explicit_llvm_output(a);
    // LLVM runs pay nothing here for files named like LLVM profiles (a merge of thousands of
    // .profraw files does not open each one twice); other files are recognised by their
    // first bytes.
    let inputs = collect_inputs(a, false).unwrap_or_default();
    let kinds: Vec<Option<FormatKind>> = inputs
        .iter()
        .map(|i| {
            if has_llvm_extension(&i.path) {
                None
            } else {
                sniff_file(&i.path)
            }
        })
        .collect();
    let any_iprof = kinds.contains(&Some(FormatKind::Iprof));
    if !any_iprof && !out_iprof {
        if let Some(flag) = iprof_only_flags(a) {
            eprintln!(
                "pgo-merge: error: {flag} applies to GraalVM .iprof profiles only, and no input is one"
            );
            return Route::Done(mode.usage_code());
        }
        return Route::Llvm(None);
    }
    let usage = |msg: String| {
        eprintln!("pgo-merge: error: {msg}");
        Route::Done(mode.usage_code())
    };
    if out_iprof && out_llvm {
        return usage(
            "the output is both .iprof and an LLVM profile (--text, --output-format or the \
             output's name); choose one"
                .into(),
        );
    }
    let inputs = match collect_inputs(a, true) {
        Ok(i) => i,
        Err(e) => return usage(e),
    };
    let kinds: Vec<Option<FormatKind>> = inputs.iter().map(|i| sniff_file(&i.path)).collect();
    let any_llvm = kinds.iter().any(|k| *k != Some(FormatKind::Iprof));
    if out_iprof || (!out_llvm && !any_llvm) {
        return Route::Done(run(a, mode, inputs, &kinds));
    }
    if !out_llvm {
        return usage(
            "the inputs mix GraalVM .iprof and LLVM profiles: name the output format \
             (-o x.iprof, -o x.profdata, -o x.proftext or --output-format)"
                .into(),
        );
    }
    match convert_to_llvm(a, mode, &inputs, &kinds) {
        Ok(c) => Route::Llvm(Some(Box::new(c))),
        Err(code) => Route::Done(code),
    }
}

/// The iprof merge options of the arguments (with `trim` for the iprof side).
fn merge_options(a: &MergeArgs) -> Result<IprofMergeOptions, String> {
    let cold_threshold = match a.cold_threshold.as_deref().map(str::parse::<ColdThreshold>) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => return Err(format!("--cold-threshold: {e}")),
    };
    Ok(IprofMergeOptions {
        threads: a.threads,
        read: ReadOptions {
            lenient: a.lenient,
            referenced_symbols_only: false,
        },
        failure_mode: failure_mode(a),
        normalize: match a.normalize {
            NormalizeArg::None => NormalizeMode::None,
            NormalizeArg::Total => NormalizeMode::Total,
            NormalizeArg::Max => NormalizeMode::Max,
        },
        trim: TrimOptions {
            max_depth: a.max_context_depth,
            cold_threshold,
            sparse: a.sparse,
        },
        keep_all_symbols: a.keep_all_symbols,
    })
}

fn failure_mode(a: &MergeArgs) -> FailureMode {
    match a.failure_mode {
        FailureModeArg::Any => FailureMode::Any,
        FailureModeArg::All => FailureMode::All,
        FailureModeArg::Warn => FailureMode::Warn,
    }
}

/// Prints the warnings and skipped inputs of an iprof merge.
fn print_merge_messages(a: &MergeArgs, merged: &crate::passes::iprof_merge::IprofMergeOutput) {
    if a.quiet {
        return;
    }
    for w in &merged.warnings {
        eprintln!("pgo-merge: warning: {w}");
    }
    for (_, e) in &merged.skipped {
        eprintln!("pgo-merge: warning: skipped: {e}");
    }
}

/// Prints what a conversion could not carry.
fn print_report(a: &MergeArgs, what: &str, r: &ConvertReport) {
    if a.quiet {
        return;
    }
    for l in &r.lines {
        eprintln!("pgo-merge: {what}: {l}");
    }
}

/// Merges the GraalVM inputs and converts them for an LLVM output.
fn convert_to_llvm(
    a: &MergeArgs,
    mode: Mode,
    inputs: &[InputSpec],
    kinds: &[Option<FormatKind>],
) -> Result<Converted, i32> {
    let opts = merge_options(a).map_err(|e| {
        eprintln!("pgo-merge: error: {e}");
        mode.usage_code()
    })?;
    let iprof: Vec<InputSpec> = inputs
        .iter()
        .zip(kinds)
        .filter(|(_, k)| **k == Some(FormatKind::Iprof))
        .map(|(i, _)| i.clone())
        .collect();
    let merged = merge_iprof_files(&iprof, &opts, None).map_err(|e| {
        eprintln!("pgo-merge: error: {e}");
        EXIT_FAILURE
    })?;
    print_merge_messages(a, &merged);
    let (profile, report) = iprof_to_llvm(
        &merged.profile,
        &ToLlvmOptions {
            keep_contexts: a.keep_contexts,
        },
    );
    print_report(a, "iprof to LLVM", &report);
    Ok(Converted {
        profile,
        paths: iprof.into_iter().map(|i| i.path).collect(),
        inputs_merged: merged.inputs_merged,
    })
}

/// Merges LLVM inputs and converts them for an iprof output.
fn llvm_inputs_as_iprof(
    a: &MergeArgs,
    inputs: &[InputSpec],
) -> crate::Result<(crate::ir::iprof::IprofProfile, usize)> {
    let opts = crate::passes::MergeOptions {
        failure_mode: failure_mode(a),
        threads: a.threads,
        ..Default::default()
    };
    let merged = crate::passes::merge_files(inputs, &opts, None)?;
    if !a.quiet {
        for w in &merged.warnings {
            eprintln!("pgo-merge: warning: {w}");
        }
        for (_, e) in &merged.skipped {
            eprintln!("pgo-merge: warning: skipped: {e}");
        }
    }
    let (p, report) = llvm_to_iprof(&merged.profile);
    print_report(a, "LLVM to iprof", &report);
    Ok((p, merged.inputs_merged))
}

fn run(a: &MergeArgs, mode: Mode, inputs: Vec<InputSpec>, kinds: &[Option<FormatKind>]) -> i32 {
    let usage = |msg: String| {
        eprintln!("pgo-merge: error: {msg}");
        mode.usage_code()
    };
    if inputs.is_empty() {
        return usage("no input files".into());
    }
    let (iprof_inputs, llvm_inputs): (Vec<_>, Vec<_>) = inputs
        .iter()
        .zip(kinds)
        .partition(|(_, k)| **k == Some(FormatKind::Iprof));
    let iprof_inputs: Vec<InputSpec> = iprof_inputs.into_iter().map(|(i, _)| i.clone()).collect();
    let llvm_inputs: Vec<InputSpec> = llvm_inputs.into_iter().map(|(i, _)| i.clone()).collect();
    if a.format_version.is_some() || a.target_llvm.is_some() {
        return usage("--format-version and --target-llvm apply to LLVM outputs only".into());
    }
    let Some(output) = a.output.clone() else {
        return usage("an output file is required (-o FILE)".into());
    };
    if a.remapping_file.is_some() || a.function.is_some() || a.no_function.is_some() {
        return usage(
            "--remapping-file, --function and --no-function apply to LLVM outputs only".into(),
        );
    }
    let opts = match merge_options(a) {
        Ok(o) => o,
        Err(e) => return usage(e),
    };
    let bar = progress::Progress::new(iprof_inputs.len(), a.no_progress || a.quiet);
    let tick = |n: usize| bar.set(n);
    let merged = if iprof_inputs.is_empty() {
        Ok(crate::passes::iprof_merge::IprofMergeOutput::default())
    } else {
        merge_iprof_files(&iprof_inputs, &opts, Some(&tick))
    };
    bar.finish();
    let mut merged = match merged {
        Ok(m) => m,
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    };
    print_merge_messages(a, &merged);
    if !llvm_inputs.is_empty() {
        match llvm_inputs_as_iprof(a, &llvm_inputs) {
            Ok((p, n)) => {
                crate::passes::iprof_merge::merge_owned(
                    &mut merged.profile,
                    p,
                    &crate::passes::iprof_merge::InputScale::default(),
                );
                merged.profile = crate::passes::normalise::canonicalize_owned(
                    std::mem::take(&mut merged.profile),
                    a.keep_all_symbols,
                );
                merged.inputs_merged += n;
                merged.input_bytes += llvm_inputs
                    .iter()
                    .filter_map(|i| std::fs::metadata(&i.path).ok())
                    .map(|m| m.len())
                    .sum::<u64>();
            }
            Err(e) => {
                eprintln!("pgo-merge: error: {e}");
                return EXIT_FAILURE;
            }
        }
    }
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let written = match write_output(&output, &merged.profile) {
        Ok(n) => n,
        Err(e) => {
            let _ = writeln!(err, "pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    };
    if !a.quiet {
        let p = &merged.profile;
        let _ = writeln!(
            err,
            "pgo-merge: wrote {} (iprof {}; {} entries, {} methods, {} types from {} of {} inputs)",
            output.display(),
            writer::output_version(p),
            p.entry_count(),
            p.symbols.method_count(),
            p.symbols.type_count(),
            merged.inputs_merged,
            inputs.len()
        );
        let t = merged.trim;
        if opts.trim.is_active() {
            let _ = writeln!(
                err,
                "pgo-merge: trimmed: {} deep contexts shortened, {} cold contexts folded, {} zero entries dropped",
                t.folded_deep, t.folded_cold, t.dropped_zero
            );
        }
        let _ = writeln!(err, "pgo-merge: {}", merged.size_reduction(written));
    }
    EXIT_OK
}

/// Streams the profile to `path` (atomically: temporary file + rename) or to standard
/// output for `-`; returns the bytes written.
pub(crate) fn write_output(path: &Path, p: &crate::ir::iprof::IprofProfile) -> crate::Result<u64> {
    use crate::error::{Error, ErrorKind};
    let io = |e: std::io::Error| Error::new(ErrorKind::Io(e)).with_path(path);
    let mut counter = writer::CountingSink::default();
    if path.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut w = BufWriter::new(Tee(stdout.lock(), &mut counter));
        writer::write(p, &mut w).map_err(io)?;
        w.flush().map_err(io)?;
        drop(w);
        return Ok(counter.bytes);
    }
    crate::output::write_atomic_with(path, |f| {
        let mut w = BufWriter::with_capacity(1 << 16, Tee(f, &mut counter));
        writer::write(p, &mut w).map_err(io)?;
        w.flush().map_err(io)
    })?;
    Ok(counter.bytes)
}

/// Writes to `W` and counts the bytes.
struct Tee<'c, W: Write>(W, &'c mut writer::CountingSink);

impl<W: Write> Write for Tee<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
