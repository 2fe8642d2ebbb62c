//! The profile summary as indexed profiles store it (`IndexedInstrProf::Summary`).

use crate::bytes::ByteWriter;
use crate::ir::summary::{DEFAULT_CUTOFFS, Summary};

/// Number of summary fields LLVM writes.
pub const NUM_FIELDS: u64 = 6;

/// Bytes of one serialized summary with the default cutoffs: 2 counts, 6 fields, 16 × 3
/// entry words.
pub const SERIALIZED_SIZE: u64 = 8 * (2 + NUM_FIELDS + 3 * DEFAULT_CUTOFFS.len() as u64);

/// Serializes `s` as LLVM's `IndexedInstrProf::Summary` (field order by kind index:
/// TotalNumFunctions, TotalNumBlocks, MaxFunctionCount, MaxBlockCount,
/// MaxInternalBlockCount, TotalBlockCount).
pub fn write(s: &Summary, w: &mut ByteWriter) {
    w.u64(NUM_FIELDS);
    w.u64(s.detailed.len() as u64);
    w.u64(s.num_functions);
    w.u64(s.num_counts);
    w.u64(s.max_function_count);
    w.u64(s.max_count);
    w.u64(s.max_internal_count);
    w.u64(s.total_count);
    for e in &s.detailed {
        w.u64(u64::from(e.cutoff));
        w.u64(e.min_count);
        w.u64(e.num_counts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::SummaryBuilder;

    #[test]
    fn default_summary_has_the_serialized_size() {
        let mut b = SummaryBuilder::new();
        b.add_record([50, 100, 66, 1, 17, 0, 13]);
        let mut w = ByteWriter::new();
        write(&b.finish(), &mut w);
        assert_eq!(w.len(), SERIALIZED_SIZE);
    }
}
