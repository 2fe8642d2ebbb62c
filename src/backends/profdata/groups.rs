//! The records grouped by name, checked and put in the order a release inserts the names
//! into the on-disk hash table.

use std::collections::HashSet;

use super::ProfdataOptions;
use super::string_map;
use super::target::{KeyOrder, WriterModel};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::fx::FxBuildHasher;
use crate::ir::{FunctionRecord, Profile};

/// One name's records: (name hash, record index) pairs, in record order.
#[derive(Clone, Copy)]
pub(super) struct Group<'p> {
    /// 8 bytes of the name, big-endian, zero-padded, with how many bytes are left from there
    /// (see [`name_chunk`]): the first 8 when the groups are made; [`sort_by_name`] moves
    /// it along the name.
    pub(super) prefix: (u64, u8),
    pub(super) name: &'p [u8],
    pub(super) hash: u64,
    pub(super) records: &'p [(u64, u32)],
}

/// (name hash, record index) of every record of `records`, sorted: the records grouped by
/// name, in record order inside a name. Sorting pairs instead of building a map of vectors:
/// a million names are a million allocations and cache misses otherwise.
pub(super) fn by_name_hash(records: &[FunctionRecord<'_>]) -> Vec<(u64, u32)> {
    let mut by_hash: Vec<(u64, u32)> = records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.key.name, i as u32))
        .collect();
    by_hash.sort_unstable();
    by_hash
}

/// One group per name of `by_hash` ([`by_name_hash`] of `profile`'s records), in name-hash
/// order. Refuses a key that two records share (the records must be merged before writing)
/// and a record whose name the profile does not hold (the table is keyed by name): the first
/// such record in record order is named.
pub(super) fn group_by_name<'p>(
    profile: &'p Profile<'_>,
    by_hash: &'p [(u64, u32)],
) -> Result<Vec<Group<'p>>> {
    let records = &profile.records;
    let mut groups: Vec<Group<'_>> = Vec::new();
    // The first record (in record order) that repeats a key, and the first name missing.
    let mut duplicate: Option<u32> = None;
    let mut missing: Option<(u32, u64)> = None;
    for run in by_hash.chunk_by(|a, b| a.0 == b.0) {
        let h = run[0].0;
        if let Some(i) = first_repeat(run, records)
            && duplicate.is_none_or(|d| i < d)
        {
            duplicate = Some(i);
        }
        match profile.names.get(h).map(|n| &**n) {
            Some(name) => groups.push(Group {
                prefix: name_chunk(name, 0),
                name,
                hash: h,
                records: run,
            }),
            None => {
                if missing.is_none_or(|(m, _)| run[0].1 < m) {
                    missing = Some((run[0].1, h));
                }
            }
        }
    }
    if let Some(i) = duplicate {
        let r = &records[i as usize];
        return Err(Error::new(ErrorKind::Internal(format!(
            "internal error: record {:#x}/{:#x} appears twice; merge before writing",
            r.key.name, r.key.cfg
        ))));
    }
    if let Some((_, h)) = missing {
        return Err(Error::new(ErrorKind::Internal(format!(
            "function with name hash {h:#018x} has no name; indexed profiles are keyed by name"
        ))));
    }
    Ok(groups)
}

/// The first record of `run` (records of one name, in record order) whose structural hash
/// an earlier record of the run has. A set, not a scan of the earlier ones: a profile may
/// hold a hundred thousand records of one name (one per hash), which a scan makes quadratic.
fn first_repeat(run: &[(u64, u32)], records: &[FunctionRecord]) -> Option<u32> {
    let cfg = |i: u32| records[i as usize].key.cfg;
    if run.len() <= 8 {
        return run
            .iter()
            .enumerate()
            .skip(1)
            .find_map(|(k, &(_, i))| run[..k].iter().any(|&(_, j)| cfg(j) == cfg(i)).then_some(i));
    }
    let mut seen: HashSet<u64, FxBuildHasher> =
        HashSet::with_capacity_and_hasher(run.len(), FxBuildHasher);
    run.iter()
        .find(|&&(_, i)| !seen.insert(cfg(i)))
        .map(|&(_, i)| i)
}

