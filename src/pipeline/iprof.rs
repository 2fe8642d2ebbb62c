//! iprof merges from files: GraalVM profiles read, normalised, merged, trimmed and put in
//! canonical form, in parallel; and the `show` report of one iprof file.
//!
//! `threads` workers take the inputs in order, each lowering every input it takes straight
//! into a partial profile as the input is parsed ([`TreeInto::Shared`]). Up to
//! `WORKERS_PER_TARGET` workers share one partial profile: a worker locks it only to add
//! a batch of parsed entries, and while it is busy parses on. The partial profiles are
//! merged at the end. An input in flight therefore costs its method table (about 40 bytes
//! per declared method), a batch of entries and the pages of the file being parsed (the
//! reader releases those behind it), never a copy of the document or a profile of its own.
//! Memory is bounded by `threads / WORKERS_PER_TARGET` (rounded up) partial profiles plus
//! `threads` inputs in flight, whatever the number of inputs. Under `--failure-mode=all|warn` a failing input must leave no
//! trace, so there each input is first read into a profile of its own. With `--normalize`,
//! a first pass reads every input once for its totals.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use super::InputSpec;
use crate::backends::iprof::{self as writer, IprofSummary, SizeReduction};
use crate::backends::iprof_show;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::open::{
    CountScale, IprofReadOptions, IprofReader, Lowered, TreeInto, read_iprof_file,
};
use crate::ir::iprof::IprofProfile;
use crate::passes::FailureMode;
use crate::passes::iprof_merge::{InputScale, merge_owned};
use crate::passes::normalise::{self, NormalizeMode, Ratio, SectionScales};
use crate::passes::trim::{self, TrimOptions, TrimStats};
use crate::sys::threads::{self, Workers};

/// Options of an iprof merge run.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct IprofMergeOptions {
    /// Worker threads (0 = one per core); the result does not depend on it.
    pub threads: usize,
    /// Reader options (lenient mode).
    pub read: IprofReadOptions,
    /// What to do with inputs that cannot be read.
    pub failure_mode: FailureMode,
    /// `--normalize`.
    pub normalize: NormalizeMode,
    /// Trimming applied to the merged profile.
    pub trim: TrimOptions,
    /// Keep types and methods nothing references.
    pub keep_all_symbols: bool,
}

/// The result of [`merge_iprof_files`].
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct IprofMergeOutput {
    /// The merged, trimmed, canonical profile, ready for [`writer::write`].
    pub profile: IprofProfile,
    /// Warnings, in input order.
    pub warnings: Vec<Warning>,
    /// Inputs skipped under [`FailureMode::All`] / [`FailureMode::Warn`].
    pub skipped: Vec<(PathBuf, Error)>,
    /// Inputs merged.
    pub inputs_merged: usize,
    /// Summed sizes of the merged inputs, bytes.
    pub input_bytes: u64,
    /// Summed entries of the merged inputs.
    pub input_entries: u64,
    /// Summed methods the merged inputs declare.
    pub input_methods: u64,
    /// What trimming did.
    pub trim: TrimStats,
}

impl IprofMergeOutput {
    /// The size reduction, given the written size of the output.
    pub fn size_reduction(&self, output_bytes: u64) -> SizeReduction {
        SizeReduction {
            input_bytes: self.input_bytes,
            output_bytes,
            input_entries: self.input_entries,
            output_entries: self.profile.entry_count() as u64,
            input_methods: self.input_methods,
            output_methods: self.profile.symbols.method_count() as u64,
        }
    }
}

/// One input read on its own (the normalisation pass).
struct ReadOne {
    idx: usize,
    result: Result<Lowered>,
}

fn read_one(idx: usize, spec: &InputSpec, opts: IprofReadOptions) -> ReadOne {
    ReadOne {
        idx,
        result: spec
            .open()
            .and_then(|f| IprofReader::new(opts).read(&f, TreeInto::Own)),
    }
}

