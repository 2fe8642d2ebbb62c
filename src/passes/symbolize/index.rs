//! The address-resolution index: "which code region covered address A at time T".
//!
//! JIT runtimes free code and reuse its addresses, and no jitdump record announces an
//! unload, so the only rule that agrees with `perf inject --jit` is: among the regions
//! containing A, the one loaded last at or before T wins (a later load over an overlapping
//! range implicitly ends the older one there, exactly as perf's map tree does when the
//! injected MMAP2 events are replayed in time order). Ties in time go to the region added
//! later (file order).
//!
//! Layout: the address space is cut at every region start and end into elementary segments;
//! each segment lists the regions covering it, sorted by load time. A query is a binary
//! search for the segment, then (in reused code only) one for the time. Segments with no region are gaps. In real dumps almost every
//! segment has one region; a reused address has one entry per load. Regions that nest (each
//! load inside the one before, at another time) would make those lists grow as n²: once they
//! would hold more than [`list_budget`] entries, the index keeps instead a *load history*
//! (`history`: a persistent segment tree, n log n nodes) that answers the same questions, and
//! refuses an input that needs more than [`MAX_INDEX_ENTRIES`] of its nodes.
//!
//! A time-less index (perf maps, r2rmaps: [`CodeIndexBuilder::newest_only`]) is only ever
//! asked for the newest region, so its segments keep that one and no lists: n nested
//! regions cost O(n) memory there instead of the O(n²) entries of the lists.

use std::collections::BTreeSet;

use super::history::LoadHistory;
use crate::error::{Error, ErrorKind, Result};

/// Largest number of load-history nodes an index may hold (64 Mi, 768 MiB): about
/// 4 log₂(2n) per region of n, so only inputs of millions of regions that overlap at many
/// times come near it.
pub const MAX_INDEX_ENTRIES: u64 = 64 << 20;

/// Most (segment, region) list entries kept for `regions` regions before the index turns to
/// a load history: eight per region, and at least 64 Ki. Real dumps use about one.
pub fn list_budget(regions: usize) -> u64 {
    (regions as u64).saturating_mul(8).max(1 << 16)
}

/// A code region: `[start, end)` from `time` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// First byte.
    pub start: u64,
    /// One past the last byte (`> start`).
    pub end: u64,
    /// When it was loaded (ns of the jitdump's clock; a line number for time-less maps).
    pub time: u64,
    /// The caller's payload (e.g. an index into a name table).
    pub payload: u32,
}

/// From entry `i` of the level above (which is `level[i * FANOUT]`, at or before `addr`) to
/// the last entry of `level` at or before `addr`: a branch-free count over one node.
#[inline]
fn descend(level: &[u64], i: usize, addr: u64) -> usize {
    let lo = i * FANOUT;
    let node = level.get(lo..(lo + FANOUT).min(level.len())).unwrap_or(&[]);
    let c: usize = node.iter().map(|&k| usize::from(k <= addr)).sum();
    lo + c.saturating_sub(1)
}

/// The index. Build with [`CodeIndexBuilder`].
///
/// Lookups touch few cache lines, since a symboliser does one per sampled frame: the
/// segments are one array of records (start, newest region inline), searched by a
/// branch-free binary search whose last probes load the record that answers; only lookups
/// in reused code at a time before the newest load go on to the segment's list of older
/// regions. [`CodeIndex::lookup_batch`] runs the searches of several addresses in lockstep
/// so that their memory accesses overlap.
#[derive(Debug, Clone, Default)]
pub struct CodeIndex {
    regions: Vec<Region>,
    /// Start of each covered segment, ascending (gaps have no segment), then every
    /// [`FANOUT`]th key of the level below, up to a top level of at most `FANOUT²` keys:
    /// a search is a binary search in the small top level (cache-resident) and one scan of
    /// at most `FANOUT` contiguous keys (two cache lines) per level below.
    levels: Vec<Vec<u64>>,
    /// Per covered segment: its end and regions.
    segs: Vec<Seg>,
    /// For segments covered by several regions: a count followed by the (load time,
    /// payload) entries ascending by (time, region order).
    multi: Vec<(u64, u32)>,
    /// Instead of `multi` when the lists would be too long: the regions' paints in load
    /// order, with the regions by rank and their times.
    history: Option<History>,
}

