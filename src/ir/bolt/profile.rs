//! A merged fdata profile: interned symbol names and one compact entry per key, sorted in
//! the byte order of the keys' text.

use std::cmp::Ordering;

use super::text::{DecimalText, HexText};
use super::{FdataLine, FdataMode};

/// The symbol names of a profile, each stored once; an id is an index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FdataNames {
    bytes: Vec<u8>,
    /// End of name `i` in `bytes` (name `i` starts where name `i − 1` ends).
    ends: Vec<usize>,
}

impl FdataNames {
    /// Name `id`.
    ///
    /// # Panics
    /// If `id` is not an id this table gave.
    pub fn get(&self, id: u32) -> &[u8] {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True if there are no names.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Adds `name` (not checked for a copy already there) and gives its id, or `None` past
    /// 2^32 − 1 names or if memory runs out.
    pub fn push(&mut self, name: &[u8]) -> Option<u32> {
        let id = u32::try_from(self.ends.len()).ok()?;
        self.bytes.try_reserve(name.len()).ok()?;
        self.ends.try_reserve(1).ok()?;
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len());
        Some(id)
    }

    /// Each name's rank in the byte order of the keys (a name followed by the space that
    /// ends it in a line): `ranks[id]`, equal ranks only for equal names.
    pub fn ranks(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.ends.len() as u32).collect();
        ids.sort_unstable_by(|&a, &b| cmp_field(self.get(a), self.get(b)));
        let mut ranks = vec![0; ids.len()];
        for (r, &id) in ids.iter().enumerate() {
            ranks[id as usize] = r as u32;
        }
        ranks
    }
}

/// The byte order of two fields that a space ends in a line: a field that the other starts
/// with sorts by the space against the other's next byte.
fn cmp_field(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => {
            let next = |s: &[u8]| s.get(n).copied().unwrap_or(b' ');
            next(a).cmp(&next(b)).then(a.len().cmp(&b.len()))
        }
        o => o,
    }
}

/// What a line has between its locations and its count.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MisColumn {
    /// Nothing (samples, memory events).
    None,
    /// Mispredictions summed over the merged lines (branches under LLVM 20 and later).
    Summed(u64),
    /// The misprediction field, part of the key (branches under LLVM 19).
    Keyed(DecimalText),
}

/// `FdataEntry::mis` for [`MisColumn::None`].
const MIS_NONE: u8 = 0;
/// `FdataEntry::mis` for [`MisColumn::Summed`]; other values are a keyed text's length.
const MIS_SUMMED: u8 = u8::MAX;

/// One key of a merged profile and its sums: 48 bytes, names as ids of [`FdataNames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdataEntry {
    offsets: [u64; 2],
    /// The summed count.
    pub count: u64,
    /// Summed mispredictions, or the value of a keyed misprediction field.
    mispreds: u64,
    names: [u32; 2],
    upper: [u16; 2],
    /// Per location: its type (bits 5–7) and its offset's number of digits (bits 0–4); 0
    /// for the missing second location of a sample.
    locs: [u8; 2],
    mis: u8,
}

impl FdataEntry {
    /// The entry of `line`, its names `names`, its sums `[count, mispredictions]` (the
    /// latter used only for a branch whose misprediction field is summed); the field is
    /// keyed as text when `keyed_mispreds`, summed otherwise.
    pub fn new(
        line: &FdataLine<'_>,
        names: [u32; 2],
        keyed_mispreds: bool,
        sums: [u64; 2],
    ) -> Self {
        let loc = |i: usize| {
            let l = &line.locs[i];
            if i < line.loc_count() {
                (l.kind << 5) | l.offset.len
            } else {
                0
            }
        };
        let (mis, mispreds) = match line.mispreds {
            None => (MIS_NONE, 0),
            Some(m) if keyed_mispreds => (m.len, m.value),
            Some(_) => (MIS_SUMMED, sums[1]),
        };
        FdataEntry {
            offsets: [line.locs[0].offset.value, line.locs[1].offset.value],
            count: sums[0],
            mispreds,
            names,
            upper: [line.locs[0].offset.upper, line.locs[1].offset.upper],
            locs: [loc(0), loc(1)],
            mis,
        }
    }

