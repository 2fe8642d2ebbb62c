//! Reading an on-disk chained hash table whose items are `u64 hash, u64 key length, u64 data
//! length, key, data` (the instrumentation-profile layout): walking every item from the start
//! of the payload, as `llvm-profdata` does, and looking one key up through the buckets, as a
//! compiler does.

use crate::bytes::{Cursor, Endian};
use crate::error::{Error, Result};

/// One item of the table, as byte ranges of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    /// Absolute offset of the item (its hash).
    pub offset: u64,
    /// The stored hash.
    pub hash: u64,
    /// Absolute offset and length of the key.
    pub key: (u64, u64),
    /// Absolute offset and length of the data.
    pub data: (u64, u64),
}

/// The bucket array at `HashOffset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Number of buckets (LLVM always writes a power of two).
    pub num_buckets: u64,
    /// Number of items.
    pub num_entries: u64,
    /// Absolute offset of the bucket offsets array.
    pub buckets_at: u64,
}

impl Table {
    /// Reads the table header at `offset` and checks the bucket array fits in `file`.
    pub fn parse(file: &[u8], offset: u64) -> Result<Table> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let rest = file.get(start..).ok_or_else(|| {
            Error::malformed(
                32,
                "hash table offset",
                format!(
                    "{offset:#x} is past the end of the file ({} bytes)",
                    file.len()
                ),
            )
        })?;
        let mut c = Cursor::new(rest, offset, Endian::Little);
        let num_buckets = c.u64("hash table: number of buckets")?;
        let num_entries = c.u64("hash table: number of entries")?;
        if num_buckets == 0 || !num_buckets.is_power_of_two() {
            return Err(Error::malformed(
                offset,
                "hash table",
                format!("number of buckets {num_buckets} is not a power of two"),
            ));
        }
        let need = num_buckets.saturating_mul(8);
        if need > c.remaining() as u64 {
            return Err(c.truncated("hash table: bucket offsets", need));
        }
        Ok(Table {
            num_buckets,
            num_entries,
            buckets_at: c.offset(),
        })
    }

    /// The absolute offset stored for bucket `b` (0 = empty).
    pub fn bucket(&self, file: &[u8], b: u64) -> Option<u64> {
        let at = usize::try_from(self.buckets_at + 8 * b).ok()?;
        Endian::Little.u64_at(file, at)
    }
}

/// Reads the item at the cursor.
fn read_item(c: &mut Cursor<'_>) -> Result<Item> {
    let offset = c.offset();
    let hash = c.u64("hash table item: hash")?;
    let klen = c.u64("hash table item: key length")?;
    let dlen = c.u64("hash table item: data length")?;
    let key_at = c.offset();
    c.skip(klen, "hash table item: key")?;
    let data_at = c.offset();
    c.skip(dlen, "hash table item: data")?;
    Ok(Item {
        offset,
        hash,
        key: (key_at, klen),
        data: (data_at, dlen),
    })
}

/// A bucket found by [`walk`]: the absolute offset of its item count, and the index of its
/// first item among the walk's items.
pub type BucketStart = (u64, usize);

/// Walks all `num_entries` items starting at `payload` (the first byte after the summary):
/// each bucket is a u16 item count followed by its items. Returns the items and every bucket
/// start seen. Data lengths must be multiples of 8 (instrumentation
/// profile records are made of u64 words).
pub fn walk(file: &[u8], payload: u64, num_entries: u64) -> Result<(Vec<Item>, Vec<BucketStart>)> {
    let start = usize::try_from(payload).unwrap_or(usize::MAX);
    let rest = file.get(start..).ok_or_else(|| {
        Error::malformed(
            payload,
            "hash table payload",
            "starts past the end of the file",
        )
    })?;
    let mut c = Cursor::new(rest, payload, Endian::Little);
    // Every item takes at least 24 bytes plus its bucket's count: bound the allocation.
    let cap = num_entries.min(c.remaining() as u64 / 24) as usize;
    let mut items = crate::sys::alloc::with_capacity(cap, "the hash table's items")?;
    let mut buckets = Vec::new();
    let mut left_in_bucket = 0u16;
    for _ in 0..num_entries {
        if left_in_bucket == 0 {
            buckets.push((c.offset(), items.len()));
            left_in_bucket = c.u16("hash table bucket: item count")?;
            if left_in_bucket == 0 {
                return Err(Error::malformed(
                    c.offset() - 2,
                    "hash table bucket",
                    "item count is 0",
                ));
            }
        }
        let item = read_item(&mut c)?;
        if item.data.1 % 8 != 0 {
            return Err(Error::malformed(
                item.offset + 16,
                "hash table item: data length",
                format!("{} is not a multiple of 8", item.data.1),
            ));
        }
        items.push(item);
        left_in_bucket -= 1;
    }
    if left_in_bucket != 0 {
        return Err(Error::malformed(
            c.offset(),
            "hash table",
            format!(
                "the last bucket announces {left_in_bucket} more items than the table's entry count"
            ),
        ));
    }
    Ok((items, buckets))
}

