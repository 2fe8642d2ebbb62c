//! LLVM's `ValueProfData` block, shared by raw profiles (writer's byte order) and indexed
//! profiles (little-endian):
//!
//! ```text
//! u32 TotalSize        bytes of the block including these 8; a multiple of 8
//! u32 NumValueKinds
//! NumValueKinds × {
//!     u32 Kind, u32 NumValueSites,
//!     u8 SiteCount[NumValueSites], zero padding to round 8 + NumValueSites up to 8,
//!     per site: SiteCount × { u64 Value, u64 Count }
//! }
//! ```

use crate::bytes::limits::MAX_VALUE_KINDS;
use crate::bytes::{ByteWriter, Cursor, Endian, pad8};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::{ValueCount, ValueKind, ValueProfile, ValueSite};

/// Parses one block at the cursor, returning the sites exactly as stored (values not
/// translated) and leaving the cursor after the block (`TotalSize` bytes).
pub fn parse(c: &mut Cursor<'_>) -> Result<ValueProfile> {
    let mut out = ValueProfile::default();
    let endian = c.endian();
    walk(c, |kind, site_counts, pairs| {
        let mut sites = Vec::with_capacity(site_counts.len());
        let mut p = pairs.chunks_exact(16);
        for &n in site_counts {
            let mut values = Vec::with_capacity(usize::from(n));
            for pair in p.by_ref().take(usize::from(n)) {
                values.push(read_pair(pair, endian));
            }
            sites.push(ValueSite { values });
        }
        *out.kind_mut(kind) = sites;
    })?;
    Ok(out)
}

/// Value sites stored flat: one allocation for all the value blocks of a file instead of one
/// per site. Filled by [`parse_flat`]; a block is identified by the ordinal [`parse_flat`]
/// returned for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlatValues {
    /// Per block, per kind: (first index in `sites`, number of sites).
    blocks: Vec<[(u32, u32); ValueKind::COUNT]>,
    /// Per site: (first index in `values`, number of values).
    sites: Vec<(u32, u32)>,
    /// The (value, count) pairs of all sites.
    values: Vec<ValueCount>,
}

impl FlatValues {
    /// An empty store with room for `lens` (blocks, sites, values), as
    /// [`FlatValues::lens`] gives them.
    pub fn with_capacity(lens: [usize; 3]) -> Self {
        FlatValues {
            blocks: Vec::with_capacity(lens[0]),
            sites: Vec::with_capacity(lens[1]),
            values: Vec::with_capacity(lens[2]),
        }
    }

    /// The numbers of blocks, sites and values held.
    pub fn lens(&self) -> [usize; 3] {
        [self.blocks.len(), self.sites.len(), self.values.len()]
    }

