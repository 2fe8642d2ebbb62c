//! Front-end for LLVM raw instrumentation profiles (`.profraw`), raw versions 4, 5 and 7–11
//! (version 6 was never in an LLVM release), written by 32- or 64-bit programs of either byte order.
//!
//! A file holds one or more complete profiles back to back (an executable and each
//! instrumented shared library append their own). Each profile is: header, binary IDs, data
//! records, counters, MC/DC bitmap bytes, (v11) uniform counters, names, (v10+) vtable records
//! and vtable names, then one value-profile block per data record that has value sites.
//!
//! Counters are not copied: records borrow them from the input ([`crate::ir::Counters::Raw64`] /
//! [`crate::ir::Counters::Coverage`]). Each record's counters are found by walking the data records the
//! way the runtime laid them out: absolute pointers before v8, pointers relative to the record
//! after (see [`records::section_offset`]).
//!
//! Indirect-call targets are run-time addresses in the file; they are translated to the name
//! hash of the function whose `FunctionPointer` equals the address (0 if none), and vtable
//! addresses to the hash of the vtable whose `[start, start + size]` range contains them,
//! exactly as `llvm-profdata` does.

mod build;
#[cfg(feature = "correlate")]
pub mod correlate;
pub mod header;
pub mod layout;
mod name_cache;
pub mod records;

use header::RecordLayout;
pub use header::{Encoding, Field, HeaderVariant, MAGIC_32, MAGIC_64, RawHeader};
pub use name_cache::NameCache;
use records::{DataRecord, PointerMode, Span, SpanKind, check_span, section_offset};

use crate::bytes::{Cursor, PointerWidth, pad8};
use crate::codec::value_prof_data;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::{Profile, ProfileKind, ValueProfile};

/// Counters above this value make `llvm-profdata merge` reject a raw input as corrupt
/// ("excessively large counter value suggests corrupted profile data"); we do the same.
pub const MAX_PLAUSIBLE_COUNTER: u64 = 1 << 56;

/// A counter above [`MAX_PLAUSIBLE_COUNTER`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuspiciousCounter {
    /// The value.
    pub value: u64,
    /// Absolute file offset of the counter.
    pub offset: u64,
}

/// The result of reading a raw file.
#[derive(Debug)]
pub struct RawRead<'a> {
    /// All records of all profiles in the file, in file order.
    pub profile: Profile<'a>,
    /// The header of each profile in the file.
    pub headers: Vec<RawHeader>,
    /// Non-fatal problems.
    pub warnings: Vec<Warning>,
    /// The first implausibly large counter, if any.
    pub suspicious_counter: Option<SuspiciousCounter>,
}

/// True if `data` starts with a raw-profile magic (either width, either byte order).
pub fn is_raw(data: &[u8]) -> bool {
    magic_at(data, 0).is_some()
}

fn magic_at(data: &[u8], pos: usize) -> Option<Encoding> {
    let b: [u8; 8] = data.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
    Encoding::from_magic(b)
}

/// Reads every profile in a raw file. Names sections already decoded for another input are
/// taken from `cache`.
pub fn read<'a>(data: &'a [u8], cache: &NameCache) -> Result<RawRead<'a>> {
    if data.is_empty() {
        return Err(Error::at(0, ErrorKind::Empty));
    }
    let first = magic_at(data, 0).ok_or_else(|| {
        Error::at(
            0,
            ErrorKind::BadMagic {
                found: crate::bytes::Endian::Little.u64_at(data, 0).unwrap_or(0),
                expected: "a raw profile magic (\\xfflprofr\\x81 or \\xfflprofR\\x81)",
            },
        )
    })?;
    let mut parsed = Vec::new();
    let mut warnings = Vec::new();
    let mut pos = 0usize;
    loop {
        if parsed.len() >= crate::bytes::limits::MAX_PROFILES_PER_FILE {
            return Err(Error::at(
                pos as u64,
                ErrorKind::LimitExceeded {
                    what: "profiles in one raw file",
                    value: parsed.len() as u64,
                    limit: crate::bytes::limits::MAX_PROFILES_PER_FILE as u64,
                },
            ));
        }
        let p = parse_with_fallbacks(data, pos, first, &mut warnings, true)?;
        pos = p.end;
        parsed.push(p);
        // Zero bytes may separate profiles.
        while data.get(pos) == Some(&0) {
            pos += 1;
        }
        if pos >= data.len() {
            break;
        }
        match magic_at(data, pos) {
            Some(enc) if enc == first => {}
            Some(enc) => {
                return Err(Error::malformed(
                    pos as u64,
                    "raw profile header",
                    format!(
                        "a second profile is {} but the first is {}; profiles in one file must match",
                        enc.describe(),
                        first.describe()
                    ),
                ));
            }
            None => {
                return Err(Error::malformed(
                    pos as u64,
                    "data after the last profile",
                    format!(
                        "{} bytes follow the end of the profile but do not start another raw \
                         profile (first bytes {})",
                        data.len() - pos,
                        crate::bytes::hex_head(&data[pos..])
                    ),
                ));
            }
        }
    }
    build::build(parsed, cache, warnings)
}

