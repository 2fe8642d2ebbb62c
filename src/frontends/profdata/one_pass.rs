//! One pass over an indexed profile whose names a merge has already checked.
//!
//! [`super::scan`] reads a file in stages: the walk of the hash table into a list of items,
//! the bucket check over that list, the names (hashed, or compared with a known table), then
//! the records. For the common case of a merge (one more profile of a program seen before:
//! the same names in the same table order, a consistent bucket array, no warnings) this
//! module does all of it in one walk over the file, with no list of items: each item is
//! checked against the known table as it is met, its bucket against the bucket array, and
//! its records are described as they are reached, by the reader's one record grammar
//! ([`super::parse_records`] and [`super::RecordView::describe`]): this module is a cache of
//! checked names in front of that reader, not a second reader.
//!
//! It only ever accepts a file that the staged reading accepts without a warning, and then
//! gives the same description. At anything else (a name that differs, a table the staged
//! reading would warn about, any malformed field, an MC/DC bitmap in 8-byte words) it gives
//! up and returns `None`, and the staged reading runs from the start: its errors and
//! warnings are the ones reported, and a file is never partly described.

use std::sync::Arc;

use super::names::KnownNames;
use super::{
    Described, IndexedNameCache, IndexedScan, RecordShape, parse_header, parse_records,
    parse_summary, read_sections,
};
use crate::bytes::{Cursor, Endian};
use crate::codec::chained_hash::reader::Table;
use crate::ir::{CounterLayout, ProfileKind, TableLayout};

/// Describes `data` for a merge in one pass if its hash table holds exactly the names of the
/// table `cache` saw last (see the module documentation); `None` to read it the staged way.
pub(super) fn scan_known<'a>(data: &'a [u8], cache: &IndexedNameCache) -> Option<IndexedScan<'a>> {
    let known = cache.recent()?;
    let h = parse_header(data).ok()?;
    let version = (h.version_word & 0xffff_ffff) as u32;
    // Versions 1 and 2 (no value blocks, one record per key in version 1) are left to the
    // staged reading.
    if version < 3 {
        return None;
    }
    let (mut kind, unknown) = ProfileKind::from_version_word(h.version_word);
    if unknown != 0 || kind.contains(ProfileKind::MEMPROF) {
        return None;
    }
    let mut c = Cursor::new(data.get(h.size as usize..)?, h.size, Endian::Little);
    let mut stored = None;
    if version >= 4 {
        let s = parse_summary(&mut c).ok()?;
        let cs = if kind.contains(ProfileKind::CONTEXT_SENSITIVE) {
            Some(parse_summary(&mut c).ok()?)
        } else {
            None
        };
        stored = Some((s, cs));
    }
    let payload = usize::try_from(c.offset()).ok()?;
    let table = Table::parse(data, h.hash_offset).ok()?;
    if table.num_entries != known.hashes.len() as u64 {
        return None;
    }
    let [nrec, blocks, sites, nvalues] = cache.sizes();
    let mut out = Described::with_capacity(nrec.max(known.hashes.len()), [blocks, sites, nvalues]);
    let walk = Walk {
        data,
        table: &table,
        known: &known,
    };
    match RecordShape::of(version) {
        RecordShape::V3 => walk.items::<3>(payload, &mut out)?,
        RecordShape::V11 => walk.items::<11>(payload, &mut out)?,
        RecordShape::V14 => walk.items::<14>(payload, &mut out)?,
        // Versions 1 and 2 were left to the staged reading above.
        RecordShape::V1 | RecordShape::V2 => return None,
    }
    let sections = read_sections(data, &h, version, &mut kind, cache).ok()?;
    let (records, values) = out.into_parts();
    let [blocks, sites, nvalues] = values.lens();
    cache.set_sizes([records.len(), blocks, sites, nvalues]);
    Some(IndexedScan {
        layout: CounterLayout {
            kind,
            endian: Endian::Little,
            records,
        },
        profile: sections.into_profile(
            kind,
            known.table.clone(),
            stored,
            TableLayout {
                num_buckets: table.num_buckets,
                keys: Arc::clone(&known.hashes),
            },
            version,
        ),
        values,
        version,
        warnings: Vec::new(),
    })
}

/// A little-endian u64 at `at`, if it lies before `end`.
#[inline(always)]
fn word(data: &[u8], at: usize, end: usize) -> Option<u64> {
    if at.checked_add(8)? > end {
        return None;
    }
    Endian::Little.u64_at(data, at)
}

