//! Front-end for LLVM raw instrumentation profiles (`.profraw`), raw versions 4, 5 and 7–11
//! (version 6 was never in an LLVM release), written by 32- or 64-bit programs of either byte order.
//!
//! A file holds one or more complete profiles back to back (an executable and each
//! instrumented shared library append their own). Each profile is: header, binary IDs, data
//! records, counters, MC/DC bitmap bytes, (v11) uniform counters, names, (v10+) vtable records
//! and vtable names, then one value-profile block per data record that has value sites.
//!
//! Counters are not copied: records borrow them from the input ([`Counters::Raw64`] /
//! [`Counters::Coverage`]). Each record's counters are found by walking the data records the
//! way the runtime laid them out: absolute pointers before v8, pointers relative to the record
//! after (see [`records::section_offset`]).
//!
//! Indirect-call targets are run-time addresses in the file; they are translated to the name
//! hash of the function whose `FunctionPointer` equals the address (0 if none), and vtable
//! addresses to the hash of the vtable whose `[start, start + size]` range contains them,
//! exactly as `llvm-profdata` does.

pub mod header;
pub mod layout;
mod name_cache;
pub mod records;

use std::borrow::Cow;
use std::sync::Arc;

pub use header::{Encoding, Field, HeaderVariant, MAGIC_32, MAGIC_64, RawHeader};
pub use name_cache::NameCache;
use records::{DataRecord, PointerMode, Span, SpanKind, check_span, section_offset};

use crate::bytes::{Cursor, PointerWidth, pad8};
use crate::codec::value_prof_data;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::symbols::HashKeyed;
use crate::ir::{
    Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, Provenance, SymbolTable,
    TemporalProfile, TemporalTrace, ValueKind, ValueProfile,
};
use layout::address_key;

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
    build(data, parsed, cache, warnings)
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

