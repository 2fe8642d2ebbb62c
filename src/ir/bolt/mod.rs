//! BOLT profiles in the legacy `fdata` format (what `llvm-bolt -instrument` and `perf2bolt`
//! write, what `merge-fdata` merges): the line views a reader yields, the counters a merge
//! keeps per key, and the merged profile a writer emits.
//!
//! An fdata file is optional header lines (`boltedcollection`, then `no_lbr [EVENT...]`)
//! followed by one record per line, fields separated by single spaces, offsets in hex and
//! counts in decimal:
//!
//! | kind | fields |
//! |---|---|
//! | branch (LBR profiles) | `FROM TO MISPREDS COUNT` |
//! | sample (`no_lbr` profiles) | `ADDR COUNT` |
//! | memory event | `PC ADDR COUNT` |
//!
//! where each location is `T NAME OFFSET`: `T` is 0 (an address in a DSO or unknown), 1 (a
//! global symbol) or 2 (a local symbol) for branches and samples, and 3, 4, 5 the same for
//! the two locations of a memory event.
//!
//! How a merge keys lines depends on the LLVM release it follows ([`FdataSemantics`]).

mod profile;
mod text;

pub use profile::{
    FdataEntry, FdataNames, FdataProfile, MisColumn, SortedEntries, prefix_has_offsets,
};
pub use text::{DecimalText, HexText, MAX_DECIMAL_DIGITS, MAX_HEX_DIGITS};

/// Whose `merge-fdata` a merge of fdata profiles follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FdataSemantics {
    /// LLVM 19 and earlier: a branch line's key is everything before its count, its
    /// misprediction field included, so the same branch with different misprediction counts
    /// stays two lines ("duplicate branches").
    Llvm19,
    /// LLVM 20 to 22 (llvm-project PR 119652): a branch is keyed by its two locations,
    /// and both its mispredictions and its count are added.
    Llvm20,
    /// LLVM 23 and later: as [`FdataSemantics::Llvm20`], and the `no_lbr` header line of
    /// the merged profile keeps the event names of every input (each once, sorted by bytes;
    /// checked with Debian's merge-fdata-23).
    Llvm23,
}

impl FdataSemantics {
    /// The semantics of `merge-fdata` of LLVM release `major`.
    pub fn for_llvm(major: u32) -> FdataSemantics {
        match major {
            ..=19 => FdataSemantics::Llvm19,
            20..=22 => FdataSemantics::Llvm20,
            _ => FdataSemantics::Llvm23,
        }
    }

    /// True if a branch's misprediction field is part of its key (LLVM 19), false if it is
    /// summed.
    pub fn keys_mispreds(self) -> bool {
        self == FdataSemantics::Llvm19
    }

    /// True if the merged `no_lbr` header keeps the inputs' event names (LLVM 23).
    pub fn keeps_event_names(self) -> bool {
        self == FdataSemantics::Llvm23
    }
}

/// The header lines of an fdata profile: how it was collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FdataMode {
    /// `boltedcollection`: collected on a binary BOLT had already optimised.
    pub bolted: bool,
    /// `no_lbr`: samples of single addresses instead of branches (perf without LBR).
    pub no_lbr: bool,
}

impl FdataMode {
    /// Describes the mode for messages (`"LBR"`, `"no_lbr, boltedcollection"`, ...).
    pub fn describe(self) -> String {
        let mut s = String::from(if self.no_lbr { "no_lbr" } else { "LBR" });
        if self.bolted {
            s.push_str(", boltedcollection");
        }
        s
    }
}

/// What one fdata record line describes.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FdataLineKind {
    /// `FROM TO MISPREDS COUNT` (LBR profiles).
    Branch,
    /// `ADDR COUNT` (`no_lbr` profiles).
    Sample,
    /// `PC ADDR COUNT`: a memory access at `PC` to `ADDR`.
    Memory,
}

/// One location of a record line (`T NAME OFFSET`), borrowed from the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FdataLoc<'a> {
    /// The location type: 0, 1 or 2 (branches and samples), 3, 4 or 5 (memory events).
    pub kind: u8,
    /// The symbol name (never empty, no spaces).
    pub name: &'a [u8],
    /// The offset, with what its text needs to come back exactly.
    pub offset: HexText,
}

/// One record line of an fdata file, borrowed from the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdataLine<'a> {
    /// Line number in the file, from 1.
    pub line: u64,
    /// What the line records.
    pub kind: FdataLineKind,
    /// The location fields (`FROM TO`, `ADDR` or `PC ADDR`), exactly as in the file.
    pub locations: &'a [u8],
    /// The locations and, on a branch line, the misprediction field after them, exactly as
    /// in the file (everything before the count).
    pub signature: &'a [u8],
    /// The locations, parsed: a sample line's second is [`FdataLoc::default`] (kind 0,
    /// empty name).
    pub locs: [FdataLoc<'a>; 2],
    /// A branch line's mispredictions, with the length of their text.
    pub mispreds: Option<DecimalText>,
    /// The count (branches taken, samples, accesses).
    pub count: u64,
}

impl<'a> FdataLine<'a> {
    /// The bytes a merge following `semantics` keys this line by: the locations, and under
    /// LLVM 19 a branch's misprediction field too, as text (`merge-fdata-19` keys by
    /// everything before the count).
    pub fn key(&self, semantics: FdataSemantics) -> &'a [u8] {
        if semantics.keys_mispreds() {
            self.signature
        } else {
            self.locations
        }
    }

    /// How many locations the line has: 1 for a sample, 2 otherwise.
    pub fn loc_count(&self) -> usize {
        if self.kind == FdataLineKind::Sample {
            1
        } else {
            2
        }
    }
}

/// A record line for unit tests of the layers that may not read files: locations
/// `(type, name, offset text)` (one for a sample), the misprediction text of a branch and
/// the count; `locations` and `signature` are left empty.
#[cfg(test)]
pub(crate) fn test_line(
    kind: FdataLineKind,
    locs: &[(u8, &'static str, &'static str)],
    mispreds: Option<&str>,
    count: u64,
) -> FdataLine<'static> {
    let mut out = [FdataLoc::default(); 2];
    for (o, &(t, name, offset)) in out.iter_mut().zip(locs) {
        *o = FdataLoc {
            kind: t,
            name: name.as_bytes(),
            offset: HexText::parse(offset.as_bytes()).expect("hex offset"),
        };
    }
    FdataLine {
        line: 1,
        kind,
        locations: b"",
        signature: b"",
        locs: out,
        mispreds: mispreds.map(|m| DecimalText::parse(m.as_bytes()).expect("decimal")),
        count,
    }
}
