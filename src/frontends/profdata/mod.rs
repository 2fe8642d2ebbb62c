//! Front-end for LLVM indexed profiles (`.profdata`), index versions 1 to 14.
//!
//! Layout (all little-endian, offsets absolute): a header whose size depends on the version,
//! the profile summary (v4+; a second, context-sensitive one when the CS flag is set), the
//! on-disk hash table payload keyed by function name, the bucket array at `HashOffset`, then
//! the optional sections the header points to: MemProf (skipped with a warning: we do not
//! carry it), binary IDs (v9+), vtable names (v12+) and temporal traces (v10+, temporal
//! profiles only). A key's data are one record per structural hash.
//!
//! Records are read in file order (the payload is walked from the end of the summary, as
//! `llvm-profdata` does); the bucket array is checked to lead to every item, as compilers look
//! names up through it. Counters are borrowed from the input.
//!
//! One reading, two materialisations: the walk (`read_parts`, its records by
//! `parse_records`, the one record grammar) hands each record to its caller as a borrowed
//! `RecordView`; [`read`] builds IR records from the views; [`scan`], for merges, builds
//! none: it describes the file by a [`CounterLayout`] of its own (where each record's counters
//! and bitmap lie) and its value blocks in one [`FlatValues`], so that a record costs no
//! allocation, and it takes the names' hashes from an [`IndexedNameCache`] shared by the
//! merge's inputs (module `names`). Both give the same errors and warnings. For a file whose
//! names are those the cache checked last, module `one_pass` is a cache in front of the walk:
//! it compares the items with the known names as it meets them and describes their records
//! through the same `parse_records`.

mod names;
mod one_pass;

use std::borrow::Cow;
use std::sync::Arc;

use crate::bytes::{Cursor, Endian, pad8};
use crate::codec::chained_hash::reader::{self, Table};
use crate::codec::value_prof_data::{self, FlatValues};
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::{
    CounterLayout, Counters, FunctionKey, FunctionRecord, LayoutRecord, Profile, ProfileKind,
    Provenance, Summary, SummaryEntry, SymbolTable, TableLayout, TemporalProfile, TemporalTrace,
};
pub use names::IndexedNameCache;

/// Newest index version read.
pub use crate::codec::indexed_header::NEWEST_VERSION;

/// The result of reading an indexed profile.
#[derive(Debug)]
pub struct IndexedRead<'a> {
    /// The profile; records in file order.
    pub profile: Profile<'a>,
    /// The index version.
    pub version: u32,
    /// Non-fatal problems.
    pub warnings: Vec<Warning>,
}

pub use crate::codec::indexed_header::IndexedHeader;

/// Parses the header (after checking the magic): the table in [`crate::codec::indexed_header`].
pub fn parse_header(data: &[u8]) -> Result<IndexedHeader> {
    crate::codec::indexed_header::parse(data)
}

/// Reads one serialized summary at the cursor.
fn parse_summary(c: &mut Cursor<'_>) -> Result<Summary> {
    let at = c.offset();
    let nfields = c.u64("summary: number of fields")?;
    let nentries = c.u64("summary: number of cutoff entries")?;
    let need = nfields
        .checked_mul(8)
        .and_then(|f| nentries.checked_mul(24).and_then(|e| e.checked_add(f)))
        .unwrap_or(u64::MAX);
    if need > c.remaining() as u64 {
        return Err(Error::at(
            at,
            ErrorKind::Truncated {
                what: "profile summary (fields and cutoff entries)",
                needed: need,
                available: c.remaining() as u64,
            },
        ));
    }
    let mut fields = [0u64; 6];
    for i in 0..nfields {
        let v = c.u64("summary field")?;
        if let Some(f) = fields.get_mut(i as usize) {
            *f = v;
        }
    }
    let mut detailed = crate::sys::alloc::with_capacity(nentries as usize, "the profile summary")?;
    for _ in 0..nentries {
        let cutoff = c.u64("summary entry: cutoff")?;
        let min_count = c.u64("summary entry: minimum count")?;
        let num_counts = c.u64("summary entry: number of counts")?;
        detailed.push(SummaryEntry {
            cutoff: u32::try_from(cutoff).unwrap_or(u32::MAX),
            min_count,
            num_counts,
        });
    }
    Ok(Summary {
        num_functions: fields[0],
        num_counts: fields[1],
        max_function_count: fields[2],
        max_count: fields[3],
        max_internal_count: fields[4],
        total_count: fields[5],
        detailed,
    })
}