/// The byte ranges of the profiles in `data`, a raw file that holds several (as a process
/// whose executable and shared libraries are instrumented writes them), when reading them
/// one at a time gives what reading the file whole gives: every profile parses, with no
/// fallback (whose warning would come before the others), all are of one kind, and none is
/// temporal (the timestamps of a file make one trace) or uncorrelated. Each range runs to
/// where the next profile starts (the zero bytes between them included). None otherwise,
/// and for a file of one profile. Only headers are kept: memory does not grow with the
/// file. `walked` is called with the end of each profile once it is checked (a mapped
/// input's pages before it can then be released).
pub fn split_profiles(
    data: &[u8],
    mut walked: impl FnMut(usize),
) -> Option<Vec<std::ops::Range<usize>>> {
    let first = magic_at(data, 0)?;
    // A second profile starts with the first one's magic: without one anywhere further on
    // (the common case), there is nothing to split and no record to walk.
    let magic = data.get(..8)?;
    memchr::memmem::find(data.get(8..)?, magic)?;
    let mut ranges = Vec::new();
    let mut kind = None;
    let mut pos = 0usize;
    loop {
        let mut warnings = Vec::new();
        let p = parse_with_fallbacks(data, pos, first, &mut warnings, false).ok()?;
        let h = &p.header;
        let this_kind = ProfileKind::from_version_word(h.version_word).0;
        let uncorrelated = h.num_data == 0 && h.names_size == 0 && h.num_counters > 0;
        if !warnings.is_empty()
            || h.version_word & (1 << 63) != 0
            || uncorrelated
            || *kind.get_or_insert(this_kind) != this_kind
            || ranges.len() >= crate::bytes::limits::MAX_PROFILES_PER_FILE
        {
            return None;
        }
        let start = pos;
        pos = p.end;
        while data.get(pos) == Some(&0) {
            pos += 1;
        }
        ranges.push(start..pos);
        walked(pos);
        if pos >= data.len() {
            break;
        }
        if magic_at(data, pos) != Some(first) {
            return None;
        }
    }
    (ranges.len() > 1).then_some(ranges)
}

/// One profile of a file, located and checked, not yet turned into IR.
struct Parsed<'a> {
    header: RawHeader,
    binary_ids: Vec<&'a [u8]>,
    records: Vec<Located<'a>>,
    names: (&'a [u8], u64),
    vnames: (&'a [u8], u64),
    vtables: Vec<VTable>,
    /// Absolute offsets of the sections (for [`layout`]).
    sections: Sections,
    end: usize,
}

/// Absolute file offsets of one profile's sections.
#[derive(Debug, Clone, Copy)]
struct Sections {
    data: u64,
    names: u64,
    values: u64,
}

struct Located<'a> {
    rec: DataRecord,
    counters: &'a [u8],
    counters_offset: u64,
    timestamp: Option<u64>,
    bitmap: &'a [u8],
    bitmap_offset: u64,
    values: Option<ValueProfile>,
}

#[derive(Debug, Clone, Copy)]
struct VTable {
    name_hash: u64,
    start: u64,
    size: u64,
}

