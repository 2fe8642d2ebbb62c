//! Merging legacy BOLT profiles (`.fdata`): each line's counters are added, weighted and
//! saturating, under the key the LLVM release followed gives it ([`FdataSemantics`]); the
//! result is sorted in the byte order of the keys' text, so it never depends on the order
//! of inputs or on threads.
//!
//! One [`FdataMerge`] is shared by every worker: symbol names are interned once (each
//! worker's [`FdataFolder`] keeps a private cache of the ids it met, so the shared table is
//! locked only for names new to that worker), and keys live in 64 shards chosen by hash,
//! each behind its own lock, that a folder fills a file's lines at a time. So memory grows
//! with the distinct keys (48 bytes each, plus the hash table) and names, never with the
//! number of inputs or threads; a key is a few integers, not a copy of its text.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use hashbrown::HashTable;

use crate::error::{Error, ErrorKind, Result};
use crate::ir::Weight;
use crate::ir::bolt::{
    FdataEntry, FdataLine, FdataMode, FdataNames, FdataProfile, FdataSemantics, prefix_has_offsets,
};
#[cfg(test)]
use crate::ir::bolt::{HexText, MisColumn};
use crate::ir::fx::hash_bytes;
use crate::sys::threads;

/// Number of key shards (a power of two).
const SHARDS: usize = 64;
/// Lines a folder buffers before it adds them to the shards, when the input need not be
/// added whole or not at all.
const FLUSH_LINES: usize = 1 << 14;
/// Entries a shard makes room for when it gets its first: 192 KiB, above the size from
/// which the system allocator maps memory of its own (untouched pages cost nothing, and
/// growing remaps instead of copying and leaving the smaller buffers behind).
const FIRST_ENTRIES: usize = 4096;

/// The shard of a key hash: bits the hash tables use for neither bucket nor tag.
fn shard_of(hash: u64) -> usize {
    (hash >> 40) as usize & (SHARDS - 1)
}

/// The names of a merge and an index of them by text.
#[derive(Default)]
struct NameTable {
    names: FdataNames,
    index: HashTable<u32>,
}

impl NameTable {
    /// The id of `name` (hashed `hash`), added if new.
    fn intern(&mut self, name: &[u8], hash: u64) -> Result<u32> {
        let names = &self.names;
        if let Some(&id) = self.index.find(hash, |&id| names.get(id) == name) {
            return Ok(id);
        }
        let names = &self.names;
        self.index
            .try_reserve(1, |&id| hash_bytes(names.get(id)))
            .map_err(|_| out_of_memory("the names of an fdata merge", name.len()))?;
        let id = self
            .names
            .push(name)
            .ok_or_else(|| out_of_memory("the names of an fdata merge", name.len()))?;
        let names = &self.names;
        self.index
            .insert_unique(hash, id, |&id| hash_bytes(names.get(id)));
        Ok(id)
    }
}

/// The keys of one shard: entries and an index of them by key.
#[derive(Default)]
struct Shard {
    entries: Vec<FdataEntry>,
    index: HashTable<u32>,
}

impl Shard {
    /// Adds `batch` (key hashes and entries); true if a sum saturated.
    fn add(&mut self, batch: &[(u64, FdataEntry)]) -> Result<bool> {
        let mut saturated = false;
        for (hash, e) in batch {
            let entries = &self.entries;
            if let Some(&i) = self.index.find(*hash, |&i| entries[i as usize].same_key(e)) {
                saturated |= self.entries[i as usize].add(e);
                continue;
            }
            let i = u32::try_from(self.entries.len()).map_err(|_| {
                Error::new(ErrorKind::LimitExceeded {
                    what: "distinct fdata lines of one shard",
                    value: self.entries.len() as u64,
                    limit: u64::from(u32::MAX),
                })
            })?;
            let bytes = std::mem::size_of::<FdataEntry>();
            let more = if self.entries.capacity() == 0 {
                FIRST_ENTRIES
            } else {
                1
            };
            self.entries
                .try_reserve(more)
                .map_err(|_| out_of_memory("merged fdata lines", more * bytes))?;
            self.entries.push(*e);
            let entries = &self.entries;
            self.index
                .try_reserve(1, |&i| entries[i as usize].key_hash())
                .map_err(|_| out_of_memory("merged fdata lines", bytes))?;
            self.index
                .insert_unique(*hash, i, |&i| entries[i as usize].key_hash());
        }
        Ok(saturated)
    }
}

