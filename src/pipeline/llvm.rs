//! LLVM merges from files: windows of inputs read in parallel, the raw-profile fast path,
//! and the [`Merger`] fed in input order.
//!
//! Inputs are opened and parsed in parallel in windows, so memory stays bounded by the
//! merged profile plus one window of inputs, whatever the number of inputs. The first raw
//! file of a binary that the full reader accepts without a warning teaches a
//! [`RawLayout`]; a later file that matches it is handed to the merger as its bytes plus the
//! layout's [`crate::ir::CounterLayout`], with no records built.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::InputSpec;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::profraw::layout::{RawLayout, Scanned};
use crate::frontends::{self, InputFile, ReadOutput};
use crate::passes::merge::{FailureMode, InputInfo, Item, MergeOptions, MergeOutput, Merger, Src};
use crate::sys::threads::{self, Workers};

/// What the merger needs to know of a front-end's result besides the profile.
fn input_info<'w>(r: &ReadOutput<'_>, warnings: &'w [Warning]) -> InputInfo<'w> {
    InputInfo {
        warnings,
        raw: r.raw,
        indexed: r.format == frontends::FormatKind::IndexedProfile,
        suspicious_counter: r.suspicious_counter.as_ref().map(|s| (s.offset, s.value)),
    }
}

/// True if an accepted input read by the full reader may teach a layout: a raw file read
/// without warnings.
fn may_learn(r: &ReadOutput<'_>, opts: &MergeOptions) -> bool {
    r.raw
        && r.warnings.is_empty()
        && r.suspicious_counter.is_none()
        && r.profile.temporal.traces.is_empty()
        && r.profile.uncorrelated_counters == 0
        && opts.raw_layouts
}