/// Parses the profile at `pos`, trying the header variants and pointer modes its version
/// may have been written with (each fallback that works is a warning). With `keep`, the
/// records are kept in [`Parsed::records`]; without, they are only checked.
fn parse_with_fallbacks<'a>(
    data: &'a [u8],
    pos: usize,
    enc: Encoding,
    warnings: &mut Vec<Warning>,
    keep: bool,
) -> Result<Parsed<'a>> {
    let parse_profile =
        |data, pos, enc, variant, mode| parse_profile(data, pos, enc, variant, mode, keep);
    let version = enc
        .endian
        .u64_at(data, pos + 8)
        .map(|w| (w & 0xffff_ffff) as u32);
    match version {
        Some(5) => match parse_profile(
            data,
            pos,
            enc,
            HeaderVariant::Standard,
            PointerMode::Absolute,
        ) {
            Ok(p) => Ok(p),
            Err(first) => {
                match parse_profile(
                    data,
                    pos,
                    enc,
                    HeaderVariant::V5EightWords,
                    PointerMode::Absolute,
                ) {
                    Ok(p) => {
                        warnings.push(Warning::at(
                            pos as u64,
                            "a version 5 profile with the 8-word header of LLVM 9/10",
                        ));
                        Ok(p)
                    }
                    Err(_) => Err(first),
                }
            }
        },
        Some(7) => match parse_profile(
            data,
            pos,
            enc,
            HeaderVariant::Standard,
            PointerMode::Absolute,
        ) {
            Ok(p) => Ok(p),
            Err(first) => {
                match parse_profile(
                    data,
                    pos,
                    enc,
                    HeaderVariant::Standard,
                    PointerMode::Relative,
                ) {
                    Ok(p) => {
                        warnings.push(Warning::at(
                            pos as u64,
                            "a version 7 profile with relative counter pointers (written by LLVM \
                             trunk in autumn 2021, not by a release)",
                        ));
                        Ok(p)
                    }
                    Err(_) => Err(first),
                }
            }
        },
        Some(v) if v < 8 => parse_profile(
            data,
            pos,
            enc,
            HeaderVariant::Standard,
            PointerMode::Absolute,
        ),
        _ => parse_profile(
            data,
            pos,
            enc,
            HeaderVariant::Standard,
            PointerMode::Relative,
        ),
    }
}

/// Lays the sections of one profile out one after another, checking every step against the
/// bytes present; an error names the header field responsible and points at it.
struct Layout<'h> {
    h: &'h RawHeader,
    /// Bytes available from the profile start to the end of the file.
    avail: u64,
    /// Current end, relative to the profile start.
    end: u64,
}

impl Layout<'_> {
    /// Adds `count × unit` bytes described by header field `f`; returns the section's start.
    fn take(&mut self, f: Field, count: u64, unit: u64, what: &'static str) -> Result<u64> {
        let at = self.h.offset_of(f);
        let len = count.checked_mul(unit).ok_or_else(|| {
            Error::malformed(
                at,
                f.name(),
                format!("{count} × {unit} bytes overflows a 64-bit size"),
            )
        })?;
        self.extend(f, len, what)
    }

    /// Adds `len` bytes for `what` (whose size comes from header field `f`).
    fn extend(&mut self, f: Field, len: u64, what: &'static str) -> Result<u64> {
        let at = self.h.offset_of(f);
        let start = self.end;
        let end = start.checked_add(len).ok_or_else(|| {
            Error::malformed(
                at,
                f.name(),
                format!("{len} bytes of {what} overflow a 64-bit offset"),
            )
        })?;
        if end > self.avail {
            return Err(Error::malformed(
                at,
                f.name(),
                format!(
                    "{what} of {len} bytes at {:#x} run past the end of the file (the profile \
                     has {} bytes from {:#x})",
                    self.h.start + start,
                    self.avail,
                    self.h.start
                ),
            ));
        }
        self.end = end;
        Ok(start)
    }
}

fn parse_profile<'a>(
    data: &'a [u8],
    pos: usize,
    enc: Encoding,
    variant: HeaderVariant,
    mode: PointerMode,
    keep: bool,
) -> Result<Parsed<'a>> {
    if keep {
        parse_profile_with(data, pos, enc, variant, mode, RecordSink::Collect)
    } else {
        parse_profile_with(
            data,
            pos,
            enc,
            variant,
            mode,
            RecordSink::Visit(&mut |_| {}),
        )
    }
}

/// What [`parse_profile_with`] does with each located record.
enum RecordSink<'s, 'a> {
    /// Keep it, with its value profile, in [`Parsed::records`].
    Collect,
    /// Hand it to the visitor with its value blocks checked but skipped (`values` None);
    /// [`Parsed::records`] stays empty. [`layout`] learns a layout this way without holding
    /// every record at once (hundreds of megabytes for a million functions).
    Visit(&'s mut dyn FnMut(Located<'a>)),
}