/// The error of memory refused for `what`.
fn out_of_memory(what: &'static str, bytes: usize) -> Error {
    Error::new(ErrorKind::OutOfMemory {
        what,
        bytes: bytes as u64,
    })
}

/// The number of a mode among the four (`boltedcollection` or not, `no_lbr` or not).
fn mode_index(mode: FdataMode) -> usize {
    usize::from(mode.bolted) | usize::from(mode.no_lbr) << 1
}

/// The accumulator of an fdata merge, shared by the threads that fold inputs into it.
pub struct FdataMerge {
    semantics: FdataSemantics,
    names: Mutex<NameTable>,
    /// The shards of each mode ([`mode_index`]): profiles of different modes do not mix,
    /// and which mode wins is only known once every input is read.
    modes: [Box<[Mutex<Shard>]>; 4],
    saturated: AtomicBool,
}

impl std::fmt::Debug for FdataMerge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FdataMerge")
            .field("semantics", &self.semantics)
            .finish_non_exhaustive()
    }
}

impl FdataMerge {
    /// An empty merge following `semantics`.
    pub fn new(semantics: FdataSemantics) -> FdataMerge {
        let shards = || (0..SHARDS).map(|_| Mutex::default()).collect();
        FdataMerge {
            semantics,
            names: Mutex::default(),
            modes: [shards(), shards(), shards(), shards()],
            saturated: AtomicBool::new(false),
        }
    }

    /// A folder of inputs into this merge, for one thread.
    pub fn folder(&self) -> FdataFolder<'_> {
        FdataFolder {
            merge: self,
            cache: LocalNames::default(),
            last: [LastName::default(); 2],
            pending: (0..SHARDS).map(|_| Vec::new()).collect(),
            pending_lines: 0,
            pending_mode: FdataMode::default(),
            marks: Vec::with_capacity(SHARDS),
        }
    }

    /// True if a sum reached 2^64 − 1 and stopped there.
    pub fn saturated(&self) -> bool {
        self.saturated.load(Ordering::Relaxed)
    }

    /// The merged profile of the lines of mode `mode` (the other modes' lines are dropped),
    /// sorted in the byte order of their text (in parallel inside a worker pool).
    pub fn finish(self, mode: FdataMode) -> Result<FdataProfile> {
        let names = self
            .names
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .names;
        let [m0, m1, m2, m3] = self.modes;
        let shards = match mode_index(mode) {
            0 => m0,
            1 => m1,
            2 => m2,
            _ => m3,
        };
        // The hash indexes go first: only the entries are kept.
        let runs: Vec<Vec<FdataEntry>> = shards
            .into_vec()
            .into_iter()
            .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()).entries)
            .collect();
        let ranks = names.ranks();
        let offset_bits = prefix_has_offsets(runs.iter().flatten(), &ranks);
        let mut runs = partition_by_first_name(runs, &ranks)?;
        threads::for_each_mut(&mut runs, |_, run| sort_run(run, &ranks, offset_bits));
        Ok(FdataProfile::from_ordered_runs(mode, names, ranks, runs))
    }
}

/// Number of ranges [`partition_by_first_name`] makes.
const RANGES: usize = 64;
/// Entries sampled to place the range bounds.
const SAMPLES: usize = 64 * RANGES;

/// The group of an entry: its first location's type and name rank, the start of the byte
/// order of its text ([`FdataEntry::cmp_text`] orders entries of different groups as
/// their groups).
#[inline]
fn group(e: &FdataEntry, ranks: &[u32]) -> u64 {
    let (kind, name, _) = e.loc(0);
    u64::from(kind) << 32 | u64::from(ranks[name as usize])
}

