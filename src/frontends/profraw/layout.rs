//! The cache in front of the raw reader: raw profiles of a binary already seen, recognised
//! by comparing bytes and handed on without building records.
//!
//! Every run of one instrumented binary writes the same header (but for `NamesDelta`, an
//! address, and `BitmapDelta` when the binary has no MC/DC bitmap: then it is the distance from
//! the data records to a null section start, which moves with the load address of a
//! position-independent executable), the same binary IDs, the same data records (but for `FunctionPointer` and
//! `Values`, addresses that move with the load address of a position-independent executable)
//! and the same names section. Only the counters, bitmap bytes and value data differ. A
//! [`RawLayout`] is learned from one file that the reader ([`super::read`]) accepted
//! without a warning, from the records the reader's parser located in it; later files of the same binary are checked against it byte for byte
//! ([`RawLayout::scan`]) and their counters are then used where they lie, at offsets known in
//! advance, with no per-record decoding, name lookup or allocation. A file that differs in
//! any way the layout does not allow for is left to the reader, which then reports
//! whatever is wrong with it exactly as for any file. The value blocks are parsed by the
//! codec the reader uses, their targets translated by the reader's address maps, and
//! counters tested by the reader's plausibility test: nothing is decoded a second way.
//!
//! What a scan accepts is exactly what the full reader would read into the same records
//! without a warning: same kind, same keys in the same order, counters and bitmaps at the same
//! offsets, value blocks that parse, indirect-call targets translated through the same
//! address map (shifted by the file's load-address difference), nothing after the profile
//! but zero bytes, and no implausibly large counter.

use std::sync::Arc;

use super::build::{FunctionAddrs, VTableAddrs, first_implausible};
use super::header::{Field, HeaderVariant, RawHeader};
use super::records::PointerMode;
use super::{Located, RecordSink, magic_at, parse_profile_with};
use crate::bytes::{Cursor, Endian, PointerWidth};
use crate::codec::value_prof_data::{self, FlatValues};
pub use crate::ir::LayoutRecord;
use crate::ir::{CounterBytes, CounterLayout, FunctionKey, ProfileKind, SymbolTable, ValueKind};

/// The invariant part of the raw profiles of one binary (see the module docs).
#[derive(Debug)]
pub struct RawLayout {
    endian: Endian,
    width: PointerWidth,
    kind: ProfileKind,
    names: Arc<SymbolTable>,
    /// Header and binary IDs, up to the data records.
    prefix: Vec<u8>,
    /// Offsets of the header words that are not compared, ascending: NamesDelta (an
    /// address, which the reader ignores) and, when no record has bitmap bytes, BitmapDelta
    /// (which the reader then never uses; without a bitmap section it is `0 − data start`,
    /// different in every run of a position-independent executable).
    free_words: Vec<usize>,
    data_start: usize,
    data: Vec<u8>,
    record_size: usize,
    /// Offset of FunctionPointer in a record; `Values` follows it.
    fp_at: usize,
    names_start: usize,
    names_blob: Vec<u8>,
    values_start: usize,
    /// The records, kind and byte order: what the merge pass is given.
    shape: Arc<CounterLayout>,
    /// Records with a value block, in file order.
    value_records: usize,
    /// FunctionPointer of the learned file → name hash of the first record (in file order)
    /// at that address, as the reader finds it.
    fn_addrs: FunctionAddrs,
    /// The counters of all records form one contiguous, gap-free range.
    counter_range: Option<(usize, usize)>,
}

/// A file of a known layout, checked and ready to merge.
#[derive(Debug)]
pub struct Scanned {
    /// Its value blocks, indirect-call targets translated to name hashes, each site's values
    /// in the file's order (the merge sorts them as LLVM does).
    pub values: FlatValues,
}