/// An indexed profile described for a merge (see [`scan`]): no records are built.
#[derive(Debug)]
pub struct IndexedScan<'a> {
    /// The profile without its records (kind, names, binary IDs, traces, table layout).
    pub profile: Profile<'a>,
    /// Where the records lie in the file, in file order: the records [`read`] would give.
    pub layout: CounterLayout,
    /// The records' value blocks, numbered by [`LayoutRecord::values`].
    pub values: FlatValues,
    /// The index version.
    pub version: u32,
    /// Non-fatal problems (the same as [`read`]'s).
    pub warnings: Vec<Warning>,
}

/// Reads an indexed profile: the walk's record views, built into IR records.
pub fn read(data: &[u8]) -> Result<IndexedRead<'_>> {
    let mut records = Vec::new();
    let parts = read_parts(data, &IndexedNameCache::new(), &mut |file, p| {
        let (record, read) = p.build(file)?;
        records.push(record);
        Ok(Some(read))
    })?;
    // The sink above never stops the walk, so the parts are always there; should that change,
    // a read that stopped early is an error, not a panic.
    let Some(mut r) = parts else {
        return Err(Error::malformed(
            0,
            "indexed profile",
            "the record walk stopped early",
        ));
    };
    r.profile.records = records;
    Ok(IndexedRead {
        profile: r.profile,
        version: r.version,
        warnings: r.warnings,
    })
}

/// Reads an indexed profile for a merge: the same reading as [`read`], but the records are
/// described where they lie instead of built, and the names' hashes come from `cache` when
/// an input with the same names was read before. Returns `None` for a file this form cannot
/// describe (MC/DC bitmaps of index versions 11 to 13, stored one byte per 8-byte word): read
/// it with [`read`].
pub fn scan<'a>(data: &'a [u8], cache: &IndexedNameCache) -> Result<Option<IndexedScan<'a>>> {
    touch(data);
    if let Some(s) = one_pass::scan_known(data, cache) {
        return Ok(Some(s));
    }
    let mut out = Described::default();
    let parts = read_parts(data, cache, &mut |file, p| p.describe(file, &mut out))?;
    Ok(parts.map(|r| IndexedScan {
        layout: CounterLayout {
            kind: r.profile.kind,
            endian: Endian::Little,
            records: out.records,
        },
        profile: r.profile,
        values: out.values,
        version: r.version,
        warnings: r.warnings,
    }))
}

/// Reads one byte of every cache line of `data`, front to back, before the walk. The walk
/// goes from item to item through the hash table, each next item's place depending on the
/// lengths in the one before: on bytes not yet in the caches that is one memory latency per
/// item. Read in order, line after line, the same bytes stream in at the memory's bandwidth
/// (and their pages are mapped in the same go), and every later pass finds them cached.
fn touch(data: &[u8]) {
    let mut acc = 0u8;
    for b in data.iter().step_by(64) {
        acc ^= *b;
    }
    std::hint::black_box(acc);
}

/// A value block without sites: total size 8 and no kinds, little-endian.
const EMPTY_VALUE_BLOCK: [u8; 8] = [8, 0, 0, 0, 0, 0, 0, 0];

/// Where a record's MC/DC bitmap bytes are: absolute offset and number of bytes.
#[derive(Debug, Clone, Copy)]
enum Bitmap {
    /// One after another (index version 14 and later, and records without bitmap bytes).
    Bytes(usize, usize),
    /// One byte in the low bits of each little-endian 8-byte word (versions 11 to 13).
    Words(usize, usize),
}