/// The entries of `shards` moved into ranges of groups ([`group`]), in order: every entry
/// of a range comes before every entry of the next one once each is sorted, so the sorted
/// ranges are written one after the other (no merge of runs). The bounds come from a
/// sample of groups, so ranges hold about as many entries each; a shard is freed as soon
/// as its entries have moved (what is held grows by one shard at most).
fn partition_by_first_name(
    shards: Vec<Vec<FdataEntry>>,
    ranks: &[u32],
) -> Result<Vec<Vec<FdataEntry>>> {
    let total: usize = shards.iter().map(Vec::len).sum();
    if total == 0 {
        return Ok(Vec::new());
    }
    let step = total.div_ceil(SAMPLES);
    let mut sample: Vec<u64> = shards
        .iter()
        .flatten()
        .step_by(step)
        .map(|e| group(e, ranks))
        .collect();
    sample.sort_unstable();
    sample.dedup();
    // bounds[i]: the first group of range i + 1.
    let bounds: Vec<u64> = (1..RANGES)
        .map(|i| sample[i * sample.len() / RANGES])
        .collect::<Vec<_>>();
    let range_of = |e: &FdataEntry| bounds.partition_point(|&b| b <= group(e, ranks));
    let mut sizes = [0usize; RANGES];
    for e in shards.iter().flatten() {
        sizes[range_of(e)] += 1;
    }
    let bytes = std::mem::size_of::<FdataEntry>();
    let mut ranges = Vec::with_capacity(RANGES);
    for &n in &sizes {
        let mut r = Vec::new();
        r.try_reserve_exact(n)
            .map_err(|_| out_of_memory("merged fdata lines", n * bytes))?;
        ranges.push(r);
    }
    for shard in shards {
        for e in &shard {
            ranges[range_of(e)].push(*e);
        }
    }
    ranges.retain(|r: &Vec<FdataEntry>| !r.is_empty());
    Ok(ranges)
}

/// Sorts `run` by [`FdataEntry::cmp_text`]: by sort prefixes first (a pair of integers per
/// entry), the full comparison only where they tie.
fn sort_run(run: &mut [FdataEntry], ranks: &[u32], offset_bits: bool) {
    let mut keys: Vec<(u64, u32)> = run
        .iter()
        .enumerate()
        .map(|(i, e)| (e.sort_prefix(ranks, offset_bits), i as u32))
        .collect();
    keys.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| run[a.1 as usize].cmp_text(&run[b.1 as usize], ranks))
    });
    // Entry `keys[j].1` goes to `j`: moved in place, cycle by cycle (a second copy of the
    // run would be freed memory the allocator keeps), each place marked done by setting
    // its source to itself.
    for start in 0..run.len() {
        if keys[start].1 as usize == start {
            continue;
        }
        let first = run[start];
        let mut j = start;
        loop {
            let k = keys[j].1 as usize;
            keys[j].1 = j as u32;
            if k == start {
                run[j] = first;
                break;
            }
            run[j] = run[k];
            j = k;
        }
    }
}

/// A folder's cache of name ids: name text to the id the shared table gave.
#[derive(Default)]
struct LocalNames {
    bytes: Vec<u8>,
    /// (id, start in `bytes`, length).
    index: HashTable<(u32, usize, usize)>,
}

/// The name a folder last met at a location: its id and where its bytes are in the
/// folder's cache ([`LocalNames::bytes`]); none yet: an empty range, which no name (never
/// empty) matches.
#[derive(Debug, Clone, Copy, Default)]
struct LastName {
    id: u32,
    start: usize,
    len: usize,
}

/// True if `a` and `b` are the same bytes: compared eight at a time, inline (names are a
/// few dozen bytes; a call to `memcmp` per name cost more than the comparison).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().unwrap_or([0; 8]));
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    // The last eight bytes (overlapping the words compared when `n` is not a multiple).
    word(a, n - 8) == word(b, n - 8)
}

/// What a fold read from one input before it ended or failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FoldCounts {
    /// Record lines.
    pub lines: u64,
    /// Their counts summed (saturating, unweighted).
    pub counts: u64,
}

/// Folds inputs into an [`FdataMerge`], on one thread. Lines wait in per-shard batches
/// across inputs (up to 16,384 lines), so that each shard's table is visited for many
/// lines at once while it is in cache; [`FdataFolder::finish`] adds what is left.
pub struct FdataFolder<'m> {
    merge: &'m FdataMerge,
    cache: LocalNames,
    /// The last name met at each location: lines of one function follow each other in the
    /// files LLVM writes.
    last: [LastName; 2],
    /// Lines read and not yet added, per shard: key hash and entry.
    pending: Vec<Vec<(u64, FdataEntry)>>,
    pending_lines: usize,
    /// The mode of the pending lines.
    pending_mode: FdataMode,
    /// The length of each batch before the input being read.
    marks: Vec<usize>,
}

