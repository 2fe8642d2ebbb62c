//! LLVM merges from files: windows of inputs read in parallel, the raw-profile fast path,
//! and the [`Merger`] fed in input order.
//!
//! Inputs are opened in parallel in windows and read by the read side's one entry point,
//! [`MergeReader::read`], so memory stays bounded by the merged profile plus one window of
//! inputs, whatever the number of inputs. What it gives is folded as it comes: records, or
//! counters where they lie in a file described by a layout (a further raw file of a binary
//! whose layout the reader learned after an earlier file was folded). This module keeps
//! windows, threads and the order of folds only; it names no format.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::InputSpec;
use crate::error::{Error, ErrorKind, Result};
use crate::frontends::open::{
    Correlator, FormatKind, InputFile, Known, MergeInput, MergeReader, Part, Parts, ReadOutput,
};
use crate::passes::merge::{FailureMode, InputInfo, Item, MergeOptions, MergeOutput, Merger, Src};
use crate::sys::threads::{self, Workers};

/// How the driver reads the inputs of an LLVM merge (I/O concerns, apart from the merge
/// pass's [`MergeOptions`]).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Inputs read and parsed at once; 0 means `2 × threads` (at least 2).
    pub window: usize,
    /// Recognise raw files of a binary already seen by comparing their bytes with the first
    /// one's, and merge their counters where they lie (on by default). The result is the same
    /// either way; turning it off is for testing that.
    pub raw_layouts: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            window: 0,
            raw_layouts: true,
        }
    }
}

/// What the merger needs to know of a front-end's result besides the profile.
fn input_info<'r>(r: &'r ReadOutput<'_>) -> InputInfo<'r> {
    InputInfo {
        warnings: &r.warnings,
        raw: r.raw,
        indexed: r.format == FormatKind::IndexedProfile,
        suspicious_counter: r.suspicious(),
    }
}