/// The load history of an index whose segments' lists were too long (see `history`).
#[derive(Debug, Clone, Default)]
struct History {
    paints: LoadHistory,
    /// Region index by rank (ascending load time, then region order).
    by_rank: Vec<u32>,
    /// Load time by rank (ascending).
    times: Vec<u64>,
}

const NONE: u32 = u32::MAX;
/// `Seg::multi` of a segment covered by several regions whose candidates are in the history.
const IN_HISTORY: u32 = u32::MAX - 1;

/// Keys per node of the search levels.
pub const FANOUT: usize = 16;

/// A covered segment: its end and newest region inline, older ones in `multi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seg {
    /// One past the last address.
    end: u64,
    /// Load time of the newest region.
    time: u64,
    /// The payload of the newest region covering the segment.
    region: u32,
    /// Index of the segment's list in `multi`, `NONE` if only one region covers it.
    multi: u32,
}

/// Collects regions, then builds a [`CodeIndex`].
#[derive(Debug, Clone, Default)]
pub struct CodeIndexBuilder {
    regions: Vec<Region>,
    /// Keep only the newest region of each segment (see [`CodeIndexBuilder::newest_only`]).
    newest_only: bool,
    /// List entries allowed before the load history is used (default [`list_budget`]).
    budget: Option<u64>,
}

impl CodeIndexBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder of an index that answers only for the newest region covering an
    /// address: lookups at a time at or after every region's time (`u64::MAX`), as those of
    /// time-less maps are. Older regions under a newer one are not kept, so memory stays
    /// linear in the number of regions however they nest; a lookup at an earlier time sees
    /// only the newest region (found, or `None`, or early within the slack, by its time).
    pub fn newest_only() -> Self {
        Self {
            newest_only: true,
            ..Self::default()
        }
    }

    /// Uses the load history once the lists would hold more than `entries` entries instead
    /// of [`list_budget`] (0: always, when any segment has several regions). Both answer
    /// alike; this is for tests and measurements.
    pub fn with_list_budget(mut self, entries: u64) -> Self {
        self.budget = Some(entries);
        self
    }

    /// Adds a region; empty ones (`end <= start`) are ignored and reported as `false`.
    pub fn add(&mut self, r: Region) -> bool {
        if r.end <= r.start {
            return false;
        }
        self.regions.push(r);
        true
    }

    /// Number of regions added.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// True if no region was added.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Builds the index (a sweep over the sorted region boundaries).
    pub fn build(self) -> Result<CodeIndex> {
        let Self {
            regions,
            newest_only,
            budget,
        } = self;
        let budget = budget.unwrap_or_else(|| list_budget(regions.len()));
        let mut in_history = false;
        if regions.len() >= u32::MAX as usize {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "code regions",
                value: regions.len() as u64,
                limit: u64::from(u32::MAX) - 1,
            }));
        }
        // (address, is_start, region): ends sort before starts at one address.
        let mut events: Vec<(u64, bool, u32)> = Vec::with_capacity(regions.len() * 2);
        for (i, r) in regions.iter().enumerate() {
            events.push((r.start, true, i as u32));
            events.push((r.end, false, i as u32));
        }
        events.sort_unstable();
        let mut keys: Vec<u64> = Vec::with_capacity(regions.len() + 1);
        let mut segs: Vec<Seg> = Vec::with_capacity(regions.len() + 1);
        let mut multi: Vec<(u64, u32)> = Vec::new();
        let mut active: BTreeSet<(u64, u32)> = BTreeSet::new();
        let payload = |r: u32| regions.get(r as usize).map_or(NONE, |x| x.payload);
        let mut k = 0;
        while let Some(&(addr, _, _)) = events.get(k) {
            while let Some(&(a, is_start, i)) = events.get(k) {
                if a != addr {
                    break;
                }
                let t = regions.get(i as usize).map_or(0, |r| r.time);
                if is_start {
                    active.insert((t, i));
                } else {
                    active.remove(&(t, i));
                }
                k += 1;
            }
            // Segment [addr, next event address) covered by `active`; gaps are skipped.
            let end = events.get(k).map_or(addr, |e| e.0);
            let Some(&(t, r)) = active.last() else {
                continue;
            };
            let seg = if active.len() == 1 || newest_only {
                Seg {
                    end,
                    time: t,
                    region: payload(r),
                    multi: NONE,
                }
            } else if in_history || (multi.len() + active.len() + 1) as u64 > budget {
                // Too many entries: every segment with several regions is answered from the
                // load history built below.
                in_history = true;
                multi = Vec::new();
                Seg {
                    end,
                    time: t,
                    region: payload(r),
                    multi: IN_HISTORY,
                }
            } else {
                let n = active.len();
                let at = multi.len() as u32;
                multi.push((n as u64, 0));
                multi.extend(active.iter().map(|&(t, r)| (t, payload(r))));
                Seg {
                    end,
                    time: t,
                    region: payload(r),
                    multi: at,
                }
            };
            keys.push(addr);
            segs.push(seg);
        }
        if in_history {
            // Segments listed before the switch keep their lists' marker: all of them go to
            // the history.
            for seg in segs.iter_mut().filter(|s| s.multi != NONE) {
                seg.multi = IN_HISTORY;
            }
        }
        let history = in_history
            .then(|| history_of(&regions, &keys))
            .transpose()?;
        let mut levels = vec![keys];
        while let Some(l) = levels.last().filter(|l| l.len() > FANOUT * FANOUT) {
            let up: Vec<u64> = l.iter().step_by(FANOUT).copied().collect();
            levels.push(up);
        }
        Ok(CodeIndex {
            regions,
            levels,
            segs,
            multi,
            history,
        })
    }
}