/// Merges files. `progress` is called with the number of inputs finished so far.
///
/// An input that changes while it is read ([`InputFile::check_unchanged`]) is a failed
/// input: an error under [`FailureMode::Any`], else skipped with its reason. Inputs are
/// checked after parsing, before they are folded, and again after folding; one that
/// changed during its fold has already added to the merged profile, so under the other
/// failure modes the merge starts again without it (each new start leaves out at least one
/// more input, so this ends).
pub fn merge_files(
    inputs: &[InputSpec],
    opts: &MergeOptions,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<MergeOutput> {
    let (workers, warnings) = Workers::start(opts.threads);
    let mut changed = BTreeMap::new();
    loop {
        match merge_attempt(inputs, opts, &workers, progress, &changed)? {
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

/// One merge of `inputs`, leaving out those in `changed` (failed inputs, for what they were
/// found to be in an earlier attempt).
///
/// Windows are pipelined: while one window is folded, the next is opened and read on the
/// pool's other threads, so neither step waits for the slowest task of the other. A window
/// whose raw inputs may teach a layout is folded (and its layouts learned) before the next
/// is read, so that the next can take the fast path; the fold order, and so the result, is
/// the same either way.
fn merge_attempt(
    inputs: &[InputSpec],
    opts: &MergeOptions,
    workers: &Workers,
    progress: Option<&(dyn Fn(usize) + Sync)>,
    changed: &BTreeMap<usize, String>,
) -> Result<Attempt> {
    let threads = workers.threads();
    workers.install(|| {
        let window = if opts.window == 0 {
            (2 * threads).max(2)
        } else {
            opts.window
        };
        let caches = Caches {
            raw: frontends::profraw::NameCache::new(),
            indexed: frontends::profdata::IndexedNameCache::new(),
            text: frontends::proftext::TextNameCache::new(),
        };
        // The layouts registered with the merger, with their number there.
        let mut layouts: Vec<Known> = Vec::new();
        let mut done = 0usize;
        let mut base = 0usize;
        // The window read and not yet folded: the first is read before the merger is made,
        // because what it holds decides the merger's shards.
        let mut pending = take_window(inputs, &mut base, opts, window, threads)
            .map(|span| read_window(span, changed, &layouts, &caches));
        let shards = pending.as_ref().map_or(threads, |w| w.shards(threads));
        let mut acc = Merger::new(opts, shards);
        // The window folded last: its files are closed (unmapped) during the next overlap,
        // beside the fold, rather than between two parallel steps.
        let mut spent: Option<Window<'_>> = None;
        while let Some(mut w) = pending.take() {
            let next = take_window(inputs, &mut base, opts, window, threads);
            // Two windows in flight stay within one window's byte budget (large files are
            // folded before the next are mapped), and a window that may teach a layout is
            // folded first.
            let overlap = next
                .is_some_and(|n| w.span.bytes.saturating_add(n.bytes) <= window_budget(threads))
                && !w.may_teach(opts, &acc);
            let folded = if overlap {
                let closing = spent.take();
                let (folded, read) = threads::join(
                    || fold_window(&mut acc, &mut w, inputs, opts, &layouts, &caches.raw),
                    || {
                        drop(closing);
                        next.map(|span| read_window(span, changed, &layouts, &caches))
                    },
                );
                pending = read;
                folded?
            } else {
                drop(spent.take());
                fold_window(&mut acc, &mut w, inputs, opts, &layouts, &caches.raw)?
            };
            if let Some(changed_now) = folded {
                return Ok(Attempt::Changed(changed_now));
            }
            let more = next.is_some() || base < inputs.len();
            let n = w.span.chunk.len();
            w.learn(&mut acc, &mut layouts, opts, more, &caches.text);
            if overlap {
                spent = Some(w);
            } else {
                drop(w);
                if let Some(span) = next {
                    pending = Some(read_window(span, changed, &layouts, &caches));
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
    opts: &MergeOptions,
    window: usize,
    threads: usize,
) -> Option<Span<'i>> {
    if *base >= inputs.len() {
        return None;
    }
    let most = if *base == 0 && opts.raw_layouts {
        1
    } else {
        window
    };
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

/// The readers' caches of a merge, shared by every window.
struct Caches {
    raw: frontends::profraw::NameCache,
    indexed: frontends::profdata::IndexedNameCache,
    text: frontends::proftext::TextNameCache,
}

/// What a window's reading gave and, once it is folded, what became of each input.
struct WindowState<'f> {
    /// Per input of the window, in order: opened and read, or why not.
    opened: Vec<Opened<'f>>,
    /// The inputs read (by their index in the merge), once the failed ones are reported.
    owned: Vec<(usize, Read<'f>)>,
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

/// Opens and reads the inputs of `span` in parallel, each file by one task.
fn read_window<'i>(
    span: Span<'i>,
    changed: &BTreeMap<usize, String>,
    known: &[Known],
    caches: &Caches,
) -> Window<'i> {
    let Span { base, chunk, .. } = span;
    let files: Vec<OnceLock<InputFile>> = chunk.iter().map(|_| OnceLock::new()).collect();
    let cell = WindowCell::new(files, |files| {
        let pairs: Vec<(&InputSpec, &OnceLock<InputFile>)> = chunk.iter().zip(files).collect();
        let opened = threads::map(&pairs, 1, |k, &(i, slot)| {
            let opened = match changed.get(&(base + k)) {
                Some(what) => Err(changed_error(&i.path, what)),
                None => i.open(),
            };
            let f = match opened {
                Ok(f) => slot.get_or_init(|| f),
                Err(e) => return Opened::Failed(e),
            };
            let bytes = f.bytes();
            let fast = known.iter().find_map(|(n, l)| {
                if !l.header_matches(bytes) {
                    return None;
                }
                Some((*n, l.scan(bytes)?))
            });
            let read = match fast {
                Some((layout, scanned)) => Ok(Read::Fast {
                    layout,
                    scanned,
                    bytes,
                }),
                None => read_general(f, known, caches).map_err(|e| e.with_path(f.path())),
            };
            Opened::Read(f, read)
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
    opts: &MergeOptions,
    known: &[Known],
    cache: &frontends::profraw::NameCache,
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
        let mut accepted: Vec<Item<'_>> = Vec::new();
        let taken = &mut state.taken;
        // The only input of the merge, built into records: they become the merged
        // records (`Merger::fold_sole`) instead of going through the shards.
        let sole = inputs.len() == 1 && state.owned.len() == 1;
        for (idx, r) in state.owned.iter_mut() {
            let spec = &inputs[*idx];
            let ok = match r {
                Read::Fast {
                    layout,
                    scanned,
                    bytes,
                } => {
                    let ok = acc.begin_layout_input(*idx as u32, &spec.path, *layout)?;
                    ok.then_some(Src::Layout {
                        layout: *layout,
                        bytes,
                        values: &scanned.values,
                    })
                }
                Read::Indexed(s, bytes) => {
                    let info = InputInfo {
                        warnings: &s.warnings,
                        raw: false,
                        indexed: true,
                        suspicious_counter: None,
                    };
                    let ok =
                        acc.begin_input(*idx as u32, &spec.path, spec.weight, &s.profile, info)?;
                    ok.then_some(Src::File {
                        layout: &s.layout,
                        bytes,
                        values: &s.values,
                    })
                }
                Read::Text(s) => {
                    let ok = acc.begin_input(
                        *idx as u32,
                        &spec.path,
                        spec.weight,
                        &s.profile,
                        InputInfo::default(),
                    )?;
                    ok.then_some(Src::File {
                        layout: &s.layout,
                        bytes: &s.bytes,
                        values: &s.values,
                    })
                }
                Read::Parts(parts) => {
                    // Folded profile by profile, in order: what comes before first.
                    acc.fold(&accepted);
                    accepted.clear();
                    let ctx = PartsContext {
                        idx: *idx as u32,
                        spec,
                        file: files.get(*idx - base).and_then(OnceLock::get),
                        known,
                        cache,
                        opts,
                    };
                    taken.push(fold_parts(acc, &ctx, parts, &mut state.learned)?);
                    continue;
                }
                Read::General(r, _) => {
                    let info = input_info(r, &r.warnings);
                    let ok =
                        acc.begin_input(*idx as u32, &spec.path, spec.weight, &r.profile, info)?;
                    if ok && sole {
                        let p = std::mem::take(&mut r.profile);
                        acc.fold_sole(*idx as u32, spec.weight, p);
                        taken.push(true);
                        continue;
                    }
                    ok.then_some(Src::Profile(&r.profile))
                }
            };
            taken.push(ok.is_some());
            if let Some(src) = ok {
                accepted.push(Item {
                    idx: *idx as u32,
                    weight: spec.weight,
                    src,
                });
            }
        }
        acc.fold(&accepted);
        drop(accepted);
        // The bytes folded were read again from the files: check that they still were
        // what was parsed.
        let mut changed_now = Vec::new();
        for ((idx, _), taken) in state.owned.iter().zip(&state.taken) {
            if let (true, Some(f)) = (*taken, files.get(idx - base).and_then(OnceLock::get))
                && let Err(e) = f.check_unchanged()
            {
                if opts.failure_mode == FailureMode::Any {
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
    })
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
                    .all(|o| matches!(o, Opened::Read(_, Ok(Read::Indexed(..) | Read::Text(_)))))
        });
        if read_bound {
            (threads / 2).max(1)
        } else {
            threads
        }
    }

    /// True if folding this window may teach a layout (a raw input the full reader read
    /// cleanly, of a binary not yet learned): the next window is then read after it.
    fn may_teach(&self, opts: &MergeOptions, acc: &Merger<'_>) -> bool {
        acc.wants_layouts()
            && self.cell.with_dependent(|_, state| {
                state.opened.iter().any(|o| match o {
                    Opened::Read(_, Ok(Read::General(r, _))) => may_learn(r, opts),
                    Opened::Read(_, Ok(Read::Parts(_))) => opts.raw_layouts,
                    _ => false,
                })
            })
    }

    /// After a fold: hands text buffers back to their cache and, if `more` inputs follow,
    /// learns the layouts of the folded raw inputs, dropping each input's records first:
    /// with a million functions they are hundreds of megabytes. The files stay open.
    fn learn(
        &mut self,
        acc: &mut Merger<'_>,
        layouts: &mut Vec<Known>,
        opts: &MergeOptions,
        more: bool,
        text_names: &frontends::proftext::TextNameCache,
    ) {
        let base = self.span.base;
        self.cell.with_dependent_mut(|files, state| {
            // Registered during the fold, before any learned here.
            layouts.append(&mut state.learned);
            let owned = std::mem::take(&mut state.owned);
            for ((idx, read), taken) in owned.into_iter().zip(std::mem::take(&mut state.taken)) {
                if let Read::Text(s) = read {
                    text_names.recycle(s);
                    continue;
                }
                if let Read::General(r, bytes) = read
                    && taken
                    && more
                    && may_learn(&r, opts)
                    && acc.wants_layouts()
                    && let Some(file) = files.get(idx - base).and_then(OnceLock::get)
                {
                    let (kind, names, n) = (
                        r.profile.kind,
                        r.profile.names.clone(),
                        r.profile.records.len(),
                    );
                    drop(r);
                    learn(acc, layouts, kind, names, n, bytes, file);
                }
            }
        });
    }
}

/// Learns the layout of a folded raw input, so that later files of its binary take the
/// fast path: unless a known layout has the file's header and binary IDs (it accepts the
/// file, or the file is of a binary already learned but differs from its layout in a way
/// the layout does not allow: if that happens in every run, learning again would keep one
/// more copy of the binary's records and names per run, up to 16, for nothing), or the
/// layout's records are not exactly the `records` records the full reader gave (then the
/// two would not agree), or the file changed while the layout was taken from it (the input was folded whole before:
/// only the layout is left out).
#[allow(clippy::too_many_arguments)]
fn learn(
    acc: &mut Merger<'_>,
    layouts: &mut Vec<Known>,
    kind: crate::ir::ProfileKind,
    names: Arc<crate::ir::SymbolTable>,
    records: usize,
    bytes: &[u8],
    file: &InputFile,
) {
    if layouts.iter().any(|(_, l)| l.header_matches(bytes)) {
        return;
    }
    let Some(layout) = RawLayout::learn(bytes, kind, names) else {
        return;
    };
    if layout.records().len() != records || file.check_unchanged().is_err() {
        return;
    }
    if let Some(n) = acc.add_layout(Arc::clone(layout.counter_layout())) {
        layouts.push((n, layout));
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

/// Reads an input that no known raw layout accepts: an indexed profile as its records' places
/// (no records built), a text profile by the merge's text reader, anything else (and what
/// those two hand back) by the full reader.
fn read_general<'a>(file: &'a InputFile, known: &[Known], caches: &Caches) -> Result<Read<'a>> {
    let bytes = file.bytes();
    let (cache, indexed_names, text_names) = (&caches.raw, &caches.indexed, &caches.text);
    match frontends::FormatKind::sniff(bytes) {
        frontends::FormatKind::RawProfile => {
            // The pages the split goes through are read again profile by profile.
            let ranges = frontends::profraw::split_profiles(bytes, |end| file.release_before(end));
            if let Some(ranges) = ranges {
                return read_parts(file, ranges, known, cache);
            }
        }
        frontends::FormatKind::IndexedProfile => {
            if let Some(s) = frontends::profdata::scan(bytes, indexed_names)? {
                return Ok(Read::Indexed(s, bytes));
            }
        }
        frontends::FormatKind::TextProfile => {
            if let Some(s) = frontends::proftext::scan_cached(bytes, text_names) {
                return Ok(Read::Text(s));
            }
        }
        _ => {}
    }
    Ok(Read::General(frontends::read(bytes, cache)?, bytes))
}

/// One input of a window: the error that kept it from being opened, or the file opened and
/// what reading it gave. (A window's worth at a time, like [`Read`]: the size difference of
/// the variants does not matter.)
#[allow(clippy::large_enum_variant)]
enum Opened<'a> {
    Failed(Error),
    Read(&'a InputFile, Result<Read<'a>>),
}

/// One input after reading: through a known layout, as an indexed profile's records' places,
/// or by the full reader. (Short-lived, a window's worth at a time: the size difference of
/// the variants does not matter.)
#[allow(clippy::large_enum_variant)]
enum Read<'a> {
    Fast {
        layout: usize,
        scanned: Scanned,
        bytes: &'a [u8],
    },
    Indexed(frontends::profdata::IndexedScan<'a>, &'a [u8]),
    /// A raw file of several profiles, checked one profile at a time and folded so.
    Parts(Parts<'a>),
    /// A text profile read by the merge's text reader: its counters in a buffer of its own.
    Text(frontends::proftext::TextScan),
    General(ReadOutput<'a>, &'a [u8]),
}

/// A layout registered with the merger, with its number there.
type Known = (usize, RawLayout);

/// A raw file of several profiles (as a process whose executable and shared libraries are
/// instrumented writes), checked profile by profile when it was read and folded so
/// ([`fold_parts`]): memory holds one profile's records at a time, not the file's.
struct Parts<'a> {
    bytes: &'a [u8],
    /// The profiles' byte ranges, in file order.
    ranges: Vec<std::ops::Range<usize>>,
    /// The first profile, read: the input begins with it.
    first: ReadOutput<'a>,
    /// The warnings of every profile, at file offsets, in file order.
    warnings: Vec<Warning>,
    /// The file's first implausibly large counter (file offset, value): the input fails.
    suspicious: Option<(u64, u64)>,
}

/// `w` at an offset `base` bytes further into the file.
fn rebase_warning(mut w: Warning, base: usize) -> Warning {
    if let Some(crate::error::Location::Offset(o)) = &mut w.location {
        *o = o.saturating_add(base as u64);
    }
    w
}

/// Checks the profiles of a raw file that holds several, one at a time, keeping only their
/// warnings, its first implausible counter and the first profile's records: a profile a
/// layout learned from an earlier one accepts is checked by it, the others are read. The
/// first error (at its file offset) fails the input, as reading the file whole would. The
/// pages of the profiles checked are released as it goes.
fn read_parts<'a>(
    file: &'a InputFile,
    ranges: Vec<std::ops::Range<usize>>,
    known: &[Known],
    cache: &frontends::profraw::NameCache,
) -> Result<Read<'a>> {
    let bytes = file.bytes();
    let mut local: Vec<RawLayout> = Vec::new();
    let mut warnings = Vec::new();
    let mut suspicious = None;
    let mut first = None;
    for range in &ranges {
        let part = bytes.get(range.clone()).unwrap_or_default();
        let base = range.start;
        let scanned = |l: &RawLayout| l.header_matches(part) && l.scan(part).is_some();
        if first.is_some() && (local.iter().any(scanned) || known.iter().any(|(_, l)| scanned(l))) {
            file.release_before(range.end);
            continue;
        }
        let out = frontends::read(part, cache).map_err(|e| e.rebase(base as u64))?;
        warnings.extend(
            out.warnings
                .iter()
                .cloned()
                .map(|w| rebase_warning(w, base)),
        );
        if let Some(s) = &out.suspicious_counter {
            // The input fails: the rest need no look.
            suspicious = Some((s.offset.saturating_add(base as u64), s.value));
            first.get_or_insert(out);
            break;
        }
        if out.warnings.is_empty()
            && local.len() < MAX_PART_LAYOUTS
            && !local.iter().any(|l| l.header_matches(part))
            && let Some(l) = RawLayout::learn(part, out.profile.kind, out.profile.names.clone())
            && l.records().len() == out.profile.records.len()
        {
            local.push(l);
        }
        first.get_or_insert(out);
        if range.start > 0 {
            file.release_before(range.end);
        }
    }
    let first = first.ok_or_else(|| {
        Error::new(ErrorKind::Io(std::io::Error::other(
            "internal error: a raw file of several profiles without a first one",
        )))
    })?;
    Ok(Read::Parts(Parts {
        bytes,
        ranges,
        first,
        warnings,
        suspicious,
    }))
}

/// Layouts learned while checking one file of several profiles (the distinct binaries that
/// wrote them, as the merger takes at most 16 layouts in all).
const MAX_PART_LAYOUTS: usize = 16;

/// What [`fold_parts`] needs besides the merger and the file.
struct PartsContext<'c> {
    /// The input's position in the merge.
    idx: u32,
    spec: &'c InputSpec,
    /// The file, whose pages are released as its profiles are folded.
    file: Option<&'c InputFile>,
    /// The layouts registered before this window was folded.
    known: &'c [Known],
    cache: &'c frontends::profraw::NameCache,
    opts: &'c MergeOptions,
}

/// Folds a raw file of several profiles profile by profile, in file order: what folding its
/// records all at once does, with one profile's records in memory at a time. The input
/// begins with its first profile and all the file's warnings (so a failure, an implausible
/// counter included, leaves no trace); a later profile goes through a registered layout
/// that accepts it, or is read and folded, and a layout is learned from it if it may teach
/// one (registered, and added to `learned`). Returns whether the merger took the input.
fn fold_parts(
    acc: &mut Merger<'_>,
    ctx: &PartsContext<'_>,
    parts: &Parts<'_>,
    learned: &mut Vec<Known>,
) -> Result<bool> {
    let (idx, path, weight) = (ctx.idx, ctx.spec.path.as_path(), ctx.spec.weight);
    let info = InputInfo {
        warnings: &parts.warnings,
        raw: true,
        indexed: false,
        suspicious_counter: parts.suspicious,
    };
    if !acc.begin_input(idx, path, weight, &parts.first.profile, info)? {
        return Ok(false);
    }
    for (k, range) in parts.ranges.iter().enumerate() {
        let part = parts.bytes.get(range.clone()).unwrap_or_default();
        if let Some(f) = ctx.file.filter(|_| k > 1) {
            // The profiles before the previous one are done with (the bytes of the first,
            // which its records borrow, are read back if they are touched again).
            f.release_before(parts.ranges.get(k - 1).map_or(0, |r| r.start));
        }
        if k == 0 {
            acc.fold(&[Item {
                idx,
                weight,
                src: Src::Profile(&parts.first.profile),
            }]);
            learn_part(acc, ctx, part, &parts.first, learned);
            continue;
        }
        let fast = ctx.known.iter().chain(learned.iter()).find_map(|(n, l)| {
            if !l.header_matches(part) {
                return None;
            }
            Some((*n, l.scan(part)?))
        });
        if let Some((n, scanned)) = fast {
            acc.begin_layout_input(idx, path, n)?;
            let src = Src::Layout {
                layout: n,
                bytes: part,
                values: &scanned.values,
            };
            acc.fold(&[Item { idx, weight, src }]);
            continue;
        }
        // Checked when the file was read: a failure now means the file changed, which the
        // check after the fold reports.
        let out = frontends::read(part, ctx.cache).map_err(|e| e.rebase(range.start as u64))?;
        let info = InputInfo {
            raw: true,
            ..InputInfo::default()
        };
        if acc.begin_input(idx, path, weight, &out.profile, info)? {
            acc.fold(&[Item {
                idx,
                weight,
                src: Src::Profile(&out.profile),
            }]);
            learn_part(acc, ctx, part, &out, learned);
        }
    }
    Ok(true)
}

/// Learns and registers the layout of `part`, a profile of a file of several just folded
/// from `read`, if it may teach one and no layout has its header.
fn learn_part(
    acc: &mut Merger<'_>,
    ctx: &PartsContext<'_>,
    part: &[u8],
    read: &ReadOutput<'_>,
    learned: &mut Vec<Known>,
) {
    if !may_learn(read, ctx.opts)
        || !acc.wants_layouts()
        || ctx
            .known
            .iter()
            .chain(learned.iter())
            .any(|(_, l)| l.header_matches(part))
    {
        return;
    }
    let Some(layout) = RawLayout::learn(part, read.profile.kind, read.profile.names.clone()) else {
        return;
    };
    if layout.records().len() != read.profile.records.len() {
        return;
    }
    if let Some(n) = acc.add_layout(Arc::clone(layout.counter_layout())) {
        learned.push((n, layout));
    }
}
