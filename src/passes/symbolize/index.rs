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
//! each segment lists the regions covering it, sorted by load time. A query is two binary
//! searches (segment, then time). Segments with no region are gaps. In real dumps almost every
//! segment has one region; a reused address has one entry per load. The total number of
//! (segment, region) entries is bounded by [`MAX_INDEX_ENTRIES`] so that a pathological
//! input (thousands of nested regions) is refused instead of exhausting memory.

use std::collections::BTreeSet;

use crate::error::{Error, ErrorKind, Result};

/// Largest number of (segment, region) entries an index may hold (64 Mi, 1 GiB of
/// entries); real inputs need about one per region.
pub const MAX_INDEX_ENTRIES: u64 = 64 << 20;

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

/// The index. Build with [`CodeIndexBuilder`].
#[derive(Debug, Clone, Default)]
pub struct CodeIndex {
    regions: Vec<Region>,
    /// Segment starts, ascending; segment `i` is `[bounds[i], bounds[i + 1])`.
    bounds: Vec<u64>,
    /// `first[i]..first[i + 1]` are segment `i`'s entries in `entries` (`first` has one more
    /// element than `bounds`).
    first: Vec<u32>,
    /// (load time, region) per segment, ascending by (time, region).
    entries: Vec<(u64, u32)>,
}

/// Collects regions, then builds a [`CodeIndex`].
#[derive(Debug, Clone, Default)]
pub struct CodeIndexBuilder {
    regions: Vec<Region>,
}

impl CodeIndexBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
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
        let regions = self.regions;
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
        let mut bounds = Vec::with_capacity(events.len());
        let mut first = Vec::with_capacity(events.len() + 1);
        let mut entries: Vec<(u64, u32)> = Vec::with_capacity(regions.len() + regions.len() / 8);
        let mut active: BTreeSet<(u64, u32)> = BTreeSet::new();
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
            // Segment [addr, next event address) covered by `active`.
            if (entries.len() + active.len()) as u64 > MAX_INDEX_ENTRIES {
                return Err(Error::new(ErrorKind::LimitExceeded {
                    what: "overlapping code-region entries (regions × the segments they cover)",
                    value: (entries.len() + active.len()) as u64,
                    limit: MAX_INDEX_ENTRIES,
                }));
            }
            bounds.push(addr);
            first.push(entries.len() as u32);
            entries.extend(active.iter().copied());
        }
        first.push(entries.len() as u32);
        Ok(CodeIndex {
            regions,
            bounds,
            first,
            entries,
        })
    }
}

/// Result of a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit<'a> {
    /// The region.
    pub region: &'a Region,
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

    /// The candidates covering `addr`, ascending by load time.
    #[inline]
    fn candidates(&self, addr: u64) -> &[(u64, u32)] {
        let i = self.bounds.partition_point(|&b| b <= addr);
        let Some(seg) = i.checked_sub(1) else {
            return &[];
        };
        match (self.first.get(seg), self.first.get(seg + 1)) {
            (Some(&a), Some(&b)) => self.entries.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The region covering `addr` that was loaded last at or before `time`. If none was,
    /// and one was loaded at most `slack` after `time`, the earliest such one (marked
    /// `early`): writers stamp records slightly out of order and a thread may run code just
    /// as it is being logged.
    #[inline]
    pub fn lookup(&self, addr: u64, time: u64, slack: u64) -> Option<Hit<'_>> {
        let c = self.candidates(addr);
        let n = c.partition_point(|&(t, _)| t <= time);
        if let Some(&(_, r)) = n.checked_sub(1).and_then(|i| c.get(i)) {
            return self.regions.get(r as usize).map(|region| Hit {
                region,
                early: false,
            });
        }
        let &(t, r) = c.first()?;
        (t - time <= slack).then(|| {
            self.regions.get(r as usize).map(|region| Hit {
                region,
                early: true,
            })
        })?
    }

    /// All regions covering `addr` at any time, ascending by load time (for tests and
    /// diagnostics).
    pub fn all_covering(&self, addr: u64) -> impl Iterator<Item = &Region> {
        self.candidates(addr)
            .iter()
            .filter_map(|&(_, r)| self.regions.get(r as usize))
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
        let p = |a, t| ix.lookup(a, t, 0).map(|h| h.region.payload);
        assert_eq!(p(120, 15), Some(1));
        assert_eq!(p(120, 20), Some(2));
        assert_eq!(p(120, 25), Some(2));
        assert_eq!(p(170, 25), Some(1)); // the part of 1 that 2 did not cover
        assert_eq!(p(120, 9), None);
        assert_eq!(p(200, 25), None);
        assert_eq!(p(99, 25), None);
        assert_eq!(p(399, 5), Some(3));
        let h = ix.lookup(120, 8, 2).unwrap();
        assert!(h.early && h.region.payload == 1);
        assert_eq!(ix.all_covering(120).count(), 2);
    }

    #[test]
    fn ties_go_to_the_later_region() {
        let mut b = CodeIndexBuilder::new();
        b.add(r(0, 10, 7, 1));
        b.add(r(0, 10, 7, 2));
        let ix = b.build().unwrap();
        assert_eq!(ix.lookup(5, 7, 0).unwrap().region.payload, 2);
        assert_eq!(ix.lookup(0, u64::MAX, 0).unwrap().region.payload, 2);
    }

    #[test]
    fn matches_a_linear_scan() {
        // Deterministic pseudo-random regions, compared with the definition.
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut regions = Vec::new();
        let mut b = CodeIndexBuilder::new();
        for i in 0..300 {
            let start = next() % 2000;
            let len = 1 + next() % 60;
            let reg = r(start, start + len, next() % 1000, i);
            if b.add(reg) {
                regions.push(reg);
            }
        }
        let ix = b.build().unwrap();
        for _ in 0..3000 {
            let a = next() % 2100;
            let t = next() % 1100;
            let want = regions
                .iter()
                .enumerate()
                .filter(|(_, g)| g.start <= a && a < g.end && g.time <= t)
                .max_by_key(|(i, g)| (g.time, *i))
                .map(|(_, g)| g.payload);
            assert_eq!(
                ix.lookup(a, t, 0).map(|h| h.region.payload),
                want,
                "{a} {t}"
            );
        }
    }
}
