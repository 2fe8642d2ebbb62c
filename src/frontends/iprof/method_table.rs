//! The method table: a file's `methods` array stored flat, as one byte string of records
//! ([`MethodTable`], whose doc gives the record layout), and the memory it is built in,
//! handed from one input to the next ([`TableBuffers`]).
//!
//! Units and limits: names are UTF-8 bytes; signatures are LEB128-coded indices into the
//! file's `types`; the offset of every [`MARK_EVERY`]th record is a byte offset held as a
//! `u32` (an offset past 4 GiB is an error), so finding method `i` skips fewer than
//! [`MARK_EVERY`] records.
//!
//! The table's id map (`idx`) holds only methods whose signature names existing types (an
//! id maps to its first method). It takes a file method id either to the index of its
//! record (below [`RESOLVED`]: a file of 2^31 methods or more is refused) or, once the
//! method is interned, to its IR method id with the [`RESOLVED`] bit set (an IR id too
//! large for that is not recorded, and the method is interned again at each lookup).

use crate::bytes::leb128::{take_uleb, write_uleb};
use crate::error::{Error, ErrorKind, Result};
use crate::ir::java_symbols::MethodId;

use super::id_map::IdMap;

/// The `methods` array of a file, stored flat and already checked, as one byte string of
/// records: per method its name's length (LEB128) and bytes, then its signature's length in
/// bytes (LEB128) and the signature as LEB128-coded indices into `types` (most take two
/// bytes), with the offset of every [`MARK_EVERY`]th record kept to find a method. A file's
/// 40,000 methods thus cost about 27 bytes each, names included (their names average 15),
/// instead of 80,000 small allocations, and the names do not keep the input alive.
///
/// The vectors grow by a quarter at a time (not doubling), and a worker that reads many
/// files reuses one set of them ([`TableBuffers`]): in a merge the table of each input in
/// flight is a large part of the memory used, and allocating and freeing it per input
/// leaves the allocator's arenas fragmented.
#[derive(Debug, Default)]
pub(super) struct MethodTable {
    /// The records, method after method.
    recs: Vec<u8>,
    /// Offset in `recs` of the record of method `k * MARK_EVERY`, for each `k`.
    marks: Vec<u32>,
    /// Methods stored (the last one's record is complete once [`Self::end`] has run).
    count: usize,
    /// The signature of the method being read, coded; empty for a method whose signature
    /// names a type that does not exist (such a method is never indexed).
    pub(super) sig: Vec<u8>,
    /// File method id → index, for methods whose signature is valid (first of duplicates).
    pub(super) idx: IdMap,
    /// The method being read: its id, whether its signature is valid so far, and how many
    /// signature entries were read (for messages).
    pub(super) current: Option<(i64, bool, usize)>,
}

/// Methods per offset kept in [`MethodTable::marks`]: finding a method skips at most this
/// many records less one.
const MARK_EVERY: usize = 8;

/// The memory of a method table, handed from one input to the next read by the same
/// worker ([`Lowerer::with_buffers`](super::Lowerer::with_buffers),
/// [`Lowered::buffers`](super::Lowered::buffers)): the next table is built in
/// the same vectors (emptied first), which then grow only if the file needs more.
#[derive(Debug, Default)]
pub struct TableBuffers {
    recs: Vec<u8>,
    marks: Vec<u32>,
    dense: Vec<u32>,
}

/// Makes room for `more` elements: a quarter more (at least 256), not double.
fn grow<T>(v: &mut Vec<T>, more: usize) {
    if v.len() + more > v.capacity() {
        v.reserve_exact((v.len() / 4).max(256).max(more));
    }
}

/// Appends `x` LEB128-coded, growing `v` by a quarter when full.
fn put_leb128(v: &mut Vec<u8>, x: u64) {
    grow(v, 10);
    write_uleb(v, x);
}

/// Splits `len` bytes off the front of `bytes`.
fn take_bytes<'b>(bytes: &mut &'b [u8], len: u64) -> Option<&'b [u8]> {
    let len = usize::try_from(len).ok()?;
    let (head, rest) = (bytes.get(..len)?, bytes.get(len..)?);
    *bytes = rest;
    Some(head)
}

impl MethodTable {
    /// An empty table in the vectors of `b`.
    pub(super) fn from_buffers(b: TableBuffers) -> Self {
        let TableBuffers {
            mut recs,
            mut marks,
            mut dense,
        } = b;
        recs.clear();
        marks.clear();
        dense.clear();
        let mut t = MethodTable {
            recs,
            marks,
            ..MethodTable::default()
        };
        t.idx.dense = dense;
        t
    }