/// Puts `groups` in the order `model`'s release inserts names into the table, and drops the
/// groups whose records are all zero when `opts.sparse` asks for it.
pub(super) fn order_groups(
    groups: &mut Vec<Group<'_>>,
    records: &[FunctionRecord<'_>],
    opts: &ProfdataOptions,
    model: &WriterModel,
) {
    let all_zero = |g: &Group<'_>| {
        g.records
            .iter()
            .all(|&(_, i)| records[i as usize].is_zero())
    };
    match model.key_order {
        KeyOrder::Sorted => {
            if opts.sparse {
                groups.retain(|g| !all_zero(g));
            }
            sort_by_name(groups);
        }
        KeyOrder::StringMapDjb => {
            // Names enter LLVM's map when their first record is added: in order of first
            // appearance (a group's first pair has its smallest record index). Names that
            // `--sparse` leaves out were in the map too, so they are dropped after.
            groups.sort_unstable_by_key(|g| g.records[0].1);
            let order = string_map::iteration_order(groups.iter().map(|g| g.name));
            *groups = order.into_iter().map(|i| groups[i]).collect();
            if opts.sparse {
                groups.retain(|g| !all_zero(g));
            }
        }
    }
}

/// The 8 bytes of `name` from `depth` on (big-endian, zero-padded) and the number of bytes
/// left from `depth`, capped at 9 (= more follow). Ordering names that agree before `depth`
/// by this pair orders them as bytes would, except that names equal in it with 9 are not
/// yet told apart.
fn name_chunk(name: &[u8], depth: usize) -> (u64, u8) {
    let rest = name.get(depth..).unwrap_or(&[]);
    // A whole chunk is one load; a copy of a variable length would be a call to `memmove`
    // per name (a tenth of a million-name write).
    let chunk = match rest.first_chunk::<8>() {
        Some(b) => *b,
        None => {
            let mut b = [0u8; 8];
            for (d, s) in b.iter_mut().zip(rest) {
                *d = *s;
            }
            b
        }
    };
    (u64::from_be_bytes(chunk), rest.len().min(9) as u8)
}

/// Sorts groups by name, 8 bytes at a time (a multikey radix sort): each pass sorts by the
/// chunk held in the groups, then moves the chunk 8 bytes on in the runs still tied and
/// sorts those. A million names are otherwise ~20 million comparisons, each following two
/// pointers to names scattered over memory; this reads each name once per 8 bytes of prefix
/// it shares with another.
fn sort_by_name(groups: &mut [Group<'_>]) {
    let mut todo: Vec<(usize, usize, usize)> = vec![(0, groups.len(), 0)];
    while let Some((start, end, depth)) = todo.pop() {
        let run = &mut groups[start..end];
        if depth > 0 {
            for g in run.iter_mut() {
                g.prefix = name_chunk(g.name, depth);
            }
        }
        run.sort_unstable_by_key(|g| g.prefix);
        let mut i = 0;
        while i < run.len() {
            let p = run[i].prefix;
            let mut j = i + 1;
            while j < run.len() && run[j].prefix == p {
                j += 1;
            }
            // Tied with more bytes to come: names equal so far, go on 8 bytes further.
            if j - i > 1 && p.1 == 9 {
                todo.push((start + i, start + j, depth + 8));
            }
            i = j;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Just;

    proptest::proptest! {
        /// The chunked sort orders names as a byte-wise sort does, including names that are
        /// prefixes of others, share long prefixes or hold zero bytes.
        #[test]
        fn sort_by_name_is_bytewise(names in proptest::collection::btree_set(
            proptest::collection::vec(proptest::prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(0xffu8)], 0..20),
            0..200,
        )) {
            let names: Vec<Vec<u8>> = names.into_iter().rev().collect();
            let mut groups: Vec<Group<'_>> = names
                .iter()
                .enumerate()
                .map(|(i, n)| Group { prefix: name_chunk(n, 0), name: n, hash: i as u64, records: &[] })
                .collect();
            sort_by_name(&mut groups);
            let mut want: Vec<&[u8]> = names.iter().map(|n| n.as_slice()).collect();
            want.sort();
            let got: Vec<&[u8]> = groups.iter().map(|g| g.name).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
