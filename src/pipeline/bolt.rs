//! Merging BOLT profiles in the legacy `fdata` format, natively (`pgo-merge a.fdata b.fdata
//! -o merged.fdata`) and as the `merge-fdata` drop-in.
//!
//! Every worker thread takes the next input not yet taken, maps it and folds its lines into
//! one shared accumulator ([`FdataMerge`]: names interned once, keys in hash shards behind
//! their own locks, one set of shards per mode — LBR or `no_lbr`, `boltedcollection` or
//! not); the shards of the chosen mode are then sorted and written in the byte order of the
//! keys' text. So memory grows with the distinct keys and names, never with the number of
//! files or threads, and the output is the same bytes for any thread count and any input
//! order.
//!
//! The mode is that of the first input (in input order) that has lines; an input of another
//! mode is a conflict, as it is for `merge-fdata`. Under [`FailureMode::Warn`] and
//! [`FailureMode::All`] a bad or conflicting input is skipped whole (each input is checked
//! before it is folded) and reported with the line at fault and the counts it held before it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::inputs::{Collect, Collected, Collector, Select, Sources};
use super::output::{Destination, write_stream};
use super::{InputSpec, Message, Progress, request_error};
use crate::backends::bolt::{write_fdata, write_yaml};
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::open::{
    FdataReader, looks_like_bolt_profile, looks_like_bolt_yaml, read_bolt_yaml,
};
use crate::ir::Weight;
pub use crate::ir::bolt::{FdataMode, FdataSemantics};
use crate::passes::FailureMode;
use crate::passes::bolt_merge::{FdataFolder, FdataMerge};
use crate::passes::bolt_yaml_merge::YamlMerger;
use crate::sys::threads::{self, Workers};

/// A merge of fdata profiles.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FdataMergeRequest {
    /// Files or directories, weight 1.
    pub inputs: Vec<PathBuf>,
    /// Weighted files or directories.
    pub weighted_inputs: Vec<(Weight, PathBuf)>,
    /// Files listing inputs, one `FILE` or `W,FILE` per line.
    pub input_lists: Vec<PathBuf>,
    /// Where the merged profile goes; `None` or `-` is standard output.
    pub output: Option<PathBuf>,
    /// Whose `merge-fdata` to follow.
    pub semantics: FdataSemantics,
    /// What to do with unusable inputs.
    pub failure_mode: FailureMode,
    /// Worker threads (0 = one per core); the output does not depend on it.
    pub threads: usize,
    /// Take every regular file of a directory (`merge-fdata`'s rule), not only `*.fdata`.
    pub every_file: bool,
    /// Write the merged profile (false: only check and merge, `merge-fdata -q`).
    pub write: bool,
}

impl Default for FdataMergeRequest {
    fn default() -> Self {
        FdataMergeRequest {
            inputs: Vec::new(),
            weighted_inputs: Vec::new(),
            input_lists: Vec::new(),
            output: None,
            semantics: FdataSemantics::Llvm20,
            failure_mode: FailureMode::Any,
            threads: 0,
            every_file: false,
            write: true,
        }
    }
}

/// Which of BOLT's formats a merge read and wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BoltFormat {
    /// The legacy fdata text.
    Fdata,
    /// YAML (`llvm-bolt -w`).
    Yaml,
}

/// The result of a merge of BOLT profiles.
#[derive(Debug)]
#[non_exhaustive]
pub struct FdataMergeOutcome {
    /// The format merged (that of the first input).
    pub format: BoltFormat,
    /// Where the output went (`-` for standard output).
    pub output: PathBuf,
    /// The merged profile's mode.
    pub mode: FdataMode,
    /// Record lines (fdata) or functions (YAML) written (or that would have been, without
    /// [`FdataMergeRequest::write`]).
    pub lines: usize,
    /// YAML: each function's name, execution count and total branch count (the successor
    /// counts of its blocks), for `merge-fdata --print`.
    pub functions: Vec<(String, u64, u64)>,
    /// The inputs, in order (directories walked).
    pub inputs: Vec<PathBuf>,
    /// Inputs merged (empty ones included).
    pub inputs_merged: usize,
    /// Inputs there were (merged or skipped).
    pub inputs_total: usize,
    /// Warnings and skipped inputs, in input order.
    pub messages: Vec<Message>,
}

/// True for a name ending in `.fdata`.
pub fn has_fdata_extension(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "fdata")
}

