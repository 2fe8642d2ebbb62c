//! The merge pass: combine many profiles into one, exactly as `llvm-profdata merge` would
//! combine them one after another in input order, but in parallel.
//!
//! # Semantics (those of LLVM's `InstrProfWriter::addRecord`)
//! * Records are keyed by (name hash, structural hash). The first time a key is seen its
//!   record is taken as is, scaled by the input's weight if the weight is not 1 (counters
//!   clamped to `u64::MAX − 2`, LLVM's largest real count).
//! * Later records with the same key add `weight × count` to each counter (saturating, then
//!   clamped), OR their MC/DC bitmap bytes, and merge value sites per value: values present
//!   on both sides add `weight × count`; values new to the site are inserted with their
//!   **unweighted** count, as LLVM does (set [`MergeOptions::weight_all_values`] to weight
//!   them too). After every record each site is stable-sorted by descending count and cut to
//!   255 values.
//! * A different counter count under one key is a conflict between two inputs: an error
//!   naming both files under [`FailureMode::Any`], otherwise a warning and the later record is
//!   dropped (LLVM only warns). Bitmap-size and value-site-count differences are handled the
//!   same way.
//!
//! # Determinism and parallelism
//! Every function's result depends only on the ordered sequence of its own records. The pass
//! shards functions by name hash and each shard folds all inputs in input order, so the result
//! is identical for any number of threads, and identical to `llvm-profdata merge
//! --num-threads=1` on the same inputs in the same order. (`llvm-profdata` with several
//! threads merges per-thread partial results, which changes weighted value counts and the
//! order of records that share a name; we do not reproduce that.) Inputs are read and parsed
//! in parallel in windows, so memory stays bounded by the merged profile plus one window of
//! inputs, whatever the number of inputs.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::libstdcxx_sort;
use super::temporal::TraceReservoir;
use super::weight::Weight;
use crate::bytes::limits::MAX_VALUES_PER_SITE;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::frontends::profraw::layout::{RawLayout, Scanned};
use crate::frontends::{self, InputFile, ReadOutput};
use crate::ir::{
    Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, Provenance, SymbolTable,
    SymbolTableUnion, ValueCount, ValueKind, ValueProfile, ValueSite,
};
use crate::value_prof_data::FlatValues;

/// LLVM's largest stored count: `u64::MAX − 1` and `u64::MAX` mark pseudo counts.
pub const MAX_COUNT: u64 = u64::MAX - 2;
/// First counter value LLVM uses to mark a pseudo-hot function.
pub const PSEUDO_HOT: u64 = u64::MAX;
/// First counter value LLVM uses to mark a pseudo-warm function.
pub const PSEUDO_WARM: u64 = u64::MAX - 1;

/// What to do when an input cannot be used. Same meanings as `llvm-profdata --failure-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FailureMode {
    /// Fail on the first bad input or conflict (llvm-profdata's `any`, the default).
    #[default]
    Any,
    /// Fail only if every input is bad; otherwise warn and skip.
    All,
    /// Never fail because of inputs: warn and skip.
    Warn,
}

/// Options of the merge pass.
#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// What to do with bad inputs and conflicting records.
    pub failure_mode: FailureMode,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Inputs read and parsed at once; 0 means `2 × threads` (at least 2).
    pub window: usize,
    /// Weight value counts that an input adds to a site for the first time (LLVM does not).
    pub weight_all_values: bool,
    /// Temporal traces kept (`--temporal-profile-trace-reservoir-size`).
    pub temporal_reservoir_size: u64,
    /// Longest temporal trace kept (`--temporal-profile-max-trace-length`).
    pub temporal_max_trace_length: u64,
    /// Renames functions before merging (`--remapping-file`).
    pub remapping: Option<std::sync::Arc<super::remap::Remapping>>,
    /// Recognise raw files of a binary already seen by comparing their bytes with the first
    /// one's, and merge their counters where they lie (on by default). The result is the same
    /// either way; turning it off is for testing that.
    pub raw_layouts: bool,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            failure_mode: FailureMode::Any,
            threads: 0,
            window: 0,
            weight_all_values: false,
            temporal_reservoir_size: 100,
            temporal_max_trace_length: 10_000,
            remapping: None,
            raw_layouts: true,
        }
    }
}

/// One input of a merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputSpec {
    /// The file.
    pub path: PathBuf,
    /// Its weight.
    pub weight: Weight,
}

/// The result of a merge.
#[derive(Debug)]
pub struct MergeOutput {
    /// The merged profile; records are in order of first appearance.
    pub profile: Profile<'static>,
    /// Warnings, in input order.
    pub warnings: Vec<Warning>,
    /// Inputs that were skipped (only with [`FailureMode::All`] or [`FailureMode::Warn`]).
    pub skipped: Vec<(PathBuf, Error)>,
    /// Number of inputs merged.
    pub inputs_merged: usize,
    /// True if exactly one input was merged and it was an indexed profile: writing the result
    /// again should then keep its record order (see `ProfdataOptions::preserve_record_order`).
    pub sole_input_indexed: bool,
}