impl FdataFolder<'_> {
    /// Folds the lines of one input of mode `mode`, each count multiplied by `weight`.
    /// With `whole`, the input's lines are added only if every line reads and `keep`
    /// (called after the last line) accepts them, so memory grows with the input's lines;
    /// without it they are added in batches as read, and on an error the lines before it
    /// may have been added. An error comes with what was read before it.
    pub fn fold<'a>(
        &mut self,
        lines: impl Iterator<Item = Result<FdataLine<'a>>>,
        mode: FdataMode,
        weight: Weight,
        whole: bool,
        keep: impl FnOnce() -> Result<()>,
    ) -> std::result::Result<FoldCounts, (Error, FoldCounts)> {
        let mut read = FoldCounts::default();
        if mode != self.pending_mode {
            self.flush().map_err(|e| (e, read))?;
            self.pending_mode = mode;
        }
        self.mark();
        for line in lines {
            match line.and_then(|l| self.push(&l, weight)) {
                Ok(c) => {
                    read.lines += 1;
                    read.counts = read.counts.saturating_add(c);
                }
                Err(e) => {
                    self.back_to_mark();
                    return Err((e, read));
                }
            }
            if !whole && self.pending_lines >= FLUSH_LINES {
                self.flush().map_err(|e| (e, read))?;
                self.mark();
            }
        }
        if let Err(e) = keep() {
            self.back_to_mark();
            return Err((e, read));
        }
        if self.pending_lines >= FLUSH_LINES {
            self.flush().map_err(|e| (e, read))?;
        }
        Ok(read)
    }

    /// Adds the lines still waiting to the shards (dropping the folder does too, without
    /// an error to report).
    pub fn finish(mut self) -> Result<()> {
        self.flush()
    }

    /// Notes where the input about to be read starts in the batches.
    fn mark(&mut self) {
        self.marks.clear();
        self.marks.extend(self.pending.iter().map(Vec::len));
    }

    /// Drops the lines of the input being read.
    fn back_to_mark(&mut self) {
        for (batch, &m) in self.pending.iter_mut().zip(&self.marks) {
            self.pending_lines -= batch.len() - m;
            batch.truncate(m);
        }
    }

    /// Adds `l` to the pending lines; its count (unweighted).
    #[inline]
    fn push(&mut self, l: &FdataLine<'_>, weight: Weight) -> Result<u64> {
        let keyed = self.merge.semantics.keys_mispreds();
        let count = self.scaled(weight, l.count);
        let mispreds = match l.mispreds {
            Some(m) if !keyed => self.scaled(weight, m.value),
            _ => 0,
        };
        let names = self.names(l)?;
        let e = FdataEntry::new(l, names, keyed, [count, mispreds]);
        let hash = e.key_hash();
        let batch = &mut self.pending[shard_of(hash)];
        batch
            .try_reserve(1)
            .map_err(|_| out_of_memory("fdata lines read", std::mem::size_of::<FdataEntry>()))?;
        batch.push((hash, e));
        self.pending_lines += 1;
        Ok(l.count)
    }

    /// `value` times `weight`, saturating (and noted).
    fn scaled(&self, weight: Weight, value: u64) -> u64 {
        let (v, saturated) = weight.scale(value);
        if saturated {
            self.merge.saturated.store(true, Ordering::Relaxed);
        }
        v
    }

    /// The ids of the line's names.
    #[inline]
    fn names(&mut self, l: &FdataLine<'_>) -> Result<[u32; 2]> {
        let first = self.cached_name_id(0, l.locs[0].name)?;
        let second = match l.loc_count() {
            1 => 0,
            _ if l.locs[1].name == l.locs[0].name => first,
            _ => self.cached_name_id(1, l.locs[1].name)?,
        };
        Ok([first, second])
    }

    /// The id of `name` at location `i`: the last one's if it is the same name.
    #[inline]
    fn cached_name_id(&mut self, i: usize, name: &[u8]) -> Result<u32> {
        let last = self.last[i];
        let cached = self.cache.bytes.get(last.start..last.start + last.len);
        if cached.is_some_and(|c| same_bytes(c, name)) {
            return Ok(last.id);
        }
        let (id, start) = self.name_id(name)?;
        self.last[i] = LastName {
            id,
            start,
            len: name.len(),
        };
        Ok(id)
    }

    /// The id of `name`, from the cache or the shared table, and where the cache keeps
    /// its bytes.
    #[inline]
    fn name_id(&mut self, name: &[u8]) -> Result<(u32, usize)> {
        let hash = hash_bytes(name);
        let c = &self.cache;
        let found = c
            .index
            .find(hash, |&(_, s, n)| same_bytes(&c.bytes[s..s + n], name));
        if let Some(&(id, start, _)) = found {
            return Ok((id, start));
        }
        let id = self
            .merge
            .names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .intern(name, hash)?;
        let c = &mut self.cache;
        let start = c.bytes.len();
        c.bytes
            .try_reserve(name.len())
            .map_err(|_| out_of_memory("the names of an fdata merge", name.len()))?;
        c.bytes.extend_from_slice(name);
        let bytes = &c.bytes;
        let rehash = |&(_, s, n): &(u32, usize, usize)| hash_bytes(&bytes[s..s + n]);
        c.index
            .try_reserve(1, rehash)
            .map_err(|_| out_of_memory("the names of an fdata merge", name.len()))?;
        c.index.insert_unique(hash, (id, start, name.len()), rehash);
        Ok((id, start))
    }

    /// Adds the pending lines to the shards of their mode.
    fn flush(&mut self) -> Result<()> {
        let shards = &self.merge.modes[mode_index(self.pending_mode)];
        // Shards another thread holds are left for a second round, so that two folders
        // flushing at once do not queue behind each other shard after shard.
        let mut saturated = false;
        for blocking in [false, true] {
            for (batch, shard) in self.pending.iter_mut().zip(shards.iter()) {
                if batch.is_empty() {
                    continue;
                }
                let mut guard = match shard.try_lock() {
                    Ok(g) => g,
                    Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
                    Err(std::sync::TryLockError::WouldBlock) if blocking => {
                        shard.lock().unwrap_or_else(|e| e.into_inner())
                    }
                    Err(std::sync::TryLockError::WouldBlock) => continue,
                };
                saturated |= guard.add(batch)?;
                batch.clear();
            }
        }
        if saturated {
            self.merge.saturated.store(true, Ordering::Relaxed);
        }
        self.pending_lines = 0;
        Ok(())
    }
}