/// [`parse_profile`], with a choice of what happens to the records.
fn parse_profile_with<'a>(
    data: &'a [u8],
    pos: usize,
    enc: Encoding,
    variant: HeaderVariant,
    mode: PointerMode,
    mut sink: RecordSink<'_, 'a>,
) -> Result<Parsed<'a>> {
    let keep_values = matches!(sink, RecordSink::Collect);
    let mut skipped_values = value_prof_data::FlatValues::default();
    let mut c = Cursor::new(&data[pos..], pos as u64, enc.endian);
    let h = RawHeader::parse(&mut c, enc, variant)?;
    let s = pos as u64;
    let avail = (data.len() - pos) as u64;
    let layout = h.record_layout();
    let entry = h.counter_entry_size();

    // Section offsets relative to the profile start (format reference §6).
    let mut l = Layout {
        h: &h,
        avail,
        end: h.size,
    };
    l.extend(Field::BinaryIdsSize, h.binary_ids_size, "binary IDs")?;
    let data_start = l.take(Field::NumData, h.num_data, layout.size, "data records")?;
    l.extend(
        Field::PaddingBeforeCounters,
        h.padding_before_counters,
        "padding before the counters",
    )?;
    let counters_start = l.take(Field::NumCounters, h.num_counters, entry, "counters")?;
    let counters_len = l.end - counters_start;
    l.extend(
        Field::PaddingAfterCounters,
        h.padding_after_counters,
        "padding after the counters",
    )?;
    let bitmap_start = l.extend(
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
    let names_start = l.extend(Field::NamesSize, h.names_size, "names")?;
    let names_end = l.end;
    l.extend(
        Field::NamesSize,
        pad8(h.names_size),
        "padding after the names",
    )?;
    let vrec = if enc.width == PointerWidth::W64 {
        24
    } else {
        16
    };
    let vtables_start = l.take(Field::NumVTables, h.num_vtables, vrec, "vtable records")?;
    let vtables_len = l.end - vtables_start;
    l.extend(
        Field::NumVTables,
        pad8(vtables_len),
        "padding after the vtable records",
    )?;
    let vnames_start = l.extend(Field::VNamesSize, h.vnames_size, "vtable names")?;
    l.extend(
        Field::VNamesSize,
        pad8(h.vnames_size),
        "padding after the vtable names",
    )?;
    let values_start = l.end;
    let sl = |a: u64, b: u64| -> &'a [u8] { &data[(s + a) as usize..(s + b) as usize] };

    // Binary IDs.
    let binary_ids = parse_binary_ids(&h, sl(h.size, data_start), s + h.size)?;

    // Vtable records (v10+).
    let mut vtables =
        crate::sys::alloc::with_capacity(h.num_vtables as usize, "the vtable records")?;
    {
        let vbytes = sl(vtables_start, vtables_start + vtables_len);
        let mut vc = Cursor::new(vbytes, s + vtables_start, enc.endian);
        for _ in 0..h.num_vtables {
            let name_hash = vc.u64("vtable record: name hash")?;
            let start = vc.ptr(enc.width, "vtable record: pointer")?;
            let size = u64::from(vc.u32("vtable record: size")?);
            if enc.width == PointerWidth::W64 {
                vc.skip(4, "vtable record: padding")?;
            }
            vtables.push(VTable {
                name_hash,
                start,
                size,
            });
        }
    }

    // Data records, counters, bitmaps.
    let counters_sec = sl(counters_start, counters_start + counters_len);
    let bitmap_sec = sl(bitmap_start, bitmap_start + h.num_bitmap_bytes);
    let temporal = h.version_word & (1 << 63) != 0;
    let mut located = match sink {
        RecordSink::Collect => {
            crate::sys::alloc::with_capacity(h.num_data as usize, "the data records")?
        }
        RecordSink::Visit(_) => Vec::new(),
    };
    let mut values_pos = values_start;
    for i in 0..h.num_data {
        let roff = data_start + i * layout.size;
        let rbytes = sl(roff, roff + layout.size);
        let rec = DataRecord::decode(&h, &layout, rbytes, i, s + roff).ok_or_else(|| {
            Error::malformed(s + roff, "data record", "record is shorter than its layout")
        })?;
        if rec.num_counters == 0 {
            return Err(Error::malformed(
                rec.offset,
                "data record",
                "number of counters is zero",
            ));
        }
        let span = locate(
            &h,
            mode,
            &rec,
            h.counters_delta,
            u64::from(rec.num_counters),
            entry,
            counters_len,
            SpanKind::Counter,
            layout.size,
        )?;
        let mut cbytes = &counters_sec[span.start as usize..(span.start + span.len) as usize];
        let mut counters_offset = s + counters_start + span.start;
        let mut timestamp = None;
        if temporal {
            // The first counter entry is a u64 timestamp (8 one-byte entries in byte mode).
            if cbytes.len() < 8 {
                return Err(Error::malformed(
                    rec.offset,
                    "data record",
                    "a temporal profile record has no room for its 8-byte timestamp",
                ));
            }
            timestamp = enc.endian.u64_at(cbytes, 0);
            cbytes = &cbytes[8..];
            counters_offset += 8;
        }
        let mut bitmap_offset = s + bitmap_start;
        let bitmap: &'a [u8] = if rec.num_bitmap_bytes > 0 {
            let bspan = locate(
                &h,
                PointerMode::Relative,
                &rec,
                h.bitmap_delta,
                u64::from(rec.num_bitmap_bytes),
                1,
                h.num_bitmap_bytes,
                SpanKind::Bitmap,
                layout.size,
            )?;
            bitmap_offset += bspan.start;
            &bitmap_sec[bspan.start as usize..(bspan.start + bspan.len) as usize]
        } else {
            &[]
        };
        if h.num_uniform_counters > 0 {
            // Validated as llvm-profdata 23 does (one 8-byte uniform counter per counter), but
            // not carried: no index version stores them per record yet.
            locate(
                &h,
                PointerMode::Relative,
                &rec,
                h.uniform_counters_delta,
                u64::from(rec.num_counters),
                8,
                h.num_uniform_counters.saturating_mul(8),
                SpanKind::UniformCounter,
                layout.size,
            )?;
        }
        let values = if rec.has_value_block() {
            let vstart = values_pos;
            let vbytes = &data[(s + vstart) as usize..];
            let mut vc = Cursor::new(vbytes, s + vstart, enc.endian);
            let v = if keep_values {
                Some(value_prof_data::parse(&mut vc)?)
            } else {
                skipped_values.clear();
                value_prof_data::parse_flat(&mut vc, &mut skipped_values)?;
                None
            };
            values_pos = vstart + vc.position() as u64;
            v
        } else {
            None
        };
        let l = Located {
            rec,
            counters: cbytes,
            counters_offset,
            timestamp,
            bitmap,
            bitmap_offset,
            values,
        };
        match &mut sink {
            RecordSink::Collect => located.push(l),
            RecordSink::Visit(f) => f(l),
        }
    }

    Ok(Parsed {
        names: (sl(names_start, names_end), s + names_start),
        vnames: (
            sl(vnames_start, vnames_start + h.vnames_size),
            s + vnames_start,
        ),
        header: h,
        binary_ids,
        records: located,
        vtables,
        sections: Sections {
            data: s + data_start,
            names: s + names_start,
            values: s + values_start,
        },
        end: (s + values_pos) as usize,
    })
}