/// True if `p` is a regular file whose first bytes look like a BOLT profile: fdata (a
/// header line, or a record starting with a location type) or YAML as LLVM writes it
/// (`---` then `header:`).
pub fn looks_like_fdata_file(p: &Path) -> bool {
    use std::io::Read;
    // Only a regular file is looked into, opened without waiting: opening a FIFO named as
    // an input would wait for a writer, and reading it would take bytes the merge needs.
    if !std::fs::metadata(p).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let Ok(f) = options.open(p) else {
        return false;
    };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 32];
    let mut n = 0;
    let mut f = f;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    looks_like_bolt_profile(&head[..n])
}

/// What became of one input.
enum FileResult {
    /// Folded into the accumulator of this mode; the event names of its `no_lbr` line.
    Folded(FdataMode, Vec<u8>),
    /// No record lines: nothing to fold; the mode and event names of its header lines.
    Empty(FdataMode, Vec<u8>),
    /// Not usable: why, and what it held before the fault (lines, counts).
    Failed(Error, Option<(u64, u64)>),
}

/// Inputs up to this size are checked while they are folded (their lines are held until
/// the last one reads); bigger ones are checked in a pass of their own first, so that what
/// is held never grows with an input.
const CHECK_WHILE_FOLDING: usize = 8 << 20;

/// Merges fdata profiles as `r` asks and writes the result.
pub fn merge_fdata(r: &FdataMergeRequest, progress: &dyn Progress) -> Result<FdataMergeOutcome> {
    let Collected {
        inputs,
        warnings: mut messages,
    } = collect(r)?;
    if inputs.is_empty() {
        return Err(request_error("no fdata inputs to merge"));
    }
    if first_is_yaml(&inputs[0]) {
        return merge_yaml(r, inputs, messages, progress);
    }
    let (workers, warnings) = Workers::start(r.threads);
    messages.extend(warnings.into_iter().map(Message::Warning));
    progress.start(inputs.len());
    let validate = r.failure_mode != FailureMode::Any;
    let merge = FdataMerge::new(r.semantics);
    let results = workers.install(|| fold_all(&inputs, &merge, validate, progress))?;
    progress.finish();
    let (mode, merged, events) = judge(r, &inputs, results, &mut messages)?;
    if merge.saturated() {
        messages.push(Message::Warning(Warning::new(
            "some counts reached 2^64 - 1 and stopped there (saturated)",
        )));
    }
    let mut profile = workers.install(|| merge.finish(mode))?;
    if r.semantics.keeps_event_names() {
        profile.events = events.into_iter().collect();
    }
    let output = r.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    if r.write {
        workers.install(|| write_out(&output, |w| write_fdata(&profile, w)))?;
    }
    Ok(FdataMergeOutcome {
        format: BoltFormat::Fdata,
        functions: Vec::new(),
        output,
        mode,
        lines: profile.len(),
        inputs_merged: merged,
        inputs_total: inputs.len(),
        inputs: inputs.iter().map(|i| i.path.clone()).collect(),
        messages,
    })
}

/// The inputs of `r`, directories walked.
fn collect(r: &FdataMergeRequest) -> Result<Collected> {
    let sources = Sources {
        inputs: r.inputs.clone(),
        weighted: r.weighted_inputs.clone(),
        lists: r.input_lists.clone(),
    };
    let how = Collect {
        select: if r.every_file {
            Select::EveryFile
        } else {
            Select::Fdata
        },
        output: r.output.as_deref(),
        require_found: false,
        regular_lists_only: false,
        missing_to_merge: r.failure_mode != FailureMode::Any,
        family: None,
    };
    Collector::new().collect(&sources, &how)
}

/// Folds every input into `merge`, each worker thread taking the next input not yet
/// taken; what became of each, in input order (an error: memory refused while adding
/// lines).
fn fold_all(
    inputs: &[InputSpec],
    merge: &FdataMerge,
    validate: bool,
    progress: &dyn Progress,
) -> Result<Vec<FileResult>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let workers = vec![(); threads::current().clamp(1, inputs.len().max(1))];
    let per_worker = threads::map(&workers, 1, |_, _| {
        let mut folder = merge.folder();
        let mut out = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(spec) = inputs.get(i) else {
                return folder.finish().map(|()| out);
            };
            out.push((i, fold_file(spec, validate, &mut folder)));
            progress.set(done.fetch_add(1, Ordering::Relaxed) + 1);
        }
    });
    let mut all = Vec::with_capacity(inputs.len());
    for w in per_worker {
        all.extend(w?);
    }
    all.sort_unstable_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, r)| r).collect())
}