    /// Number of locations: 1 (a sample) or 2.
    pub fn loc_count(&self) -> usize {
        if self.locs[1] == 0 { 1 } else { 2 }
    }

    /// Location `i`: its type, name id and offset.
    pub fn loc(&self, i: usize) -> (u8, u32, HexText) {
        let offset = HexText {
            value: self.offsets[i],
            upper: self.upper[i],
            len: self.locs[i] & 0x1f,
        };
        (self.locs[i] >> 5, self.names[i], offset)
    }

    /// The column between the locations and the count.
    pub fn mis_column(&self) -> MisColumn {
        match self.mis {
            MIS_NONE => MisColumn::None,
            MIS_SUMMED => MisColumn::Summed(self.mispreds),
            len => MisColumn::Keyed(DecimalText {
                value: self.mispreds,
                len,
            }),
        }
    }

    /// Adds `other`'s sums (of the same key) to this entry's, saturating; true if a sum
    /// saturated.
    #[inline]
    pub fn add(&mut self, other: &FdataEntry) -> bool {
        let (c, s1) = self.count.overflowing_add(other.count);
        self.count = if s1 { u64::MAX } else { c };
        if self.mis != MIS_SUMMED {
            return s1;
        }
        let (m, s2) = self.mispreds.overflowing_add(other.mispreds);
        self.mispreds = if s2 { u64::MAX } else { m };
        s1 | s2
    }

    /// True if the two entries have the same key.
    #[inline]
    pub fn same_key(&self, o: &FdataEntry) -> bool {
        self.offsets == o.offsets
            && self.names == o.names
            && self.upper == o.upper
            && self.locs == o.locs
            && self.mis == o.mis
            && (self.mis == MIS_NONE || self.mis == MIS_SUMMED || self.mispreds == o.mispreds)
    }

    /// A hash of the key, well mixed in every bit.
    #[inline]
    pub fn key_hash(&self) -> u64 {
        let keyed = if self.mis == MIS_NONE || self.mis == MIS_SUMMED {
            0
        } else {
            self.mispreds
        };
        let meta = u64::from(self.upper[0])
            | u64::from(self.upper[1]) << 16
            | u64::from(self.locs[0]) << 32
            | u64::from(self.locs[1]) << 40
            | u64::from(self.mis) << 48;
        let words = [
            self.offsets[0],
            self.offsets[1],
            u64::from(self.names[0]) | u64::from(self.names[1]) << 32,
            meta,
            keyed,
        ];
        let mut h = 0u64;
        for w in words {
            h = (h.rotate_left(23) ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        h ^= h >> 32;
        h = h.wrapping_mul(0xd6e8_feb8_6659_fd93);
        h ^ (h >> 29)
    }

    /// A number that orders entries as [`FdataEntry::cmp_text`] does where numbers differ
    /// (equal numbers say nothing): type, name rank and, with `offset_bits` (see
    /// [`prefix_has_offsets`]), the first eight digits of the first location's offset.
    #[inline]
    pub fn sort_prefix(&self, ranks: &[u32], offset_bits: bool) -> u64 {
        let (kind, name, offset) = self.loc(0);
        let head = u64::from(kind) << 61;
        if !offset_bits {
            return head | u64::from(ranks[name as usize]).min((1 << 61) - 1);
        }
        let len = u32::from(offset.len.max(1));
        let aligned = offset.value << (4 * (16 - len));
        head | u64::from(ranks[name as usize]) << 32 | aligned >> 32
    }

    /// The byte order of the two entries' key text, names ranked by `ranks`
    /// ([`FdataNames::ranks`]).
    pub fn cmp_text(&self, o: &FdataEntry, ranks: &[u32]) -> Ordering {
        for i in 0..2 {
            let (a, b) = (self.loc(i), o.loc(i));
            let ord =
                a.0.cmp(&b.0)
                    .then_with(|| ranks[a.1 as usize].cmp(&ranks[b.1 as usize]))
                    .then_with(|| a.2.cmp_text(b.2));
            if ord != Ordering::Equal || self.locs[1] == 0 {
                return ord;
            }
        }
        match (self.mis_column(), o.mis_column()) {
            (MisColumn::Keyed(a), MisColumn::Keyed(b)) => a.cmp_text(b),
            _ => Ordering::Equal,
        }
    }
}

/// A merged fdata profile: runs of entries that are sorted one after the other (a merge
/// sorts ranges of first-function rank), read in order by [`FdataProfile::iter`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FdataProfile {
    /// The header lines written.
    pub mode: FdataMode,
    /// The event names the `no_lbr` header line lists, each once, sorted by bytes (empty:
    /// a bare `no_lbr`, as merge-fdata writes before LLVM 23).
    pub events: Vec<Vec<u8>>,
    /// The names the entries refer to.
    names: FdataNames,
    /// [`FdataNames::ranks`] of `names`.
    ranks: Vec<u32>,
    /// Runs of entries whose concatenation is in the byte order of the keys' text; no key
    /// is in two runs.
    runs: Vec<Vec<FdataEntry>>,
}

impl FdataProfile {
    /// The profile of `runs` whose concatenation is sorted by [`FdataEntry::cmp_text`]
    /// under `ranks` (the ranks of `names`), no key in two runs: read one after the other.
    pub fn from_ordered_runs(
        mode: FdataMode,
        names: FdataNames,
        ranks: Vec<u32>,
        runs: Vec<Vec<FdataEntry>>,
    ) -> FdataProfile {
        debug_assert!(
            runs.iter()
                .flatten()
                .is_sorted_by(|a, b| a.cmp_text(b, &ranks).is_lt())
        );
        FdataProfile {
            mode,
            events: Vec::new(),
            names,
            ranks,
            runs,
        }
    }

