//! The on-disk chained hash table of an indexed profile: one key per name, whose data are
//! that name's records.

use std::collections::HashMap;

use super::ProfdataOptions;
use super::groups::Group;
use super::prefetch::LookAhead;
use super::record_order::{self, DenseMapHash};
use crate::bytes::{ByteWriter, pad8};
use crate::codec::chained_hash;
use crate::codec::value_prof_data;
use crate::error::Warning;
use crate::ir::summary::SummaryBuilder;
use crate::ir::{FunctionRecord, Profile, ValueKind};

/// What writing the table gives back.
pub(super) struct Written {
    /// Offset of the bucket array (the header's hash table offset).
    pub(super) offset: u64,
    /// The summary of the records written that are not context-sensitive.
    pub(super) summary: SummaryBuilder,
    /// The summary of the context-sensitive records written.
    pub(super) cs_summary: SummaryBuilder,
}

/// Writes the table of `groups` (in the order their names are inserted) at `w`'s end:
/// payload, padding, then the bucket array. The records of a name are ordered by
/// `record_hash` (LLVM's `SmallDenseMap` order) unless the options preserve their order.
/// `summary` is an empty summary builder of the release targeted.
pub(super) fn write(
    w: &mut ByteWriter<'_>,
    profile: &Profile<'_>,
    opts: &ProfdataOptions,
    record_hash: DenseMapHash,
    groups: &[Group<'_>],
    summary: impl Fn() -> SummaryBuilder,
    warnings: &mut Vec<Warning>,
) -> Written {
    let mut keys: Vec<(&[u8], u64)> = groups.iter().map(|g| (g.name, g.hash)).collect();
    // LLVM's layout for sorted keys, or the input's own layout.
    let plan = match profile
        .layout
        .as_ref()
        .filter(|_| opts.preserve_record_order)
    {
        Some(l) => layout_plan(l, &mut keys).unwrap_or_else(|| sorted_plan(&keys)),
        None => sorted_plan(&keys),
    };
    let group_of = group_of(&keys, groups);
    let ahead = LookAhead::new(&plan, &group_of, groups, &profile.records);
    let mut names = NameWriter {
        records: &profile.records,
        version: opts.version,
        preserve_record_order: opts.preserve_record_order,
        record_hash,
        summary: summary(),
        cs_summary: summary(),
        recs: Vec::new(),
        cfgs: Vec::new(),
        ordered: Vec::new(),
    };
    let mut bucket_offsets = vec![0u64; plan.num_buckets()];
    let mut pos = 0usize;
    for (b, offset) in bucket_offsets.iter_mut().enumerate() {
        let items = plan.bucket(b);
        if items.is_empty() {
            continue;
        }
        *offset = w.len();
        w.u16(items.len() as u16);
        for &item in items {
            ahead.at(pos);
            pos += 1;
            let (name, h) = keys[item as usize];
            if let Some(g) = group_of.get(item as usize).and_then(|&gi| groups.get(gi)) {
                names.write(w, name, h, g, warnings);
            }
        }
    }
    w.align8();
    let offset = w.len();
    w.u64(plan.num_buckets() as u64);
    w.u64(keys.len() as u64);
    for off in &bucket_offsets {
        w.u64(*off);
    }
    Written {
        offset,
        summary: names.summary,
        cs_summary: names.cs_summary,
    }
}

/// The group of each key (the layout plan may have reordered the keys).
fn group_of(keys: &[(&[u8], u64)], groups: &[Group<'_>]) -> Vec<usize> {
    if keys.iter().zip(groups).all(|(k, g)| k.1 == g.hash) {
        return (0..groups.len()).collect();
    }
    let pos: HashMap<u64, usize> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (g.hash, i))
        .collect();
    keys.iter()
        .map(|(_, h)| pos.get(h).copied().unwrap_or(0))
        .collect()
}

/// Writes one key of the table at a time, with reusable buffers, adding its records to the
/// summaries.
struct NameWriter<'a, 'p> {
    records: &'a [FunctionRecord<'p>],
    version: u32,
    preserve_record_order: bool,
    record_hash: DenseMapHash,
    summary: SummaryBuilder,
    cs_summary: SummaryBuilder,
    recs: Vec<&'a FunctionRecord<'p>>,
    cfgs: Vec<u64>,
    ordered: Vec<usize>,
}