/// The little-endian u64 at `at` of a header whose length the caller checked.
#[inline(always)]
fn le_word<const N: usize>(head: &[u8; N], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&head[at..at + 8]);
    u64::from_le_bytes(w)
}

/// What the one pass walks: the file, its table, the known names it must hold (the index
/// version's record form is the walk's type parameter).
#[derive(Clone, Copy)]
struct Walk<'w> {
    data: &'w [u8],
    table: &'w Table,
    known: &'w KnownNames,
}

impl Walk<'_> {
    /// Walks the `table.num_entries` items from `payload`: each bucket is a u16 item count and
    /// its items. Checks what the staged reading checks (every item's stored hash and name are
    /// the known table's, in order; every bucket is where the bucket array entry of its items'
    /// hash points, and the array has no other entry) and describes each item's records into
    /// `out` through the reader's own record walk ([`parse_records`]). `None` at the first
    /// difference or error.
    /// `V` is the first version of the file's [`RecordShape`] (3, 11 or 14).
    fn items<const V: u32>(&self, payload: usize, out: &mut Described) -> Option<()> {
        let Walk { data, table, known } = *self;
        let mask = table.num_buckets - 1;
        let n = known.hashes.len();
        let end = data.len();
        let mut pos = payload;
        let mut i = 0usize;
        let mut buckets = 0u64;
        while i < n {
            let start = pos;
            let count = usize::from(Endian::Little.u16_at(data, pos)?);
            pos += 2;
            if count == 0 || count > n - i {
                return None;
            }
            buckets += 1;
            let bucket = word(data, pos, end)? & mask;
            if table.bucket(data, bucket) != Some(start as u64) {
                return None;
            }
            for _ in 0..count {
                // The item's header: stored hash, key length, data length.
                let head = data.get(pos..)?.first_chunk::<24>()?;
                let hash = le_word(head, 0);
                let klen = usize::try_from(le_word(head, 8)).ok()?;
                let dlen = usize::try_from(le_word(head, 16)).ok()?;
                let key_at = pos + 24;
                let data_at = key_at.checked_add(klen)?;
                let data_end = data_at.checked_add(dlen)?;
                if data_end > end
                    || dlen % 8 != 0
                    || hash & mask != bucket
                    || known.hashes.get(i) != Some(&hash)
                    || known.name(i) != data.get(key_at..data_at)
                {
                    return None;
                }
                let item = (data_at as u64, dlen as u64);
                let described =
                    parse_records::<V, _>(data, item, hash, &mut |file, r| r.describe(file, out));
                if !matches!(described, Ok(true)) {
                    return None;
                }
                pos = data_end;
                i += 1;
            }
        }
        // `Table::parse` checked that the bucket array lies in the file; counted a word at a
        // time over the array's bytes, which the compiler turns into vector compares.
        let at = usize::try_from(table.buckets_at).ok()?;
        let array = data
            .get(at..at.checked_add(usize::try_from(table.num_buckets).ok()?.checked_mul(8)?)?)?;
        let used = array
            .as_chunks::<8>()
            .0
            .iter()
            .filter(|w| u64::from_ne_bytes(**w) != 0)
            .count() as u64;
        (used == buckets).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// On every real indexed file of the test data: once its names are known, the one pass
    /// describes it (unless it is of a form left to the staged reading) exactly as the staged
    /// reading does.
    #[test]
    fn one_pass_describes_real_files_as_the_staged_reading() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/profdata");
        let mut taken = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "profdata") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let cache = IndexedNameCache::new();
            // A cold cache: the staged reading, which keeps the names.
            let Ok(Some(staged)) = super::super::scan(&data, &cache) else {
                continue;
            };
            let Some(one) = scan_known(&data, &cache) else {
                continue;
            };
            let what = path.display().to_string();
            assert!(staged.warnings.is_empty(), "{what}");
            assert_eq!(one.layout, staged.layout, "{what}");
            assert_eq!(one.values, staged.values, "{what}");
            assert_eq!(one.version, staged.version, "{what}");
            assert_eq!(one.profile.kind, staged.profile.kind, "{what}");
            assert_eq!(one.profile.layout, staged.profile.layout, "{what}");
            assert_eq!(one.profile.binary_ids, staged.profile.binary_ids, "{what}");
            assert_eq!(one.profile.temporal, staged.profile.temporal, "{what}");
            assert_eq!(
                one.profile.stored_summaries, staged.profile.stored_summaries,
                "{what}"
            );
            assert!(
                Arc::ptr_eq(&one.profile.names, &staged.profile.names),
                "{what}"
            );
            taken += 1;
        }
        assert!(taken >= 10, "the one pass took only {taken} files");
    }
}