/// The load history of `regions` over the covered segments starting at `keys` (each region
/// covers a run of consecutive segments: those from its start to its end).
fn history_of(regions: &[Region], keys: &[u64]) -> Result<History> {
    let mut by_rank: Vec<u32> = (0..regions.len() as u32).collect();
    by_rank.sort_by_key(|&i| (regions.get(i as usize).map_or(0, |r| r.time), i));
    let times: Vec<u64> = by_rank
        .iter()
        .map(|&i| regions.get(i as usize).map_or(0, |r| r.time))
        .collect();
    let mut paints = LoadHistory::new(keys.len() as u32);
    for &i in &by_rank {
        let Some(r) = regions.get(i as usize) else {
            continue;
        };
        let a = keys.partition_point(|&k| k < r.start) as u32;
        let b = keys.partition_point(|&k| k < r.end) as u32;
        paints.paint(a, b);
        if paints.nodes() as u64 > MAX_INDEX_ENTRIES {
            return Err(Error::new(ErrorKind::LimitExceeded {
                what: "load-history nodes of overlapping code regions",
                value: paints.nodes() as u64,
                limit: MAX_INDEX_ENTRIES,
            }));
        }
    }
    Ok(History {
        paints,
        by_rank,
        times,
    })
}

/// Result of a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The region's payload.
    pub payload: u32,
    /// The region's load time.
    pub time: u64,
    /// True if no region covered the address at the time and the earliest later one within
    /// the slack was taken.
    pub early: bool,
}

impl CodeIndex {
    /// All regions, in insertion order.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// Number of regions.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Index of the last segment starting at or before `addr`.
    #[inline]
    fn seg_index(&self, addr: u64) -> Option<usize> {
        let (top, below) = self.levels.split_last()?;
        let mut i = top.partition_point(|&k| k <= addr).checked_sub(1)?;
        for level in below.iter().rev() {
            i = descend(level, i, addr);
        }
        Some(i)
    }

