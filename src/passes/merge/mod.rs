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
//! order of records that share a name; we do not reproduce that.)
//!
//! # Structure
//! `Merger` is the accumulator: the driver (`pipeline`) hands it inputs in order, each as
//! an IR [`Profile`] or, for a further raw file of a binary already seen, as the file's bytes
//! plus the binary's [`CounterLayout`]; it folds them in batches, in parallel over the
//! shards (module `shard`), and `Merger::finish` builds the merged profile. The record semantics
//! themselves are in module `record`. This module opens no file and calls no reader.

mod record;
mod shard;
mod value_site;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::temporal::TraceReservoir;
use crate::codec::value_prof_data::FlatValues;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::Weight;
use crate::ir::{
    CounterLayout, Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, Provenance,
    SymbolTable, SymbolTableUnion,
};
use record::{AccRecord, EventKind};
pub use record::{MAX_COUNT, PSEUDO_HOT, PSEUDO_WARM};
use shard::{Event, FileRecords, Shard, shard_of};
use value_site::finish_value_order;

/// Most layouts (distinct binaries) a merge registers for the fast path.
pub(crate) const MAX_LAYOUTS: usize = 16;

/// What to do when an input cannot be used. Same meanings as `llvm-profdata --failure-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct MergeOptions {
    /// What to do with bad inputs and conflicting records.
    pub failure_mode: FailureMode,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Weight value counts that an input adds to a site for the first time (LLVM does not).
    pub weight_all_values: bool,
    /// Temporal traces kept (`--temporal-profile-trace-reservoir-size`).
    pub temporal_reservoir_size: u64,
    /// Longest temporal trace kept (`--temporal-profile-max-trace-length`).
    pub temporal_max_trace_length: u64,
    /// Renames functions before merging (`--remapping-file`).
    pub remapping: Option<Arc<super::remap::Remapping>>,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            failure_mode: FailureMode::Any,
            threads: 0,
            weight_all_values: false,
            temporal_reservoir_size: 100,
            temporal_max_trace_length: 10_000,
            remapping: None,
        }
    }
}

/// The result of a merge.
#[derive(Debug)]
#[non_exhaustive]
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

/// An accepted input, ready to fold.
#[derive(Clone, Copy)]
pub(crate) struct Item<'b> {
    /// The input's position in the merge (orders records, warnings and conflicts).
    pub idx: u32,
    /// Its weight.
    pub weight: Weight,
    /// Its records.
    pub src: Src<'b>,
}

/// Where an accepted input's records are.
#[derive(Clone, Copy)]
pub(crate) enum Src<'b> {
    /// Records built by a front-end.
    Profile(&'b Profile<'b>),
    /// A file of a layout registered with [`Merger::add_layout`]: the records are the
    /// layout's, their counters and bitmaps in `bytes`, their value blocks in `values`.
    Layout {
        /// The layout's number ([`Merger::add_layout`]).
        layout: usize,
        /// The whole file.
        bytes: &'b [u8],
        /// Its value blocks, in the order the layout's records number them.
        values: &'b FlatValues,
    },
    /// A file described by a layout of its own (an indexed profile read for a merge): its
    /// records are the layout's, in file order, looked up by key as built records are.
    File {
        /// The file's records.
        layout: &'b CounterLayout,
        /// The whole file.
        bytes: &'b [u8],
        /// Its value blocks, numbered by the layout's records.
        values: &'b FlatValues,
    },
}

/// What a front-end said of an input besides its profile.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct InputInfo<'a> {
    /// Its reader's warnings.
    pub warnings: &'a [Warning],
    /// A raw profile (its temporal traces take the input's weight, as in LLVM).
    pub raw: bool,
    /// An indexed profile (a lone indexed input keeps its table layout).
    pub indexed: bool,
    /// A counter so large that the input is probably corrupt: (file offset, value).
    pub suspicious_counter: Option<(u64, u64)>,
}

/// A registered layout and, per shard, the (record index, slot in the shard) pairs of its
/// records that the shard owns, in record order.
struct KnownLayout {
    layout: Arc<CounterLayout>,
    by_shard: Vec<Vec<(u32, u32)>>,
}