/// [`merge_files_with`] with the default [`ReadOptions`].
pub fn merge_files(
    inputs: &[InputSpec],
    opts: &MergeOptions,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<MergeOutput> {
    merge_files_with(inputs, opts, &ReadOptions::default(), progress)
}

/// Merges files. `progress` is called with the number of inputs finished so far.
///
/// An input that changes while it is read ([`InputFile::check_unchanged`]) is a failed
/// input: an error under [`FailureMode::Any`], else skipped with its reason. Inputs are
/// checked after parsing, before they are folded, and again after folding; one that
/// changed during its fold has already added to the merged profile, so under the other
/// failure modes the merge starts again without it (each new start leaves out at least one
/// more input, so this ends).
pub fn merge_files_with(
    inputs: &[InputSpec],
    opts: &MergeOptions,
    read: &ReadOptions,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<MergeOutput> {
    merge_files_correlating(inputs, opts, read, &Correlator::default(), progress)
}

/// [`merge_files_with`], completing lightweight raw profiles from the binaries of
/// `correlator` (`--binary-file`) as they are opened.
pub fn merge_files_correlating(
    inputs: &[InputSpec],
    opts: &MergeOptions,
    read: &ReadOptions,
    correlator: &Correlator,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<MergeOutput> {
    let (workers, warnings) = Workers::start(opts.threads);
    let mut changed = BTreeMap::new();
    let run = Run {
        inputs,
        opts,
        read,
        correlator,
        workers: &workers,
        progress,
    };
    loop {
        match merge_attempt(&run, &changed)? {
            Attempt::Done(mut out) => {
                out.warnings.splice(0..0, warnings);
                return Ok(out);
            }
            Attempt::Changed(more) => changed.extend(more),
        }
    }
}

/// How an attempt at a merge ended.
#[allow(clippy::large_enum_variant)] // one per attempt, returned once
enum Attempt {
    Done(MergeOutput),
    /// Inputs (by index, with what changed) that changed while they were folded.
    Changed(Vec<(usize, String)>),
}

/// The error of an input that changed (`what`: [`ErrorKind::InputChanged`]'s text).
fn changed_error(path: &std::path::Path, what: &str) -> Error {
    Error::new(ErrorKind::InputChanged(what.to_string())).with_path(path)
}

/// What every attempt at a merge is given.
struct Run<'r> {
    inputs: &'r [InputSpec],
    opts: &'r MergeOptions,
    read: &'r ReadOptions,
    correlator: &'r Correlator,
    workers: &'r Workers,
    progress: Option<&'r (dyn Fn(usize) + Sync)>,
}

/// One merge of `inputs`, leaving out those in `changed` (failed inputs, for what they were
/// found to be in an earlier attempt).
///
/// Windows are pipelined: while one window is folded, the next is opened and read on the
/// pool's other threads, so neither step waits for the slowest task of the other. A window
/// whose raw inputs may teach a layout is folded (and its layouts learned) before the next
/// is read, so that the next can take the fast path; the fold order, and so the result, is
/// the same either way.
fn merge_attempt(run: &Run<'_>, changed: &BTreeMap<usize, String>) -> Result<Attempt> {
    let Run {
        inputs,
        opts,
        read: read_opts,
        correlator,
        workers,
        progress,
    } = *run;
    let threads = workers.threads();
    workers.install(|| {
        let window = if read_opts.window == 0 {
            (2 * threads).max(2)
        } else {
            read_opts.window
        };
        let mut reader = MergeReader::new(read_opts.raw_layouts);
        let mut done = 0usize;
        let mut base = 0usize;
        // The window read and not yet folded: the first is read before the merger is made,
        // because what it holds decides the merger's shards.
        let mut pending = take_window(inputs, &mut base, read_opts.raw_layouts, window, threads)
            .map(|span| read_window(span, changed, &reader, correlator));
        let shards = pending.as_ref().map_or(threads, |w| w.shards(threads));
        let mut acc = Merger::new(opts, shards);
        // The window folded last: its files are closed (unmapped) during the next overlap,
        // beside the fold, rather than between two parallel steps.
        let mut spent: Option<Window<'_>> = None;
        while let Some(mut w) = pending.take() {
            let next = take_window(inputs, &mut base, read_opts.raw_layouts, window, threads);
            // Two windows in flight stay within one window's byte budget (large files are
            // folded before the next are mapped), and a window that may teach a layout is
            // folded first.
            let overlap = next
                .is_some_and(|n| w.span.bytes.saturating_add(n.bytes) <= window_budget(threads))
                && !w.may_teach(&reader, &acc);
            let folded = if overlap {
                let closing = spent.take();
                let (folded, read) = threads::join(
                    || fold_window(&mut acc, &mut w, inputs, &reader),
                    || {
                        drop(closing);
                        next.map(|span| read_window(span, changed, &reader, correlator))
                    },
                );
                pending = read;
                folded?
            } else {
                drop(spent.take());
                fold_window(&mut acc, &mut w, inputs, &reader)?
            };
            if let Some(changed_now) = folded {
                return Ok(Attempt::Changed(changed_now));
            }
            let more = next.is_some() || base < inputs.len();
            let n = w.span.chunk.len();
            w.learn(&mut acc, &mut reader, more);
            if overlap {
                spent = Some(w);
            } else {
                drop(w);
                if let Some(span) = next {
                    pending = Some(read_window(span, changed, &reader, correlator));
                }
            }
            done += n;
            if let Some(p) = progress {
                p(done);
            }
        }
        acc.finish(inputs.len()).map(Attempt::Done)
    })
}

/// The next window of inputs from `base` on (advancing `base` past it), if any input is left:
/// at most `window` files, and the very first window is one file, because a raw file
/// teaches its binary's layout and every later file of that binary can take the fast path.
fn take_window<'i>(
    inputs: &'i [InputSpec],
    base: &mut usize,
    raw_layouts: bool,
    window: usize,
    threads: usize,
) -> Option<Span<'i>> {
    if *base >= inputs.len() {
        return None;
    }
    let most = if *base == 0 && raw_layouts { 1 } else { window };
    let (chunk, bytes) = next_window(&inputs[*base..], most, threads);
    let at = *base;
    *base += chunk.len();
    Some(Span {
        base: at,
        chunk,
        bytes,
    })
}

/// A window's inputs: the first one's index among the merge's inputs, the inputs, and their
/// size in bytes (as the file system reported it when the window was made).
#[derive(Clone, Copy)]
struct Span<'i> {
    base: usize,
    chunk: &'i [InputSpec],
    bytes: u64,
}

/// What a window's reading gave and, once it is folded, what became of each input.
struct WindowState<'f> {
    /// Per input of the window, in order: opened and read, or why not.
    opened: Vec<Opened<'f>>,
    /// The inputs read (by their index in the merge), once the failed ones are reported.
    owned: Vec<(usize, MergeInput<'f>)>,
    /// Per entry of `owned`: whether the merger took it.
    taken: Vec<bool>,
    /// Layouts learned and registered while the window was folded (from the profiles of
    /// files that hold several), in the order of their numbers.
    learned: Vec<Known>,
}