/// One record as the walk found it, borrowed from the file: what a sink of [`read_parts`]
/// decides to materialise ([`RecordView::build`]: an IR record; [`RecordView::describe`]:
/// its place, for a merge).
#[derive(Clone, Copy)]
pub(crate) struct RecordView {
    key: FunctionKey,
    /// Absolute offset of the first 8-byte counter (any alignment).
    counters: usize,
    num_counters: usize,
    bitmap: Bitmap,
    /// The record's value block, if it has sites; the sink reads it to its end. `None`
    /// before version 3 (no value blocks) and for the block of most records, its 8-byte
    /// header alone (total size 8, no kinds: [`EMPTY_VALUE_BLOCK`]), which the grammar steps
    /// over: read by the value-block codec it is a block without sites, equivalent to none.
    values: Option<ValueBlock>,
}

/// Where a record's value block starts, and the end of its key's data, which it must not
/// pass (absolute offsets). Plain offsets rather than a cursor: the view stays in registers
/// on the walk's hot path, and a cursor is made only for the blocks that have sites.
#[derive(Clone, Copy)]
struct ValueBlock {
    at: usize,
    end: usize,
}

impl ValueBlock {
    /// A cursor over the block and the rest of its key's data.
    #[inline(always)]
    fn cursor(self, file: &[u8]) -> Cursor<'_> {
        Cursor::new(&file[self.at..self.end], self.at as u64, Endian::Little)
    }
}

/// Records described where they lie, and their value blocks: what [`scan`] gives.
#[derive(Debug, Default)]
pub(crate) struct Described {
    records: Vec<LayoutRecord>,
    values: FlatValues,
}

impl Described {
    /// Room for `records` records and value stores of the given [`FlatValues::lens`].
    pub(crate) fn with_capacity(records: usize, values: [usize; 3]) -> Self {
        Described {
            records: Vec::with_capacity(records),
            values: FlatValues::with_capacity(values),
        }
    }

    /// The records and their value blocks.
    pub(crate) fn into_parts(self) -> (Vec<LayoutRecord>, FlatValues) {
        (self.records, self.values)
    }
}

impl RecordView {
    /// The record built (IR), its counters borrowed from `file`, and the number of bytes of
    /// its value block, which it reads.
    fn build(self, file: &[u8]) -> Result<(FunctionRecord<'_>, usize)> {
        let (values, read) = match self.values {
            Some(b) => {
                let mut c = b.cursor(file);
                let v = value_prof_data::parse(&mut c)?;
                ((!v.is_empty()).then(|| Box::new(v)), c.position())
            }
            None => (None, 0),
        };
        let record = FunctionRecord {
            key: self.key,
            counters: Counters::Raw64 {
                bytes: &file[self.counters..self.counters + 8 * self.num_counters],
                endian: Endian::Little,
            },
            bitmap: match self.bitmap {
                Bitmap::Bytes(at, n) => Cow::Borrowed(&file[at..at + n]),
                Bitmap::Words(at, n) => {
                    Cow::Owned(file[at..at + 8 * n].chunks_exact(8).map(|w| w[0]).collect())
                }
            },
            values,
        };
        Ok((record, read))
    }

    /// Describes the record into `out` (where its counters and bitmap lie, its value block
    /// flat) and returns the number of bytes of its value block, which it reads. `None`
    /// (nothing added) for a bitmap stored in 8-byte words (index versions 11 to 13), which
    /// a description cannot place.
    #[inline(always)]
    fn describe(self, file: &[u8], out: &mut Described) -> Result<Option<usize>> {
        let bitmap = match self.bitmap {
            Bitmap::Bytes(at, n) => (at, n),
            Bitmap::Words(_, 0) => (0, 0),
            Bitmap::Words(..) => return Ok(None),
        };
        let (block, read) = match self.values {
            Some(b) => {
                let mut c = b.cursor(file);
                let block = value_prof_data::parse_flat(&mut c, &mut out.values)?;
                (Some(block), c.position())
            }
            None => (None, 0),
        };
        out.records.push(LayoutRecord {
            key: self.key,
            counters: self.counters,
            num_counters: self.num_counters,
            bitmap: bitmap.0,
            bitmap_len: bitmap.1,
            values: block,
        });
        Ok(Some(read))
    }
}