impl RawLayout {
    /// Learns the layout of `data`, a raw file that [`super::read`] read without warnings or
    /// implausible counters into a profile of kind `kind` whose names table is `names`. None
    /// if the file is of a kind the fast path does not handle (several profiles, temporal or
    /// byte-coverage counters, vtables, uniform counters, raw versions before 8, ...).
    pub fn learn(data: &[u8], kind: ProfileKind, names: Arc<SymbolTable>) -> Option<RawLayout> {
        let enc = magic_at(data, 0)?;
        let mut seen = Seen {
            names: &names,
            records: Vec::new(),
            fn_addrs: Vec::new(),
            value_records: 0,
            usable: true,
        };
        let p = parse_profile_with(
            data,
            0,
            enc,
            HeaderVariant::Standard,
            PointerMode::Relative,
            RecordSink::Visit(&mut |l| seen.visit(l)),
        )
        .ok()?;
        let h = &p.header;
        if !seen.usable || !cacheable(h, data.get(p.end..)?) {
            return None;
        }
        let Seen {
            records,
            fn_addrs,
            value_records,
            ..
        } = seen;
        let free_words = free_words(h, &records)?;
        let record_size = usize::try_from(h.record_layout().size).ok()?;
        let data_start = usize::try_from(p.sections.data).ok()?;
        let data_end = data_start.checked_add(record_size.checked_mul(records.len())?)?;
        let counter_range = contiguous_counters(&records);
        Some(RawLayout {
            endian: enc.endian,
            width: enc.width,
            kind,
            names,
            prefix: data.get(..data_start)?.to_vec(),
            free_words,
            data_start,
            data: data.get(data_start..data_end)?.to_vec(),
            record_size,
            fp_at: h.record_layout().function_ptr,
            names_start: usize::try_from(p.sections.names).ok()?,
            names_blob: p.names.0.to_vec(),
            values_start: usize::try_from(p.sections.values).ok()?,
            shape: Arc::new(CounterLayout {
                kind,
                endian: enc.endian,
                records,
            }),
            value_records: value_records as usize,
            fn_addrs: FunctionAddrs::from_pairs(fn_addrs.iter().copied(), fn_addrs.len()),
            counter_range,
        })
    }

    /// The records, in file order.
    pub fn records(&self) -> &[LayoutRecord] {
        &self.shape.records
    }

    /// The records, kind and byte order, shared: what the merge pass adds counters by.
    pub fn counter_layout(&self) -> &Arc<CounterLayout> {
        &self.shape
    }

    /// The kind of every profile of this layout.
    pub fn kind(&self) -> ProfileKind {
        self.kind
    }

    /// The names table of this layout.
    pub fn names(&self) -> &Arc<SymbolTable> {
        &self.names
    }

    /// Byte order of the counters.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// True if `data` starts with this layout's header and binary IDs (a cheap first test).
    pub fn header_matches(&self, data: &[u8]) -> bool {
        if data.len() < self.values_start {
            return false;
        }
        // The prefix, compared in the runs between the words that may differ.
        let mut from = 0;
        for &w in self.free_words.iter().chain([&self.prefix.len()]) {
            let to = w.min(self.prefix.len());
            if from < to && data.get(from..to) != self.prefix.get(from..to) {
                return false;
            }
            from = from.max(w + 8);
        }
        true
    }

    /// Checks that `data` is a profile of this layout (see the module docs) and reads its
    /// value blocks. None if it is not, or if anything about it would make the full reader
    /// warn or fail.
    pub fn scan(&self, data: &[u8]) -> Option<Scanned> {
        if !self.header_matches(data) {
            return None;
        }
        let names = data.get(self.names_start..self.names_start + self.names_blob.len())?;
        if names != self.names_blob.as_slice() {
            return None;
        }
        // Data records: identical, or identical but for the addresses.
        let recs = data.get(self.data_start..self.data_start + self.data.len())?;
        let mut fp_delta = 0u64;
        if recs != self.data.as_slice() {
            let w = self.width.bytes() as usize;
            let (fp, after) = (self.fp_at, self.fp_at + 2 * w);
            let mut delta: Option<u64> = None;
            for (a, b) in recs
                .chunks_exact(self.record_size)
                .zip(self.data.chunks_exact(self.record_size))
            {
                if a.get(..fp) != b.get(..fp) || a.get(after..) != b.get(after..) {
                    return None;
                }
                let fa = self.ptr(a, fp)?;
                let fb = self.ptr(b, fp)?;
                if fb == 0 || fa == 0 {
                    if fa != fb {
                        return None;
                    }
                    continue;
                }
                let d = fa.wrapping_sub(fb);
                if *delta.get_or_insert(d) != d {
                    return None;
                }
            }
            fp_delta = delta.unwrap_or(0);
        }
        if !self.counters_plausible(data) {
            return None;
        }
        // Value blocks, in record order, then nothing but zero padding.
        let mut values = FlatValues::default();
        let mut pos = self.values_start;
        for _ in 0..self.value_records {
            let rest = data.get(pos..)?;
            let mut c = Cursor::new(rest, pos as u64, self.endian);
            value_prof_data::parse_flat(&mut c, &mut values).ok()?;
            pos += c.position();
        }
        if data.get(pos..)?.iter().any(|&b| b != 0) {
            return None;
        }
        // No vtable records in a layout: every vtable address is unknown.
        let vtables = VTableAddrs::default();
        for block in 0..values.len() as u32 {
            values.for_each_site_mut(block, ValueKind::IndirectCall, |site| {
                for vc in site.iter_mut() {
                    vc.value = self.fn_addrs.function_at(vc.value.wrapping_sub(fp_delta));
                }
            });
            values.for_each_site_mut(block, ValueKind::VTable, |site| {
                for vc in site.iter_mut() {
                    vc.value = vtables.vtable_at(vc.value);
                }
            });
        }
        Some(Scanned { values })
    }