/// Finds a record's counters or bitmap bytes, with the 32-bit-delta retry for 64-bit Windows
/// writers (which truncate the deltas to 32 bits).
#[allow(clippy::too_many_arguments)]
fn locate(
    h: &RawHeader,
    mode: PointerMode,
    rec: &DataRecord,
    delta: u64,
    count: u64,
    entry: u64,
    section_len: u64,
    what: SpanKind,
    record_size: u64,
) -> Result<Span> {
    let width = h.encoding.width;
    let pointer = what.pointer(rec);
    let off = section_offset(mode, width, pointer, delta, rec.index, record_size);
    match check_span(off, count, entry, section_len, what, rec.offset) {
        Ok(s) => Ok(s),
        Err(e) => {
            if width == PointerWidth::W64 && delta >> 32 == 0 {
                let off32 = section_offset(
                    mode,
                    PointerWidth::W32,
                    pointer,
                    delta,
                    rec.index,
                    record_size,
                );
                if let Ok(s) = check_span(off32, count, entry, section_len, what, rec.offset) {
                    return Ok(s);
                }
            }
            Err(e)
        }
    }
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

fn build<'a>(
    data: &'a [u8],
    parsed: Vec<Parsed<'a>>,
    cache: &NameCache,
    mut warnings: Vec<Warning>,
) -> Result<RawRead<'a>> {
    let _ = data;
    let mut kind = ProfileKind::empty();
    let mut headers = Vec::with_capacity(parsed.len());
    let mut records = Vec::new();
    let mut binary_ids = Vec::new();
    let mut timestamps: Vec<(u64, u64)> = Vec::new();
    let mut suspicious = None;
    let mut uncorrelated = 0u64;
    let mut tables: Vec<Arc<SymbolTable>> = Vec::new();
    let mut vtables_tables: Vec<Arc<SymbolTable>> = Vec::new();

    for p in parsed {
        let h = &p.header;
        let (k, unknown) = ProfileKind::from_version_word(h.version_word);
        if unknown != 0 {
            warnings.push(Warning::at(
                h.start,
                format!("unknown flag bits {unknown:#018x} in the version word are ignored"),
            ));
        }
        if !kind.is_ir() && !kind.contains(ProfileKind::FRONTEND) {
            kind = k;
        } else if kind.is_ir() != k.is_ir() {
            warnings.push(Warning::at(
                h.start,
                format!(
                    "this profile is {} but an earlier profile in the same file is {}",
                    if k.is_ir() { "IR-level" } else { "front-end" },
                    if kind.is_ir() {
                        "IR-level"
                    } else {
                        "front-end"
                    },
                ),
            ));
            kind.insert(k);
        } else {
            kind.insert(k);
        }
        if h.value_kind_last != h.value_kind_slots() as u64 - 1 {
            warnings.push(Warning::at(
                h.start,
                format!(
                    "ValueKindLast is {} but raw version {} has {} value kinds; using {}",
                    h.value_kind_last,
                    h.version,
                    h.value_kind_slots(),
                    h.value_kind_slots()
                ),
            ));
        }
        if h.num_uniform_counters > 0 {
            warnings.push(Warning::at(
                h.start,
                format!(
                    "{} uniform counters (GPU offload profiling, raw v11) are not carried to the \
                     output",
                    h.num_uniform_counters
                ),
            ));
        }
        if h.num_data == 0 && h.names_size == 0 && h.num_counters > 0 {
            uncorrelated += h.num_counters;
        }
        binary_ids.extend(p.binary_ids.iter().map(|b| b.to_vec()));
        let decoded = cache.get_or_decode(p.names.0, p.names.1)?;
        let (names, order) = (decoded.table, decoded.order);
        let vnames = if p.vnames.0.is_empty() {
            Arc::new(SymbolTable::new())
        } else {
            cache.get_or_decode(p.vnames.0, p.vnames.1)?.table
        };

        // Address maps for value translation. Functions by address only if a target is
        // to be translated (a million records are a million inserts).
        let fn_addrs = p
            .records
            .iter()
            .any(|l| {
                l.values.as_ref().is_some_and(|v| {
                    v.kind(ValueKind::IndirectCall)
                        .iter()
                        .any(|s| !s.values.is_empty())
                })
            })
            .then(|| FunctionAddrs::new(&p.records));
        let mut vt: Vec<VTable> = p.vtables.iter().copied().filter(|v| v.start != 0).collect();
        vt.sort_by_key(|v| v.start);

        let byte_coverage = h.counter_entry_size() == 1;
        let mut in_order = NameOrder::new(&order);
        for l in p.records {
            let name_ok = in_order.has(l.rec.name_ref) || names.contains(l.rec.name_ref);
            if !name_ok {
                warnings.push(Warning::at(
                    l.rec.offset,
                    format!(
                        "data record with name hash {:#018x}, which is not in the names section; \
                         the record is dropped",
                        l.rec.name_ref
                    ),
                ));
                continue;
            }
            if let Some(ts) = l.timestamp
                && ts != 0
                && ts != u64::MAX
            {
                timestamps.push((ts, l.rec.name_ref));
            }
            let counters = if byte_coverage {
                Counters::Coverage(l.counters)
            } else {
                if suspicious.is_none() {
                    for (j, chunk) in l.counters.chunks_exact(8).enumerate() {
                        let v = h.encoding.endian.u64(chunk.try_into().unwrap_or([0; 8]));
                        if v > MAX_PLAUSIBLE_COUNTER {
                            suspicious = Some(SuspiciousCounter {
                                value: v,
                                offset: l.counters_offset + 8 * j as u64,
                            });
                            break;
                        }
                    }
                }
                Counters::Raw64 {
                    bytes: l.counters,
                    endian: h.encoding.endian,
                }
            };
            let values = l.values.map(|mut v| {
                if let Some(addrs) = &fn_addrs {
                    for site in v.kind_mut(ValueKind::IndirectCall) {
                        for vc in &mut site.values {
                            vc.value = addrs.function_at(vc.value);
                        }
                    }
                }
                for site in v.kind_mut(ValueKind::VTable) {
                    for vc in &mut site.values {
                        let i = vt.partition_point(|t| t.start <= vc.value);
                        vc.value = match i.checked_sub(1).and_then(|j| vt.get(j)) {
                            Some(t) if vc.value <= t.start.saturating_add(t.size) => t.name_hash,
                            _ => 0,
                        };
                    }
                }
                Box::new(v)
            });
            records.push(FunctionRecord {
                key: FunctionKey {
                    name: l.rec.name_ref,
                    cfg: l.rec.func_hash,
                },
                counters,
                bitmap: Cow::Borrowed(l.bitmap),
                values,
            });
        }
        tables.push(names);
        vtables_tables.push(vnames);
        headers.push(p.header);
    }

    let mut temporal = TemporalProfile::default();
    if !timestamps.is_empty() {
        timestamps.sort_unstable();
        temporal.traces.push(TemporalTrace {
            weight: 1,
            functions: timestamps.into_iter().map(|(_, n)| n).collect(),
        });
        temporal.stream_size = 1;
    }
    let format = match headers.first() {
        Some(h) => format!("raw profile v{} ({})", h.version, h.encoding.describe()),
        None => "raw profile".into(),
    };
    Ok(RawRead {
        profile: Profile {
            kind,
            records,
            names: merge_tables(tables),
            vtable_names: merge_tables(vtables_tables),
            binary_ids,
            temporal,
            uncorrelated_counters: uncorrelated,
            stored_summaries: None,
            layout: None,
            provenance: Provenance { path: None, format },
        },
        headers,
        warnings,
        suspicious_counter: suspicious,
    })
}

