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

use std::borrow::Cow;
use std::sync::Arc;

use crate::bytes::{Cursor, Endian, pad8};
use crate::codec::chained_hash::reader::{self, Table};
use crate::codec::value_prof_data;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::ir::name_hash::md5_hash;
use crate::ir::{
    Counters, FunctionKey, FunctionRecord, Profile, ProfileKind, Provenance, Summary, SummaryEntry,
    SymbolTable, TableLayout, TemporalProfile, TemporalTrace,
};

/// Newest index version read (LLVM 23).
pub const NEWEST_VERSION: u32 = 14;

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

/// Header fields (absent ones are 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexedHeader {
    /// Version word (version in the low 32 bits, variant flags above).
    pub version_word: u64,
    /// Hash type (0 = MD5, the only one).
    pub hash_type: u64,
    /// Offset of the bucket array.
    pub hash_offset: u64,
    /// Offset of the MemProf section (v8+).
    pub memprof_offset: u64,
    /// Offset of the binary-ID section (v9+).
    pub binary_id_offset: u64,
    /// Offset of the temporal-trace section (v10+).
    pub temporal_offset: u64,
    /// Offset of the vtable-names section (v12+).
    pub vtable_names_offset: u64,
    /// Header size in bytes.
    pub size: u64,
}

/// Parses the header (after checking the magic).
pub fn parse_header(data: &[u8]) -> Result<IndexedHeader> {
    let mut c = Cursor::new(data, 0, Endian::Little);
    let magic = c.u64("indexed profile magic")?;
    if magic != crate::codec::magic::INDEXED_MAGIC {
        return Err(Error::at(
            0,
            ErrorKind::BadMagic {
                found: magic,
                expected: "the indexed profile magic \\xfflprofi\\x81",
            },
        ));
    }
    let version_word = c.u64("indexed profile header: version")?;
    let version = (version_word & 0xffff_ffff) as u32;
    if version == 0 || version > NEWEST_VERSION {
        return Err(Error::at(
            8,
            ErrorKind::UnsupportedVersion {
                format: "indexed profile",
                version: u64::from(version),
                supported: "the newest index version this build reads is 14 (LLVM 23); \
                            versions 1 to 14 are read",
            },
        ));
    }
    let mut h = IndexedHeader {
        version_word,
        ..IndexedHeader::default()
    };
    c.u64("indexed profile header: unused")?;
    h.hash_type = c.u64("indexed profile header: hash type")?;
    h.hash_offset = c.u64("indexed profile header: hash table offset")?;
    if version >= 8 {
        h.memprof_offset = c.u64("indexed profile header: MemProf offset")?;
    }
    if version >= 9 {
        h.binary_id_offset = c.u64("indexed profile header: binary ID offset")?;
    }
    if version >= 10 {
        h.temporal_offset = c.u64("indexed profile header: temporal traces offset")?;
    }
    if version >= 12 {
        h.vtable_names_offset = c.u64("indexed profile header: vtable names offset")?;
    }
    h.size = c.offset();
    if h.hash_type != 0 {
        return Err(Error::malformed(
            24,
            "indexed profile header: hash type",
            format!(
                "{} is not 0 (MD5), the only hash type LLVM defines",
                h.hash_type
            ),
        ));
    }
    Ok(h)
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
    let mut detailed = Vec::with_capacity(nentries as usize);
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

/// Reads an indexed profile.
pub fn read(data: &[u8]) -> Result<IndexedRead<'_>> {
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
    if let Some(problem) = reader::check_buckets(data, &table, &bucket_starts) {
        warnings.push(Warning::new(format!(
            "the hash table's buckets do not match its items ({problem}); compilers look \
             functions up through the buckets and may not find some"
        )));
    }

    let mut names = SymbolTable::new();
    let mut layout_keys = Vec::with_capacity(items.len());
    let mut records = Vec::with_capacity(items.len());
    for it in &items {
        let key = &data[it.key.0 as usize..(it.key.0 + it.key.1) as usize];
        let h_name = md5_hash(key);
        if h_name != it.hash {
            warnings.push(Warning::at(
                it.offset,
                format!(
                    "hash table item: stored hash {:#018x} is not the MD5 hash of its name {:?} \
                     ({h_name:#018x})",
                    it.hash,
                    String::from_utf8_lossy(key)
                ),
            ));
        }
        names.insert(key);
        layout_keys.push(h_name);
        parse_records(data, version, it.data, h_name, &mut records)?;
    }

    // Binary IDs (v9+): the section is always read by LLVM.
    let mut binary_ids = Vec::new();
    if version >= 9 {
        let off = h.binary_id_offset;
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
    }

    // Vtable names (v12+).
    let mut vtable_names = SymbolTable::new();
    if version >= 12 && h.vtable_names_offset != 0 {
        let off = h.vtable_names_offset;
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
        crate::codec::names_blob::for_each_name(blob, blob_at, |n| {
            vtable_names.insert(n);
        })?;
    }

    // Temporal traces (v10+, only when flagged).
    let mut temporal = TemporalProfile::default();
    if version >= 10 && kind.contains(ProfileKind::TEMPORAL) {
        let off = h.temporal_offset;
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
            let mut functions = Vec::with_capacity(len as usize);
            for _ in 0..len {
                functions.push(c.u64("temporal trace: function hash")?);
            }
            temporal.traces.push(TemporalTrace { weight, functions });
        }
    } else if kind.contains(ProfileKind::TEMPORAL) {
        kind.remove(ProfileKind::TEMPORAL);
    }

    Ok(IndexedRead {
        profile: Profile {
            kind,
            records,
            names: Arc::new(names),
            vtable_names: Arc::new(vtable_names),
            binary_ids,
            temporal,
            uncorrelated_counters: 0,
            stored_summaries: stored,
            layout: Some(TableLayout {
                num_buckets: table.num_buckets,
                keys: layout_keys,
            }),
            provenance: Provenance {
                path: None,
                format: format!("indexed profile v{version}"),
            },
        },
        version,
        warnings,
    })
}