/// Merges files. `progress` is called with the number of inputs finished so far.
pub fn merge_files(
    inputs: &[InputSpec],
    opts: &MergeOptions,
    progress: Option<&(dyn Fn(usize) + Sync)>,
) -> Result<MergeOutput> {
    let (pool, threads) = super::worker_pool(opts.threads)?;
    pool.install(|| {
        let window = if opts.window == 0 {
            (2 * threads).max(2)
        } else {
            opts.window
        };
        let cache = frontends::profraw::NameCache::new();
        let mut acc = Accumulator::new(opts, threads);
        let mut done = 0usize;
        let mut base = 0usize;
        while base < inputs.len() {
            // The first window is one file: a raw file teaches its binary's layout, and every
            // later file of that binary can take the fast path.
            let first = if base == 0 && opts.raw_layouts {
                1
            } else {
                window
            };
            let chunk = next_window(&inputs[base..], first, threads);
            let opened: Vec<Result<InputFile>> =
                chunk.par_iter().map(|i| InputFile::open(&i.path)).collect();
            let mut files = Vec::with_capacity(opened.len());
            let mut failures: Vec<(usize, Error)> = Vec::new();
            for (k, r) in opened.into_iter().enumerate() {
                match r {
                    Ok(f) => files.push((k, f)),
                    Err(e) => failures.push((k, e)),
                }
            }
            let layouts = &acc.layouts;
            let reads: Vec<(usize, Read<'_>)> = files
                .par_iter()
                .map(|(k, f)| {
                    let bytes = f.bytes();
                    let fast = layouts.iter().enumerate().find_map(|(li, l)| {
                        if !l.layout.header_matches(bytes) {
                            return None;
                        }
                        Some((li, l.layout.scan(bytes)?))
                    });
                    let read = match fast {
                        Some((layout, scanned)) => Read::Fast {
                            layout,
                            scanned,
                            bytes,
                        },
                        None => Read::General(
                            frontends::read(bytes, &cache).map_err(|e| e.with_path(f.path())),
                            bytes,
                        ),
                    };
                    (*k, read)
                })
                .collect();
            let mut owned: Vec<(usize, Read<'_>)> = Vec::new();
            let mut failures = failures.into_iter().peekable();
            for (k, read) in reads {
                while let Some((fk, _)) = failures.peek()
                    && *fk < k
                {
                    if let Some((fk, e)) = failures.next() {
                        acc.input_failed(&chunk[fk].path, e)?;
                    }
                }
                match read {
                    Read::General(Err(e), _) => acc.input_failed(&chunk[k].path, e)?,
                    other => owned.push((base + k, other)),
                }
            }
            for (fk, e) in failures {
                acc.input_failed(&chunk[fk].path, e)?;
            }
            let mut accepted: Vec<Item<'_>> = Vec::new();
            let mut taken: Vec<bool> = Vec::with_capacity(owned.len());
            for (idx, r) in &owned {
                let spec = &inputs[*idx];
                let ok = match r {
                    Read::Fast {
                        layout,
                        scanned,
                        bytes,
                    } => {
                        let ok = acc.begin_fast(*idx as u32, &spec.path, *layout)?;
                        ok.then_some(Src::Raw {
                            layout: *layout,
                            bytes,
                            values: &scanned.values,
                        })
                    }
                    Read::General(Ok(r), _) => {
                        let ok = acc.begin_input(*idx as u32, &spec.path, spec.weight, r)?;
                        ok.then_some(Src::Profile(&r.profile))
                    }
                    Read::General(Err(_), _) => None,
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
            // Learn layouts from the folded raw inputs, dropping each input's records first:
            // with a million functions they are hundreds of megabytes. After the last window
            // there is nothing left to speed up.
            let more = base + chunk.len() < inputs.len();
            for ((_, read), taken) in owned.into_iter().zip(taken) {
                if let Read::General(Ok(r), bytes) = read
                    && taken
                    && more
                    && acc.may_learn(&r)
                {
                    let (kind, names, n) = (
                        r.profile.kind,
                        r.profile.names.clone(),
                        r.profile.records.len(),
                    );
                    drop(r);
                    acc.learn(kind, names, n, bytes);
                }
            }
            done += chunk.len();
            base += chunk.len();
            if let Some(p) = progress {
                p(done);
            }
        }
        acc.finish(inputs.len())
    })
}

/// Most layouts (distinct binaries) remembered for the fast path.
const MAX_LAYOUTS: usize = 16;

/// Bytes of input read per window and thread, unless a single file is larger.
const WINDOW_BYTES_PER_THREAD: u64 = 32 << 20;

/// The inputs of the next window: at most `window` files, and no more than
/// [`WINDOW_BYTES_PER_THREAD`] × `threads` bytes (by the sizes the file system reports) once
/// every thread has a file. This bounds the memory of the files in flight while giving each
/// parallel step enough work to be worth its synchronisation.
fn next_window(rest: &[InputSpec], window: usize, threads: usize) -> &[InputSpec] {
    let budget = WINDOW_BYTES_PER_THREAD.saturating_mul(threads as u64);
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
    &rest[..n.max(1).min(rest.len())]
}

/// One input after reading: through a known layout, or by the full reader. (Short-lived, a
/// window's worth at a time: the size difference of the variants does not matter.)
#[allow(clippy::large_enum_variant)]
enum Read<'a> {
    Fast {
        layout: usize,
        scanned: Scanned,
        bytes: &'a [u8],
    },
    General(Result<ReadOutput<'a>>, &'a [u8]),
}

/// An accepted input, ready to fold.
struct Item<'b> {
    idx: u32,
    weight: Weight,
    src: Src<'b>,
}

/// Where an accepted input's records are.
enum Src<'b> {
    /// Records built by a front-end.
    Profile(&'b Profile<'b>),
    /// A raw file of a known layout: the records are the layout's, the payload in `bytes`.
    Raw {
        layout: usize,
        bytes: &'b [u8],
        values: &'b FlatValues,
    },
}

/// A learned layout and, per shard, the (record index, slot in the shard) pairs of its
/// records that the shard owns, in record order.
struct KnownLayout {
    layout: Arc<RawLayout>,
    by_shard: Vec<Vec<(u32, u32)>>,
}

/// Merges profiles already in memory (library use and tests). `label`s name the inputs in
/// messages.
pub fn merge_profiles(
    inputs: &[(&Profile<'_>, Weight, &Path)],
    opts: &MergeOptions,
) -> Result<MergeOutput> {
    let threads = if opts.threads == 0 {
        rayon::current_num_threads().max(1)
    } else {
        opts.threads
    };
    let mut acc = Accumulator::new(opts, threads);
    let mut accepted = Vec::new();
    for (i, (p, w, path)) in inputs.iter().enumerate() {
        let r = ReadOutput::from_profile((*p).clone());
        if acc.begin_input(i as u32, path, *w, &r)? {
            accepted.push(Item {
                idx: i as u32,
                weight: *w,
                src: Src::Profile(p),
            });
        }
    }
    acc.fold(&accepted);
    acc.finish(inputs.len())
}

/// A conflict or warning found while folding records, ordered by where it happened.
#[derive(Debug, Clone)]
struct Event {
    input: u32,
    record: u32,
    key: FunctionKey,
    what: EventKind,
}

#[derive(Debug, Clone)]
enum EventKind {
    Overflow,
    Mismatch {
        what: &'static str,
        first_input: u32,
        first_value: u64,
        value: u64,
    },
}

struct Accumulator<'o> {
    opts: &'o MergeOptions,
    shards: Vec<Shard>,
    kind: Option<ProfileKind>,
    names: SymbolTableUnion,
    vtable_names: SymbolTableUnion,
    seen_tables: Vec<Arc<SymbolTable>>,
    binary_ids: Vec<Vec<u8>>,
    temporal: TraceReservoir,
    warnings: Vec<(u32, Warning)>,
    skipped: Vec<(PathBuf, Error)>,
    paths: HashMap<u32, PathBuf>,
    merged: usize,
    uncorrelated: u64,
    any_indexed: bool,
    layout: Option<crate::ir::TableLayout>,
    /// Raw layouts learned so far (the fast path).
    layouts: Vec<KnownLayout>,
}

impl<'o> Accumulator<'o> {
    fn new(opts: &'o MergeOptions, threads: usize) -> Self {
        Accumulator {
            opts,
            shards: (0..threads.max(1)).map(|_| Shard::default()).collect(),
            kind: None,
            names: SymbolTableUnion::default(),
            vtable_names: SymbolTableUnion::default(),
            seen_tables: Vec::new(),
            binary_ids: Vec::new(),
            temporal: TraceReservoir::new(
                opts.temporal_reservoir_size,
                opts.temporal_max_trace_length,
            ),
            warnings: Vec::new(),
            skipped: Vec::new(),
            paths: HashMap::new(),
            merged: 0,
            uncorrelated: 0,
            any_indexed: false,
            layout: None,
            layouts: Vec::new(),
        }
    }

    fn input_failed(&mut self, path: &Path, e: Error) -> Result<()> {
        if self.opts.failure_mode == FailureMode::Any {
            return Err(e);
        }
        self.skipped.push((path.to_path_buf(), e));
        Ok(())
    }

    /// Checks an input's kind and takes its tables and sections. Returns false if the input is
    /// skipped.
    fn begin_input(
        &mut self,
        idx: u32,
        path: &Path,
        weight: Weight,
        r: &ReadOutput<'_>,
    ) -> Result<bool> {
        let p = &r.profile;
        if let Some(s) = &r.suspicious_counter {
            let e = Error::malformed(
                s.offset,
                "counter",
                format!(
                    "excessively large counter value {} suggests a corrupted profile \
                     (counters above 2^56 are rejected, as llvm-profdata does)",
                    s.value
                ),
            )
            .with_path(path);
            self.input_failed(path, e)?;
            return Ok(false);
        }
        if let Some(prev) = self.kind
            && let Some(msg) = kind_conflict(prev, p.kind)
        {
            let e = Error::new(ErrorKind::KindConflict(msg)).with_path(path);
            self.input_failed(path, e)?;
            return Ok(false);
        }
        for w in &r.warnings {
            self.warnings.push((
                idx,
                Warning {
                    path: Some(path.to_path_buf()),
                    function: None,
                    message: w.clone(),
                },
            ));
        }
        if p.uncorrelated_counters > 0 {
            self.uncorrelated += p.uncorrelated_counters;
            self.warnings.push((
                idx,
                Warning {
                    path: Some(path.to_path_buf()),
                    function: None,
                    message: format!(
                        "{} counters have no data records (a correlation-mode profile: they need \
                         the binary or its debug info to be named) and were not merged",
                        p.uncorrelated_counters
                    ),
                },
            ));
        }
        let mut k = self.kind.unwrap_or_default();
        k.insert(p.kind);
        if k.is_ir() {
            k.remove(ProfileKind::FRONTEND);
        }
        self.kind = Some(k);
        for (table, dst) in [(&p.names, 0), (&p.vtable_names, 1)] {
            if self.seen_tables.iter().any(|t| Arc::ptr_eq(t, table)) {
                continue;
            }
            if dst == 0 {
                self.names.add_table(table);
            } else {
                self.vtable_names.add_table(table);
            }
            self.seen_tables.push(table.clone());
        }
        // The writer sorts and deduplicates them; keeping each once bounds memory by the
        // number of distinct binaries, not of inputs.
        for id in &p.binary_ids {
            if !self.binary_ids.contains(id) {
                self.binary_ids.push(id.clone());
            }
        }
        if !p.temporal.traces.is_empty() || p.temporal.stream_size > 0 {
            let traces = p
                .temporal
                .traces
                .iter()
                .map(|t| {
                    let mut t = t.clone();
                    // Raw inputs carry weight 1 and get the input's weight, as in LLVM.
                    if r.raw {
                        t.weight = weight.rounded();
                    }
                    t
                })
                .collect();
            self.temporal.add(traces, p.temporal.stream_size);
        }
        if let Some(remap) = &self.opts.remapping {
            for (_, name, hash) in remap.entries() {
                self.names.insert_hashed(hash, name.clone());
            }
        }
        if r.format == crate::detect::FormatKind::IndexedProfile {
            self.any_indexed = true;
            if self.layout.is_none() {
                self.layout = p.layout.clone();
            }
        }
        self.paths.insert(idx, path.to_path_buf());
        self.merged += 1;
        Ok(true)
    }

    /// [`Accumulator::begin_input`] for a raw file of a known layout: the full reader would
    /// have given a profile of the layout's kind and tables, no warning, no binary ID not
    /// already taken and no temporal trace, so only the kind check and the bookkeeping remain.
    fn begin_fast(&mut self, idx: u32, path: &Path, layout: usize) -> Result<bool> {
        let kind = match self.layouts.get(layout) {
            Some(l) => l.layout.kind(),
            None => return Ok(false),
        };
        if let Some(prev) = self.kind
            && let Some(msg) = kind_conflict(prev, kind)
        {
            let e = Error::new(ErrorKind::KindConflict(msg)).with_path(path);
            self.input_failed(path, e)?;
            return Ok(false);
        }
        let mut k = self.kind.unwrap_or_default();
        k.insert(kind);
        if k.is_ir() {
            k.remove(ProfileKind::FRONTEND);
        }
        self.kind = Some(k);
        self.paths.insert(idx, path.to_path_buf());
        self.merged += 1;
        Ok(true)
    }

    /// True if an accepted input read by the full reader may teach a layout: a raw file read
    /// without warnings, of a binary not known yet.
    fn may_learn(&self, r: &ReadOutput<'_>) -> bool {
        r.raw
            && r.warnings.is_empty()
            && r.suspicious_counter.is_none()
            && r.profile.temporal.traces.is_empty()
            && r.profile.uncorrelated_counters == 0
            && self.opts.remapping.is_none()
            && self.opts.raw_layouts
            && self.layouts.len() < MAX_LAYOUTS
    }

    /// Learns the layout of a folded raw input, so that later files of its binary take the
    /// fast path. Every record's key has a slot by now: the input was just folded.
    fn learn(&mut self, kind: ProfileKind, names: Arc<SymbolTable>, records: usize, bytes: &[u8]) {
        if self
            .layouts
            .iter()
            .any(|l| l.layout.header_matches(bytes) && l.layout.scan(bytes).is_some())
        {
            return;
        }
        let Some(layout) = RawLayout::learn(bytes, kind, names) else {
            return;
        };
        // The layout's records are the full reader's: the same parse, and no record dropped
        // (the layout has every name).
        if layout.records().len() != records {
            return;
        }
        let n = self.shards.len();
        let mut by_shard: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for (ri, rec) in layout.records().iter().enumerate() {
            let si = shard_of(rec.key.name, n);
            let Some(slot) = self.shards[si].slot_of(rec.key) else {
                return;
            };
            by_shard[si].push((ri as u32, slot as u32));
        }
        self.layouts.push(KnownLayout {
            layout: Arc::new(layout),
            by_shard,
        });
    }

    /// Folds the records of accepted inputs (in input order) into the shards, in parallel.
    fn fold(&mut self, batch: &[Item<'_>]) {
        let n = self.shards.len();
        let weight_all = self.opts.weight_all_values;
        let remap = self.opts.remapping.as_deref();
        let layouts = &self.layouts;
        self.shards
            .par_iter_mut()
            .enumerate()
            .for_each(|(si, shard)| {
                for item in batch {
                    match &item.src {
                        Src::Profile(p) => {
                            let key_of = |rec: &FunctionRecord<'_>| match remap {
                                Some(m) => FunctionKey {
                                    name: m.map(rec.key.name),
                                    cfg: rec.key.cfg,
                                },
                                None => rec.key,
                            };
                            if shard.records.is_empty() {
                                let (mut records, mut counters) = (0, 0);
                                for r in &p.records {
                                    if shard_of(key_of(r).name, n) == si {
                                        records += 1;
                                        counters += r.counters.len();
                                    }
                                }
                                shard.reserve_new(records, counters);
                            }
                            for (ri, rec) in p.records.iter().enumerate() {
                                let key = key_of(rec);
                                if shard_of(key.name, n) != si {
                                    continue;
                                }
                                shard.add(key, rec, item.weight, item.idx, ri as u32, weight_all);
                            }
                        }
                        Src::Raw {
                            layout,
                            bytes,
                            values,
                        } => {
                            let Some(l) = layouts.get(*layout) else {
                                continue;
                            };
                            shard.add_raw(
                                &l.layout,
                                &l.by_shard[si],
                                bytes,
                                values,
                                item,
                                weight_all,
                            );
                        }
                    }
                }
            });
    }

    fn finish(mut self, total_inputs: usize) -> Result<MergeOutput> {
        if self.opts.failure_mode == FailureMode::All && self.merged == 0 && total_inputs > 0 {
            let e = match self.skipped.pop() {
                Some((_, e)) => e,
                None => Error::new(ErrorKind::Usage("no profile can be merged".into())),
            };
            return Err(e);
        }
        let mut events: Vec<Event> = Vec::new();
        let mut records: Vec<(AccRecord, usize)> = Vec::new();
        let mut arenas: Vec<Arc<Vec<u64>>> = Vec::new();
        for (si, s) in self.shards.drain(..).enumerate() {
            events.extend(s.events);
            records.extend(s.records.into_iter().map(|r| (r, si)));
            arenas.push(Arc::new(s.counters));
        }
        events.sort_by_key(|e| (e.input, e.record));
        records.sort_by_key(|(r, _)| r.first_seen);

        let name_of = |key: FunctionKey| -> String {
            match self.names.get(key.name) {
                Some(n) => String::from_utf8_lossy(n).into_owned(),
                None => format!("<name hash {:#018x}>", key.name),
            }
        };
        let path_of = |i: u32| -> String {
            self.paths
                .get(&i)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| format!("input #{i}"))
        };
        let mut warnings = std::mem::take(&mut self.warnings);
        for ev in &events {
            match &ev.what {
                EventKind::Overflow => warnings.push((
                    ev.input,
                    Warning {
                        path: self.paths.get(&ev.input).cloned(),
                        function: Some(name_of(ev.key)),
                        message: "counter overflow: counts saturated".into(),
                    },
                )),
                EventKind::Mismatch {
                    what,
                    first_input,
                    first_value,
                    value,
                } => {
                    if self.opts.failure_mode == FailureMode::Any {
                        return Err(Error::new(ErrorKind::MergeMismatch {
                            function: format!(
                                "{} (structural hash {:#x})",
                                name_of(ev.key),
                                ev.key.cfg
                            ),
                            what,
                            first_value: *first_value,
                            first: path_of(*first_input),
                            second_value: *value,
                            second: path_of(ev.input),
                        }));
                    }
                    warnings.push((
                        ev.input,
                        Warning {
                            path: self.paths.get(&ev.input).cloned(),
                            function: Some(name_of(ev.key)),
                            message: format!(
                                "{what}: {value} here, {first_value} in {}; this input's record is \
                                 not merged",
                                path_of(*first_input)
                            ),
                        },
                    ));
                }
            }
        }
        warnings.sort_by_key(|(i, _)| *i);

        let kind = self.kind.unwrap_or(ProfileKind::empty());
        let out_records: Vec<FunctionRecord<'static>> = records
            .into_iter()
            .map(|(mut r, si)| {
                if let Some(v) = r.values.as_deref_mut() {
                    finish_value_order(v, r.values_by_value);
                }
                let (start, len) = r.counters;
                FunctionRecord {
                    key: r.key,
                    counters: Counters::Shared {
                        all: Arc::clone(&arenas[si]),
                        start,
                        len,
                    },
                    bitmap: Cow::Owned(r.bitmap),
                    values: r.values,
                }
            })
            .collect();
        Ok(MergeOutput {
            profile: Profile {
                kind,
                records: out_records,
                names: self.names.finish(),
                vtable_names: self.vtable_names.finish(),
                binary_ids: self.binary_ids,
                temporal: self.temporal.finish(),
                uncorrelated_counters: self.uncorrelated,
                stored_summaries: None,
                layout: if self.merged == 1 && self.any_indexed {
                    self.layout.take()
                } else {
                    None
                },
                provenance: Provenance {
                    path: None,
                    format: "merged".into(),
                },
            },
            warnings: warnings.into_iter().map(|(_, w)| w).collect(),
            skipped: self.skipped,
            inputs_merged: self.merged,
            sole_input_indexed: self.merged == 1 && self.any_indexed,
        })
    }
}

/// Why two profile kinds cannot be merged, if they cannot.
pub fn kind_conflict(acc: ProfileKind, input: ProfileKind) -> Option<String> {
    if acc.is_ir() != input.is_ir() {
        let (a, b) = if input.is_ir() {
            (
                "an IR-level profile (-fprofile-generate, rustc -Cprofile-generate)",
                "front-end profiles (clang -fprofile-instr-generate, coverage)",
            )
        } else {
            (
                "a front-end profile (clang -fprofile-instr-generate, coverage)",
                "IR-level profiles (-fprofile-generate, rustc -Cprofile-generate)",
            )
        };
        return Some(format!(
            "this is {a} but the inputs before it are {b}; the two kinds number their counters \
             differently and cannot be merged"
        ));
    }
    let entry_only = ProfileKind::FUNCTION_ENTRY_ONLY;
    let block = ProfileKind::ENTRY_FIRST.union(ProfileKind::LOOP_ENTRIES);
    if (acc.contains(entry_only) && input.intersects(block))
        || (input.contains(entry_only) && acc.intersects(block))
    {
        return Some(
            "function-entry-only coverage profiles cannot be merged with block profiles \
             (entry-first or loop-entries instrumentation)"
                .into(),
        );
    }
    None
}

fn shard_of(name_hash: u64, n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        ((name_hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % n as u64) as usize
    }
}

/// The index hash of a key: the name hash is an MD5 already, so a rotation and an XOR with
/// the structural hash spread keys well.
fn key_hash(key: FunctionKey) -> u64 {
    key.name.rotate_left(29) ^ key.cfg
}

#[derive(Debug)]
struct AccRecord {
    key: FunctionKey,
    first_seen: (u32, u32),
    /// Where its counters are in the shard's arena: `start..start + len`.
    counters: (usize, usize),
    bitmap: Vec<u8>,
    values: Option<Box<ValueProfile>>,
    /// The kinds (a bit per [`ValueKind::index`]) whose sites are held sorted by value, their
    /// count order deferred to the end of the merge (see [`merge_site`]).
    values_by_value: u8,
    /// The kinds (a bit per [`ValueKind::index`]) with a site that holds a value several
    /// times, kept in LLVM's order (see [`merge_site`]); the other sites of a kind in
    /// `values_by_value` are in value order with distinct values.
    values_repeated: u8,
}

#[derive(Debug, Default)]
struct Shard {
    /// Slots of `records`, found by key ([`key_hash`]). Four bytes a record, where a map
    /// from key to slot would take 24: with a million functions that is 40 MB less.
    /// Invariant: a shard holds fewer than 2^32 records.
    index: hashbrown::HashTable<u32>,
    records: Vec<AccRecord>,
    /// The counters of all records, each record's in one run, in the order the records were
    /// first seen: for later files of a binary the adds then walk this in step with the
    /// file's counters, instead of one allocation per function.
    counters: Vec<u64>,
    events: Vec<Event>,
    /// Scratch space for value-site merges.
    scratch: [Vec<ValueCount>; 2],
}

/// The part of a record that merging reads.
struct SrcRecord<'s, 'a> {
    counters: &'s Counters<'a>,
    bitmap: &'s [u8],
    values: SrcValues<'s>,
}

/// A record's value sites: a front-end's [`ValueProfile`], or a raw file's flat blocks
/// (translated, each site in its file's order).
#[derive(Clone, Copy)]
enum SrcValues<'s> {
    Tree(Option<&'s ValueProfile>),
    Flat(&'s FlatValues, Option<u32>),
}

impl<'s> SrcValues<'s> {
    fn num_sites(self, kind: ValueKind) -> usize {
        match self {
            SrcValues::Tree(v) => v.map_or(0, |v| v.kind(kind).len()),
            SrcValues::Flat(f, Some(b)) => f.num_sites(b, kind),
            SrcValues::Flat(_, None) => 0,
        }
    }

    fn site(self, kind: ValueKind, i: usize) -> &'s [ValueCount] {
        match self {
            SrcValues::Tree(v) => v
                .and_then(|v| v.kind(kind).get(i))
                .map_or(&[], |s| s.values.as_slice()),
            SrcValues::Flat(f, Some(b)) => f.site(b, kind, i),
            SrcValues::Flat(_, None) => &[],
        }
    }
}

impl Shard {
    /// The slot of a key, if the shard has seen it.
    fn slot_of(&self, key: FunctionKey) -> Option<usize> {
        let records = &self.records;
        self.index
            .find(key_hash(key), |&i| {
                records.get(i as usize).is_some_and(|r| r.key == key)
            })
            .map(|&i| i as usize)
    }

    /// Adds a record whose key the shard has not seen.
    fn push(&mut self, rec: AccRecord) {
        let (slot, hash) = (self.records.len() as u32, key_hash(rec.key));
        self.records.push(rec);
        let records = &self.records;
        self.index.insert_unique(hash, slot, |&i| {
            records.get(i as usize).map_or(0, |r| key_hash(r.key))
        });
    }

    /// Makes room for `n` more records with `counters` counters in all before the first input
    /// is folded, so that the records, their counters and the index are allocated once at
    /// their size instead of growing by
    /// doubling (which briefly needs both the old and the new allocation).
    fn reserve_new(&mut self, n: usize, counters: usize) {
        if self.records.is_empty() {
            self.records.reserve_exact(n);
            self.counters.reserve_exact(counters);
            let records = &self.records;
            self.index.reserve(n, |&i| {
                records.get(i as usize).map_or(0, |r| key_hash(r.key))
            });
        }
    }

    fn add(
        &mut self,
        key: FunctionKey,
        rec: &FunctionRecord<'_>,
        w: Weight,
        input: u32,
        ri: u32,
        weight_all: bool,
    ) {
        match self.slot_of(key) {
            None => {
                let mut overflow = false;
                let start = self.counters.len();
                self.counters.extend(rec.counters.iter());
                let counters = (start, self.counters.len() - start);
                if w.scales_new_records() {
                    for c in &mut self.counters[start..] {
                        let (v, o) = w.scale(*c);
                        overflow |= o || v > MAX_COUNT;
                        *c = v.min(MAX_COUNT);
                    }
                }
                let mut values = rec.values.clone();
                if let Some(v) = values.as_mut() {
                    for sites in &mut v.sites {
                        for site in sites.iter_mut() {
                            if w.scales_new_records() {
                                for vc in &mut site.values {
                                    let (s, o) = w.scale(vc.count);
                                    overflow |= o;
                                    vc.count = s;
                                }
                            }
                            site.sort_and_cap();
                        }
                    }
                }
                if overflow {
                    self.events.push(Event {
                        input,
                        record: ri,
                        key,
                        what: EventKind::Overflow,
                    });
                }
                self.push(AccRecord {
                    key,
                    first_seen: (input, ri),
                    counters,
                    bitmap: rec.bitmap.to_vec(),
                    values,
                    values_by_value: 0,
                    values_repeated: 0,
                });
            }
            Some(slot) => {
                let src = SrcRecord {
                    counters: &rec.counters,
                    bitmap: &rec.bitmap,
                    values: SrcValues::Tree(rec.values.as_deref()),
                };
                self.merge_slot(slot, key, &src, w, input, ri, weight_all);
            }
        }
    }

    /// Merges the records of a raw file of a known layout that this shard owns (`mine`:
    /// record index and slot, in record order). Every key has its slot already, so this is
    /// [`Shard::add`]'s merge branch without a look-up.
    fn add_raw(
        &mut self,
        layout: &RawLayout,
        mine: &[(u32, u32)],
        bytes: &[u8],
        values: &FlatValues,
        item: &Item<'_>,
        weight_all: bool,
    ) {
        let endian = layout.endian();
        let records = layout.records();
        for &(ri, slot) in mine {
            let Some(r) = records.get(ri as usize) else {
                continue;
            };
            let (Some(cbytes), Some(bitmap)) = (
                bytes.get(r.counters..r.counters + 8 * r.num_counters),
                bytes.get(r.bitmap..r.bitmap + r.bitmap_len),
            ) else {
                continue;
            };
            let counters = Counters::Raw64 {
                bytes: cbytes,
                endian,
            };
            let src = SrcRecord {
                counters: &counters,
                bitmap,
                values: SrcValues::Flat(values, r.values),
            };
            self.merge_slot(
                slot as usize,
                r.key,
                &src,
                item.weight,
                item.idx,
                ri,
                weight_all,
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn merge_slot(
        &mut self,
        slot: usize,
        key: FunctionKey,
        src: &SrcRecord<'_, '_>,
        w: Weight,
        input: u32,
        ri: u32,
        weight_all: bool,
    ) {
        let Some(dst) = self.records.get_mut(slot) else {
            return;
        };
        let (start, len) = dst.counters;
        let Some(counters) = self.counters.get_mut(start..start + len) else {
            return;
        };
        let events = &mut self.events;
        merge_into(
            dst,
            counters,
            src,
            w,
            weight_all,
            &mut self.scratch,
            &mut |what| {
                events.push(Event {
                    input,
                    record: ri,
                    key,
                    what,
                })
            },
        );
    }
}

/// LLVM's `InstrProfRecord::merge` followed by `sortValueData`.
#[allow(clippy::too_many_arguments)]
fn merge_into(
    dst: &mut AccRecord,
    counters: &mut [u64],
    src: &SrcRecord<'_, '_>,
    w: Weight,
    weight_all: bool,
    scratch: &mut [Vec<ValueCount>; 2],
    report: &mut dyn FnMut(EventKind),
) {
    let first_input = dst.first_seen.0;
    if counters.len() != src.counters.len() {
        report(EventKind::Mismatch {
            what: "the number of counters differs (the function changed between the runs, or the \
                   profiles come from different binaries)",
            first_input,
            first_value: counters.len() as u64,
            value: src.counters.len() as u64,
        });
        return;
    }
    // Pseudo counts (first counter u64::MAX / u64::MAX-1) only merge with each other.
    let pseudo = |c: Option<u64>| matches!(c, Some(PSEUDO_HOT) | Some(PSEUDO_WARM));
    let dst_first = counters.first().copied();
    let src_first = src.counters.get(0);
    if pseudo(dst_first) || pseudo(src_first) {
        if !(pseudo(dst_first) && pseudo(src_first)) {
            report(EventKind::Mismatch {
                what: "a pseudo count (from sample-profile supplementation) meets a real count",
                first_input,
                first_value: dst_first.unwrap_or(0),
                value: src_first.unwrap_or(0),
            });
            return;
        }
        if let Some(c0) = counters.first_mut() {
            *c0 = if dst_first == Some(PSEUDO_HOT) || src_first == Some(PSEUDO_HOT) {
                PSEUDO_HOT
            } else {
                PSEUDO_WARM
            };
        }
        return;
    }
    if add_counters(counters, src.counters, w) {
        report(EventKind::Overflow);
    }
    if dst.bitmap.len() != src.bitmap.len() {
        report(EventKind::Mismatch {
            what: "the number of MC/DC bitmap bytes differs",
            first_input,
            first_value: dst.bitmap.len() as u64,
            value: src.bitmap.len() as u64,
        });
        return;
    }
    for (d, s) in dst.bitmap.iter_mut().zip(src.bitmap.iter()) {
        *d |= *s;
    }
    let mut overflow = false;
    for kind in ValueKind::ALL {
        let ns = src.values.num_sites(kind);
        let nd = dst.values.as_deref().map_or(0, |v| v.kind(kind).len());
        if ns != nd {
            report(EventKind::Mismatch {
                what: match kind {
                    ValueKind::IndirectCall => "the number of indirect-call sites differs",
                    ValueKind::MemOpSize => "the number of memory-operation sites differs",
                    ValueKind::VTable => "the number of vtable sites differs",
                },
                first_input,
                first_value: nd as u64,
                value: ns as u64,
            });
            continue;
        }
        if ns == 0 {
            continue;
        }
        let Some(dv) = dst.values.as_deref_mut() else {
            continue;
        };
        let bit = 1u8 << kind.index();
        let order = if dst.values_by_value & bit == 0 {
            SiteOrder::ByCount
        } else if dst.values_repeated & bit != 0 {
            SiteOrder::Check
        } else {
            SiteOrder::ByValue
        };
        let mut repeated = false;
        for (i, dsite) in dv.kind_mut(kind).iter_mut().enumerate() {
            let ssite = src.values.site(kind, i);
            let (o, r) = merge_site(dsite, ssite, order, w, weight_all, scratch);
            overflow |= o;
            repeated |= r;
        }
        dst.values_by_value |= bit;
        if repeated {
            dst.values_repeated |= bit;
        } else {
            dst.values_repeated &= !bit;
        }
    }
    if overflow {
        report(EventKind::Overflow);
    }
}

/// `dst[i] = min(dst[i] + src[i] × w, MAX_COUNT)`; returns true on saturation.
fn add_counters(dst: &mut [u64], src: &Counters<'_>, w: Weight) -> bool {
    if w.is_one()
        && let Counters::Raw64 { bytes, endian } = src
    {
        return match endian {
            crate::bytes::Endian::Little => add_raw(dst, bytes, u64::from_le_bytes),
            crate::bytes::Endian::Big => add_raw(dst, bytes, u64::from_be_bytes),
        };
    }
    let mut overflow = false;
    let mut step = |d: &mut u64, s: u64| {
        let (v, o) = w.scale_add(s, *d);
        let v = if v > MAX_COUNT {
            overflow = true;
            MAX_COUNT
        } else {
            v
        };
        overflow |= o;
        *d = v;
    };
    match src {
        Counters::Owned(_) | Counters::Shared { .. } => {
            for (d, s) in dst.iter_mut().zip(src.in_memory().unwrap_or(&[])) {
                step(d, *s);
            }
        }
        Counters::Raw64 { bytes, endian } => {
            for (d, b) in dst.iter_mut().zip(bytes.chunks_exact(8)) {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                step(d, endian.u64(a));
            }
        }
        Counters::Coverage(b) => {
            for (d, s) in dst.iter_mut().zip(b.iter()) {
                step(d, u64::from(*s == 0));
            }
        }
    }
    overflow
}

/// `dst[i] = min(dst[i] + src[i], MAX_COUNT)` for 8-byte counters in `bytes`, decoded by
/// `decode`; returns true on saturation. Kept branch-free for the compiler: this loop is where
/// most bytes of a merge go.
#[inline(always)]
fn add_raw(dst: &mut [u64], bytes: &[u8], decode: fn([u8; 8]) -> u64) -> bool {
    let (src, _) = bytes.as_chunks::<8>();
    let mut sat = false;
    for (d, s) in dst.iter_mut().zip(src) {
        let (v, o) = d.overflowing_add(decode(*s));
        let over = o | (v > MAX_COUNT);
        sat |= over;
        *d = if over { MAX_COUNT } else { v };
    }
    sat
}

/// LLVM's `InstrProfValueSiteRecord::merge`: both sides sorted by value (`llvm::sort`), then
/// a sorted union where a value of `src` adds `w × count` to the first equal value of `dst` not
/// matched yet, or is inserted (with its unweighted count unless `weight_all`); then
/// `sortByCount`: a stable sort by descending count, cut to 255 values. Returns (saturated,
/// the site is left in LLVM's order because it holds a value several times).
///
/// Unlike LLVM, a site of distinct values stays sorted by value between merges (`dst_by_value`
/// is false the first time, when the site is in the count order of its first record): LLVM's
/// count sort is deferred to [`finish_value_order`], which gives the same order because after
/// a merge ties are always in value order. A merge then costs a binary search per value of
/// `src` instead of two sorts of the whole site. A site that holds one value several times
/// (indirect-call targets outside the profile all become 0) is kept in LLVM's own order and
/// merged exactly as LLVM does, with libstdc++'s unstable sort ([`libstdcxx_sort`]): which
/// of the repeated entries a count is added to depends on it. A site is in value order
/// exactly when its values are strictly increasing. `scratch` is reused between calls.
fn merge_site(
    dst: &mut ValueSite,
    src: &[ValueCount],
    order: SiteOrder,
    w: Weight,
    weight_all: bool,
    scratch: &mut [Vec<ValueCount>; 2],
) -> (bool, bool) {
    let distinct = |v: &[ValueCount]| v.windows(2).all(|p| p[0].value < p[1].value);
    let in_value_order = match order {
        SiteOrder::ByCount => false,
        SiteOrder::Check => distinct(&dst.values),
        SiteOrder::ByValue => true,
    };
    if !in_value_order {
        return merge_site_as_llvm(dst, src, w, weight_all, scratch);
    }
    if src.is_empty() {
        return (false, false);
    }
    let [sorted_src, new] = scratch;
    let src = if distinct(src) {
        src
    } else {
        sorted_src.clear();
        sorted_src.extend_from_slice(src);
        sorted_src.sort_unstable_by_key(|v| v.value);
        if !distinct(sorted_src) {
            return merge_site_as_llvm(dst, src, w, weight_all, scratch);
        }
        &sorted_src[..]
    };
    let mut overflow = false;
    let insert = |j: ValueCount, overflow: &mut bool| -> ValueCount {
        if weight_all {
            let (c, o) = w.scale(j.count);
            *overflow |= o;
            ValueCount { count: c, ..j }
        } else {
            j
        }
    };
    // Each value of `src` meets its equal in `dst`, found by binary search; the values new
    // to the site are inserted in one backward pass.
    let d = &mut dst.values;
    new.clear();
    let mut from = 0;
    for &j in src {
        let at = from + d[from..].partition_point(|x| x.value < j.value);
        match d.get_mut(at) {
            Some(x) if x.value == j.value => {
                let (c, o) = w.scale_add(j.count, x.count);
                overflow |= o;
                x.count = c;
                from = at + 1;
            }
            _ => {
                new.push(insert(j, &mut overflow));
                from = at;
            }
        }
    }
    if !new.is_empty() {
        let (old, added) = (d.len(), new.len());
        d.resize(old + added, ValueCount::default());
        let (mut i, mut k, mut out) = (old, added, old + added);
        while k > 0 {
            if i > 0 && d[i - 1].value > new[k - 1].value {
                d[out - 1] = d[i - 1];
                i -= 1;
            } else {
                d[out - 1] = new[k - 1];
                k -= 1;
            }
            out -= 1;
        }
    }
    cap_in_value_order(d);
    (overflow, false)
}

/// LLVM's cap for a site of distinct values held in value order: a stable sort by count,
/// cut to 255, and (for the next merge) back to value order. Only sites past the cap pay.
fn cap_in_value_order(d: &mut Vec<ValueCount>) {
    if d.len() > MAX_VALUES_PER_SITE {
        d.sort_by_key(|v| std::cmp::Reverse(v.count));
        d.truncate(MAX_VALUES_PER_SITE);
        d.sort_unstable_by_key(|v| v.value);
    }
}

/// What is known of a destination site's order before [`merge_site`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SiteOrder {
    /// The count order of its first record: never merged.
    ByCount,
    /// Value order if its values are distinct, else LLVM's order: to be looked at.
    Check,
    /// Value order, distinct values.
    ByValue,
}

/// [`merge_site`] step by step as LLVM does it, for sites in LLVM's order (by count) and
/// sites with repeated values: `dst` is in LLVM's order before; after, it is in value order
/// if its values are distinct (so that the next merge takes the fast way), else in LLVM's
/// order. `src` is in its input's order.
fn merge_site_as_llvm(
    dst: &mut ValueSite,
    src: &[ValueCount],
    w: Weight,
    weight_all: bool,
    scratch: &mut [Vec<ValueCount>; 2],
) -> (bool, bool) {
    let by_value = |a: &ValueCount, b: &ValueCount| a.value < b.value;
    let [s, merged] = scratch;
    let d = &mut dst.values;
    libstdcxx_sort::sort_by(d, &by_value);
    s.clear();
    s.extend_from_slice(src);
    libstdcxx_sort::sort_by(s, &by_value);
    let mut overflow = false;
    merged.clear();
    let mut i = 0;
    for &j in s.iter() {
        while i < d.len() && d[i].value < j.value {
            merged.push(d[i]);
            i += 1;
        }
        if i < d.len() && d[i].value == j.value {
            let mut x = d[i];
            let (c, o) = w.scale_add(j.count, x.count);
            overflow |= o;
            x.count = c;
            merged.push(x);
            i += 1;
            continue;
        }
        let mut j = j;
        if weight_all {
            let (c, o) = w.scale(j.count);
            overflow |= o;
            j.count = c;
        }
        merged.push(j);
    }
    merged.extend_from_slice(&d[i..]);
    d.clear();
    d.extend_from_slice(merged);
    if d.windows(2).all(|p| p[0].value < p[1].value) {
        // Distinct values: value order.
        cap_in_value_order(d);
        (overflow, false)
    } else {
        dst.sort_and_cap();
        (overflow, true)
    }
}

/// Puts the sites of the kinds held in value order (`by_value`, a bit per
/// [`ValueKind::index`]) into LLVM's order: descending count, ties in value order.
fn finish_value_order(values: &mut ValueProfile, by_value: u8) {
    for kind in ValueKind::ALL {
        if by_value & (1 << kind.index()) != 0 {
            for site in values.sites[kind.index()].iter_mut() {
                site.sort_and_cap();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ValueCount;

    fn vc(value: u64, count: u64) -> ValueCount {
        ValueCount { value, count }
    }

    #[test]
    fn llvm_weighted_site_quirk() {
        // Format reference §8.3: A {bar:7} then B (W=3) {bar:1, qux:9} gives bar:10, qux:9.
        let mut dst = ValueSite {
            values: vec![vc(1, 7)],
        };
        let src = ValueSite {
            values: vec![vc(1, 1), vc(2, 9)],
        };
        merge_site(
            &mut dst,
            &src.values,
            SiteOrder::ByCount,
            Weight::integer(3).unwrap(),
            false,
            &mut Default::default(),
        );
        dst.sort_and_cap();
        assert_eq!(dst.values, vec![vc(1, 10), vc(2, 9)]);
        let mut dst = ValueSite {
            values: vec![vc(1, 7)],
        };
        merge_site(
            &mut dst,
            &src.values,
            SiteOrder::ByCount,
            Weight::integer(3).unwrap(),
            true,
            &mut Default::default(),
        );
        dst.sort_and_cap();
        assert_eq!(dst.values, vec![vc(2, 27), vc(1, 10)]);
    }

    /// Merges `inputs` into one site the way the accumulator does (first site sorted by count,
    /// then [`merge_site`] with the order tracked, then [`finish_value_order`]), and the way
    /// LLVM does (every merge by [`merge_site_as_llvm`]).
    fn both_ways(inputs: &[Vec<ValueCount>], w: Weight) -> (Vec<ValueCount>, Vec<ValueCount>) {
        let first = |v: &Vec<ValueCount>| {
            let mut s = ValueSite { values: v.clone() };
            s.sort_and_cap();
            s
        };
        let mut ours = first(&inputs[0]);
        let mut theirs = first(&inputs[0]);
        let mut scratch = Default::default();
        let (mut by_value, mut repeated) = (false, false);
        for src in &inputs[1..] {
            let order = if !by_value {
                SiteOrder::ByCount
            } else if repeated {
                SiteOrder::Check
            } else {
                SiteOrder::ByValue
            };
            repeated = merge_site(&mut ours, src, order, w, false, &mut scratch).1;
            by_value = true;
            merge_site_as_llvm(&mut theirs, src, w, false, &mut scratch);
            theirs.sort_and_cap();
        }
        let mut p = ValueProfile::default();
        p.sites[0].push(ours);
        finish_value_order(&mut p, if by_value { 1 } else { 0 });
        (p.sites[0][0].values.clone(), theirs.values)
    }

    proptest::proptest! {
        #[test]
        fn value_order_merges_equal_llvm_merges(
            inputs in proptest::collection::vec(
                (proptest::bool::weighted(0.2),
                 proptest::collection::vec((0u64..40, 0u64..20), 0..30)), 1..8),
            weight in 1u64..4,
        ) {
            // Most inputs with distinct values (the fast way), some with repeats.
            let inputs: Vec<Vec<ValueCount>> = inputs
                .iter()
                .map(|(repeats, v)| {
                    let mut out: Vec<ValueCount> = Vec::new();
                    for &(value, count) in v {
                        if *repeats || !out.iter().any(|x| x.value == value) {
                            out.push(vc(value, count));
                        }
                    }
                    out
                })
                .collect();
            let w = Weight::integer(weight).unwrap();
            let (ours, theirs) = both_ways(&inputs, w);
            proptest::prop_assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn sites_past_the_cap_are_cut_as_llvm_cuts() {
        let inputs: Vec<Vec<ValueCount>> = (0..4u64)
            .map(|f| {
                (0..200u64)
                    .map(|v| vc(v * 4 + f % 3, 1 + (v * 7 + f) % 5))
                    .collect()
            })
            .collect();
        let (ours, theirs) = both_ways(&inputs, Weight::ONE);
        assert_eq!(ours.len(), MAX_VALUES_PER_SITE);
        assert_eq!(ours, theirs);
    }

    #[test]
    fn ties_after_a_merge_are_in_value_order() {
        let mut dst = ValueSite {
            values: vec![vc(9, 5), vc(3, 5)],
        };
        let src = ValueSite {
            values: vec![vc(7, 5)],
        };
        merge_site(
            &mut dst,
            &src.values,
            SiteOrder::ByCount,
            Weight::ONE,
            false,
            &mut Default::default(),
        );
        dst.sort_and_cap();
        assert_eq!(dst.values, vec![vc(3, 5), vc(7, 5), vc(9, 5)]);
    }

    #[test]
    fn counters_saturate_at_llvm_max() {
        let mut d = vec![MAX_COUNT - 1, 5];
        let src = Counters::Owned(vec![10, 1]);
        assert!(add_counters(&mut d, &src, Weight::ONE));
        assert_eq!(d, vec![MAX_COUNT, 6]);
    }

    #[test]
    fn kind_conflicts() {
        assert!(kind_conflict(ProfileKind::IR, ProfileKind::FRONTEND).is_some());
        assert!(
            kind_conflict(
                ProfileKind::IR,
                ProfileKind::IR.union(ProfileKind::CONTEXT_SENSITIVE)
            )
            .is_none()
        );
        assert!(
            kind_conflict(
                ProfileKind::IR.union(ProfileKind::FUNCTION_ENTRY_ONLY),
                ProfileKind::IR.union(ProfileKind::ENTRY_FIRST)
            )
            .is_some()
        );
    }
}