    /// The segment containing `addr`, if any, and its index.
    #[inline]
    fn segment(&self, addr: u64) -> Option<(usize, &Seg)> {
        let i = self.seg_index(addr)?;
        self.segs.get(i).filter(|s| addr < s.end).map(|s| (i, s))
    }

    /// The candidates of a segment with several regions, ascending by load time.
    fn multi_of(&self, seg: &Seg) -> &[(u64, u32)] {
        let at = seg.multi as usize;
        let n = self.multi.get(at).map_or(0, |h| h.0 as usize);
        self.multi.get(at + 1..at + 1 + n).unwrap_or(&[])
    }

    fn hit(payload: u32, time: u64, early: bool) -> Option<Hit> {
        Some(Hit {
            payload,
            time,
            early,
        })
    }

    /// The region covering `addr` that was loaded last at or before `time`. If none was,
    /// and one was loaded at most `slack` after `time`, the earliest such one (marked
    /// `early`): writers stamp records slightly out of order and a thread may run code just
    /// as it is being logged.
    #[inline]
    pub fn lookup(&self, addr: u64, time: u64, slack: u64) -> Option<Hit> {
        let (i, seg) = self.segment(addr)?;
        self.resolve_in(i, seg, time, slack)
    }

    /// [`CodeIndex::lookup`] for many addresses at once: `out[i]` is the answer for
    /// `queries[i] = (addr, time)`. The binary searches run in lockstep over groups of
    /// addresses, so the cache misses of one overlap those of the others.
    pub fn lookup_batch(&self, queries: &[(u64, u64)], slack: u64, out: &mut Vec<Option<Hit>>) {
        const LANES: usize = 16;
        out.clear();
        let Some((top, below)) = self.levels.split_last() else {
            out.extend(queries.iter().map(|_| None));
            return;
        };
        for chunk in queries.chunks(LANES) {
            // Per lane, the index in the current level, or None if before the first key.
            let mut idx = [None::<usize>; LANES];
            for (x, &(addr, _)) in idx.iter_mut().zip(chunk) {
                *x = top.partition_point(|&k| k <= addr).checked_sub(1);
            }
            for level in below.iter().rev() {
                for (x, &(addr, _)) in idx.iter_mut().zip(chunk) {
                    if let Some(i) = x {
                        *i = descend(level, *i, addr);
                    }
                }
            }
            for (x, &(addr, time)) in idx.iter().zip(chunk) {
                let hit = x
                    .and_then(|i| self.segs.get(i).map(|s| (i, s)))
                    .filter(|(_, s)| addr < s.end)
                    .and_then(|(i, seg)| self.resolve_in(i, seg, time, slack));
                out.push(hit);
            }
        }
    }

    /// The answer for segment `i` (`seg`) at `time`.
    #[inline]
    fn resolve_in(&self, i: usize, seg: &Seg, time: u64, slack: u64) -> Option<Hit> {
        if seg.time <= time {
            return Self::hit(seg.region, seg.time, false);
        }
        if seg.multi == NONE {
            return (seg.time - time <= slack)
                .then(|| Self::hit(seg.region, seg.time, true))
                .flatten();
        }
        if seg.multi == IN_HISTORY {
            return self.resolve_in_history(i, time, slack);
        }
        let c = self.multi_of(seg);
        let n = c.partition_point(|&(t, _)| t <= time);
        if let Some(&(t, p)) = n.checked_sub(1).and_then(|i| c.get(i)) {
            return Self::hit(p, t, false);
        }
        let &(t, p) = c.first()?;
        (t - time <= slack).then(|| Self::hit(p, t, true)).flatten()
    }

    /// [`CodeIndex::resolve_in`] for a segment whose candidates are in the load history.
    #[cold]
    fn resolve_in_history(&self, i: usize, time: u64, slack: u64) -> Option<Hit> {
        let h = self.history.as_ref()?;
        let s = u32::try_from(i).ok()?;
        let region = |rank: u32| {
            let r = self.regions.get(*h.by_rank.get(rank as usize)? as usize)?;
            Some((r.payload, r.time))
        };
        let loaded = h.times.partition_point(|&t| t <= time);
        if let Some((p, t)) = h.paints.latest(loaded, s).and_then(region) {
            return Self::hit(p, t, false);
        }
        let (p, t) = h.paints.earliest(s).and_then(region)?;
        (t.saturating_sub(time) <= slack)
            .then(|| Self::hit(p, t, true))
            .flatten()
    }