    /// The table's vectors, for the next table.
    pub(super) fn into_buffers(self) -> TableBuffers {
        TableBuffers {
            recs: self.recs,
            marks: self.marks,
            dense: self.idx.dense,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// Starts the record of the next method.
    pub(super) fn begin(&mut self, name: &str) -> Result<()> {
        if self.count.is_multiple_of(MARK_EVERY) {
            let at = offset32(self.recs.len(), "method table bytes")?;
            grow(&mut self.marks, 1);
            self.marks.push(at);
        }
        put_leb128(&mut self.recs, name.len() as u64);
        grow(&mut self.recs, name.len());
        self.recs.extend_from_slice(name.as_bytes());
        self.sig.clear();
        self.count += 1;
        Ok(())
    }

    /// Adds a type index to the current method's signature.
    pub(super) fn push_sig(&mut self, type_index: u32) {
        put_leb128(&mut self.sig, u64::from(type_index));
    }

    /// Ends the current method's record.
    pub(super) fn end(&mut self) {
        put_leb128(&mut self.recs, self.sig.len() as u64);
        grow(&mut self.recs, self.sig.len());
        self.recs.extend_from_slice(&self.sig);
    }

    /// Records that the method with file id `file_id` is IR method `m`: its slot in `idx`
    /// holds `m` from now on, marked [`RESOLVED`]. An id too large to mark (2^31 methods)
    /// is simply not recorded.
    pub(super) fn resolved(&mut self, file_id: i64, m: MethodId) {
        if m.0 < RESOLVED - 1
            && let Some(slot) = self.idx.slot_mut(file_id)
        {
            *slot = m.0 | RESOLVED;
        }
    }

    /// The name and coded signature of every method, in order.
    pub(super) fn records(&self) -> impl Iterator<Item = (&str, &[u8])> + '_ {
        let mut bytes = self.recs.as_slice();
        (0..self.count).map_while(move |_| Self::next_record(&mut bytes))
    }

    /// Reads the record at the front of `bytes`, advancing past it.
    fn next_record<'r>(bytes: &mut &'r [u8]) -> Option<(&'r str, &'r [u8])> {
        let n = take_uleb(bytes)?;
        let name = std::str::from_utf8(take_bytes(bytes, n)?).ok()?;
        let n = take_uleb(bytes)?;
        Some((name, take_bytes(bytes, n)?))
    }

    /// The name and coded signature of method `i`.
    pub(super) fn record(&self, i: usize) -> Option<(&str, &[u8])> {
        let start = *self.marks.get(i / MARK_EVERY)? as usize;
        let mut bytes = self.recs.get(start..)?;
        for _ in 0..i % MARK_EVERY {
            let n = take_uleb(&mut bytes)?;
            take_bytes(&mut bytes, n)?;
            let n = take_uleb(&mut bytes)?;
            take_bytes(&mut bytes, n)?;
        }
        Self::next_record(&mut bytes)
    }

    #[cfg(test)]
    fn name(&self, i: usize) -> Option<&str> {
        self.record(i).map(|(name, _)| name)
    }

    /// The signature of method `i`, as indices into the file's `types`.
    #[cfg(test)]
    fn signature(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        let mut bytes = self.record(i).map(|(_, sig)| sig).unwrap_or_default();
        std::iter::from_fn(move || take_uleb(&mut bytes).map(|v| v as u32))
    }
}

/// Marks a slot of a method table's id map that holds an IR method id, not an index.
pub(super) const RESOLVED: u32 = 1 << 31;

/// `n` as a 32-bit offset into a method-table vector.
fn offset32(n: usize, what: &'static str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::new(ErrorKind::LimitExceeded {
            what,
            value: n as u64,
            limit: u64::from(u32::MAX),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::MethodTable;

    /// Records are LEB128-coded: every width of a signature entry (1 to 5 bytes) and every
    /// method, before and after the offsets kept every `MARK_EVERY` methods, comes back as
    /// written.
    #[test]
    fn method_records_round_trip() -> crate::error::Result<()> {
        let sigs: [&[u32]; 5] = [
            &[],
            &[0, 127, 128, 255],
            &[16_383, 16_384, 2_097_151, 2_097_152],
            &[268_435_455, 268_435_456, u32::MAX - 1, u32::MAX],
            &[5],
        ];
        let name = |i: usize| "m".repeat(i % 150) + &i.to_string();
        let mut t = MethodTable::default();
        let n = 3 * super::MARK_EVERY + 7;
        for i in 0..n {
            t.begin(&name(i))?;
            for &x in sigs[i % sigs.len()] {
                t.push_sig(x);
            }
            t.end();
        }
        assert_eq!(t.len(), n);
        for i in 0..n {
            let sig: Vec<u32> = t.signature(i).collect();
            assert_eq!(sig, sigs[i % sigs.len()].to_vec(), "method {i}");
            assert_eq!(t.name(i), Some(name(i).as_str()), "method {i}");
        }
        assert_eq!(t.signature(n).count(), 0);
        assert_eq!(t.name(n), None);
        let in_order: Vec<(&str, &[u8])> = t.records().collect();
        assert_eq!(in_order.len(), n);
        for (i, r) in in_order.iter().enumerate() {
            assert_eq!(Some(*r), t.record(i), "method {i}");
        }
        Ok(())
    }
}
