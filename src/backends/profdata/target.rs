//! What one LLVM release's `llvm-profdata merge` writes, beyond the index version.
//!
//! Releases that write the same index version still differ in bytes: the order of the names
//! in the on-disk table, the order of the records sharing a name, which records the stored
//! summary counts, and which profile-kind flags survive. `--target-llvm N` reproduces release
//! N's bytes; an index version asked for without a release (`--format-version`, the default)
//! is written as the current release writes it.

use super::record_order::DenseMapHash;
use crate::ir::ProfileKind;

/// The order in which a release inserts names into the on-disk hash table.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// Sorted by name (LLVM 17 and later sort `FunctionData` before inserting).
    Sorted,
    /// The iteration order of the `StringMap` of names, hashed with `djbHash(name, 0)`
    /// (LLVM 16 and earlier; see [`super::string_map`]).
    StringMapDjb,
}

/// The writer's behaviour for one release (or, with no release named, the current one's at
/// any index version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterModel {
    /// Order of the names in the table.
    pub key_order: KeyOrder,
    /// The `DenseMapInfo<uint64_t>` hash that orders the records of one name.
    pub record_hash: DenseMapHash,
    /// The summary skips records whose first counter is a pseudo count (2^64−1, 2^64−2);
    /// LLVM 15 added that, earlier releases count them.
    pub summary_skips_pseudo: bool,
    /// The profile-kind flags the release knows and writes; others are dropped.
    pub known_flags: ProfileKind,
}

/// Every flag (what the current release writes).
fn all_flags() -> ProfileKind {
    ProfileKind::IR
        .union(ProfileKind::CONTEXT_SENSITIVE)
        .union(ProfileKind::ENTRY_FIRST)
        .union(ProfileKind::LOOP_ENTRIES)
        .union(ProfileKind::BYTE_COVERAGE)
        .union(ProfileKind::FUNCTION_ENTRY_ONLY)
        .union(ProfileKind::TEMPORAL)
        .union(ProfileKind::FRONTEND)
}

impl WriterModel {
    /// The current release's writer (LLVM 22/23), used when no release is named.
    pub fn current() -> WriterModel {
        WriterModel {
            key_order: KeyOrder::Sorted,
            record_hash: DenseMapHash::Mix,
            summary_skips_pseudo: true,
            known_flags: all_flags(),
        }
    }

    /// The writer of LLVM release `major` (12 or later).
    ///
    /// Checked against the real llvm-profdata 13, 14, 18, 19, 22 and 23; for the releases in
    /// between, each behaviour is taken from the release that introduced it (StringMap order
    /// until the sort came in LLVM 17, the `x·37` hash until LLVM 19, pseudo counts skipped
    /// from LLVM 15, single-byte coverage and entry-only flags from LLVM 14, temporal traces
    /// from LLVM 17, loop entries from LLVM 20).
    pub fn for_llvm(major: u32) -> WriterModel {
        let mut known = ProfileKind::IR
            .union(ProfileKind::CONTEXT_SENSITIVE)
            .union(ProfileKind::ENTRY_FIRST)
            .union(ProfileKind::FRONTEND);
        if major >= 14 {
            known = known
                .union(ProfileKind::BYTE_COVERAGE)
                .union(ProfileKind::FUNCTION_ENTRY_ONLY);
        }
        if major >= 17 {
            known = known.union(ProfileKind::TEMPORAL);
        }
        if major >= 20 {
            known = known.union(ProfileKind::LOOP_ENTRIES);
        }
        WriterModel {
            key_order: if major <= 16 {
                KeyOrder::StringMapDjb
            } else {
                KeyOrder::Sorted
            },
            record_hash: if major <= 18 {
                DenseMapHash::Times37
            } else {
                DenseMapHash::Mix
            },
            summary_skips_pseudo: major >= 15,
            known_flags: known,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases() {
        let m14 = WriterModel::for_llvm(14);
        assert_eq!(m14.key_order, KeyOrder::StringMapDjb);
        assert!(!m14.summary_skips_pseudo);
        assert!(
            !WriterModel::for_llvm(13)
                .known_flags
                .contains(ProfileKind::BYTE_COVERAGE)
        );
        assert!(m14.known_flags.contains(ProfileKind::BYTE_COVERAGE));
        assert_eq!(WriterModel::for_llvm(18).record_hash, DenseMapHash::Times37);
        assert_eq!(WriterModel::for_llvm(18).key_order, KeyOrder::Sorted);
        assert_eq!(WriterModel::for_llvm(19).record_hash, DenseMapHash::Mix);
        assert!(
            !WriterModel::for_llvm(19)
                .known_flags
                .contains(ProfileKind::LOOP_ENTRIES)
        );
        assert_eq!(WriterModel::for_llvm(23), WriterModel::current());
    }
}