/// Where one profile's sections lie, relative to the profile start (format reference §6),
/// checked against the bytes present.
struct SectionOffsets {
    data: u64,
    counters: u64,
    counters_len: u64,
    bitmap: u64,
    names: u64,
    names_end: u64,
    vtables: u64,
    vtables_len: u64,
    vnames: u64,
    values: u64,
}

/// Lays the sections of the profile of header `h` out one after another; `avail` is the
/// number of bytes from the profile start to the end of the file. An error names the header
/// field responsible and points at it.
fn section_offsets(h: &RawHeader, avail: u64) -> Result<SectionOffsets> {
    let layout = h.record_layout();
    let mut l = Layout {
        h,
        avail,
        end: h.size,
    };
    l.extend(Field::BinaryIdsSize, h.binary_ids_size, "binary IDs")?;
    let data = l.take(Field::NumData, h.num_data, layout.size, "data records")?;
    l.extend(
        Field::PaddingBeforeCounters,
        h.padding_before_counters,
        "padding before the counters",
    )?;
    let entry = h.counter_entry_size();
    let counters = l.take(Field::NumCounters, h.num_counters, entry, "counters")?;
    let counters_len = l.end - counters;
    l.extend(
        Field::PaddingAfterCounters,
        h.padding_after_counters,
        "padding after the counters",
    )?;
    let bitmap = l.extend(
        Field::NumBitmapBytes,
        h.num_bitmap_bytes,
        "MC/DC bitmap bytes",
    )?;
    l.extend(
        Field::PaddingAfterBitmap,
        h.padding_after_bitmap,
        "padding after the bitmap",
    )?;
    l.take(
        Field::NumUniformCounters,
        h.num_uniform_counters,
        8,
        "uniform counters",
    )?;
    l.extend(
        Field::PaddingAfterUniform,
        h.padding_after_uniform,
        "padding after the uniform counters",
    )?;
    let names = l.extend(Field::NamesSize, h.names_size, "names")?;
    let names_end = l.end;
    l.extend(
        Field::NamesSize,
        pad8(h.names_size),
        "padding after the names",
    )?;
    let vrec = if h.encoding.width == PointerWidth::W64 {
        24
    } else {
        16
    };
    let vtables = l.take(Field::NumVTables, h.num_vtables, vrec, "vtable records")?;
    let vtables_len = l.end - vtables;
    l.extend(
        Field::NumVTables,
        pad8(vtables_len),
        "padding after the vtable records",
    )?;
    let vnames = l.extend(Field::VNamesSize, h.vnames_size, "vtable names")?;
    l.extend(
        Field::VNamesSize,
        pad8(h.vnames_size),
        "padding after the vtable names",
    )?;
    Ok(SectionOffsets {
        data,
        counters,
        counters_len,
        bitmap,
        names,
        names_end,
        vtables,
        vtables_len,
        vnames,
        values: l.end,
    })
}

/// The vtable records (v10+) in `bytes`, at absolute offset `base`.
fn parse_vtables(h: &RawHeader, bytes: &[u8], base: u64) -> Result<Vec<VTable>> {
    let mut vtables =
        crate::sys::alloc::with_capacity(h.num_vtables as usize, "the vtable records")?;
    let mut vc = Cursor::new(bytes, base, h.encoding.endian);
    for _ in 0..h.num_vtables {
        let name_hash = vc.u64("vtable record: name hash")?;
        let start = vc.ptr(h.encoding.width, "vtable record: pointer")?;
        let size = u64::from(vc.u32("vtable record: size")?);
        if h.encoding.width == PointerWidth::W64 {
            vc.skip(4, "vtable record: padding")?;
        }
        vtables.push(VTable {
            name_hash,
            start,
            size,
        });
    }
    Ok(vtables)
}

/// What locating the data records of one profile needs: the header, how its pointers are
/// read, and its sections' bytes.
struct RecordWalk<'h, 'a> {
    h: &'h RawHeader,
    mode: PointerMode,
    /// The whole file.
    data: &'a [u8],
    /// Absolute offset of the profile.
    start: u64,
    offsets: &'h SectionOffsets,
    /// The counters section.
    counters: &'a [u8],
    /// The MC/DC bitmap section.
    bitmap: &'a [u8],
    layout: RecordLayout,
    record_size: u64,
    /// Value blocks are parsed into [`Located::values`]; otherwise only checked.
    keep_values: bool,
}