/// Looks `key` (whose hash is `hash`) up through the buckets, as a compiler does.
pub fn lookup(file: &[u8], table: &Table, hash: u64, key: &[u8]) -> Result<Option<Item>> {
    let b = hash & (table.num_buckets - 1);
    let Some(off) = table.bucket(file, b) else {
        return Ok(None);
    };
    if off == 0 {
        return Ok(None);
    }
    let start = usize::try_from(off).unwrap_or(usize::MAX);
    let rest = file.get(start..).ok_or_else(|| {
        Error::malformed(
            table.buckets_at + 8 * b,
            "hash table bucket offset",
            format!("{off:#x} is past the end of the file"),
        )
    })?;
    let mut c = Cursor::new(rest, off, Endian::Little);
    let n = c.u16("hash table bucket: item count")?;
    for _ in 0..n {
        let item = read_item(&mut c)?;
        if item.hash == hash {
            let k = file
                .get(item.key.0 as usize..(item.key.0 + item.key.1) as usize)
                .unwrap_or(&[]);
            if k == key {
                return Ok(Some(item));
            }
        }
    }
    Ok(None)
}

/// Checks that the bucket array points exactly at the bucket starts found by [`walk`] and
/// that every item sits in the bucket its hash selects. Returns a description of the first
/// inconsistency: such a file is listed by `llvm-profdata show` but compilers, which look
/// names up through the buckets, would not find some functions.
///
/// `items` and `bucket_starts` are [`walk`]'s. A consistent table is recognised in one pass
/// over the items and the bucket array (every walked bucket is where the bucket array entry
/// of its items' hash points, and the array has no other entry); only an inconsistent one is
/// searched for its first problem.
pub fn check_buckets(
    file: &[u8],
    table: &Table,
    items: &[Item],
    bucket_starts: &[BucketStart],
) -> Option<String> {
    let mask = table.num_buckets - 1;
    let consistent = bucket_starts
        .iter()
        .enumerate()
        .all(|(k, &(start, first))| {
            let end = bucket_starts.get(k + 1).map_or(items.len(), |b| b.1);
            let Some(bucket) = items.get(first).map(|it| it.hash & mask) else {
                return false;
            };
            items
                .get(first..end)
                .is_some_and(|its| its.iter().all(|it| it.hash & mask == bucket))
                && table.bucket(file, bucket) == Some(start)
        })
        && (0..table.num_buckets)
            .filter(|&b| table.bucket(file, b).unwrap_or(0) != 0)
            .count()
            == bucket_starts.len();
    if consistent {
        return None;
    }
    first_bucket_problem(file, table, bucket_starts)
}

/// The first inconsistency of the bucket array, searched bucket by bucket.
fn first_bucket_problem(
    file: &[u8],
    table: &Table,
    bucket_starts: &[BucketStart],
) -> Option<String> {
    let mut starts: std::collections::HashSet<u64> =
        bucket_starts.iter().map(|&(o, _)| o).collect();
    let mask = table.num_buckets - 1;
    for b in 0..table.num_buckets {
        let off = table.bucket(file, b).unwrap_or(0);
        if off == 0 {
            continue;
        }
        if !starts.remove(&off) {
            return Some(format!(
                "bucket {b} points to {off:#x}, which is not the start of a bucket"
            ));
        }
        // The items of this bucket must hash to it.
        let start = off as usize;
        let Some(rest) = file.get(start..) else {
            continue;
        };
        let mut c = Cursor::new(rest, off, Endian::Little);
        let Ok(n) = c.u16("bucket") else { continue };
        for _ in 0..n {
            match read_item(&mut c) {
                Ok(it) if it.hash & mask != b => {
                    return Some(format!(
                        "the item at {:#x} (hash {:#018x}) is in bucket {b} but its hash selects bucket {}",
                        it.offset,
                        it.hash,
                        it.hash & mask
                    ));
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    if let Some(o) = starts.iter().min() {
        return Some(format!(
            "the bucket starting at {o:#x} is not referenced by the bucket array"
        ));
    }
    None
}