/// Reads, normalises, merges, trims and canonicalises iprof files. `progress` is called with
/// the number of inputs done.
pub fn merge_iprof_files(
    inputs: &[InputSpec],
    opts: &IprofMergeOptions,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<IprofMergeOutput> {
    let (workers, warnings) = Workers::start(opts.threads);
    let threads = workers.threads();
    let mut out = workers.install(|| merge_in_pool(inputs, opts, threads, progress))?;
    out.warnings.splice(0..0, warnings);
    Ok(out)
}

fn merge_in_pool(
    inputs: &[InputSpec],
    opts: &IprofMergeOptions,
    threads: usize,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<IprofMergeOutput> {
    let window = threads.max(1);
    let windows = inputs.len().div_ceil(window);
    // Symbols nothing references are dropped by the canonical form anyway; not interning
    // them makes reading several times faster.
    let read_opts = IprofReadOptions {
        referenced_symbols_only: !opts.keep_all_symbols,
        ..opts.read
    };
    let read_window = |w: usize| -> Vec<ReadOne> {
        let base = w * window;
        let end = (base + window).min(inputs.len());
        let window = inputs.get(base..end).unwrap_or_default();
        threads::map(window, 1, |k, spec| read_one(base + k, spec, read_opts))
    };
    let mut state = FoldState {
        out: IprofMergeOutput {
            profile: IprofProfile::new(),
            warnings: Vec::new(),
            skipped: Vec::new(),
            inputs_merged: 0,
            input_bytes: 0,
            input_entries: 0,
            input_methods: 0,
            trim: TrimStats::default(),
        },
        scales: vec![[Ratio::ONE; 6]; inputs.len()],
        failed: vec![false; inputs.len()],
    };

    // Normalisation needs every input's totals before anything is merged: a first pass
    // computes them (and reports unreadable inputs), keeping only the totals.
    if opts.normalize != NormalizeMode::None {
        let mut totals = Vec::with_capacity(inputs.len());
        for w in 0..windows {
            for r in read_window(w) {
                match r.result {
                    Ok(l) => totals.push(Some(l.profile.totals())),
                    Err(e) => {
                        state.input_failed(inputs, r.idx, e, opts.failure_mode)?;
                        totals.push(None);
                    }
                }
            }
        }
        let present: Vec<_> = totals.iter().flatten().copied().collect();
        let mut factors = normalise::scales(opts.normalize, &present).into_iter();
        for (slot, t) in state.scales.iter_mut().zip(&totals) {
            if t.is_some()
                && let Some(f) = factors.next()
            {
                *slot = f;
            }
        }
    }

    // Pass 2: `threads` workers take inputs in order and add each, as it is parsed, to a
    // partial profile shared by up to `WORKERS_PER_TARGET` workers; the partial profiles
    // are then merged. Merging is commutative
    // and associative and the output canonical, so the result does not depend on which
    // worker read which input.
    let outcomes = fold_inputs(inputs, opts, read_opts, &state, threads, progress);
    state.collect(inputs, outcomes, opts.failure_mode)?;
    let mut out = state.out;
    if out.inputs_merged == 0
        && opts.failure_mode == FailureMode::All
        && let Some((_, e)) = out.skipped.pop()
    {
        return Err(e);
    }
    if opts.trim.is_active() {
        let (t, stats) = trim::trim(&out.profile, &opts.trim);
        out.profile = t;
        out.trim = stats;
    }
    out.profile =
        normalise::canonicalize_owned(std::mem::take(&mut out.profile), opts.keep_all_symbols);
    out.profile.provenance.format = format!("iprof, merged from {} inputs", out.inputs_merged);
    Ok(out)
}

struct FoldState {
    out: IprofMergeOutput,
    scales: Vec<SectionScales>,
    failed: Vec<bool>,
}

impl FoldState {
    fn input_failed(
        &mut self,
        inputs: &[InputSpec],
        idx: usize,
        e: Error,
        mode: FailureMode,
    ) -> Result<()> {
        if let Some(f) = self.failed.get_mut(idx) {
            if *f {
                return Ok(());
            }
            *f = true;
        }
        if mode == FailureMode::Any {
            return Err(e);
        }
        let path = inputs.get(idx).map(|s| s.path.clone()).unwrap_or_default();
        self.out.skipped.push((path, e));
        Ok(())
    }

    /// Takes the workers' results: their partial profiles are merged, and each input's
    /// outcome is recorded in input order (so warnings, skipped inputs and the error
    /// reported do not depend on timing: under `FailureMode::Any` the first failing input
    /// in input order is the error).
    fn collect(&mut self, inputs: &[InputSpec], folded: Folded, mode: FailureMode) -> Result<()> {
        let Folded {
            partials,
            mut outcomes,
            refused,
        } = folded;
        self.out.warnings.extend(refused);
        outcomes.sort_by_key(|(i, _)| *i);
        for (idx, o) in outcomes {
            let Some(spec) = inputs.get(idx) else {
                continue;
            };
            match o {
                Ok(done) => {
                    self.out
                        .warnings
                        .extend(done.warnings.into_iter().map(|w| w.with_path(&spec.path)));
                    self.out.inputs_merged += 1;
                    self.out.input_bytes += done.bytes;
                    self.out.input_entries += done.entries;
                    self.out.input_methods += done.declared_methods;
                }
                Err(e) => self.input_failed(inputs, idx, e, mode)?,
            }
        }
        for p in partials {
            merge_owned(&mut self.out.profile, p, &InputScale::default());
        }
        Ok(())
    }
}

/// What one input contributed, once it is in a partial profile.
struct InputDone {
    bytes: u64,
    entries: u64,
    declared_methods: u64,
    warnings: Vec<Warning>,
}

/// The workers' result: the profiles they added their inputs to, one outcome per input
/// read.
struct Folded {
    partials: Vec<IprofProfile>,
    outcomes: Vec<(usize, Result<InputDone>)>,
    /// Why fewer workers ran than asked for, if they did.
    refused: Option<Warning>,
}

/// Workers that add their inputs to one shared profile: each holds the profile's lock only
/// while it adds a batch of entries (a fifth of the work; parsing is the rest), so a few
/// workers share one profile at little cost, and memory holds one profile per this many
/// workers instead of one per worker.
const WORKERS_PER_TARGET: usize = 4;

/// Runs the workers of pass 2. Inputs are handed out in order; after a failure under
/// `FailureMode::Any` no further input is started.
///
/// Under `FailureMode::Any` each input is lowered straight into its worker's shared partial
/// profile (nothing of it exists on its own: an input in flight costs its method table, a
/// batch of parsed entries and the pages of the file being parsed). A failure then leaves
/// that partial profile half-updated, which does not matter since the run fails. Under `All`/`Warn` a failing
/// input must leave no trace, so each input is lowered on its own and merged only once read.
fn fold_inputs(
    inputs: &[InputSpec],
    opts: &IprofMergeOptions,
    read_opts: IprofReadOptions,
    state: &FoldState,
    threads: usize,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Folded {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let direct = opts.failure_mode == FailureMode::Any;
    let workers = threads.clamp(1, inputs.len().max(1));
    let targets: Vec<Arc<Mutex<IprofProfile>>> = (0..workers.div_ceil(WORKERS_PER_TARGET))
        .map(|_| Arc::new(Mutex::new(IprofProfile::new())))
        .collect();
    let work = |w: usize| {
        let Some(target) = targets.get(w % targets.len().max(1)) else {
            return Vec::new();
        };
        let mut outcomes = Vec::new();
        // Reuses the memory of the last input's method table for the next.
        let mut reader = IprofReader::new(read_opts);
        while !stop.load(Ordering::Relaxed) {
            let idx = next.fetch_add(1, Ordering::Relaxed);
            let Some(spec) = inputs.get(idx) else { break };
            if state.failed.get(idx).copied().unwrap_or(false) {
                continue;
            }
            let scale = InputScale {
                sections: state.scales.get(idx).copied().unwrap_or_default(),
                weight: spec.weight,
            };
            let bytes = std::fs::metadata(&spec.path).map_or(0, |m| m.len());
            let read = if direct {
                let f: Option<CountScale> = (!scale.is_identity())
                    .then(|| Box::new(move |s, c| scale.apply(s, c)) as CountScale);
                let into = TreeInto::Shared {
                    target: Arc::clone(target),
                    scale: f,
                };
                spec.open().and_then(|f| reader.read(&f, into))
            } else {
                spec.open()
                    .and_then(|f| reader.read(&f, TreeInto::Own))
                    .map(|mut l| {
                        let mut acc = target.lock().unwrap_or_else(PoisonError::into_inner);
                        merge_owned(&mut acc, std::mem::take(&mut l.profile), &scale);
                        l
                    })
            };
            let outcome = read.map(|l| InputDone {
                bytes,
                entries: l.entries,
                declared_methods: l.declared_methods as u64,
                warnings: l.warnings,
            });
            if outcome.is_err() && direct {
                stop.store(true, Ordering::Relaxed);
            }
            outcomes.push((idx, outcome));
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(p) = progress {
                p(n);
            }
        }
        outcomes
    };
    // The calling thread is worker 0; workers whose threads the system refuses are left
    // out (the others take their inputs).
    let (first, rest, refused) = threads::scoped_workers(workers - 1, |w| work(w + 1), |_| work(0));
    let results: Vec<_> = std::iter::once(first).chain(rest).collect();
    // Every worker is done, so no other clone of a target is left.
    let partials = targets
        .into_iter()
        .map(|t| match Arc::try_unwrap(t) {
            Ok(m) => m.into_inner().unwrap_or_else(PoisonError::into_inner),
            Err(t) => std::mem::take(&mut *t.lock().unwrap_or_else(PoisonError::into_inner)),
        })
        .collect();
    let ran = results.len();
    Folded {
        partials,
        outcomes: results.into_iter().flatten().collect(),
        refused: refused.map(|e| {
            Warning::new(format!(
                "could not start {workers} reader threads, reading with {ran}: {}",
                threads::spawn_failure(&e)
            ))
        }),
    }
}

/// What `pgo-merge show` prints for one iprof file: its summary, and the summary and size
/// of what `pgo-merge` would write for it with the given trim options (canonical form,
/// unreferenced symbols dropped unless `keep_all_symbols`).
#[derive(Debug, Clone)]
pub struct IprofShowReport {
    /// The file as read.
    pub input: IprofSummary,
    /// The profile as it would be written.
    pub output: IprofSummary,
    /// Before/after sizes.
    pub reduction: SizeReduction,
    /// Reader warnings.
    pub warnings: Vec<Warning>,
    /// Self and total sample counts per method from `samplingProfiles` (all methods, most
    /// self samples first); the display shows the first [`SHOWN_SAMPLED_METHODS`].
    pub sampled_methods: Vec<crate::passes::symbolize::MethodSamples>,
}

/// Methods listed by the display of an [`IprofShowReport`].
pub use crate::backends::iprof_show::SHOWN_SAMPLED_METHODS;

impl IprofShowReport {
    /// The report as the back-end renders it (text or JSON).
    fn view(&self) -> iprof_show::IprofShowView<'_> {
        iprof_show::IprofShowView {
            input: &self.input,
            output: &self.output,
            reduction: &self.reduction,
            warnings: &self.warnings,
            sampled_methods: self
                .sampled_methods
                .iter()
                .map(|m| iprof_show::SampledMethod {
                    method: &m.method,
                    self_samples: m.self_samples,
                    total_samples: m.total_samples,
                })
                .collect(),
        }
    }

    /// The JSON document of the report of `file` (`schemas/show.schema.json`,
    /// `iprof_profile`).
    pub fn to_json(&self, file: &str) -> serde_json::Value {
        iprof_show::json(file, &self.view())
    }
}

impl std::fmt::Display for IprofShowReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        iprof_show::text(&self.view(), f)
    }
}