    /// Empties the store, keeping its allocations.
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.sites.clear();
        self.values.clear();
    }

    /// Number of sites of `kind` in block `block`.
    pub fn num_sites(&self, block: u32, kind: ValueKind) -> usize {
        self.blocks
            .get(block as usize)
            .map_or(0, |b| b[kind.index()].1 as usize)
    }

    /// The values of site `site` of `kind` in block `block` (empty if there is no such site).
    pub fn site(&self, block: u32, kind: ValueKind, site: usize) -> &[ValueCount] {
        let Some(b) = self.blocks.get(block as usize) else {
            return &[];
        };
        let (first, n) = b[kind.index()];
        if site >= n as usize {
            return &[];
        }
        match self.sites.get(first as usize + site) {
            Some(&(start, len)) => self
                .values
                .get(start as usize..(start + len) as usize)
                .unwrap_or(&[]),
            None => &[],
        }
    }

    /// The sites of `kind` in block `block`, each as (first index of its values, number of
    /// values), for [`FlatValues::values`]; empty if there are none.
    pub fn site_ranges(&self, block: u32, kind: ValueKind) -> &[(u32, u32)] {
        let Some(b) = self.blocks.get(block as usize) else {
            return &[];
        };
        let (first, n) = b[kind.index()];
        self.sites
            .get(first as usize..first as usize + n as usize)
            .unwrap_or(&[])
    }

    /// The values of a site given by one of [`FlatValues::site_ranges`]' ranges.
    pub fn values(&self, (start, len): (u32, u32)) -> &[ValueCount] {
        self.values
            .get(start as usize..start as usize + len as usize)
            .unwrap_or(&[])
    }

    /// Mutable values of every site of `kind` in block `block`, one slice per site, for
    /// translating and sorting them in place.
    pub fn for_each_site_mut(
        &mut self,
        block: u32,
        kind: ValueKind,
        mut f: impl FnMut(&mut [ValueCount]),
    ) {
        let Some(b) = self.blocks.get(block as usize) else {
            return;
        };
        let (first, n) = b[kind.index()];
        for &(start, len) in self
            .sites
            .get(first as usize..(first + n) as usize)
            .unwrap_or(&[])
        {
            if let Some(v) = self.values.get_mut(start as usize..(start + len) as usize) {
                f(v);
            }
        }
    }

    /// Appends one value to the site being built (values read elsewhere, as from a text
    /// profile): [`FlatValues::push_site`] closes the site, [`FlatValues::push_block`] the
    /// block. Returns false (and adds nothing) once the store holds 2^32 values.
    pub fn push_value(&mut self, v: ValueCount) -> bool {
        if u32::try_from(self.values.len()).is_err() {
            return false;
        }
        self.values.push(v);
        true
    }

    /// Closes a site: the values pushed since the last site was closed (or the store was
    /// cleared). Returns its index among all sites, or `None` past 2^32 sites.
    pub fn push_site(&mut self) -> Option<u32> {
        let start = self.sites.last().map_or(0, |&(s, n)| s + n);
        let end = u32::try_from(self.values.len()).ok()?;
        let index = u32::try_from(self.sites.len()).ok()?;
        self.sites.push((start, end.checked_sub(start)?));
        Some(index)
    }

    /// Adds a block whose sites of each kind (in [`ValueKind::index`] order) are the closed
    /// sites `first..first + n`; returns its ordinal, or `None` if a range is not of closed
    /// sites.
    pub fn push_block(&mut self, kinds: [(u32, u32); ValueKind::COUNT]) -> Option<u32> {
        for &(first, n) in &kinds {
            if first as usize + n as usize > self.sites.len() {
                return None;
            }
        }
        let ordinal = u32::try_from(self.blocks.len()).ok()?;
        self.blocks.push(kinds);
        Some(ordinal)
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// True if no block was added.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// Parses one block at the cursor into `out` (accepting exactly what [`parse`] accepts) and
/// returns its ordinal in `out`.
pub fn parse_flat(c: &mut Cursor<'_>, out: &mut FlatValues) -> Result<u32> {
    // Well-formed blocks (every block of a file that is read without error) take the quick
    // way; anything it does not accept is read again by the checked walk, which says what
    // is wrong where.
    let (sites, values) = (out.sites.len(), out.values.len());
    if let Some((ordinal, len)) = parse_flat_quick(c.rest(), c.endian(), out) {
        c.skip(len as u64, "value profile block")?;
        return Ok(ordinal);
    }
    out.sites.truncate(sites);
    out.values.truncate(values);
    let mut kinds = [(0u32, 0u32); ValueKind::COUNT];
    let FlatValues { sites, values, .. } = &mut *out;
    let endian = c.endian();
    walk(c, |kind, site_counts, pairs| {
        kinds[kind.index()] = (sites.len() as u32, site_counts.len() as u32);
        // `pairs` holds exactly the sites' values, one after another: each site starts
        // where the one before ended. Extending from exact-size iterators writes without a
        // capacity check per element (most blocks are a few sites and values).
        let mut at = values.len() as u32;
        sites.extend(site_counts.iter().map(|&n| {
            let site = (at, u32::from(n));
            at += u32::from(n);
            site
        }));
        values.extend(pairs.chunks_exact(16).map(|p| read_pair(p, endian)));
    })?;
    out.blocks.push(kinds);
    Ok(out.blocks.len() as u32 - 1)
}

/// [`parse_flat`] of a well-formed block at the start of `b`, without building errors:
/// (ordinal, block length), or `None` where the checked walk would fail (it may then have
/// added sites and values of the block's first kinds, but no block).
fn parse_flat_quick(b: &[u8], endian: Endian, out: &mut FlatValues) -> Option<(u32, usize)> {
    let word = |at: usize| -> Option<u32> {
        Some(endian.u32(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
    };
    let total = usize::try_from(word(0)?).ok()?;
    let kinds = word(4)?;
    if total % 8 != 0 || total < 8 || total > b.len() || kinds > MAX_VALUE_KINDS {
        return None;
    }
    let block = b.get(..total)?;
    let mut pos = 8usize;
    let mut seen = [false; ValueKind::COUNT];
    let mut ranges = [(0u32, 0u32); ValueKind::COUNT];
    for _ in 0..kinds {
        if pos + 8 > total {
            return None;
        }
        let kind = ValueKind::from_u32(word(pos)?)?;
        if std::mem::replace(&mut seen[kind.index()], true) {
            return None;
        }
        let nsites = usize::try_from(word(pos + 4)?).ok()?;
        pos += 8;
        let counts_len = nsites + pad8(8 + nsites as u64) as usize;
        if pos.checked_add(counts_len)? > total {
            return None;
        }
        let site_counts = block.get(pos..pos + nsites)?;
        pos += counts_len;
        let npairs: usize = site_counts.iter().map(|&n| usize::from(n)).sum();
        let pairs = block.get(pos..pos.checked_add(npairs.checked_mul(16)?)?)?;
        pos += pairs.len();
        ranges[kind.index()] = (out.sites.len() as u32, nsites as u32);
        let mut at = out.values.len() as u32;
        out.sites.extend(site_counts.iter().map(|&n| {
            let site = (at, u32::from(n));
            at += u32::from(n);
            site
        }));
        out.values
            .extend(pairs.chunks_exact(16).map(|p| read_pair(p, endian)));
    }
    out.blocks.push(ranges);
    Some((out.blocks.len() as u32 - 1, total))
}

fn read_pair(pair: &[u8], endian: Endian) -> ValueCount {
    let mut v = [0u8; 8];
    let mut n = [0u8; 8];
    v.copy_from_slice(pair.get(..8).unwrap_or(&[0; 8]));
    n.copy_from_slice(pair.get(8..16).unwrap_or(&[0; 8]));
    ValueCount {
        value: endian.u64(v),
        count: endian.u64(n),
    }
}

/// Walks and checks one block, calling `f(kind, site counts, value/count pair bytes)` for each
/// value-profile record; `pairs` holds exactly 16 bytes per value of the sites.
fn walk(c: &mut Cursor<'_>, mut f: impl FnMut(ValueKind, &[u8], &[u8])) -> Result<()> {
    let start = c.offset();
    let avail = c.remaining() as u64;
    let total = u64::from(c.u32("value profile block: total size")?);
    let kinds = c.u32("value profile block: number of value kinds")?;
    if total % 8 != 0 || total < 8 {
        return Err(Error::malformed(
            start,
            "value profile block",
            format!("total size {total} is not a non-zero multiple of 8"),
        ));
    }
    if total > avail {
        return Err(Error::at(
            start,
            ErrorKind::Truncated {
                what: "value profile block",
                needed: total,
                available: avail,
            },
        ));
    }
    if kinds > MAX_VALUE_KINDS {
        return Err(Error::at(
            start + 4,
            ErrorKind::LimitExceeded {
                what: "number of value kinds in a value profile block",
                value: u64::from(kinds),
                limit: u64::from(MAX_VALUE_KINDS),
            },
        ));
    }
    let end_pos = c.position() as u64 - 8 + total;
    let mut seen = [false; ValueKind::COUNT];
    for _ in 0..kinds {
        let rec_at = c.offset();
        if (c.position() as u64).saturating_add(8) > end_pos {
            return Err(Error::malformed(
                rec_at,
                "value profile record",
                format!("runs past the block's total size {total}"),
            ));
        }
        let kind_n = c.u32("value profile record: kind")?;
        let kind = ValueKind::from_u32(kind_n).ok_or_else(|| {
            Error::malformed(
                rec_at,
                "value profile record",
                format!("value kind {kind_n} is not 0, 1 or 2"),
            )
        })?;
        if std::mem::replace(&mut seen[kind.index()], true) {
            return Err(Error::malformed(
                rec_at,
                "value profile record",
                format!("value kind {kind_n} appears twice in one block"),
            ));
        }
        let nsites = u64::from(c.u32("value profile record: number of sites")?);
        let counts_len = nsites + pad8(8 + nsites);
        if (c.position() as u64).saturating_add(counts_len) > end_pos {
            return Err(Error::malformed(
                rec_at,
                "value profile record",
                format!("{nsites} site counts run past the block's total size {total}"),
            ));
        }
        let site_counts = c.bytes(nsites, "value profile record: site counts")?;
        c.skip(pad8(8 + nsites), "value profile record: padding")?;
        let npairs: u64 = site_counts.iter().map(|&n| u64::from(n)).sum();
        if (c.position() as u64).saturating_add(npairs * 16) > end_pos {
            return Err(Error::malformed(
                rec_at,
                "value profile record",
                format!("{npairs} values run past the block's total size {total}"),
            ));
        }
        let pairs = c.bytes(npairs * 16, "value profile data: values")?;
        f(kind, site_counts, pairs);
    }
    c.seek(end_pos, "value profile block")?;
    Ok(())
}

/// Size in bytes of the block [`write()`] produces for `v` (8 for an empty profile).
pub fn size(v: Option<&ValueProfile>) -> u64 {
    size_upto(v, ValueKind::VTable)
}

/// Size in bytes of the block [`write_upto`] produces for `v` and `last`.
pub fn size_upto(v: Option<&ValueProfile>, last: ValueKind) -> u64 {
    let mut total = 8u64;
    if let Some(v) = v {
        for (_, sites) in kinds_upto(v, last) {
            let n = sites.len() as u64;
            let pairs: u64 = sites.iter().map(|s| s.values.len() as u64).sum();
            total += 8 + n + pad8(8 + n) + 16 * pairs;
        }
    }
    total
}

/// The kinds up to `last` that have sites, in ascending order, with their sites.
fn kinds_upto(
    v: &ValueProfile,
    last: ValueKind,
) -> impl Iterator<Item = (ValueKind, &[ValueSite])> {
    ValueKind::ALL
        .into_iter()
        .filter(move |k| k.index() <= last.index())
        .map(|k| (k, v.kind(k)))
        .filter(|(_, s)| !s.is_empty())
}

/// Appends the little-endian block for `v` (kinds in ascending order, only kinds with sites).
///
/// Sites must hold at most 255 values (the count is a byte); callers cap them first.
pub fn write(w: &mut ByteWriter, v: Option<&ValueProfile>) {
    write_upto(w, v, ValueKind::VTable);
}

/// As [`write()`], leaving out the kinds after `last` (for index versions that do not know
/// them: their readers reject a block naming a kind above their last one).
pub fn write_upto(w: &mut ByteWriter, v: Option<&ValueProfile>, last: ValueKind) {
    let total = size_upto(v, last);
    w.u32(total as u32);
    let Some(v) = v else {
        w.u32(0);
        return;
    };
    w.u32(kinds_upto(v, last).count() as u32);
    for (kind, sites) in kinds_upto(v, last) {
        w.u32(kind as u32);
        w.u32(sites.len() as u32);
        for s in sites {
            w.u8(s.values.len().min(255) as u8);
        }
        w.zeros(pad8(8 + sites.len() as u64) as usize);
        for s in sites {
            for vc in s.values.iter().take(255) {
                w.u64(vc.value);
                w.u64(vc.count);
            }
        }
    }
}

/// Convenience for tests and tools: parse a block from a little-endian slice.
pub fn parse_le(data: &[u8], base: u64) -> Result<ValueProfile> {
    parse(&mut Cursor::new(data, base, Endian::Little))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ValueProfile {
        let mut v = ValueProfile::default();
        v.kind_mut(ValueKind::IndirectCall).push(ValueSite {
            values: vec![
                ValueCount {
                    value: 0x9737d0b9152c4cf2,
                    count: 53,
                },
                ValueCount {
                    value: 0x908f226ca9f2a3ec,
                    count: 34,
                },
            ],
        });
        v.kind_mut(ValueKind::MemOpSize).push(ValueSite {
            values: vec![ValueCount {
                value: 17,
                count: 50,
            }],
        });
        v.kind_mut(ValueKind::MemOpSize).push(ValueSite::default());
        v
    }

    #[test]
    fn round_trip_and_size() {
        let v = sample();
        let mut w = ByteWriter::new();
        write(&mut w, Some(&v));
        assert_eq!(w.len(), size(Some(&v)));
        assert_eq!(w.len() % 8, 0);
        let back = parse_le(w.as_slice(), 0).unwrap();
        assert_eq!(back, v);
        let mut w = ByteWriter::new();
        write(&mut w, None);
        assert_eq!(w.as_slice(), &[8, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn rejects_inconsistent_blocks() {
        let v = sample();
        let mut w = ByteWriter::new();
        write(&mut w, Some(&v));
        let good = w.into_inner();
        // Total size not a multiple of 8.
        let mut b = good.clone();
        b[0] = 9;
        assert!(parse_le(&b, 0).is_err());
        // Total size larger than the data.
        let mut b = good.clone();
        b[0] = 200;
        assert!(parse_le(&b, 0).is_err());
        // Unknown kind.
        let mut b = good.clone();
        b[8] = 7;
        let e = parse_le(&b, 0x100).unwrap_err();
        assert_eq!(e.offset(), Some(0x108));
        // Too many kinds.
        let mut b = good.clone();
        b[4] = 4;
        assert!(parse_le(&b, 0).is_err());
        // A site count that runs past the total size.
        let mut b = good.clone();
        b[16] = 200;
        assert!(parse_le(&b, 0).is_err());
        // Every truncation fails cleanly.
        for n in 0..good.len() {
            assert!(parse_le(&good[..n], 0).is_err());
        }
    }
}