    fn ptr(&self, rec: &[u8], at: usize) -> Option<u64> {
        match self.width {
            PointerWidth::W32 => self.endian.u32_at(rec, at).map(u64::from),
            PointerWidth::W64 => self.endian.u64_at(rec, at),
        }
    }

    /// True if no record's counter exceeds [`super::MAX_PLAUSIBLE_COUNTER`] (the reader
    /// would flag the input).
    fn counters_plausible(&self, data: &[u8]) -> bool {
        let check =
            |bytes: &[u8]| first_implausible(CounterBytes::new(bytes, self.endian)).is_none();
        match self.counter_range {
            Some((a, b)) => data.get(a..b).is_some_and(check),
            None => self.shape.records.iter().all(|r| {
                data.get(r.counters..r.counters + 8 * r.num_counters)
                    .is_some_and(check)
            }),
        }
    }
}

/// What [`RawLayout::learn`] takes from the records the reader's parser locates.
struct Seen<'n> {
    names: &'n SymbolTable,
    records: Vec<LayoutRecord>,
    /// (FunctionPointer, name hash) of the records, in file order.
    fn_addrs: Vec<(u64, u64)>,
    /// Records with a value block so far.
    value_records: u32,
    /// False once a record the cache cannot describe was seen (a name not in the names
    /// section, an offset beyond `usize`).
    usable: bool,
}

impl Seen<'_> {
    fn visit(&mut self, l: Located<'_>) {
        if !self.usable {
            return;
        }
        if !self.names.contains(l.rec.name_ref) {
            self.usable = false;
            return;
        }
        if l.rec.function_ptr != 0 {
            self.fn_addrs.push((l.rec.function_ptr, l.rec.name_ref));
        }
        let values = l.rec.has_value_block().then(|| {
            self.value_records += 1;
            self.value_records - 1
        });
        let (Ok(counters), Ok(bitmap)) = (
            usize::try_from(l.counters_offset),
            usize::try_from(l.bitmap_offset),
        ) else {
            self.usable = false;
            return;
        };
        self.records.push(LayoutRecord {
            key: FunctionKey {
                name: l.rec.name_ref,
                cfg: l.rec.func_hash,
            },
            counters,
            num_counters: l.counters.len() / 8,
            bitmap,
            bitmap_len: l.bitmap.len(),
            values,
        });
    }
}

/// True if a profile of header `h`, followed by `rest`, is of a kind the cache handles:
/// raw version 8–11, known flags, not temporal, 8-byte counters, no uniform counters or
/// vtables, some data records, the value kinds of its version, only zero bytes after it.
fn cacheable(h: &RawHeader, rest: &[u8]) -> bool {
    let (_, unknown) = ProfileKind::from_version_word(h.version_word);
    (8..=11).contains(&h.version)
        && unknown == 0
        && h.version_word & (1 << 63) == 0
        && h.counter_entry_size() == 8
        && h.num_uniform_counters == 0
        && h.num_vtables == 0
        && h.vnames_size == 0
        && h.num_data != 0
        && h.value_kind_last == h.value_kind_slots() as u64 - 1
        && rest.iter().all(|&b| b == 0)
}

/// Offsets of the header words not compared (see [`RawLayout::free_words`]), ascending.
fn free_words(h: &RawHeader, records: &[LayoutRecord]) -> Option<Vec<usize>> {
    let mut free = vec![usize::try_from(h.offset_of(Field::NamesDelta)).ok()?];
    if h.fields.contains(&Field::BitmapDelta) && records.iter().all(|r| r.bitmap_len == 0) {
        // The full reader locates bitmap bytes through BitmapDelta only for records that
        // have some, and a scanned file's records are those of this one (their bitmap
        // sizes are compared with the rest of the data records).
        free.push(usize::try_from(h.offset_of(Field::BitmapDelta)).ok()?);
    }
    free.sort_unstable();
    free.dedup();
    Some(free)
}

/// The byte range of all records' counters, if they form one contiguous, gap-free range.
fn contiguous_counters(records: &[LayoutRecord]) -> Option<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = records
        .iter()
        .map(|r| (r.counters, r.counters + 8 * r.num_counters))
        .collect();
    spans.sort_unstable();
    match (spans.first(), spans.last()) {
        (Some(&(a, _)), Some(&(_, b))) if spans.windows(2).all(|w| w[0].1 == w[1].0) => {
            Some((a, b))
        }
        _ => None,
    }
}

/// A function address as a hash-map key: multiplied by an odd constant (a bijection, so
/// distinct addresses stay distinct) and rotated, so that aligned addresses spread over the
/// buckets of an identity-hashed map.
pub(super) fn address_key(addr: u64) -> u64 {
    addr.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(32)
}