/// Merges profiles that are already built, in the order given (the order decides what
/// LLVM's merge decides by order: first-seen record order, value-site ties, which input a
/// conflict names), each scaled by its weight; `opts.threads` of 0 means the current pool's
/// thread count (the result does not depend on it). Each triple is (profile, weight, the
/// path its warnings and errors name).
///
/// A record that conflicts with an earlier one of its key (another counter count, bitmap
/// size or value-site count) is an error naming both files under [`FailureMode::Any`], else
/// a warning, and the later record is dropped (see the module doc). An input of a kind that
/// cannot merge with the earlier ones (IR-level and front-end) is an error under
/// [`FailureMode::Any`], else skipped and named in [`MergeOutput::skipped`]; with
/// [`FailureMode::All`] and no input merged, the last skipped input's error is returned.
pub fn merge_profiles(
    inputs: &[(&Profile<'_>, Weight, &Path)],
    opts: &MergeOptions,
) -> Result<MergeOutput> {
    let threads = if opts.threads == 0 {
        crate::sys::threads::current()
    } else {
        opts.threads
    };
    let mut acc = Merger::new(opts, threads);
    let mut accepted = Vec::new();
    for (i, (p, w, path)) in inputs.iter().enumerate() {
        if acc.begin_input(i as u32, path, *w, p, InputInfo::default())? {
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

/// The accumulator of a merge: inputs go in one by one, in order, and are folded in
/// batches; [`Merger::finish`] gives the merged profile.
pub(crate) struct Merger<'o> {
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
    /// Layouts registered so far (the fast path).
    layouts: Vec<KnownLayout>,
    /// The slots of the records of the last file folded as [`Src::File`] (none with a
    /// remapping): a later file with the same keys in the same order (an indexed profile of
    /// the same program, whose table lists its records in the same order) is merged through
    /// them, without a look-up per record.
    file_slots: Option<FileSlots>,
    /// The merged records when the merge is of one input taken whole
    /// ([`Merger::fold_sole`]); the shards are then empty.
    /// With the input's position.
    sole: Option<(u32, Vec<FunctionRecord<'static>>)>,
}

/// The keys of a file's records in file order and, per shard, the (record index, slot)
/// pairs of the records it owns.
struct FileSlots {
    keys: Vec<FunctionKey>,
    by_shard: Vec<Vec<(u32, u32)>>,
}

impl FileSlots {
    /// True if `layout`'s records have exactly these keys, in this order.
    fn matches(&self, layout: &CounterLayout) -> bool {
        self.keys.len() == layout.records.len()
            && self
                .keys
                .iter()
                .zip(&layout.records)
                .all(|(k, r)| *k == r.key)
    }
}

impl<'o> Merger<'o> {
    /// A merger with `shards` shards (one per worker thread; at least one).
    pub fn new(opts: &'o MergeOptions, shards: usize) -> Self {
        Merger {
            opts,
            shards: (0..shards.max(1)).map(|_| Shard::default()).collect(),
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
            file_slots: None,
            sole: None,
        }
    }

    /// Records that an input could not be used: an error under [`FailureMode::Any`], else
    /// the input is skipped and named in [`MergeOutput::skipped`].
    pub fn input_failed(&mut self, path: &Path, e: Error) -> Result<()> {
        if self.opts.failure_mode == FailureMode::Any {
            return Err(e);
        }
        self.skipped.push((path.to_path_buf(), e));
        Ok(())
    }

    /// Checks an input's kind and takes its tables and sections. Returns false if the input is
    /// skipped.
    pub fn begin_input(
        &mut self,
        idx: u32,
        path: &Path,
        weight: Weight,
        p: &Profile<'_>,
        r: InputInfo<'_>,
    ) -> Result<bool> {
        if let Some((offset, value)) = r.suspicious_counter {
            let e = Error::malformed(
                offset,
                "counter",
                format!(
                    "excessively large counter value {value} suggests a corrupted profile \
                     (counters above 2^56 are rejected, as llvm-profdata does)"
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
        for w in r.warnings {
            self.warnings.push((idx, w.clone().with_path(path)));
        }
        if p.uncorrelated_counters > 0 {
            self.uncorrelated += p.uncorrelated_counters;
            self.warnings.push((
                idx,
                Warning {
                    path: Some(path.to_path_buf()),
                    function: None,
                    location: None,
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
        if r.indexed {
            self.any_indexed = true;
            if self.layout.is_none() {
                self.layout = p.layout.clone();
            }
        }
        // An input given in parts (a raw file of several profiles) counts once.
        if self.paths.insert(idx, path.to_path_buf()).is_none() {
            self.merged += 1;
        }
        Ok(true)
    }

    /// [`Merger::begin_input`] for a file of a registered layout: the front-end vouches that
    /// its full reader would have given a profile of the layout's kind and tables, no
    /// warning, no binary ID not already taken and no temporal trace, so only the kind check
    /// and the bookkeeping remain.
    pub fn begin_layout_input(&mut self, idx: u32, path: &Path, layout: usize) -> Result<bool> {
        let kind = match self.layouts.get(layout) {
            Some(l) => l.layout.kind,
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
        // An input given in parts (a raw file of several profiles) counts once.
        if self.paths.insert(idx, path.to_path_buf()).is_none() {
            self.merged += 1;
        }
        Ok(true)
    }

    /// What to do with bad inputs (the merge's [`MergeOptions::failure_mode`]).
    pub fn failure_mode(&self) -> FailureMode {
        self.opts.failure_mode
    }

    /// True if a layout may still be registered (at most [`MAX_LAYOUTS`], and none when a
    /// remapping renames functions: a layout's keys are the file's).
    pub fn wants_layouts(&self) -> bool {
        self.opts.remapping.is_none() && self.layouts.len() < MAX_LAYOUTS
    }

    /// Registers the layout of an input that was just folded through
    /// [`Merger::begin_input`], so that later files of its binary can be given as
    /// [`Src::Layout`]. Returns the layout's number, or `None` if a record of it has no slot
    /// (the layout does not describe what was folded) or no more layouts are taken.
    pub fn add_layout(&mut self, layout: Arc<CounterLayout>) -> Option<usize> {
        if !self.wants_layouts() {
            return None;
        }
        let n = self.shards.len();
        let mut by_shard: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for (ri, rec) in layout.records.iter().enumerate() {
            let si = shard_of(rec.key.name, n);
            let slot = self.shards[si].slot_of(rec.key)?;
            by_shard[si].push((ri as u32, slot as u32));
        }
        self.layouts.push(KnownLayout { layout, by_shard });
        Some(self.layouts.len() - 1)
    }

    /// Folds the records of accepted inputs (in input order) into the shards, in parallel.
    pub fn fold(&mut self, batch: &[Item<'_>]) {
        if batch.is_empty() {
            return;
        }
        if let Some((idx, records)) = self.sole.take() {
            // Inputs after one taken whole: fold that one first, as it would have been.
            let p = Profile {
                records,
                ..Profile::default()
            };
            self.fold(&[Item {
                idx,
                weight: Weight::ONE,
                src: Src::Profile(&p),
            }]);
        }
        let n = self.shards.len();
        let weight_all = self.opts.weight_all_values;
        let remap = self.opts.remapping.as_deref();
        // Per item: whether it is a file whose keys are those of the slot cache's.
        let cached: Vec<bool> = batch
            .iter()
            .map(|item| match (&item.src, &self.file_slots) {
                (Src::File { layout, .. }, Some(c)) => remap.is_none() && c.matches(layout),
                _ => false,
            })
            .collect();
        let file_slots = &self.file_slots;
        let layouts = &self.layouts;
        crate::sys::threads::for_each_mut(&mut self.shards, |si, shard| {
            for (item, &cached) in batch.iter().zip(&cached) {
                if let (
                    true,
                    Src::File {
                        layout,
                        bytes,
                        values,
                    },
                    Some(c),
                ) = (cached, &item.src, file_slots)
                {
                    let file = FileRecords {
                        layout,
                        bytes,
                        values,
                    };
                    shard.add_layout(file, &c.by_shard[si], item, weight_all);
                    continue;
                }
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
                    Src::File {
                        layout,
                        bytes,
                        values,
                    } => {
                        let key_of = |k: FunctionKey| match remap {
                            Some(m) => FunctionKey {
                                name: m.map(k.name),
                                cfg: k.cfg,
                            },
                            None => k,
                        };
                        if shard.records.is_empty() {
                            let (mut records, mut counters) = (0, 0);
                            for r in &layout.records {
                                if shard_of(key_of(r.key).name, n) == si {
                                    records += 1;
                                    counters += r.num_counters;
                                }
                            }
                            shard.reserve_new(records, counters);
                        }
                        let file = FileRecords {
                            layout,
                            bytes,
                            values,
                        };
                        shard.add_file(file, item, weight_all, |k| {
                            let k = key_of(k);
                            (shard_of(k.name, n) == si).then_some(k)
                        });
                    }
                    Src::Layout {
                        layout,
                        bytes,
                        values,
                    } => {
                        let Some(l) = layouts.get(*layout) else {
                            continue;
                        };
                        let file = FileRecords {
                            layout: &l.layout,
                            bytes,
                            values,
                        };
                        shard.add_layout(file, &l.by_shard[si], item, weight_all);
                    }
                }
            }
        });
        // Learn the slots of the last file that did not match the cache: all its keys have
        // slots now.
        if remap.is_none()
            && let Some((Src::File { layout, .. }, _)) = batch
                .iter()
                .zip(&cached)
                .rev()
                .find(|(item, _)| matches!(item.src, Src::File { .. }))
                .filter(|(_, cached)| !**cached)
                .map(|(item, c)| (item.src, c))
        {
            self.file_slots = self.slots_of(layout);
        }
    }

    /// Folds `p`, an input accepted by [`Merger::begin_input`] at position `idx`, as
    /// [`Merger::fold`] would, when it is the only input of the merge.
    ///
    /// A record seen once is taken as it is (its value sites sorted and cut as the merge
    /// cuts them), so when nothing is folded before or after, no two records share a key,
    /// the weight is 1 and no remapping renames functions, the merged records are `p`'s:
    /// its records are moved into the result in their order (the order of first appearance)
    /// with their counters copied into one arena, without the shards' index, their per-record
    /// state or a second copy of the value sites. Otherwise this is [`Merger::fold`].
    pub fn fold_sole(&mut self, idx: u32, weight: Weight, p: Profile<'_>) {
        let plain = weight.is_one()
            && self.opts.remapping.is_none()
            && self.sole.is_none()
            && self.shards.iter().all(|s| s.records.is_empty())
            && keys_distinct(&p.records);
        if !plain {
            self.fold(&[Item {
                idx,
                weight,
                src: Src::Profile(&p),
            }]);
            return;
        }
        let total: usize = p.records.iter().map(|r| r.counters.len()).sum();
        let mut arena: Vec<u64> = Vec::with_capacity(total);
        for r in &p.records {
            arena.extend(r.counters.iter());
        }
        let arena = Arc::new(arena);
        let mut start = 0;
        // Same layout for any lifetime: collected in place, in the records' allocation.
        let records: Vec<FunctionRecord<'static>> = p
            .records
            .into_iter()
            .map(|r| {
                let len = r.counters.len();
                let counters = Counters::Shared {
                    all: Arc::clone(&arena),
                    start,
                    len,
                };
                start += len;
                let values = r.values.map(|mut v| {
                    for sites in &mut v.sites {
                        for site in sites.iter_mut() {
                            site.sort_and_cap();
                        }
                    }
                    v
                });
                FunctionRecord {
                    key: r.key,
                    counters,
                    bitmap: Cow::Owned(r.bitmap.into_owned()),
                    values,
                }
            })
            .collect();
        self.sole = Some((idx, records));
    }

    /// The slots of `layout`'s records, if every one has a slot.
    fn slots_of(&self, layout: &CounterLayout) -> Option<FileSlots> {
        let n = self.shards.len();
        let mut by_shard: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        for (ri, rec) in layout.records.iter().enumerate() {
            let si = shard_of(rec.key.name, n);
            let slot = self.shards[si].slot_of(rec.key)?;
            by_shard[si].push((u32::try_from(ri).ok()?, u32::try_from(slot).ok()?));
        }
        Some(FileSlots {
            keys: layout.records.iter().map(|r| r.key).collect(),
            by_shard,
        })
    }

    /// Builds the merged profile; `total_inputs` counts every input, skipped ones included.
    pub fn finish(mut self, total_inputs: usize) -> Result<MergeOutput> {
        if self.opts.failure_mode == FailureMode::All && self.merged == 0 && total_inputs > 0 {
            let e = match self.skipped.pop() {
                Some((_, e)) => e,
                None => Error::new(ErrorKind::Internal("no profile can be merged".into())),
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
                        location: None,
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
                            location: None,
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
        let out_records: Vec<FunctionRecord<'static>> = match self.sole.take() {
            // Nothing was folded besides it (`fold` folds it first otherwise).
            Some((_, sole)) => sole,
            None => records
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
                .collect(),
        };
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

/// True if no two of `records` have the same key (a file may hold a function twice, e.g.
/// in two profiles of one file: those records are merged).
fn keys_distinct(records: &[FunctionRecord<'_>]) -> bool {
    let mut keys: Vec<(u64, u64)> = records.iter().map(|r| (r.key.name, r.key.cfg)).collect();
    crate::sys::threads::sort_unstable(&mut keys);
    keys.windows(2).all(|w| w[0] != w[1])
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

#[cfg(test)]
mod tests {
    use super::*;

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