/// Builds the [`IprofShowReport`] of an iprof file (the library side of `pgo-merge show`).
pub fn show_report(
    path: &std::path::Path,
    read: IprofReadOptions,
    trim_opts: &TrimOptions,
    keep_all_symbols: bool,
) -> Result<IprofShowReport> {
    let bytes = std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::new(ErrorKind::Io(e)).with_path(path))?;
    let l = read_iprof_file(path, read)?;
    let input = writer::summary(&l.profile, Some(bytes));
    let trimmed = if trim_opts.is_active() {
        trim::trim(&l.profile, trim_opts).0
    } else {
        l.profile.clone()
    };
    let canon = normalise::canonicalize_owned(trimmed, keep_all_symbols);
    let out_bytes = writer::written_size(&canon);
    let mut output = writer::summary(&canon, Some(out_bytes));
    output.version = writer::output_version(&canon);
    let reduction = SizeReduction {
        input_bytes: bytes,
        output_bytes: out_bytes,
        input_entries: l.profile.entry_count() as u64,
        output_entries: canon.entry_count() as u64,
        input_methods: l.declared_methods as u64,
        output_methods: canon.symbols.method_count() as u64,
    };
    Ok(IprofShowReport {
        sampled_methods: crate::passes::symbolize::method_samples(&l.profile),
        input,
        output,
        reduction,
        warnings: l.warnings,
    })
}