impl Drop for FdataFolder<'_> {
    /// Adds what is still waiting (an error is lost here: call [`FdataFolder::finish`]).
    fn drop(&mut self) {
        if self.pending_lines > 0 {
            let _ = self.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::bolt::FdataLineKind::{Branch, Sample};
    use crate::ir::bolt::{FdataEntry, test_line};

    /// Merges `inputs` (lines, weight) of mode `mode`.
    fn merge(
        inputs: &[(Vec<FdataLine<'static>>, u64)],
        semantics: FdataSemantics,
        mode: FdataMode,
    ) -> (FdataProfile, bool) {
        let m = FdataMerge::new(semantics);
        let mut f = m.folder();
        for (lines, w) in inputs {
            let w = Weight::integer(*w).unwrap();
            f.fold(lines.iter().copied().map(Ok), mode, w, true, || Ok(()))
                .unwrap();
        }
        f.finish().unwrap();
        let saturated = m.saturated();
        (m.finish(mode).unwrap(), saturated)
    }

    fn branch(from: &'static str, mis: &str, count: u64) -> FdataLine<'static> {
        test_line(Branch, &[(1, "f", from), (1, "f", "2")], Some(mis), count)
    }

    #[test]
    fn sort_run_moves_entries_in_place_into_text_order() {
        let mut names = FdataNames::default();
        let ids: Vec<u32> = ["g", "f", "f2"]
            .iter()
            .map(|n| names.push(n.as_bytes()).unwrap())
            .collect();
        let ranks = names.ranks();
        let offsets = ["1a", "01a", "ff", "2", "10", "0"];
        let mut run = Vec::new();
        for (k, id) in ids.iter().enumerate() {
            for (o, off) in offsets.iter().enumerate() {
                let l = test_line(Branch, &[(1, "x", off), (1, "x", "0")], Some("0"), 1);
                run.push(FdataEntry::new(&l, [*id, ids[(k + o) % 3]], false, [1, 0]));
            }
        }
        run.reverse();
        run.swap(2, 11);
        let mut want = run.clone();
        want.sort_unstable_by(|a, b| a.cmp_text(b, &ranks));
        sort_run(&mut run, &ranks, true);
        assert_eq!(run, want);
    }

    #[test]
    fn same_bytes_is_slice_equality() {
        let base: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for n in 0..40 {
            let a = &base[..n];
            assert!(same_bytes(a, a));
            assert!(!same_bytes(a, &base[..n + 1]));
            for i in 0..n {
                let mut b = a.to_vec();
                b[i] ^= 1;
                assert!(!same_bytes(a, &b), "{n} {i}");
            }
        }
    }

    #[test]
    fn llvm19_keys_mispreds_llvm20_adds_them() {
        let input = [
            (vec![branch("1", "0", 5), branch("1", "1", 7)], 1),
            (vec![branch("1", "0", 5)], 2),
        ];
        let (p19, _) = merge(&input, FdataSemantics::Llvm19, FdataMode::default());
        assert_eq!(p19.len(), 2);
        assert_eq!(p19.iter().next().unwrap().count, 15);
        let (p20, _) = merge(&input, FdataSemantics::Llvm20, FdataMode::default());
        assert_eq!(p20.len(), 1);
        let e = p20.iter().next().unwrap();
        assert_eq!((e.mis_column(), e.count), (MisColumn::Summed(1), 22));
    }

    #[test]
    fn sums_saturate() {
        let line = branch("1", "0", u64::MAX - 1);
        let input = [(vec![line], 1), (vec![line], 1)];
        let (p, saturated) = merge(&input, FdataSemantics::Llvm20, FdataMode::default());
        assert!(saturated);
        assert_eq!(p.iter().next().unwrap().count, u64::MAX);
    }

    #[test]
    fn offsets_keep_their_text_and_modes_stay_apart() {
        let a = test_line(Sample, &[(1, "f", "1a")], None, 1);
        let b = test_line(Sample, &[(1, "f", "1A")], None, 2);
        let c = test_line(Sample, &[(1, "f", "01a")], None, 4);
        let no_lbr = FdataMode {
            no_lbr: true,
            bolted: false,
        };
        let m = FdataMerge::new(FdataSemantics::Llvm20);
        let mut f = m.folder();
        f.fold(
            [a, b, c, a].into_iter().map(Ok),
            no_lbr,
            Weight::ONE,
            false,
            || Ok(()),
        )
        .unwrap();
        f.fold(
            [a].into_iter().map(Ok),
            FdataMode::default(),
            Weight::ONE,
            false,
            || Ok(()),
        )
        .unwrap();
        f.finish().unwrap();
        let p = m.finish(no_lbr).unwrap();
        let got: Vec<_> = p.iter().map(|e| (e.loc(0).2, e.count)).collect();
        let hex = |t: &str| HexText::parse(t.as_bytes()).unwrap();
        assert_eq!(got, [(hex("01a"), 4), (hex("1A"), 2), (hex("1a"), 2)]);
    }

    #[test]
    fn a_bad_input_adds_nothing_when_whole() {
        let good = branch("1", "0", 1);
        let m = FdataMerge::new(FdataSemantics::Llvm20);
        let mut f = m.folder();
        let mode = FdataMode::default();
        f.fold([Ok(good)].into_iter(), mode, Weight::ONE, true, || Ok(()))
            .unwrap();
        let bad = || Err(Error::new(ErrorKind::Empty));
        let lines = [Ok(branch("5", "0", 1)), bad()];
        let (_, read) = f
            .fold(lines.into_iter(), mode, Weight::ONE, true, || Ok(()))
            .unwrap_err();
        assert_eq!(
            read,
            FoldCounts {
                lines: 1,
                counts: 1
            }
        );
        let changed = || Err(Error::new(ErrorKind::InputChanged("x".into())));
        f.fold(
            [Ok(branch("6", "0", 1))].into_iter(),
            mode,
            Weight::ONE,
            true,
            changed,
        )
        .unwrap_err();
        f.fold([Ok(good)].into_iter(), mode, Weight::ONE, true, || Ok(()))
            .unwrap();
        f.finish().unwrap();
        let p = m.finish(mode).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p.iter().next().unwrap().count, 2);
    }
}
