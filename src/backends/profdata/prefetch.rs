//! The hash-table writer's prefetching: a hand-tuned performance trick, kept apart from what
//! is written.
//!
//! Buckets follow the name hashes, so consecutive groups, their records, counters and names
//! lie far apart in memory. Walking the groups in emission order (bucket after bucket) lets
//! the writer ask for what it will write a few keys ahead instead of waiting for a cache miss
//! per key (and per record, counter run and name). The distances (24, 16, 8, 4 keys ahead,
//! one level of indirection each) were measured on a million-name write.

use super::groups::Group;
use crate::codec::chained_hash::BucketPlan;
use crate::ir::FunctionRecord;

/// The groups in the order the table writer emits them, to prefetch from.
pub(super) struct LookAhead<'a> {
    /// Index into `groups` of each emitted key, in emission order (`u32::MAX`: none).
    seq: Vec<u32>,
    groups: &'a [Group<'a>],
    records: &'a [FunctionRecord<'a>],
}

impl<'a> LookAhead<'a> {
    /// The emission order of `plan`'s keys, whose groups `group_of` gives.
    pub(super) fn new(
        plan: &BucketPlan,
        group_of: &[usize],
        groups: &'a [Group<'a>],
        records: &'a [FunctionRecord<'a>],
    ) -> Self {
        let mut seq: Vec<u32> = Vec::with_capacity(group_of.len());
        for b in 0..plan.num_buckets() {
            seq.extend(
                plan.bucket(b)
                    .iter()
                    .map(|&item| group_of.get(item as usize).map_or(u32::MAX, |&g| g as u32)),
            );
        }
        LookAhead {
            seq,
            groups,
            records,
        }
    }

    #[inline(always)]
    fn group_at(&self, p: usize) -> Option<&'a Group<'a>> {
        self.seq.get(p).and_then(|&gi| self.groups.get(gi as usize))
    }

    /// Prefetches, for the key about to be written at emission position `p`, what keys
    /// further on will need: each level a step closer to the data.
    #[inline(always)]
    pub(super) fn at(&self, p: usize) {
        if let Some(g) = self.group_at(p + 24) {
            prefetch(g);
        }
        if let Some(g) = self.group_at(p + 16) {
            prefetch(g.name.as_ptr());
            prefetch(g.records.as_ptr());
        }
        if let Some(g) = self.group_at(p + 8) {
            for &(_, i) in g.records {
                prefetch(&self.records[i as usize]);
            }
        }
        if let Some(g) = self.group_at(p + 4) {
            for &(_, i) in g.records {
                prefetch_record_data(&self.records[i as usize]);
            }
        }
    }
}

/// Asks the CPU to bring the cache line holding `p` closer, without waiting for it. Only a
/// hint: no memory is read, so any address is allowed (a no-op off x86-64).
#[inline(always)]
fn prefetch<T: ?Sized>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch does not access memory and cannot fault, whatever the address;
        // SSE is part of the x86-64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetches the start of a record's counters (the first two cache lines: most records have
/// fewer than 16 counters) and its value profile.
#[inline(always)]
fn prefetch_record_data(r: &FunctionRecord<'_>) {
    let start: *const u8 = match &r.counters {
        crate::ir::Counters::Raw64 { bytes, .. } => bytes.as_ptr(),
        c => match c.in_memory() {
            Some(v) => v.as_ptr().cast(),
            None => return,
        },
    };
    prefetch(start);
    prefetch(start.wrapping_add(64));
    if let Some(v) = r.values.as_deref() {
        prefetch(v);
    }
}