/// A section records point into: the header's delta for it, its size in bytes, the size of
/// one entry and which it is.
#[derive(Clone, Copy)]
struct Target {
    delta: u64,
    len: u64,
    entry: u64,
    kind: SpanKind,
}

impl<'a> RecordWalk<'_, 'a> {
    /// Decodes data record `i` and locates its counters, bitmap bytes, (v11) uniform
    /// counters and value block, which starts at `*values_pos` (relative to the profile
    /// start; moved past the block). `skipped` is scratch space for blocks not kept.
    fn record(
        &self,
        i: u64,
        values_pos: &mut u64,
        skipped: &mut value_prof_data::FlatValues,
    ) -> Result<Located<'a>> {
        let (h, s) = (self.h, self.start);
        let roff = self.offsets.data + i * self.record_size;
        let rbytes = &self.data[(s + roff) as usize..(s + roff + self.record_size) as usize];
        let rec = DataRecord::decode(h, &self.layout, rbytes, i, s + roff).ok_or_else(|| {
            Error::malformed(s + roff, "data record", "record is shorter than its layout")
        })?;
        if rec.num_counters == 0 {
            return Err(Error::malformed(
                rec.offset,
                "data record",
                "number of counters is zero",
            ));
        }
        let counters = Target {
            delta: h.counters_delta,
            len: self.offsets.counters_len,
            entry: h.counter_entry_size(),
            kind: SpanKind::Counter,
        };
        let span = self.locate(self.mode, &rec, u64::from(rec.num_counters), counters)?;
        let mut cbytes = &self.counters[span.start as usize..(span.start + span.len) as usize];
        let mut counters_offset = s + self.offsets.counters + span.start;
        let mut timestamp = None;
        if h.version_word & (1 << 63) != 0 {
            // The first counter entry is a u64 timestamp (8 one-byte entries in byte mode).
            if cbytes.len() < 8 {
                return Err(Error::malformed(
                    rec.offset,
                    "data record",
                    "a temporal profile record has no room for its 8-byte timestamp",
                ));
            }
            timestamp = h.encoding.endian.u64_at(cbytes, 0);
            cbytes = &cbytes[8..];
            counters_offset += 8;
        }
        let (bitmap, bitmap_offset) = self.bitmap_of(&rec)?;
        if h.num_uniform_counters > 0 {
            // Validated as llvm-profdata 23 does (one 8-byte uniform counter per counter), but
            // not carried: no index version stores them per record yet.
            let uniform = Target {
                delta: h.uniform_counters_delta,
                len: h.num_uniform_counters.saturating_mul(8),
                entry: 8,
                kind: SpanKind::UniformCounter,
            };
            self.locate(
                PointerMode::Relative,
                &rec,
                u64::from(rec.num_counters),
                uniform,
            )?;
        }
        let values = if rec.has_value_block() {
            self.value_block(values_pos, skipped)?
        } else {
            None
        };
        Ok(Located {
            rec,
            counters: cbytes,
            counters_offset,
            timestamp,
            bitmap,
            bitmap_offset,
            values,
        })
    }

    /// A record's MC/DC bitmap bytes and their absolute offset.
    fn bitmap_of(&self, rec: &DataRecord) -> Result<(&'a [u8], u64)> {
        let base = self.start + self.offsets.bitmap;
        if rec.num_bitmap_bytes == 0 {
            return Ok((&[], base));
        }
        let target = Target {
            delta: self.h.bitmap_delta,
            len: self.h.num_bitmap_bytes,
            entry: 1,
            kind: SpanKind::Bitmap,
        };
        let count = u64::from(rec.num_bitmap_bytes);
        let span = self.locate(PointerMode::Relative, rec, count, target)?;
        let bytes = &self.bitmap[span.start as usize..(span.start + span.len) as usize];
        Ok((bytes, base + span.start))
    }

    /// The value block at `*values_pos`, parsed if values are kept (else checked into
    /// `skipped`, and None); `*values_pos` moves past it.
    fn value_block(
        &self,
        values_pos: &mut u64,
        skipped: &mut value_prof_data::FlatValues,
    ) -> Result<Option<ValueProfile>> {
        let at = self.start + *values_pos;
        let mut vc = Cursor::new(&self.data[at as usize..], at, self.h.encoding.endian);
        let v = if self.keep_values {
            Some(value_prof_data::parse(&mut vc)?)
        } else {
            skipped.clear();
            value_prof_data::parse_flat(&mut vc, skipped)?;
            None
        };
        *values_pos += vc.position() as u64;
        Ok(v)
    }

    /// Finds `count` entries of a record in section `t`, with the 32-bit-delta retry for
    /// 64-bit Windows writers (which truncate the deltas to 32 bits).
    fn locate(&self, mode: PointerMode, rec: &DataRecord, count: u64, t: Target) -> Result<Span> {
        let width = self.h.encoding.width;
        let pointer = t.kind.pointer(rec);
        let at = |width| section_offset(mode, width, pointer, t.delta, rec.index, self.record_size);
        let check = |off| check_span(off, count, t.entry, t.len, t.kind, rec.offset);
        match check(at(width)) {
            Ok(s) => Ok(s),
            Err(e) => {
                if width == PointerWidth::W64
                    && t.delta >> 32 == 0
                    && let Ok(s) = check(at(PointerWidth::W32))
                {
                    return Ok(s);
                }
                Err(e)
            }
        }
    }
}