/// What [`read_parts`] gives besides the records: the profile without records.
struct Parts<'a> {
    profile: Profile<'a>,
    version: u32,
    warnings: Vec<Warning>,
}

/// What [`read_parts`] hands each record to: the whole file and the record; it reads the
/// record's value block and returns the number of bytes it read, or `None` to stop the walk.
type Sink<'s, 'a> = dyn FnMut(&'a [u8], RecordView) -> Result<Option<usize>> + 's;

/// Reads everything of an indexed profile but its records, handing each record to `sink` in
/// file order. The sink reads the record's value block through `values` and returns false to
/// stop (then the result is `None`).
fn read_parts<'a>(
    data: &'a [u8],
    cache: &IndexedNameCache,
    sink: &mut Sink<'_, 'a>,
) -> Result<Option<Parts<'a>>> {
    let h = parse_header(data)?;
    let version = (h.version_word & 0xffff_ffff) as u32;
    let (mut kind, unknown) = ProfileKind::from_version_word(h.version_word);
    let mut warnings = Vec::new();
    if unknown != 0 {
        warnings.push(Warning::at(
            8,
            format!("unknown flag bits {unknown:#018x} in the version word are ignored"),
        ));
    }
    if kind.contains(ProfileKind::MEMPROF) {
        warnings.push(Warning::new(
            "the file holds MemProf (heap profile) data, which pgo-merge does not carry; it is \
             dropped",
        ));
        kind.remove(ProfileKind::MEMPROF);
    }

    // Summaries.
    let mut c = Cursor::new(&data[h.size as usize..], h.size, Endian::Little);
    let mut stored = None;
    if version >= 4 {
        let s = parse_summary(&mut c)?;
        let cs = if kind.contains(ProfileKind::CONTEXT_SENSITIVE) {
            Some(parse_summary(&mut c)?)
        } else {
            None
        };
        stored = Some((s, cs));
    }
    let payload = c.offset();

    // Hash table.
    let table = Table::parse(data, h.hash_offset)?;
    let (items, bucket_starts) = reader::walk(data, payload, table.num_entries)?;
    if let Some(problem) = reader::check_buckets(data, &table, &items, &bucket_starts) {
        warnings.push(Warning::new(format!(
            "the hash table's buckets do not match its items ({problem}); compilers look \
             functions up through the buckets and may not find some"
        )));
    }

    let names = cache.names_of(data, &items);
    warnings.extend(names.warnings);
    for (it, &h_name) in items.iter().zip(names.hashes.iter()) {
        if !parse_records_of(data, version, it.data, h_name, sink)? {
            return Ok(None);
        }
    }

    let sections = read_sections(data, &h, version, &mut kind, cache)?;

    let layout = TableLayout {
        num_buckets: table.num_buckets,
        keys: Arc::clone(&names.hashes),
    };
    Ok(Some(Parts {
        profile: sections.into_profile(kind, names.table, stored, layout, version),
        version,
        warnings,
    }))
}

/// The sections after the hash table: binary IDs, vtable names, temporal traces.
struct Sections {
    binary_ids: Vec<Vec<u8>>,
    vtable_names: Arc<SymbolTable>,
    temporal: TemporalProfile,
}

impl Sections {
    /// The profile without records of an indexed file of index version `version`, with
    /// these sections, its name table, stored summaries and table layout.
    fn into_profile<'a>(
        self,
        kind: ProfileKind,
        names: Arc<SymbolTable>,
        stored: Option<(Summary, Option<Summary>)>,
        layout: TableLayout,
        version: u32,
    ) -> Profile<'a> {
        Profile {
            kind,
            records: Vec::new(),
            names,
            vtable_names: self.vtable_names,
            binary_ids: self.binary_ids,
            temporal: self.temporal,
            uncorrelated_counters: 0,
            stored_summaries: stored,
            layout: Some(layout),
            provenance: Provenance {
                path: None,
                format: format!("indexed profile v{version}"),
            },
        }
    }
}

