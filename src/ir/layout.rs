//! Counter layouts: where each record's payload lies in every file of one known binary.
//!
//! A front-end that recognises a file as one more run of a binary it has seen (LLVM raw
//! profiles: `frontends::profraw::layout`) describes that binary's files by a
//! [`CounterLayout`]; the merge pass then adds the counters of such a file where they lie,
//! without records being built. The layout is the whole contract between the two: the pass
//! never looks at how the front-end recognised the file.

use crate::bytes::Endian;
use crate::ir::{CounterBytes, FunctionKey, ProfileKind};

/// Where one data record's payload lies in every file of a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutRecord {
    /// The record's key.
    pub key: FunctionKey,
    /// Absolute file offset of its first 8-byte counter.
    pub counters: usize,
    /// Number of counters.
    pub num_counters: usize,
    /// Absolute file offset of its MC/DC bitmap bytes.
    pub bitmap: usize,
    /// Number of bitmap bytes.
    pub bitmap_len: usize,
    /// Ordinal of its value block among the file's blocks (see
    /// `codec::value_prof_data::FlatValues`), if it has one.
    pub values: Option<u32>,
}

/// The records of every file of one layout, in file order.
///
/// Invariant: every record's counter and bitmap ranges lie inside each file that the
/// front-end accepted for this layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CounterLayout {
    /// The kind of every profile of this layout.
    pub kind: ProfileKind,
    /// Byte order of the 8-byte counters.
    pub endian: Endian,
    /// The records, in file order.
    pub records: Vec<LayoutRecord>,
}

impl CounterLayout {
    /// The counters of record `r` in `bytes`, a file of this layout, as values (None if they
    /// do not lie inside `bytes`, which the invariant rules out for an accepted file).
    #[inline]
    pub fn counters<'b>(&self, bytes: &'b [u8], r: &LayoutRecord) -> Option<CounterBytes<'b>> {
        let end = r.counters.checked_add(r.num_counters.checked_mul(8)?)?;
        Some(CounterBytes::new(bytes.get(r.counters..end)?, self.endian))
    }

    /// The MC/DC bitmap bytes of record `r` in `bytes`, a file of this layout.
    #[inline]
    pub fn bitmap<'b>(&self, bytes: &'b [u8], r: &LayoutRecord) -> Option<&'b [u8]> {
        bytes.get(r.bitmap..r.bitmap.checked_add(r.bitmap_len)?)
    }
}