    /// (load time, payload) of every region covering `addr` at any time, ascending by
    /// load time (for tests and diagnostics).
    pub fn all_covering(&self, addr: u64) -> Vec<(u64, u32)> {
        let Some((_, seg)) = self.segment(addr) else {
            return Vec::new();
        };
        if seg.multi == NONE {
            return vec![(seg.time, seg.region)];
        }
        if seg.multi == IN_HISTORY {
            // Diagnostics only: a scan of the regions.
            let mut all: Vec<(u64, usize, u32)> = self
                .regions
                .iter()
                .enumerate()
                .filter(|(_, r)| r.start <= addr && addr < r.end)
                .map(|(i, r)| (r.time, i, r.payload))
                .collect();
            all.sort_unstable();
            return all.into_iter().map(|(t, _, p)| (t, p)).collect();
        }
        self.multi_of(seg).to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: u64, end: u64, time: u64, payload: u32) -> Region {
        Region {
            start,
            end,
            time,
            payload,
        }
    }

    #[test]
    fn newest_load_at_or_before_wins() {
        let mut b = CodeIndexBuilder::new();
        b.add(r(100, 200, 10, 1));
        b.add(r(100, 150, 20, 2)); // reuses the start of 1
        b.add(r(300, 400, 5, 3));
        assert!(!b.add(r(500, 500, 1, 9)));
        let ix = b.build().unwrap();
        let p = |a, t| ix.lookup(a, t, 0).map(|h| h.payload);
        assert_eq!(p(120, 15), Some(1));
        assert_eq!(p(120, 20), Some(2));
        assert_eq!(p(120, 25), Some(2));
        assert_eq!(p(170, 25), Some(1)); // the part of 1 that 2 did not cover
        assert_eq!(p(120, 9), None);
        assert_eq!(p(200, 25), None);
        assert_eq!(p(99, 25), None);
        assert_eq!(p(399, 5), Some(3));
        let h = ix.lookup(120, 8, 2).unwrap();
        assert!(h.early && h.payload == 1);
        assert_eq!(ix.all_covering(120).len(), 2);
    }

    #[test]
    fn ties_go_to_the_later_region() {
        let mut b = CodeIndexBuilder::new();
        b.add(r(0, 10, 7, 1));
        b.add(r(0, 10, 7, 2));
        let ix = b.build().unwrap();
        assert_eq!(ix.lookup(5, 7, 0).unwrap().payload, 2);
        assert_eq!(ix.lookup(0, u64::MAX, 0).unwrap().payload, 2);
    }

    #[test]
    fn matches_a_linear_scan() {
        for budget in [None, Some(0), Some(500)] {
            matches_a_linear_scan_with(budget);
        }
    }