self_cell::self_cell!(
    /// A window's files and what reading them gave, which borrows their bytes: the two move
    /// together, so that one window can be folded while the next is read.
    struct WindowCell {
        owner: Vec<OnceLock<InputFile>>,
        #[not_covariant]
        dependent: WindowState,
    }
);

/// A window of inputs: which they are, and their files and what was read from them.
struct Window<'i> {
    span: Span<'i>,
    cell: WindowCell,
}

/// One input of a window: the error that kept it from being opened, or the file opened and
/// what reading it gave. (A window's worth at a time: the size difference of the variants
/// does not matter.)
#[allow(clippy::large_enum_variant)]
enum Opened<'a> {
    Failed(Error),
    Read(&'a InputFile, Result<MergeInput<'a>>),
}

/// Opens and reads the inputs of `span` in parallel, each file by one task.
fn read_window<'i>(
    span: Span<'i>,
    changed: &BTreeMap<usize, String>,
    reader: &MergeReader,
    correlator: &Correlator,
) -> Window<'i> {
    let Span { base, chunk, .. } = span;
    let files: Vec<OnceLock<InputFile>> = chunk.iter().map(|_| OnceLock::new()).collect();
    let cell = WindowCell::new(files, |files| {
        let pairs: Vec<(&InputSpec, &OnceLock<InputFile>)> = chunk.iter().zip(files).collect();
        let opened = threads::map(&pairs, 1, |k, &(i, slot)| {
            let opened = match changed.get(&(base + k)) {
                Some(what) => Err(changed_error(&i.path, what)),
                None => i.open().and_then(|f| correlator.apply(f)),
            };
            match opened {
                Ok(f) => {
                    let f = slot.get_or_init(|| f);
                    Opened::Read(f, reader.read(f))
                }
                Err(e) => Opened::Failed(e),
            }
        });
        WindowState {
            opened,
            owned: Vec::new(),
            taken: Vec::new(),
            learned: Vec::new(),
        }
    });
    Window { span, cell }
}

/// Reports the window's failed inputs and folds the others into `acc`, in input order.
/// Returns the inputs that changed while they were folded (the attempt must start again
/// without them), if any.
fn fold_window(
    acc: &mut Merger<'_>,
    w: &mut Window<'_>,
    inputs: &[InputSpec],
    reader: &MergeReader,
) -> Result<Option<Vec<(usize, String)>>> {
    let Span { base, chunk, .. } = w.span;
    w.cell.with_dependent_mut(|files, state| {
        for (k, opened) in std::mem::take(&mut state.opened).into_iter().enumerate() {
            match opened {
                Opened::Failed(e) => acc.input_failed(&chunk[k].path, e)?,
                Opened::Read(file, read) => {
                    // A file that changed while it was parsed: that is the error,
                    // whatever the parse made of it.
                    if let Err(e) = file.check_unchanged() {
                        acc.input_failed(&chunk[k].path, e)?;
                        continue;
                    }
                    match read {
                        Err(e) => acc.input_failed(&chunk[k].path, e)?,
                        Ok(other) => state.owned.push((base + k, other)),
                    }
                }
            }
        }
        let file_of = |idx: usize| files.get(idx - base).and_then(OnceLock::get);
        let ctx = FoldContext {
            inputs,
            reader,
            file_of: &file_of,
        };
        fold_owned(acc, &ctx, state)?;
        check_folded(acc, state, &file_of)
    })
}

/// What folding a window's inputs needs besides the merger and the window.
struct FoldContext<'c> {
    inputs: &'c [InputSpec],
    reader: &'c MergeReader,
    /// The file of an input of the window, by its index in the merge.
    file_of: &'c dyn Fn(usize) -> Option<&'c InputFile>,
}