/// Parses the records of one key's data.
fn parse_records<'a>(
    file: &'a [u8],
    version: u32,
    (at, len): (u64, u64),
    name: u64,
    out: &mut Vec<FunctionRecord<'a>>,
) -> Result<()> {
    if len % 8 != 0 {
        return Err(Error::malformed(
            at,
            "function data",
            format!("length {len} is not a multiple of 8"),
        ));
    }
    let bytes = &file[at as usize..(at + len) as usize];
    let mut c = Cursor::new(bytes, at, Endian::Little);
    while !c.is_empty() {
        let rec_at = c.offset();
        let cfg = c.u64("record: function hash")?;
        let n = if version == 1 {
            // Version 1 has one record per key and no count: the rest is counters.
            (c.remaining() / 8) as u64
        } else {
            c.u64("record: number of counters")?
        };
        if n.saturating_mul(8) > c.remaining() as u64 {
            return Err(Error::malformed(
                rec_at,
                "record",
                format!("{n} counters do not fit in the key's data"),
            ));
        }
        let counters = Counters::Raw64 {
            bytes: c.bytes(n * 8, "record: counters")?,
            endian: Endian::Little,
        };
        let mut bitmap: Cow<'a, [u8]> = Cow::Borrowed(&[]);
        if version >= 11 {
            let nb = c.u64("record: number of bitmap bytes")?;
            if version >= 14 {
                let padded = nb.saturating_add(pad8(nb));
                let b = c.bytes(padded, "record: bitmap bytes")?;
                bitmap = Cow::Borrowed(&b[..nb as usize]);
                let nu = c.u64("record: number of uniformity bytes")?;
                let padded = nu.saturating_add(pad8(nu));
                c.skip(padded, "record: uniformity bytes")?;
            } else {
                if nb.saturating_mul(8) > c.remaining() as u64 {
                    return Err(c.truncated("record: bitmap bytes", nb.saturating_mul(8)));
                }
                let mut v = Vec::with_capacity(nb as usize);
                for _ in 0..nb {
                    v.push(c.u64("record: bitmap byte")? as u8);
                }
                bitmap = Cow::Owned(v);
            }
        }
        let values = if version >= 3 {
            let v = value_prof_data::parse(&mut c)?;
            (!v.is_empty()).then(|| Box::new(v))
        } else {
            None
        };
        out.push(FunctionRecord {
            key: FunctionKey { name, cfg },
            counters,
            bitmap,
            values,
        });
        if version == 1 {
            break;
        }
    }
    Ok(())
}
