//! The profile summary LLVM stores in indexed profiles and computes with
//! `ProfileSummaryBuilder`: totals, maxima and the detailed (cutoff) summary of the counters.

/// LLVM's default detailed-summary cutoffs, in parts per million.
pub const DEFAULT_CUTOFFS: [u32; 16] = [
    10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000, 900000, 950000, 990000,
    999000, 999900, 999990, 999999,
];

/// One detailed-summary entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryEntry {
    /// Cutoff in parts per million.
    pub cutoff: u32,
    /// Smallest count among the hottest counters that make up `cutoff` of the total.
    pub min_count: u64,
    /// How many counters that is.
    pub num_counts: u64,
}

/// A finished summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Records added.
    pub num_functions: u64,
    /// Counters added.
    pub num_counts: u64,
    /// Largest first counter.
    pub max_function_count: u64,
    /// Largest counter.
    pub max_count: u64,
    /// Largest counter that is not a record's first.
    pub max_internal_count: u64,
    /// Sum of all counters (wrapping, as LLVM).
    pub total_count: u64,
    /// One entry per cutoff.
    pub detailed: Vec<SummaryEntry>,
}

/// Accumulates records the way `InstrProfSummaryBuilder::addRecord` does.
#[derive(Debug, Clone, Default)]
pub struct SummaryBuilder {
    total_count: u64,
    max_count: u64,
    max_function_count: u64,
    max_internal_count: u64,
    num_counts: u32,
    num_functions: u32,
    /// How many counters have each count below [`SMALL_COUNTS`] (most counts are small).
    small: Vec<u32>,
    /// The larger counts themselves, one entry per counter (8 bytes each: a map from count to
    /// frequency takes 2–4 times that per distinct count, and merged counts are mostly
    /// distinct), sorted when the summary is computed.
    large: Vec<u64>,
    /// Count records whose first counter is a pseudo count, skipping only counters of
    /// 2^64−1, as LLVM 14 and earlier do.
    count_pseudo: bool,
}

/// Counts below this are tallied in an array, larger ones in a hash map.
const SMALL_COUNTS: usize = 1 << 12;

impl SummaryBuilder {
    /// A fresh builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder that also counts records whose first counter is a pseudo count, leaving out
    /// only the counters of 2^64−1 themselves, as `InstrProfSummaryBuilder` did before LLVM 15.
    pub fn counting_pseudo() -> Self {
        SummaryBuilder {
            count_pseudo: true,
            ..Self::default()
        }
    }

    /// Adds one count (`ProfileSummaryBuilder::addCount`): sample profiles add their body
    /// samples one by one.
    #[inline]
    pub fn add_count(&mut self, c: u64) {
        self.total_count = self.total_count.wrapping_add(c);
        self.max_count = self.max_count.max(c);
        self.num_counts = self.num_counts.wrapping_add(1);
        if c < SMALL_COUNTS as u64 {
            if self.small.is_empty() {
                self.small = vec![0; SMALL_COUNTS];
            }
            if let Some(f) = self.small.get_mut(c as usize) {
                *f = f.wrapping_add(1);
            }
        } else {
            // Spread the key (invertibly): the map's hasher takes it as it is.
            self.large.push(c);
        }
    }

    /// Counts one function whose entry count is `head` (sample profiles: a top-level
    /// profile and its head samples).
    pub fn add_function(&mut self, head: u64) {
        self.num_functions = self.num_functions.wrapping_add(1);
        self.max_function_count = self.max_function_count.max(head);
    }

    /// (count, frequency) pairs, largest count first. Sorts the large counts.
    fn frequencies_descending(&mut self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.large.sort_unstable_by(|a, b| b.cmp(a));
        let large = self
            .large
            .chunk_by(|a, b| a == b)
            .map(|run| (run[0], run.len() as u32));
        let small = self
            .small
            .iter()
            .enumerate()
            .rev()
            .filter(|&(_, &f)| f != 0)
            .map(|(c, &f)| (c as u64, f));
        large.chain(small)
    }

    /// Adds one record's counters. Records whose first counter is a pseudo count
    /// (`u64::MAX` or `u64::MAX − 1`) are skipped, as LLVM 15 and later do, unless the builder
    /// was made by [`SummaryBuilder::counting_pseudo`] (then see there).
    pub fn add_record(&mut self, counters: impl IntoIterator<Item = u64>) {
        let mut it = counters.into_iter();
        let Some(first) = it.next() else { return };
        if self.count_pseudo {
            // LLVM 14's `addEntryCount`/`addInternalCount`: every record is a function, and
            // each counter of 2^64−1 ("invalid") is skipped on its own.
            self.num_functions = self.num_functions.wrapping_add(1);
            if first != u64::MAX {
                self.add_count(first);
                self.max_function_count = self.max_function_count.max(first);
            }
            for c in it.filter(|&c| c != u64::MAX) {
                self.add_count(c);
                self.max_internal_count = self.max_internal_count.max(c);
            }
            return;
        }
        if first == u64::MAX || first == u64::MAX - 1 {
            return;
        }
        self.add_count(first);
        self.num_functions = self.num_functions.wrapping_add(1);
        self.max_function_count = self.max_function_count.max(first);
        for c in it {
            self.add_count(c);
            self.max_internal_count = self.max_internal_count.max(c);
        }
    }

