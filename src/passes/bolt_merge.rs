//! Merging legacy BOLT profiles (`.fdata`): each line's counters are added, weighted and
//! saturating, under the key the LLVM release followed gives it ([`FdataSemantics`]); the
//! result is sorted by key, so it never depends on the order of inputs or on threads.
//!
//! Memory grows with the distinct keys, never with the number of inputs: an input's lines
//! are folded as they are read, and lines already met allocate nothing.

use crate::error::Result;
use crate::ir::Weight;
use crate::ir::bolt::{
    FdataCounts, FdataLine, FdataLineKind, FdataMap, FdataMode, FdataProfile, FdataSemantics,
};

/// The accumulator of an fdata merge.
#[derive(Debug, Clone)]
pub struct FdataMerger {
    semantics: FdataSemantics,
    entries: FdataMap,
    saturated: bool,
}

impl FdataMerger {
    /// An empty merge following `semantics`.
    pub fn new(semantics: FdataSemantics) -> FdataMerger {
        FdataMerger {
            semantics,
            entries: FdataMap::default(),
            saturated: false,
        }
    }

    /// Folds the lines of one input, each count multiplied by `weight`. On an error the
    /// accumulator holds the lines before it: a caller that goes on without the input checks
    /// it whole first.
    pub fn fold<'a>(
        &mut self,
        lines: impl Iterator<Item = Result<FdataLine<'a>>>,
        weight: Weight,
    ) -> Result<()> {
        for line in lines {
            self.add(&line?, weight);
        }
        Ok(())
    }

    /// Adds one line.
    pub fn add(&mut self, line: &FdataLine<'_>, weight: Weight) {
        let summed = self.semantics == FdataSemantics::Llvm20 && line.kind == FdataLineKind::Branch;
        let e = self
            .entries
            .entry_ref(line.key(self.semantics))
            .or_insert_with(|| FdataCounts {
                has_mispreds: summed,
                ..FdataCounts::default()
            });
        let (count, s1) = weight.scale_add(line.count, e.count);
        e.count = count;
        if summed {
            let (m, s2) = weight.scale_add(line.mispreds.unwrap_or(0), e.mispreds);
            e.mispreds = m;
            self.saturated |= s2;
        }
        self.saturated |= s1;
    }

    /// Adds everything `other` (of the same semantics) accumulated.
    pub fn absorb(&mut self, other: FdataMerger) {
        self.saturated |= other.saturated;
        if self.entries.len() < other.entries.len() {
            let mine = std::mem::replace(&mut self.entries, other.entries);
            return self.absorb_map(mine);
        }
        self.absorb_map(other.entries);
    }

    fn absorb_map(&mut self, map: FdataMap) {
        for (k, c) in map {
            let e = self.entries.entry(k).or_insert(FdataCounts {
                has_mispreds: c.has_mispreds,
                ..FdataCounts::default()
            });
            let (count, s1) = e.count.overflowing_add(c.count);
            let (mispreds, s2) = e.mispreds.overflowing_add(c.mispreds);
            e.count = if s1 { u64::MAX } else { count };
            e.mispreds = if s2 { u64::MAX } else { mispreds };
            self.saturated |= s1 | s2;
        }
    }

    /// Distinct keys so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True before any line was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// True if a sum reached 2^64 − 1 and stopped there.
    pub fn saturated(&self) -> bool {
        self.saturated
    }

    /// The merged profile of mode `mode`, its lines sorted by key.
    pub fn finish(self, mode: FdataMode) -> FdataProfile {
        let mut entries: Vec<(Box<[u8]>, FdataCounts)> = self.entries.into_iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        FdataProfile { mode, entries }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::bolt::FdataLineKind::Branch;

    fn branch<'a>(locations: &'a [u8], signature: &'a [u8], m: u64, c: u64) -> FdataLine<'a> {
        FdataLine {
            line: 1,
            kind: Branch,
            locations,
            signature,
            mispreds: Some(m),
            count: c,
        }
    }

    #[test]
    fn llvm19_keys_mispreds_llvm20_adds_them() {
        let a = branch(b"1 f 1 1 f 2", b"1 f 1 1 f 2 0", 0, 5);
        let b = branch(b"1 f 1 1 f 2", b"1 f 1 1 f 2 1", 1, 7);
        let mut m19 = FdataMerger::new(FdataSemantics::Llvm19);
        let mut m20 = FdataMerger::new(FdataSemantics::Llvm20);
        for m in [&mut m19, &mut m20] {
            m.add(&a, Weight::ONE);
            m.add(&b, Weight::ONE);
            m.add(&a, Weight::integer(2).unwrap());
        }
        let p19 = m19.finish(FdataMode::default());
        assert_eq!(p19.entries.len(), 2);
        assert_eq!(p19.entries[0].1.count, 15);
        let p20 = m20.finish(FdataMode::default());
        assert_eq!(p20.entries.len(), 1);
        assert_eq!((p20.entries[0].1.mispreds, p20.entries[0].1.count), (1, 22));
    }

    #[test]
    fn sums_saturate_and_absorb_is_a_sum() {
        let a = branch(b"1 f 1 1 f 2", b"1 f 1 1 f 2 0", 0, u64::MAX - 1);
        let mut m = FdataMerger::new(FdataSemantics::Llvm20);
        let mut n = m.clone();
        m.add(&a, Weight::ONE);
        n.add(&a, Weight::ONE);
        m.absorb(n);
        assert!(m.saturated());
        assert_eq!(m.finish(FdataMode::default()).entries[0].1.count, u64::MAX);
    }
}