/// Reads the sections the header points to after the hash table (binary IDs from version 9,
/// vtable names from 12, temporal traces from 10 when `kind` says so; `kind` loses
/// [`ProfileKind::TEMPORAL`] if the version has no traces).
fn read_sections(
    data: &[u8],
    h: &IndexedHeader,
    version: u32,
    kind: &mut ProfileKind,
    cache: &IndexedNameCache,
) -> Result<Sections> {
    // Binary IDs (v9+): the section is always read by LLVM.
    let binary_ids = if version >= 9 {
        read_binary_ids(data, h.binary_id_offset)?
    } else {
        Vec::new()
    };
    let vtable_names = match h.vtable_names_offset {
        off if version >= 12 && off != 0 => read_vtable_names(data, off)?,
        _ => None,
    };
    let temporal = if version >= 10 && kind.contains(ProfileKind::TEMPORAL) {
        read_temporal(data, h.temporal_offset)?
    } else {
        kind.remove(ProfileKind::TEMPORAL);
        TemporalProfile::default()
    };
    Ok(Sections {
        binary_ids,
        vtable_names: vtable_names.unwrap_or_else(|| cache.empty_table()),
        temporal,
    })
}

/// The binary IDs of the section at `off` (index version 9 and later).
fn read_binary_ids(data: &[u8], off: u64) -> Result<Vec<Vec<u8>>> {
    if off == 0 || off as usize > data.len() {
        return Err(Error::malformed(
            48,
            "binary ID offset",
            format!(
                "{off:#x} does not point into the file ({} bytes); LLVM readers reject this as a corrupt header",
                data.len()
            ),
        ));
    }
    let mut c = Cursor::new(&data[off as usize..], off, Endian::Little);
    let size = c.u64("binary IDs: section size")?;
    if size % 8 != 0 {
        return Err(Error::malformed(
            off,
            "binary IDs: section size",
            format!("{size} is not a multiple of 8"),
        ));
    }
    let body = c.bytes(size, "binary IDs")?;
    let mut bc = Cursor::new(body, off + 8, Endian::Little);
    let mut binary_ids = Vec::new();
    while !bc.is_empty() {
        let at = bc.offset();
        let len = bc.u64("binary ID length")?;
        if len == 0 {
            return Err(Error::malformed(at, "binary ID", "length is 0"));
        }
        binary_ids.push(bc.bytes(len, "binary ID bytes")?.to_vec());
        let pad = pad8(len).min(bc.remaining() as u64);
        bc.skip(pad, "binary ID padding")?;
    }
    Ok(binary_ids)
}

/// The vtable names of the section at `off` (index version 12 and later); `None` if there
/// are none.
fn read_vtable_names(data: &[u8], off: u64) -> Result<Option<Arc<SymbolTable>>> {
    let rest = data.get(off as usize..).ok_or_else(|| {
        Error::malformed(
            64,
            "vtable names offset",
            format!("{off:#x} is past the end of the file"),
        )
    })?;
    let mut c = Cursor::new(rest, off, Endian::Little);
    let len = c.u64("vtable names: blob length")?;
    let blob_at = c.offset();
    let blob = c.bytes(len, "vtable names blob")?;
    let mut vtable_names = SymbolTable::new();
    crate::codec::names_blob::for_each_name(blob, blob_at, |n| {
        vtable_names.insert(n);
    })?;
    Ok((!vtable_names.is_empty()).then(|| Arc::new(vtable_names)))
}