    /// Computes the detailed summary (`ProfileSummaryBuilder::computeDetailedSummary`) with
    /// LLVM's default cutoffs.
    pub fn finish(&mut self) -> Summary {
        self.finish_with(&DEFAULT_CUTOFFS)
    }

    /// As [`SummaryBuilder::finish`] with other cutoffs (parts per million; sorted first, as
    /// LLVM does).
    pub fn finish_with(&mut self, cutoffs: &[u32]) -> Summary {
        let mut sorted = cutoffs.to_vec();
        sorted.sort_unstable();
        let mut detailed = Vec::with_capacity(sorted.len());
        let total_count = self.total_count;
        let mut iter = self.frequencies_descending();
        let mut curr_sum: u64 = 0;
        let mut seen: u32 = 0;
        let mut count: u64 = 0;
        for &cutoff in &sorted {
            let desired = (u128::from(total_count) * u128::from(cutoff) / 1_000_000) as u64;
            while curr_sum < desired {
                let Some((c, freq)) = iter.next() else {
                    break;
                };
                count = c;
                curr_sum = curr_sum.wrapping_add(c.wrapping_mul(u64::from(freq)));
                seen = seen.wrapping_add(freq);
            }
            detailed.push(SummaryEntry {
                cutoff,
                min_count: count,
                num_counts: u64::from(seen),
            });
        }
        drop(iter);
        Summary {
            num_functions: u64::from(self.num_functions),
            num_counts: u64::from(self.num_counts),
            max_function_count: self.max_function_count,
            max_count: self.max_count,
            max_internal_count: self.max_internal_count,
            total_count: self.total_count,
            detailed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_counts_before_and_after_llvm_15() {
        // overflow-instr.proftext: one record [2^64−1, 2^63, 2^64−1]. LLVM 15+ skip the
        // record; LLVM 14 counts it as a function and keeps only the 2^63 counter.
        let rec = [u64::MAX, 1 << 63, u64::MAX];
        let mut new = SummaryBuilder::new();
        new.add_record(rec);
        let s = new.finish();
        assert_eq!((s.num_functions, s.num_counts, s.total_count), (0, 0, 0));
        let mut old = SummaryBuilder::counting_pseudo();
        old.add_record(rec);
        let s = old.finish();
        assert_eq!(
            (s.num_functions, s.num_counts, s.max_function_count),
            (1, 1, 0)
        );
        assert_eq!(
            (s.max_count, s.max_internal_count, s.total_count),
            (1 << 63, 1 << 63, 1 << 63)
        );
    }

    #[test]
    fn basic22_summary() {
        // Format reference §3: counters 100, 66, 53, 50, 34, 17, 13, 13, 1, 0, 0 (5 records).
        let mut b = SummaryBuilder::new();
        b.add_record([50, 100, 66, 1, 17, 0, 13]);
        b.add_record([53]);
        b.add_record([34]);
        b.add_record([13]);
        b.add_record([0]);
        let s = b.finish();
        assert_eq!(
            (s.num_functions, s.num_counts, s.max_function_count),
            (5, 11, 53)
        );
        assert_eq!(
            (s.max_count, s.max_internal_count, s.total_count),
            (100, 100, 347)
        );
        let got: Vec<(u32, u64, u64)> = s
            .detailed
            .iter()
            .map(|e| (e.cutoff, e.min_count, e.num_counts))
            .collect();
        let mut want = vec![
            (10000, 100, 1),
            (100000, 100, 1),
            (200000, 100, 1),
            (300000, 66, 2),
            (400000, 66, 2),
            (500000, 53, 3),
            (600000, 53, 3),
            (700000, 50, 4),
            (800000, 34, 5),
            (900000, 17, 6),
        ];
        for c in [950000, 990000, 999000, 999900, 999990, 999999] {
            want.push((c, 13, 8));
        }
        assert_eq!(got, want);
    }

    #[test]
    fn empty_summary() {
        let s = SummaryBuilder::new().finish();
        assert!(
            s.detailed
                .iter()
                .all(|e| e.min_count == 0 && e.num_counts == 0)
        );
    }
}