impl<'a, 'p> NameWriter<'a, 'p> {
    /// Writes the key `name` (hash `h`) and its data, the records of `g`.
    fn write(
        &mut self,
        w: &mut ByteWriter<'_>,
        name: &[u8],
        h: u64,
        g: &Group<'_>,
        warnings: &mut Vec<Warning>,
    ) {
        let records = self.records;
        self.recs.clear();
        self.recs
            .extend(g.records.iter().map(|&(_, i)| &records[i as usize]));
        self.ordered.clear();
        if self.preserve_record_order || self.recs.len() == 1 {
            self.ordered.extend(0..self.recs.len());
        } else {
            self.cfgs.clear();
            self.cfgs.extend(self.recs.iter().map(|r| r.key.cfg));
            self.ordered
                .extend(record_order::order(&self.cfgs, self.record_hash));
        }
        let version = self.version;
        let data_len: u64 = self.recs.iter().map(|r| record_size(version, r)).sum();
        w.u64(h);
        w.u64(name.len() as u64);
        w.u64(data_len);
        w.bytes(name);
        for &i in &self.ordered {
            let r = self.recs[i];
            if r.key.is_context_sensitive() {
                self.cs_summary.add_record(r.counters.iter());
            } else {
                self.summary.add_record(r.counters.iter());
            }
            write_record(w, version, r);
            check_duplicate_values(r, name, warnings);
        }
    }
}

fn sorted_plan(keys: &[(&[u8], u64)]) -> chained_hash::BucketPlan {
    let hashes: Vec<u64> = keys.iter().map(|(_, h)| *h).collect();
    chained_hash::plan(&hashes)
}

/// The bucket plan of an input's table layout, with `keys` reordered to the layout's order.
/// None if the layout does not describe exactly these keys in bucket order.
fn layout_plan(
    l: &crate::ir::TableLayout,
    keys: &mut Vec<(&[u8], u64)>,
) -> Option<chained_hash::BucketPlan> {
    if l.keys.len() != keys.len() || l.num_buckets == 0 || !l.num_buckets.is_power_of_two() {
        return None;
    }
    let pos: HashMap<u64, usize> = keys.iter().enumerate().map(|(i, (_, h))| (*h, i)).collect();
    if pos.len() != keys.len() {
        return None;
    }
    let mut ordered = Vec::with_capacity(keys.len());
    let mask = l.num_buckets - 1;
    let mut pairs = Vec::with_capacity(keys.len());
    for (i, h) in l.keys.iter().enumerate() {
        ordered.push(keys[*pos.get(h)?]);
        pairs.push((usize::try_from(h & mask).ok()?, i as u32));
    }
    let plan = chained_hash::BucketPlan::from_sorted(usize::try_from(l.num_buckets).ok()?, pairs)?;
    *keys = ordered;
    Some(plan)
}

fn write_record(w: &mut ByteWriter, version: u32, r: &FunctionRecord<'_>) {
    w.u64(r.key.cfg);
    w.u64(r.counters.len() as u64);
    for c in r.counters.iter() {
        w.u64(c);
    }
    if version >= 14 {
        w.u64(r.bitmap.len() as u64);
        w.bytes(&r.bitmap);
        w.zeros(pad8(r.bitmap.len() as u64) as usize);
        // Uniformity bits (GPU offload profiles) are not carried: none.
        w.u64(0);
    } else if version >= 11 {
        w.u64(r.bitmap.len() as u64);
        for &b in r.bitmap.iter() {
            w.u64(u64::from(b));
        }
    }
    value_prof_data::write_upto(w, r.values.as_deref(), last_value_kind(version));
}

/// LLVM's `validateRecord`: a mem-op site must not list a value twice.
fn check_duplicate_values(r: &FunctionRecord<'_>, name: &[u8], warnings: &mut Vec<Warning>) {
    let Some(v) = &r.values else { return };
    for s in v.kind(crate::ir::ValueKind::MemOpSize) {
        let mut vals: Vec<u64> = s.values.iter().map(|x| x.value).collect();
        vals.sort_unstable();
        if vals.windows(2).any(|p| p[0] == p[1]) {
            warnings.push(
                Warning::new(
                    "a memory-operation value site lists the same size twice (llvm-profdata \
                     reports this as an invalid profile)",
                )
                .in_function(String::from_utf8_lossy(name)),
            );
            return;
        }
    }
}

/// Bytes of one record's data at `version`.
pub(super) fn record_size(version: u32, r: &FunctionRecord<'_>) -> u64 {
    let mut n = 8 + 8 + 8 * r.counters.len() as u64;
    if version >= 14 {
        // Bitmap bytes packed and padded to 8, then an (empty) uniformity-bit array.
        let b = r.bitmap.len() as u64;
        n += 8 + b + pad8(b) + 8;
    } else if version >= 11 {
        n += 8 + 8 * r.bitmap.len() as u64;
    }
    n + value_prof_data::size_upto(r.values.as_deref(), last_value_kind(version))
}

/// The last value kind index `version` holds: vtable targets came with version 12.
fn last_value_kind(version: u32) -> ValueKind {
    if version >= 12 {
        ValueKind::VTable
    } else {
        ValueKind::MemOpSize
    }
}