/// The temporal traces of the section at `off` (index version 10 and later, temporal
/// profiles only).
fn read_temporal(data: &[u8], off: u64) -> Result<TemporalProfile> {
    let rest = data
        .get(off as usize..)
        .filter(|_| off != 0)
        .ok_or_else(|| {
            Error::malformed(
                56,
                "temporal traces offset",
                format!("{off:#x} does not point into the file"),
            )
        })?;
    let mut c = Cursor::new(rest, off, Endian::Little);
    let mut temporal = TemporalProfile::default();
    let n = c.u64("temporal traces: number of traces")?;
    temporal.stream_size = c.u64("temporal traces: stream size")?;
    if n.saturating_mul(16) > c.remaining() as u64 {
        return Err(c.truncated("temporal traces", n.saturating_mul(16)));
    }
    for _ in 0..n {
        let weight = c.u64("temporal trace: weight")?;
        let len = c.u64("temporal trace: number of functions")?;
        if len.saturating_mul(8) > c.remaining() as u64 {
            return Err(c.truncated("temporal trace: function hashes", len.saturating_mul(8)));
        }
        let mut functions = crate::sys::alloc::with_capacity(len as usize, "a temporal trace")?;
        for _ in 0..len {
            functions.push(c.u64("temporal trace: function hash")?);
        }
        temporal.traces.push(TemporalTrace { weight, functions });
    }
    Ok(temporal)
}

/// The little-endian word in `w` (8 bytes, which the caller's split guarantees).
#[inline(always)]
fn le_u64(w: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(w);
    u64::from_le_bytes(b)
}

/// One key's data (`bytes`, at absolute offset `at`), read by [`parse_records`] front to
/// back: `rest` is what is left of it, so that each read is one length check (positions,
/// for offsets and errors, are `bytes.len() - rest.len()`); little-endian words, and errors
/// worded and placed as a [`Cursor`]'s.
struct KeyData<'a> {
    bytes: &'a [u8],
    rest: &'a [u8],
    at: u64,
}

impl<'a> KeyData<'a> {
    /// Position of the next byte in `bytes`.
    #[inline(always)]
    fn pos(&self) -> usize {
        self.bytes.len() - self.rest.len()
    }

    /// Absolute offset of the next byte.
    #[inline(always)]
    fn offset(&self) -> usize {
        self.at as usize + self.pos()
    }

    /// The next `N` bytes, moving past them; `None` (having moved nowhere) if fewer are left.
    #[inline(always)]
    fn chunk<const N: usize>(&mut self) -> Option<&'a [u8; N]> {
        let (c, tail) = self.rest.split_first_chunk::<N>()?;
        self.rest = tail;
        Some(c)
    }

    /// The next word, moving past it.
    #[inline(always)]
    fn u64(&mut self, what: &'static str) -> Result<u64> {
        match self.chunk::<8>() {
            Some(w) => Ok(u64::from_le_bytes(*w)),
            None => Err(self.truncated(what, 8)),
        }
    }

    /// Moves past `n` bytes.
    #[inline(always)]
    fn skip(&mut self, n: u64, what: &'static str) -> Result<()> {
        match usize::try_from(n).ok().and_then(|n| self.rest.get(n..)) {
            Some(tail) => {
                self.rest = tail;
                Ok(())
            }
            None => Err(self.truncated(what, n)),
        }
    }

    /// A record's MC/DC bitmap next (index version 11 and later), moving past it (and, from
    /// version 14, past the uniformity bytes after it).
    #[inline(always)]
    fn bitmap(&mut self, version: u32) -> Result<Bitmap> {
        let nb = self.u64("record: number of bitmap bytes")?;
        let b_at = self.offset();
        if version >= 14 {
            self.skip(nb.saturating_add(pad8(nb)), "record: bitmap bytes")?;
            let nu = self.u64("record: number of uniformity bytes")?;
            self.skip(nu.saturating_add(pad8(nu)), "record: uniformity bytes")?;
            Ok(Bitmap::Bytes(b_at, nb as usize))
        } else {
            self.skip(nb.saturating_mul(8), "record: bitmap bytes")?;
            Ok(Bitmap::Words(b_at, nb as usize))
        }
    }

    /// The error of `needed` bytes `what` next, as [`Cursor::truncated`] words it.
    #[inline(always)]
    fn truncated(&self, what: &'static str, needed: u64) -> Error {
        truncated_at(self.at + self.pos() as u64, what, needed, self.rest.len())
    }
}