    /// The index (with lists, with the load history from the start or after some lists)
    /// against the definition, on deterministic pseudo-random regions, early hits included.
    fn matches_a_linear_scan_with(budget: Option<u64>) {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut regions = Vec::new();
        let mut b = CodeIndexBuilder::new();
        if let Some(n) = budget {
            b = b.with_list_budget(n);
        }
        for i in 0..3000 {
            let start = next() % 20000;
            let len = 1 + next() % 60;
            let reg = r(start, start + len, next() % 1000, i);
            if b.add(reg) {
                regions.push(reg);
            }
        }
        let ix = b.build().unwrap();
        let (mut queries, mut wants): (Vec<(u64, u64)>, Vec<Option<u32>>) =
            (Vec::new(), Vec::new());
        for _ in 0..3000 {
            let a = next() % 21000;
            let t = next() % 1100;
            let want = regions
                .iter()
                .enumerate()
                .filter(|(_, g)| g.start <= a && a < g.end && g.time <= t)
                .max_by_key(|(i, g)| (g.time, *i))
                .map(|(_, g)| g.payload);
            assert_eq!(ix.lookup(a, t, 0).map(|h| h.payload), want, "{a} {t}");
            if want.is_none() {
                let early = regions
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.start <= a && a < g.end && g.time <= t + 50)
                    .min_by_key(|(i, g)| (g.time, *i))
                    .map(|(_, g)| (g.payload, true));
                let got = ix.lookup(a, t, 50).map(|h| (h.payload, h.early));
                assert_eq!(got, early, "early {a} {t}");
            }
            queries.push((a, t));
            wants.push(want);
        }
        assert_eq!(ix.history.is_some(), budget.is_some(), "{budget:?}");
        assert!(ix.levels.len() >= 2, "the test must cross levels");
        let mut out = Vec::new();
        ix.lookup_batch(&queries, 0, &mut out);
        let got: Vec<_> = out.iter().map(|h| h.map(|h| h.payload)).collect();
        assert_eq!(got, wants);
    }

    #[test]
    fn newest_only_answers_as_the_full_index_for_the_newest_and_stays_linear() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let (mut full, mut newest) = (CodeIndexBuilder::new(), CodeIndexBuilder::newest_only());
        for i in 0..3000 {
            let start = next() % 20000;
            let reg = r(start, start + 1 + next() % 300, u64::from(i), i);
            full.add(reg);
            newest.add(reg);
        }
        let (full, newest) = (full.build().unwrap(), newest.build().unwrap());
        assert!(newest.multi.is_empty() && newest.history.is_none());
        assert!(!full.multi.is_empty() || full.history.is_some());
        for a in 0..21000 {
            assert_eq!(
                newest.lookup(a, u64::MAX, 0),
                full.lookup(a, u64::MAX, 0),
                "{a}"
            );
        }
        // Nested regions (each inside the one before, as a hostile perf map has them): one
        // segment per boundary and no lists, where the full index holds n²/2 entries.
        let n = 20_000u64;
        let mut b = CodeIndexBuilder::newest_only();
        for i in 0..n {
            b.add(r(i, 2 * n - i, i, i as u32));
        }
        let ix = b.build().unwrap();
        assert!(ix.multi.is_empty() && ix.segs.len() < 2 * n as usize);
        assert_eq!(
            ix.lookup(n - 1, u64::MAX, 0).unwrap().payload,
            (n - 1) as u32
        );
        assert_eq!(ix.lookup(0, u64::MAX, 0).unwrap().payload, 0);
        assert_eq!(ix.lookup(2 * n - 1, u64::MAX, 0).unwrap().payload, 0);
    }

    /// Nested jitdump loads at different times (each inside the one before, loaded later):
    /// lists would hold n²/2 entries; the load history answers with n log n nodes.
    #[test]
    fn nested_loads_use_the_history_and_answer_by_time() {
        let n = 20_000u64;
        let mut b = CodeIndexBuilder::new();
        let mut regions = Vec::new();
        for i in 0..n {
            let reg = r(i, 2 * n - i, 10 * i, i as u32);
            b.add(reg);
            regions.push(reg);
        }
        let ix = b.build().unwrap();
        let h = ix.history.as_ref().expect("the lists are over budget");
        assert!(ix.multi.is_empty());
        let log = u64::from(64 - (2 * n).leading_zeros());
        assert!(
            (h.paints.nodes() as u64) < 4 * n * (log + 1),
            "{} nodes",
            h.paints.nodes()
        );
        let mut s = 0x1234_5678_9abc_def1u64;
        for _ in 0..2000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let a = s % (2 * n + 5);
            let t = (s >> 20) % (10 * n + 20);
            let want = regions
                .iter()
                .filter(|g| g.start <= a && a < g.end && g.time <= t)
                .max_by_key(|g| (g.time, g.payload))
                .map(|g| g.payload);
            assert_eq!(ix.lookup(a, t, 0).map(|h| h.payload), want, "{a} {t}");
        }
        assert_eq!(ix.all_covering(n).len(), n as usize);
    }
}