/// [`parse_profile`], with a choice of what happens to the records.
fn parse_profile_with<'a>(
    data: &'a [u8],
    pos: usize,
    enc: Encoding,
    variant: HeaderVariant,
    mode: PointerMode,
    mut sink: RecordSink<'_, 'a>,
) -> Result<Parsed<'a>> {
    let mut c = Cursor::new(&data[pos..], pos as u64, enc.endian);
    let h = RawHeader::parse(&mut c, enc, variant)?;
    let s = pos as u64;
    let o = section_offsets(&h, (data.len() - pos) as u64)?;
    let sl = |a: u64, b: u64| -> &'a [u8] { &data[(s + a) as usize..(s + b) as usize] };
    let binary_ids = parse_binary_ids(&h, sl(h.size, o.data), s + h.size)?;
    let vtables = parse_vtables(&h, sl(o.vtables, o.vtables + o.vtables_len), s + o.vtables)?;

    let walk = RecordWalk {
        h: &h,
        mode,
        data,
        start: s,
        offsets: &o,
        counters: sl(o.counters, o.counters + o.counters_len),
        bitmap: sl(o.bitmap, o.bitmap + h.num_bitmap_bytes),
        layout: h.record_layout(),
        record_size: h.record_layout().size,
        keep_values: matches!(sink, RecordSink::Collect),
    };
    let mut located = match sink {
        RecordSink::Collect => {
            crate::sys::alloc::with_capacity(h.num_data as usize, "the data records")?
        }
        RecordSink::Visit(_) => Vec::new(),
    };
    let mut skipped = value_prof_data::FlatValues::default();
    let mut values_pos = o.values;
    for i in 0..h.num_data {
        let l = walk.record(i, &mut values_pos, &mut skipped)?;
        match &mut sink {
            RecordSink::Collect => located.push(l),
            RecordSink::Visit(f) => f(l),
        }
    }

    Ok(Parsed {
        names: (sl(o.names, o.names_end), s + o.names),
        vnames: (sl(o.vnames, o.vnames + h.vnames_size), s + o.vnames),
        binary_ids,
        records: located,
        vtables,
        sections: Sections {
            data: s + o.data,
            names: s + o.names,
            values: s + o.values,
        },
        end: (s + values_pos) as usize,
        header: h,
    })
}

fn parse_binary_ids<'a>(h: &RawHeader, bytes: &'a [u8], base: u64) -> Result<Vec<&'a [u8]>> {
    let mut ids = Vec::new();
    let mut c = Cursor::new(bytes, base, h.encoding.endian);
    while !c.is_empty() {
        let at = c.offset();
        let len = c.u64("binary ID length")?;
        if len == 0 {
            return Err(Error::malformed(at, "binary ID", "binary id length is 0"));
        }
        ids.push(c.bytes(len, "binary ID bytes")?);
        if h.padded_binary_ids() {
            let pad = pad8(len).min(c.remaining() as u64);
            c.skip(pad, "binary ID padding")?;
        }
    }
    Ok(ids)
}