/// The error of `needed` bytes `what` at absolute offset `at` where `available` are left.
/// Apart and given plain values, so that the reader's state never has its address taken and
/// stays in registers.
#[cold]
#[inline(never)]
fn truncated_at(at: u64, what: &'static str, needed: u64, available: usize) -> Error {
    Error::at(
        at,
        ErrorKind::Truncated {
            what,
            needed,
            available: available as u64,
        },
    )
}

/// [`parse_records`] for a file of index version `version`, whichever it is (see
/// [`RecordShape`]).
fn parse_records_of<'a, S>(
    file: &'a [u8],
    version: u32,
    item: (u64, u64),
    name: u64,
    sink: &mut S,
) -> Result<bool>
where
    S: FnMut(&'a [u8], RecordView) -> Result<Option<usize>> + ?Sized,
{
    match RecordShape::of(version) {
        RecordShape::V1 => parse_records::<1, S>(file, item, name, sink),
        RecordShape::V2 => parse_records::<2, S>(file, item, name, sink),
        RecordShape::V3 => parse_records::<3, S>(file, item, name, sink),
        RecordShape::V11 => parse_records::<11, S>(file, item, name, sink),
        RecordShape::V14 => parse_records::<14, S>(file, item, name, sink),
    }
}

/// The forms a record takes across index versions, named by the first version of each: the
/// record grammar ([`parse_records`]) is instantiated once per form, so that a file's walk
/// tests no version per record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum RecordShape {
    /// Version 1: one record per key, no counter count (the rest of the data is counters).
    V1,
    /// Version 2: counted counters, records one after another.
    V2,
    /// Versions 3 to 10: a value block after the counters.
    V3,
    /// Versions 11 to 13: MC/DC bitmap bytes, one per 8-byte word, before the value block.
    V11,
    /// Version 14 and later: packed bitmap bytes and uniformity bytes.
    V14,
}

impl RecordShape {
    /// The form of the records of index version `version` (never 0 here: the header reader
    /// refuses version 0 before any record is read).
    pub(crate) fn of(version: u32) -> RecordShape {
        match version {
            0 | 1 => RecordShape::V1,
            2 => RecordShape::V2,
            3..=10 => RecordShape::V3,
            11..=13 => RecordShape::V11,
            _ => RecordShape::V14,
        }
    }
}