/// Reads one input and folds it into the accumulator of its mode.
fn fold_file(spec: &InputSpec, validate: bool, folder: &mut FdataFolder<'_>) -> FileResult {
    let path = spec.path.as_path();
    let file = match spec.open() {
        Ok(f) => f,
        Err(e) => return FileResult::Failed(e, None),
    };
    let bytes = file.bytes();
    if bytes.starts_with(b"---") {
        let e = Error::new(ErrorKind::Malformed {
            what: "BOLT profile",
            detail: "a YAML profile among fdata profiles: the formats cannot be mixed \
                     (merge YAML profiles separately)"
                .into(),
        });
        return FileResult::Failed(e.with_path(path), None);
    }
    let reader = FdataReader::new(bytes);
    if reader.clone().next().is_none() {
        return FileResult::Empty(reader.mode(), reader.events().to_vec());
    }
    let whole = validate && bytes.len() <= CHECK_WHILE_FOLDING;
    if validate
        && !whole
        && let Err((e, before)) = check(reader.clone())
    {
        return FileResult::Failed(e.with_path(path), Some(before));
    }
    let (mode, events) = (reader.mode(), reader.events());
    let keep = || file.check_unchanged();
    match folder.fold(reader, mode, spec.weight, whole, keep) {
        Ok(_) => FileResult::Folded(mode, events.to_vec()),
        Err((e, before)) => {
            let e = if e.path().is_none() {
                e.with_path(path)
            } else {
                e
            };
            FileResult::Failed(e, validate.then_some((before.lines, before.counts)))
        }
    }
}

/// Checks every line of a reader; on a fault, the error and the lines and counts before it.
fn check(reader: FdataReader<'_>) -> std::result::Result<(), (Error, (u64, u64))> {
    let (mut lines, mut counts) = (0u64, 0u64);
    for l in reader {
        match l {
            Ok(l) => {
                lines += 1;
                counts = counts.saturating_add(l.count);
            }
            Err(e) => return Err((e, (lines, counts))),
        }
    }
    Ok(())
}

/// The mode of the merge and the number of inputs merged: the inputs' results judged in
/// input order (the first error or conflict fails the merge under [`FailureMode::Any`];
/// otherwise each is reported and skipped).
fn judge(
    r: &FdataMergeRequest,
    inputs: &[InputSpec],
    results: Vec<FileResult>,
    messages: &mut Vec<Message>,
) -> Result<(FdataMode, usize, BTreeSet<Vec<u8>>)> {
    let first = inputs.iter().zip(&results).find_map(|(s, f)| match f {
        FileResult::Folded(m, _) => Some((*m, s.path.clone())),
        _ => None,
    });
    let mode = first.as_ref().map(|f| f.0).unwrap_or_default();
    let mut merged = 0;
    let mut first_skipped = None;
    let mut events = BTreeSet::new();
    let mut note_events = |m: FdataMode, names: &[u8]| {
        if m == mode {
            let words = names
                .split(u8::is_ascii_whitespace)
                .filter(|w| !w.is_empty());
            events.extend(words.map(<[u8]>::to_vec));
        }
    };
    for (spec, f) in inputs.iter().zip(results) {
        let e = match f {
            FileResult::Folded(m, _) if m != mode => conflict(&spec.path, m, mode, &first),
            FileResult::Folded(m, names) => {
                note_events(m, &names);
                merged += 1;
                continue;
            }
            FileResult::Empty(m, names) => {
                note_events(m, &names);
                messages.push(Message::Warning(
                    Warning::new("no profile lines, nothing merged from it").with_path(&spec.path),
                ));
                merged += 1;
                continue;
            }
            FileResult::Failed(e, before) => {
                if let Some((lines, counts)) = before.filter(|b| b.0 > 0) {
                    messages.push(Message::Warning(
                        Warning::new(format!(
                            "skipped with the {lines} good lines before the fault (counts \
                             summing to {counts})"
                        ))
                        .with_path(&spec.path),
                    ));
                }
                e
            }
        };
        if r.failure_mode == FailureMode::Any {
            return Err(e);
        }
        first_skipped.get_or_insert(messages.len());
        messages.push(Message::Skipped(spec.path.clone(), e));
    }
    if merged == 0
        && r.failure_mode == FailureMode::All
        && let Some(Message::Skipped(_, e)) = first_skipped.map(|i| messages.remove(i))
    {
        return Err(e);
    }
    Ok((mode, merged, events))
}