/// Folds the window's inputs read into `acc`, in input order, recording which it took.
fn fold_owned<'s>(
    acc: &mut Merger<'_>,
    ctx: &FoldContext<'_>,
    state: &'s mut WindowState<'_>,
) -> Result<()> {
    let mut accepted: Vec<Item<'s>> = Vec::new();
    let taken = &mut state.taken;
    // The only input of the merge, built into records: they become the merged records
    // (`Merger::fold_sole`) instead of going through the shards.
    let sole = ctx.inputs.len() == 1 && state.owned.len() == 1;
    for (idx, r) in state.owned.iter_mut() {
        let spec = &ctx.inputs[*idx];
        let (i, path, weight) = (*idx as u32, spec.path.as_path(), spec.weight);
        let ok = match r {
            MergeInput::Known {
                layout,
                bytes,
                values,
            } => acc
                .begin_layout_input(i, path, *layout)?
                .then_some(Src::Layout {
                    layout: *layout,
                    bytes,
                    values,
                }),
            MergeInput::Described(d) => {
                let info = InputInfo {
                    warnings: d.warnings(),
                    raw: false,
                    indexed: d.is_indexed(),
                    suspicious_counter: None,
                };
                acc.begin_input(i, path, weight, d.profile(), info)?
                    .then_some(Src::File {
                        layout: d.layout(),
                        bytes: d.bytes(),
                        values: d.values(),
                    })
            }
            MergeInput::Parts(parts) => {
                // Folded profile by profile, in order: what comes before first.
                acc.fold(&accepted);
                accepted.clear();
                let file = (ctx.file_of)(*idx);
                taken.push(fold_parts(
                    acc,
                    ctx,
                    (i, spec, file),
                    parts,
                    &mut state.learned,
                )?);
                continue;
            }
            MergeInput::Records(r, _) => {
                let ok = acc.begin_input(i, path, weight, &r.profile, input_info(r))?;
                if ok && sole {
                    let p = std::mem::take(&mut r.profile);
                    acc.fold_sole(i, weight, p);
                    taken.push(true);
                    continue;
                }
                ok.then_some(Src::Profile(&r.profile))
            }
        };
        taken.push(ok.is_some());
        if let Some(src) = ok {
            accepted.push(Item {
                idx: i,
                weight,
                src,
            });
        }
    }
    acc.fold(&accepted);
    Ok(())
}

/// The bytes folded were read again from the files: checks that they still were what was
/// parsed. Returns the inputs that changed (by index, with what changed), if any.
fn check_folded<'f>(
    acc: &Merger<'_>,
    state: &WindowState<'_>,
    file_of: &dyn Fn(usize) -> Option<&'f InputFile>,
) -> Result<Option<Vec<(usize, String)>>> {
    let mut changed_now = Vec::new();
    for ((idx, _), taken) in state.owned.iter().zip(&state.taken) {
        if let (true, Some(f)) = (*taken, file_of(*idx))
            && let Err(e) = f.check_unchanged()
        {
            if acc.failure_mode() == FailureMode::Any {
                return Err(e);
            }
            if let ErrorKind::InputChanged(what) = e.kind() {
                changed_now.push((*idx, what.clone()));
            } else {
                return Err(e);
            }
        }
    }
    Ok((!changed_now.is_empty()).then_some(changed_now))
}

impl Window<'_> {
    /// The number of shards for a merge of `threads` threads whose first window is this one.
    ///
    /// Where reading costs more than folding (indexed and text inputs: reading is about two
    /// thirds of the work), half the threads fold, each a shard, while the others read the
    /// next window: with two threads, one folds every function (no function's counters
    /// split between two cores' caches) while both read. Where folding dominates (raw
    /// files through a known layout), every thread folds a shard.
    fn shards(&self, threads: usize) -> usize {
        let read_bound = self.cell.with_dependent(|_, state| {
            !state.opened.is_empty()
                && state
                    .opened
                    .iter()
                    .all(|o| matches!(o, Opened::Read(_, Ok(r)) if r.read_bound()))
        });
        if read_bound {
            (threads / 2).max(1)
        } else {
            threads
        }
    }

    /// True if folding this window may teach a layout (a raw input the full reader read
    /// cleanly, of a binary not yet learned): the next window is then read after it.
    fn may_teach(&self, reader: &MergeReader, acc: &Merger<'_>) -> bool {
        acc.wants_layouts()
            && self.cell.with_dependent(|_, state| {
                state.opened.iter().any(|o| match o {
                    Opened::Read(_, Ok(r)) => r.may_teach(reader),
                    _ => false,
                })
            })
    }

    /// After a fold: hands buffers back to the reader and, if `more` inputs follow, has it
    /// learn the layouts of the folded raw inputs (dropping each input's records first:
    /// with a million functions they are hundreds of megabytes). The files stay open.
    fn learn(&mut self, acc: &mut Merger<'_>, reader: &mut MergeReader, more: bool) {
        let base = self.span.base;
        self.cell.with_dependent_mut(|files, state| {
            // Registered during the fold, before any learned here.
            reader.adopt(&mut state.learned);
            let owned = std::mem::take(&mut state.owned);
            for ((idx, read), taken) in owned.into_iter().zip(std::mem::take(&mut state.taken)) {
                match files.get(idx - base).and_then(OnceLock::get) {
                    Some(file) if taken && more && acc.wants_layouts() => {
                        reader.learn(read, file, &mut |l| acc.add_layout(l));
                    }
                    _ => reader.recycle(read),
                }
            }
        });
    }
}