/// Walks the records of one key's data, handing each to `sink`; false if the sink stopped.
/// `V` is the first index version of the file's [`RecordShape`] (1, 2, 3, 11 or 14): every
/// test of the version below is a test of that constant. Inlined into its callers: the one
/// pass calls it once per item, and a call there cost more than the walk of the item's one
/// record.
#[inline(always)]
fn parse_records<'a, const V: u32, S>(
    file: &'a [u8],
    (at, len): (u64, u64),
    name: u64,
    sink: &mut S,
) -> Result<bool>
where
    S: FnMut(&'a [u8], RecordView) -> Result<Option<usize>> + ?Sized,
{
    let version = V;
    if len % 8 != 0 {
        return Err(Error::malformed(
            at,
            "function data",
            format!("length {len} is not a multiple of 8"),
        ));
    }
    let bytes = &file[at as usize..(at + len) as usize];
    let mut k = KeyData {
        bytes,
        rest: bytes,
        at,
    };
    while !k.rest.is_empty() {
        let rec_at = k.offset() as u64;
        // The common case first: both header words in one length check.
        let head = if version >= 2 { k.chunk::<16>() } else { None };
        let (cfg, n) = match head {
            Some(head) => {
                let (cfg, n) = head.split_at(8);
                (le_u64(cfg), le_u64(n))
            }
            None => {
                let cfg = k.u64("record: function hash")?;
                let n = if version == 1 {
                    // Version 1 has one record per key and no count: the rest is counters.
                    (k.rest.len() / 8) as u64
                } else {
                    k.u64("record: number of counters")?
                };
                (cfg, n)
            }
        };
        let counters = k.offset();
        let Some(tail) = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(8))
            .and_then(|b| k.rest.get(b..))
        else {
            return Err(Error::malformed(
                rec_at,
                "record",
                format!("{n} counters do not fit in the key's data"),
            ));
        };
        k.rest = tail;
        let bitmap = if version >= 11 {
            k.bitmap(version)?
        } else {
            Bitmap::Bytes(0, 0)
        };
        let values = if version < 3 {
            None
        } else if k.rest.first_chunk::<8>() == Some(&EMPTY_VALUE_BLOCK) {
            k.rest = &k.rest[8..];
            None
        } else {
            Some(ValueBlock {
                at: k.offset(),
                end: at as usize + bytes.len(),
            })
        };
        let view = RecordView {
            key: FunctionKey { name, cfg },
            counters,
            num_counters: n as usize,
            bitmap,
            values,
        };
        let Some(read) = sink(file, view)? else {
            return Ok(false);
        };
        k.rest = k.rest.get(read..).unwrap_or_default();
        if version == 1 {
            break;
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Little-endian words as bytes.
    fn words(ws: &[u64]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The records of one key's data (`file[8..]`, after 8 bytes of something else), built.
    fn built(file: &[u8], version: u32) -> Result<Vec<FunctionRecord<'_>>> {
        let mut out = Vec::new();
        let item = (8, file.len() as u64 - 8);
        parse_records_of(file, version, item, 7, &mut |f, v: RecordView| {
            let (r, read) = v.build(f)?;
            out.push(r);
            Ok(Some(read))
        })?;
        Ok(out)
    }

    /// Version 1 has no counter count: everything after the hash is counters, one record.
    /// (Reading two header words at once must not apply to it.)
    #[test]
    fn version_1_key_is_one_record_of_the_rest() {
        let file = words(&[0, 0xc0, 1, 2, 3]);
        let recs = built(&file, 1).unwrap();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].key, FunctionKey { name: 7, cfg: 0xc0 });
        assert_eq!(recs[0].counters.len(), 3);
    }

    /// Records with the empty value block (its 8-byte header alone) and with sites, one after
    /// another: the grammar steps over the first and hands the second to the sink, and the
    /// record after each starts where it ends.
    #[test]
    fn empty_and_real_value_blocks_in_a_row() {
        // v12 records: hash, count, counters, bitmap byte count 0, value block. The middle
        // one's block is 40 bytes: one kind (0, indirect calls) with one site (its count byte
        // in a padded word) of one value.
        let file = words(&[
            0,
            0x11,
            1,
            5,
            0,
            8,
            0x22,
            2,
            6,
            7,
            0,
            40 | (1 << 32),
            1 << 32,
            1,
            0xabc,
            9,
            0x33,
            1,
            4,
            0,
            8,
        ]);
        let recs = built(&file, 12).unwrap();
        let keys: Vec<u64> = recs.iter().map(|r| r.key.cfg).collect();
        assert_eq!(keys, vec![0x11, 0x22, 0x33]);
        assert!(recs[0].values.is_none());
        assert!(recs[1].values.is_some());
        assert_eq!(recs[1].counters.len(), 2);
        assert!(recs[2].values.is_none());
        assert_eq!(recs[2].counters.get(0), Some(4));
    }

    /// A key's data ending inside a record's header: the error names the field it cut and its
    /// offset, as the word-by-word reading does.
    #[test]
    fn a_header_cut_short_names_the_field() {
        // One whole v12 record, then a hash alone (8 of the header's 16 bytes).
        let file = words(&[0, 0x11, 1, 5, 0, 8, 0x22]);
        let err = built(&file, 12).unwrap_err();
        // The pad word, the whole record (5 words), the lone hash.
        assert_eq!(err.offset(), Some(8 + 8 * 5 + 8));
        assert!(
            matches!(
                err.kind(),
                ErrorKind::Truncated {
                    what: "record: number of counters",
                    needed: 8,
                    available: 0
                }
            ),
            "{err}"
        );
    }
}