/// A walk along the hashes of a names section in its order, beside the data records: a
/// record whose name is the next one (or a few further: a function whose record the linker
/// dropped still has its name) is known to be named without a probe into the names table,
/// a random memory access per record with a million functions.
struct NameOrder<'o> {
    order: &'o [u64],
    /// The position after the last name matched.
    next: usize,
}

impl<'o> NameOrder<'o> {
    /// Names looked at beyond the expected one.
    const REACH: usize = 8;

    fn new(order: &'o [u64]) -> Self {
        NameOrder { order, next: 0 }
    }

    /// True if `hash` is among the next few names (then the walk moves past it); false says
    /// nothing.
    fn has(&mut self, hash: u64) -> bool {
        let ahead = self.order.get(self.next..).unwrap_or(&[]);
        match ahead.iter().take(Self::REACH).position(|&h| h == hash) {
            Some(k) => {
                self.next += k + 1;
                true
            }
            None => false,
        }
    }
}

/// The functions of one profile by run-time address (`FunctionPointer`), for translating
/// indirect-call targets to name hashes.
///
/// A hash map, not a sorted list: with a million functions a binary search is some twenty
/// dependent cache misses per target, a probe here about one.
struct FunctionAddrs {
    /// `address_key` of an address → name hash of the first record (in record order) at
    /// that address.
    by_key: HashKeyed<u64>,
}

impl FunctionAddrs {
    fn new(records: &[Located<'_>]) -> Self {
        let mut by_key = HashKeyed::default();
        by_key.reserve(records.len());
        for l in records {
            if l.rec.function_ptr != 0 {
                by_key
                    .entry(address_key(l.rec.function_ptr))
                    .or_insert(l.rec.name_ref);
            }
        }
        FunctionAddrs { by_key }
    }

    /// The name hash of the function at run-time address `addr`, 0 if none. Several
    /// functions at one address (identical code folding) give the first in record order.
    fn function_at(&self, addr: u64) -> u64 {
        if addr == 0 {
            return 0;
        }
        self.by_key.get(&address_key(addr)).copied().unwrap_or(0)
    }
}

fn merge_tables(mut tables: Vec<Arc<SymbolTable>>) -> Arc<SymbolTable> {
    tables.dedup_by(|a, b| Arc::ptr_eq(a, b));
    match tables.len() {
        0 => Arc::new(SymbolTable::new()),
        1 => tables.pop().unwrap_or_default(),
        _ => {
            let mut t = SymbolTable::new();
            for x in &tables {
                t.extend_from(x);
            }
            Arc::new(t)
        }
    }
}