/// Bytes of input read per window and thread, unless a single file is larger.
const WINDOW_BYTES_PER_THREAD: u64 = 32 << 20;

/// The most bytes of input in flight with `threads` threads: [`WINDOW_BYTES_PER_THREAD`]
/// per thread.
fn window_budget(threads: usize) -> u64 {
    WINDOW_BYTES_PER_THREAD.saturating_mul(threads as u64)
}

/// The inputs of the next window and their size: at most `window` files, and no more than
/// [`window_budget`] bytes (by the sizes the file system reports) once every thread has a
/// file. This bounds the memory of the files in flight while giving each parallel step
/// enough work to be worth its synchronisation.
fn next_window(rest: &[InputSpec], window: usize, threads: usize) -> (&[InputSpec], u64) {
    let budget = window_budget(threads);
    let mut bytes = 0u64;
    let mut n = 0;
    for spec in rest.iter().take(window.max(1)) {
        let size = std::fs::metadata(&spec.path).map_or(0, |m| m.len());
        if n >= threads.max(1) && bytes.saturating_add(size) > budget {
            break;
        }
        bytes = bytes.saturating_add(size);
        n += 1;
    }
    (&rest[..n.max(1).min(rest.len())], bytes)
}

/// Folds a raw file of several profiles profile by profile, in file order: what folding its
/// records all at once does, with one profile's records in memory at a time. The input
/// begins with its first profile and all the file's warnings (so a failure, an implausible
/// counter included, leaves no trace); a later profile goes through a registered layout
/// that accepts it, or is read and folded, and a layout is learned from it if it may teach
/// one (registered, and added to `learned`). Returns whether the merger took the input.
fn fold_parts(
    acc: &mut Merger<'_>,
    ctx: &FoldContext<'_>,
    (idx, spec, file): (u32, &InputSpec, Option<&InputFile>),
    parts: &Parts<'_>,
    learned: &mut Vec<Known>,
) -> Result<bool> {
    let (path, weight) = (spec.path.as_path(), spec.weight);
    let info = InputInfo {
        warnings: parts.warnings(),
        raw: true,
        indexed: false,
        suspicious_counter: parts.suspicious(),
    };
    if !acc.begin_input(idx, path, weight, &parts.first().profile, info)? {
        return Ok(false);
    }
    let reader = ctx.reader;
    for k in 0..parts.len() {
        if let Some(f) = file.filter(|_| k > 1) {
            // The profiles before the previous one are done with (the bytes of the first,
            // which its records borrow, are read back if they are touched again).
            f.release_before(parts.start(k - 1));
        }
        let read = match reader.part(parts, k, learned)? {
            Part::Known {
                layout,
                bytes,
                values,
            } => {
                acc.begin_layout_input(idx, path, layout)?;
                let src = Src::Layout {
                    layout,
                    bytes,
                    values: &values,
                };
                acc.fold(&[Item { idx, weight, src }]);
                continue;
            }
            Part::First(first) => {
                fold_records(acc, idx, weight, first);
                first
            }
            Part::Records(out) => {
                let info = InputInfo {
                    raw: true,
                    ..InputInfo::default()
                };
                if acc.begin_input(idx, path, weight, &out.profile, info)? {
                    fold_records(acc, idx, weight, &out);
                    if acc.wants_layouts() {
                        reader.learn_part(parts, k, &out, learned, &mut |l| acc.add_layout(l));
                    }
                }
                continue;
            }
        };
        if acc.wants_layouts() {
            reader.learn_part(parts, k, read, learned, &mut |l| acc.add_layout(l));
        }
    }
    Ok(true)
}

/// Folds one profile's records as an input of its own.
fn fold_records(acc: &mut Merger<'_>, idx: u32, weight: crate::ir::Weight, r: &ReadOutput<'_>) {
    acc.fold(&[Item {
        idx,
        weight,
        src: Src::Profile(&r.profile),
    }]);
}