/// The error of an input whose mode differs from the merge's.
fn conflict(
    path: &Path,
    found: FdataMode,
    mode: FdataMode,
    first: &Option<(FdataMode, PathBuf)>,
) -> Error {
    let first = first
        .as_ref()
        .map(|(_, p)| format!(" (as {})", p.display()))
        .unwrap_or_default();
    Error::new(ErrorKind::KindConflict(format!(
        "a {} profile cannot be merged with {} profiles{first}: profiles with and without \
         no_lbr or boltedcollection do not mix",
        found.describe(),
        mode.describe()
    )))
    .with_path(path)
}

/// True if the first input starts as a YAML document (`merge-fdata` decides the format by
/// the first input).
fn first_is_yaml(spec: &InputSpec) -> bool {
    use std::io::Read;
    let mut head = [0u8; 5];
    let Ok(mut f) = std::fs::File::open(&spec.path) else {
        return false;
    };
    if !f.metadata().is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    looks_like_bolt_yaml(&head[..n])
}

/// Writes `dest` from `fill`, naming `output` in an error.
fn write_out(
    output: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    write_stream(&Destination::of(output), |w| {
        let mut b = std::io::BufWriter::with_capacity(1 << 16, w);
        fill(&mut b)?;
        b.flush()
    })
    .map_err(|e| {
        if e.path().is_none() {
            e.with_path(output)
        } else {
            e
        }
    })
}

/// Reads one YAML input and merges it (checked first when `validate`); LLVM's warnings.
fn merge_yaml_file(
    spec: &InputSpec,
    merger: &mut YamlMerger,
    validate: bool,
) -> Result<Vec<String>> {
    let path = spec.path.as_path();
    let file = spec.open()?;
    if !looks_like_bolt_yaml(file.bytes()) {
        return Err(Error::new(ErrorKind::KindConflict(
            "cannot mix YAML and legacy (fdata) formats: the first input is a YAML profile".into(),
        ))
        .with_path(path));
    }
    let p = read_bolt_yaml(file.bytes()).map_err(|e| e.with_path(path))?;
    file.check_unchanged()?;
    if validate {
        merger.check(&p).map_err(|e| e.with_path(path))?;
    }
    merger.add(p, spec.weight).map_err(|e| e.with_path(path))
}

/// Merges YAML profiles, one after the other in input order, as `merge-fdata` does.
fn merge_yaml(
    r: &FdataMergeRequest,
    inputs: Vec<InputSpec>,
    mut messages: Vec<Message>,
    progress: &dyn Progress,
) -> Result<FdataMergeOutcome> {
    progress.start(inputs.len());
    let validate = r.failure_mode != FailureMode::Any;
    let mut merger = YamlMerger::new(r.semantics);
    let mut merged = 0;
    let mut first_skipped = None;
    for (i, spec) in inputs.iter().enumerate() {
        match merge_yaml_file(spec, &mut merger, validate) {
            Ok(warnings) => {
                merged += 1;
                messages.extend(
                    warnings
                        .into_iter()
                        .map(|w| Message::Warning(Warning::new(w).with_path(&spec.path))),
                );
            }
            Err(e) if r.failure_mode == FailureMode::Any => return Err(e),
            Err(e) => {
                first_skipped.get_or_insert(messages.len());
                messages.push(Message::Skipped(spec.path.clone(), e));
            }
        }
        progress.set(i + 1);
    }
    progress.finish();
    if merged == 0
        && r.failure_mode == FailureMode::All
        && let Some(Message::Skipped(_, e)) = first_skipped.map(|i| messages.remove(i))
    {
        return Err(e);
    }
    if merger.saturated() {
        messages.push(Message::Warning(Warning::new(
            "some counts reached 2^64 - 1 and stopped there (saturated)",
        )));
    }
    let profile = merger.finish();
    let output = r.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    if r.write {
        write_out(&output, |w| write_yaml(&profile, w))?;
    }
    let functions = profile
        .functions
        .iter()
        .map(|f| {
            let branches = f
                .blocks
                .iter()
                .flat_map(|b| &b.successors)
                .fold(0u64, |a, s| a.saturating_add(s.count));
            (f.name.clone(), f.exec, branches)
        })
        .collect();
    Ok(FdataMergeOutcome {
        format: BoltFormat::Yaml,
        output,
        mode: FdataMode::default(),
        lines: profile.functions.len(),
        functions,
        inputs_merged: merged,
        inputs_total: inputs.len(),
        inputs: inputs.iter().map(|i| i.path.clone()).collect(),
        messages,
    })
}
