//! The iprof side of `pgo-merge [merge]`: merging GraalVM Native Image profiles.
//!
//! [`route`] decides, before the LLVM pipeline runs, whether a run is an iprof run: it is
//! when the output is `.iprof` (`-o x.iprof` or `--output-format iprof`) or any input is an
//! iprof profile (detected from content). Mixing iprof and LLVM inputs is an error for now.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::args::{FailureModeArg, MergeArgs, NormalizeArg, OutputFormatArg};
use super::options::parse_weighted;
use super::{EXIT_FAILURE, EXIT_OK, Mode, progress};
use crate::backends::iprof as writer;
use crate::detect::FormatKind;
use crate::frontends::iprof::ReadOptions;
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
    } else {
        None
    }
}

fn has_iprof_extension(p: &Path) -> bool {
    let name = p.to_string_lossy();
    name.ends_with(".iprof") || name.ends_with(".iprof.gz")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            walk(&path, out)?;
        } else if has_iprof_extension(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// Resolves the inputs of an iprof run (directories: `*.iprof` and `*.iprof.gz`, sorted).
fn collect_inputs(a: &MergeArgs) -> Result<Vec<InputSpec>, String> {
    let mut out = Vec::new();
    let mut add = |p: &Path, weight: Weight| -> Result<(), String> {
        let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found).map_err(|e| format!("{}: {e}", p.display()))?;
            found.sort();
            let out_canon = a
                .output
                .as_ref()
                .and_then(|o| std::fs::canonicalize(o).ok());
            for f in found {
                if out_canon.is_some() && std::fs::canonicalize(&f).ok() == out_canon {
                    continue;
                }
                out.push(InputSpec { path: f, weight });
            }
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
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (weight, file) = match line.split_once(',') {
                Some((w, f)) if w.trim().parse::<Weight>().is_ok() => (
                    w.trim().parse::<Weight>().map_err(|e| e.to_string())?,
                    f.trim(),
                ),
                _ => (Weight::ONE, line),
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

/// Runs the iprof pipeline if this is an iprof run; `None` hands the run to the LLVM path.
pub fn route(a: &MergeArgs, mode: Mode) -> Option<i32> {
    let out_iprof = a.output_format == Some(OutputFormatArg::Iprof)
        || a.output.as_deref().is_some_and(has_iprof_extension);
    // Only look at inputs when something hints at iprof: LLVM runs are left untouched.
    let inputs = collect_inputs(a).unwrap_or_default();
    let kinds: Vec<Option<FormatKind>> = inputs.iter().map(|i| sniff_file(&i.path)).collect();
    let any_iprof = kinds.contains(&Some(FormatKind::Iprof));
    if !any_iprof && !out_iprof {
        if let Some(flag) = iprof_only_flags(a) {
            eprintln!(
                "pgo-merge: error: {flag} applies to GraalVM .iprof profiles only, and no input is one"
            );
            return Some(mode.usage_code());
        }
        return None;
    }
    Some(run(a, mode, out_iprof, inputs, &kinds))
}

fn run(
    a: &MergeArgs,
    mode: Mode,
    out_iprof: bool,
    inputs: Vec<InputSpec>,
    kinds: &[Option<FormatKind>],
) -> i32 {
    let usage = |msg: String| {
        eprintln!("pgo-merge: error: {msg}");
        mode.usage_code()
    };
    if let Err(e) = collect_inputs(a) {
        return usage(e);
    }
    if inputs.is_empty() {
        return usage("no input files".into());
    }
    for (i, k) in inputs.iter().zip(kinds) {
        match k {
            Some(FormatKind::Iprof) => {}
            Some(other) => {
                eprintln!(
                    "pgo-merge: error: {}: this is an LLVM {}, not a GraalVM .iprof profile; \
                     iprof and LLVM profiles cannot be merged together (converting between them \
                     is not implemented yet)",
                    i.path.display(),
                    other.name()
                );
                return EXIT_FAILURE;
            }
            None => {}
        }
    }
    if !out_iprof {
        let explicit_llvm = a.text
            || matches!(
                a.output_format,
                Some(OutputFormatArg::Profdata | OutputFormatArg::Proftext)
            )
            || a.output.as_deref().is_some_and(|o| {
                matches!(
                    o.extension().and_then(|e| e.to_str()),
                    Some("profdata" | "proftext" | "txt")
                )
            });
        if explicit_llvm {
            eprintln!(
                "pgo-merge: error: the inputs are GraalVM .iprof profiles; they can only be \
                 written as .iprof (converting them to LLVM profiles is not implemented yet)"
            );
            return EXIT_FAILURE;
        }
    }
    if a.format_version.is_some() || a.target_llvm.is_some() {
        return usage("--format-version and --target-llvm apply to LLVM outputs only".into());
    }
    let Some(output) = a.output.clone() else {
        return usage("an output file is required (-o FILE)".into());
    };
    let cold_threshold = match a.cold_threshold.as_deref().map(str::parse::<ColdThreshold>) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => return usage(format!("--cold-threshold: {e}")),
    };
    let opts = IprofMergeOptions {
        threads: a.threads,
        read: ReadOptions {
            lenient: a.lenient,
            referenced_symbols_only: false,
        },
        failure_mode: match a.failure_mode {
            FailureModeArg::Any => FailureMode::Any,
            FailureModeArg::All => FailureMode::All,
            FailureModeArg::Warn => FailureMode::Warn,
        },
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
    };
    let bar = progress::Progress::new(inputs.len(), a.no_progress || a.quiet);
    let tick = |n: usize| bar.set(n);
    let merged = merge_iprof_files(&inputs, &opts, Some(&tick));
    bar.finish();
    let merged = match merged {
        Ok(m) => m,
        Err(e) => {
            eprintln!("pgo-merge: error: {e}");
            return EXIT_FAILURE;
        }
    };
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    if !a.quiet {
        for w in &merged.warnings {
            let _ = writeln!(err, "pgo-merge: warning: {w}");
        }
        for (_, e) in &merged.skipped {
            let _ = writeln!(err, "pgo-merge: warning: skipped: {e}");
        }
    }
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
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".pgo-merge-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io)?;
    {
        let mut w = BufWriter::with_capacity(1 << 16, Tee(tmp.as_file(), &mut counter));
        writer::write(p, &mut w).map_err(io)?;
        w.flush().map_err(io)?;
    }
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
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