    /// The profile of `entries` (distinct keys, any order): sorted here.
    pub fn from_entries(mode: FdataMode, names: FdataNames, mut entries: Vec<FdataEntry>) -> Self {
        let ranks = names.ranks();
        entries.sort_unstable_by(|a, b| a.cmp_text(b, &ranks));
        FdataProfile::from_ordered_runs(mode, names, ranks, vec![entries])
    }

    /// The names the entries refer to.
    pub fn names(&self) -> &FdataNames {
        &self.names
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.runs.iter().all(Vec::is_empty)
    }

    /// The entries, in the byte order of the keys' text (so that branches and samples,
    /// whose lines start with 0, 1 or 2, come before memory events, as LLVM's reader
    /// requires, and the output never depends on input order or threads).
    pub fn iter(&self) -> SortedEntries<'_> {
        SortedEntries::new(self)
    }

    /// The sum of all counts (saturating), for reports.
    pub fn total_count(&self) -> u64 {
        self.runs
            .iter()
            .flatten()
            .fold(0u64, |a, e| a.saturating_add(e.count))
    }
}

/// The entries of a profile in order: its runs read one after the other.
#[derive(Debug, Clone)]
pub struct SortedEntries<'p> {
    entries: std::iter::Flatten<std::slice::Iter<'p, Vec<FdataEntry>>>,
}

impl<'p> SortedEntries<'p> {
    fn new(profile: &'p FdataProfile) -> Self {
        SortedEntries {
            entries: profile.runs.iter().flatten(),
        }
    }
}

impl<'p> Iterator for SortedEntries<'p> {
    type Item = &'p FdataEntry;

    fn next(&mut self) -> Option<&'p FdataEntry> {
        self.entries.next()
    }
}

/// Whether sort prefixes may hold offset bits for these entries: only where digit values
/// order as the text (no upper-case letter, which sorts between digits and lower case)
/// and ranks fit.
pub fn prefix_has_offsets<'e>(
    entries: impl Iterator<Item = &'e FdataEntry>,
    ranks: &[u32],
) -> bool {
    ranks.len() < 1 << 29 && entries.into_iter().all(|e| e.upper[0] == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_rank_as_the_fields_of_a_line() {
        let mut n = FdataNames::default();
        for s in [&b"f"[..], b"f\t", b"f2", b"e", b"f!"] {
            n.push(s).unwrap();
        }
        // "f\t ..." < "f ..." < "f! ..." < "f2 ...": the tab sorts before the space.
        let r = n.ranks();
        assert_eq!(r, [2, 1, 4, 0, 3]);
        assert_eq!(n.get(2), b"f2");
    }
}
